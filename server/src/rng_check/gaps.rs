//! Gaps: how many draws pass between two appearances of a number? Each draw holds a number
//! with chance 1/4 whatever came before, so the gap is geometric: 1 draw (the very next) with
//! chance 1/4, g draws with chance (3/4)^(g-1)/4. Pearson's chi-square of the gaps of all 80
//! numbers against that, gaps from the tail on pooled in one bin.

use super::p_values::{chi_square_upper, pearson};
use super::{Numbers, Outcome, BOARD, DRAWN};

/// Gaps this long or longer are counted together (the tail starts well before).
const LONGEST: usize = 256;

/// The least any bin may expect.
const MIN_EXPECTED: f64 = 5.0;

/// The chance that a draw holds a given number.
const P: f64 = DRAWN as f64 / BOARD as f64;

pub struct Gaps {
    draws: u64,
    /// The draw (counting from 1) each number was last seen in; 0 for not yet.
    last_seen: [u64; BOARD],
    /// `lengths[g]`: gaps of g draws (`LONGEST` and more in the last).
    lengths: [u64; LONGEST + 1],
}

impl Default for Gaps {
    fn default() -> Gaps {
        Gaps {
            draws: 0,
            last_seen: [0; BOARD],
            lengths: [0; LONGEST + 1],
        }
    }
}

/// The chance of a gap of exactly g draws.
fn chance(g: usize) -> f64 {
    P * (1.0 - P).powi(g as i32 - 1)
}

/// The chance of a gap of g draws or more.
fn chance_from(g: usize) -> f64 {
    (1.0 - P).powi(g as i32 - 1)
}

/// Where the tail bin starts for `total` gaps: gaps 1 .. tail-1 each have their own bin, and
/// every bin expects at least 5 (the tail expects 3 times the last bin before it).
pub fn tail_start(total: u64) -> usize {
    let mut tail = 2;
    while tail < LONGEST && total as f64 * chance(tail) >= MIN_EXPECTED {
        tail += 1;
    }
    tail
}

/// Pearson's chi-square of gap counts (`lengths[g]`, index 0 unused) against the geometric
/// distribution, bins 1 .. tail-1 and tail-and-more; and its degrees of freedom (bins less 1).
pub fn chi_square(lengths: &[u64], tail: usize) -> (f64, usize) {
    let total: u64 = lengths.iter().sum();
    let t = total as f64;
    let singles = (1..tail).map(|g| (lengths[g] as f64, t * chance(g)));
    let pooled: u64 = lengths[tail..].iter().sum();
    let statistic = pearson(singles.chain([(pooled as f64, t * chance_from(tail))]));
    (statistic, tail - 1)
}

impl Gaps {
    pub fn add(&mut self, draw: &Numbers) {
        self.draws += 1;
        for &n in draw {
            let last = &mut self.last_seen[usize::from(n) - 1];
            if *last > 0 {
                let gap = (self.draws - *last).min(LONGEST as u64);
                self.lengths[gap as usize] += 1;
            }
            *last = self.draws;
        }
    }

    /// The chi-square and its degrees of freedom, the tail placed for the gaps seen.
    pub fn statistic(&self) -> (f64, usize) {
        chi_square(&self.lengths, tail_start(self.lengths.iter().sum()))
    }

    pub fn outcome(&self) -> Outcome {
        let total: u64 = self.lengths.iter().sum();
        let (statistic, df) = self.statistic();
        let tail = df + 1;
        Outcome {
            name: "gaps",
            statistic: format!(
                "chi-square {statistic:.2}, {df} df ({total} gaps; 1 to {} draws, and {tail} or more)",
                tail - 1
            ),
            p_value: chi_square_upper(statistic, df as f64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_are_counted_between_appearances_of_each_number() {
        let mut g = Gaps::default();
        let low: Numbers = std::array::from_fn(|i| 1 + i as u8);
        let high: Numbers = std::array::from_fn(|i| 61 + i as u8);
        let mixed: Numbers = std::array::from_fn(|i| 11 + i as u8); // 11..=30
        for d in [low, high, mixed, low] {
            g.add(&d);
        }
        // Draws 1 and 4: 1..=10 have a gap of 3; 11..=20 gaps of 2 (draws 1, 3) and 1
        // (draws 3, 4); 21..=30 and 61..=80 appear once: no gap.
        assert_eq!(g.lengths[1], 10);
        assert_eq!(g.lengths[2], 10);
        assert_eq!(g.lengths[3], 10);
        assert_eq!(g.lengths.iter().sum::<u64>(), 30);
    }

    #[test]
    fn exactly_geometric_gaps_give_zero() {
        // 4^12 gaps: g has 3^(g-1) 4^(12-g) of them for g = 1..=12, and 3^12 are longer.
        let mut lengths = [0u64; LONGEST + 1];
        for (g, count) in lengths.iter_mut().enumerate().take(13).skip(1) {
            *count = 3u64.pow(g as u32 - 1) * 4u64.pow(12 - g as u32);
        }
        lengths[13] = 3u64.pow(12);
        assert_eq!(lengths.iter().sum::<u64>(), 4u64.pow(12));
        let (statistic, df) = chi_square(&lengths, 13);
        assert!(statistic.abs() < 1e-9, "{statistic}");
        assert_eq!(df, 12);
    }

    #[test]
    fn a_known_two_bin_value() {
        // 100 gaps: 30 of one draw (25 expected), 70 longer (75 expected).
        let mut lengths = [0u64; LONGEST + 1];
        lengths[1] = 30;
        lengths[5] = 70;
        let (statistic, df) = chi_square(&lengths, 2);
        assert!((statistic - (1.0 + 25.0 / 75.0)).abs() < 1e-12);
        assert_eq!(df, 1);
        // chi-square 4/3 with 1 df: P(|Z| > 1.1547) = 0.2482.
        assert!((chi_square_upper(statistic, 1.0) - 0.2482).abs() < 1e-4);
    }

    #[test]
    fn the_tail_starts_where_a_single_gap_length_would_expect_under_5() {
        // 4,000 gaps: length 19 expects 1000 x 0.75^18 = 5.6, length 20 expects 4.2.
        assert_eq!(tail_start(4_000), 20);
        assert_eq!(tail_start(0), 2);
        // Even 2^64 gaps start the tail before the longest gap counted on its own.
        assert!(tail_start(u64::MAX) < LONGEST);
    }

    #[test]
    fn draws_taking_turns_fail() {
        // Two draws alternating: every gap is 2.
        let mut g = Gaps::default();
        let a: Numbers = std::array::from_fn(|i| 1 + i as u8);
        let b: Numbers = std::array::from_fn(|i| 21 + i as u8);
        for i in 0..200 {
            g.add(if i % 2 == 0 { &a } else { &b });
        }
        assert_eq!(g.lengths[2], 40 * 99);
        assert!(!g.outcome().passed_at(crate::rng_check::ALPHA));
    }
}
