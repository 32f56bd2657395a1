//! The test report: one line per test (name, statistic, p-value, verdict), then the verdict.

use std::fmt::Write;

use crate::rng_check::Outcome;

/// The report of `outcomes`, each test failing when its p-value is below `alpha`.
pub fn render(draws: u64, source: &str, outcomes: &[Outcome], alpha: f64) -> String {
    let mut out = String::new();
    let confidence = percent(1.0 - alpha);
    let _ = writeln!(out, "RNG tests on {draws} draws {source}");
    let _ = writeln!(
        out,
        "each test at {confidence}% confidence: it fails when p < {alpha}\n"
    );
    for o in outcomes {
        let verdict = if o.passed_at(alpha) { "pass" } else { "FAIL" };
        let _ = writeln!(
            out,
            "{:<10} p = {:<10} {verdict:<5} {}",
            o.name,
            p_value(o.p_value),
            o.statistic
        );
    }
    let failed: Vec<&str> = outcomes
        .iter()
        .filter(|o| !o.passed_at(alpha))
        .map(|o| o.name)
        .collect();
    let _ = if failed.is_empty() {
        writeln!(
            out,
            "\nverdict: PASS: all {} tests pass at {confidence}% confidence",
            outcomes.len()
        )
    } else {
        writeln!(
            out,
            "\nverdict: FAIL: {} of {} tests fail at {confidence}% confidence ({})",
            failed.len(),
            outcomes.len(),
            failed.join(", ")
        )
    };
    out
}

/// 99, 99.9, 99.99: a confidence as people write it.
fn percent(fraction: f64) -> String {
    let text = format!("{:.4}", fraction * 100.0);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Four decimals, or two significant digits when smaller than that shows.
fn p_value(p: f64) -> String {
    if p >= 1e-4 || p == 0.0 {
        format!("{p:.4}")
    } else {
        format!("{p:.1e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(name: &'static str, p_value: f64) -> Outcome {
        Outcome {
            name,
            statistic: format!("statistic of {name}"),
            p_value,
        }
    }

    #[test]
    fn each_test_on_its_line_then_the_verdict() {
        let all = [outcome("frequency", 0.51234), outcome("runs", 0.0000123)];
        let text = render(1000, "read from x.txt", &all, 0.01);
        assert!(text.starts_with("RNG tests on 1000 draws read from x.txt\n"));
        assert!(text.contains("frequency  p = 0.5123     pass  statistic of frequency\n"));
        assert!(text.contains("runs       p = 1.2e-5     FAIL  statistic of runs\n"));
        assert!(text.ends_with("verdict: FAIL: 1 of 2 tests fail at 99% confidence (runs)\n"));
        let text = render(1000, "", &all[..1], 0.01);
        assert!(text.ends_with("verdict: PASS: all 1 tests pass at 99% confidence\n"));
        // CI's quick battery: the same p-values at 0.0001.
        let text = render(1000, "", &all, 0.0001);
        assert!(text.contains("each test at 99.99% confidence: it fails when p < 0.0001\n"));
        assert!(text.contains("runs       p = 1.2e-5     FAIL  statistic of runs\n"));
        let text = render(1000, "", &[outcome("runs", 0.00012)], 0.0001);
        assert!(text.ends_with("verdict: PASS: all 1 tests pass at 99.99% confidence\n"));
    }
}
