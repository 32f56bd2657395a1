//! People who sign on, and registered terminals, made through the real command line
//! (`keno-server staff add`, `terminal add`), and their sign-on over HTTP; registered displays
//! (`display add`).

use std::cell::Cell;
use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use crate::db::TestDb;
use crate::server::{server_bin, Server};

/// A person added with `keno-server staff add`: their staff ID and the secrets shown once.
#[derive(Debug)]
pub struct Staff {
    pub staff_id: String,
    pub name: String,
    pub role: String,
    /// The PIN (writer) or password (the others).
    pub secret: String,
    pub totp_secret: Option<String>,
    /// The last TOTP step used: a code is good once, so each sign-on takes a later one.
    last_step: Cell<u64>,
}

/// The RFC 6238 code of `secret_base32` at `unix_seconds` (SHA-1, 6 digits, 30 s), as an
/// authenticator app shows it.
pub fn totp_code(secret_base32: &str, unix_seconds: u64) -> String {
    let secret = totp_rs::Secret::try_from_base32(secret_base32).expect("a base32 TOTP secret");
    totp_rs::Builder::new()
        .with_secret(secret)
        .build()
        .expect("a TOTP generator")
        .generate(unix_seconds)
        .to_string()
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

impl Staff {
    /// A code not used before: this step's, or the next (one step of skew is accepted), or
    /// after waiting for a later step.
    pub fn code(&self) -> String {
        let secret = self
            .totp_secret
            .as_deref()
            .expect("this person signs on with a code");
        loop {
            let now = unix_now() / 30;
            let step = now.max(self.last_step.get() + 1);
            if step <= now + 1 {
                self.last_step.set(step);
                return totp_code(secret, step * 30);
            }
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// The sign-on body: staff ID and PIN, or staff ID, password and a fresh code.
    pub fn sign_on_body(&self) -> Value {
        match &self.totp_secret {
            None => json!({"staff_id": self.staff_id, "pin": self.secret}),
            Some(_) => {
                json!({"staff_id": self.staff_id, "password": self.secret, "totp": self.code()})
            }
        }
    }
}

fn run(db: &TestDb, args: &[&str]) -> Value {
    let out = Command::new(server_bin())
        .args(args)
        .args(["--database-url", &db.url])
        .env("KENO_LOG", "warn")
        .output()
        .expect("keno-server runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the command prints JSON")
}

impl TestDb {
    /// Adds a person through `keno-server staff add`; the server makes the secret.
    pub fn staff(&self, role: &str, name: &str) -> Staff {
        let made = run(
            self,
            &[
                "staff",
                "add",
                "--role",
                role,
                "--name",
                name,
                "--reason",
                "a test's staff",
            ],
        );
        Staff {
            staff_id: made["staff_id"].as_str().unwrap().to_string(),
            name: name.to_string(),
            role: role.to_string(),
            secret: made["secret"].as_str().unwrap().to_string(),
            totp_secret: made["totp_secret"].as_str().map(str::to_string),
            last_step: Cell::new(0),
        }
    }

    /// Registers a terminal through `keno-server terminal add`; returns its credential.
    pub fn terminal(&self, site: &str, terminal: &str) -> String {
        let made = run(
            self,
            &[
                "terminal",
                "add",
                "--site",
                site,
                "--terminal",
                terminal,
                "--reason",
                "a test's terminal",
            ],
        );
        made["credential"].as_str().unwrap().to_string()
    }
}

impl TestDb {
    /// Registers a display through `keno-server display add`; returns its credential.
    pub fn display(&self, site: &str, display: &str) -> String {
        let made = run(
            self,
            &[
                "display",
                "add",
                "--site",
                site,
                "--display",
                display,
                "--reason",
                "a test's display",
            ],
        );
        made["credential"].as_str().unwrap().to_string()
    }

    /// `keno-server display ARGS...` (rotate, disable, list), its JSON answer.
    pub fn display_command(&self, args: &[&str]) -> Value {
        run(self, &[&["display"], args].concat())
    }
}

impl Server {
    /// Signs `person` on, at the terminal of `credential` if given; the answer as it came.
    pub fn sign_on(&self, credential: Option<&str>, person: &Staff) -> (u16, Value) {
        self.sign_on_with(credential, person.sign_on_body())
    }

    /// Posts a sign-on body as given.
    pub fn sign_on_with(&self, credential: Option<&str>, body: Value) -> (u16, Value) {
        let headers: Vec<(&str, String)> = credential
            .map(|c| vec![("Authorization", format!("Bearer {c}"))])
            .unwrap_or_default();
        let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        self.send("POST", "/api/v1/sessions", &headers, Some(body))
    }

    /// Signs `person` on and returns the session's token. A writer signed on at a terminal
    /// opens a shift with an empty drawer there (or finds theirs open), as before selling;
    /// [`Server::sign_on`] leaves that to the test.
    pub fn session(&self, credential: Option<&str>, person: &Staff) -> String {
        let (status, signed) = self.sign_on(credential, person);
        assert_eq!(status, 201, "{} signs on: {signed}", person.name);
        let token = signed["token"].as_str().unwrap().to_string();
        if person.role == "writer" && credential.is_some() {
            crate::server::open_shift(&self.base, &token);
        }
        token
    }

    /// A request with a bearer token and headers, answered as status and JSON.
    pub fn request(
        &self,
        method: &str,
        token: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<Value>,
    ) -> (u16, Value) {
        let auth = format!("Bearer {token}");
        let mut all = vec![("Authorization", auth.as_str())];
        all.extend_from_slice(headers);
        self.send(method, path, &all, body)
    }
}
