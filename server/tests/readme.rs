//! Issue 19: the README's quick start works when pasted in order. Its commands are run as
//! written by bash (`set -euo pipefail`), against a real server: only `cargo run -q -p
//! keno-server --` becomes the built binary (a nested cargo would wait on this build's lock) and
//! `localhost:8080` the test server's address; the database is the test's, through
//! `KENO_DATABASE_URL` as the README's commands read it. Keno is open all day here, so the
//! sale does not depend on the hour the test runs.

use keno_testkit::{free_port, server_bin, Backend, Server, TestDb};

/// The shell block of the quick start that opens the venue and sells.
fn quick_start() -> String {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("the README");
    let section = readme
        .split("## Quick start")
        .nth(1)
        .expect("a quick start")
        .split("\n## ")
        .next()
        .unwrap();
    let blocks: Vec<&str> = section
        .split("```sh\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .collect();
    assert_eq!(
        blocks.len(),
        2,
        "the quick start: start the server, then open the venue"
    );
    assert_eq!(
        blocks[0]
            .lines()
            .map(|l| l.split('#').next().unwrap().trim())
            .collect::<Vec<_>>(),
        ["cargo run -p keno-server", "cargo test --workspace"],
        "two commands: the server on SQLite, and the whole suite"
    );
    blocks[1].to_string()
}

#[test]
fn the_quick_start_works_when_pasted_in_order() {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let listen = format!("127.0.0.1:{}", free_port());
    let all_day = ["--keno-day-start", "00:00", "--keno-day-end", "00:00"];
    let server = Server::start_on(&db, &listen, &all_day);
    let script = quick_start()
        .replace(
            "cargo run -q -p keno-server --",
            &server_bin().display().to_string(),
        )
        .replace("localhost:8080", &listen);
    let out = std::process::Command::new("bash")
        .args(["-c", &format!("set -euo pipefail\n{script}")])
        .env("KENO_DATABASE_URL", &db.url)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the quick start failed:\n{stdout}\n{stderr}"
    );
    // The open game, the ticket sold by JULIE's session, and ANN's list of the staff.
    assert!(stdout.contains("\"state\":\"open\""), "{stdout}");
    assert!(stdout.contains("\"serial\":"), "the sale: {stdout}");
    assert!(
        stdout.contains("\"staff_id\":\"9001\"") && stdout.contains("\"JULIE\""),
        "{stdout}"
    );
    let sold = db.query_i64("SELECT COUNT(*) AS n FROM tickets");
    assert_eq!(sold, 1);
    drop(server);
}
