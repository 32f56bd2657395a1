//! The server's own failures as they happen (issue 33): the database out of reach, a commit
//! whose outcome is unknown, the drawer failing to draw or settle, a request failed inside the
//! server. Each kind is one episode while it lasts: it begins with the first failure and ends
//! after a minute without another (`--incident-quiet`), so a storm of them is one episode with its count, and the
//! memory held and the trail written are bounded by the kinds, never by the failures.
//! `task` records each episode's beginning and end in the trail once the database takes
//! writes (a database failure is recorded when it is back); the console shows the open ones.

pub mod record;
pub mod task;

use std::collections::BTreeMap;
use std::sync::Mutex;

/// An episode ends once this long has passed without its failure (`--incident-quiet`).
pub const QUIET_MICROS: i64 = 60_000_000;

/// The longest detail kept: the last failure's message, cut.
const DETAIL_CHARS: usize = 300;

/// What failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Fault {
    /// The database refused or could not be reached (a lost connection, no connection in time).
    Database,
    /// A connection failed during a COMMIT: whether the change was made is unknown.
    CommitUnknown,
    /// The drawer failed to draw or settle a game.
    Drawer,
    /// A request failed inside the server (answered 500).
    Internal,
}

impl Fault {
    const ALL: [Fault; 4] = [
        Fault::Database,
        Fault::CommitUnknown,
        Fault::Drawer,
        Fault::Internal,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Fault::Database => "database",
            Fault::CommitUnknown => "commit_unknown",
            Fault::Drawer => "drawer",
            Fault::Internal => "internal",
        }
    }

    pub fn parse(text: &str) -> Option<Fault> {
        Fault::ALL.into_iter().find(|f| f.as_str() == text)
    }

    /// What failed, as people read it.
    pub fn words(self) -> &'static str {
        match self {
            Fault::Database => "the database could not be reached",
            Fault::CommitUnknown => "a change was sent to the database whose outcome is unknown",
            Fault::Drawer => "the drawer failed to draw or settle a game",
            Fault::Internal => "a request failed inside the server",
        }
    }
}

/// One kind's failures from the first to the last.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Episode {
    pub fault: Fault,
    pub began_at: i64,
    pub last_at: i64,
    pub count: u64,
    /// The last failure's message.
    pub detail: String,
    /// Whether its beginning is in the trail.
    pub recorded: bool,
}

/// The open episodes, and the ended ones whose end the trail does not hold yet. App data of
/// its own: the HTTP layer notes failed requests, the drawer its failures.
pub struct Incidents {
    open: Mutex<BTreeMap<Fault, Episode>>,
    /// How long without a failure ends an episode.
    quiet: i64,
}

impl Default for Incidents {
    fn default() -> Incidents {
        Incidents {
            open: Mutex::default(),
            quiet: QUIET_MICROS,
        }
    }
}

/// What the trail is to be told: episodes begun, and episodes ended.
#[derive(Debug, Default)]
pub struct ToRecord {
    pub begun: Vec<Episode>,
    pub ended: Vec<Episode>,
}

impl Incidents {
    pub fn new(quiet: std::time::Duration) -> Incidents {
        Incidents {
            open: Mutex::default(),
            quiet: i64::try_from(quiet.as_micros()).unwrap_or(i64::MAX),
        }
    }

    /// A failure of `fault` at `now`, with its message.
    pub fn failed(&self, fault: Fault, detail: &str, now: i64) {
        let detail: String = detail.chars().take(DETAIL_CHARS).collect();
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.entry(fault)
            .and_modify(|e| {
                e.count += 1;
                e.last_at = now;
                e.detail.clone_from(&detail);
            })
            .or_insert(Episode {
                fault,
                began_at: now,
                last_at: now,
                count: 1,
                detail,
                recorded: false,
            });
    }

    /// The episodes open at `now`.
    pub fn open(&self, now: i64) -> Vec<Episode> {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.values()
            .filter(|e| now - e.last_at < self.quiet)
            .cloned()
            .collect()
    }

    /// What to record at `now`: each episode not yet recorded as begun, and each quiet for a
    /// minute as ended. They stay here until [`Incidents::recorded`] says the trail took them.
    pub fn to_record(&self, now: i64) -> ToRecord {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = ToRecord::default();
        for e in open.values() {
            if !e.recorded {
                out.begun.push(e.clone());
            }
            if now - e.last_at >= self.quiet {
                out.ended.push(e.clone());
            }
        }
        out
    }

    /// The trail took `done`: the begun are marked, the ended removed. One that failed again
    /// meanwhile goes on, to be recorded as begun again (the trail has its end).
    pub fn recorded(&self, done: &ToRecord) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        for b in &done.begun {
            if let Some(e) = open.get_mut(&b.fault) {
                e.recorded = true;
            }
        }
        for ended in &done.ended {
            match open.get_mut(&ended.fault) {
                Some(e) if e.last_at == ended.last_at => {
                    open.remove(&ended.fault);
                }
                Some(e) => e.recorded = false,
                None => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_storm_of_failures_is_one_episode_begun_once_and_ended_after_a_quiet_minute() {
        let incidents = Incidents::default();
        for i in 0..10_000 {
            incidents.failed(Fault::Database, "connection refused", 1_000 + i);
        }
        let first = incidents.to_record(20_000);
        assert_eq!(first.begun.len(), 1);
        assert_eq!(first.begun[0].count, 10_000);
        assert!(first.ended.is_empty());
        incidents.recorded(&first);
        assert!(incidents.to_record(30_000).begun.is_empty());
        assert_eq!(incidents.open(30_000).len(), 1);
        let quiet = 11_000 + QUIET_MICROS;
        let last = incidents.to_record(quiet);
        assert_eq!(last.ended.len(), 1);
        // A failure again before the end was recorded carries the episode on.
        incidents.failed(Fault::Database, "again", quiet + 1);
        incidents.recorded(&last);
        assert_eq!(incidents.open(quiet + 2)[0].count, 10_001);
        assert_eq!(incidents.to_record(quiet + 2).begun.len(), 1);
        let ended = incidents.to_record(quiet + 1 + QUIET_MICROS);
        incidents.recorded(&ended);
        assert!(incidents.open(quiet + 2 + QUIET_MICROS).is_empty());
        assert!(incidents
            .to_record(quiet + 2 + QUIET_MICROS)
            .ended
            .is_empty());
    }

    #[test]
    fn each_fault_reads_back() {
        for f in Fault::ALL {
            assert_eq!(Fault::parse(f.as_str()), Some(f));
        }
    }
}
