//! Real processes, real databases, real HTTP: a fresh database per test (a temporary SQLite
//! file, or a new PostgreSQL database dropped afterwards), a `keno-server serve` child process,
//! and HTTP calls through ureq.
//!
//! PostgreSQL tests read the server's address from `KENO_TEST_POSTGRES_URL`
//! (e.g. `postgres://postgres@127.0.0.1:5432/postgres`). Without it they are skipped, except
//! under `CI=true`, where a missing address is a failure.

#![allow(dead_code)] // each test file uses part of this

pub mod browser;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use diesel::prelude::*;
use serde_json::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Runs a scenario once on SQLite and once on PostgreSQL, as two tests.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[test]
                fn sqlite() {
                    super::$name($crate::common::TestDb::new($crate::common::Backend::Sqlite).unwrap());
                }
                #[test]
                fn postgres() {
                    if let Some(db) = $crate::common::TestDb::new($crate::common::Backend::Postgres) {
                        super::$name(db);
                    }
                }
            }
        )*
    };
}

/// A database of its own for one test.
pub struct TestDb {
    pub backend: Backend,
    pub url: String,
    _dir: Option<tempfile::TempDir>,
    pg: Option<(String, String)>,
}

impl TestDb {
    /// `None` when PostgreSQL is not configured and this is not CI.
    pub fn new(backend: Backend) -> Option<TestDb> {
        match backend {
            Backend::Sqlite => {
                let dir = tempfile::tempdir().unwrap();
                let url = format!("sqlite://{}", dir.path().join("keno.sqlite").display());
                Some(TestDb {
                    backend,
                    url,
                    _dir: Some(dir),
                    pg: None,
                })
            }
            Backend::Postgres => {
                let admin = match std::env::var("KENO_TEST_POSTGRES_URL") {
                    Ok(url) => url,
                    Err(_) if std::env::var("CI").as_deref() == Ok("true") => {
                        panic!("CI=true: KENO_TEST_POSTGRES_URL must name the PostgreSQL server")
                    }
                    Err(_) => {
                        eprintln!(
                            "skipped: set KENO_TEST_POSTGRES_URL to run the PostgreSQL tests"
                        );
                        return None;
                    }
                };
                let name = format!("keno_test_{}", random_hex(8));
                let mut conn = PgConnection::establish(&admin).expect("PostgreSQL reachable");
                diesel::sql_query(format!("CREATE DATABASE {name}"))
                    .execute(&mut conn)
                    .unwrap();
                let base = admin.rsplit_once('/').map_or(admin.as_str(), |(b, _)| b);
                Some(TestDb {
                    backend,
                    url: format!("{base}/{name}"),
                    _dir: None,
                    pg: Some((admin.clone(), name)),
                })
            }
        }
    }

    /// Adds a principal through the real command line; returns its token.
    pub fn principal(&self, role: &str, name: &str, site_terminal: Option<(&str, &str)>) -> String {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_keno-server"));
        cmd.args([
            "principal",
            "add",
            "--role",
            role,
            "--name",
            name,
            "--database-url",
            &self.url,
        ]);
        if let Some((site, terminal)) = site_terminal {
            cmd.args(["--site", site, "--terminal", terminal]);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .last()
            .unwrap()
            .trim()
            .to_string()
    }

    /// A number from SQL (`SELECT ... AS n`), read directly from the database.
    pub fn query_i64(&self, sql: &str) -> i64 {
        #[derive(QueryableByName)]
        struct N {
            #[diesel(sql_type = diesel::sql_types::BigInt)]
            n: i64,
        }
        let rows: Vec<N> = match self.backend {
            Backend::Sqlite => {
                let path = self.url.strip_prefix("sqlite://").unwrap();
                let mut conn = SqliteConnection::establish(path).unwrap();
                diesel::sql_query(sql).load(&mut conn).unwrap()
            }
            Backend::Postgres => {
                let mut conn = PgConnection::establish(&self.url).unwrap();
                diesel::sql_query(sql).load(&mut conn).unwrap()
            }
        };
        rows[0].n
    }

    /// Runs SQL directly on the database, as an auditor's or a test's hand would.
    pub fn execute(&self, sql: &str) -> usize {
        self.try_execute(sql).unwrap()
    }

    /// As [`TestDb::execute`], for statements the database may refuse.
    pub fn try_execute(&self, sql: &str) -> diesel::QueryResult<usize> {
        match self.backend {
            Backend::Sqlite => {
                let path = self.url.strip_prefix("sqlite://").unwrap();
                let mut conn = SqliteConnection::establish(path).unwrap();
                diesel::sql_query(sql).execute(&mut conn)
            }
            Backend::Postgres => {
                let mut conn = PgConnection::establish(&self.url).unwrap();
                diesel::sql_query(sql).execute(&mut conn)
            }
        }
    }

    /// One text value from SQL (`SELECT ... AS s`).
    pub fn query_text(&self, sql: &str) -> String {
        #[derive(QueryableByName)]
        struct S {
            #[diesel(sql_type = diesel::sql_types::Text)]
            s: String,
        }
        let rows: Vec<S> = match self.backend {
            Backend::Sqlite => {
                let path = self.url.strip_prefix("sqlite://").unwrap();
                let mut conn = SqliteConnection::establish(path).unwrap();
                diesel::sql_query(sql).load(&mut conn).unwrap()
            }
            Backend::Postgres => {
                let mut conn = PgConnection::establish(&self.url).unwrap();
                diesel::sql_query(sql).load(&mut conn).unwrap()
            }
        };
        rows.into_iter().next().expect("a row").s
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let Some((admin, name)) = &self.pg {
            if let Ok(mut conn) = PgConnection::establish(admin) {
                let _ = diesel::sql_query(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                    .execute(&mut conn);
            }
        }
    }
}

pub fn random_hex(bytes: usize) -> String {
    let mut b = vec![0u8; bytes];
    getrandom::fill(&mut b).unwrap();
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A running `keno-server serve`, killed (SIGKILL) when dropped.
pub struct Server {
    child: Child,
    pub base: String,
    agent: ureq::Agent,
}

/// Settings for tests: Keno open all day, games closed by hand (a long interval), no pause
/// between numbers.
pub const MANUAL_CLOCK: &[&str] = &[
    "--game-interval",
    "3600",
    "--reveal-interval",
    "0",
    "--keno-day-start",
    "00:00",
    "--keno-day-end",
    "00:00",
];

/// As [`MANUAL_CLOCK`], drawn by a ball device posting balls.
pub const BALL_DEVICE: &[&str] = &[
    "--draw-source",
    "ball-device",
    "--ball-check",
    "0",
    "--game-interval",
    "3600",
    "--reveal-interval",
    "0",
    "--keno-day-start",
    "00:00",
    "--keno-day-end",
    "00:00",
];

impl Server {
    pub fn start(db: &TestDb, args: &[&str]) -> Server {
        Server::start_on(db, "127.0.0.1:0", args)
    }

    /// Listening on `listen`: a server restarted where its clients expect it.
    pub fn start_on(db: &TestDb, listen: &str, args: &[&str]) -> Server {
        Server::spawn(db, listen, args, &[], None)
    }

    /// `start_on` with more environment (`KENO_FAULT_DELAYS`).
    pub fn start_with(db: &TestDb, listen: &str, args: &[&str], env: &[(&str, &str)]) -> Server {
        Server::spawn(db, listen, args, env, None)
    }

    /// As [`Server::start`], logging everything (`KENO_LOG=trace`, `RUST_LOG=trace`), with all
    /// it writes to stdout and stderr collected in the returned [`Output`].
    pub fn start_traced(db: &TestDb, args: &[&str]) -> (Server, Output) {
        let output = Output::default();
        let server = Server::spawn(db, "127.0.0.1:0", args, &[], Some(output.clone()));
        (server, output)
    }

    fn spawn(
        db: &TestDb,
        listen: &str,
        args: &[&str],
        env: &[(&str, &str)],
        capture: Option<Output>,
    ) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_keno-server"))
            .args(["serve", "--listen", listen, "--database-url", &db.url])
            .args(args)
            .env("KENO_LOG", if capture.is_some() { "trace" } else { "warn" })
            .env("RUST_LOG", if capture.is_some() { "trace" } else { "warn" })
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(if capture.is_some() {
                Stdio::piped()
            } else {
                Stdio::inherit()
            })
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        if let (Some(stderr), Some(output)) = (child.stderr.take(), capture.clone()) {
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    output.push(line);
                }
            });
        }
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("keno-server listening on ") {
                    let _ = tx.send(url.to_string());
                }
                if let Some(output) = &capture {
                    output.push(line);
                }
            }
        });
        let base = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the server prints where it listens");
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(30)))
            .build()
            .into();
        let server = Server { child, base, agent };
        server.wait_for("a game open for sale", || {
            server.get("/api/v1/games/current").0 == 200
        });
        server
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub fn get(&self, path: &str) -> (u16, Value) {
        self.call(self.agent.get(format!("{}{path}", self.base)).call())
    }

    pub fn get_as(&self, token: &str, path: &str) -> (u16, Value) {
        self.call(
            self.agent
                .get(format!("{}{path}", self.base))
                .header("Authorization", format!("Bearer {token}"))
                .call(),
        )
    }

    /// A GET with the headers given, answered whole (status and headers included).
    pub fn get_with(
        &self,
        path: &str,
        headers: &[(&str, &str)],
    ) -> ureq::http::Response<ureq::Body> {
        let mut request = self.agent.get(format!("{}{path}", self.base));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request.call().expect("the server answers")
    }

    pub fn post(&self, token: &str, path: &str, body: Value) -> (u16, Value) {
        self.call(
            self.agent
                .post(format!("{}{path}", self.base))
                .header("Authorization", format!("Bearer {token}"))
                .send_json(body),
        )
    }

    fn call(&self, r: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> (u16, Value) {
        let mut resp = r.expect("the server answers");
        let status = resp.status().as_u16();
        let text = resp.body_mut().read_to_string().unwrap_or_default();
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }

    /// Sells a ticket and asserts it was sold.
    pub fn sell(&self, token: &str, body: Value) -> Value {
        let (status, ticket) = self.post(token, "/api/v1/tickets", body);
        assert_eq!(status, 201, "{ticket}");
        ticket
    }

    /// Closes the open game (as a supervisor) and waits until it is settled; returns it.
    pub fn close_and_settle(&self, supervisor: &str) -> Value {
        let (status, game) = self.post(supervisor, "/api/v1/games/current/close", Value::Null);
        assert_eq!(status, 200, "{game}");
        let number = game["number"].as_i64().unwrap();
        self.wait_settled(number)
    }

    pub fn wait_settled(&self, number: i64) -> Value {
        let mut game = Value::Null;
        self.wait_for(&format!("game {number} settled"), || {
            game = self.get(&format!("/api/v1/games/{number}")).1;
            game["state"] == "settled"
        });
        game
    }

    pub fn wait_for(&self, what: &str, mut done: impl FnMut() -> bool) {
        let start = Instant::now();
        while !done() {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "timed out waiting for {what}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Everything a process wrote, line by line, as it writes it.
#[derive(Clone, Default)]
pub struct Output(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl Output {
    fn push(&self, line: String) {
        self.0.lock().unwrap().push(line);
    }

    /// All lines so far, joined by newlines.
    pub fn text(&self) -> String {
        self.0.lock().unwrap().join("\n")
    }
}

/// Reads the event stream into (event, data) pairs on a channel.
pub fn subscribe(server: &Server) -> mpsc::Receiver<(String, Value)> {
    let agent: ureq::Agent = ureq::Agent::config_builder().build().into();
    let resp = agent
        .get(format!("{}/api/v1/events", server.base))
        .call()
        .unwrap();
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut kind = String::new();
        for line in BufReader::new(resp.into_body().into_reader())
            .lines()
            .map_while(Result::ok)
        {
            if let Some(k) = line.strip_prefix("event: ") {
                kind = k.to_string();
            } else if let Some(d) = line.strip_prefix("data: ") {
                if tx
                    .send((kind.clone(), serde_json::from_str(d).unwrap()))
                    .is_err()
                {
                    return;
                }
            }
        }
    });
    rx
}

/// A free local port, for a server that must come back on the same address.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A `keno-server` client subcommand (`device simulate`, `device console`) running beside the
/// server, its output collected line by line.
pub struct Program {
    child: Child,
    lines: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Program {
    pub fn start(args: &[&str], stdin: Option<&str>) -> Program {
        let mut child = Command::new(env!("CARGO_BIN_EXE_keno-server"))
            .args(args)
            .env("KENO_LOG", "warn")
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        if let Some(input) = stdin {
            use std::io::Write;
            let mut pipe = child.stdin.take().unwrap();
            pipe.write_all(input.as_bytes()).unwrap();
        }
        let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let out = child.stdout.take().unwrap();
        let sink = lines.clone();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                eprintln!("  | {line}");
                sink.lock().unwrap().push(line);
            }
        });
        Program {
            child,
            lines,
            reader: Some(reader),
        }
    }

    pub fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }

    /// Waits for a line of output that `wanted` accepts; returns it.
    pub fn wait_line(&self, what: &str, wanted: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            if let Some(line) = self.lines().into_iter().find(|l| wanted(l)) {
                return line;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "timed out waiting for {what}; output: {:#?}",
                self.lines()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the program to end; its exit code and all its output.
    pub fn finish(mut self) -> (i32, Vec<String>) {
        let start = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "the program did not end; output: {:#?}",
                self.lines()
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        if let Some(reader) = self.reader.take() {
            reader.join().unwrap();
        }
        (status.code().unwrap_or(-1), self.lines())
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
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

/// Writer, supervisor and a running server on `db`.
pub struct World {
    pub server: Server,
    pub writer: String,
    pub supervisor: String,
}

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
    let out = Command::new(env!("CARGO_BIN_EXE_keno-server"))
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
