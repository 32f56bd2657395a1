//! Suspension (issue 33): whether the system stands suspended, why, and the keys that resume it.

use serde::{Deserialize, Serialize};

/// A suspension of the whole system: in force until a supervisor and an inspector resume it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Suspension {
    pub id: i64,
    /// `restore`, `trail`, `software`, `rule_set`, `rng` or `undrawn_game`.
    pub cause: String,
    /// The cause in words, for people.
    pub cause_words: String,
    /// What was found, in a sentence.
    pub detail: String,
    pub began_at: String,
    /// The server instance that found it.
    pub instance: String,
    /// `in_force` or `resumed`.
    pub state: String,
    /// For a restore: the checkpoints of the file the database no longer holds, first and last.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lost_checkpoints: Option<[i64; 2]>,
    pub supervisor: Option<String>,
    pub supervisor_at: Option<String>,
    pub supervisor_note: Option<String>,
    pub inspector: Option<String>,
    pub inspector_at: Option<String>,
    pub inspector_note: Option<String>,
    pub resumed_at: Option<String>,
}

/// `GET /api/v1/suspension`: whether sales, payments and draws are refused now, and the
/// suspensions in force (the latest resumed ones too, for the record).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Standing {
    pub suspended: bool,
    /// What players and staff read: why nothing is sold or paid, or empty when not suspended.
    pub message: String,
    pub in_force: Vec<Suspension>,
    /// The last ten resumed.
    pub resumed: Vec<Suspension>,
}

/// A supervisor's or an inspector's key turned to resume a suspension.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ResumeRequest {
    /// Why it is safe to resume (for a restore: that what it lost is accepted, and why):
    /// recorded with the key.
    pub note: String,
}
