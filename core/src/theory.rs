//! Theoretical return to player: the exact hypergeometric odds of each catch times its prize.
//!
//! Every probability is an exact fraction over C(80,20) draws, and a return is an exact
//! fraction too (integers in `u128`; the rule set bounds money so nothing overflows). Only the
//! printed percentage is rounded, half up, to 4 decimals.

use std::fmt::Write;

use crate::board::MAX_SPOTS;
use crate::money::Dollars;
use crate::rules::RuleSet;
use crate::schedule::{Pay, ScheduleId};

/// C(80, 20): the number of equally likely draws.
pub const DRAWS: u64 = 3_535_316_142_212_174_320;

/// Binomial coefficient, exact for the board's sizes.
pub fn binomial(n: u64, k: u64) -> u64 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    let mut acc: u128 = 1;
    for i in 0..k {
        acc = acc * u128::from(n - i) / u128::from(i + 1);
    }
    acc as u64
}

/// Draws (out of [`DRAWS`]) in which a way of `spots` catches exactly `catch`.
pub fn catch_draws(spots: u8, catch: u8) -> u64 {
    let (s, c) = (u64::from(spots), u64::from(catch));
    if c > s || c > 20 || 20 - c > 80 - s {
        return 0;
    }
    binomial(s, c) * binomial(80 - s, 20 - c)
}

/// An exact non-negative fraction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fraction {
    pub numerator: u128,
    pub denominator: u128,
}

impl Fraction {
    /// As a percentage rounded half up to `decimals` places, e.g. "72.7738%".
    pub fn percent(&self, decimals: u32) -> String {
        let mut digits = self.scaled(2 + decimals).to_string();
        let d = decimals as usize;
        if digits.len() <= d {
            digits = format!("{}{digits}", "0".repeat(d + 1 - digits.len()));
        }
        let (whole, frac) = digits.split_at(digits.len() - d);
        if d == 0 {
            format!("{whole}%")
        } else {
            format!("{whole}.{frac}%")
        }
    }

    /// `round(value * 10^places)`, half up, by long division so no product overflows.
    fn scaled(&self, places: u32) -> u128 {
        let den = self.denominator;
        let mut q = self.numerator / den;
        let mut r = self.numerator % den;
        for _ in 0..places {
            q = q * 10 + r * 10 / den;
            r = r * 10 % den;
        }
        if r * 2 >= den {
            q += 1;
        }
        q
    }

    fn add(self, other: Fraction) -> Fraction {
        Fraction {
            numerator: self.numerator * other.denominator + other.numerator * self.denominator,
            denominator: self.denominator * other.denominator,
        }
    }
}

/// One catch of a column: how likely it is and what it pays at the base wager.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CatchOdds {
    pub catch: u8,
    /// Out of [`DRAWS`].
    pub draws: u64,
    /// At the base wager; for the jackpot all-catch, the guaranteed minimum.
    pub prize_cents: u64,
    pub jackpot: bool,
}

impl CatchOdds {
    pub fn probability(&self) -> Fraction {
        Fraction {
            numerator: u128::from(self.draws),
            denominator: u128::from(DRAWS),
        }
    }
}

/// The theoretical return of one schedule and spot count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnReturn {
    pub schedule: ScheduleId,
    pub spots: u8,
    /// The schedule whose prizes apply (Standard 6 spots plays Special 1).
    pub plays_under: ScheduleId,
    pub base_wager_cents: u64,
    pub catches: Vec<CatchOdds>,
    /// Prizes over the wager, the jackpot all-catch counted at its guaranteed minimum.
    pub prizes: Fraction,
    /// The share of each wager added to the jackpot pool (rule 7.3), returned when it is won.
    pub jackpot_contribution: Option<Fraction>,
}

impl ColumnReturn {
    /// Prizes plus the jackpot contribution: the long-run return to players.
    pub fn total(&self) -> Fraction {
        match self.jackpot_contribution {
            Some(c) => self.prizes.add(c),
            None => self.prizes,
        }
    }
}

impl RuleSet {
    /// The theoretical return of `schedule` for `spots`, or `None` if not offered.
    pub fn theoretical_return(&self, schedule: ScheduleId, spots: u8) -> Option<ColumnReturn> {
        let plays_under = self.plays_as(schedule, spots)?;
        let table = self.prize_table();
        let jackpot = self
            .jackpot_type(spots)
            .filter(|_| plays_under == ScheduleId::Jackpot);
        let catches: Vec<CatchOdds> = (0..=spots)
            .map(|catch| {
                let (prize_cents, jackpot_win) = match table.pay(plays_under, spots, catch) {
                    Some(Pay::JackpotPool) => (jackpot.map_or(0, |j| j.guaranteed_cents), true),
                    Some(Pay::Cents(c)) => (c, false),
                    None => (0, false),
                };
                CatchOdds {
                    catch,
                    draws: catch_draws(spots, catch),
                    prize_cents,
                    jackpot: jackpot_win,
                }
            })
            .collect();
        let base = table.base_wager_cents(plays_under);
        let prizes = Fraction {
            numerator: catches
                .iter()
                .map(|c| u128::from(c.prize_cents) * u128::from(c.draws))
                .sum(),
            denominator: u128::from(base) * u128::from(DRAWS),
        };
        Some(ColumnReturn {
            schedule,
            spots,
            plays_under,
            base_wager_cents: base,
            catches,
            prizes,
            jackpot_contribution: jackpot.map(|j| Fraction {
                numerator: u128::from(j.contribution_basis_points),
                denominator: 10_000,
            }),
        })
    }

    /// Every offered schedule and spot count, in schedule then spot order.
    pub fn return_table(&self) -> Vec<ColumnReturn> {
        ScheduleId::ALL
            .into_iter()
            .flat_map(|s| (1..=MAX_SPOTS).filter_map(move |n| self.theoretical_return(s, n)))
            .collect()
    }

    /// The report printed by `keno-server rules return`; with `catches`, the odds of each catch.
    pub fn return_report(&self, catches: bool) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "Theoretical return to player: {}", self.name());
        let _ = writeln!(
            out,
            "Exact hypergeometric odds over C(80,20) = {DRAWS} draws; jackpot all-catch at its guaranteed minimum."
        );
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "{:<10} {:>5}  {:<10} {:>6}  {:>9}  {:>9}  {:>9}",
            "schedule", "spots", "plays as", "base", "prizes", "to pool", "return"
        );
        for row in self.return_table() {
            let plays_as = if row.plays_under == row.schedule {
                String::new()
            } else {
                row.plays_under.to_string()
            };
            let to_pool = row
                .jackpot_contribution
                .map_or_else(String::new, |c| c.percent(4));
            let _ = writeln!(
                out,
                "{:<10} {:>5}  {:<10} {:>6}  {:>9}  {:>9}  {:>9}",
                row.schedule.to_string(),
                row.spots,
                plays_as,
                Dollars(row.base_wager_cents).to_string(),
                row.prizes.percent(4),
                to_pool,
                row.total().percent(4)
            );
            if catches {
                for c in row.catches.iter().filter(|c| c.draws > 0) {
                    let one_in = Fraction {
                        numerator: u128::from(DRAWS),
                        denominator: u128::from(c.draws),
                    };
                    let _ =
                        writeln!(
                        out,
                        "{:>18} catch {:>2}: probability {:>19}/{DRAWS} = 1 in {:>22}  pays {}{}",
                        "",
                        c.catch,
                        c.draws,
                        ratio_2dp(one_in),
                        Dollars(c.prize_cents),
                        if c.jackpot { " (jackpot pool, at least)" } else { "" }
                    );
                }
            }
        }
        out
    }
}

fn ratio_2dp(f: Fraction) -> String {
    let scaled = f.scaled(2);
    format!("{}.{:02}", scaled / 100, scaled % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_is_c_80_20_and_catches_sum_to_it() {
        assert_eq!(binomial(80, 20), DRAWS);
        for spots in 1..=15u8 {
            let total: u64 = (0..=spots).map(|c| catch_draws(spots, c)).sum();
            assert_eq!(total, DRAWS, "{spots} spots");
        }
    }

    #[test]
    fn known_odds() {
        // 1 spot catches 1 in 4 games exactly.
        assert_eq!(catch_draws(1, 1) * 4, DRAWS);
        // 15 of 15: C(65,5) draws.
        assert_eq!(catch_draws(15, 15), binomial(65, 5));
    }

    #[test]
    fn percent_rounds_half_up_at_four_decimals() {
        let f = |n, d| Fraction {
            numerator: n,
            denominator: d,
        };
        assert_eq!(f(3, 4).percent(4), "75.0000%");
        assert_eq!(f(1, 3).percent(4), "33.3333%");
        assert_eq!(f(2, 3).percent(4), "66.6667%");
        assert_eq!(f(1, 2_000_000).percent(4), "0.0001%"); // 0.00005% rounds up
        assert_eq!(f(0, 7).percent(4), "0.0000%");
        assert_eq!(f(21, 20).percent(2), "105.00%");
    }

    #[test]
    fn act_1992_returns_are_about_73_percent_for_every_column() {
        let rules = RuleSet::act_1992();
        // Rule 18.1, 1 spot: pays $3 at 1 in 4.
        let one = rules.theoretical_return(ScheduleId::Standard, 1).unwrap();
        assert_eq!(one.total().percent(4), "75.0000%");
        for row in rules.return_table() {
            let pct = row.total().scaled(2 + 4); // in ten-thousandths of a percent
            assert!(
                (720_000..=760_000).contains(&pct),
                "{} {} spots returns {}",
                row.schedule,
                row.spots,
                row.total().percent(4)
            );
        }
    }

    #[test]
    fn jackpot_return_counts_the_guaranteed_minimum_and_the_contribution() {
        let rules = RuleSet::act_1992();
        let j = rules.theoretical_return(ScheduleId::Jackpot, 6).unwrap();
        assert!(j.catches[6].jackpot);
        assert_eq!(j.catches[6].prize_cents, 200_000);
        assert_eq!(j.jackpot_contribution.unwrap().percent(4), "20.0000%");
        // The interpretation's arithmetic: about 52.8% in prizes + 20% to the pool.
        assert_eq!(j.prizes.percent(1), "52.8%");
        assert_eq!(j.total().percent(1), "72.8%");
    }
}
