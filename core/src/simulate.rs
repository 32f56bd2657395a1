//! What a game would pay over a sample of draws: the other half of the live liability (issue
//! 18). The sound bound of [`crate::Exposure::worst_case`] can sit far above anything a real
//! draw pays; a sample of draws, each settled as the game would be, shows the payout's spread:
//! its percentiles and the largest seen. The draws are an input (the caller samples them), and
//! each way sold is settled against every one of them once, as it is added, so reading the
//! curve never rescans the tickets.
//!
//! Each draw keeps its minor prizes' total and its major prizes (rule 1(h)) one by one, so
//! pro-rating (rules 12.3-12.5) applies to them as settlement would. A way's bonus prizes
//! (rule 6.3(e)) are part of its prize, as in settlement; jackpot pool wins are outside it, as
//! they are outside the expectation.

use crate::board::NumberSet;
use crate::prize::is_major_prize;
use crate::prorate::prorate;
use crate::rules::RuleSet;
use crate::schedule::PrizeTable;
use crate::settle::WayInPlay;

/// A game's payout over a fixed sample of draws, kept as ways are added and taken back.
#[derive(Clone, Debug)]
pub struct Simulation {
    draws: Vec<NumberSet>,
    minor_cents: Vec<u64>,
    /// Per draw, the major prizes won (after the per-way cap, before pro-rating).
    majors: Vec<Vec<u64>>,
}

/// One point of the payout's distribution over the sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Percentile {
    /// In tenths of a percent: 500 is the median, 999 the 99.9th percentile.
    pub per_mille: u32,
    pub payout_cents: u64,
}

/// The payout's distribution over the sample.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Curve {
    pub draws: usize,
    pub largest_cents: u64,
    pub percentiles: Vec<Percentile>,
}

impl RuleSet {
    /// What one way wins for each catch (index = catch), after the per-way cap (rule 12.1);
    /// a jackpot win counts 0 here (its pool is the operator's liability on its own).
    pub fn way_prizes(&self, way: &WayInPlay) -> Vec<u64> {
        self.way_prizes_with(way, &[])
    }

    /// As [`RuleSet::way_prizes`], with `bonus[catch]` in bonus prizes added to each catch's
    /// prize under the per-way cap (rules 6.3(e), 12.1; [`crate::bonus_by_catch`]).
    pub fn way_prizes_with(&self, way: &WayInPlay, bonus: &[u64]) -> Vec<u64> {
        let table = self.prize_table();
        let caps = self.caps();
        let s = way.plays_under.index();
        let spots = way.numbers.len() as usize;
        if spots == 0 || !table.raw_playable(s, spots) {
            return vec![0; spots + 1];
        }
        (0..=spots)
            .map(|catch| {
                let schedule = match table.raw(s, spots, catch) {
                    PrizeTable::JACKPOT | 0 => 0,
                    base => crate::settle::scale(
                        base,
                        way.amount_per_way_cents,
                        table.raw_base(s),
                        caps.per_way_cents,
                    ),
                };
                let extra = bonus.get(catch).copied().unwrap_or(0);
                crate::prize::way_prize(schedule, extra, caps.per_way_cents)
            })
            .collect()
    }
}

impl Simulation {
    /// A simulation over `draws` (each a draw's 20 numbers) with nothing sold yet.
    pub fn new(draws: Vec<NumberSet>) -> Simulation {
        let n = draws.len();
        Simulation {
            draws,
            minor_cents: vec![0; n],
            majors: vec![Vec::new(); n],
        }
    }

    /// Settles one way sold against every draw of the sample; `bonus` is what it wins in bonus
    /// prizes with each catch (empty for none).
    pub fn add(&mut self, rules: &RuleSet, way: &WayInPlay, bonus: &[u64]) {
        self.apply(rules, (way, bonus), true);
    }

    /// Takes back one way added before (its ticket cancelled or voided, rules 8, 17.2).
    pub fn remove(&mut self, rules: &RuleSet, way: &WayInPlay, bonus: &[u64]) {
        self.apply(rules, (way, bonus), false);
    }

    fn apply(&mut self, rules: &RuleSet, (way, bonus): (&WayInPlay, &[u64]), add: bool) {
        let prizes = rules.way_prizes_with(way, bonus);
        if prizes.iter().all(|&p| p == 0) {
            return;
        }
        let major = rules.caps().major_prize_cents;
        for (i, draw) in self.draws.iter().enumerate() {
            let prize = prizes[way.numbers.count_common(*draw) as usize];
            if prize == 0 {
                continue;
            }
            match (is_major_prize(prize, major), add) {
                (false, true) => self.minor_cents[i] += prize,
                (false, false) => self.minor_cents[i] = self.minor_cents[i].saturating_sub(prize),
                (true, true) => self.majors[i].push(prize),
                (true, false) => {
                    if let Some(at) = self.majors[i].iter().position(|&p| p == prize) {
                        self.majors[i].swap_remove(at);
                    }
                }
            }
        }
    }

    /// What each draw of the sample would pay, the majors pro-rated (rules 12.3-12.5).
    pub fn payouts(&self, rules: &RuleSet) -> Vec<u64> {
        let caps = rules.caps();
        self.minor_cents
            .iter()
            .zip(&self.majors)
            .map(|(&minor, majors)| {
                let paid: u64 = if majors.is_empty() {
                    0
                } else {
                    prorate(majors, caps.game_major_prizes_cents, caps.major_prize_cents)
                        .amounts
                        .iter()
                        .sum()
                };
                minor.saturating_add(paid)
            })
            .collect()
    }

    /// The payout at each of `per_mille` (nearest-rank percentiles) and the largest.
    pub fn curve(&self, rules: &RuleSet, per_mille: &[u32]) -> Curve {
        let mut payouts = self.payouts(rules);
        payouts.sort_unstable();
        let n = payouts.len();
        let at = |p: u32| -> u64 {
            if n == 0 {
                return 0;
            }
            // Nearest rank: the smallest payout with at least p/1000 of the draws at or below.
            let rank = (u64::from(p) * n as u64).div_ceil(1000).max(1) as usize;
            payouts[rank.min(n) - 1]
        };
        Curve {
            draws: n,
            largest_cents: payouts.last().copied().unwrap_or(0),
            percentiles: per_mille
                .iter()
                .map(|&p| Percentile {
                    per_mille: p,
                    payout_cents: at(p),
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Draw;
    use crate::schedule::ScheduleId;
    use crate::Exposure;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    fn way(numbers: &[u8], amount: u64) -> WayInPlay {
        let numbers = NumberSet::from_numbers(numbers).unwrap();
        WayInPlay {
            plays_under: RuleSet::act_1992()
                .plays_as(ScheduleId::Standard, numbers.len())
                .unwrap(),
            numbers,
            amount_per_way_cents: amount,
        }
    }

    fn sample(n: usize, seed: u64) -> Vec<NumberSet> {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        (0..n)
            .map(|_| {
                Draw::new(&crate::random::distinct_numbers(&mut rng, 20))
                    .unwrap()
                    .set()
            })
            .collect()
    }

    #[test]
    fn each_draw_pays_what_settling_the_ways_against_it_would() {
        let rules = RuleSet::act_1992();
        let draws = sample(200, 7);
        let ways = [
            way(&[1, 2, 3, 4], 100),
            way(&[5], 300),
            way(&[1, 9, 17, 25, 33, 41, 49, 57, 65, 73], 500),
        ];
        let mut sim = Simulation::new(draws.clone());
        for w in &ways {
            sim.add(&rules, w, &[]);
        }
        let payouts = sim.payouts(&rules);
        for (draw, paid) in draws.iter().zip(&payouts) {
            let by_hand: u64 = ways
                .iter()
                .map(|w| rules.way_prizes(w)[w.numbers.count_common(*draw) as usize])
                .sum();
            assert_eq!(*paid, by_hand, "no majors here: nothing is pro-rated");
        }
        // Taking the ways back leaves nothing.
        for w in &ways {
            sim.remove(&rules, w, &[]);
        }
        assert!(sim.payouts(&rules).iter().all(|&p| p == 0));
    }

    #[test]
    fn no_simulated_draw_pays_more_than_the_worst_case_bound() {
        let rules = RuleSet::act_1992();
        let mut rng = ChaCha20Rng::seed_from_u64(11);
        let mut sim = Simulation::new(sample(2_000, 3));
        let mut game = Exposure::default();
        for i in 0..400u32 {
            let spots = (i % 10 + 1) as u8;
            let numbers = crate::random::distinct_numbers(&mut rng, spots as usize);
            let w = way(&numbers, u64::from(i % 7 + 1) * 100);
            sim.add(&rules, &w, &[]);
            game.add(&w, &rules.way_exposure(&w));
        }
        let curve = sim.curve(&rules, &[500, 900, 990, 999, 1000]);
        assert!(curve.largest_cents <= game.worst_case(&rules, 0));
        assert!(curve.largest_cents > 0);
        let points: Vec<u64> = curve.percentiles.iter().map(|p| p.payout_cents).collect();
        assert!(points.windows(2).all(|w| w[0] <= w[1]), "{points:?}");
        assert_eq!(*points.last().unwrap(), curve.largest_cents);
        // The sample's mean is near the exact expectation (400 ways, 2,000 draws).
        let mean = sim.payouts(&rules).iter().sum::<u64>() / 2_000;
        let expected = game.expected_cents();
        assert!(
            mean.abs_diff(expected) * 5 < expected,
            "mean {mean}, expected {expected}"
        );
    }

    #[test]
    fn majors_are_pro_rated_per_draw() {
        let rules = RuleSet::act_1992();
        let caps = rules.caps();
        // One draw; 10-spots on its own numbers win the all-catch prize, capped per way.
        let drawn: Vec<u8> = (1..=20).collect();
        let mut sim = Simulation::new(vec![NumberSet::from_numbers(&drawn).unwrap()]);
        let winners = (caps.game_major_prizes_cents / caps.per_way_cents + 3) as usize;
        for _ in 0..winners {
            sim.add(&rules, &way(&drawn[..10], 1_000_000), &[]);
        }
        let paid = sim.payouts(&rules)[0];
        assert_eq!(
            paid,
            caps.game_major_prizes_cents
                .max(winners as u64 * caps.major_prize_cents)
        );
    }
}
