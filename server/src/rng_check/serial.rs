//! Serial correlation: does a draw's sum say anything about the next draw's? The lag-1
//! correlation of the draws' sums, taken about their known mean 810.

use super::p_values::normal_two_sided;
use super::{Outcome, MEAN_SUM};

#[derive(Default)]
pub struct Serial {
    draws: u64,
    previous: Option<i64>,
    /// Sum of (sum - 810)^2 over the draws.
    squares: i64,
    /// Sum of (sum - 810)(next sum - 810) over consecutive draws.
    products: i64,
}

impl Serial {
    /// The next draw's sum.
    pub fn add(&mut self, sum: u32) {
        let y = i64::from(sum) - i64::from(MEAN_SUM);
        self.draws += 1;
        self.squares += y * y;
        if let Some(p) = self.previous {
            self.products += p * y;
        }
        self.previous = Some(y);
    }

    /// The lag-1 correlation r; none when every sum is 810.
    pub fn correlation(&self) -> Option<f64> {
        (self.squares > 0).then(|| self.products as f64 / self.squares as f64)
    }

    /// Under independence the products sum to 0 with variance (n-1) s^4 and the squares to
    /// about n s^2, so r n / sqrt(n-1) is about standard normal.
    pub fn z(&self) -> Option<f64> {
        let n = self.draws as f64;
        self.correlation().map(|r| r * n / (n - 1.0).sqrt())
    }

    pub fn outcome(&self) -> Outcome {
        let (statistic, p_value) = match (self.correlation(), self.z()) {
            (Some(r), Some(z)) => (
                format!("z {z:.3} (lag-1 correlation of draw sums r = {r:.5})"),
                normal_two_sided(z),
            ),
            _ => (format!("every draw sums to {MEAN_SUM}"), 0.0),
        };
        Outcome {
            name: "serial",
            statistic,
            p_value,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serial_of(sums: &[u32]) -> Serial {
        let mut s = Serial::default();
        for &x in sums {
            s.add(x);
        }
        s
    }

    #[test]
    fn correlation_of_a_known_series() {
        // Deviations 10, -10, 10, -10: products -300, squares 400.
        let s = serial_of(&[820, 800, 820, 800]);
        assert_eq!(s.correlation(), Some(-0.75));
        assert!((s.z().unwrap() - (-0.75 * 4.0 / 3f64.sqrt())).abs() < 1e-12);
        // Deviations 30, 0, -30, 60: products 0 + 0 - 1800 = -1800, squares 5400.
        let s = serial_of(&[840, 810, 780, 870]);
        assert!((s.correlation().unwrap() + 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn sums_that_follow_each_other_fail_and_independent_ones_pass() {
        // A slow wave: each sum close to the one before.
        let wave: Vec<u32> = (0..1_000)
            .map(|i| (810.0 + 200.0 * (i as f64 / 20.0).sin()) as u32)
            .collect();
        let s = serial_of(&wave);
        assert!(s.correlation().unwrap() > 0.9);
        assert!(!s.outcome().passed_at(crate::rng_check::ALPHA));
        // A pattern with no lag-1 relation: +a, +a, -a, -a repeated has products summing to 0.
        let s = serial_of(&[900, 900, 720, 720].repeat(100));
        assert!(s.correlation().unwrap().abs() < 0.01);
        assert!(s.outcome().passed_at(crate::rng_check::ALPHA));
    }

    #[test]
    fn all_sums_at_the_mean_fail() {
        let s = serial_of(&[MEAN_SUM; 200]);
        assert_eq!(s.correlation(), None);
        assert!(!s.outcome().passed_at(crate::rng_check::ALPHA));
    }
}
