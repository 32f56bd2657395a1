//! The README's counter section works when pasted after its quick start (issue 34, item 13):
//! both blocks run as written by bash against a real server, `cargo run -q -p keno-server --`
//! and `cargo run -q -p writer-terminal --` becoming the built programs and `localhost:8080`
//! (`127.0.0.1:8080`) the test server's address. The counter itself (the block's last line,
//! full screen) is the tmux tests' (`cli.rs`).

use keno_testkit::{free_port, server_bin, Backend, Server, TestDb};

/// The shell blocks of README section `title`.
fn blocks(title: &str) -> Vec<String> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("the README");
    let section = readme
        .split(&format!("## {title}\n"))
        .nth(1)
        .unwrap_or_else(|| panic!("a section {title:?}"))
        .split("\n## ")
        .next()
        .unwrap();
    section
        .split("```sh\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap().to_string())
        .collect()
}

#[test]
fn the_counter_section_works_pasted_after_the_quick_start() {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let listen = format!("127.0.0.1:{}", free_port());
    let all_day = ["--keno-day-start", "00:00", "--keno-day-end", "00:00"];
    let server = Server::start_on(&db, &listen, &all_day);
    let counter = blocks("The counter");
    assert_eq!(counter.len(), 1, "one block");
    let (scripted, full_screen) = counter[0].trim_end().rsplit_once('\n').unwrap();
    assert!(
        full_screen.starts_with("cargo run -q -p writer-terminal "),
        "the last line opens the counter: {full_screen}"
    );
    let dir = tempfile::tempdir().unwrap();
    let script = format!("{}\n{scripted}\n", blocks("Quick start")[1])
        .replace(
            "cargo run -q -p keno-server --",
            &server_bin().display().to_string(),
        )
        .replace(
            "cargo run -q -p writer-terminal --",
            env!("CARGO_BIN_EXE_writer-terminal"),
        )
        .replace("localhost:8080", &listen)
        .replace("127.0.0.1:8080", &listen);
    let out = std::process::Command::new("bash")
        .args(["-c", &format!("set -euo pipefail\n{script}")])
        .current_dir(dir.path())
        .env("KENO_DATABASE_URL", &db.url)
        .env("KENO_TERMINAL_STATE", dir.path().join("state"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert_eq!(
        db.query_i64("SELECT COUNT(*) AS n FROM tickets"),
        2,
        "{stdout}"
    );
    drop(server);
}

/// Issue 36: the README's entry forms block, pasted in a checkout: both forms printed, the marked
/// form of docs/ read (as text, then as JSON).
#[test]
fn the_entry_forms_section_works_pasted_in_a_checkout() {
    let forms = blocks("Entry forms (rule 5.5)");
    assert_eq!(forms.len(), 1, "one block");
    let dir = tempfile::tempdir().unwrap();
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let script = forms[0]
        .replace(
            "cargo run -q -p writer-terminal --",
            env!("CARGO_BIN_EXE_writer-terminal"),
        )
        .replace(
            "--out form-",
            &format!("--out {}/form-", dir.path().display()),
        );
    let out = std::process::Command::new("bash")
        .args(["-c", &format!("set -euo pipefail\n{script}")])
        .current_dir(root)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dir.path().join("form-a.pdf").is_file() && dir.path().join("form-b.pdf").is_file());
    assert!(
        stdout.contains("NUMBERS   06 36 45 80 (4 spots)"),
        "{stdout}"
    );
    assert!(stdout.contains("\"amount_per_way_cents\": 300"), "{stdout}");
}
