//! The processor each sale costs (issue 37), from /proc over the measured seconds: each server
//! started here, PostgreSQL (all its processes: the sessions and the writers behind them), and
//! this load generator; and each server thread by name (`sale-writer-0`, the HTTP workers), so
//! that the thread that bounds the embedded default's rate is seen apart.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

/// Processor time so far, in clock ticks, of what is watched.
pub struct Sample {
    at: Instant,
    /// Per process: "server 1", "PostgreSQL", "loadgen".
    processes: BTreeMap<String, u64>,
    /// Per server thread, by the thread's name.
    threads: BTreeMap<String, u64>,
}

/// User and system ticks of a /proc `stat` file: fields 14 and 15, counted after the command
/// name's closing parenthesis (a name may hold spaces).
fn ticks(stat: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(stat).ok()?;
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let user: u64 = fields.get(11)?.parse().ok()?;
    let system: u64 = fields.get(12)?.parse().ok()?;
    Some(user + system)
}

fn comm(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("comm"))
        .map(|c| c.trim().to_string())
        .unwrap_or_default()
}

/// Every PostgreSQL process on this machine (a test machine's: the server under load is the
/// only one busy).
fn postgres_ticks() -> u64 {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter(|e| comm(&e.path()) == "postgres")
        .filter_map(|e| ticks(&e.path().join("stat")))
        .sum()
}

/// Each thread of `pid` by name, the ticks of threads of one name summed.
fn thread_ticks(pid: u32, into: &mut BTreeMap<String, u64>) {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return;
    };
    for task in tasks.flatten() {
        if let Some(t) = ticks(&task.path().join("stat")) {
            *into.entry(comm(&task.path())).or_default() += t;
        }
    }
}

impl Sample {
    /// The servers' processes are `servers`, in the order they were started.
    pub fn take(servers: &[u32]) -> Sample {
        let mut processes = BTreeMap::new();
        let mut threads = BTreeMap::new();
        for (i, pid) in servers.iter().enumerate() {
            let name = format!("server {}", i + 1);
            processes.insert(
                name,
                ticks(Path::new(&format!("/proc/{pid}/stat"))).unwrap_or(0),
            );
            thread_ticks(*pid, &mut threads);
        }
        processes.insert("PostgreSQL".into(), postgres_ticks());
        processes.insert(
            "loadgen".into(),
            ticks(Path::new("/proc/self/stat")).unwrap_or(0),
        );
        Sample {
            at: Instant::now(),
            processes,
            threads,
        }
    }
}

/// Clock ticks a second (`getconf CLK_TCK`; 100 on Linux everywhere).
fn ticks_per_second() -> f64 {
    std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100.0)
}

/// Prints the processor time each sale (or quote: `noun`) took between `before` and `after`,
/// `sales` made: per process, then the server threads that took more than 1% of it.
pub fn report(before: &Sample, after: &Sample, (sales, noun): (usize, &str)) {
    if sales == 0 {
        return;
    }
    let hz = ticks_per_second();
    let seconds = after.at.duration_since(before.at).as_secs_f64();
    let per_sale = |ticks: u64| ticks as f64 / hz * 1e6 / sales as f64;
    let spent = |a: &BTreeMap<String, u64>, b: &BTreeMap<String, u64>, name: &str| {
        a.get(name)
            .copied()
            .unwrap_or(0)
            .saturating_sub(b.get(name).copied().unwrap_or(0))
    };
    let mut all = 0;
    let mut lines = Vec::new();
    for name in after.processes.keys() {
        let ticks = spent(&after.processes, &before.processes, name);
        all += ticks;
        lines.push(format!(
            "{name} {:.0} us ({:.2} of a core)",
            per_sale(ticks),
            ticks as f64 / hz / seconds
        ));
    }
    println!(
        "cpu per {noun} over {seconds:.1} s and {sales} {noun}s: {}; all {:.0} us",
        lines.join(", "),
        per_sale(all)
    );
    let mut threads: Vec<(u64, &String)> = after
        .threads
        .keys()
        .map(|name| (spent(&after.threads, &before.threads, name), name))
        .filter(|(ticks, _)| *ticks as f64 / hz / seconds > 0.01)
        .collect();
    threads.sort_by(|a, b| b.cmp(a));
    let threads: Vec<String> = threads
        .iter()
        .map(|(ticks, name)| {
            format!(
                "{name} {:.0} us ({:.2} of a core)",
                per_sale(*ticks),
                *ticks as f64 / hz / seconds
            )
        })
        .collect();
    println!("  server threads: {}", threads.join(", "));
}
