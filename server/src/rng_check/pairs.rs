//! Pairs: does each of the 3,160 pairs of numbers come up together as often as any other?
//! keno-core's test (`DrawStats::pairs_test`, the one draw monitoring uses): Pearson's
//! chi-square on what the numbers' own frequencies do not explain (the frequency test's
//! business), scaled for drawing without replacement, with 3,080 degrees of freedom.

use keno_core::DrawStats;

use super::{Outcome, BOARD, DRAWN};

pub fn outcome(stats: &DrawStats) -> Outcome {
    let t = stats.pairs_test();
    let expected =
        stats.games() as f64 * (DRAWN * (DRAWN - 1)) as f64 / (BOARD * (BOARD - 1)) as f64;
    Outcome {
        name: "pairs",
        statistic: format!(
            "chi-square {:.2}, {} df (3160 pairs, each expected in {expected:.1} draws)",
            t.statistic, t.degrees_of_freedom
        ),
        p_value: t.p_value,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::seeded_draws;
    use super::*;
    use keno_core::Draw;

    #[test]
    fn a_favoured_pair_fails() {
        // 1 and 2 together in every draw, the other 18 numbers from a sound generator.
        let draws: Vec<Draw> = seeded_draws(4, 2_000)
            .into_iter()
            .map(|draw| {
                let mut d = vec![1, 2];
                d.extend(draw.iter().copied().filter(|&n| n > 2).take(18));
                Draw::new(&d).unwrap()
            })
            .collect();
        let outcome = outcome(&DrawStats::of(&draws));
        assert!(outcome.statistic.contains("3080 df"), "{outcome:?}");
        assert!(
            outcome.statistic.contains("expected in 120.3 draws"),
            "{outcome:?}"
        );
        assert!(!outcome.passed_at(crate::rng_check::ALPHA), "{outcome:?}");
    }
}
