//! Rule 13.1: prizes and vouchers are payable at a writer terminal for twelve months after the
//! Keno Day they relate to; after that only an Unclaimed Prize Claim Form pays them. Rule 13.2:
//! a prize unclaimed twelve months after it was won may be moved to a return-to-player use.
//!
//! One twelve-month rule for all three: a ticket's prize (its last game's Keno Day), a voucher
//! (its Keno Day) and the movement of unclaimed prizes. Everything counts in Keno Days, never
//! in clock time, so on any Keno Day a prize is either payable at a terminal or movable,
//! never both and never neither ([`at_a_terminal`], [`unclaimed_before`]).

use thiserror::Error;

use crate::keno_day::KenoDay;

/// Rule 13.1: twelve months.
pub const TERMINAL_MONTHS: u32 = 12;

/// Refused at a terminal: past the twelve months of rule 13.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error(
    "it was payable at a writer terminal until Keno Day {deadline} (12 months after its Keno \
     Day, rule 13.1): the player files an Unclaimed Prize Claim Form"
)]
pub struct ClaimRequired {
    /// The last Keno Day a terminal could pay it.
    pub deadline: KenoDay,
}

impl ClaimRequired {
    /// The API's machine code.
    pub fn code(&self) -> &'static str {
        "claim_required"
    }

    /// The rule this refusal enforces.
    pub fn rule(&self) -> &'static str {
        "13.1"
    }
}

/// Rule 13.1: the last Keno Day a terminal pays what relates to `keno_day`: twelve months on,
/// the same day of the month (29 February gives 28 February).
pub fn terminal_deadline(keno_day: KenoDay) -> KenoDay {
    keno_day.plus_months(TERMINAL_MONTHS)
}

/// Rule 13.1: whether a terminal may pay on Keno Day `today` what it may pay until `deadline`
/// (the deadline itself included: it counts to the end of that Keno Day).
pub fn at_a_terminal(deadline: KenoDay, today: KenoDay) -> Result<(), ClaimRequired> {
    if today > deadline {
        return Err(ClaimRequired { deadline });
    }
    Ok(())
}

/// Rule 13.2: the latest Keno Day whose prizes are, on Keno Day `today`, unclaimed for twelve
/// months: a prize of Keno Day `d` may be moved exactly when `d <= unclaimed_before(today)`,
/// which is exactly when [`at_a_terminal`]`(`[`terminal_deadline`]`(d), today)` refuses.
///
/// `None` when no Keno Day is old enough (only in the first year of [`KenoDay`]'s range).
pub fn unclaimed_before(today: KenoDay) -> Option<KenoDay> {
    // The deadline must fall before today: on `yesterday` or earlier.
    let yesterday = today.previous_day()?;
    // 12 months back lands on the latest day whose deadline is `yesterday` or earlier, except
    // where clamping maps several days onto one deadline (29 February + 12 months = 28
    // February): walk on while the next day's deadline is still old enough. The deadline grows
    // with the day, so the walk ends, after one step at most for 12 months.
    let mut latest = yesterday.minus_months(TERMINAL_MONTHS);
    if terminal_deadline(latest) > yesterday {
        return None;
    }
    while let Some(next) = latest.next_day() {
        if terminal_deadline(next) > yesterday {
            break;
        }
        latest = next;
    }
    Some(latest)
}
