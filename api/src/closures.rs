//! Early closure of Keno with notice (rule 16.2) on the wire: the supervisor's request, the
//! closure as recorded, and the notice the displays and counters show.

use serde::{Deserialize, Serialize};

/// A closure of today's Keno Day before its normal end, as a supervisor schedules it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ScheduleClosure {
    /// When Keno closes (RFC 3339): at least the notice period from now (a setting, 15 minutes
    /// by default) and before today's normal end of gaming.
    pub closes_at: String,
    /// The Government Casino Inspector told of the closure beforehand (rule 16.2): a name or a
    /// reference, 1 to 200 characters.
    pub inspector_notified: String,
    /// Why Keno closes early, 1 to 500 characters: recorded for the inspectors.
    pub reason: String,
}

/// Why a scheduled closure is withdrawn.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct WithdrawClosure {
    /// 1 to 500 characters.
    pub reason: String,
}

/// Where a closure stands now.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ClosureState {
    /// Announced and not yet come: it can still be withdrawn.
    Scheduled,
    /// Its time has come: no game opens for the rest of its Keno Day.
    InEffect,
    /// Withdrawn before it took effect.
    Withdrawn,
}

impl From<keno_core::ClosureState> for ClosureState {
    fn from(s: keno_core::ClosureState) -> ClosureState {
        match s {
            keno_core::ClosureState::Scheduled => ClosureState::Scheduled,
            keno_core::ClosureState::InEffect => ClosureState::InEffect,
            keno_core::ClosureState::Withdrawn => ClosureState::Withdrawn,
        }
    }
}

/// A closure as recorded.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Closure {
    pub id: i64,
    /// The Keno Day it closes (YYYY-MM-DD, rule 1(d)).
    pub keno_day: String,
    /// RFC 3339.
    pub closes_at: String,
    /// The time of the closure on the venue's clock (hh:mm), as the notice shows it.
    pub closes_at_local: String,
    pub inspector_notified: String,
    pub reason: String,
    /// The supervisor (principal id) who scheduled it.
    pub scheduled_by: String,
    pub scheduled_at: String,
    pub state: ClosureState,
    pub withdrawn_at: Option<String>,
    pub withdrawn_by: Option<String>,
    pub withdrawal_reason: Option<String>,
}

/// The notice to players of a closure (rule 16.2): what every display and counter shows.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ClosureNotice {
    pub id: i64,
    /// The Keno Day it closes (YYYY-MM-DD).
    pub keno_day: String,
    /// RFC 3339.
    pub closes_at: String,
    /// hh:mm on the venue's clock.
    pub closes_at_local: String,
    /// `scheduled` (Keno still open until then) or `in_effect` (Keno closed for the day).
    pub state: ClosureState,
    /// The words to show: `KENO CLOSES AT hh:mm` while scheduled, `KENO CLOSED AT hh:mm` once
    /// in effect.
    pub message: String,
}

/// `GET /api/v1/keno/closure`: the closure in force today, or `null` when Keno runs its normal
/// hours.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ClosureInForce {
    pub closure: Option<ClosureNotice>,
}

/// The notice's words for a closure at `hh_mm` on the venue's clock, in the state it is in.
pub fn notice_text(hh_mm: &str, state: ClosureState) -> String {
    match state {
        ClosureState::InEffect => format!("KENO CLOSED AT {hh_mm}"),
        _ => format!("KENO CLOSES AT {hh_mm}"),
    }
}
