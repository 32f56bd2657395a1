//! What an open game could cost: the live liability of the bets sold into it.
//!
//! Inputs in, figures out: each way sold is added once ([`Exposure::add`]), so the figures are
//! kept as sales land and never need a rescan. For each way, from its catch probabilities
//! (hypergeometric: `C(n,k)·C(80−n,20−k)/C(80,20)` for `k` of its `n` spots, [`crate::theory`]):
//!
//! - the exact expected payout, kept as a numerator over [`DRAWS`] so the game's sum is exact;
//! - the most it can win as a minor prize, and as a major prize (rule 1(h)), each after the
//!   per-way cap (rule 12.1).
//!
//! The game's worst case ([`Exposure::worst_case`]) is a sound upper bound of what any one draw
//! can pay: no draw pays more than every way's largest minor prize, plus its major prizes after
//! pro-rating (rules 12.3-12.5: their total is the game limit, or each held at the floor when
//! there are more than `limit / floor` of them), plus the jackpot pools at stake (rule 7). A way
//! wins one prize per draw, so adding its largest minor and its largest major over-counts and
//! stays an upper bound. Jackpot pool wins are outside the expectation (their pool is shown on
//! its own); the bonus prizes a game offers (rule 6.3(e)) are in every figure, as part of the
//! prize they are ([`RuleSet::way_exposure_with`]).

use std::collections::BTreeMap;

use crate::prize::is_major_prize;
use crate::rules::RuleSet;
use crate::schedule::{PrizeTable, ScheduleId};
use crate::settle::WayInPlay;
use crate::theory::{catch_draws, DRAWS};

/// One way's exposure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WayExposure {
    /// Expected prize times [`DRAWS`], in cents.
    pub expected_numerator: u128,
    /// The largest minor prize it can win, after the per-way cap.
    pub max_minor_cents: u64,
    /// The largest major prize it can win after the per-way cap (0 if it cannot win one).
    pub max_major_cents: u64,
    /// It plays for a jackpot pool (its all-catch wins the pool).
    pub jackpot: bool,
}

impl RuleSet {
    /// The exposure of one way, as it would be settled (rules 11.1, 12.1, 18), in a game that
    /// offers no bonus prizes.
    pub fn way_exposure(&self, way: &WayInPlay) -> WayExposure {
        self.way_exposure_with(way, &[])
    }

    /// The exposure of one way that wins `bonus[catch]` in bonus prizes with each catch
    /// ([`crate::bonus_by_catch`]; empty for none): each catch's prize as settlement makes it,
    /// schedule and bonus under the per-way cap (rules 6.3(e), 12.1), a jackpot catch's bonus
    /// included (its pool is counted on its own).
    pub fn way_exposure_with(&self, way: &WayInPlay, bonus: &[u64]) -> WayExposure {
        let table = self.prize_table();
        let caps = self.caps();
        let s = way.plays_under.index();
        let spots = way.numbers.len();
        let mut out = WayExposure::default();
        if spots == 0 || !table.raw_playable(s, spots as usize) {
            return out;
        }
        for catch in 0..=spots {
            let base = table.raw(s, spots as usize, catch as usize);
            let schedule = match base {
                PrizeTable::JACKPOT => {
                    out.jackpot = true;
                    0
                }
                0 => 0,
                _ => crate::settle::scale(
                    base,
                    way.amount_per_way_cents,
                    table.raw_base(s),
                    caps.per_way_cents,
                ),
            };
            let extra = bonus.get(catch as usize).copied().unwrap_or(0);
            let prize = crate::prize::way_prize(schedule, extra, caps.per_way_cents);
            if prize == 0 {
                continue;
            }
            out.expected_numerator += u128::from(prize) * u128::from(catch_draws(spots, catch));
            if is_major_prize(prize, caps.major_prize_cents) {
                out.max_major_cents = out.max_major_cents.max(prize);
            } else {
                out.max_minor_cents = out.max_minor_cents.max(prize);
            }
        }
        out
    }
}

/// Stake and ways on one number, or in one column (schedule and spot count).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stake {
    pub ways: u64,
    pub stake_cents: u64,
}

impl Stake {
    fn add(&mut self, stake_cents: u64) {
        self.ways += 1;
        self.stake_cents += stake_cents;
    }

    fn take(&mut self, stake_cents: u64) {
        self.ways = self.ways.saturating_sub(1);
        self.stake_cents = self.stake_cents.saturating_sub(stake_cents);
    }
}

/// The open game's liability, kept as its ways are sold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exposure {
    pub ways: u64,
    pub stake_cents: u64,
    /// Index 1..=80: the ways and stake that include the number.
    pub per_number: [Stake; 81],
    pub per_column: BTreeMap<(ScheduleId, u8), Stake>,
    /// The game's expected payout times [`DRAWS`].
    pub expected_numerator: u128,
    /// Every way's largest minor prize, summed.
    pub minor_bound_cents: u64,
    /// Every way's largest major prize, summed (before pro-rating).
    pub major_sum_cents: u64,
    /// Ways that can win a major prize.
    pub major_ways: u64,
    /// Ways playing for a jackpot pool.
    pub jackpot_ways: u64,
}

impl Default for Exposure {
    fn default() -> Self {
        Exposure {
            ways: 0,
            stake_cents: 0,
            per_number: [Stake::default(); 81],
            per_column: BTreeMap::new(),
            expected_numerator: 0,
            minor_bound_cents: 0,
            major_sum_cents: 0,
            major_ways: 0,
            jackpot_ways: 0,
        }
    }
}

impl Exposure {
    /// Adds one way sold, with its exposure.
    pub fn add(&mut self, way: &WayInPlay, exposure: &WayExposure) {
        let stake = way.amount_per_way_cents;
        self.ways += 1;
        self.stake_cents += stake;
        for n in way.numbers.numbers() {
            self.per_number[n as usize].add(stake);
        }
        self.per_column
            .entry((way.plays_under, way.numbers.len()))
            .or_default()
            .add(stake);
        self.expected_numerator += exposure.expected_numerator;
        self.minor_bound_cents += exposure.max_minor_cents;
        if exposure.max_major_cents > 0 {
            self.major_ways += 1;
            self.major_sum_cents += exposure.max_major_cents;
        }
        self.jackpot_ways += u64::from(exposure.jackpot);
    }

    /// Takes back one way added before (its ticket cancelled or voided, rules 8, 17.2).
    pub fn remove(&mut self, way: &WayInPlay, exposure: &WayExposure) {
        let stake = way.amount_per_way_cents;
        self.ways = self.ways.saturating_sub(1);
        self.stake_cents = self.stake_cents.saturating_sub(stake);
        for n in way.numbers.numbers() {
            self.per_number[n as usize].take(stake);
        }
        let key = (way.plays_under, way.numbers.len());
        if let Some(column) = self.per_column.get_mut(&key) {
            column.take(stake);
            if column.ways == 0 {
                self.per_column.remove(&key);
            }
        }
        self.expected_numerator = self
            .expected_numerator
            .saturating_sub(exposure.expected_numerator);
        self.minor_bound_cents = self
            .minor_bound_cents
            .saturating_sub(exposure.max_minor_cents);
        if exposure.max_major_cents > 0 {
            self.major_ways = self.major_ways.saturating_sub(1);
            self.major_sum_cents = self
                .major_sum_cents
                .saturating_sub(exposure.max_major_cents);
        }
        self.jackpot_ways = self
            .jackpot_ways
            .saturating_sub(u64::from(exposure.jackpot));
    }

    /// Adds every way of `other` (the ways held for sales in flight, say).
    pub fn absorb(&mut self, other: &Exposure) {
        self.ways += other.ways;
        self.stake_cents += other.stake_cents;
        for (mine, theirs) in self.per_number.iter_mut().zip(other.per_number.iter()) {
            mine.ways += theirs.ways;
            mine.stake_cents += theirs.stake_cents;
        }
        for (key, theirs) in &other.per_column {
            let mine = self.per_column.entry(*key).or_default();
            mine.ways += theirs.ways;
            mine.stake_cents += theirs.stake_cents;
        }
        self.expected_numerator += other.expected_numerator;
        self.minor_bound_cents += other.minor_bound_cents;
        self.major_sum_cents += other.major_sum_cents;
        self.major_ways += other.major_ways;
        self.jackpot_ways += other.jackpot_ways;
    }

    /// The expected payout in cents, rounded down (the exact value is
    /// `expected_numerator / DRAWS`).
    pub fn expected_cents(&self) -> u64 {
        (self.expected_numerator / u128::from(DRAWS)) as u64
    }

    /// A sound upper bound of what one draw of this game can pay, with `pools_cents` in the
    /// jackpot pools at stake (rules 12.1, 12.3-12.5, 7).
    pub fn worst_case(&self, rules: &RuleSet, pools_cents: u64) -> u64 {
        let caps = rules.caps();
        // Rules 12.3, 12.4: the majors together pay at most the limit, unless so many win that
        // each is held at the floor.
        let floor_total = self.major_ways.saturating_mul(caps.major_prize_cents);
        let majors = self
            .major_sum_cents
            .min(caps.game_major_prizes_cents.max(floor_total));
        let pools = if self.jackpot_ways > 0 {
            pools_cents
        } else {
            0
        };
        self.minor_bound_cents
            .saturating_add(majors)
            .saturating_add(pools)
    }
}

/// The most one ticket's ways can win together in one game: their worst case as a game of its
/// own (the majors pro-rated among themselves, rules 12.1-12.5), jackpot pools left out (the
/// pools are the operator's liability whoever sells).
pub fn ticket_potential(rules: &RuleSet, ways: &[WayInPlay]) -> u64 {
    let mut ticket = Exposure::default();
    for way in ways {
        ticket.add(way, &rules.way_exposure(way));
    }
    ticket.worst_case(rules, 0)
}

/// The operator's limits on what one sale may add to the open game's liability (AGCO 3.1.6:
/// wagers over a liability limit are refused). `None`: no limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LiabilityLimits {
    /// The most one ticket may stand to win in one game ([`ticket_potential`]).
    pub ticket_potential_cents: Option<u64>,
    /// The most a game's expected payout may reach.
    pub game_expected_payout_cents: Option<u64>,
    /// The most the ways including any one number may stake in a game.
    pub number_stake_cents: Option<u64>,
}

/// A sale refused for a liability limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LimitRefusal {
    #[error("this ticket could win {potential} in one game, over the limit of {limit} a ticket may stand to win: make it smaller")]
    TicketPotential {
        potential: crate::money::Dollars,
        limit: crate::money::Dollars,
    },
    #[error("with this ticket the game's expected payout would be {expected}, over its limit of {limit}: the game takes no more of this size")]
    GameExpectedPayout {
        expected: crate::money::Dollars,
        limit: crate::money::Dollars,
    },
    #[error("with this ticket {stake} would be staked on number {number} in this game, over the limit of {limit} on one number: choose other numbers or a smaller amount")]
    NumberStake {
        number: u8,
        stake: crate::money::Dollars,
        limit: crate::money::Dollars,
    },
}

impl LiabilityLimits {
    /// Whether a ticket standing to win `potential_cents` in one game may be sold.
    pub fn check_ticket(&self, potential_cents: u64) -> Result<(), LimitRefusal> {
        match self.ticket_potential_cents {
            Some(limit) if potential_cents > limit => Err(LimitRefusal::TicketPotential {
                potential: crate::money::Dollars(potential_cents),
                limit: crate::money::Dollars(limit),
            }),
            _ => Ok(()),
        }
    }

    /// Whether the game limits bind at all: without them a sale needs no look at the game.
    pub fn bind_the_game(&self) -> bool {
        self.game_expected_payout_cents.is_some() || self.number_stake_cents.is_some()
    }

    /// Whether `adding` (a ticket's ways with their exposure) may join `game`, the game's
    /// exposure with every sale before it: its expected payout and the stake on each of the
    /// ticket's numbers stay within the limits. A ticket that lowers nothing is judged by
    /// where the game would stand with it, so a game already over a limit (the limit lowered
    /// meanwhile) takes no more.
    pub fn check_game<'a>(
        &self,
        game: &Exposure,
        adding: impl Iterator<Item = (&'a WayInPlay, &'a WayExposure)> + Clone,
    ) -> Result<(), LimitRefusal> {
        if let Some(limit) = self.number_stake_cents {
            let mut on = [0u64; 81];
            for (way, _) in adding.clone() {
                for n in way.numbers.numbers() {
                    on[n as usize] += way.amount_per_way_cents;
                }
            }
            for (n, added) in on.iter().enumerate().filter(|(_, &a)| a > 0) {
                let stake = game.per_number[n].stake_cents + added;
                if stake > limit {
                    return Err(LimitRefusal::NumberStake {
                        number: n as u8,
                        stake: crate::money::Dollars(stake),
                        limit: crate::money::Dollars(limit),
                    });
                }
            }
        }
        if let Some(limit) = self.game_expected_payout_cents {
            let numerator =
                game.expected_numerator + adding.map(|(_, e)| e.expected_numerator).sum::<u128>();
            let expected = (numerator / u128::from(DRAWS)) as u64;
            if expected > limit {
                return Err(LimitRefusal::GameExpectedPayout {
                    expected: crate::money::Dollars(expected),
                    limit: crate::money::Dollars(limit),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Draw, NumberSet};
    use crate::jackpot::JackpotPools;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    /// A way as the server settles it: under the schedule its spots play as (a standard
    /// 6-spot plays Special 1).
    fn way(numbers: &[u8], schedule: ScheduleId, amount: u64) -> WayInPlay {
        let numbers = NumberSet::from_numbers(numbers).unwrap();
        WayInPlay {
            plays_under: RuleSet::act_1992()
                .plays_as(schedule, numbers.len())
                .unwrap(),
            numbers,
            amount_per_way_cents: amount,
        }
    }

    /// C(n, k) by the product formula, independently of `theory::binomial`.
    fn choose(n: u128, k: u128) -> u128 {
        (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
    }

    /// A small game's expected payout, computed the long way: each way's prize at each catch
    /// times the number of draws giving that catch, over all C(80, 20) draws.
    #[test]
    fn the_expected_payout_is_exact_for_a_small_game() {
        let rules = RuleSet::act_1992();
        let ways = [
            way(&[7], ScheduleId::Standard, 100),
            way(&[1, 2, 3, 4], ScheduleId::Standard, 300),
            way(&[10, 20, 30, 40, 50, 60, 70, 80], ScheduleId::Standard, 200),
            way(&[5, 6], ScheduleId::Standard, 500),
        ];
        let mut game = Exposure::default();
        let mut numerator = 0u128;
        for w in &ways {
            game.add(w, &rules.way_exposure(w));
            let n = u128::from(w.numbers.len());
            let column = rules
                .theoretical_return(ScheduleId::Standard, w.numbers.len())
                .unwrap();
            for c in &column.catches {
                let k = u128::from(c.catch);
                let draws = choose(n, k) * choose(80 - n, 20 - k);
                let prize = u128::from(c.prize_cents) * u128::from(w.amount_per_way_cents)
                    / u128::from(column.base_wager_cents);
                numerator += prize * draws;
            }
        }
        assert_eq!(choose(80, 20), u128::from(DRAWS));
        assert_eq!(game.expected_numerator, numerator);
        // A 1-spot at $1 wins $3 one time in four (rule 18.1): 75 cents expected.
        let one = rules.way_exposure(&ways[0]);
        assert_eq!(one.expected_numerator, 75 * u128::from(DRAWS));
        assert_eq!(game.ways, 4);
        assert_eq!(game.stake_cents, 1_100);
        assert_eq!(
            game.per_number[7],
            Stake {
                ways: 1,
                stake_cents: 100
            }
        );
        assert_eq!(game.per_number[9], Stake::default());
        assert_eq!(game.per_column[&(ScheduleId::Standard, 4)].stake_cents, 300);
        // Taking a way back leaves the game as if it had not been sold.
        let before = game.clone();
        let extra = way(&[7, 8, 9], ScheduleId::Standard, 400);
        game.add(&extra, &rules.way_exposure(&extra));
        assert_ne!(game, before);
        game.remove(&extra, &rules.way_exposure(&extra));
        assert_eq!(game, before);
    }

    /// Settles many random draws of a busy game with majors and pro-rating: no draw pays more
    /// than the bound.
    #[test]
    fn no_simulated_draw_pays_more_than_the_worst_case() {
        let rules = RuleSet::act_1992();
        let mut rng = ChaCha20Rng::seed_from_u64(17);
        let mut ways = Vec::new();
        let mut game = Exposure::default();
        for i in 0..400u32 {
            let spots = 1 + (i % 10) as usize;
            let numbers = crate::random::distinct_numbers(&mut rng, spots);
            let w = way(&numbers, ScheduleId::Standard, 100 * u64::from(1 + i % 50));
            game.add(&w, &rules.way_exposure(&w));
            ways.push(w);
        }
        // A few sure majors: every 1-spot number at $100 pays $300 for a catch.
        for n in 1..=80u8 {
            let w = way(&[n], ScheduleId::Standard, 10_000);
            game.add(&w, &rules.way_exposure(&w));
            ways.push(w);
        }
        let bound = game.worst_case(&rules, 0);
        let mut largest = 0;
        for _ in 0..300 {
            let draw: Draw = crate::random::draw_numbers(&mut rng);
            let settled = rules
                .settle_game(&draw, &ways, &JackpotPools::default())
                .unwrap();
            largest = largest.max(settled.total_prizes_cents);
            assert!(
                settled.total_prizes_cents <= bound,
                "{} > {bound}",
                settled.total_prizes_cents
            );
        }
        assert!(largest > 0 && game.expected_cents() > 0);
        assert!(game.major_ways >= 80);
    }

    #[test]
    fn a_tickets_potential_is_checked_against_the_limit() {
        let rules = RuleSet::act_1992();
        let one = [way(&[7], ScheduleId::Standard, 100)];
        // Rule 18.1: a 1-spot at $1 wins $3 at most.
        assert_eq!(ticket_potential(&rules, &one), 300);
        let limits = LiabilityLimits {
            ticket_potential_cents: Some(300),
            ..LiabilityLimits::default()
        };
        assert_eq!(limits.check_ticket(300), Ok(()));
        assert!(matches!(
            limits.check_ticket(301),
            Err(LimitRefusal::TicketPotential { .. })
        ));
        assert_eq!(LiabilityLimits::default().check_ticket(u64::MAX), Ok(()));
    }

    #[test]
    fn majors_beyond_the_game_limit_are_bounded_by_it_or_the_floor() {
        let rules = RuleSet::act_1992();
        let caps = rules.caps();
        let mut game = Exposure::default();
        // 10-spots at $100: each can win the per-way cap; 300 of them is more than the limit
        // allows at the floor (rule 12.4), so the bound is 300 floors.
        for i in 0..300u32 {
            let first = (i % 70) as u8 + 1;
            let numbers: Vec<u8> = (first..first + 10).collect();
            let w = way(&numbers, ScheduleId::Standard, 10_000);
            game.add(&w, &rules.way_exposure(&w));
        }
        let majors = game.worst_case(&rules, 0) - game.minor_bound_cents;
        assert_eq!(
            majors,
            (300 * caps.major_prize_cents).max(caps.game_major_prizes_cents)
        );
        assert!(game.major_sum_cents > majors);
    }

    #[test]
    fn a_ticket_that_would_pass_a_game_limit_is_refused() {
        let rules = RuleSet::act_1992();
        let mut game = Exposure::default();
        let first = way(&[7, 8], ScheduleId::Standard, 300);
        game.add(&first, &rules.way_exposure(&first));
        let next = way(&[7, 9], ScheduleId::Standard, 200);
        let adding = [(next, rules.way_exposure(&next))];
        let stake = |cents| LiabilityLimits {
            number_stake_cents: Some(cents),
            ..LiabilityLimits::default()
        };
        // Number 7 would hold $5.00: at the limit is allowed, a cent under it is not.
        assert_eq!(
            stake(500).check_game(&game, adding.iter().map(|(w, e)| (w, e))),
            Ok(())
        );
        assert_eq!(
            stake(499).check_game(&game, adding.iter().map(|(w, e)| (w, e))),
            Err(LimitRefusal::NumberStake {
                number: 7,
                stake: crate::money::Dollars(500),
                limit: crate::money::Dollars(499),
            })
        );
        let expected_after =
            ((game.expected_numerator + adding[0].1.expected_numerator) / u128::from(DRAWS)) as u64;
        let payout = |cents| LiabilityLimits {
            game_expected_payout_cents: Some(cents),
            ..LiabilityLimits::default()
        };
        assert_eq!(
            payout(expected_after).check_game(&game, adding.iter().map(|(w, e)| (w, e))),
            Ok(())
        );
        assert!(matches!(
            payout(expected_after - 1).check_game(&game, adding.iter().map(|(w, e)| (w, e))),
            Err(LimitRefusal::GameExpectedPayout { .. })
        ));
        assert!(!LiabilityLimits::default().bind_the_game());
        assert_eq!(
            LiabilityLimits::default().check_game(&game, adding.iter().map(|(w, e)| (w, e))),
            Ok(())
        );
    }
}
