//! Pairs: does each of the 3,160 pairs of numbers come up together as often as any other?
//!
//! A pair's count departs from its expectation (draws x C(20,2)/C(80,2)) for two reasons: its
//! numbers' own frequencies, and how the numbers go together. The first part is the sum of a
//! per-number deviation for each of its two numbers (79 dimensions: what the frequency test
//! sees); the test removes it and is Pearson's chi-square on the rest (3,080 dimensions), scaled
//! for drawing without replacement. Under independence that is chi-square with 3,080 degrees of
//! freedom. The plain Pearson sum over the 3,160 pairs is not chi-square with 3,159: its 79
//! dimensions along the frequencies count 14.6 times what a chi-square's would (the other
//! 3,080 0.59 times), so it mostly repeats the frequency test, and it averages 2,970.

use super::p_values::chi_square_upper;
use super::{Numbers, Outcome, BOARD, DRAWN};

/// Degrees of freedom: C(80,2) pairs less the 80 per-number dimensions.
pub const DF: f64 = (BOARD * (BOARD - 3) / 2) as f64;

pub struct Pairs {
    draws: u64,
    /// `counts[a][b]`, a < b (numbers less one): draws with both.
    counts: Box<[[u64; BOARD]; BOARD]>,
}

impl Default for Pairs {
    fn default() -> Pairs {
        Pairs {
            draws: 0,
            counts: Box::new([[0; BOARD]; BOARD]),
        }
    }
}

/// The chance that a given pair is in a draw: C(20,2)/C(80,2).
fn pair_chance() -> f64 {
    (DRAWN * (DRAWN - 1)) as f64 / (BOARD * (BOARD - 1)) as f64
}

/// What a pair's count varies by beyond its numbers' frequencies, relative to the
/// multinomial's: the covariance of the pair counts on the 3,080 dimensions, divided by the
/// expectation, is (80-20)(80-21) / ((80-2)(80-3)) (about 0.589).
fn without_replacement_factor() -> f64 {
    ((BOARD - DRAWN) * (BOARD - DRAWN - 1)) as f64 / ((BOARD - 2) * (BOARD - 3)) as f64
}

impl Pairs {
    pub fn add(&mut self, draw: &Numbers) {
        self.draws += 1;
        let mut sorted = *draw;
        sorted.sort_unstable();
        for (i, &a) in sorted.iter().enumerate() {
            let row = &mut self.counts[usize::from(a) - 1];
            for &b in &sorted[i + 1..] {
                row[usize::from(b) - 1] += 1;
            }
        }
    }

    /// Each pair's count less its expectation, `d[a][b]` for a < b.
    fn deviations(&self) -> Vec<(usize, usize, f64)> {
        let expected = self.draws as f64 * pair_chance();
        let mut d = Vec::with_capacity(BOARD * (BOARD - 1) / 2);
        for a in 0..BOARD {
            for b in a + 1..BOARD {
                d.push((a, b, self.counts[a][b] as f64 - expected));
            }
        }
        d
    }

    /// The chi-square on what the frequencies do not explain. The deviations' least-squares
    /// fit by per-number terms (d[a][b] ~ f[a] + f[b]) is f = row sums / (80 - 2) (the
    /// deviations sum to zero), and its sum of squares is sum(row sums^2) / (80 - 2): what is
    /// left is the sum of squares less that.
    pub fn statistic(&self) -> f64 {
        let mut squares = 0.0;
        let mut rows = [0.0; BOARD];
        for (a, b, d) in self.deviations() {
            squares += d * d;
            rows[a] += d;
            rows[b] += d;
        }
        let explained = rows.iter().map(|r| r * r).sum::<f64>() / (BOARD - 2) as f64;
        let expected = self.draws as f64 * pair_chance();
        (squares - explained) / expected / without_replacement_factor()
    }

    pub fn outcome(&self) -> Outcome {
        let statistic = self.statistic();
        Outcome {
            name: "pairs",
            statistic: format!(
                "chi-square {statistic:.2}, {DF} df (3160 pairs, each expected in {:.1} draws)",
                self.draws as f64 * pair_chance()
            ),
            p_value: chi_square_upper(statistic, DF),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::seeded_draws;
    use super::*;

    /// A table of counts made from a function of the pair; `draws` makes the expectation.
    fn table(draws: u64, count: impl Fn(usize, usize) -> f64) -> Pairs {
        let mut p = Pairs {
            draws,
            ..Pairs::default()
        };
        for a in 0..BOARD {
            for b in a + 1..BOARD {
                p.counts[a][b] = count(a, b) as u64;
            }
        }
        p
    }

    #[test]
    fn counts_every_pair_of_a_draw_once() {
        let mut p = Pairs::default();
        let draw: Numbers = std::array::from_fn(|i| 80 - 3 * i as u8);
        p.add(&draw);
        let total: u64 = p.counts.iter().flatten().sum();
        assert_eq!(total, 190);
        assert_eq!(p.counts[22][79], 1); // 23 and 80
        assert_eq!(p.counts[79][22], 0); // kept once, smaller number first
    }

    #[test]
    fn every_pair_as_expected_gives_zero() {
        // 316 draws: each pair expected 316 x 380/6320 = 19 times.
        let p = table(316, |_, _| 19.0);
        assert_eq!(p.statistic(), 0.0);
        assert_eq!(p.outcome().p_value, 1.0);
    }

    #[test]
    fn deviations_explained_by_the_numbers_frequencies_count_nothing() {
        // Count = expected + f(a) + f(b), f summing to zero: the frequency test's business.
        let f = |a: usize| if a < 40 { 3.0 } else { -3.0 };
        let p = table(316, |a, b| 19.0 + f(a) + f(b));
        assert!(p.statistic().abs() < 1e-9, "{}", p.statistic());
    }

    #[test]
    fn what_is_left_has_no_per_number_part_and_gives_the_statistic() {
        let mut p = Pairs::default();
        for draw in seeded_draws(3, 500) {
            p.add(&draw);
        }
        // The residual d[a][b] - (r[a] + r[b]) / 78 computed pair by pair: its row sums are
        // zero (nothing per number left) and its sum of squares is the statistic's numerator.
        let d = p.deviations();
        let mut rows = [0.0; BOARD];
        for &(a, b, x) in &d {
            rows[a] += x;
            rows[b] += x;
        }
        let mut residual_rows = [0.0; BOARD];
        let mut squares = 0.0;
        for &(a, b, x) in &d {
            let r = x - (rows[a] + rows[b]) / 78.0;
            residual_rows[a] += r;
            residual_rows[b] += r;
            squares += r * r;
        }
        assert!(
            residual_rows.iter().all(|r| r.abs() < 1e-6),
            "{residual_rows:?}"
        );
        let expected = 500.0 * 380.0 / 6320.0;
        let statistic = squares / expected / (60.0 * 59.0 / (78.0 * 77.0));
        assert!((p.statistic() - statistic).abs() < 1e-6 * statistic);
    }

    #[test]
    fn a_favoured_pair_fails() {
        // 1 and 2 together in every draw, the other 18 numbers from a sound generator.
        let mut p = Pairs::default();
        for mut draw in seeded_draws(4, 2_000) {
            let others: Vec<u8> = draw.iter().copied().filter(|&n| n > 2).collect();
            draw[..2].copy_from_slice(&[1, 2]);
            draw[2..].copy_from_slice(&others[..18]);
            p.add(&draw);
        }
        let outcome = p.outcome();
        assert!(!outcome.passed(), "{outcome:?}");
    }
}
