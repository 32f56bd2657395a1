//! The life cycle of a game as a pure state machine (rules 8.1, 9, 10, 11.1, 17.3).
//!
//! ```text
//! open                          --Close------------------> closed       9.2 (clock or supervisor)
//! closed                        --first number or ball---> drawing      8.1: no cancelling after
//! drawing                       --20th ball, DrawComplete> drawn        9.1, 10.1
//! drawn                         --Settle-----------------> settled      10.1 (ball check), 11.1
//! drawing, drawn                --a void ball------------> drawing      10.4(a)
//! closed, drawing, drawn, void  --a void draw------------> void         10.2, 10.4(c)
//! void                          --the new draw's 1st ball> drawing      10.2
//! closed, drawing, void         --drawn by hand----------> (the same)   10.4(b), (d): mode manual
//! drawing, drawn                --a correction asked-----> (the same)   10.1: holds settlement
//! closed, drawing, drawn, void  --Invalidate-------------> invalidated  17.3 (open: closed first)
//! ```
//!
//! The server stores the state as text (`games.state`) and shows it in the API; both keep the
//! strings of [`GameState::as_str`]. "Ball check" is not a state: it is the time after a ball
//! device's 20th ball during which the game stays `drawn` so that the balls can be checked
//! against the numbers shown (10.1); a pending correction holds settlement the same way.
//!
//! In the manner of quinn-proto, nothing here touches a clock, a database or a generator: the
//! caller passes the facts it has stored and `now` (microseconds since the Unix epoch, UTC, as
//! the server stores them), and gets back either the next state ([`transition`],
//! [`GameFacts::apply`]) or what to do next ([`clock_step`], [`drawer_step`]). The server's
//! tasks then only load facts, act on the decision, and store what [`GameFacts::apply`] returns.

use std::fmt;
#[cfg(test)]
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::board::NUMBERS_DRAWN;
use crate::code::stored_code;
#[cfg(test)]
use crate::code::Code;
pub use crate::code::UnknownCode;

/// A draw is complete with this many standing numbers (rule 9.1).
const DRAW_SIZE: u8 = NUMBERS_DRAWN as u8;

/// Where a game is in its life cycle, as stored in `games.state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameState {
    /// On sale: tickets are written for it.
    Open,
    /// Closed for sale and announced as closed, not yet drawn (rules 9.2, 9.4).
    Closed,
    /// At least one number of the current draw is committed (or was, and a void ball took it
    /// out again): tickets can no longer be cancelled (8.1).
    Drawing,
    /// 20 numbers stand; not settled yet (a ball game's check time, a pending correction).
    Drawn,
    /// Every way of every ticket in it is settled: final.
    Settled,
    /// The current draw was declared void (10.2, 10.4(c)); a new draw follows in the same game.
    Void,
    /// Invalidated by the operator (17.3): wagers refunded, never drawn further or settled.
    Invalidated,
}

impl GameState {
    pub const ALL: [GameState; 7] = [
        GameState::Open,
        GameState::Closed,
        GameState::Drawing,
        GameState::Drawn,
        GameState::Settled,
        GameState::Void,
        GameState::Invalidated,
    ];

    /// The stored text (`games.state`) and the API's `state`.
    pub fn as_str(self) -> &'static str {
        match self {
            GameState::Open => "open",
            GameState::Closed => "closed",
            GameState::Drawing => "drawing",
            GameState::Drawn => "drawn",
            GameState::Settled => "settled",
            GameState::Void => "void",
            GameState::Invalidated => "invalidated",
        }
    }

    /// Tickets are sold for this game. Rule 9.2: the draw comes after the game closes, so sales
    /// stop at the close.
    pub fn sales_open(self) -> bool {
        self == GameState::Open
    }

    /// Rule 8.1: a game's entries can be cancelled up to the time its first number is drawn.
    /// A void draw counts as drawn: a ball of it was seen (and `void` may also follow a fault
    /// found before any ball, which the server treats alike).
    pub fn cancellable(self) -> bool {
        matches!(self, GameState::Open | GameState::Closed)
    }

    /// The games the drawer takes, lowest number first: closed and not yet settled or
    /// invalidated. Settlement carries each game's jackpot pools into the next, so games are
    /// drawn and settled in order (rule 7.3).
    pub fn awaiting_draw(self) -> bool {
        matches!(
            self,
            GameState::Closed | GameState::Drawing | GameState::Drawn | GameState::Void
        )
    }

    /// The game is over for its tickets: settled (its prizes are known) or invalidated (its
    /// wagers are refunded). A ticket is paid once all its games are final.
    pub fn is_final(self) -> bool {
        matches!(self, GameState::Settled | GameState::Invalidated)
    }

    /// Rule 17.3: the operator may invalidate the outcome of a game not yet settled. An open
    /// game is closed first (see [`invalidation_steps`]).
    pub fn invalidatable(self) -> bool {
        !self.is_final()
    }

    /// The stored codes of the states that satisfy `keep`, for a query's `IN (...)`.
    pub fn codes_where(keep: impl Fn(GameState) -> bool) -> Vec<&'static str> {
        GameState::ALL
            .into_iter()
            .filter(|s| keep(*s))
            .map(GameState::as_str)
            .collect()
    }
}

stored_code!(GameState, "game state");

/// What draws a game's numbers (rule 3.2), fixed as the game opens (`games.source`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DrawSource {
    /// The certified random number generator: the computer's record is official (10.1).
    Rng,
    /// A ball machine feeding its balls: the balls are official (10.1).
    BallDevice,
}

impl DrawSource {
    pub const ALL: [DrawSource; 2] = [DrawSource::Rng, DrawSource::BallDevice];

    pub fn as_str(self) -> &'static str {
        match self {
            DrawSource::Rng => "rng",
            DrawSource::BallDevice => "ball_device",
        }
    }
}

stored_code!(DrawSource, "draw source");

/// How the numbers of the current draw are entered (`games.draw_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DrawMode {
    Rng,
    /// The ball device posts each ball.
    Device,
    /// A supervisor enters the balls drawn by hand (10.4(b), (d)).
    Manual,
}

impl DrawMode {
    pub const ALL: [DrawMode; 3] = [DrawMode::Rng, DrawMode::Device, DrawMode::Manual];

    pub fn as_str(self) -> &'static str {
        match self {
            DrawMode::Rng => "rng",
            DrawMode::Device => "device",
            DrawMode::Manual => "manual",
        }
    }

    /// The mode a game opens with, and the mode a new draw after a void one starts in: by
    /// hand only once a fault of 10.4(b) or (d) says so.
    pub fn initial(source: DrawSource) -> DrawMode {
        match source {
            DrawSource::Rng => DrawMode::Rng,
            DrawSource::BallDevice => DrawMode::Device,
        }
    }
}

stored_code!(DrawMode, "draw mode");

/// A fault of a ball draw (rules 10.2, 10.4), as reported to the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// Fewer than 80 balls in the device at the start of the draw (10.2).
    ShortOfBalls,
    /// A ball broke and a piece of it was drawn (10.4(a)).
    BrokenBall,
    /// Drawn balls fell back into the device before the draw was complete (10.4(b)).
    FallBack,
    /// A ball or balls spilled from the device (10.4(c)).
    Spill,
    /// The device stopped during the draw (10.4(d)).
    Stoppage,
    /// No functional device is available: the game is drawn by hand (10.4(d), second sentence).
    NoDevice,
}

/// What a fault does to the draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FaultEffect {
    /// The whole draw is void and a new one starts in the same game (10.2, 10.4(c)).
    VoidDraw,
    /// One ball is void; the balls after it move up and one more is drawn (10.4(a)).
    VoidBall,
    /// The balls drawn stand; the rest are drawn by hand (10.4(b), (d)).
    ByHand,
}

impl FaultKind {
    pub const ALL: [FaultKind; 6] = [
        FaultKind::ShortOfBalls,
        FaultKind::BrokenBall,
        FaultKind::FallBack,
        FaultKind::Spill,
        FaultKind::Stoppage,
        FaultKind::NoDevice,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FaultKind::ShortOfBalls => "short_of_balls",
            FaultKind::BrokenBall => "broken_ball",
            FaultKind::FallBack => "fall_back",
            FaultKind::Spill => "spill",
            FaultKind::Stoppage => "stoppage",
            FaultKind::NoDevice => "no_device",
        }
    }

    /// The game states in which the fault can be reported.
    pub fn allowed_in(self) -> &'static [GameState] {
        use GameState::*;
        match self {
            // Too few balls may be found only when the balls are checked after the 20th; a
            // broken ball likewise. A spill happens during a draw.
            FaultKind::ShortOfBalls => &[Closed, Drawing, Drawn, Void],
            FaultKind::BrokenBall => &[Drawing, Drawn],
            FaultKind::Spill => &[Closed, Drawing, Void],
            FaultKind::FallBack => &[Drawing],
            FaultKind::Stoppage | FaultKind::NoDevice => &[Closed, Drawing, Void],
        }
    }

    pub fn effect(self) -> FaultEffect {
        match self {
            FaultKind::ShortOfBalls | FaultKind::Spill => FaultEffect::VoidDraw,
            FaultKind::BrokenBall => FaultEffect::VoidBall,
            FaultKind::FallBack | FaultKind::Stoppage | FaultKind::NoDevice => FaultEffect::ByHand,
        }
    }

    pub fn rule(self) -> &'static str {
        match self {
            FaultKind::ShortOfBalls => "10.2",
            FaultKind::BrokenBall => "10.4(a)",
            FaultKind::FallBack => "10.4(b)",
            FaultKind::Spill => "10.4(c)",
            FaultKind::Stoppage | FaultKind::NoDevice => "10.4(d)",
        }
    }
}

stored_code!(FaultKind, "fault kind");

/// Every change the server makes to a game after opening it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameEvent {
    /// Closed for sale: by the clock at `closes_at`, or early by a supervisor (9.2).
    Close,
    /// The RNG's number committed; `standing` is how many numbers stand after it (1 to 20).
    /// The 20th leaves the game `drawing` until [`GameEvent::DrawComplete`].
    NumberDrawn { standing: u8 },
    /// A ball committed, posted by the device or entered by hand; `standing` as above. The 20th
    /// makes the game `drawn` at once (10.1: the balls are the record).
    BallDrawn { standing: u8 },
    /// The RNG draw has its 20 numbers: `drawing` becomes `drawn`.
    DrawComplete,
    /// A fault of rule 10; [`FaultKind::effect`] says what follows: a void draw (`void`), a
    /// void ball (back to `drawing`, 10.4(a)) or a draw finished by hand (same state).
    Fault(FaultKind),
    /// A correction of a standing number is asked (10.1); it holds settlement until closed.
    CorrectionAsked,
    /// A pending correction is approved by both roles and applied: the number changes, the
    /// state does not.
    Corrected,
    /// A pending correction is rejected: the number stands as drawn.
    CorrectionRejected,
    /// Every ticket in the game is settled (11.1).
    Settle,
    /// The outcome is invalidated (17.3). Not from `open`: see [`invalidation_steps`].
    Invalidate,
}

impl GameEvent {
    /// The states the event may happen in: also the states a server's transaction holds the
    /// game row in (`UPDATE ... WHERE state IN (...)`) before making the change.
    pub fn allowed_from(&self) -> &'static [GameState] {
        use GameState::*;
        match self {
            GameEvent::Close => &[Open],
            GameEvent::NumberDrawn { .. } => &[Closed, Drawing],
            GameEvent::BallDrawn { .. } => &[Closed, Drawing, Void],
            GameEvent::DrawComplete => &[Drawing],
            GameEvent::Fault(kind) => kind.allowed_in(),
            GameEvent::CorrectionAsked | GameEvent::Corrected => &[Drawing, Drawn],
            // A rejection changes no number, so the server takes it while any draw is pending.
            GameEvent::CorrectionRejected => &[Closed, Drawing, Drawn, Void],
            GameEvent::Settle => &[Drawn],
            GameEvent::Invalidate => &[Closed, Drawing, Drawn, Void],
        }
    }

    /// The draw source the event belongs to; `None` for either.
    pub fn source(&self) -> Option<DrawSource> {
        match self {
            GameEvent::NumberDrawn { .. } | GameEvent::DrawComplete => Some(DrawSource::Rng),
            GameEvent::BallDrawn { .. }
            | GameEvent::Fault(_)
            | GameEvent::CorrectionAsked
            | GameEvent::Corrected
            | GameEvent::CorrectionRejected => Some(DrawSource::BallDevice),
            GameEvent::Close | GameEvent::Settle | GameEvent::Invalidate => None,
        }
    }

    /// The rule that governs the event.
    pub fn rule(&self) -> &'static str {
        match self {
            GameEvent::Close => "9.2",
            GameEvent::NumberDrawn { .. } | GameEvent::DrawComplete => "9.1",
            GameEvent::BallDrawn { .. }
            | GameEvent::CorrectionAsked
            | GameEvent::Corrected
            | GameEvent::CorrectionRejected => "10.1",
            GameEvent::Fault(kind) => kind.rule(),
            GameEvent::Settle => "11.1",
            GameEvent::Invalidate => "17.3",
        }
    }
}

impl fmt::Display for GameEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameEvent::Close => f.write_str("closing"),
            GameEvent::NumberDrawn { standing } => write!(f, "drawing number {standing}"),
            GameEvent::BallDrawn { standing } => write!(f, "taking ball {standing}"),
            GameEvent::DrawComplete => f.write_str("completing the draw"),
            GameEvent::Fault(kind) => write!(f, "a {kind} fault"),
            GameEvent::CorrectionAsked => f.write_str("asking a correction"),
            GameEvent::Corrected => f.write_str("applying a correction"),
            GameEvent::CorrectionRejected => f.write_str("rejecting a correction"),
            GameEvent::Settle => f.write_str("settling"),
            GameEvent::Invalidate => f.write_str("invalidating"),
        }
    }
}

/// "closed or drawing": the states of an error message.
fn or_list(states: &[GameState]) -> String {
    let names: Vec<&str> = states.iter().map(|s| s.as_str()).collect();
    names.join(" or ")
}

/// " until T", or nothing when the check has no end yet.
fn until_text(until: Option<i64>) -> String {
    match until {
        Some(until) => format!(" until {until}"),
        None => String::new(),
    }
}

/// Why a change to a game is refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LifecycleError {
    #[error("the game is {state}, no longer open for sale (rule 9.2)")]
    NotOpen { state: GameState },
    #[error("the game is {state}: {event} is possible only while it is {} (rule {})", or_list(event.allowed_from()), event.rule())]
    NotDrawing { state: GameState, event: GameEvent },
    #[error("the game is settled: its draw is final and {event} is no longer possible")]
    AlreadySettled { event: GameEvent },
    #[error("the game is {state}: only a drawn game is settled (rule 11.1)")]
    NotDrawn { state: GameState },
    #[error("the game is open: it is closed first, so that no sale lands in it (rule 17.3)")]
    CloseFirst,
    #[error("the game is {state}: only a game not yet settled can be invalidated (rule 17.3)")]
    CannotInvalidate { state: GameState },
    #[error("the game is drawn by the random number generator, not a ball device: {event} is for ball draws (rule 10.1)")]
    NotABallGame { event: GameEvent },
    #[error("the game is drawn by a ball device: {event} is for the random number generator")]
    NotAnRngGame { event: GameEvent },
    #[error("a draw has 1 to 20 standing numbers, not {standing} (rule 9.1)")]
    StandingOutOfRange { standing: u8 },
    #[error("{got} numbers would stand where {expected} should: a draw continues from its last valid number (rule 10.3)")]
    OutOfOrder { expected: u8, got: u8 },
    #[error("the draw has {standing} of its 20 numbers (rule 9.1)")]
    DrawIncomplete { standing: u8 },
    #[error("the draw is already being finished by hand (rule {})", fault.rule())]
    AlreadyManual { fault: FaultKind },
    #[error("no ball stands in the draw to be voided (rule 10.4(a))")]
    NoBallToVoid,
    #[error("no number stands in the draw to be corrected (rule 10.1)")]
    NothingToCorrect,
    #[error("no correction of the game is pending (rule 10.1)")]
    NoPendingCorrection,
    #[error("the balls are being checked against the numbers shown{} (rule 10.1)", until_text(*until))]
    BallCheck { until: Option<i64> },
    #[error("a correction of the draw is waiting for its approvals (rule 10.1)")]
    HeldByCorrection,
}

impl LifecycleError {
    /// The machine code the API answers with (`{"error": code}`). Where the server refuses
    /// the same thing today it uses the same code; `game_not_drawn`, `game_open`,
    /// `not_an_rng_game`, `draw_out_of_order`, `draw_incomplete` and `ball_check` are new:
    /// the server meets those cases inside its own tasks and refuses them silently.
    pub fn code(&self) -> &'static str {
        use LifecycleError::*;
        match self {
            NotOpen { .. } => "game_closed",
            NotDrawing { .. } => "game_not_drawing",
            AlreadySettled { .. } => "already_settled",
            NotDrawn { .. } => "game_not_drawn",
            CloseFirst => "game_open",
            CannotInvalidate { .. } => "cannot_invalidate",
            NotABallGame { .. } => "not_a_ball_game",
            NotAnRngGame { .. } => "not_an_rng_game",
            StandingOutOfRange { .. } | NothingToCorrect => "invalid_position",
            OutOfOrder { .. } => "draw_out_of_order",
            DrawIncomplete { .. } => "draw_incomplete",
            AlreadyManual { .. } => "already_manual",
            NoBallToVoid => "not_drawn",
            NoPendingCorrection => "correction_closed",
            BallCheck { .. } => "ball_check",
            HeldByCorrection => "correction_pending",
        }
    }

    /// The rule the refusal enforces, as cited in the rule text.
    pub fn rule(&self) -> &'static str {
        use LifecycleError::*;
        match self {
            NotOpen { .. } => "9.2",
            NotDrawing { event, .. } | AlreadySettled { event } => event.rule(),
            NotDrawn { .. } => "11.1",
            CloseFirst | CannotInvalidate { .. } => "17.3",
            NotABallGame { .. } | NotAnRngGame { .. } => "10.1",
            StandingOutOfRange { .. } | DrawIncomplete { .. } => "9.1",
            OutOfOrder { .. } => "10.3",
            AlreadyManual { fault } => fault.rule(),
            NoBallToVoid => "10.4(a)",
            NothingToCorrect | NoPendingCorrection | BallCheck { .. } | HeldByCorrection => "10.1",
        }
    }
}

/// The state after `event` in state `from`, judged on the states alone (and the standing
/// count an event carries); [`GameFacts::apply`] adds the checks that need the game's facts.
pub fn transition(from: GameState, event: &GameEvent) -> Result<GameState, LifecycleError> {
    if !event.allowed_from().contains(&from) {
        return Err(refusal(from, event));
    }
    Ok(match *event {
        GameEvent::Close => GameState::Closed,
        GameEvent::NumberDrawn { standing } => {
            in_range(standing)?;
            GameState::Drawing
        }
        // Rule 10.1: the 20th ball is the record, with nothing left for the computer to do.
        GameEvent::BallDrawn { standing } => {
            if in_range(standing)? == DRAW_SIZE {
                GameState::Drawn
            } else {
                GameState::Drawing
            }
        }
        GameEvent::DrawComplete => GameState::Drawn,
        GameEvent::Fault(kind) => match kind.effect() {
            FaultEffect::VoidDraw => GameState::Void,
            FaultEffect::VoidBall => GameState::Drawing,
            FaultEffect::ByHand => from,
        },
        GameEvent::CorrectionAsked | GameEvent::Corrected | GameEvent::CorrectionRejected => from,
        GameEvent::Settle => GameState::Settled,
        GameEvent::Invalidate => GameState::Invalidated,
    })
}

fn in_range(standing: u8) -> Result<u8, LifecycleError> {
    if (1..=DRAW_SIZE).contains(&standing) {
        Ok(standing)
    } else {
        Err(LifecycleError::StandingOutOfRange { standing })
    }
}

/// The error for an event in a state it is not allowed in, with the server's codes.
fn refusal(from: GameState, event: &GameEvent) -> LifecycleError {
    match (event, from) {
        (GameEvent::Close, state) => LifecycleError::NotOpen { state },
        (GameEvent::Invalidate, GameState::Open) => LifecycleError::CloseFirst,
        (GameEvent::Invalidate, state) => LifecycleError::CannotInvalidate { state },
        // A device hears one code for every game it cannot feed, settled or not (balls.rs).
        (GameEvent::BallDrawn { .. }, state) => LifecycleError::NotDrawing {
            state,
            event: *event,
        },
        (event, GameState::Settled) => LifecycleError::AlreadySettled { event: *event },
        (GameEvent::Settle, state) => LifecycleError::NotDrawn { state },
        (event, state) => LifecycleError::NotDrawing {
            state,
            event: *event,
        },
    }
}

/// The events that invalidate a game in state `from`, in order (rule 17.3).
///
/// An open game is first closed, in a transaction of its own that also opens the next game, so
/// that no sale lands in the game while it is invalidated; only then is it invalidated. The
/// drawer may take the game between the two (it is closed): the invalidation then finds it
/// `drawing`, which 17.3 allows just the same.
pub fn invalidation_steps(from: GameState) -> Result<&'static [GameEvent], LifecycleError> {
    match from {
        GameState::Open => Ok(&[GameEvent::Close, GameEvent::Invalidate]),
        state if state.invalidatable() => Ok(&[GameEvent::Invalidate]),
        state => Err(LifecycleError::CannotInvalidate { state }),
    }
}

/// The settings the drawer's decisions depend on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawerSettings {
    /// How long a ball draw stays open to checking and correction after its 20th ball (10.1),
    /// in microseconds.
    pub ball_check_micros: i64,
}

/// What the server stores about a game that its life cycle depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameFacts {
    pub state: GameState,
    pub source: DrawSource,
    pub mode: DrawMode,
    /// Which draw of the game this is, from 1: each void draw starts another (10.2, 10.4(c)).
    pub attempt: u32,
    /// When the game closes for sale (9.2).
    pub closes_at: i64,
    /// When the current draw's 20th number was committed.
    pub drawn_at: Option<i64>,
    /// Numbers standing in the current draw (positions 1 to `standing`).
    pub standing: u8,
    /// Corrections asked and neither applied, rejected nor lapsed (10.1).
    pub pending_corrections: u32,
}

impl GameFacts {
    /// A game as it opens.
    pub fn new(source: DrawSource, closes_at: i64) -> GameFacts {
        GameFacts {
            state: GameState::Open,
            source,
            mode: DrawMode::initial(source),
            attempt: 1,
            closes_at,
            drawn_at: None,
            standing: 0,
            pending_corrections: 0,
        }
    }

    /// The facts after `event` at `now`, or why it is refused. The checks come in the server's
    /// order: the draw source, then the state, then the draw's own facts.
    pub fn apply(
        &self,
        event: &GameEvent,
        settings: &DrawerSettings,
        now: i64,
    ) -> Result<GameFacts, LifecycleError> {
        match (event.source(), self.source) {
            (Some(DrawSource::BallDevice), DrawSource::Rng) => {
                return Err(LifecycleError::NotABallGame { event: *event })
            }
            (Some(DrawSource::Rng), DrawSource::BallDevice) => {
                return Err(LifecycleError::NotAnRngGame { event: *event })
            }
            _ => {}
        }
        let mut next = GameFacts {
            state: transition(self.state, event)?,
            ..*self
        };
        match *event {
            GameEvent::Close => {}
            GameEvent::NumberDrawn { standing } | GameEvent::BallDrawn { standing } => {
                next.standing = self.next_number(standing)?;
                if next.state == GameState::Drawn {
                    next.drawn_at = Some(now);
                }
            }
            GameEvent::DrawComplete if self.standing != DRAW_SIZE => {
                return Err(LifecycleError::DrawIncomplete {
                    standing: self.standing,
                })
            }
            GameEvent::DrawComplete => next.drawn_at = Some(now),
            GameEvent::Fault(kind) => self.fault(kind, &mut next)?,
            GameEvent::CorrectionAsked if self.standing == 0 => {
                return Err(LifecycleError::NothingToCorrect)
            }
            GameEvent::CorrectionAsked => next.pending_corrections += 1,
            GameEvent::Corrected | GameEvent::CorrectionRejected => {
                next.pending_corrections = self
                    .pending_corrections
                    .checked_sub(1)
                    .ok_or(LifecycleError::NoPendingCorrection)?;
            }
            GameEvent::Settle => self.may_settle(settings, now)?,
            // The corrections lapse: they were asked of a draw that no longer counts.
            GameEvent::Invalidate => next.pending_corrections = 0,
        }
        Ok(next)
    }

    /// Rule 10.3: each number continues the draw from the last valid one, so the count after
    /// it is one more than before; none after the 20th (9.1).
    fn next_number(&self, standing: u8) -> Result<u8, LifecycleError> {
        let expected = self.standing + 1;
        if self.standing >= DRAW_SIZE {
            return Err(LifecycleError::StandingOutOfRange { standing: expected });
        }
        if standing != expected {
            return Err(LifecycleError::OutOfOrder {
                expected,
                got: standing,
            });
        }
        Ok(standing)
    }

    fn fault(&self, kind: FaultKind, next: &mut GameFacts) -> Result<(), LifecycleError> {
        match kind.effect() {
            // The balls leave the record and a new draw starts, by the device unless a new
            // fault says otherwise; corrections asked of the old draw lapse.
            FaultEffect::VoidDraw => {
                next.standing = 0;
                next.attempt = self.attempt.saturating_add(1);
                next.mode = DrawMode::Device;
                next.drawn_at = None;
                next.pending_corrections = 0;
            }
            // The balls after the void one move up a place, so corrections asked by position
            // no longer name the ball they were asked for: they lapse.
            FaultEffect::VoidBall => {
                next.standing = self
                    .standing
                    .checked_sub(1)
                    .ok_or(LifecycleError::NoBallToVoid)?;
                next.drawn_at = None;
                next.pending_corrections = 0;
            }
            FaultEffect::ByHand if self.mode == DrawMode::Manual => {
                return Err(LifecycleError::AlreadyManual { fault: kind })
            }
            FaultEffect::ByHand => next.mode = DrawMode::Manual,
        }
        Ok(())
    }

    /// Rule 10.1: the numbers on a ball game's 20 balls are the record, so it stays open to
    /// checking for its check time after the 20th ball; and no game is settled while a
    /// correction may still change a number.
    fn may_settle(&self, settings: &DrawerSettings, now: i64) -> Result<(), LifecycleError> {
        if self.source == DrawSource::BallDevice {
            let until = self
                .drawn_at
                .map(|at| at.saturating_add(settings.ball_check_micros));
            if until.is_none_or(|until| until > now) {
                return Err(LifecycleError::BallCheck { until });
            }
        }
        if self.pending_corrections > 0 {
            return Err(LifecycleError::HeldByCorrection);
        }
        Ok(())
    }
}

/// What the game clock does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockStep {
    /// No game is open and Keno is open: open the next game.
    OpenNext,
    /// The open game's time is up: close it (9.2), and in the same transaction open the next
    /// one if `open_next` (Keno is open).
    Close { game: i64, open_next: bool },
    /// Nothing to do before this time (microseconds): the open game's `closes_at`.
    WaitUntil(i64),
    /// Keno is closed and no game is open: look again at the next Keno Day's start.
    Idle,
}

/// The clock's decision, from the open game (its number and `closes_at`), whether `now` is
/// inside Keno hours (rule 16.1; the caller knows the hours and the time zone), the time of
/// the early closure in force today if any (rule 16.2, [`crate::closure`]), and `now`.
///
/// A game left open past the end of Keno hours still closes at its time, so that it is drawn;
/// only the next game is not opened.
pub fn clock_step(
    open_game: Option<(i64, i64)>,
    keno_day_open: bool,
    closure: Option<i64>,
    now: i64,
) -> ClockStep {
    // Rule 16.2: no game opens at or after the closure; Keno opens again the next Keno Day.
    let may_open = keno_day_open && crate::closure::may_open(closure, now);
    match open_game {
        // Rule 16.2: a game still open when Keno closes early closes with it.
        Some((game, closes_at)) if crate::closure::effective_close(closes_at, closure) <= now => {
            ClockStep::Close {
                game,
                open_next: may_open,
            }
        }
        Some((_, closes_at)) => {
            ClockStep::WaitUntil(crate::closure::effective_close(closes_at, closure))
        }
        None if may_open => ClockStep::OpenNext,
        None => ClockStep::Idle,
    }
}

/// What the drawer does next with the lowest-numbered game awaiting a draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawerStep {
    /// Draw number `position` with the RNG, commit it ([`GameEvent::NumberDrawn`]), then show
    /// it (9.3).
    DrawNext { position: u8 },
    /// The RNG's 20 numbers stand: mark the game drawn ([`GameEvent::DrawComplete`]).
    FinishDraw,
    /// A ball device draws this game: wait for its balls (or a fault, or a wake-up).
    AwaitDevice,
    /// The balls are being checked (10.1): settle at this time at the earliest.
    BallCheckUntil(i64),
    /// Settle the game ([`GameEvent::Settle`]).
    Settle,
    /// A correction waits for its approvals: look again when one is decided.
    HeldByCorrection,
    /// The game is not the drawer's (open, settled, invalidated), or it is stuck: an RNG game
    /// is never void, since faults are reported only of ball draws.
    Nothing,
}

/// The drawer's decision for one game at `now`. Pacing between numbers (the reveal interval)
/// is the caller's: it is display timing, not a rule of the life cycle.
pub fn drawer_step(game: &GameFacts, settings: &DrawerSettings, now: i64) -> DrawerStep {
    if !game.state.awaiting_draw() {
        return DrawerStep::Nothing;
    }
    if game.state != GameState::Drawn {
        return match game.source {
            DrawSource::BallDevice => DrawerStep::AwaitDevice,
            DrawSource::Rng if game.state == GameState::Void => DrawerStep::Nothing,
            DrawSource::Rng if game.standing < DRAW_SIZE => DrawerStep::DrawNext {
                position: game.standing + 1,
            },
            DrawSource::Rng => DrawerStep::FinishDraw,
        };
    }
    if game.source == DrawSource::BallDevice {
        // A drawn game has its `drawn_at`; without one the check is counted from now, as the
        // server's drawer does, and settlement keeps refusing it.
        let from = game.drawn_at.unwrap_or(now);
        let until = from.saturating_add(settings.ball_check_micros);
        if game.drawn_at.is_none() || until > now {
            return DrawerStep::BallCheckUntil(until);
        }
    }
    if game.pending_corrections > 0 {
        return DrawerStep::HeldByCorrection;
    }
    DrawerStep::Settle
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trips<T>(all: &[T])
    where
        T: Code + FromStr<Err = UnknownCode> + PartialEq + fmt::Debug + fmt::Display + Serialize,
        T: for<'de> Deserialize<'de>,
    {
        for &v in all {
            assert_eq!(v.code().parse::<T>(), Ok(v));
            assert_eq!(v.to_string(), v.code());
            let json = serde_json::to_string(&v).unwrap();
            assert_eq!(json, format!("\"{}\"", v.code()));
            assert_eq!(serde_json::from_str::<T>(&json).unwrap(), v);
        }
        let mut codes: Vec<&str> = all.iter().map(|v| v.code()).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), all.len(), "codes are distinct");
    }

    #[test]
    fn stored_codes_round_trip_through_as_str_parse_and_serde() {
        round_trips(&GameState::ALL);
        round_trips(&DrawSource::ALL);
        round_trips(&DrawMode::ALL);
        round_trips(&FaultKind::ALL);
    }

    #[test]
    fn the_stored_strings_are_the_servers() {
        let states: Vec<&str> = GameState::ALL.iter().map(|s| s.as_str()).collect();
        assert_eq!(
            states,
            [
                "open",
                "closed",
                "drawing",
                "drawn",
                "settled",
                "void",
                "invalidated"
            ]
        );
        assert_eq!(DrawSource::BallDevice.as_str(), "ball_device");
        assert_eq!(FaultKind::ShortOfBalls.as_str(), "short_of_balls");
        assert_eq!(FaultKind::FallBack.as_str(), "fall_back");
        assert_eq!(FaultKind::NoDevice.as_str(), "no_device");
    }

    #[test]
    fn an_unknown_code_says_what_it_is_not() {
        let e = GameState::parse("Settled").unwrap_err();
        assert_eq!(
            e,
            UnknownCode {
                what: "game state",
                value: "Settled".into()
            }
        );
        assert_eq!(e.to_string(), "\"Settled\" is not a game state");
        assert_eq!(
            "rngs".parse::<DrawSource>().unwrap_err().what,
            "draw source"
        );
        assert_eq!(DrawMode::parse("").unwrap_err().what, "draw mode");
        assert_eq!(FaultKind::parse("spills").unwrap_err().what, "fault kind");
        assert!(serde_json::from_str::<GameState>("\"closing\"").is_err());
    }

    #[test]
    fn a_game_opens_in_the_mode_of_its_source() {
        assert_eq!(DrawMode::initial(DrawSource::Rng), DrawMode::Rng);
        assert_eq!(DrawMode::initial(DrawSource::BallDevice), DrawMode::Device);
    }

    #[test]
    fn predicates_name_the_servers_state_lists() {
        assert_eq!(GameState::codes_where(GameState::sales_open), ["open"]);
        assert_eq!(
            GameState::codes_where(GameState::cancellable),
            ["open", "closed"]
        );
        assert_eq!(
            GameState::codes_where(GameState::awaiting_draw),
            ["closed", "drawing", "drawn", "void"]
        );
        assert_eq!(
            GameState::codes_where(GameState::is_final),
            ["settled", "invalidated"]
        );
        assert_eq!(
            GameState::codes_where(GameState::invalidatable),
            ["open", "closed", "drawing", "drawn", "void"]
        );
    }

    #[test]
    fn every_error_has_a_code_and_a_rule() {
        let errors = [
            LifecycleError::NotOpen {
                state: GameState::Closed,
            },
            LifecycleError::NotDrawing {
                state: GameState::Open,
                event: GameEvent::Fault(FaultKind::Spill),
            },
            LifecycleError::BallCheck { until: Some(5) },
            LifecycleError::BallCheck { until: None },
        ];
        for e in &errors {
            assert!(!e.code().is_empty() && !e.rule().is_empty());
            assert!(e.to_string().contains(e.rule()) || e.code() == "already_settled");
        }
        let e = &errors[1];
        assert_eq!(e.rule(), "10.4(c)");
        assert_eq!(
            e.to_string(),
            "the game is open: a spill fault is possible only while it is closed or drawing \
             or void (rule 10.4(c))"
        );
    }
}
