//! p-values from the chi-square and normal distributions (`statrs`).

use statrs::distribution::{ChiSquared, ContinuousCDF, Normal};

/// P(X >= statistic) for X chi-square with `df` degrees of freedom: how often a sound
/// generator would give a statistic this large or larger.
pub fn chi_square_upper(statistic: f64, df: f64) -> f64 {
    ChiSquared::new(df)
        .expect("positive degrees of freedom")
        .sf(statistic)
}

/// P(|Z| >= |z|) for Z standard normal: a departure either way counts.
pub fn normal_two_sided(z: f64) -> f64 {
    2.0 * Normal::standard().sf(z.abs())
}

/// Pearson's sum of (observed - expected)^2 / expected.
pub fn pearson(observed_expected: impl IntoIterator<Item = (f64, f64)>) -> f64 {
    observed_expected
        .into_iter()
        .map(|(o, e)| (o - e) * (o - e) / e)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn chi_square_p_values_agree_with_the_tables() {
        // Upper 5% and 1% points of chi-square tables.
        for (x, df, p) in [
            (3.841_459, 1.0, 0.05),
            (6.634_897, 1.0, 0.01),
            (23.209_251, 10.0, 0.01),
            (112.328_8, 80.0, 0.01),
            (135.806_7, 100.0, 0.01),
        ] {
            let got = chi_square_upper(x, df);
            assert!(close(got, p, 1e-6), "chi-square {x} with {df} df: p {got}");
        }
        assert_eq!(chi_square_upper(0.0, 79.0), 1.0);
        assert!(chi_square_upper(1e6, 79.0) < 1e-300);
    }

    #[test]
    fn chi_square_with_thousands_of_degrees_of_freedom_matches_wilson_hilferty() {
        // (X/k)^(1/3) is about normal with mean 1 - 2/(9k) and variance 2/(9k).
        let k = 3080.0_f64;
        let v = 2.0 / (9.0 * k);
        let upper_1_percent = k * (1.0 - v + 2.326_348 * v.sqrt()).powi(3);
        assert!(close(chi_square_upper(upper_1_percent, k), 0.01, 2e-4));
        assert!(close(
            chi_square_upper(k, k),
            0.5 - 0.008_494 * 0.398_9,
            2e-4
        ));
    }

    #[test]
    fn normal_p_values_agree_with_the_tables() {
        assert!(close(normal_two_sided(1.959_964), 0.05, 1e-6));
        assert!(close(normal_two_sided(-2.575_829), 0.01, 1e-6));
        assert_eq!(normal_two_sided(0.0), 1.0);
    }

    #[test]
    fn pearson_sums_the_squared_deviations_over_the_expected() {
        assert_eq!(pearson([(30.0, 25.0), (70.0, 75.0)]), 1.0 + 25.0 / 75.0);
        assert_eq!(pearson([(5.0, 5.0); 80]), 0.0);
    }
}
