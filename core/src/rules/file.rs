//! The rule-set file as written by an operator (TOML or JSON).
//!
//! Numbers are signed here on purpose: a negative prize or spot count must reach validation so
//! that it can be refused in words, not as a parser's type error.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::schedule::ScheduleId;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleSetFile {
    /// Shown on reports and the receipt archive, e.g. "ACT Keno Rules 1992 (as interpreted)".
    pub name: String,
    pub wagers: WagersFile,
    pub games: GamesFile,
    pub caps: CapsFile,
    pub quick_pick: QuickPickFile,
    #[serde(default)]
    pub jackpots: Vec<JackpotFile>,
    pub schedules: SchedulesFile,
}

/// Rule 6.2.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WagersFile {
    /// Least wager for a game of a non-way ticket.
    pub min_cents: i64,
    /// A non-way ticket's wager is a multiple of this ("multiples of $1.00").
    pub step_cents: i64,
    /// Most a single receipt ticket may cost.
    pub max_ticket_total_cents: i64,
    /// Rule 6.2(d): least amount per way by number of ways.
    pub way_minimums: Vec<WayMinimumFile>,
    /// Rule 6.2(d): above the minimum, amounts per way rise in these steps up to the limit...
    pub way_fine_step_cents: i64,
    pub way_fine_step_up_to_cents: i64,
    /// ...and in these steps above it.
    pub way_coarse_step_cents: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WayMinimumFile {
    pub from_ways: i64,
    pub min_cents: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GamesFile {
    /// Largest number of consecutive games on one ticket (a rule-set decision).
    pub max_per_ticket: i64,
    /// From this many games a ticket is Keno To Go (rule 1(f)).
    pub keno_to_go_from: i64,
    /// Rule 6.2(a),(b): games charged fewer from a number of games on.
    pub discounts: Vec<DiscountFile>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiscountFile {
    pub from_games: i64,
    pub free_games: i64,
}

/// Rule 12 and the major prize of rule 1(h).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapsFile {
    pub per_way_cents: i64,
    pub game_major_prizes_cents: i64,
    pub major_prize_cents: i64,
}

/// Rules 6.3(b), 6.3(c).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuickPickFile {
    pub mystery_min_spots: i64,
    pub mystery_max_spots: i64,
}

/// Rule 7: one progressive pool per jackpot ticket type.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JackpotFile {
    pub spots: i64,
    pub guaranteed_cents: i64,
    /// Share of each amount per way added to the pool, in hundredths of a percent (2000 = 20%).
    pub contribution_basis_points: i64,
    pub min_wager_cents: i64,
    pub step_cents: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchedulesFile {
    pub standard: ScheduleFile,
    pub special1: ScheduleFile,
    pub special2: ScheduleFile,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub special3: Option<ScheduleFile>,
    pub jackpot: ScheduleFile,
}

impl SchedulesFile {
    pub fn get(&self, id: ScheduleId) -> Option<&ScheduleFile> {
        match id {
            ScheduleId::Standard => Some(&self.standard),
            ScheduleId::Special1 => Some(&self.special1),
            ScheduleId::Special2 => Some(&self.special2),
            ScheduleId::Special3 => self.special3.as_ref(),
            ScheduleId::Jackpot => Some(&self.jackpot),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduleFile {
    /// The wager the amounts are for.
    pub base_wager_cents: i64,
    /// Rule 18.4, Special 3 only: the operator's note that the regulator approved this table.
    /// It does not open Special 3 for sale by itself: that takes the approval record an inspector
    /// enters through the server (`POST /api/v1/special3/approvals`), which a supervisor can
    /// withdraw. Other schedules may play as Special 3 only when this is true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved: Option<bool>,
    /// Reference of the approval (letter, date), kept for the auditors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_reference: Option<String>,
    /// Spot counts without a column of their own play as under this schedule (rule 18.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_spots_as: Option<ScheduleId>,
    pub columns: Vec<ColumnFile>,
}

/// One column of a schedule: what each catch pays for one spot count.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColumnFile {
    pub spots: i64,
    /// Catch to prize in cents at the base wager; catches not listed pay nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pays: Option<BTreeMap<CatchKey, i64>>,
    /// This spot count is played under another schedule instead (18.1's 6 and 8 spots).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_as: Option<ScheduleId>,
}

/// A catch as a map key: files write keys as text ("3 = 200"), ordered here as numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CatchKey(pub i64);

impl Serialize for CatchKey {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for CatchKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = CatchKey;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a catch: a whole number of matched spots")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<CatchKey, E> {
                v.trim().parse().map(CatchKey).map_err(|_| {
                    E::custom(format!(
                        "'{v}' is not a catch: write the number of matched spots"
                    ))
                })
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<CatchKey, E> {
                Ok(CatchKey(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<CatchKey, E> {
                i64::try_from(v)
                    .map(CatchKey)
                    .map_err(|_| E::custom("catch out of range"))
            }
        }
        d.deserialize_any(KeyVisitor)
    }
}
