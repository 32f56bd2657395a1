//! A running `keno-server serve`, its HTTP calls and its event stream.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, OnceLock};
use std::time::{Duration, Instant};

use anyhow::Context;
use serde_json::Value;

use crate::db::TestDb;

/// The `keno-server` binary of this build: in the target dir, one folder up from the running
/// test (`target/debug/deps/...`) or example (`target/debug/examples/...`). A test of the
/// `keno-server` package finds there the file `CARGO_BIN_EXE_keno-server` names (cargo builds a
/// package's binaries for its integration tests); for other packages, `cargo test --workspace`
/// builds it.
pub fn server_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let me = std::env::current_exe().expect("the running test's own path");
        let bin = me
            .parent()
            .and_then(Path::parent)
            .expect("the test runs from a target dir")
            .join(format!("keno-server{}", std::env::consts::EXE_SUFFIX));
        assert!(
            bin.exists(),
            "{} is missing: run `cargo build -p keno-server` (cargo test --workspace builds it)",
            bin.display()
        );
        bin
    })
}

/// Adds a principal to the database at `url` through `keno-server principal add`; returns its
/// token (the last line the command prints).
pub fn add_principal(
    bin: &Path,
    url: &str,
    role: &str,
    name: &str,
    site_terminal: Option<(&str, &str)>,
) -> anyhow::Result<String> {
    let mut cmd = Command::new(bin);
    cmd.args([
        "principal",
        "add",
        "--role",
        role,
        "--name",
        name,
        "--database-url",
        url,
    ]);
    if let Some((site, terminal)) = site_terminal {
        cmd.args(["--site", site, "--terminal", terminal]);
    }
    let out = cmd
        .output()
        .with_context(|| format!("{} runs", bin.display()))?;
    anyhow::ensure!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8(out.stdout)?
        .lines()
        .last()
        .unwrap_or_default()
        .trim()
        .to_string())
}

/// Opens `writer`'s shift with an empty drawer at `base`, as a writer does before selling. A
/// shift left open by an earlier server on the database stands (`shift_open`); a writer since
/// disabled or signed off (401) has none to open. A server no longer listening is left to the
/// next one started; nor is a system suspended (issue 33: no drawer opens until it is
/// resumed, then [`crate::TestDb::open_shifts`]).
pub fn open_shift(base: &str, writer: &str) {
    let body = serde_json::json!({"float_cents": 0});
    let Some((status, answer)) = try_post(
        &agent(None),
        &format!("{base}/api/v1/shifts"),
        writer,
        &body,
    ) else {
        return;
    };
    let open = status == 201 || answer["error"] == "shift_open" || answer["error"] == "suspended";
    assert!(
        open || status == 401,
        "a writer's shift opens: {status} {answer}"
    );
}

/// An HTTP client that answers every status (no error for a 4xx or 5xx), each call given at
/// most `timeout` in all (`None`: no limit). A connection idle for 2 s is not reused: the
/// server closes one idle for 5 s (actix's keep-alive), and a request sent on it as it closes
/// fails with "Peer disconnected" (a test waiting for the next TOTP step did, now and then).
pub fn agent(timeout: Option<Duration>) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(timeout)
        .max_idle_age(Duration::from_secs(2))
        .build()
        .into()
}

/// A POST to a server that may be dead: `None` when nothing (or only part of an answer)
/// came back.
pub fn try_post(agent: &ureq::Agent, url: &str, token: &str, body: &Value) -> Option<(u16, Value)> {
    let resp = agent
        .post(url)
        .header("Authorization", format!("Bearer {token}"))
        .send_json(body);
    let mut resp = resp.ok()?;
    let status = resp.status().as_u16();
    let text = resp.body_mut().read_to_string().ok()?;
    Some((status, serde_json::from_str(&text).unwrap_or(Value::Null)))
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
        Server::start_with(db, listen, args, &[])
    }

    /// `start_on` with more environment (`KENO_FAULT_DELAYS`).
    pub fn start_with(db: &TestDb, listen: &str, args: &[&str], env: &[(&str, &str)]) -> Server {
        Server::start_anchored(db, listen, args, env, None)
    }

    /// As [`Server::start`], logging everything (`KENO_LOG=trace`, `RUST_LOG=trace`), with all
    /// it writes to stdout and stderr collected in the returned [`Output`].
    pub fn start_traced(db: &TestDb, args: &[&str]) -> (Server, Output) {
        Server::start_traced_with(db, args, &[])
    }

    /// `start_traced` with more environment (`KENO_FAULT_SYNC_FILE`).
    pub fn start_traced_with(db: &TestDb, args: &[&str], env: &[(&str, &str)]) -> (Server, Output) {
        let output = Output::default();
        let server = Server::start_anchored(db, "127.0.0.1:0", args, env, Some(output.clone()));
        (server, output)
    }

    /// The test database's server, with its trail's key and checkpoint file.
    fn start_anchored(
        db: &TestDb,
        listen: &str,
        args: &[&str],
        env: &[(&str, &str)],
        capture: Option<Output>,
    ) -> Server {
        let (key, checkpoints) = anchor_env(db);
        let env: Vec<(&str, &str)> = [
            ("KENO_AUDIT_KEY", key.as_str()),
            ("KENO_CHECKPOINTS", checkpoints.as_str()),
        ]
        .into_iter()
        .chain(env.iter().copied())
        .collect();
        let server = Server::spawn(server_bin(), &db.url, listen, args, &env, capture)
            .unwrap_or_else(|e| panic!("{e:#}"));
        db.serving_at(&server.base);
        server
    }

    /// `bin serve` on any database (one a test does not own, such as the load generator's),
    /// once a game is open for sale; a server that does not come up is an error rather than a
    /// panic.
    pub fn launch(
        bin: &Path,
        database_url: &str,
        listen: &str,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> anyhow::Result<Server> {
        Server::spawn(bin, database_url, listen, args, env, None)
    }

    fn spawn(
        bin: &Path,
        database_url: &str,
        listen: &str,
        args: &[&str],
        env: &[(&str, &str)],
        capture: Option<Output>,
    ) -> anyhow::Result<Server> {
        let mut child = Command::new(bin)
            .args(["serve", "--listen", listen, "--database-url", database_url])
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
            .with_context(|| format!("{} starts", bin.display()))?;
        let stdout = child.stdout.take().expect("piped");
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
        // From here the child is killed if anything fails.
        let mut server = Server {
            child,
            base: String::new(),
            agent: agent(Some(Duration::from_secs(30))),
        };
        server.base = rx
            .recv_timeout(Duration::from_secs(60))
            .context("the server prints where it listens")?;
        let start = Instant::now();
        loop {
            let opened = server
                .agent
                .get(format!("{}/api/v1/games/current", server.base))
                .call()
                .context("the server answers")?;
            if opened.status() == 200 {
                return Ok(server);
            }
            anyhow::ensure!(
                start.elapsed() < Duration::from_secs(60),
                "timed out waiting for a game open for sale"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Stops the server gracefully (SIGTERM), as an operator's service manager does, and
    /// waits for it to end; whether it ended on its own within 60 s.
    pub fn terminate(&mut self) -> bool {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .is_ok_and(|s| s.success());
        let start = Instant::now();
        while sent && start.elapsed() < Duration::from_secs(60) {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.success();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.stop();
        false
    }

    /// Waits up to `timeout` for the server to end by itself: how it ended, or `None` if it
    /// is still running.
    pub fn ended_within(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let start = Instant::now();
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if start.elapsed() > timeout {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Kills the server (SIGKILL) and waits for it to end.
    pub fn kill(mut self) {
        self.stop();
    }

    /// As [`Server::kill`], keeping the value (a server to replace by one started again).
    pub fn stop(&mut self) {
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

    /// A request with the headers given and a JSON body (GET without one).
    pub fn send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<Value>,
    ) -> (u16, Value) {
        let url = format!("{}{path}", self.base);
        match method {
            "GET" => {
                let mut request = self.agent.get(url);
                for (name, value) in headers {
                    request = request.header(*name, *value);
                }
                self.call(request.call())
            }
            _ => {
                let mut request = self.agent.post(url);
                for (name, value) in headers {
                    request = request.header(*name, *value);
                }
                self.call(request.send_json(body.unwrap_or(Value::Null)))
            }
        }
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
        self.stop();
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
    read_events(&server.base, |kind, data, _| (kind, data))
}

/// The event stream of the server at `base`, each event with when it arrived.
pub fn subscribe_timed(base: &str) -> mpsc::Receiver<(String, Value, Instant)> {
    read_events(base, |kind, data, at| (kind, data, at))
}

fn read_events<T: Send + 'static>(
    base: &str,
    event: impl Fn(String, Value, Instant) -> T + Send + 'static,
) -> mpsc::Receiver<T> {
    let resp = agent(None)
        .get(format!("{base}/api/v1/events"))
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
                let data = serde_json::from_str(d).unwrap();
                if tx.send(event(kind.clone(), data, Instant::now())).is_err() {
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

/// The test database's own audit key and checkpoint file, as the server's environment.
fn anchor_env(db: &TestDb) -> (String, String) {
    (
        db.audit_key().display().to_string(),
        db.checkpoints().display().to_string(),
    )
}
