//! The wire contract of the Keno server (`shared/API.md`, `schemas/openapi.json`): what other
//! vendors' terminals, displays and devices rely on, and what the server, the writer terminal,
//! the device tools, the fuzz targets and the load generator all read and write. A type is
//! written once, here, so the server's answer and a client's reading of it cannot drift apart.
//!
//! - [`audit`]: the auditors' tools: verification, the day's exceptions, the kinds of export;
//! - [`limits`]: how long a request's texts and lists may be, the one list of them;
//! - [`refusal`]: every machine code of an error answer, and the answer itself
//!   ([`ErrorBody`]: `{"error": code, "message": ...}`);
//! - [`tickets`]: a sale (`SaleRequest`, its bet and tenders) and the ticket, its results, its
//!   payment and its cancellation;
//! - [`set_bets`]: the catalogue of set bets and how a set bet is played;
//! - [`games`]: a game and the jackpot pools;
//! - [`draw`]: the ball draw: balls, faults, corrections, devices, the draw record;
//! - [`monitoring`]: draw monitoring, the tests of the games drawn per source and device;
//! - [`vouchers`]: issuing a voucher, and the voucher with its spends and cash-out;
//! - [`claims`]: the Unclaimed Prize Claim Form and the claim;
//! - [`closures`]: Keno closed early with notice (rule 16.2) and the notice players see;
//! - [`displays`]: registered displays, whose event streams come first;
//! - [`principals`]: who is calling (`/principals/me`) and the roles;
//! - [`staff`]: people, sign-on and sessions, terminals, supervisors' approvals, shifts;
//! - [`integrity`]: the components of the running software and their digests;
//! - [`suspension`]: the system suspended when its evidence breaks, and resumed by two people;
//! - [`events`]: the names and payloads of the event stream.
//!
//! The server maps each refusal to its HTTP status in one place (`keno-server`'s `error.rs`);
//! this crate knows nothing of HTTP, so clients and tools link it without a web framework. With
//! the feature `openapi` (the server's) the types derive `utoipa::ToSchema`: their doc comments
//! are the descriptions of the published schemas.

pub mod audit;
pub mod claims;
pub mod closures;
pub mod displays;
pub mod draw;
pub mod events;
pub mod games;
pub mod incidents;
pub mod integrity;
pub mod limits;
pub mod monitoring;
pub mod principals;
pub mod refusal;
pub mod set_bets;
pub mod staff;
pub mod suspension;
pub mod tickets;
pub mod vouchers;

pub use events::EventKind;
pub use refusal::{ErrorBody, Refusal, RefusalCode};
