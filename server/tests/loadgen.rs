//! The load generator (`examples/loadgen`, issue 37) as anyone measuring the server runs it: its
//! sales and its quotes (the floor under a sale) against a real server on a real SQLite file,
//! and the processor figures it prints for each.

use std::path::PathBuf;
use std::process::Command;

use keno_testkit::server_bin;

/// `target/<profile>/examples/loadgen`, built by `cargo test` beside the tests.
fn loadgen() -> PathBuf {
    let bin = server_bin()
        .parent()
        .expect("the target dir")
        .join("examples")
        .join(format!("loadgen{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} is missing: `cargo test --workspace` builds it",
        bin.display()
    );
    bin
}

/// Runs loadgen for two seconds from two terminals at 50 requests a second; its output.
fn run(extra: &[&str]) -> String {
    let out = Command::new(loadgen())
        .args(["--terminals", "2", "--seconds", "2", "--rate", "50"])
        .args(extra)
        .env("KENO_LOG", "error")
        .output()
        .expect("loadgen runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "loadgen failed:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// The number before `word` on the line starting with `line`.
fn count_before(text: &str, line: &str, word: &str) -> u64 {
    let found = text
        .lines()
        .find(|l| l.starts_with(line))
        .unwrap_or_else(|| panic!("no line starting {line:?} in:\n{text}"));
    let before = &found[..found
        .find(word)
        .unwrap_or_else(|| panic!("no {word:?} in {found:?}"))];
    before
        .split_whitespace()
        .last()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count before {word:?} in {found:?}"))
}

#[test]
fn loadgen_quotes_the_same_sales_and_prints_what_a_quote_costs() {
    let text = run(&["--quote"]);
    let quotes = count_before(&text, "quotes: ", " quotes in ");
    // Two terminals at 25 a second each for two seconds: every quote answered, none refused.
    assert!((80..=110).contains(&quotes), "{quotes} quotes:\n{text}");
    assert!(text.contains(" 0 refused or failed"), "{text}");
    assert!(
        text.contains("cpu per quote over ") && text.contains(&format!(" and {quotes} quotes: ")),
        "the processor per quote is printed for the quotes made:\n{text}"
    );
    assert!(text.contains("server 1 "), "{text}");
    // Nothing was sold: a quote takes no writer's turn.
    assert!(!text.contains("tickets/s"), "{text}");
}

#[test]
fn loadgen_sells_and_prints_what_a_sale_costs() {
    let text = run(&[]);
    let sold = count_before(&text, "sales: ", " tickets in ");
    assert!((80..=110).contains(&sold), "{sold} sold:\n{text}");
    assert!(text.contains(" 0 refused or failed"), "{text}");
    assert!(
        text.contains(&format!(" and {sold} sales: ")),
        "the processor per sale is printed for the sales made:\n{text}"
    );
    assert!(
        text.contains("sale-writer-0 "),
        "the sale writer's thread is shown:\n{text}"
    );
}
