//! Frequency: is each number drawn a quarter of the time?

use super::p_values::{chi_square_upper, pearson};
use super::{Numbers, Outcome, BOARD, DRAWN};

/// Degrees of freedom: 80 counts with a fixed total.
pub const DF: f64 = (BOARD - 1) as f64;

pub struct Frequency {
    draws: u64,
    counts: [u64; BOARD],
}

impl Default for Frequency {
    fn default() -> Frequency {
        Frequency {
            draws: 0,
            counts: [0; BOARD],
        }
    }
}

impl Frequency {
    pub fn add(&mut self, draw: &Numbers) {
        self.draws += 1;
        for &n in draw {
            self.counts[usize::from(n) - 1] += 1;
        }
    }

    /// Pearson's chi-square over the 80 numbers, each expected in draws x 20/80 draws, scaled by
    /// (80 - 1)/(80 - 20). The scaling is for drawing without replacement: a draw's 20 numbers
    /// are distinct, so each count varies less than in 20 independent picks (variance
    /// draws x 1/4 x 3/4 instead of draws x 20 x 1/80 x 79/80), and the plain sum would average
    /// 60 rather than 79. Scaled, it is chi-square with 79 degrees of freedom.
    pub fn statistic(&self) -> f64 {
        let expected = self.draws as f64 * DRAWN as f64 / BOARD as f64;
        let plain = pearson(self.counts.iter().map(|&c| (c as f64, expected)));
        plain * (BOARD - 1) as f64 / (BOARD - DRAWN) as f64
    }

    pub fn outcome(&self) -> Outcome {
        let (lowest, highest) = (
            self.counts.iter().min().unwrap(),
            self.counts.iter().max().unwrap(),
        );
        let statistic = self.statistic();
        Outcome {
            name: "frequency",
            statistic: format!(
                "chi-square {statistic:.2}, {DF} df (each number drawn {lowest} to {highest} times)"
            ),
            p_value: chi_square_upper(statistic, DF),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draw(first: u8) -> Numbers {
        std::array::from_fn(|i| first + i as u8)
    }

    #[test]
    fn every_number_equally_often_gives_zero_and_p_1() {
        let mut f = Frequency::default();
        for first in [1, 21, 41, 61] {
            f.add(&draw(first));
        }
        assert_eq!(f.counts, [1; 80]);
        assert_eq!(f.statistic(), 0.0);
        assert_eq!(f.outcome().p_value, 1.0);
    }

    #[test]
    fn half_the_numbers_twice_and_half_never() {
        // Four draws: 1..=40 twice each, 41..=80 never. Expected 1 each: the plain sum is
        // 40 x 1 + 40 x 1 = 80, scaled by 79/60.
        let mut f = Frequency::default();
        for first in [1, 21, 1, 21] {
            f.add(&draw(first));
        }
        assert!((f.statistic() - 80.0 * 79.0 / 60.0).abs() < 1e-9);
        let outcome = f.outcome();
        assert!(outcome.statistic.contains("0 to 2 times"), "{outcome:?}");
        // 105.3 with 79 df: between the 5% (100.7) and 2% points.
        assert!((0.02..0.05).contains(&outcome.p_value), "{outcome:?}");
        assert!(outcome.passed());
    }

    #[test]
    fn number_1_in_every_draw_fails() {
        let mut f = Frequency::default();
        for i in 0..400u32 {
            let mut d = draw(2 + (i % 4) as u8 * 19);
            d[0] = 1;
            f.add(&d);
        }
        assert!(!f.outcome().passed());
    }
}
