//! `keno-server rules ...`: the rule set's command line (issue 3).

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use keno_core::rules::ACT_1992_TOML;
use keno_core::theory::Fraction;
use keno_core::{Dollars, RuleSet, RuleSetError, ScheduleId};

use crate::cli::{RulesCommand, RulesFile};

pub fn run(command: RulesCommand) -> anyhow::Result<ExitCode> {
    match command {
        RulesCommand::Return { rules, catches } => {
            print!("{}", load(&rules)?.return_report(catches));
            Ok(ExitCode::SUCCESS)
        }
        RulesCommand::Check { file } => check(&file),
        RulesCommand::Show { json } => {
            if json {
                println!("{}", RuleSet::act_1992().to_json_string());
            } else {
                // The embedded file itself, so the comments citing the rules come along.
                print!("{ACT_1992_TOML}");
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The rule set named on the command line, or the built-in one.
pub fn load(file: &RulesFile) -> anyhow::Result<RuleSet> {
    match &file.path {
        None => Ok(RuleSet::act_1992()),
        Some(path) => Ok(read(path)?.with_context(|| format!("{}", path.display()))?),
    }
}

fn read(path: &Path) -> anyhow::Result<Result<RuleSet, RuleSetError>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the rule set {}", path.display()))?;
    let is_json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    Ok(if is_json {
        RuleSet::from_json_str(&text)
    } else {
        RuleSet::from_toml_str(&text)
    })
}

fn check(path: &Path) -> anyhow::Result<ExitCode> {
    match read(path)? {
        Ok(rules) => {
            println!("{}: valid rule set \"{}\"", path.display(), rules.name());
            for schedule in ScheduleId::ALL {
                let spots = rules.offered_spots(schedule);
                if spots.is_empty() {
                    continue;
                }
                let note = if schedule == ScheduleId::Special3 {
                    " (sold only while the regulator's approval recorded by an inspector is in force, rule 18.4)"
                } else {
                    ""
                };
                let list: Vec<String> = spots.iter().map(u8::to_string).collect();
                println!("  {schedule}: {} spots{note}", list.join(", "));
            }
            for j in rules.jackpot_types() {
                let share = Fraction {
                    numerator: j.contribution_basis_points.into(),
                    denominator: 10_000,
                };
                println!(
                    "  Jackpot {} spots: guaranteed {}, {} of each wager to the pool",
                    j.spots,
                    Dollars(j.guaranteed_cents),
                    share.percent(2)
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("{}: {e}", path.display());
            Ok(ExitCode::from(1))
        }
    }
}
