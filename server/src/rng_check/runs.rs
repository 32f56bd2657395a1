//! Runs: do draws with a sum above 810 and below it alternate as often as chance would have
//! them? Too few runs means draws cling to their predecessor; too many, that they swing back.
//! The Wald-Wolfowitz runs test, leaving out draws whose sum is exactly 810.

use super::p_values::normal_two_sided;
use super::{Outcome, MEAN_SUM};

#[derive(Default)]
pub struct Runs {
    above: u64,
    below: u64,
    runs: u64,
    last_above: Option<bool>,
}

impl Runs {
    /// The next draw's sum.
    pub fn add(&mut self, sum: u32) {
        if sum == MEAN_SUM {
            return;
        }
        let above = sum > MEAN_SUM;
        if self.last_above != Some(above) {
            self.runs += 1;
        }
        self.last_above = Some(above);
        if above {
            self.above += 1;
        } else {
            self.below += 1;
        }
    }

    /// (runs - mean) / standard deviation, the mean and variance of the number of runs given
    /// how many are above and below; none when all are on one side.
    pub fn z(&self) -> Option<f64> {
        let (a, b) = (self.above as f64, self.below as f64);
        let n = a + b;
        if self.above == 0 || self.below == 0 {
            return None;
        }
        let mean = 2.0 * a * b / n + 1.0;
        let variance = 2.0 * a * b * (2.0 * a * b - n) / (n * n * (n - 1.0));
        Some((self.runs as f64 - mean) / variance.sqrt())
    }

    pub fn outcome(&self) -> Outcome {
        let counts = format!(
            "{} runs; {} draws above {MEAN_SUM}, {} below",
            self.runs, self.above, self.below
        );
        let (statistic, p_value) = match self.z() {
            Some(z) => (format!("z {z:.3} ({counts})"), normal_two_sided(z)),
            None => (format!("every draw on one side ({counts})"), 0.0),
        };
        Outcome {
            name: "runs",
            statistic,
            p_value,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs_of(sides: &str) -> Runs {
        let mut r = Runs::default();
        for c in sides.chars() {
            r.add(match c {
                'A' => 900,
                'B' => 700,
                _ => MEAN_SUM,
            });
        }
        r
    }

    #[test]
    fn ten_above_ten_below_in_four_runs() {
        // Mean 11 runs, variance 2x10x10x(200-20)/(20^2 x 19) = 4.7368.
        let r = runs_of("AAAAABBBBBAAAAABBBBB");
        assert_eq!((r.runs, r.above, r.below), (4, 10, 10));
        let z = r.z().unwrap();
        assert!(
            (z - (4.0 - 11.0) / (36_000.0_f64 / 7_600.0).sqrt()).abs() < 1e-12,
            "{z}"
        );
        let p = r.outcome().p_value;
        assert!((p - 0.001_30).abs() < 2e-5, "{p}");
        assert!(!r.outcome().passed_at(crate::rng_check::ALPHA));
    }

    #[test]
    fn the_expected_number_of_runs_gives_z_0_and_sums_of_810_are_left_out() {
        let r = runs_of("AABBBAAB=A=");
        assert_eq!((r.runs, r.above, r.below), (5, 5, 4));
        // Mean 2x5x4/9 + 1 = 5.44: a little under.
        assert!(r.z().unwrap() < 0.0 && r.outcome().passed_at(crate::rng_check::ALPHA));
        let even = runs_of("AABBABABBA");
        assert_eq!(even.runs, 7);
        // Mean 2x5x5/10 + 1 = 6: one run more than expected.
        assert!(even.z().unwrap() > 0.0 && even.outcome().passed_at(crate::rng_check::ALPHA));
    }

    #[test]
    fn strict_alternation_and_all_on_one_side_fail() {
        let alternating = runs_of(&"AB".repeat(50));
        assert!(alternating.z().unwrap() > 9.0);
        assert!(!alternating.outcome().passed_at(crate::rng_check::ALPHA));
        let one_side = runs_of(&"A".repeat(100));
        assert_eq!(one_side.z(), None);
        assert!(!one_side.outcome().passed_at(crate::rng_check::ALPHA));
    }
}
