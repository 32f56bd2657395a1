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

const TESTS: [&str; 5] = ["frequency", "pairs", "runs", "gaps", "serial"];

/// Each test's p-value and whether it passed, from a report's lines
/// (`name  p = 0.1234  pass  statistic...`); every test must be there once.
fn results(report: &str) -> Vec<(String, f64, bool)> {
    let found: Vec<(String, f64, bool)> = report
        .lines()
        .filter_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let name = *words.first()?;
            if !TESTS.contains(&name) {
                return None;
            }
            assert_eq!(words[1..3], ["p", "="], "{line}");
            let p: f64 = words[3].parse().expect(line);
            let passed = match words[4] {
                "pass" => true,
                "FAIL" => false,
                other => panic!("verdict {other:?} in {line}"),
            };
            assert!((0.0..=1.0).contains(&p), "{line}");
            assert_eq!(passed, p >= 0.01, "99% confidence: {line}");
            assert!(words.len() > 6, "the statistic follows: {line}");
            Some((name.to_string(), p, passed))
        })
        .collect();
    let names: Vec<&str> = found.iter().map(|(n, _, _)| n.as_str()).collect();
    assert_eq!(names, TESTS, "{report}");
    found
}

/// The report agrees with itself and with the exit code; returns the tests that failed.
fn failed_tests(out: &Output) -> Vec<String> {
    let report = stdout(out);
    let failed: Vec<String> = results(&report)
        .into_iter()
        .filter(|(_, _, passed)| !passed)
        .map(|(name, _, _)| name)
        .collect();
    if failed.is_empty() {
        assert_eq!(out.status.code(), Some(0), "{report}");
        assert!(report.contains("verdict: PASS"), "{report}");
    } else {
        assert_eq!(out.status.code(), Some(1), "{report}");
        assert!(report.contains("verdict: FAIL"), "{report}");
    }
    failed
}

/// Draws from a seeded generator through the production draw function.
fn seeded_draws(seed: u64, count: usize) -> Vec<Vec<u8>> {
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            keno_core::random::draw_numbers(&mut rng)
                .in_order()
                .to_vec()
        })
        .collect()
}

fn write_dump(path: &std::path::Path, draws: &[Vec<u8>]) {
    let text: String = draws
        .iter()
        .map(|d| {
            let line: Vec<String> = d.iter().map(u8::to_string).collect();
            line.join(" ") + "\n"
        })
        .collect();
    std::fs::write(path, text).unwrap();
}

#[test]
fn rng_test_of_the_production_draw_passes_and_prints_every_test() {
    // Five tests at 99% each: a sound generator fails one about one run in twenty, so a
    // failure is tried again on fresh draws (three failures in a row: about 1 in 8,000).
    // A real defect fails every time.
    let mut failures = vec![];
    for _ in 0..3 {
        let out = keno_server(&["rng", "test", "--draws", "20000"]);
        let report = stdout(&out);
        assert!(
            report.starts_with("RNG tests on 20000 draws made by the production draw"),
            "{report}"
        );
        let failed = failed_tests(&out);
        if failed.is_empty() {
            return;
        }
        failures.push(report);
    }
    panic!("failed three times:\n{}", failures.join("\n"));
}

#[test]
fn rng_test_input_passes_a_sound_file_and_fails_biased_ones() {
    let dir = tempfile::tempdir().unwrap();
    let test_file = |name: &str, draws: &[Vec<u8>]| {
        let path = dir.path().join(name);
        write_dump(&path, draws);
        let out = keno_server(&["rng", "test", "--input", path.to_str().unwrap()]);
        assert!(
            stdout(&out).starts_with(&format!(
                "RNG tests on {} draws read from {}",
                draws.len(),
                path.display()
            )),
            "{}{}",
            stdout(&out),
            stderr(&out)
        );
        (failed_tests(&out), stdout(&out))
    };

    // A seeded cryptographic generator through the production draw: passes (this seed).
    let sound = seeded_draws(7, 20_000);
    let (failed, report) = test_file("sound.txt", &sound);
    assert!(failed.is_empty(), "{report}");

    // Number 1 in every draw (in place of the last number when it is missing): number 1 is
    // drawn 4 times too often and its gaps are all 1.
    let with_1: Vec<Vec<u8>> = sound
        .iter()
        .map(|d| {
            let mut d = d.clone();
            if !d.contains(&1) {
                d[19] = 1;
            }
            d
        })
        .collect();
    let (failed, report) = test_file("number-1.txt", &with_1);
    for test in ["frequency", "gaps"] {
        assert!(failed.iter().any(|f| f == test), "{test}: {report}");
    }

    // Each draw twice in a row: counts vary twice as much, gaps of 1 abound, a sum is
    // followed by itself.
    let doubled: Vec<Vec<u8>> = sound[..10_000]
        .iter()
        .flat_map(|d| [d.clone(), d.clone()])
        .collect();
    let (failed, report) = test_file("doubled.txt", &doubled);
    assert_eq!(failed, TESTS, "{report}");
}

#[test]
fn rng_test_input_reads_a_dump_its_first_draws_or_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dump.txt");
    let path = path.to_str().unwrap();
    let out = keno_server(&["rng", "dump", "--draws", "3000", "--out", path]);
    assert!(out.status.success(), "{}", stderr(&out));

    let out = keno_server(&["rng", "test", "--input", path, "--draws", "2500"]);
    assert!(
        stdout(&out).starts_with(&format!("RNG tests on 2500 draws read from {path}")),
        "{}",
        stdout(&out)
    );
    failed_tests(&out);

    let child = Command::new(env!("CARGO_BIN_EXE_keno-server"))
        .args(["rng", "test", "--input", "-"])
        .stdin(std::fs::File::open(path).unwrap())
        .output()
        .unwrap();
    assert!(
        stdout(&child).starts_with("RNG tests on 3000 draws read from standard input"),
        "{}",
        stderr(&child)
    );
    failed_tests(&child);

    // More draws than the file holds, too few draws, a malformed line: errors (exit 2).
    let out = keno_server(&["rng", "test", "--input", path, "--draws", "3001"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("holds 3000 draws"),
        "{}",
        stderr(&out)
    );
    let out = keno_server(&["rng", "test", "--draws", "99"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("at least 100"), "{}", stderr(&out));
    let mut text = std::fs::read_to_string(path).unwrap();
    text.push_str("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 19\n");
    std::fs::write(path, text).unwrap();
    let out = keno_server(&["rng", "test", "--input", path]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!("{path}:3001")),
        "{}",
        stderr(&out)
    );
}

/// Issue 35: the generator's raw output for a laboratory's battery: exactly the bytes asked
/// (K, M, G understood), binary, different each time (no seed), every byte value about as
/// often; and a dump asked wrongly is refused with what to give, writing nothing.
#[test]
fn rng_dump_raw_writes_the_generators_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    for (asked, bytes) in [("64K", 65_536usize), ("1000", 1_000), ("1M", 1 << 20)] {
        let out = keno_server(&[
            "rng",
            "dump",
            "--raw",
            "--bytes",
            asked,
            "--out",
            &path(asked),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(std::fs::read(path(asked)).unwrap().len(), bytes, "{asked}");
        assert!(
            stderr(&out).contains(&format!("rng: {bytes} bytes written in")),
            "{}",
            stderr(&out)
        );
    }
    let one = std::fs::read(path("1M")).unwrap();
    let mut seen = [0u32; 256];
    for b in &one {
        seen[*b as usize] += 1;
    }
    // 4,096 expected each; 5.7 standard deviations either side.
    assert!(
        seen.iter().all(|&c| (3_730..4_460).contains(&c)),
        "{seen:?}"
    );
    let again = keno_server(&[
        "rng",
        "dump",
        "--raw",
        "--bytes",
        "1000",
        "--out",
        &path("again"),
    ]);
    assert!(again.status.success());
    assert_ne!(
        std::fs::read(path("again")).unwrap(),
        std::fs::read(path("1000")).unwrap()
    );
    // Streamed to a battery that stops reading when it has enough: a clean end, and the count.
    let mut piped = Command::new(env!("CARGO_BIN_EXE_keno-server"))
        .args(["rng", "dump", "--raw", "--bytes", "1G", "--out", "-"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 100_000];
    std::io::Read::read_exact(piped.stdout.as_mut().unwrap(), &mut first).unwrap();
    drop(piped.stdout.take());
    let ended = piped.wait_with_output().unwrap();
    assert!(ended.status.success(), "{}", stderr(&ended));
    assert!(
        stderr(&ended).contains("rng: the reader closed the pipe"),
        "{}",
        stderr(&ended)
    );
    for args in [
        vec!["--raw", "--bytes", "1000"],
        vec!["--raw", "--out", "x.bin"],
        vec!["--raw", "--bytes", "0", "--out", "x.bin"],
        vec!["--raw", "--bytes", "12Q", "--out", "x.bin"],
        vec!["--raw", "--draws", "5", "--bytes", "10", "--out", "x.bin"],
        vec!["--bytes", "10"],
    ] {
        let out = keno_server(&[&["rng", "dump"][..], &args].concat());
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(!std::path::Path::new("x.bin").exists());
    }
}

/// `scripts/rng-battery --quick` with a stand-in dieharder on the PATH that fails test 0 the
/// first `fail_times` times it runs: the real one fails a perfect generator about one CI run in
/// 10^4, which a test cannot wait for. Returns the battery's output and the digest of the raw
/// file each run of test 0 read.
fn quick_battery_failing_test_0(fail_times: u32) -> (Output, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("dieharder");
    std::fs::write(
        &fake,
        r#"#!/usr/bin/env bash
if [ "$1" = -h ]; then echo "dieharder version 3.31.1"; exit 0; fi
while [ $# -gt 0 ]; do
  case "$1" in -d) test="$2"; shift ;; -f) file="$2"; shift ;; esac
  shift
done
verdict=PASSED; p=0.51234567
if [ "$test" = 0 ]; then
  sha256sum "$file" | cut -c1-64 >>"$FAKE_STATE/test0.log"
  if [ "$(wc -l <"$FAKE_STATE/test0.log")" -le "$FAIL_TIMES" ]; then
    verdict=FAILED; p=0.99999949
  fi
fi
echo "        test_name   |ntup| tsamples |psamples|  p-value |Assessment"
printf '   test_number_%s|   0|       100|      20|%s|  %s\n' "$test" "$p" "$verdict"
"#,
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/rng-battery");
    let path = format!(
        "{}:{}",
        dir.path().display(),
        std::env::var("PATH").unwrap()
    );
    let out = Command::new(script)
        .arg("--quick")
        .env("PATH", path)
        .env("KENO_SERVER_BIN", env!("CARGO_BIN_EXE_keno-server"))
        .env("FAKE_STATE", dir.path())
        .env("FAIL_TIMES", fail_times.to_string())
        .env("TMPDIR", dir.path())
        .output()
        .expect("the battery runs");
    let read = std::fs::read_to_string(dir.path().join("test0.log")).expect("test 0 ran");
    (out, read.lines().map(str::to_string).collect())
}

#[test]
fn the_quick_battery_runs_a_failed_test_once_more_on_fresh_bytes() {
    let (out, reads) = quick_battery_failing_test_0(1);
    let said = stdout(&out);
    assert!(out.status.success(), "{said}\n{}", stderr(&out));
    assert!(
        said.contains("p = 0.99999949  FAILED once: run again on fresh output"),
        "{said}"
    );
    assert!(
        said.contains("17 passed, 0 weak, 0 failed or not run"),
        "{said}"
    );
    assert_eq!(reads.len(), 2, "{reads:?}");
    assert_ne!(reads[0], reads[1], "the second run reads new bytes");
}

#[test]
fn a_test_that_fails_twice_fails_the_quick_battery() {
    let (out, reads) = quick_battery_failing_test_0(2);
    let said = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{said}\n{}", stderr(&out));
    assert!(
        said.contains("16 passed, 0 weak, 1 failed or not run"),
        "{said}"
    );
    assert_eq!(reads.len(), 2, "run twice, not more: {reads:?}");
}
