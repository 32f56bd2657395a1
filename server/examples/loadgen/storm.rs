//! `--sign-on-storm N` (issue 31): N clients trying to sign on at once, over and over, for
//! staff IDs that do not exist, through the sales. Each try carries a registered terminal's
//! credential (`keno-server terminal add`), so it reaches the PIN's check as an insider's
//! would, rather than stopping at the per-address limit. The report: the tries and their
//! answers, and the server's peak resident memory (VmHWM of /proc) and memory at the end; the
//! writers' latencies are the sales' own report.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The storm, until [`Storm::stop`].
pub struct Storm {
    stop: Arc<AtomicBool>,
    answers: Arc<Mutex<BTreeMap<String, u64>>>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Storm {
    /// Registers a terminal and starts `clients` threads trying unknown IDs at `base`.
    pub fn start(bin: &Path, db: &str, base: &str, clients: usize) -> anyhow::Result<Storm> {
        let out = Command::new(bin)
            .args(["terminal", "add", "--site", "STORM", "--terminal"])
            .arg(format!("S{}", keno_testkit::random_hex(3)))
            .args([
                "--reason",
                "loadgen's sign-on storm",
                "--field",
                "credential",
            ])
            .args(["--database-url", db])
            .output()?;
        anyhow::ensure!(
            out.status.success(),
            "terminal add: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let credential = String::from_utf8(out.stdout)?.trim().to_string();
        let (stop, answers) = (Arc::new(AtomicBool::new(false)), Arc::default());
        let threads = (0..clients)
            .map(|c| {
                let (stop, answers) = (stop.clone(), Arc::clone(&answers));
                let (url, credential) = (format!("{base}/api/v1/sessions"), credential.clone());
                std::thread::spawn(move || try_until(&url, &credential, c, &stop, &answers))
            })
            .collect();
        Ok(Storm {
            stop,
            answers,
            threads,
        })
    }

    /// Stops the clients and prints what they were answered and the server's memory.
    pub fn stop(self, server_pid: u32) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads {
            let _ = t.join();
        }
        let answers = self.answers.lock().expect("answers");
        let total: u64 = answers.values().sum();
        let each: Vec<String> = answers.iter().map(|(k, n)| format!("{k}: {n}")).collect();
        println!("sign-on storm: {total} tries ({})", each.join(", "));
        let status = std::fs::read_to_string(format!("/proc/{server_pid}/status"));
        let field = |name: &str| {
            status
                .as_deref()
                .ok()
                .and_then(|s| s.lines().find(|l| l.starts_with(name)))
                .map(|l| l.trim_start_matches(name).trim().to_string())
                .unwrap_or_else(|| "unknown".into())
        };
        println!(
            "server memory: peak resident {} (VmHWM), resident at the end {} (VmRSS)",
            field("VmHWM:"),
            field("VmRSS:")
        );
    }
}

/// One client: a sign-on for an ID that does not exist, again and again until told to stop.
fn try_until(
    url: &str,
    credential: &str,
    client: usize,
    stop: &AtomicBool,
    answers: &Mutex<BTreeMap<String, u64>>,
) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into();
    let mut i = 0u64;
    while !stop.load(Ordering::Relaxed) {
        i += 1;
        let body = serde_json::json!({"staff_id": format!("S{client}-{i}"), "pin": "1234"});
        let answer = agent
            .post(url)
            .header("Authorization", format!("Bearer {credential}"))
            .send_json(&body);
        let key = match answer {
            Ok(mut resp) => {
                let status = resp.status().as_u16();
                let text = resp.body_mut().read_to_string().unwrap_or_default();
                let code = serde_json::from_str::<serde_json::Value>(&text)
                    .ok()
                    .and_then(|v| v["error"].as_str().map(str::to_string))
                    .unwrap_or_default();
                format!("{status} {code}")
            }
            Err(_) => "no answer".to_string(),
        };
        *answers.lock().expect("answers").entry(key).or_default() += 1;
    }
}
