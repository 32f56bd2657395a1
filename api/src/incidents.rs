//! The server's own failures as they happen (issue 33): each kind one episode while it lasts.

use serde::{Deserialize, Serialize};

/// One kind of failure, from its first to its last.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Incident {
    /// `database`, `commit_unknown`, `drawer` or `internal`.
    pub fault: String,
    /// What failed, for people.
    pub words: String,
    pub began_at: String,
    pub last_at: String,
    /// How many failures since it began.
    pub count: u64,
    /// The last failure's message.
    pub detail: String,
}

/// `GET /api/v1/incidents`: the episodes open on the instance answering (each instance keeps
/// its own; the trail and the day's exceptions hold every instance's).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Incidents {
    pub instance: String,
    /// An episode ends a minute after its last failure.
    pub open: Vec<Incident>,
}
