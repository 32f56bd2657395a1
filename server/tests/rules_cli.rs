//! `keno-server rules ...` run as a real process.

use std::path::Path;
use std::process::{Command, Output};

use keno_core::RuleSet;

fn keno_server(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_keno-server"))
        .args(args)
        .env_remove("KENO_RULES")
        .output()
        .expect("keno-server runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// The columns after the schedule name and spot count in the return table's row for them.
fn row(report: &str, schedule: &str, spots: u8) -> Vec<String> {
    let name: Vec<&str> = schedule.split_whitespace().collect();
    report
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|t| {
            t.len() > name.len()
                && t[..name.len()] == name[..]
                && t[name.len()] == spots.to_string()
        })
        .map(|t| t[name.len() + 1..].iter().map(|s| s.to_string()).collect())
        .unwrap_or_else(|| panic!("no row {schedule} {spots} in\n{report}"))
}

#[test]
fn rules_return_prints_every_column_with_four_decimals() {
    let out = keno_server(&["rules", "return"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = stdout(&out);
    // 1 spot pays $3 at 1 in 4: exactly 75%.
    assert_eq!(row(&report, "Standard", 1).last().unwrap(), "75.0000%");
    // Standard 6 spots plays Special 1 (rule 18.2 as interpreted) and says so.
    assert_eq!(
        row(&report, "Standard", 6)[..2],
        ["Special".to_string(), "1".to_string()]
    );
    // Every printed return agrees with the library's exact figure.
    let rules = RuleSet::act_1992();
    for r in rules.return_table() {
        let cols = row(&report, &r.schedule.to_string(), r.spots);
        assert_eq!(cols.last().unwrap(), &r.total().percent(4));
    }
    // The jackpot rows show the 20% contribution to the pool.
    let j = row(&report, "Jackpot", 8);
    assert!(j.contains(&"20.0000%".to_string()), "{j:?}");
}

#[test]
fn rules_return_with_catches_prints_each_catch_probability() {
    let out = keno_server(&["rules", "return", "--catches"]);
    assert!(out.status.success());
    let report = stdout(&out);
    // 1 spot, catch 1: 1 in 4.00.
    assert!(
        report.contains("1 in                   4.00  pays $3.00"),
        "{report}"
    );
    assert!(report.contains("(jackpot pool, at least)"));
}

#[test]
fn rules_show_prints_a_file_that_loads_as_the_built_in_rules() {
    let out = keno_server(&["rules", "show"]);
    assert!(out.status.success());
    assert_eq!(
        RuleSet::from_toml_str(&stdout(&out)).unwrap(),
        RuleSet::act_1992()
    );
    let out = keno_server(&["rules", "show", "--json"]);
    assert_eq!(
        RuleSet::from_json_str(&stdout(&out)).unwrap(),
        RuleSet::act_1992()
    );
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn rules_check_accepts_a_valid_file_and_refuses_an_invalid_one_with_reasons() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "good.toml", keno_core::rules::ACT_1992_TOML);
    let out = keno_server(&["rules", "check", &good]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("valid rule set \"ACT Keno Rules 1992 (as interpreted)\""));
    assert!(stdout(&out).contains("Special 2: 3, 4, 5, 6 spots"));

    let bad_text = keno_core::rules::ACT_1992_TOML
        .replace(
            "{ spots = 2, pays = { 2 = 1200 } }",
            "{ spots = 2, pays = { 2 = -1200 } }",
        )
        .replace("{ spots = 15, pays", "{ spots = 16, pays");
    let bad = write(dir.path(), "bad.toml", &bad_text);
    let out = keno_server(&["rules", "check", &bad]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("the prize must not be negative, not -1200"),
        "{err}"
    );
    assert!(err.contains("16 spots is not a spot count"), "{err}");
    assert!(err.contains("no prizes for 15 spots"), "{err}");

    let json = write(
        dir.path(),
        "rules.json",
        &RuleSet::act_1992().to_json_string(),
    );
    assert!(keno_server(&["rules", "check", &json]).status.success());

    let out = keno_server(&["rules", "check", "/nonexistent/rules.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cannot read the rule set"));
}

#[test]
fn rules_return_reads_a_given_rule_file() {
    let dir = tempfile::tempdir().unwrap();
    // Raise 1 spot to pay $3.20: 80% return.
    let text = keno_core::rules::ACT_1992_TOML.replace(
        "{ spots = 1, pays = { 1 = 300 } }",
        "{ spots = 1, pays = { 1 = 320 } }",
    );
    let path = write(dir.path(), "custom.toml", &text);
    let out = keno_server(&["rules", "return", "--rules", &path]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        row(&stdout(&out), "Standard", 1).last().unwrap(),
        "80.0000%"
    );
}
