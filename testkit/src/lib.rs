//! The workspace's one test harness: real processes, real databases, real HTTP. A fresh
//! database per test (a temporary SQLite file, or a new PostgreSQL database dropped
//! afterwards), `keno-server serve` as a child process, and HTTP calls through ureq.
//!
//! Used, as a dev-dependency, by the server's integration tests (`server/tests`), the
//! whole-system fault and failover harnesses (`tests/faults.rs`, `tests/failover.rs`), the
//! server's load generator (`server/examples/loadgen.rs`) and the writer terminal's tests. It
//! drives the server only as a process (its command line and its HTTP API) and depends on none
//! of its code.
//!
//! - [`TestDb`] and [`Backend`]: a database of a test's own; [`Session`]: one connection kept
//!   open for many queries; [`on_both_backends!`] runs a scenario on each backend.
//! - [`Server`]: a running `keno-server serve` and its HTTP calls; [`World`]: one with a writer
//!   and a supervisor; [`subscribe`]: the event stream; [`Program`]: a client subcommand
//!   (`device simulate`, `device console`) beside it; [`server_bin`]: where the binary is.
//! - [`browser`]: headless Chromium over WebDriver, for the display pages.
//! - [`Staff`]: a person added with `staff add`, their sign-on and TOTP codes;
//!   `TestDb::terminal` registers a terminal.
//! - [`pg_ha`]: a PostgreSQL primary and its synchronous standby (pg_auto_failover,
//!   `scripts/pg-ha`), for the failover tests; `TestDb::existing` puts a test on its database.
//! - [`invariants`]: the invariants of a run, read from its database (the fault harness asserts
//!   them, the soak run prints them).
//!
//! PostgreSQL tests read the server's address from `KENO_TEST_POSTGRES_URL`
//! (e.g. `postgres://postgres@127.0.0.1:5432/postgres`). Without it they are skipped, except
//! under `CI=true`, where a missing address is a failure.

pub mod browser;
mod db;
pub mod invariants;
pub mod pg_ha;
mod program;
pub mod scans;
mod server;
mod staff;

use std::process::Command;

use serde_json::Value;

pub use db::{Backend, Backup, Session, TestDb};
pub use program::Program;
pub use server::{
    add_principal, agent, free_port, open_shift, server_bin, subscribe, subscribe_timed, try_post,
    Output, Server, BALL_DEVICE, MANUAL_CLOCK,
};
pub use staff::{totp_code, Staff};

/// The public key of the audit key file `key`, as `keno-server audit public-key` prints it.
pub fn audit_public_key(key: &std::path::Path) -> String {
    let out = Command::new(server_bin())
        .args(["audit", "public-key", "--audit-key"])
        .arg(key)
        .output()
        .expect("keno-server audit public-key runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let key = text
        .lines()
        .find(|l| !l.starts_with('#'))
        .unwrap_or_default()
        .trim()
        .to_string();
    assert_eq!(key.len(), 64, "{text}");
    key
}

/// `keno-server audit ARGS --database-url DB` (the auditors' tools: verify, report, export,
/// exceptions), run to its end; its exit status and output are the caller's to judge.
pub fn audit(db: &TestDb, args: &[&str]) -> std::process::Output {
    Command::new(server_bin())
        .arg("audit")
        .args(args)
        .args(["--database-url", &db.url])
        .env("KENO_LOG", "warn")
        .env("KENO_AUDIT_KEY", db.audit_key())
        .output()
        .expect("keno-server audit runs")
}

/// The text of a PDF, by poppler's `pdftotext` (installed by `.ci/run`).
pub fn pdf_text(pdf: &std::path::Path) -> String {
    let out = Command::new("pdftotext")
        .arg(pdf)
        .arg("-")
        .output()
        .expect("pdftotext runs (apt-get install poppler-utils)");
    assert!(out.status.success(), "pdftotext {}", pdf.display());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs a scenario once on SQLite and once on PostgreSQL, as two tests.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[test]
                fn sqlite() {
                    super::$name($crate::TestDb::new($crate::Backend::Sqlite).unwrap());
                }
                #[test]
                fn postgres() {
                    if let Some(db) = $crate::TestDb::new($crate::Backend::Postgres) {
                        super::$name(db);
                    }
                }
            }
        )*
    };
}

/// `bytes` random bytes from the OS, in hex.
pub fn random_hex(bytes: usize) -> String {
    let mut b = vec![0u8; bytes];
    getrandom::fill(&mut b).unwrap();
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A sale body.
pub fn sale(request_id: &str, bet: Value, schedule: &str, amount: u64, games: u32) -> Value {
    serde_json::json!({
        "request_id": request_id,
        "bet": bet,
        "schedule": schedule,
        "amount_per_way_cents": amount,
        "games": games,
    })
}

/// A hand-pay's record for a payment with a major prize (rule 1(h)): the claimant, the ID
/// shown and the cheque's number.
pub fn hand_pay() -> Value {
    serde_json::json!({"hand_pay": {
        "claimant_name": "Jo Citizen", "id_kind": "driver licence", "id_number": "ACT 123456",
        "cheque_number": "000417",
    }})
}

/// The setting that lets a writer pay any prize alone, for tests of other things than payout
/// authority (`--writer-payout-limit`, $1,999.99 by default).
pub const ANY_PAYOUT: &[&str] = &["--writer-payout-limit", "100000000000"];

/// Writer, supervisor and a running server on `db`.
pub struct World {
    pub server: Server,
    pub writer: String,
    pub supervisor: String,
}

/// The writer JULIE at terminal 03 of site 735624 (as on Diagram C), the supervisor SUPER, and
/// a server started with `args`.
pub fn world(db: &TestDb, args: &[&str]) -> World {
    let writer = db.principal("writer", "JULIE", Some(("735624", "03")));
    let supervisor = db.principal("supervisor", "SUPER", None);
    let server = Server::start(db, args);
    World {
        server,
        writer,
        supervisor,
    }
}

/// A rule-set file in `dir`: the built-in rules with a Special 3 table of one column, 4 spots
/// paying $5 for 3 and `pays_4` cents for 4 at a $1 base (rule 18.4). The table alone sells
/// nothing: an inspector must record the regulator's approval of it.
pub fn special3_rules(dir: &std::path::Path, pays_4: u64) -> String {
    let out = Command::new(server_bin())
        .args(["rules", "show"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let builtin = String::from_utf8(out.stdout).unwrap();
    let path = dir.join(format!("special3-{pays_4}.toml"));
    std::fs::write(
        &path,
        format!(
            "{builtin}\n[schedules.special3]\nbase_wager_cents = 100\ncolumns = [ {{ spots = 4, pays = {{ 3 = 500, 4 = {pays_4} }} }} ]\n"
        ),
    )
    .unwrap();
    path.display().to_string()
}

/// A time `seconds` from now in RFC 3339 (UTC).
pub fn rfc3339_in(seconds: i64) -> String {
    (chrono::Utc::now() + chrono::Duration::seconds(seconds))
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// One 1-spot ticket on every number, sold under the request ids `{tag}-{n}`: 20 of them win
/// in any game. Their serials, by number (the ticket on `n` at `n - 1`).
pub fn cover_the_board(
    w: &World,
    tag: &str,
    (amount, games, schedule): (u64, u32, &str),
) -> Vec<String> {
    (1..=80)
        .map(|n| {
            let bet = serde_json::json!({"type": "standard", "spots": [n]});
            let body = sale(&format!("{tag}-{n}"), bet, schedule, amount, games);
            w.server.sell(&w.writer, body)["serial"]
                .as_str()
                .expect("a sold ticket has a serial")
                .to_string()
        })
        .collect()
}

/// The tickets of [`cover_the_board`]'s `serials` on the numbers `game` drew: its winners.
pub fn drawn_serials(serials: &[String], game: &Value) -> Vec<String> {
    game["drawn"]
        .as_array()
        .expect("a drawn game's numbers")
        .iter()
        .map(|n| serials[n.as_u64().expect("a number") as usize - 1].clone())
        .collect()
}

/// Keno open all day from an hour ago, as `HH:MM` for both `--keno-day-start` and
/// `--keno-day-end`: no Keno Day ends during a test, and an early closure scheduled minutes or
/// an hour ahead falls before the day's end, whatever the time of day.
pub fn keno_day_from_an_hour_ago() -> String {
    (chrono::Local::now() - chrono::Duration::hours(1))
        .format("%H:%M")
        .to_string()
}

/// At most `most` of something heavy at once, whatever the test threads (the fault harness's
/// clusters, the failover harness's pairs): a test holds a [`Turn`] while it runs one.
pub struct AtMost {
    count: std::sync::Mutex<usize>,
    freed: std::sync::Condvar,
    most: usize,
}

/// One of [`AtMost`]'s places, given back when dropped.
pub struct Turn(&'static AtMost);

impl AtMost {
    pub const fn new(most: usize) -> AtMost {
        AtMost {
            count: std::sync::Mutex::new(0),
            freed: std::sync::Condvar::new(),
            most,
        }
    }

    /// Waits for a place.
    pub fn take(&'static self) -> Turn {
        let mut n = self.count.lock().unwrap_or_else(|p| p.into_inner());
        while *n >= self.most {
            n = self.freed.wait(n).unwrap_or_else(|p| p.into_inner());
        }
        *n += 1;
        Turn(self)
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        *self.0.count.lock().unwrap_or_else(|p| p.into_inner()) -= 1;
        self.0.freed.notify_one();
    }
}
