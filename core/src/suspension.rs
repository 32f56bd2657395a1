//! Suspension (issue 33): a state of the whole system, entered when its own evidence breaks
//! (N.J.A.C. 13:69E-1.28U (k): detect corruption, then suspend normal operation until it is
//! addressed; AGCO 21.1.9: a failed draw mechanism makes the game unavailable).
//!
//! While suspended, nothing that moves money or the game happens: sales, cancellations,
//! payments, cash-outs, vouchers, claims paid, draws and every other change are refused. What
//! stays open is what it takes to see the fault and end it: reads, the auditors' tools, signing
//! on and off, a quote, and the resumption itself, which needs a supervisor's key and an
//! inspector's (two people, `approval::Keys`), with a reason. The list of what stays open is the
//! one written here: any act not on it is refused, so a new path is closed until named.

use serde::{Deserialize, Serialize};

use crate::approval::{Act, Lifecycle};
use crate::code::stored_code;

/// Why the system was suspended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    /// The database is behind its checkpoint file: put back to an earlier copy. Resuming accepts
    /// the restore, and what it lost, on the record.
    Restore,
    /// The audit trail changed under the running server.
    Trail,
    /// The software or an embedded component differs from the approved manifest.
    Software,
    /// The rule-set file in force differs from the approved manifest.
    RuleSet,
    /// The random number generator failed.
    Rng,
    /// A game closed for sale was left undrawn past its time.
    UndrawnGame,
}

impl Cause {
    pub const ALL: [Cause; 6] = [
        Cause::Restore,
        Cause::Trail,
        Cause::Software,
        Cause::RuleSet,
        Cause::Rng,
        Cause::UndrawnGame,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Cause::Restore => "restore",
            Cause::Trail => "trail",
            Cause::Software => "software",
            Cause::RuleSet => "rule_set",
            Cause::Rng => "rng",
            Cause::UndrawnGame => "undrawn_game",
        }
    }

    /// What people read: "the database was restored from an earlier copy".
    pub fn words(self) -> &'static str {
        match self {
            Cause::Restore => "the database was put back to an earlier copy",
            Cause::Trail => "the audit trail changed under the running server",
            Cause::Software => "the software differs from the approved release",
            Cause::RuleSet => "the rule set differs from the approved one",
            Cause::Rng => "the random number generator failed",
            Cause::UndrawnGame => "a closed game was left undrawn",
        }
    }
}

stored_code!(Cause, "suspension cause");

/// A suspension's life, as stored in `suspensions.state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SuspensionState {
    /// Nothing that moves money or the game happens until both keys are turned.
    InForce,
    /// A supervisor and an inspector resumed normal operation.
    Resumed,
}

impl SuspensionState {
    pub const ALL: [SuspensionState; 2] = [SuspensionState::InForce, SuspensionState::Resumed];

    pub fn as_str(self) -> &'static str {
        match self {
            SuspensionState::InForce => "in_force",
            SuspensionState::Resumed => "resumed",
        }
    }
}

stored_code!(SuspensionState, "suspension state");

impl Lifecycle for SuspensionState {
    fn after(self, act: Act) -> Option<Self> {
        match (self, act) {
            // Resumed with the second key (`Keys::complete`).
            (SuspensionState::InForce, Act::Approve) => Some(SuspensionState::Resumed),
            _ => None,
        }
    }
}

/// What a request or a task does, as suspension sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Doing {
    /// Reads anything: the board, a ticket's check, a report.
    Read,
    /// Signs on or off.
    Session,
    /// Prices a ticket without selling it.
    Quote,
    /// The auditors' tools: verify, exports.
    Audit,
    /// Turns a key to resume.
    Resume,
    /// Sends again a sale made before (the same request id): answered with the ticket it
    /// sold, never sold again. A sale not made before is a `Change`, refused where it is
    /// known to be new.
    Retry,
    /// Draws a game's numbers (the RNG's or a ball device's).
    Draw,
    /// Anything else that changes what is stored: a sale, a cancellation, a payment, a
    /// cash-out, a voucher, a claim, a person, a shift.
    Change,
}

/// Whether `doing` may go on while the system is suspended.
pub fn open_while_suspended(doing: Doing) -> bool {
    match doing {
        Doing::Read
        | Doing::Session
        | Doing::Quote
        | Doing::Audit
        | Doing::Resume
        | Doing::Retry => true,
        Doing::Draw | Doing::Change => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_seeing_asking_again_and_ending_a_suspension_stay_open() {
        let open: Vec<Doing> = [
            Doing::Read,
            Doing::Session,
            Doing::Quote,
            Doing::Audit,
            Doing::Resume,
            Doing::Retry,
            Doing::Draw,
            Doing::Change,
        ]
        .into_iter()
        .filter(|d| open_while_suspended(*d))
        .collect();
        assert_eq!(
            open,
            [
                Doing::Read,
                Doing::Session,
                Doing::Quote,
                Doing::Audit,
                Doing::Resume,
                Doing::Retry
            ]
        );
        assert_eq!(
            SuspensionState::InForce.after(Act::Approve),
            Some(SuspensionState::Resumed)
        );
        assert_eq!(SuspensionState::Resumed.after(Act::Approve), None);
        assert_eq!(SuspensionState::InForce.after(Act::Reject), None);
        for cause in Cause::ALL {
            assert_eq!(Cause::parse(cause.as_str()), Ok(cause));
        }
    }
}
