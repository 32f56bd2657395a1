//! Every cell of the prize tables 18.1, 18.2 and 18.3, read from the approved rule text itself
//! (`shared/rules/act-keno-rules-1992.txt`), against the built-in rule set.

use std::collections::BTreeMap;
use std::path::PathBuf;

use keno_core::{Pay, RuleSet, ScheduleId};

/// A table of the rule text: spot count -> catch -> cell text ("12", "*2,000", "").
type TextTable = BTreeMap<u8, BTreeMap<u8, String>>;

fn rule_text() -> String {
    let dir = std::env::var_os("KENO_SHARED_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            // As cargo gives it when running the test (a test binary may have been built in
            // another checkout sharing the target dir).
            std::env::var_os("CARGO_MANIFEST_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
                .join("../../shared")
        });
    let path = dir.join("rules/act-keno-rules-1992.txt");
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("the rule text must be beside the repository at {path:?}: {e}"))
}

/// The tables of one section of rule 18, between its heading and the next heading.
fn section_tables(text: &str, heading: &str, next: &str) -> TextTable {
    let start = text
        .find(heading)
        .unwrap_or_else(|| panic!("no {heading:?}"));
    let section = &text[start..];
    let section = &section[..section.find(next).unwrap_or(section.len())];
    let mut table = TextTable::new();
    let mut columns: Vec<u8> = Vec::new();
    for line in section.lines() {
        let cells: Vec<&str> = line.split('\t').collect();
        if cells[0] == "Numbers Selected" {
            columns = cells[1..]
                .iter()
                .map(|c| c.trim().parse().unwrap())
                .collect();
            for &c in &columns {
                table.entry(c).or_default();
            }
        } else if let Some(catch) = cells[0].strip_prefix("Match ") {
            let catch: u8 = catch.trim().parse().unwrap();
            for (i, cell) in cells[1..].iter().enumerate() {
                table
                    .get_mut(&columns[i])
                    .unwrap()
                    .insert(catch, cell.trim().to_string());
            }
        }
    }
    assert!(!table.is_empty(), "no tables read under {heading:?}");
    table
}

/// "1,500" -> 150_000 cents; "" -> 0; "*2,000" -> (200_000, true).
fn cents(cell: &str) -> (u64, bool) {
    let starred = cell.starts_with('*');
    let digits: String = cell.chars().filter(|c| c.is_ascii_digit()).collect();
    let dollars: u64 = if digits.is_empty() {
        0
    } else {
        digits.parse().unwrap()
    };
    (dollars * 100, starred)
}

fn expect_column(rules: &RuleSet, schedule: ScheduleId, spots: u8, column: &BTreeMap<u8, String>) {
    let table = rules.prize_table();
    assert_eq!(
        rules.plays_as(schedule, spots),
        Some(schedule),
        "{schedule} {spots} spots"
    );
    for catch in 0..=spots {
        let cell = column.get(&catch).map_or("", String::as_str);
        let (cents, starred) = cents(cell);
        let pay = table.pay(schedule, spots, catch).unwrap();
        if starred {
            // "*" denotes the minimum guaranteed jackpot prize: the all-catch wins the pool.
            assert_eq!(pay, Pay::JackpotPool, "{schedule} {spots}/{catch}");
            assert_eq!(catch, spots);
            assert_eq!(rules.jackpot_type(spots).unwrap().guaranteed_cents, cents);
        } else {
            assert_eq!(
                pay,
                Pay::Cents(cents),
                "{schedule} {spots} spots, catch {catch}: text {cell:?}"
            );
        }
    }
}

#[test]
fn rule_18_1_every_cell_of_the_standard_and_jackpot_columns() {
    let rules = RuleSet::act_1992();
    let text = rule_text();
    let t = section_tables(&text, "18.1 Standard Schedule", "18.2 Special Schedule");
    assert_eq!(
        t.keys().copied().collect::<Vec<_>>(),
        (1..=15).collect::<Vec<u8>>()
    );
    for (&spots, column) in &t {
        if rules.jackpot_type(spots).is_some() {
            // Interpretation: the 6- and 8-spot columns are the jackpot schedule at a $2 base.
            expect_column(&rules, ScheduleId::Jackpot, spots, column);
        } else {
            expect_column(&rules, ScheduleId::Standard, spots, column);
        }
    }
    assert_eq!(
        rules.prize_table().base_wager_cents(ScheduleId::Standard),
        100
    );
    assert_eq!(
        rules.prize_table().base_wager_cents(ScheduleId::Jackpot),
        200
    );
    let jackpot_spots: Vec<u8> = rules.jackpot_types().iter().map(|j| j.spots).collect();
    assert_eq!(jackpot_spots, vec![6, 8]);
}

#[test]
fn rule_18_2_every_cell_of_special_1_and_the_rest_as_18_1() {
    let rules = RuleSet::act_1992();
    let text = rule_text();
    let t = section_tables(&text, "18.2 Special Schedule", "18.3 Special Schedule");
    assert_eq!(t.keys().copied().collect::<Vec<_>>(), vec![6, 8]);
    for (&spots, column) in &t {
        expect_column(&rules, ScheduleId::Special1, spots, column);
        // A standard entry of 6 or 8 spots plays Special 1 (interpretation of 18.1/18.2).
        assert_eq!(
            rules.plays_as(ScheduleId::Standard, spots),
            Some(ScheduleId::Special1)
        );
    }
    assert_eq!(
        rules.prize_table().base_wager_cents(ScheduleId::Special1),
        100
    );
    // "All other prizes ... shall be identical to those listed under rule 18.1."
    for spots in (1..=15u8).filter(|s| !t.contains_key(s)) {
        assert_eq!(
            rules.plays_as(ScheduleId::Special1, spots),
            Some(ScheduleId::Standard)
        );
    }
}

#[test]
fn rule_18_3_every_cell_of_special_2() {
    let rules = RuleSet::act_1992();
    let text = rule_text();
    let t = section_tables(
        &text,
        "18.3 Special Schedule",
        "Special Schedule of Prizes: Three",
    );
    assert_eq!(t.keys().copied().collect::<Vec<_>>(), vec![3, 4, 5, 6]);
    for (&spots, column) in &t {
        expect_column(&rules, ScheduleId::Special2, spots, column);
    }
    assert_eq!(rules.offered_spots(ScheduleId::Special2), vec![3, 4, 5, 6]);
    assert_eq!(
        rules.prize_table().base_wager_cents(ScheduleId::Special2),
        100
    );
}

#[test]
fn rule_18_4_special_3_is_not_offered_by_default() {
    let rules = RuleSet::act_1992();
    assert!(!rules.defines(ScheduleId::Special3));
    assert!(
        !rules.is_schedule_available(ScheduleId::Special3, keno_core::Special3Approval::InForce)
    );
    assert!(rules.offered_spots(ScheduleId::Special3).is_empty());
}
