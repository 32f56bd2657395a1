//! Pauses inside the commits of a stage, named by `KENO_FAULT_DELAYS` (for example
//! `settlement=3000,draw=500`, in milliseconds), so that the fault harness (`tests/faults.rs`)
//! can kill a process in the middle of that stage's transaction rather than only between two;
//! `audit_verify` holds an auditor's verification over HTTP open, so that a test meets it
//! running. Unset, as in production, nothing pauses.

use std::collections::HashMap;
use std::time::Duration;

/// The stages that can be paused.
pub const STAGES: [&str; 7] = [
    "sale",
    "close",
    "draw",
    "settlement",
    "payment",
    "audit_verify",
    "checkpoint",
];

/// `KENO_FAULT_RNG_FILE` (tests only): while the file it names exists, the draw's randomness
/// fails (`draw_rng`), so a test makes the RNG fail under a running server.
pub fn rng_fails() -> bool {
    named_file_exists("KENO_FAULT_RNG_FILE")
}

/// `KENO_FAULT_SYNC_FILE` (tests only): while the file it names exists, a sync of the SQLite
/// WAL fails (`db::wal_sync`), as a disk that stops taking writes makes it.
pub fn sync_fails() -> bool {
    named_file_exists("KENO_FAULT_SYNC_FILE")
}

/// The environment variable `var` names a file that exists now.
fn named_file_exists(var: &str) -> bool {
    std::env::var_os(var).is_some_and(|f| std::path::Path::new(&f).exists())
}

#[derive(Clone, Debug, Default)]
pub struct FaultDelays(HashMap<&'static str, Duration>);

impl FaultDelays {
    /// Reads `KENO_FAULT_DELAYS`; an unknown stage or a bad number is an error at start.
    pub fn from_env() -> anyhow::Result<FaultDelays> {
        match std::env::var("KENO_FAULT_DELAYS") {
            Ok(spec) if !spec.trim().is_empty() => FaultDelays::parse(&spec),
            _ => Ok(FaultDelays::default()),
        }
    }

    fn parse(spec: &str) -> anyhow::Result<FaultDelays> {
        let mut delays = HashMap::new();
        for item in spec.split(',') {
            let (stage, ms) = item
                .split_once('=')
                .ok_or_else(|| anyhow::anyhow!("KENO_FAULT_DELAYS: {item:?} is not STAGE=MS"))?;
            let stage = STAGES
                .into_iter()
                .find(|s| *s == stage.trim())
                .ok_or_else(|| anyhow::anyhow!("KENO_FAULT_DELAYS: no stage {stage:?}"))?;
            let ms: u64 = ms.trim().parse()?;
            delays.insert(stage, Duration::from_millis(ms));
        }
        tracing::warn!(?delays, "fault delays are set: for the fault harness only");
        Ok(FaultDelays(delays))
    }

    /// Pauses the calling (blocking) thread if `stage` is to be paused.
    pub fn pause(&self, stage: &'static str) {
        if let Some(d) = self.0.get(stage) {
            std::thread::sleep(*d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_stages_and_refuses_unknown_ones() {
        let d = FaultDelays::parse("settlement=3000, draw=5").unwrap();
        assert_eq!(d.0["settlement"], Duration::from_millis(3000));
        assert_eq!(d.0["draw"], Duration::from_millis(5));
        assert!(FaultDelays::parse("drawing=1").is_err());
        assert!(FaultDelays::parse("draw").is_err());
        assert!(FaultDelays::parse("draw=x").is_err());
    }
}
