//! The schedules of prizes of rule 18 and the prize table they resolve to.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::board::MAX_SPOTS;

/// A schedule of prizes a ticket can be entered in (rules 1(k), 6.3(d), 18).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScheduleId {
    /// Rule 18.1, the columns other than the jackpot ones.
    Standard,
    /// Rule 18.2, "an alternative to the jackpot selection".
    Special1,
    /// Rule 18.3: all-catch prizes for 3 to 6 spots.
    Special2,
    /// Rule 18.4: promotional, operator-defined, only once approved.
    Special3,
    /// The jackpot columns of rule 18.1 (6 and 8 spots, base $2, top prize = the pool).
    Jackpot,
}

impl ScheduleId {
    pub const ALL: [ScheduleId; 5] = [
        ScheduleId::Standard,
        ScheduleId::Special1,
        ScheduleId::Special2,
        ScheduleId::Special3,
        ScheduleId::Jackpot,
    ];

    /// The rule that sets out this schedule.
    pub fn rule(self) -> &'static str {
        match self {
            ScheduleId::Standard | ScheduleId::Jackpot => "18.1",
            ScheduleId::Special1 => "18.2",
            ScheduleId::Special2 => "18.3",
            ScheduleId::Special3 => "18.4",
        }
    }

    /// The name used in files and in the API.
    pub fn key(self) -> &'static str {
        match self {
            ScheduleId::Standard => "standard",
            ScheduleId::Special1 => "special1",
            ScheduleId::Special2 => "special2",
            ScheduleId::Special3 => "special3",
            ScheduleId::Jackpot => "jackpot",
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for ScheduleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ScheduleId::Standard => "Standard",
            ScheduleId::Special1 => "Special 1",
            ScheduleId::Special2 => "Special 2",
            ScheduleId::Special3 => "Special 3",
            ScheduleId::Jackpot => "Jackpot",
        })
    }
}

const SPOT_SLOTS: usize = MAX_SPOTS as usize + 1;

/// What one cell of the resolved table pays at the schedule's base wager.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pay {
    Cents(u64),
    /// The all-catch of a jackpot type: the pool, shared by the game's winners (12.6).
    JackpotPool,
}

/// Every schedule resolved into one dense table, so settling a way is an index, not a search.
///
/// `cells[schedule][spots][catch]` holds the prize in cents at the base wager, with
/// [`PrizeTable::JACKPOT`] marking a jackpot pool win. Only the `(schedule, spots)` pairs that
/// are `playable` hold prizes: the ones a way can be settled under after `same_as` links are
/// followed at sale (a standard 6-spot way is sold as a Special 1 way, per the interpretation
/// of 18.1/18.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrizeTable {
    cells: [[[u64; SPOT_SLOTS]; SPOT_SLOTS]; 5],
    playable: [[bool; SPOT_SLOTS]; 5],
    base_wager_cents: [u64; 5],
}

impl PrizeTable {
    pub(crate) const JACKPOT: u64 = u64::MAX;

    pub(crate) fn empty() -> PrizeTable {
        PrizeTable {
            cells: [[[0; SPOT_SLOTS]; SPOT_SLOTS]; 5],
            playable: [[false; SPOT_SLOTS]; 5],
            base_wager_cents: [0; 5],
        }
    }

    pub(crate) fn set_base(&mut self, schedule: ScheduleId, cents: u64) {
        self.base_wager_cents[schedule.index()] = cents;
    }

    pub(crate) fn set_column(&mut self, schedule: ScheduleId, spots: u8, pays: &[(u8, Pay)]) {
        let s = schedule.index();
        self.playable[s][spots as usize] = true;
        for &(catch, pay) in pays {
            self.cells[s][spots as usize][catch as usize] = match pay {
                Pay::Cents(c) => c,
                Pay::JackpotPool => Self::JACKPOT,
            };
        }
    }

    /// The base wager a schedule's amounts are for (rule 18: $1, jackpots $2).
    pub fn base_wager_cents(&self, schedule: ScheduleId) -> u64 {
        self.base_wager_cents[schedule.index()]
    }

    /// Whether a way of `spots` can be settled under `schedule` as it stands.
    pub fn is_playable(&self, schedule: ScheduleId, spots: u8) -> bool {
        spots <= MAX_SPOTS && self.playable[schedule.index()][spots as usize]
    }

    /// What a catch pays at the base wager; `None` where the column is not playable.
    pub fn pay(&self, schedule: ScheduleId, spots: u8, catch: u8) -> Option<Pay> {
        if !self.is_playable(schedule, spots) || catch > spots {
            return None;
        }
        Some(
            match self.cells[schedule.index()][spots as usize][catch as usize] {
                Self::JACKPOT => Pay::JackpotPool,
                c => Pay::Cents(c),
            },
        )
    }

    #[inline]
    pub(crate) fn raw(&self, schedule: usize, spots: usize, catch: usize) -> u64 {
        self.cells[schedule][spots][catch]
    }

    #[inline]
    pub(crate) fn raw_playable(&self, schedule: usize, spots: usize) -> bool {
        self.playable[schedule][spots]
    }

    #[inline]
    pub(crate) fn raw_base(&self, schedule: usize) -> u64 {
        self.base_wager_cents[schedule]
    }
}
