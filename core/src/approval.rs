//! Approvals: acts that one person proposes and others approve, reject or withdraw.
//!
//! A correction of a drawn number (rule 10.1) and a device's return to service after a
//! spill or a broken ball (10.4(a), (c)) need two keys, a supervisor's and an inspector's, in
//! either order; each key is turned once. The states of each kind of approval are stored as
//! text, written once here.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::code::stored_code;

/// One of the two keys of a two-key act.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Key {
    Supervisor,
    Inspector,
}

impl Key {
    pub const ALL: [Key; 2] = [Key::Supervisor, Key::Inspector];

    pub fn as_str(self) -> &'static str {
        match self {
            Key::Supervisor => "supervisor",
            Key::Inspector => "inspector",
        }
    }

    /// The key that is not this one.
    pub fn other(self) -> Key {
        match self {
            Key::Supervisor => Key::Inspector,
            Key::Inspector => Key::Supervisor,
        }
    }

    /// The holder of the key, for messages: "a supervisor", "an inspector".
    pub fn holder(self) -> &'static str {
        match self {
            Key::Supervisor => "a supervisor",
            Key::Inspector => "an inspector",
        }
    }
}

stored_code!(Key, "approval key");

/// Which keys of a two-key act have been turned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Keys {
    pub supervisor: bool,
    pub inspector: bool,
}

/// A key turned a second time: the act waits for the other key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("{} has approved this; it needs {}", .key.holder(), .key.other().holder())]
pub struct AlreadyApproved {
    pub key: Key,
}

impl AlreadyApproved {
    /// The API's machine code.
    pub fn code(&self) -> &'static str {
        "already_approved"
    }
}

impl Keys {
    pub fn has(self, key: Key) -> bool {
        match key {
            Key::Supervisor => self.supervisor,
            Key::Inspector => self.inspector,
        }
    }

    /// The keys after `key` is turned; refused if it already was (each key once).
    pub fn turn(self, key: Key) -> Result<Keys, AlreadyApproved> {
        if self.has(key) {
            return Err(AlreadyApproved { key });
        }
        Ok(match key {
            Key::Supervisor => Keys {
                supervisor: true,
                ..self
            },
            Key::Inspector => Keys {
                inspector: true,
                ..self
            },
        })
    }

    /// Both keys are turned: the act is done.
    pub fn complete(self) -> bool {
        self.supervisor && self.inspector
    }
}

/// A correction of a drawn number (rule 10.1), as stored in `draw_corrections.state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CorrectionState {
    /// Asked, waiting for its approvals; it holds the game's settlement.
    Pending,
    /// Approved with both keys: the number in the record is the corrected one.
    Applied,
    /// Refused by a supervisor or an inspector, with a reason.
    Rejected,
    /// Asked against a record that has changed since (balls voided, the game invalidated):
    /// nobody's rejection.
    Lapsed,
}

impl CorrectionState {
    pub const ALL: [CorrectionState; 4] = [
        CorrectionState::Pending,
        CorrectionState::Applied,
        CorrectionState::Rejected,
        CorrectionState::Lapsed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            CorrectionState::Pending => "pending",
            CorrectionState::Applied => "applied",
            CorrectionState::Rejected => "rejected",
            CorrectionState::Lapsed => "lapsed",
        }
    }

    /// Whether the correction is still open to approval or rejection.
    pub fn is_open(self) -> bool {
        self == CorrectionState::Pending
    }
}

stored_code!(CorrectionState, "correction state");

/// An Unclaimed Prize Claim Form (rules 13, 14), as stored in `claims.state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimState {
    /// Filed, waiting for an inspector's decision.
    Submitted,
    /// Approved against a ticket: payable by cheque once.
    Approved,
    /// Rejected by an inspector, with a reason.
    Rejected,
    /// Paid by cheque.
    Paid,
}

impl ClaimState {
    pub const ALL: [ClaimState; 4] = [
        ClaimState::Submitted,
        ClaimState::Approved,
        ClaimState::Rejected,
        ClaimState::Paid,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ClaimState::Submitted => "submitted",
            ClaimState::Approved => "approved",
            ClaimState::Rejected => "rejected",
            ClaimState::Paid => "paid",
        }
    }

    /// An inspector may still decide it.
    pub fn undecided(self) -> bool {
        self == ClaimState::Submitted
    }
}

stored_code!(ClaimState, "claim state");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_key_turns_once_in_either_order() {
        for first in Key::ALL {
            let once = Keys::default().turn(first).unwrap();
            assert!(!once.complete());
            assert_eq!(once.turn(first), Err(AlreadyApproved { key: first }));
            let both = once.turn(first.other()).unwrap();
            assert!(both.complete());
        }
    }

    #[test]
    fn the_refusal_names_the_key_still_needed() {
        let e = AlreadyApproved {
            key: Key::Supervisor,
        };
        assert_eq!(
            e.to_string(),
            "a supervisor has approved this; it needs an inspector"
        );
        assert_eq!(e.code(), "already_approved");
    }

    #[test]
    fn stored_states_read_back() {
        for s in CorrectionState::ALL {
            assert_eq!(CorrectionState::parse(s.as_str()), Ok(s));
        }
        for s in ClaimState::ALL {
            assert_eq!(s.as_str().parse::<ClaimState>(), Ok(s));
        }
        assert!(ClaimState::parse("maybe").is_err());
        assert!(CorrectionState::try_from("pending".to_string()).is_ok());
    }
}
