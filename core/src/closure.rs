//! Early closure of Keno with notice (rule 16.2): "the Casino Operator may close Keno prior to
//! the closing of gaming, provided that prior notice of closure of Keno is given to the
//! players, subject to prior notification to a Government Casino Inspector."
//!
//! Pure decisions, time as an input (microseconds since the epoch, as the server stores it):
//! whether a proposed closure may be scheduled ([`check_closure`]), what state a scheduled one
//! is in ([`ClosureState::at`]), and whether and until when a game may open while one is in
//! force ([`game_closes_at`]). The game clock's own decision, [`crate::clock_step`], takes the
//! closure as an input too.
//!
//! Decisions (`shared/rules/INTERPRETATION.md`, "Early closure (16.2)"):
//! - The notice to players is the message shown from the moment the closure is scheduled, so
//!   a closure is refused unless it is at least the notice period (a setting) ahead.
//! - The inspector's prior notification is recorded (a name or reference) before the closure
//!   can be scheduled: without it the closure is refused.
//! - A closure closes today's Keno Day early: it must fall before the normal end of gaming
//!   (16.1) of the Keno Day now under way.
//! - No game opens at or after the closure, and a game open when it comes closes at it: sales
//!   stop at the time announced, "KENO CLOSES AT hh:mm", not a game earlier. The unplayed games
//!   of multi-game tickets are the next game numbers, played when Keno next opens.

use thiserror::Error;

/// The longest inspector's name or reference kept (characters).
pub const INSPECTOR_MAX_CHARS: usize = 200;

/// The Keno Day under way as the clock sees it (rules 1(d), 16.1): when its gaming started and
/// when it normally ends, in microseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KenoDayHours {
    pub starts_at: i64,
    pub ends_at: i64,
}

/// Why a closure cannot be scheduled.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ClosureError {
    /// Rule 16.2: "subject to prior notification to a Government Casino Inspector".
    #[error("rule 16.2: record the Government Casino Inspector told of the closure (a name or reference, 1 to {INSPECTOR_MAX_CHARS} characters) before scheduling it")]
    InspectorNotNotified,
    /// Rule 16.1: outside the hours of gaming there is no Keno to close.
    #[error("rule 16.2: Keno is not open now: there is no Keno Day under way to close early")]
    KenoClosed,
    /// Rule 16.2: "prior notice of closure of Keno is given to the players".
    #[error("rule 16.2: the players must have the notice period's warning: the closure can be no earlier than {earliest} (microseconds)")]
    TooLittleNotice { earliest: i64 },
    /// Rule 16.2: "prior to the closing of gaming" of today's Keno Day (16.1).
    #[error("rule 16.2: a closure must fall before today's normal end of gaming at {ends_at} (microseconds)")]
    NotBeforeEndOfGaming { ends_at: i64 },
}

impl ClosureError {
    /// The rule the refusal enforces.
    pub fn rule(&self) -> &'static str {
        match self {
            ClosureError::KenoClosed | ClosureError::NotBeforeEndOfGaming { .. } => "16.1, 16.2",
            _ => "16.2",
        }
    }
}

/// Whether a closure at `closes_at` may be scheduled at `now`, with `notice_micros` of notice
/// to players, the inspector's notification as recorded, and `today` the Keno Day under way
/// (`None` outside the hours of gaming).
pub fn check_closure(
    closes_at: i64,
    inspector_notified: &str,
    now: i64,
    notice_micros: i64,
    today: Option<KenoDayHours>,
) -> Result<(), ClosureError> {
    let inspector = inspector_notified.trim();
    // Rule 16.2: the inspector is told first; the record of it is the condition.
    if inspector.is_empty() || inspector.chars().count() > INSPECTOR_MAX_CHARS {
        return Err(ClosureError::InspectorNotNotified);
    }
    let Some(today) = today else {
        return Err(ClosureError::KenoClosed);
    };
    // Rule 16.2: the notice runs from now, when the displays start to show it.
    let earliest = now.saturating_add(notice_micros.max(0));
    if closes_at < earliest {
        return Err(ClosureError::TooLittleNotice { earliest });
    }
    // Rule 16.2: "prior to the closing of gaming": at or after the normal end there is nothing
    // left to close early, and a later day is not today's Keno Day.
    if closes_at >= today.ends_at {
        return Err(ClosureError::NotBeforeEndOfGaming {
            ends_at: today.ends_at,
        });
    }
    Ok(())
}

/// Where a scheduled closure stands at a moment. Derived from the record (withdrawn or not,
/// and its time), never stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClosureState {
    /// Announced, not yet come: games still open until it, and it can be withdrawn.
    Scheduled,
    /// Its time has come: no game opens for the rest of its Keno Day.
    InEffect,
    /// Withdrawn before it took effect: Keno runs its normal hours.
    Withdrawn,
}

impl ClosureState {
    /// The state at `now` of a closure at `closes_at`, withdrawn or not.
    pub fn at(withdrawn: bool, closes_at: i64, now: i64) -> ClosureState {
        if withdrawn {
            ClosureState::Withdrawn
        } else if now >= closes_at {
            ClosureState::InEffect
        } else {
            ClosureState::Scheduled
        }
    }

    /// Rule 16.2: a closure can be withdrawn only before it takes effect; once Keno has
    /// closed, it stays closed until the next Keno Day.
    pub fn withdrawable(self) -> bool {
        self == ClosureState::Scheduled
    }

    /// Players are still being told of it (the displays and counters show it).
    pub fn in_force(self) -> bool {
        self != ClosureState::Withdrawn
    }
}

/// Whether a game may open at `now` given the closure in force today, if any.
///
/// Rule 16.2: no game opens at or after the closure.
pub fn may_open(closure: Option<i64>, now: i64) -> bool {
    closure.is_none_or(|at| now < at)
}

/// When a game opened at `now` closes, `interval_micros` being the normal time a game is open
/// for sale; `None` when no game may open (rule 16.2).
///
/// Rule 16.2: a game that would close after the closure closes at it, so sales stop at the
/// time the players were told, and every game that opens is drawn before Keno closes.
pub fn game_closes_at(now: i64, interval_micros: i64, closure: Option<i64>) -> Option<i64> {
    if !may_open(closure, now) {
        return None;
    }
    let normal = now.saturating_add(interval_micros);
    Some(closure.map_or(normal, |at| normal.min(at)))
}

/// When the open game closes, given its own `closes_at` and the closure in force.
///
/// Rule 16.2: a game still open when Keno closes early closes with it (a closure scheduled
/// with the notice period shorter than a game).
pub fn effective_close(closes_at: i64, closure: Option<i64>) -> i64 {
    closure.map_or(closes_at, |at| closes_at.min(at))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: i64 = 1_000_000;
    const MINUTE: i64 = 60 * SECOND;
    /// 2026-11-25 10:00 UTC, as a Keno Day's start in these tests.
    const START: i64 = 1_795_600_800 * SECOND;
    const TODAY: KenoDayHours = KenoDayHours {
        starts_at: START,
        ends_at: START + 16 * 60 * MINUTE,
    };
    const NOTICE: i64 = 15 * MINUTE;

    fn check(closes_at: i64, inspector: &str, now: i64) -> Result<(), ClosureError> {
        check_closure(closes_at, inspector, now, NOTICE, Some(TODAY))
    }

    #[test]
    fn rule_16_2_the_inspector_is_told_before_the_closure_is_scheduled() {
        let now = START + 60 * MINUTE;
        let at = now + NOTICE;
        assert_eq!(check(at, "", now), Err(ClosureError::InspectorNotNotified));
        assert_eq!(
            check(at, "   ", now),
            Err(ClosureError::InspectorNotNotified)
        );
        let long = "x".repeat(INSPECTOR_MAX_CHARS + 1);
        assert_eq!(
            check(at, &long, now),
            Err(ClosureError::InspectorNotNotified)
        );
        assert_eq!(check(at, &"x".repeat(INSPECTOR_MAX_CHARS), now), Ok(()));
        assert_eq!(check(at, "Inspector Jones, ref CI-2026-118", now), Ok(()));
    }

    #[test]
    fn rule_16_2_players_have_at_least_the_notice_period() {
        let now = START + 60 * MINUTE;
        let earliest = now + NOTICE;
        assert_eq!(
            check(earliest - 1, "Jones", now),
            Err(ClosureError::TooLittleNotice { earliest })
        );
        assert_eq!(check(earliest, "Jones", now), Ok(()));
        // A time already past is less than the notice too.
        assert_eq!(
            check(now - MINUTE, "Jones", now),
            Err(ClosureError::TooLittleNotice { earliest })
        );
        // The notice period is a setting: with none, any time from now will do.
        assert_eq!(check_closure(now, "Jones", now, 0, Some(TODAY)), Ok(()));
    }

    #[test]
    fn rule_16_2_only_before_the_normal_end_of_todays_gaming() {
        let now = START + 60 * MINUTE;
        let ends_at = TODAY.ends_at;
        assert_eq!(check(ends_at - 1, "Jones", now), Ok(()));
        assert_eq!(
            check(ends_at, "Jones", now),
            Err(ClosureError::NotBeforeEndOfGaming { ends_at })
        );
        // Tomorrow's Keno Day is not today's.
        assert_eq!(
            check(ends_at + 10 * 60 * MINUTE, "Jones", now),
            Err(ClosureError::NotBeforeEndOfGaming { ends_at })
        );
        // Too close to the end for the notice: the notice is the first refusal.
        let late = ends_at - 5 * MINUTE;
        assert_eq!(
            check(ends_at - MINUTE, "Jones", late),
            Err(ClosureError::TooLittleNotice {
                earliest: late + NOTICE
            })
        );
        assert_eq!(
            check_closure(now + NOTICE, "Jones", now, NOTICE, None),
            Err(ClosureError::KenoClosed)
        );
    }

    #[test]
    fn rule_16_2_no_game_opens_at_or_after_the_closure() {
        let closure = Some(START + 120 * MINUTE);
        let interval = 3 * MINUTE;
        // Well before: a game of the normal length.
        let now = START + 60 * MINUTE;
        assert_eq!(game_closes_at(now, interval, closure), Some(now + interval));
        // The last game before the closure closes at it, not after.
        let now = START + 119 * MINUTE;
        assert_eq!(game_closes_at(now, interval, closure), closure);
        // At the closure and after it no game opens.
        assert_eq!(
            game_closes_at(START + 120 * MINUTE, interval, closure),
            None
        );
        assert_eq!(
            game_closes_at(START + 121 * MINUTE, interval, closure),
            None
        );
        // With no closure, games run as usual.
        assert_eq!(game_closes_at(now, interval, None), Some(now + interval));
        assert!(may_open(None, now));
        assert!(!may_open(closure, START + 120 * MINUTE));
    }

    #[test]
    fn an_open_game_closes_with_keno() {
        let at = START + 120 * MINUTE;
        assert_eq!(effective_close(at + MINUTE, Some(at)), at);
        assert_eq!(effective_close(at - MINUTE, Some(at)), at - MINUTE);
        assert_eq!(effective_close(at + MINUTE, None), at + MINUTE);
    }

    #[test]
    fn rule_16_2_withdrawn_only_before_it_takes_effect() {
        let at = START + 120 * MINUTE;
        let before = ClosureState::at(false, at, at - 1);
        assert_eq!(before, ClosureState::Scheduled);
        assert!(before.withdrawable() && before.in_force());
        let after = ClosureState::at(false, at, at);
        assert_eq!(after, ClosureState::InEffect);
        assert!(!after.withdrawable() && after.in_force());
        let withdrawn = ClosureState::at(true, at, at - 1);
        assert_eq!(withdrawn, ClosureState::Withdrawn);
        assert!(!withdrawn.withdrawable() && !withdrawn.in_force());
    }
}
