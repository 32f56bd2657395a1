//! The auditors' tools over HTTP (`/api/v1/audit/...`): the same answers `keno-server audit`
//! gives at the database host, so an auditor needs no shell there.

use serde::{Deserialize, Serialize};

/// What `GET /api/v1/audit/verify` found: the audit trail's chain, every record against its
/// entry, every settled game settled again (as `keno-server audit verify`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Verification {
    /// No difference: the trail is intact and every record matches it.
    pub verified: bool,
    /// Each difference between the record and its trail, as the command prints it.
    pub differences: Vec<String>,
    /// What was checked ("the audit chain of 120 entries", "40 tickets against ..."), in order.
    pub checked: Vec<String>,
    /// When the snapshot verified was read (RFC 3339, UTC).
    pub checked_at: String,
}

/// What an exception is about.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ExceptionKind {
    /// A void draw or another fault of the draw (rule 10).
    DrawFault,
    /// A drawn number corrected (rule 10.1).
    Correction,
    /// A game invalidated (rule 17.3).
    Invalidation,
    /// A game closed for sale by a supervisor before its time (rule 9.2).
    GameClosedEarly,
    /// A ticket cancelled (rule 8).
    Cancellation,
    /// A prize paid on a later Keno Day than its last game's (rule 13.1).
    LatePayment,
    /// An Unclaimed Prize Claim Form approved or rejected (rule 13.4).
    ClaimDecision,
    /// A prize paid by cheque on an approved claim (rule 13.5).
    ClaimPayment,
    /// A ticket's wagers voided by a supervisor (rule 17.2).
    TicketVoided,
    /// A rule set first in force.
    RuleSet,
    /// A bearer token's principal added.
    Principal,
    /// A ball device returned to service after a fault (rule 10.4).
    DeviceReturned,
    /// A set bet added to or retired from the catalogue (rule 6.3(h)).
    SetBet,
    /// An approval of Special 3 recorded or withdrawn (rule 18.4).
    Special3Approval,
    /// An early closure of Keno scheduled or withdrawn (rule 16.2).
    KenoClosure,
    /// A writer's shift closed over or short.
    ShiftOverShort,
    /// A shift over or short signed off by a supervisor.
    ShiftSignOff,
    /// A failed sign-on (and a staff ID locked).
    SignOn,
    /// A person added, disabled, enabled or their secret reset.
    Staff,
    /// A terminal or a display registered or its credential rotated, or a display disabled.
    Terminal,
    /// A supervisor's approval given at a writer's counter.
    Approval,
    /// A test of draw monitoring began to fail at 99.9% over a group's last games settled.
    DrawMonitor,
    /// A step of a server's wall clock, or a game left open under a wrong clock and repaired
    /// (closed, or invalidated with refunds) at a restart.
    Clock,
    /// The system's own life (issue 33): a server started (and any that had not stopped
    /// cleanly before) or stopped, the system suspended or a key turned to resume it, the
    /// software found not as approved.
    System,
}

impl ExceptionKind {
    pub const ALL: &'static [ExceptionKind] = &[
        ExceptionKind::DrawFault,
        ExceptionKind::Correction,
        ExceptionKind::Invalidation,
        ExceptionKind::GameClosedEarly,
        ExceptionKind::Cancellation,
        ExceptionKind::LatePayment,
        ExceptionKind::ClaimDecision,
        ExceptionKind::ClaimPayment,
        ExceptionKind::TicketVoided,
        ExceptionKind::RuleSet,
        ExceptionKind::Principal,
        ExceptionKind::DeviceReturned,
        ExceptionKind::SetBet,
        ExceptionKind::Special3Approval,
        ExceptionKind::KenoClosure,
        ExceptionKind::ShiftOverShort,
        ExceptionKind::ShiftSignOff,
        ExceptionKind::SignOn,
        ExceptionKind::Staff,
        ExceptionKind::Terminal,
        ExceptionKind::Approval,
        ExceptionKind::DrawMonitor,
        ExceptionKind::Clock,
        ExceptionKind::System,
    ];

    /// The kind as it is on the wire; the day's exceptions are ordered by when, then by this.
    pub fn as_str(self) -> &'static str {
        match self {
            ExceptionKind::DrawFault => "draw_fault",
            ExceptionKind::Correction => "correction",
            ExceptionKind::Invalidation => "invalidation",
            ExceptionKind::GameClosedEarly => "game_closed_early",
            ExceptionKind::Cancellation => "cancellation",
            ExceptionKind::LatePayment => "late_payment",
            ExceptionKind::ClaimDecision => "claim_decision",
            ExceptionKind::ClaimPayment => "claim_payment",
            ExceptionKind::TicketVoided => "ticket_voided",
            ExceptionKind::RuleSet => "rule_set",
            ExceptionKind::Principal => "principal",
            ExceptionKind::DeviceReturned => "device_returned",
            ExceptionKind::SetBet => "set_bet",
            ExceptionKind::Special3Approval => "special3_approval",
            ExceptionKind::KenoClosure => "keno_closure",
            ExceptionKind::ShiftOverShort => "shift_over_short",
            ExceptionKind::ShiftSignOff => "shift_sign_off",
            ExceptionKind::SignOn => "sign_on",
            ExceptionKind::Staff => "staff",
            ExceptionKind::Terminal => "terminal",
            ExceptionKind::Approval => "approval",
            ExceptionKind::DrawMonitor => "draw_monitor",
            ExceptionKind::Clock => "clock",
            ExceptionKind::System => "system",
        }
    }
}

/// One thing a supervisor reviews: when, what, who and why.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AuditException {
    /// When it happened (RFC 3339, UTC).
    pub at: String,
    pub kind: ExceptionKind,
    pub game: Option<i64>,
    pub serial: Option<String>,
    pub what: String,
    pub who: String,
    pub why: String,
}

/// A Keno Day's exceptions (`GET /api/v1/audit/exceptions`, `keno-server audit exceptions
/// --json`), in the order they happened.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DayExceptions {
    pub keno_day: String,
    /// The hours the day's acts fall in (RFC 3339, UTC): from its start to the next day's.
    pub from: String,
    pub to: String,
    pub exceptions: Vec<AuditException>,
    /// What the server does not record yet, so this list cannot show it.
    pub not_recorded: Vec<String>,
}

/// One kind of record an export holds, a file each (`keno-server audit export`,
/// `GET /api/v1/audit/exports/{kind}`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ExportKind {
    /// Each game's state, draw, settled totals and invalidation.
    Games,
    /// Each ticket sold in the range, with its status, refunds, winnings and payment.
    Tickets,
    /// Each settled game's totals and every jackpot pool's movement in it.
    Settlements,
    /// Each ticket paid in the range's hours, whenever it was sold.
    Payments,
    /// What each ticket won in each game of the range.
    Results,
    /// The bonus fund's movements in the range's hours.
    BonusFund,
    /// Each writer's shift opened in the range's hours, with its drawer.
    Shifts,
}

impl ExportKind {
    /// Every kind, in the order the command writes them.
    pub const ALL: &'static [ExportKind] = &[
        ExportKind::Games,
        ExportKind::Tickets,
        ExportKind::Settlements,
        ExportKind::Payments,
        ExportKind::Results,
        ExportKind::BonusFund,
        ExportKind::Shifts,
    ];

    /// The kind's name, as in the path and the file's name.
    pub fn as_str(self) -> &'static str {
        match self {
            ExportKind::Games => "games",
            ExportKind::Tickets => "tickets",
            ExportKind::Settlements => "settlements",
            ExportKind::Payments => "payments",
            ExportKind::Results => "results",
            ExportKind::BonusFund => "bonus_fund",
            ExportKind::Shifts => "shifts",
        }
    }

    pub fn parse(name: &str) -> Option<ExportKind> {
        ExportKind::ALL.iter().copied().find(|k| k.as_str() == name)
    }
}

/// How an export is written: CSV (properly quoted) or JSON (an array of objects).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    #[default]
    Csv,
    Json,
}

impl ExportFormat {
    /// The file name's ending.
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Csv => "csv",
            ExportFormat::Json => "json",
        }
    }

    /// The media type of the file.
    pub fn content_type(self) -> &'static str {
        match self {
            ExportFormat::Csv => "text/csv; charset=utf-8",
            ExportFormat::Json => "application/json",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_and_match_serde() {
        for kind in ExportKind::ALL {
            assert_eq!(ExportKind::parse(kind.as_str()), Some(*kind));
            assert_eq!(
                serde_json::to_value(kind).unwrap(),
                serde_json::json!(kind.as_str())
            );
        }
        assert_eq!(ExportKind::parse("bonus fund"), None);
        for kind in ExceptionKind::ALL {
            assert_eq!(
                serde_json::to_value(kind).unwrap(),
                serde_json::json!(kind.as_str())
            );
        }
    }
}
