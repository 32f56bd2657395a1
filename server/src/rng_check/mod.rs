//! Statistical tests of a sequence of draws: the laboratory's evidence that the draw's numbers
//! are independent and uniformly distributed over 1..=80 (the general rules' RNG).
//!
//! Every test accumulates in one pass, keeping no draws: the largest state is the 80 x 80 pair
//! table. Each test is at 99% confidence: it fails when its p-value is below [`ALPHA`].

mod frequency;
mod gaps;
mod p_values;
mod pairs;
mod runs;
mod serial;

use keno_core::board::{LAST_NUMBER, NUMBERS_DRAWN};
use keno_core::error::SelectionError;
use keno_core::{Draw, DrawStats};

/// A test fails when its p-value is below this: 99% confidence.
pub const ALPHA: f64 = 0.01;

/// The fewest draws the tests accept: with fewer, a pair expects under 6 draws and the
/// chi-square approximations are poor.
pub const MIN_DRAWS: u64 = 100;

/// Numbers on the board (80) and in a draw (20).
const BOARD: usize = LAST_NUMBER as usize;
const DRAWN: usize = NUMBERS_DRAWN;

/// The expected sum of a draw: 20 numbers averaging 40.5. The sum's distribution is symmetric
/// about it (n and 81 - n are equally likely).
const MEAN_SUM: u32 = 810;

/// A draw's numbers in drawn order.
pub type Numbers = [u8; DRAWN];

/// One test's result.
#[derive(Debug)]
pub struct Outcome {
    pub name: &'static str,
    /// The statistic and what it was computed from, in words.
    pub statistic: String,
    pub p_value: f64,
}

impl Outcome {
    /// Passed at significance `alpha`: its p-value is not below it.
    pub fn passed_at(&self, alpha: f64) -> bool {
        self.p_value >= alpha // a NaN fails
    }
}

/// All the tests, fed one draw at a time.
pub struct Battery {
    draws: u64,
    /// The counts per number and pair (and place) of keno-core's draw tests.
    numbers: DrawStats,
    runs: runs::Runs,
    gaps: gaps::Gaps,
    serial: serial::Serial,
}

impl Battery {
    pub fn new() -> Battery {
        Battery {
            draws: 0,
            numbers: DrawStats::default(),
            runs: runs::Runs::default(),
            gaps: gaps::Gaps::default(),
            serial: serial::Serial::default(),
        }
    }

    /// The next draw: refused unless 20 distinct numbers of 1..=80 (rule 9.1).
    pub fn add(&mut self, draw: &Numbers) -> Result<(), SelectionError> {
        self.numbers.add(&Draw::new(draw)?);
        self.draws += 1;
        self.gaps.add(draw);
        let sum = draw.iter().map(|&n| u32::from(n)).sum();
        self.runs.add(sum);
        self.serial.add(sum);
        Ok(())
    }

    pub fn draws(&self) -> u64 {
        self.draws
    }

    pub fn outcomes(&self) -> Vec<Outcome> {
        vec![
            frequency::outcome(&self.numbers),
            pairs::outcome(&self.numbers),
            self.runs.outcome(),
            self.gaps.outcome(),
            self.serial.outcome(),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keno_core::random::draw_numbers;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    /// Draws from a seeded cryptographic generator through the production draw function.
    pub fn seeded_draws(seed: u64, count: usize) -> Vec<Numbers> {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        (0..count)
            .map(|_| *draw_numbers(&mut rng).in_order())
            .collect()
    }

    #[test]
    fn a_sound_generator_passes_and_a_repeating_one_fails() {
        let mut sound = Battery::new();
        for draw in seeded_draws(11, 3_000) {
            sound.add(&draw).unwrap();
        }
        let outcomes = sound.outcomes();
        let names: Vec<_> = outcomes.iter().map(|o| o.name).collect();
        assert_eq!(names, ["frequency", "pairs", "runs", "gaps", "serial"]);
        // A fixed seed: this one passes everything (a sound generator fails some test about
        // one run in twenty).
        assert!(outcomes.iter().all(|o| o.passed_at(ALPHA)), "{outcomes:#?}");

        // Each draw twice: numbers, pairs and sums vary twice as much, gaps of 1 abound, and
        // each sum is followed by itself.
        let mut doubled = Battery::new();
        for draw in seeded_draws(11, 1_500) {
            doubled.add(&draw).unwrap();
            doubled.add(&draw).unwrap();
        }
        let failed: Vec<_> = doubled
            .outcomes()
            .into_iter()
            .filter(|o| !o.passed_at(ALPHA))
            .map(|o| o.name)
            .collect();
        assert_eq!(failed, ["frequency", "pairs", "runs", "gaps", "serial"]);
    }

    /// The mean and variance of a sample.
    fn mean_variance(xs: &[f64]) -> (f64, f64) {
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let variance = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
        (mean, variance)
    }

    #[test]
    fn under_a_sound_generator_each_statistic_has_its_null_distribution() {
        // 100 runs of 400 draws: each chi-square averages its degrees of freedom (standard
        // error sqrt(2 df / 100)) and each z has mean 0 (standard error 0.1) and variance 1.
        // Without the scaling for drawing without replacement the frequency chi-square would
        // average 60 and the pairs' 1,815; the plain pairs sum over 3,160 pairs averages 2,970.
        let (mut frequency, mut pairs, mut gaps, mut runs, mut serial) =
            (vec![], vec![], vec![], vec![], vec![]);
        for seed in 0..100 {
            let mut b = Battery::new();
            for draw in seeded_draws(1_000 + seed, 400) {
                b.add(&draw).unwrap();
            }
            frequency.push(b.numbers.frequency_test().statistic);
            pairs.push(b.numbers.pairs_test().statistic);
            let (g, df) = b.gaps.statistic();
            gaps.push(g - df as f64);
            runs.push(b.runs.z().unwrap());
            serial.push(b.serial.z().unwrap());
        }
        let within = |xs: &[f64], mean: f64, df: f64| {
            let (m, _) = mean_variance(xs);
            assert!(
                (m - mean).abs() < 4.0 * (2.0 * df / 100.0).sqrt(),
                "mean {m}, expected {mean}"
            );
        };
        within(&frequency, 79.0, 79.0);
        within(&pairs, 3080.0, 3080.0);
        within(&gaps, 0.0, 21.0); // about 21 df at 400 draws
        for z in [runs, serial] {
            let (m, v) = mean_variance(&z);
            assert!(
                m.abs() < 0.4 && (0.55..1.5).contains(&v),
                "z mean {m}, variance {v}"
            );
        }
    }
}
