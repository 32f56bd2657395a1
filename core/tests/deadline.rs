//! The twelve months of rule 13.1 and the unclaimed prizes of rule 13.2: one rule, counted in
//! Keno Days.

use keno_core::{at_a_terminal, terminal_deadline, unclaimed_before, ClaimRequired, KenoDay};
use proptest::prelude::*;

fn day(text: &str) -> KenoDay {
    text.parse().unwrap()
}

/// Whether a prize of Keno Day `won_on` may be moved on `today` (rule 13.2).
fn movable(won_on: KenoDay, today: KenoDay) -> bool {
    unclaimed_before(today).is_some_and(|latest| won_on <= latest)
}

fn payable_at_a_terminal(won_on: KenoDay, today: KenoDay) -> bool {
    at_a_terminal(terminal_deadline(won_on), today).is_ok()
}

#[test]
fn rule_13_1_twelve_months_after_the_keno_day() {
    assert_eq!(terminal_deadline(day("2026-11-23")), day("2027-11-23"));
    assert_eq!(terminal_deadline(day("2028-02-29")), day("2029-02-28"));
    assert_eq!(terminal_deadline(day("2027-12-31")), day("2028-12-31"));
}

#[test]
fn rule_13_1_the_deadline_counts_to_the_end_of_its_keno_day() {
    let deadline = day("2027-11-23");
    assert_eq!(at_a_terminal(deadline, day("2026-11-23")), Ok(()));
    assert_eq!(at_a_terminal(deadline, day("2027-11-23")), Ok(()));
    let refused = at_a_terminal(deadline, day("2027-11-24")).unwrap_err();
    assert_eq!(refused, ClaimRequired { deadline });
    assert_eq!(refused.code(), "claim_required");
    assert_eq!(refused.rule(), "13.1");
    assert_eq!(
        refused.to_string(),
        "it was payable at a writer terminal until Keno Day 2027-11-23 (12 months after its \
         Keno Day, rule 13.1): the player files an Unclaimed Prize Claim Form"
    );
}

#[test]
fn rule_13_2_unclaimed_before_is_the_latest_day_past_its_deadline() {
    assert_eq!(unclaimed_before(day("2027-11-24")), Some(day("2026-11-23")));
    assert_eq!(unclaimed_before(day("2027-11-23")), Some(day("2026-11-22")));
    assert_eq!(unclaimed_before(day("2028-01-01")), Some(day("2026-12-31")));
    // 29 February: its deadline is 28 February, so on 1 March both it and the 28th are old.
    assert_eq!(unclaimed_before(day("2029-03-01")), Some(day("2028-02-29")));
    assert_eq!(unclaimed_before(day("2029-02-28")), Some(day("2028-02-27")));
    // A leap today: 29 February 2028 is the day after the deadline of 28 February 2027.
    assert_eq!(unclaimed_before(day("2028-02-29")), Some(day("2027-02-28")));
    assert_eq!(unclaimed_before(day("2028-03-01")), Some(day("2027-02-28")));
    // Nothing is a year old in the first year of the calendar.
    assert_eq!(unclaimed_before(KenoDay::MIN), None);
    assert_eq!(unclaimed_before(day("0001-01-01")), None);
    assert_eq!(unclaimed_before(day("0001-01-02")), Some(day("0000-01-01")));
}

#[test]
fn a_prize_is_payable_or_movable_never_both_nor_neither_across_leap_years() {
    // Every prize day of 2027-2029 against every day of 2027-2031.
    let mut won_on = day("2027-01-01");
    let mut won_days = Vec::new();
    while won_on < day("2030-01-01") {
        won_days.push(won_on);
        won_on = won_on.next_day().unwrap();
    }
    let mut today = day("2027-01-01");
    while today < day("2032-01-01") {
        let latest = unclaimed_before(today);
        for &w in &won_days {
            let movable = latest.is_some_and(|l| w <= l);
            assert_ne!(
                payable_at_a_terminal(w, today),
                movable,
                "won on {w}, today {today}"
            );
        }
        today = today.next_day().unwrap();
    }
}

fn any_day() -> impl Strategy<Value = KenoDay> {
    (1u16..=9990, 1u8..=12, 1u8..=31).prop_map(|(y, m, d)| {
        KenoDay::new(y, m, d.min(keno_core::keno_day::days_in_month(y, m))).unwrap()
    })
}

proptest! {
    #[test]
    fn payable_or_movable_never_both_nor_neither(won_on in any_day(), today in any_day()) {
        prop_assert_ne!(payable_at_a_terminal(won_on, today), movable(won_on, today));
    }

    #[test]
    fn payable_or_movable_around_the_deadline(won_on in any_day(), offset in 0u32..3) {
        // Days next to the deadline, where random pairs rarely fall.
        let mut today = terminal_deadline(won_on).previous_day().unwrap();
        for _ in 0..offset {
            today = today.next_day().unwrap();
        }
        prop_assert_ne!(payable_at_a_terminal(won_on, today), movable(won_on, today));
    }

    #[test]
    fn unclaimed_before_is_the_latest_such_day(today in any_day()) {
        let latest = unclaimed_before(today).unwrap();
        prop_assert!(at_a_terminal(terminal_deadline(latest), today).is_err());
        let next = latest.next_day().unwrap();
        prop_assert!(at_a_terminal(terminal_deadline(next), today).is_ok());
    }
}
