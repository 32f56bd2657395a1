//! The rule set: every number and table the rules leave to data, validated once at load.
//!
//! A [`RuleSet`] can only be made by validating a [`RuleSetFile`], so code that holds one never
//! re-checks it. The built-in default is the ACT 1992 rules as interpreted
//! (`act1992.toml` beside this file).

mod file;
mod validate;

use thiserror::Error;

pub use file::{
    CapsFile, CatchKey, ColumnFile, DiscountFile, GamesFile, JackpotFile, QuickPickFile,
    RuleSetFile, ScheduleFile, SchedulesFile, WagersFile, WayMinimumFile,
};

use crate::board::MAX_SPOTS;
use crate::schedule::{PrizeTable, ScheduleId};

/// The ACT 1992 rule set as interpreted, in the file format (shown by `rules show`).
pub const ACT_1992_TOML: &str = include_str!("act1992.toml");

/// Why a rule-set file was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RuleSetError {
    #[error("the rule set cannot be read as {format}: {message}")]
    Syntax {
        format: &'static str,
        message: String,
    },
    #[error("the rule set is not valid:\n{}", list(.problems))]
    Invalid { problems: Vec<String> },
}

fn list(problems: &[String]) -> String {
    problems
        .iter()
        .map(|p| format!("  - {p}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Rule 6.2 and 6.2(d), in cents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WagerRules {
    pub min_cents: u64,
    pub step_cents: u64,
    pub max_ticket_total_cents: u64,
    /// `(from_ways, min_cents)`, ascending by `from_ways`, the first from 1 way.
    pub way_minimums: Vec<(u64, u64)>,
    pub way_fine_step_cents: u64,
    pub way_fine_step_up_to_cents: u64,
    pub way_coarse_step_cents: u64,
}

impl WagerRules {
    /// Least amount per way for a way ticket of `ways` ways (rule 6.2(d)).
    pub fn way_minimum_cents(&self, ways: u64) -> u64 {
        self.way_minimums
            .iter()
            .rev()
            .find(|(from, _)| ways >= *from)
            .map_or(self.way_minimums[0].1, |(_, min)| *min)
    }
}

/// How many games a ticket may play and what multi-game tickets are charged (6.2(a),(b)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRules {
    pub max_per_ticket: u32,
    pub keno_to_go_from: u32,
    /// `(from_games, free_games)`, ascending by `from_games`.
    pub discounts: Vec<(u32, u32)>,
}

impl GameRules {
    /// Games charged for a ticket of `games` games (rule 6.2(a),(b)).
    pub fn charged_games(&self, games: u32) -> u32 {
        let free = self
            .discounts
            .iter()
            .rev()
            .find(|(from, _)| games >= *from)
            .map_or(0, |(_, free)| *free);
        games - free
    }

    /// Rule 1(f): a ticket of this many games is Keno To Go.
    pub fn is_keno_to_go(&self, games: u32) -> bool {
        games >= self.keno_to_go_from
    }
}

/// Rule 12 and the major prize of 1(h), in cents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    /// Rule 12.1: most one way pays in a game, jackpot wins excepted.
    pub per_way_cents: u64,
    /// Rule 12.3: most the major prizes of one game add up to, jackpot wins excepted.
    pub game_major_prizes_cents: u64,
    /// Rule 1(h): a win of this or more on one way is a major prize; also the floor of 12.4.
    pub major_prize_cents: u64,
}

/// A jackpot ticket type and its pool (rule 7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JackpotType {
    pub spots: u8,
    pub guaranteed_cents: u64,
    pub contribution_basis_points: u64,
    pub min_wager_cents: u64,
    pub step_cents: u64,
}

impl JackpotType {
    /// What one way's amount adds to the pool: 20% by default, down to the cent (rule 7.3).
    pub fn contribution_cents(&self, amount_per_way_cents: u64) -> u64 {
        (u128::from(amount_per_way_cents) * u128::from(self.contribution_basis_points) / 10_000)
            as u64
    }
}

/// Whether the regulator's approval of Special 3 is in force (rule 18.4). The core keeps no
/// records and reads no clock: the caller, who holds the approval record, says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Special3Approval {
    #[default]
    NotInForce,
    InForce,
}

/// A validated rule set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleSet {
    source: RuleSetFile,
    table: PrizeTable,
    plays_as: [[Option<ScheduleId>; MAX_SPOTS as usize + 1]; 5],
    wagers: WagerRules,
    games: GameRules,
    caps: Caps,
    mystery_spots: (u8, u8),
    jackpots: Vec<JackpotType>,
}

impl RuleSet {
    /// The built-in rule set: the ACT 1992 rules as interpreted.
    pub fn act_1992() -> RuleSet {
        // The embedded file is checked by the tests; failing here is a build defect.
        RuleSet::from_toml_str(ACT_1992_TOML).expect("the built-in rule set is valid")
    }

    pub fn from_toml_str(text: &str) -> Result<RuleSet, RuleSetError> {
        let file: RuleSetFile = toml::from_str(text).map_err(|e| RuleSetError::Syntax {
            format: "TOML",
            message: e.to_string(),
        })?;
        RuleSet::from_file(file)
    }

    pub fn from_json_str(text: &str) -> Result<RuleSet, RuleSetError> {
        let file: RuleSetFile = serde_json::from_str(text).map_err(|e| RuleSetError::Syntax {
            format: "JSON",
            message: e.to_string(),
        })?;
        RuleSet::from_file(file)
    }

    /// Validates a parsed file; every problem found is reported, not just the first.
    pub fn from_file(file: RuleSetFile) -> Result<RuleSet, RuleSetError> {
        validate::validate(file).map_err(|problems| RuleSetError::Invalid { problems })
    }

    /// The rule set as data, e.g. to write it back out or store it with an audit record.
    pub fn to_file(&self) -> &RuleSetFile {
        &self.source
    }

    pub fn to_toml_string(&self) -> String {
        toml::to_string_pretty(&self.source).expect("a rule set always serializes")
    }

    pub fn to_json_string(&self) -> String {
        serde_json::to_string_pretty(&self.source).expect("a rule set always serializes")
    }

    pub fn name(&self) -> &str {
        &self.source.name
    }

    pub fn prize_table(&self) -> &PrizeTable {
        &self.table
    }

    /// The schedule a way of `spots` entered in `schedule` is settled under, following the
    /// `same_as` links (a standard 6-spot way plays Special 1); `None` when not offered.
    pub fn plays_as(&self, schedule: ScheduleId, spots: u8) -> Option<ScheduleId> {
        self.plays_as
            .get(schedule.index())?
            .get(spots as usize)
            .copied()
            .flatten()
    }

    /// Spot counts a schedule can be entered with.
    pub fn offered_spots(&self, schedule: ScheduleId) -> Vec<u8> {
        (1..=MAX_SPOTS)
            .filter(|&n| self.plays_as(schedule, n).is_some())
            .collect()
    }

    /// Whether a schedule may be sold: Special 3 only when the rule set defines it and the
    /// regulator's approval is in force (rule 18.4). The rule-set file's own `approved` flag
    /// does not decide it: the approval record does.
    pub fn is_schedule_available(&self, schedule: ScheduleId, special3: Special3Approval) -> bool {
        match schedule {
            ScheduleId::Special3 => {
                special3 == Special3Approval::InForce && self.defines(ScheduleId::Special3)
            }
            _ => true,
        }
    }

    /// Whether the rule set has a table for `schedule` (Special 3 only when the operator wrote
    /// one).
    pub fn defines(&self, schedule: ScheduleId) -> bool {
        self.source.schedules.get(schedule).is_some()
    }

    /// Whether a way entered in `schedule` can be settled under Special 3 (Special 3 itself, or
    /// a spot count linked to it): a sale in it needs the regulator's approval (rule 18.4).
    pub fn may_play_special3(&self, schedule: ScheduleId) -> bool {
        schedule == ScheduleId::Special3
            || (1..=MAX_SPOTS).any(|s| self.plays_as(schedule, s) == Some(ScheduleId::Special3))
    }

    pub fn wagers(&self) -> &WagerRules {
        &self.wagers
    }

    pub fn games(&self) -> &GameRules {
        &self.games
    }

    pub fn caps(&self) -> Caps {
        self.caps
    }

    /// Smallest and largest spot count of a mystery quick pick (rule 6.3(c)).
    pub fn mystery_spots(&self) -> (u8, u8) {
        self.mystery_spots
    }

    pub fn jackpot_types(&self) -> &[JackpotType] {
        &self.jackpots
    }

    pub fn jackpot_type(&self, spots: u8) -> Option<&JackpotType> {
        self.jackpots.iter().find(|j| j.spots == spots)
    }
}
