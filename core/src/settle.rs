//! Settling one game: every way in play against the 20 drawn numbers (rules 11, 12, 18).
//!
//! The input is every way of every ticket that covers the game (multi-game tickets bought
//! hours earlier included): pro-rating (12.3) and jackpot sharing (12.6) need all of them
//! before any prize is known.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::board::{Draw, NumberSet, MAX_SPOTS};
use crate::jackpot::{share_pool, JackpotOutcome, JackpotPools};
use crate::prize::is_major_prize;
use crate::prorate::prorate;
use crate::rules::RuleSet;
use crate::schedule::{PrizeTable, ScheduleId};

/// One way in play in a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WayInPlay {
    pub numbers: NumberSet,
    /// The schedule the way was sold under (after `same_as`, see [`RuleSet::plays_as`]).
    pub plays_under: ScheduleId,
    pub amount_per_way_cents: u64,
}

/// What one way won.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WayOutcome {
    pub catch: u8,
    pub prize_cents: u64,
    /// The prize was reduced by pro-rating (12.3-12.5).
    pub prorated: bool,
    /// The way won its jackpot pool (or a share of it).
    pub jackpot: bool,
}

impl WayOutcome {
    /// Rule 1(h): whether the way's prize, as settled, is a major prize: $200 or more on the
    /// way after the 12.1 cap, pro-rating and any jackpot share. A pro-rated prize is one
    /// (only majors are pro-rated, never below 12.4's floor); a jackpot share under the
    /// threshold is not, and is paid in cash like any minor win (12.2).
    pub fn is_major(&self, major_prize_cents: u64) -> bool {
        self.prize_cents > 0
            && (self.prorated || is_major_prize(self.prize_cents, major_prize_cents))
    }
}

/// How the game's major prizes were pro-rated, when they were.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProRating {
    pub major_prizes: usize,
    pub before_cents: u64,
    pub after_cents: u64,
    /// Rule 12.4 prevailed: every major prize is at the $200 floor, over the $50,000 limit.
    pub floor_binds_for_all: bool,
}

/// The result of settling a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameSettlement {
    /// One outcome per way, in the order the ways were given.
    pub ways: Vec<WayOutcome>,
    pub prorating: Option<ProRating>,
    pub jackpots: Vec<JackpotOutcome>,
    pub total_prizes_cents: u64,
}

impl GameSettlement {
    /// The pools to carry into the next game.
    pub fn next_pools(&self) -> JackpotPools {
        JackpotPools(
            self.jackpots
                .iter()
                .map(|j| (j.spots, j.next_pool_cents))
                .collect(),
        )
    }
}

/// A way that cannot be settled under this rule set: the caller's data is wrong.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SettleError {
    #[error("way {index} ({spots} spots) cannot be settled under the {schedule} schedule of this rule set")]
    NotPlayable {
        index: usize,
        schedule: ScheduleId,
        spots: u8,
    },
    #[error("way {index} has a wager of {amount} cents: none, or more than a ticket may cost")]
    Wager { index: usize, amount: u64 },
}

impl RuleSet {
    /// Settles a game offering no bonus prize; see the module documentation.
    pub fn settle_game(
        &self,
        draw: &Draw,
        ways: &[WayInPlay],
        carried: &JackpotPools,
    ) -> Result<GameSettlement, SettleError> {
        self.settle_game_with_bonuses(draw, ways, carried, |_, _| 0)
    }

    /// Settles a game in which way `i`, catching `c` numbers, also wins the bonus prizes
    /// `bonus(i, c)` (the sum of those whose terms it meets, [`crate::wins_bonus`]).
    ///
    /// Rule 6.3(e) as decided (INTERPRETATION, "Bonus prizes are prizes"): a bonus is part of
    /// the way's prize, added to the schedule prize before the per-way cap (12.1), the
    /// major-prize test (1(h)) and pro-rating (12.3-12.5). Only jackpot pool shares (7.2, 12.6)
    /// stay outside both caps, added after.
    pub fn settle_game_with_bonuses(
        &self,
        draw: &Draw,
        ways: &[WayInPlay],
        carried: &JackpotPools,
        bonus: impl Fn(usize, u8) -> u64,
    ) -> Result<GameSettlement, SettleError> {
        let table = self.prize_table();
        let caps = self.caps();
        let mut contribution_bp = [0u64; MAX_SPOTS as usize + 1];
        for j in self.jackpot_types() {
            contribution_bp[j.spots as usize] = j.contribution_basis_points;
        }
        let mut contributions = [0u64; MAX_SPOTS as usize + 1];
        let mut outcomes = Vec::with_capacity(ways.len());
        let mut majors: Vec<usize> = Vec::new();
        let mut jackpot_wins: Vec<usize> = Vec::new();
        let drawn = draw.set();
        let jackpot = ScheduleId::Jackpot.index();
        // No way can stake more than a whole ticket may cost; this also keeps every product
        // below in range.
        let max_amount = self.wagers().max_ticket_total_cents;

        for (index, way) in ways.iter().enumerate() {
            let s = way.plays_under.index();
            let spots = way.numbers.len();
            if spots > MAX_SPOTS || !table.raw_playable(s, spots as usize) {
                return Err(SettleError::NotPlayable {
                    index,
                    schedule: way.plays_under,
                    spots,
                });
            }
            let amount = way.amount_per_way_cents;
            if amount == 0 || amount > max_amount {
                return Err(SettleError::Wager { index, amount });
            }
            let catch = way.numbers.count_common(drawn);
            if s == jackpot {
                // Rule 7.3 as interpreted: each way adds its share, rounded down per way.
                contributions[spots as usize] += amount * contribution_bp[spots as usize] / 10_000;
            }
            let base = table.raw(s, spots as usize, catch as usize);
            let mut outcome = WayOutcome {
                catch,
                ..WayOutcome::default()
            };
            // Rule 18: the schedule amount scaled by the wager, down to the cent.
            let schedule = match base {
                PrizeTable::JACKPOT => {
                    outcome.jackpot = true;
                    jackpot_wins.push(index);
                    0
                }
                0 => 0,
                _ => scale(base, amount, table.raw_base(s), u64::MAX),
            };
            // Rule 6.3(e): the bonus is part of the prize; rule 12.1: the per-way cap on both.
            let prize = crate::prize::way_prize(schedule, bonus(index, catch), caps.per_way_cents);
            outcome.prize_cents = prize;
            // Rule 1(h): a major prize, measured after the 12.1 cap.
            if prize > 0 && is_major_prize(prize, caps.major_prize_cents) {
                majors.push(index);
            }
            outcomes.push(outcome);
        }

        let prorating = self.prorate_majors(&mut outcomes, &majors);
        let jackpots =
            self.share_jackpots(ways, &mut outcomes, &jackpot_wins, &contributions, carried);
        let total_prizes_cents = outcomes.iter().map(|o| o.prize_cents).sum();
        Ok(GameSettlement {
            ways: outcomes,
            prorating,
            jackpots,
            total_prizes_cents,
        })
    }

    /// One way's catch and its schedule prize after the per-way cap (rules 11.1, 12.1, 18),
    /// before pro-rating and jackpot sharing, which need the whole game: a jackpot win comes back
    /// with `jackpot` set and no prize. Prizes under the major-prize threshold are final as
    /// computed here, so a ticket's view can recompute them from its ways and the draw.
    pub fn schedule_outcome(
        &self,
        draw: &Draw,
        way: &WayInPlay,
    ) -> Result<WayOutcome, SettleError> {
        let table = self.prize_table();
        let spots = way.numbers.len();
        if spots > MAX_SPOTS || !table.is_playable(way.plays_under, spots) {
            return Err(SettleError::NotPlayable {
                index: 0,
                schedule: way.plays_under,
                spots,
            });
        }
        let amount = way.amount_per_way_cents;
        if amount == 0 || amount > self.wagers().max_ticket_total_cents {
            return Err(SettleError::Wager { index: 0, amount });
        }
        let catch = draw.catch(way.numbers);
        let s = way.plays_under.index();
        let base = table.raw(s, spots as usize, catch as usize);
        Ok(WayOutcome {
            catch,
            prize_cents: match base {
                PrizeTable::JACKPOT | 0 => 0,
                _ => scale(base, amount, table.raw_base(s), self.caps().per_way_cents),
            },
            prorated: false,
            jackpot: base == PrizeTable::JACKPOT,
        })
    }

    /// Rules 12.3-12.5, 12.7: jackpot pool wins are not among the majors.
    fn prorate_majors(&self, outcomes: &mut [WayOutcome], majors: &[usize]) -> Option<ProRating> {
        let caps = self.caps();
        let before_cents: u64 = majors.iter().map(|&i| outcomes[i].prize_cents).sum();
        if before_cents <= caps.game_major_prizes_cents {
            return None;
        }
        let floor = caps.major_prize_cents;
        // Rule 12.4 prevails only where $200 each is over the limit (more than 250 prizes).
        let floor_binds_for_all =
            majors.len() as u128 * u128::from(floor) > u128::from(caps.game_major_prizes_cents);
        let after_cents = if floor_binds_for_all {
            // Rule 12.4 prevails for all. A big game has thousands of majors, so this path
            // touches each once and allocates nothing.
            for &i in majors {
                outcomes[i].prorated = outcomes[i].prize_cents > floor;
                outcomes[i].prize_cents = floor;
            }
            floor * majors.len() as u64
        } else {
            // Fewer than limit / floor (250) prizes: the proportional shares of 12.5.
            let before: Vec<u64> = majors.iter().map(|&i| outcomes[i].prize_cents).collect();
            let result = prorate(&before, caps.game_major_prizes_cents, floor);
            debug_assert!(!result.floor_binds_for_all);
            for ((&i, &was), &now) in majors.iter().zip(&before).zip(&result.amounts) {
                outcomes[i].prize_cents = now;
                outcomes[i].prorated = now < was;
            }
            result.amounts.iter().sum()
        };
        Some(ProRating {
            major_prizes: majors.len(),
            before_cents,
            after_cents,
            floor_binds_for_all,
        })
    }

    /// Rules 7.2, 7.3, 12.6: each pool with this game's contributions, shared by its winners.
    fn share_jackpots(
        &self,
        ways: &[WayInPlay],
        outcomes: &mut [WayOutcome],
        wins: &[usize],
        contributions: &[u64],
        carried: &JackpotPools,
    ) -> Vec<JackpotOutcome> {
        self.jackpot_types()
            .iter()
            .map(|j| {
                let carried_in_cents = carried.carried(self, j.spots);
                let contributions_cents = contributions[j.spots as usize];
                let pool_cents = carried_in_cents.saturating_add(contributions_cents);
                let winners: Vec<usize> = wins
                    .iter()
                    .copied()
                    .filter(|&i| ways[i].numbers.len() == j.spots)
                    .collect();
                let stakes: Vec<u64> = winners
                    .iter()
                    .map(|&i| ways[i].amount_per_way_cents)
                    .collect();
                let shares = if winners.is_empty() {
                    Vec::new()
                } else {
                    share_pool(pool_cents, &stakes)
                };
                // On top of any bonus the way won, which the caps have already had.
                for (&i, &share) in winners.iter().zip(&shares) {
                    outcomes[i].prize_cents += share;
                }
                let paid_cents: u64 = shares.iter().sum();
                JackpotOutcome {
                    spots: j.spots,
                    carried_in_cents,
                    contributions_cents,
                    pool_cents,
                    winners: winners.len(),
                    paid_cents,
                    breakage_cents: if winners.is_empty() {
                        0
                    } else {
                        pool_cents - paid_cents
                    },
                    next_pool_cents: if winners.is_empty() {
                        pool_cents
                    } else {
                        j.guaranteed_cents
                    },
                }
            })
            .collect()
    }
}

/// `base * amount / base_wager` rounded down (rule 18), then at most `cap` (rule 12.1), without
/// overflow for any rule-set values.
#[inline]
pub(crate) fn scale(base: u64, amount: u64, base_wager: u64, cap: u64) -> u64 {
    let prize = match base.checked_mul(amount) {
        Some(product) => u128::from(product / base_wager),
        None => u128::from(base) * u128::from(amount) / u128::from(base_wager),
    };
    prize.min(u128::from(cap)) as u64
}

#[cfg(test)]
mod tests {
    use super::WayOutcome;

    #[test]
    fn a_jackpot_share_under_200_dollars_is_a_minor_win() {
        let share = |prize_cents| WayOutcome {
            catch: 6,
            prize_cents,
            prorated: false,
            jackpot: true,
        };
        // Rule 1(h): $125.40 of a shared pool is not a major prize; $1,881.00 is.
        assert!(!share(12_540).is_major(20_000));
        assert!(share(188_100).is_major(20_000));
        assert!(share(20_000).is_major(20_000));
        let prorated = WayOutcome {
            prorated: true,
            ..share(20_000)
        };
        assert!(prorated.is_major(20_000));
        assert!(!share(0).is_major(20_000));
    }
}
