//! Progress of a long run on standard error, at most once a second, so that standard output
//! stays the dump or the report.

use std::time::{Duration, Instant};

const EVERY: Duration = Duration::from_secs(1);

pub struct Progress {
    /// What is counted: "draws", "bytes".
    unit: &'static str,
    verb: &'static str,
    started: Instant,
    last: Instant,
}

impl Progress {
    /// `verb` says what is done to the draws: "generated", "read".
    pub fn new(verb: &'static str) -> Progress {
        Progress::of("draws", verb)
    }

    /// Progress counted in `unit` ("bytes").
    pub fn of(unit: &'static str, verb: &'static str) -> Progress {
        let now = Instant::now();
        Progress {
            unit,
            verb,
            started: now,
            last: now,
        }
    }

    /// `done` so far, `fraction` of the whole when it is known.
    pub fn update(&mut self, done: u64, fraction: Option<f64>) {
        let now = Instant::now();
        if now.duration_since(self.last) < EVERY {
            return;
        }
        self.last = now;
        let elapsed = now.duration_since(self.started).as_secs_f64();
        match fraction {
            Some(f) => eprintln!(
                "rng: {done} {} {} ({:.0}%), {elapsed:.0} s",
                self.unit,
                self.verb,
                f * 100.0
            ),
            None => eprintln!("rng: {done} {} {}, {elapsed:.0} s", self.unit, self.verb),
        }
    }

    /// The last line: how many and how fast.
    pub fn finish(&self, done: u64) {
        let elapsed = self.started.elapsed().as_secs_f64();
        eprintln!(
            "rng: {done} {} {} in {elapsed:.1} s ({:.0} {}/s)",
            self.unit,
            self.verb,
            done as f64 / elapsed.max(1e-9),
            self.unit
        );
    }
}
