//! Loading rule sets from files: the formats, and every refusal said in words.

use keno_core::rules::{RuleSetFile, ACT_1992_TOML};
use keno_core::{RuleSet, RuleSetError, ScheduleId, Special3Approval};

fn problems(text: &str) -> Vec<String> {
    match RuleSet::from_toml_str(text) {
        Err(RuleSetError::Invalid { problems }) => problems,
        other => panic!("expected an invalid rule set, got {other:?}"),
    }
}

fn edit(from: &str, to: &str) -> String {
    assert!(
        ACT_1992_TOML.contains(from),
        "{from:?} not in the built-in file"
    );
    ACT_1992_TOML.replacen(from, to, 1)
}

#[test]
fn the_built_in_file_is_the_default_rule_set() {
    let rules = RuleSet::act_1992();
    assert_eq!(rules.name(), "ACT Keno Rules 1992 (as interpreted)");
    assert_eq!(rules.caps().per_way_cents, 5_000_000);
    assert_eq!(rules.caps().game_major_prizes_cents, 5_000_000);
    assert_eq!(rules.caps().major_prize_cents, 20_000);
    assert_eq!(rules.games().max_per_ticket, 1000);
    assert_eq!(rules.wagers().max_ticket_total_cents, 999_900);
}

#[test]
fn round_trips_through_toml_and_json() {
    let rules = RuleSet::act_1992();
    let toml = rules.to_toml_string();
    assert_eq!(RuleSet::from_toml_str(&toml).unwrap(), rules);
    let json = rules.to_json_string();
    assert_eq!(RuleSet::from_json_str(&json).unwrap(), rules);
    // JSON written by hand with the same shape loads too.
    let file: RuleSetFile = serde_json::from_str(&json).unwrap();
    assert_eq!(&file, rules.to_file());
}

#[test]
fn a_missing_spot_count_is_refused() {
    let p = problems(&edit(
        "  { spots = 7, pays = { 3 = 100, 4 = 300, 5 = 1500, 6 = 20000, 7 = 500000 } },\n",
        "",
    ));
    assert_eq!(p, vec!["schedules.standard: no prizes for 7 spots; the standard schedule covers 1 to 15 spots (rule 18.1)"]);
}

#[test]
fn a_negative_prize_is_refused() {
    let p = problems(&edit(
        "{ spots = 2, pays = { 2 = 1200 } }",
        "{ spots = 2, pays = { 2 = -1200 } }",
    ));
    assert_eq!(
        p,
        vec!["schedules.standard, 2 spots, catch 2: the prize must not be negative, not -1200"]
    );
}

#[test]
fn a_schedule_for_16_spots_is_refused() {
    let p = problems(&edit(
        "  { spots = 15, pays",
        "  { spots = 16, pays = { 16 = 100 } },\n  { spots = 15, pays",
    ));
    assert_eq!(p, vec!["schedules.standard: 16 spots is not a spot count; a selection has 1 to 15 spots (rule 1(l))"]);
}

#[test]
fn a_schedule_that_pays_more_for_fewer_catches_is_allowed() {
    // 18.1 itself pays 11 spots $4 for catching none and $1 for one.
    let rules = RuleSet::from_toml_str(&edit(
        "{ spots = 4, pays = { 2 = 100, 3 = 400, 4 = 11200 } }",
        "{ spots = 4, pays = { 0 = 5000, 2 = 100, 3 = 400, 4 = 11200 } }",
    ))
    .unwrap();
    assert_eq!(
        rules.prize_table().pay(ScheduleId::Standard, 4, 0),
        Some(keno_core::Pay::Cents(5000))
    );
}

#[test]
fn every_problem_is_reported_at_once() {
    let text = edit("min_cents = 100\nstep_cents", "min_cents = 0\nstep_cents")
        .replacen(
            "{ spots = 1, pays = { 1 = 300 } }",
            "{ spots = 1, pays = { 2 = 300 } }",
            1,
        )
        .replacen("major_prize_cents = 20000", "major_prize_cents = -5", 1)
        .replacen("guaranteed_cents = 200000", "guaranteed_cents = 0", 1);
    let p = problems(&text);
    assert_eq!(
        p,
        vec![
            "wagers.min_cents must be more than zero, not 0",
            "caps.major_prize_cents must be more than zero, not -5",
            "jackpots[0].guaranteed_cents must be more than zero, not 0",
            "schedules.standard, 1 spots: a catch of 2 is impossible with 1 spots",
        ]
    );
}

#[test]
fn jackpot_schedule_must_match_the_jackpot_types() {
    let p = problems(&edit("  { spots = 6, pays = { 3 = 200, 4 = 800, 5 = 10000 } },\n  { spots = 8, pays = { 4 = 400", "  { spots = 6, pays = { 3 = 200, 4 = 800, 5 = 10000, 6 = 200000 } },\n  { spots = 8, pays = { 4 = 400"));
    assert_eq!(p, vec!["schedules.jackpot, 6 spots: leave out catch 6; the all-catch of a jackpot type wins the pool (rule 7)"]);
    let p = problems(&edit("[[jackpots]]\nspots = 8\nguaranteed_cents = 2000000\ncontribution_basis_points = 2000\nmin_wager_cents = 200\nstep_cents = 100\n", ""));
    assert_eq!(p, vec!["schedules.jackpot, 8 spots: the jackpot schedule has a column but [[jackpots]] has no 8-spot type (rule 7.2)"]);
}

#[test]
fn same_as_loops_and_dangling_links_are_refused() {
    let p = problems(&edit(
        "base_wager_cents = 100\nother_spots_as = \"standard\"",
        "base_wager_cents = 100\nother_spots_as = \"special3\"",
    ));
    assert!(
        p.iter()
            .any(|m| m.contains("plays as special3 which is not defined")),
        "{p:?}"
    );
    let p = problems(&edit(
        "{ spots = 6, same_as = \"special1\" }",
        "{ spots = 6, same_as = \"jackpot\" }",
    ));
    assert!(
        p.iter()
            .any(|m| m.contains("no spot count can play as the jackpot schedule")),
        "{p:?}"
    );
}

#[test]
fn syntax_errors_and_unknown_fields_are_reported_as_such() {
    match RuleSet::from_toml_str("name = ") {
        Err(RuleSetError::Syntax { format: "TOML", .. }) => {}
        other => panic!("{other:?}"),
    }
    match RuleSet::from_toml_str(&edit("[caps]\n", "[caps]\nper_way_dollars = 5\n")) {
        Err(RuleSetError::Syntax { message, .. }) => {
            assert!(message.contains("per_way_dollars"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    match RuleSet::from_json_str("{}") {
        Err(RuleSetError::Syntax { format: "JSON", .. }) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn rule_18_4_special_3_can_be_sold_only_once_approved() {
    let special3 = "\n[schedules.special3]\nbase_wager_cents = 100\napproved = false\ncolumns = [ { spots = 4, pays = { 3 = 500, 4 = 15000 } } ]\n";
    let unapproved = RuleSet::from_toml_str(&format!("{ACT_1992_TOML}{special3}")).unwrap();
    let approved = RuleSet::from_toml_str(&format!(
        "{ACT_1992_TOML}{}",
        special3.replace(
            "approved = false",
            "approved = true\napproval_reference = \"CSA 2026/17\""
        )
    ))
    .unwrap();
    // The approval record in force decides, not the file's flag: a table of either kind
    // sells only while the regulator's approval is in force.
    for rules in [&unapproved, &approved] {
        assert!(rules.defines(ScheduleId::Special3));
        assert!(!rules.is_schedule_available(ScheduleId::Special3, Special3Approval::NotInForce));
        assert!(rules.is_schedule_available(ScheduleId::Special3, Special3Approval::InForce));
    }
    assert_eq!(approved.offered_spots(ScheduleId::Special3), vec![4]);
    // Approval belongs to Special 3 only.
    let p = problems(&edit(
        "[schedules.special2]\nbase_wager_cents = 100\n",
        "[schedules.special2]\nbase_wager_cents = 100\napproved = true\n",
    ));
    assert_eq!(p, vec!["schedules.special2.approved: only Special 3 needs the regulator's approval (rule 18.4)"]);
}

#[test]
fn a_loop_of_same_as_links_is_refused() {
    // Special 1's 7 spots play as Standard, whose 7 spots play as Special 1.
    let text = edit(
        "  { spots = 7, pays = { 3 = 100, 4 = 300, 5 = 1500, 6 = 20000, 7 = 500000 } },",
        "  { spots = 7, same_as = \"special1\" },",
    );
    let p = problems(&text);
    assert!(p.iter().any(|m| m.contains("go round in a loop")), "{p:?}");
}

#[test]
fn rule_18_4_nothing_may_play_as_an_unapproved_special_3() {
    let special3 = "\n[schedules.special3]\nbase_wager_cents = 100\napproved = false\ncolumns = [ { spots = 3, pays = { 3 = 9900 } } ]\n";
    let text = format!(
        "{}{special3}",
        edit(
            "{ spots = 3, pays = { 2 = 100, 3 = 4200 } }",
            "{ spots = 3, same_as = \"special3\" }"
        )
    );
    let p = problems(&text);
    assert!(
        p.iter()
            .any(|m| m.contains("cannot play as Special 3, which is not approved")),
        "{p:?}"
    );
}

#[test]
fn rule_18_4_an_approval_needs_its_reference() {
    let special3 = "\n[schedules.special3]\nbase_wager_cents = 100\napproved = true\ncolumns = [ { spots = 3, pays = { 3 = 9900 } } ]\n";
    let p = problems(&format!("{ACT_1992_TOML}{special3}"));
    assert_eq!(p, vec!["schedules.special3: approved = true needs the approval_reference of the regulator's approval, for the auditors (rule 18.4)"]);
}

#[test]
fn rule_6_2_d_way_minimums_may_not_rise_with_more_ways() {
    let p = problems(&edit(
        "{ from_ways = 20, min_cents = 20 }",
        "{ from_ways = 20, min_cents = 60 }",
    ));
    assert_eq!(p, vec!["wagers.way_minimums[2]: a ticket of more ways cannot need more per way (60 after 50) (rule 6.2(d))"]);
}
