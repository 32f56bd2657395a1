//! `keno-server rng ...` run as a real process: draws dumped from the production draw, and the
//! statistical tests on them and on deliberately biased files.

use std::collections::HashSet;
use std::process::{Command, Output};

fn keno_server(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_keno-server"))
        .args(args)
        .output()
        .expect("keno-server runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// The numbers of each line of a dump.
fn draws_of(dump: &str) -> Vec<Vec<u8>> {
    dump.lines()
        .map(|l| l.split(' ').map(|w| w.parse().expect(w)).collect())
        .collect()
}

#[test]
fn rng_dump_writes_one_draw_of_20_distinct_board_numbers_per_line() {
    let out = keno_server(&["rng", "dump", "--draws", "2000"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let draws = draws_of(&stdout(&out));
    assert_eq!(draws.len(), 2000);
    for draw in &draws {
        assert_eq!(draw.len(), 20, "{draw:?}");
        assert!(draw.iter().all(|n| (1..=80).contains(n)), "{draw:?}");
        assert_eq!(draw.iter().collect::<HashSet<_>>().len(), 20, "{draw:?}");
    }
    // Drawn order, not sorted: sorted draws would be one in 20! each.
    assert!(draws.iter().any(|d| !d.is_sorted()));
    // 40,000 numbers: each of the 80 is drawn (expected 500 times each).
    let seen: HashSet<u8> = draws.iter().flatten().copied().collect();
    assert_eq!(seen.len(), 80);
    // Two dumps are different draws (the OS generator, not a fixed seed).
    let again = draws_of(&stdout(&keno_server(&["rng", "dump", "--draws", "10"])));
    assert_ne!(again[..], draws[..10]);
}

#[test]
fn rng_dump_out_writes_the_file_with_one_thread_too() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("draws.txt");
    let path_arg = path.to_str().unwrap();
    let out = keno_server(&[
        "rng",
        "dump",
        "--draws",
        "5000",
        "--threads",
        "1",
        "--out",
        path_arg,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).is_empty());
    assert!(
        stderr(&out).contains("5000 draws generated"),
        "{}",
        stderr(&out)
    );
    let draws = draws_of(&std::fs::read_to_string(&path).unwrap());
    assert_eq!(draws.len(), 5000);
    assert!(draws.iter().all(|d| d.len() == 20));
}
