//! The entry forms of rule 5.5: the Mark Sense Entry Form (Diagram A) and the Way Bet Entry
//! Form (Diagram B), each one model of its boxes ([`layout`]) that is both printed ([`pdf`]) and
//! read from a scan or a photograph ([`read`], then [`choice`]).

pub mod choice;
pub mod layout;
pub mod pdf;
pub mod read;

pub use choice::{choice, Choice, FormSchedule, Problem, Refusal};
pub use layout::{diagram_a, diagram_b, Form, FormId};
pub use read::{read, read_bytes, NotRead, Reading};
