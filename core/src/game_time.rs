//! Game time: the time the server runs games by and stamps records with.
//!
//! It follows the monotonic clock from an anchor taken on the wall clock, so a step of the wall
//! clock (set by hand, a bad time source, a machine resumed) never freezes, stretches or
//! back-dates a game: a game's length is its length on the monotonic clock, and stamps never
//! go back. A step is reported once (the caller logs it and puts it in the day's exceptions);
//! game time takes the wall clock's reading again only when no game is open, so the step lands
//! between Keno Days (or at a restart, when [`repair_open_game`] judges the game left open).
//!
//! Inputs are readings of both clocks, in microseconds: no clock of its own.

use crate::KenoDay;

/// A difference between the wall clock and game time up to this is not a step (a time source's
/// own corrections are slewed, far below it).
pub const STEP_TOLERANCE_MICROS: i64 = 2_000_000;

/// The two clocks read at one moment: the wall clock (since the Unix epoch) and the monotonic
/// clock (since any fixed origin).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reading {
    pub wall: i64,
    pub mono: i64,
}

/// Game time: the wall clock's reading at an anchor, carried on by the monotonic clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameTime {
    anchor: Reading,
    /// The difference from the wall clock already reported (0 when they agree).
    reported: i64,
}

/// What a look at the wall clock found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Observed {
    /// The wall clock agrees with game time.
    Agrees,
    /// The wall clock stepped by `by` (later if positive) while a game is open: game time keeps
    /// its course, `apart` from the wall clock. Report it.
    Stepped { by: i64, apart: i64 },
    /// Apart as already reported; nothing new.
    StillApart { apart: i64 },
    /// No game is open: game time took the wall clock's reading, moving by `by`. Report it.
    Adopted { by: i64 },
}

impl GameTime {
    /// Game time that starts at the wall clock's reading.
    pub fn anchored(at: Reading) -> GameTime {
        GameTime {
            anchor: at,
            reported: 0,
        }
    }

    /// Game time at the monotonic reading `mono`.
    pub fn at(&self, mono: i64) -> i64 {
        self.anchor.wall + (mono - self.anchor.mono)
    }

    /// Compares the wall clock (`now`) with game time; `game_open`: a game is open for sale,
    /// so game time must not move.
    pub fn observe(&mut self, now: Reading, game_open: bool) -> Observed {
        let apart = now.wall - self.at(now.mono);
        if apart.abs() <= STEP_TOLERANCE_MICROS {
            self.reported = 0;
            return Observed::Agrees;
        }
        if !game_open {
            *self = GameTime::anchored(now);
            return Observed::Adopted { by: apart };
        }
        let by = apart - self.reported;
        if by.abs() <= STEP_TOLERANCE_MICROS {
            return Observed::StillApart { apart };
        }
        self.reported = apart;
        Observed::Stepped { by, apart }
    }
}

/// A game found open when the clock starts (after a restart, or on a new leader).
#[derive(Clone, Copy, Debug)]
pub struct OpenGameFacts {
    pub opened_at: i64,
    pub closes_at: i64,
    pub keno_day: KenoDay,
}

/// What becomes of a game left open by a clock that was wrong (recorded in the trail as
/// `none`, `close_now` or `invalidate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Repair {
    /// Its times fit game time: it runs on.
    None,
    /// It opened after now (under a clock ahead of time), so its close is further off than
    /// its length: it closes now and is drawn as any game.
    CloseNow,
    /// Its Keno Day has not begun: no ticket of it can be cancelled (rule 8.3), paid or
    /// claimed (rule 13.1) on the right day, and its draw would be dated before the day it
    /// names. It is invalidated and every ticket refunded (rule 17.3).
    Invalidate,
}

impl Repair {
    /// What was done, for people.
    pub fn described(self) -> &'static str {
        match self {
            Repair::None => "left to run on",
            Repair::CloseNow => "closed now: it opened after now, under a clock ahead of time",
            Repair::Invalidate => {
                "closed and invalidated, every wager refunded (rule 17.3): its Keno Day has not \
                 begun"
            }
        }
    }
}

/// Judges a game found open against game time `now` and today's Keno Day (`None` outside the
/// hours of gaming). The rule, as written in docs/deployment.md ("A clock that jumps"): a Keno
/// Day later than today's is impossible, and such a game is invalidated with refunds; a game of
/// a possible Keno Day that opened after now (beyond the tolerance) closes now. A game's own
/// length (`closes_at - opened_at`) is kept either way: what is wrong is when it started.
pub fn repair_open_game(game: OpenGameFacts, today: Option<KenoDay>, now: i64) -> Repair {
    if today.is_some_and(|t| game.keno_day > t) {
        return Repair::Invalidate;
    }
    if game.opened_at > now + STEP_TOLERANCE_MICROS {
        return Repair::CloseNow;
    }
    Repair::None
}

/// A stamp of an act in a game: never before the game opened, whatever the clock read (the
/// last resort behind game time, for a game opened before a restart under another clock).
pub fn not_before(stamp: i64, opened_at: i64) -> i64 {
    stamp.max(opened_at)
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = 1_000_000;

    fn at(wall: i64, mono: i64) -> Reading {
        Reading { wall, mono }
    }

    #[test]
    fn game_time_keeps_its_course_through_steps_while_a_game_is_open() {
        let mut t = GameTime::anchored(at(1000 * S, 0));
        assert_eq!(t.observe(at(1010 * S, 10 * S), true), Observed::Agrees);
        // The wall clock jumps 400 days ahead: reported once, game time runs on.
        let year = 400 * 86_400 * S;
        let seen = t.observe(at(1020 * S + year, 20 * S), true);
        assert_eq!(
            seen,
            Observed::Stepped {
                by: year,
                apart: year
            }
        );
        assert_eq!(t.at(20 * S), 1020 * S, "not frozen, not jumped");
        assert_eq!(
            t.observe(at(1030 * S + year, 30 * S), true),
            Observed::StillApart { apart: year }
        );
        // Set right again: that is a step back to agreement, and nothing to report.
        assert_eq!(t.observe(at(1040 * S, 40 * S), true), Observed::Agrees);
        // An hour back: reported, and game time does not go back.
        let hour = 3600 * S;
        assert_eq!(
            t.observe(at(1050 * S - hour, 50 * S), true),
            Observed::Stepped {
                by: -hour,
                apart: -hour
            }
        );
        assert_eq!(
            t.at(60 * S),
            1060 * S,
            "a 20-second game still closes in 20 seconds"
        );
        // With no game open, game time takes the wall clock's reading.
        assert_eq!(
            t.observe(at(1070 * S - hour, 70 * S), false),
            Observed::Adopted { by: -hour }
        );
        assert_eq!(t.at(71 * S), 1071 * S - hour);
    }

    #[test]
    fn a_game_left_open_under_a_wrong_clock_is_repaired_by_the_written_rule() {
        let day = |d: u8| KenoDay::new(2026, 11, d).unwrap();
        let now = 5_000 * S;
        let length = 20 * S;
        let repair = |g, today| repair_open_game(g, today, now);
        let game = |opened_at: i64, closes_at: i64, d: u8| OpenGameFacts {
            opened_at,
            closes_at,
            keno_day: day(d),
        };
        let fine = game(now - 5 * S, now + 15 * S, 26);
        assert_eq!(repair(fine, Some(day(26))), Repair::None);
        // Opened an hour ahead of time, the same Keno Day: closed now.
        let ahead = game(now + 3600 * S, now + 3620 * S, 26);
        assert_eq!(repair(ahead, Some(day(26))), Repair::CloseNow);
        // A Keno Day not yet begun: invalidated with refunds.
        let next_year = game(now + 400 * 86_400 * S, now + 400 * 86_400 * S + length, 27);
        assert_eq!(repair(next_year, Some(day(26))), Repair::Invalidate);
        // An earlier Keno Day's game left open overnight is no clock's fault: it closes as due.
        let yesterday = game(now - 86_400 * S, now - 86_400 * S + length, 25);
        assert_eq!(repair(yesterday, Some(day(26))), Repair::None);
        // Outside the hours no Keno Day is impossible: closed now if it opened after now.
        assert_eq!(repair(ahead, None), Repair::CloseNow);
        assert_eq!(not_before(10, 20), 20);
    }
}
