//! The clock among the day's exceptions (issue 22): each step of a server's wall clock
//! (`clock_step`: game time kept its course, or took the wall clock's reading with no game
//! open) and each game left open under a wrong clock and repaired at a restart
//! (`game_repaired`), read from the trail.

use anyhow::Context;
use diesel::prelude::*;

use crate::audit::kind::EntryKind;
use crate::db::schema::audit_log;
use crate::db::DbConnection;
use crate::time::ClockStep;

/// One of them: when, the game (a repair's), what, why.
pub struct ClockException {
    pub micros: i64,
    pub game: Option<i64>,
    pub what: String,
    pub why: String,
}

/// Those recorded in `window`.
pub fn clock_exceptions(
    conn: &mut DbConnection,
    (from, to): (i64, i64),
) -> anyhow::Result<Vec<ClockException>> {
    let rows: Vec<(i64, i64, String, String, String)> = audit_log::table
        .filter(audit_log::kind.eq_any([
            EntryKind::ClockStep.as_str(),
            EntryKind::GameRepaired.as_str(),
        ]))
        .filter(audit_log::recorded_at.ge(from))
        .filter(audit_log::recorded_at.lt(to))
        .order(audit_log::seq)
        .select((
            audit_log::seq,
            audit_log::recorded_at,
            audit_log::kind,
            audit_log::subject,
            audit_log::payload,
        ))
        .load(conn)?;
    rows.into_iter()
        .map(|(seq, at, kind, subject, payload)| {
            let whose = || format!("audit entry {seq} ({kind})");
            if kind == EntryKind::ClockStep.as_str() {
                let step: ClockStep = serde_json::from_str(&payload).with_context(whose)?;
                return Ok(stepped(at, &step));
            }
            let repair: GameRepaired = serde_json::from_str(&payload).with_context(whose)?;
            let game = subject.parse().with_context(whose)?;
            Ok(repaired(at, game, &repair))
        })
        .collect()
}

/// What the trail records of a repair.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct GameRepaired {
    /// What was done.
    pub repair: keno_core::Repair,
    pub opened_at: i64,
    pub closes_at: i64,
    pub keno_day: String,
    /// Game time when it was repaired.
    pub game_time: i64,
}

fn stepped(at: i64, s: &ClockStep) -> ClockException {
    let by = format_seconds(s.by_micros);
    let what = if s.adopted {
        format!(
            "the wall clock of instance {} was {by} from game time with no game open: game \
             time took its reading",
            s.instance
        )
    } else {
        format!(
            "the wall clock of instance {} stepped {by} while a game was open: game time kept \
             its course ({} from the wall clock)",
            s.instance,
            format_seconds(s.apart_micros)
        )
    };
    ClockException {
        micros: at,
        game: None,
        what,
        why: "no game is frozen, stretched or back-dated by a clock set by hand or a bad time \
              source: have the machine's time source checked"
            .into(),
    }
}

fn repaired(at: i64, game: i64, r: &GameRepaired) -> ClockException {
    ClockException {
        micros: at,
        game: Some(game),
        what: format!(
            "game {game} of Keno Day {}, found open at a restart, was {}",
            r.keno_day,
            r.repair.described()
        ),
        why: "it was opened under a clock ahead of time (the rule in docs/deployment.md, \
              \"A clock that jumps\")"
            .into(),
    }
}

/// `+400d 0h 0m 5s`-like: a step's size for people.
fn format_seconds(micros: i64) -> String {
    let sign = if micros < 0 { "-" } else { "+" };
    // To the nearest second: the two clocks are read a moment apart.
    let s = (micros.unsigned_abs() + 500_000) / 1_000_000;
    let (d, h, m, s) = (s / 86_400, s / 3600 % 24, s / 60 % 60, s % 60);
    if d > 0 {
        format!("{sign}{d}d {h}h {m}m {s}s")
    } else {
        format!("{sign}{h}h {m}m {s}s")
    }
}
