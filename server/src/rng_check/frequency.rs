//! Frequency: is each number drawn a quarter of the time? keno-core's test
//! (`DrawStats::frequency_test`, the one draw monitoring uses): Pearson's chi-square over the 80
//! numbers, scaled for drawing without replacement, with 79 degrees of freedom.

use keno_core::DrawStats;

use super::Outcome;

pub fn outcome(stats: &DrawStats) -> Outcome {
    let t = stats.frequency_test();
    let counts = stats.frequency();
    let lowest = counts.iter().min().copied().unwrap_or(0);
    let highest = counts.iter().max().copied().unwrap_or(0);
    Outcome {
        name: "frequency",
        statistic: format!(
            "chi-square {:.2}, {} df (each number drawn {lowest} to {highest} times)",
            t.statistic, t.degrees_of_freedom
        ),
        p_value: t.p_value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keno_core::Draw;

    fn draw(first: u8) -> Draw {
        Draw::new(&(first..first + 20).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn half_the_numbers_twice_and_half_never() {
        // Four draws: 1..=40 twice each, 41..=80 never: chi-square 80 x 79/60, between the 5%
        // (100.7) and 2% points: it passes at 99%.
        let stats = DrawStats::of(&[1, 21, 1, 21].map(draw));
        let outcome = outcome(&stats);
        assert!(
            outcome.statistic.starts_with("chi-square 105.33, 79 df"),
            "{outcome:?}"
        );
        assert!(outcome.statistic.contains("0 to 2 times"), "{outcome:?}");
        assert!((0.02..0.05).contains(&outcome.p_value), "{outcome:?}");
        assert!(outcome.passed_at(crate::rng_check::ALPHA));
    }

    #[test]
    fn number_1_in_every_draw_fails() {
        let draws: Vec<Draw> = (0..400u32)
            .map(|i| {
                let mut d: Vec<u8> = (0..20).map(|k| 2 + (i % 4) as u8 * 19 + k).collect();
                d[0] = 1;
                Draw::new(&d).unwrap()
            })
            .collect();
        assert!(!outcome(&DrawStats::of(&draws)).passed_at(crate::rng_check::ALPHA));
    }
}
