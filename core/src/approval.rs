//! Approvals: acts that one person proposes and others approve, reject or withdraw.
//!
//! A correction of a drawn number (rule 10.1) and a device's return to service after a
//! spill or a broken ball (10.4(a), (c)) need two keys, a supervisor's and an inspector's, in
//! either order; each key is turned once. The states of each kind of approval are stored as
//! text, written once here.

use std::fmt;

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

/// What a person does to an act that waits for a decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Act {
    /// The deciding approval (for a two-key act, the key that completes it).
    Approve,
    Reject,
    /// Its proposer's side takes it back: a bonus prize, a set bet, a Special 3 approval.
    Withdraw,
    /// An approved claim paid by cheque (rule 13.5).
    Pay,
    /// Overtaken by a change of what it was asked against: nobody's decision.
    Lapse,
}

impl Act {
    /// The past participle, for messages: "cannot be approved".
    pub fn done(self) -> &'static str {
        match self {
            Act::Approve => "approved",
            Act::Reject => "rejected",
            Act::Withdraw => "withdrawn",
            Act::Pay => "paid",
            Act::Lapse => "lapsed",
        }
    }
}

/// The life cycle of one kind of approval: the state each act leads to, from each state.
/// One table per kind; [`decide`] is the only way through it.
pub trait Lifecycle: Copy + Eq + fmt::Display + 'static {
    /// The state after `act`, or `None` where the act is not open from `self`.
    fn after(self, act: Act) -> Option<Self>;
}

/// An act that is not open from the state the approval is in (decided already, withdrawn,
/// not yet approved).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("it is {from}: it cannot be {}", .act.done())]
pub struct NotOpen {
    pub from: String,
    pub act: Act,
}

/// The state after `act` on an approval in state `from`.
pub fn decide<S: Lifecycle>(from: S, act: Act) -> Result<S, NotOpen> {
    from.after(act).ok_or_else(|| NotOpen {
        from: from.to_string(),
        act,
    })
}

impl Lifecycle for CorrectionState {
    fn after(self, act: Act) -> Option<Self> {
        use CorrectionState::*;
        match (self, act) {
            // Rule 10.1: applied with the second key ([`Keys::complete`]).
            (Pending, Act::Approve) => Some(Applied),
            (Pending, Act::Reject) => Some(Rejected),
            (Pending, Act::Lapse) => Some(Lapsed),
            _ => None,
        }
    }
}

impl Lifecycle for ClaimState {
    fn after(self, act: Act) -> Option<Self> {
        use ClaimState::*;
        match (self, act) {
            // Rule 14: the inspector decides; rule 13.5: an approved claim is paid by cheque.
            (Submitted, Act::Approve) => Some(Approved),
            (Submitted, Act::Reject) => Some(Rejected),
            (Approved, Act::Pay) => Some(Paid),
            _ => None,
        }
    }
}

/// A bonus prize (rule 6.3(e)): offered once the regulator's approval is recorded, until
/// withdrawn. Stored as its approval's and withdrawal's times.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BonusState {
    Proposed,
    Approved,
    Withdrawn,
}

impl BonusState {
    pub const ALL: [BonusState; 3] = [
        BonusState::Proposed,
        BonusState::Approved,
        BonusState::Withdrawn,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            BonusState::Proposed => "proposed",
            BonusState::Approved => "approved",
            BonusState::Withdrawn => "withdrawn",
        }
    }

    /// The state its stored times say: a withdrawal ends it whether or not it was approved.
    pub fn from_times(approved: bool, withdrawn: bool) -> BonusState {
        match (approved, withdrawn) {
            (_, true) => BonusState::Withdrawn,
            (true, false) => BonusState::Approved,
            (false, false) => BonusState::Proposed,
        }
    }
}

stored_code!(BonusState, "bonus prize state");

impl Lifecycle for BonusState {
    fn after(self, act: Act) -> Option<Self> {
        use BonusState::*;
        match (self, act) {
            (Proposed, Act::Approve) => Some(Approved),
            (Proposed | Approved, Act::Withdraw) => Some(Withdrawn),
            _ => None,
        }
    }
}

/// Something in force until withdrawn, once: a set bet on sale (until retired), a Special 3
/// approval (rule 18.4). Stored as the time of its withdrawal, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    InForce,
    Withdrawn,
}

impl Standing {
    pub const ALL: [Standing; 2] = [Standing::InForce, Standing::Withdrawn];

    pub fn as_str(self) -> &'static str {
        match self {
            Standing::InForce => "in_force",
            Standing::Withdrawn => "withdrawn",
        }
    }

    pub fn from_withdrawal<T>(at: Option<T>) -> Standing {
        match at {
            Some(_) => Standing::Withdrawn,
            None => Standing::InForce,
        }
    }
}

stored_code!(Standing, "standing");

impl Lifecycle for Standing {
    fn after(self, act: Act) -> Option<Self> {
        match (self, act) {
            (Standing::InForce, Act::Withdraw) => Some(Standing::Withdrawn),
            _ => None,
        }
    }
}

/// A fault's hold on a ball-drawing device (rule 10.4): returned to service with both keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HoldState {
    Held,
    Returned,
}

impl HoldState {
    pub const ALL: [HoldState; 2] = [HoldState::Held, HoldState::Returned];

    pub fn as_str(self) -> &'static str {
        match self {
            HoldState::Held => "held",
            HoldState::Returned => "returned",
        }
    }
}

stored_code!(HoldState, "device hold state");

impl Lifecycle for HoldState {
    fn after(self, act: Act) -> Option<Self> {
        match (self, act) {
            // Rule 10.4(a), (c): with the second key ([`Keys::complete`]).
            (HoldState::Held, Act::Approve) => Some(HoldState::Returned),
            _ => None,
        }
    }
}

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

    #[test]
    fn each_kind_decides_once() {
        assert_eq!(
            decide(ClaimState::Submitted, Act::Approve),
            Ok(ClaimState::Approved)
        );
        assert_eq!(decide(ClaimState::Approved, Act::Pay), Ok(ClaimState::Paid));
        let e = decide(ClaimState::Rejected, Act::Approve).unwrap_err();
        assert_eq!(e.to_string(), "it is rejected: it cannot be approved");
        assert!(decide(ClaimState::Submitted, Act::Pay).is_err());
        assert_eq!(
            decide(BonusState::Approved, Act::Withdraw),
            Ok(BonusState::Withdrawn)
        );
        assert!(decide(BonusState::Withdrawn, Act::Approve).is_err());
        assert!(decide(BonusState::Withdrawn, Act::Withdraw).is_err());
        assert_eq!(
            decide(Standing::InForce, Act::Withdraw),
            Ok(Standing::Withdrawn)
        );
        assert!(decide(Standing::Withdrawn, Act::Withdraw).is_err());
        assert_eq!(
            decide(CorrectionState::Pending, Act::Lapse),
            Ok(CorrectionState::Lapsed)
        );
        assert!(decide(CorrectionState::Applied, Act::Reject).is_err());
        assert_eq!(
            decide(HoldState::Held, Act::Approve),
            Ok(HoldState::Returned)
        );
        assert!(decide(HoldState::Returned, Act::Approve).is_err());
    }

    #[test]
    fn no_state_is_left_by_an_act_into_itself() {
        fn check<S: Lifecycle + fmt::Debug>(all: &[S]) {
            let acts = [
                Act::Approve,
                Act::Reject,
                Act::Withdraw,
                Act::Pay,
                Act::Lapse,
            ];
            for &s in all {
                for a in acts {
                    if let Some(next) = s.after(a) {
                        assert_ne!(next, s, "{s:?} {a:?}");
                    }
                }
            }
        }
        check(&ClaimState::ALL);
        check(&CorrectionState::ALL);
        check(&BonusState::ALL);
        check(&Standing::ALL);
        check(&HoldState::ALL);
        assert_eq!(BonusState::from_times(true, true), BonusState::Withdrawn);
        assert_eq!(Standing::from_withdrawal(Some(1)), Standing::Withdrawn);
    }
}
