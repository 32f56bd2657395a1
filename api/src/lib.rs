//! The wire contract of the Keno server (`shared/API.md`, `schemas/openapi.json`): what other
//! vendors' terminals, displays and devices rely on.
//!
//! - [`refusal`]: every machine code of an error answer (`{"error": code, "message": ...}`);
//! - [`events`]: the names and payloads of the event stream.
//!
//! The server maps each refusal to its HTTP status in one place (`keno-server`'s `error.rs`);
//! this crate knows nothing of HTTP, so clients and tools link it without a web framework.

pub mod events;
pub mod refusal;

pub use events::EventKind;
pub use refusal::Refusal;
