//! The server's time source: keno-core's game time, read on this process's monotonic clock.
//! Every stamp (`db::now_micros`) and every game's close follow it, so a step of the machine's
//! wall clock never freezes, stretches or back-dates a game. Infrastructure: it knows nothing of
//! games or requests; the task that looks at the wall clock every second is the app's
//! (`wall_clock_watch.rs`).
//!
//! `KENO_FAKE_CLOCK_FILE` (tests only): a file holding a number of seconds added to the wall
//! clock, read at each look, so a test moves the server's wall clock without the machine's.

use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use chrono::{DateTime, Local, TimeZone};
use keno_core::{GameTime, Observed, Reading};
use serde::{Deserialize, Serialize};

/// What the trail records of a step.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct ClockStep {
    /// The instance whose machine's clock stepped.
    pub instance: String,
    /// By how much the wall clock stepped (later if positive), in microseconds.
    pub by_micros: i64,
    /// How far the wall clock now is from game time (0 once game time took its reading).
    pub apart_micros: i64,
    /// Game time took the wall clock's reading (no game was open).
    pub adopted: bool,
    /// The wall clock's reading, as stored times are.
    pub wall: i64,
}

static ORIGIN: OnceLock<Instant> = OnceLock::new();
static CLOCK: OnceLock<Mutex<GameTime>> = OnceLock::new();

/// The monotonic clock, in microseconds since this process first read it.
fn mono() -> i64 {
    ORIGIN.get_or_init(Instant::now).elapsed().as_micros() as i64
}

/// The machine's wall clock (moved by `KENO_FAKE_CLOCK_FILE` in tests).
pub fn wall() -> i64 {
    chrono::Utc::now().timestamp_micros() + fake_offset()
}

fn fake_offset() -> i64 {
    let Some(path) = std::env::var_os("KENO_FAKE_CLOCK_FILE") else {
        return 0;
    };
    let seconds = std::fs::read_to_string(path)
        .ok()
        .and_then(|text| text.trim().parse::<i64>().ok());
    seconds.unwrap_or(0) * 1_000_000
}

fn reading() -> Reading {
    Reading {
        mono: mono(),
        wall: wall(),
    }
}

fn clock() -> &'static Mutex<GameTime> {
    CLOCK.get_or_init(|| Mutex::new(GameTime::anchored(reading())))
}

/// Game time now: microseconds since the Unix epoch, as stored.
pub fn now() -> i64 {
    let clock = clock().lock().unwrap_or_else(|p| p.into_inner());
    clock.at(mono())
}

/// Game time `micros` in local time (the Keno Day's hours are local).
pub fn local(micros: i64) -> DateTime<Local> {
    Local.timestamp_micros(micros).single().unwrap_or_else(|| {
        Local
            .timestamp_micros(0)
            .single()
            .expect("the epoch is a time")
    })
}

/// Game time now, in local time.
pub fn local_now() -> DateTime<Local> {
    local(now())
}

/// One look at the wall clock; `game_open`: game time must keep its course.
pub fn look(game_open: bool) -> Observed {
    let now = reading();
    let mut clock = clock().lock().unwrap_or_else(|p| p.into_inner());
    clock.observe(now, game_open)
}
