//! A PostgreSQL primary and its synchronous standby, managed by pg_auto_failover on loopback
//! ports (`scripts/pg-ha`), for the failover tests: stood up, its primary's host killed, the
//! standby waited for, and stopped when dropped.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The first port a pair may take, and how far the ports run: below the kernel's ephemeral
/// range (32768-60999), where a client connection's local port could take one (the script
/// explains).
const FIRST_PORT: u16 = 26400;
const PORT_SPAN: u16 = 4500;

/// A running pair: the monitor on `base`, the two nodes on `base + 1` and `base + 2`.
pub struct PgHa {
    dir: PathBuf,
    /// `postgres://postgres@127.0.0.1:P1,127.0.0.1:P2/keno?target_session_attrs=read-write`:
    /// libpq tries each host and keeps the one that takes writes.
    pub url: String,
}

impl PgHa {
    /// Stands a pair up (about 7 s). `None`, with a note, when it cannot be (not root, the
    /// packages cannot be installed) and this is not CI; under `CI=true` that is a failure.
    pub fn up() -> Option<PgHa> {
        let dir = state_dir();
        let mut why = String::new();
        // A port found taken (by a client connection's local port, say) is tried elsewhere.
        for _ in 0..3 {
            let base = next_base();
            let out = script(&["up", dir.to_str().expect("a UTF-8 path"), &base.to_string()]);
            let (stdout, stderr) = texts(&out);
            if out.status.success() {
                let url = stdout.lines().last().unwrap_or_default().trim().to_string();
                assert!(
                    url.starts_with("postgres://"),
                    "pg-ha up printed {stdout:?}"
                );
                return Some(PgHa { dir, url });
            }
            why = stderr;
            if !why.contains("in use") {
                break;
            }
        }
        let _ = script(&["down", dir.to_str().expect("a UTF-8 path")]);
        let _ = std::fs::remove_dir_all(&dir);
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("CI=true: scripts/pg-ha up failed:\n{why}");
        }
        eprintln!("skipped: scripts/pg-ha cannot stand up a primary and a standby here:\n{why}");
        None
    }

    /// SIGKILLs the primary's host (its keeper, postmaster and backends); returns its port.
    pub fn kill_primary(&self) -> u16 {
        self.port_of(&["kill-primary"])
    }

    /// SIGKILLs the primary's postmaster and backends only: its keeper lives on, and the old
    /// primary comes back as the standby. Returns its port.
    pub fn kill_primary_postmaster(&self) -> u16 {
        self.port_of(&["kill-primary", "postmaster"])
    }

    /// Waits until the other node than `old` takes writes (with [`Takeover::EitherNode`], or
    /// `old` again); how long that took.
    pub fn wait_primary(&self, old: u16, takeover: Takeover) -> Duration {
        let start = Instant::now();
        let mut args = vec!["wait-primary".to_string(), old.to_string(), "60".into()];
        if let Takeover::EitherNode = takeover {
            args.push("either".into());
        }
        let out = self.run(&args.iter().map(String::as_str).collect::<Vec<_>>());
        let stderr = texts(&out).1;
        assert!(out.status.success(), "pg-ha wait-primary: {stderr}");
        eprint!("{stderr}");
        start.elapsed()
    }

    fn port_of(&self, args: &[&str]) -> u16 {
        let out = self.run(args);
        let (stdout, stderr) = texts(&out);
        assert!(out.status.success(), "pg-ha {args:?}: {stderr}");
        stdout
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("pg-ha {args:?} printed {stdout:?}"))
    }

    /// `scripts/pg-ha SUBCOMMAND DIR MORE...`.
    fn run(&self, args: &[&str]) -> std::process::Output {
        let dir = self.dir.to_str().expect("a UTF-8 path");
        let all: Vec<&str> = [&args[..1], &[dir], &args[1..]].concat();
        script(&all)
    }
}

/// Which node takes writes after the primary was killed.
#[derive(Clone, Copy, Debug)]
pub enum Takeover {
    /// The standby: the primary's host is gone.
    Standby,
    /// The standby, or the old primary itself: after its postmaster alone was killed, its keeper
    /// restarts it, and the monitor fails over only if it saw the node down first.
    EitherNode,
}

impl Drop for PgHa {
    fn drop(&mut self) {
        let out = self.run(&["down"]);
        if !out.status.success() {
            eprintln!("pg-ha down: {}", texts(&out).1);
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The script, from the workspace's root.
fn script(args: &[&str]) -> std::process::Output {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/pg-ha");
    Command::new("bash")
        .arg(path)
        .args(args)
        .output()
        .expect("bash runs scripts/pg-ha")
}

fn texts(out: &std::process::Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A folder of its own on tmpfs when there is one: initdb and pg_basebackup fsync whole data
/// directories, which on a disk shared with a build takes seconds.
fn state_dir() -> PathBuf {
    let shm = Path::new("/dev/shm");
    let root = if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    root.join(format!("keno-pgha-{}", crate::random_hex(6)))
}

/// Three ports for the next pair: from a random start, so that two test runs at once (two
/// work trees, CI) rarely meet, then three further for each pair of this process.
fn next_base() -> u16 {
    static NEXT: OnceLock<AtomicU16> = OnceLock::new();
    let next = NEXT.get_or_init(|| {
        let mut b = [0u8; 2];
        getrandom::fill(&mut b).expect("OS randomness");
        AtomicU16::new(u16::from_le_bytes(b) % (PORT_SPAN / 3) * 3)
    });
    FIRST_PORT + next.fetch_add(3, Ordering::Relaxed) % (PORT_SPAN - 3)
}
