//! Cancelling a ticket (rule 8).
//!
//! - 8.1: a game can be cancelled until its first number is drawn;
//! - 8.2: a multi-game ticket's games not yet played can be cancelled; a Keno To Go ticket
//!   (rule 1(f)) only whole, before the first number of its first game;
//! - 8.3: not on a later Keno Day than the one it was sold on.
//!
//! A whole ticket returns what was paid for it (a Keno To Go discount included); a part, the
//! games not played at the game cost (only tickets too short for a discount are cancelled in
//! part, so nothing is lost to it).

use thiserror::Error;

use crate::keno_day::KenoDay;
use crate::status::TicketStatus;

/// What the server reads of a ticket to cancel it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CancelFacts {
    pub status: TicketStatus,
    /// The Keno Day it was sold on.
    pub keno_day: KenoDay,
    pub first_game: u64,
    /// The last game not cancelled already.
    pub last_played_game: u64,
    /// How many games it was sold for.
    pub games: u32,
    /// Rule 1(f), from the rule set it was sold under (`GameRules::is_keno_to_go(games)`).
    pub keno_to_go: bool,
    /// What was charged for it.
    pub total_cents: u64,
    /// One game's cost.
    pub game_cost_cents: u64,
    /// The first of its games, from the first to the last played, whose draw has not started;
    /// the server finds it holding the game's row against its draw starting. `None`: every
    /// one has started.
    pub first_not_drawing: Option<u64>,
}

/// What a cancellation does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cancellation {
    /// The first game cancelled; every game from it to `to_game` is.
    pub from_game: u64,
    /// The last game cancelled: the ticket's last played game.
    pub to_game: u64,
    /// The whole ticket: it becomes `cancelled`; otherwise it stays `active` for the games
    /// played.
    pub whole: bool,
    pub refund_cents: u64,
}

/// Why a ticket is not cancelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum CancelRefusal {
    #[error("the ticket is paid")]
    AlreadyPaid,
    #[error("the ticket is already cancelled")]
    AlreadyCancelled,
    #[error("the ticket's wagers were voided (rule 17.2)")]
    Voided,
    #[error(
        "the ticket was sold on Keno Day {sold_on}; its games cannot be cancelled on a later \
         Keno Day (rule 8.3)"
    )]
    LaterKenoDay { sold_on: KenoDay },
    #[error(
        "every game of the ticket has started drawing: a game can be cancelled only until its \
         first number is drawn (rule 8.1)"
    )]
    EveryGameDrawing,
    #[error(
        "a Keno To Go ticket can be cancelled only whole, before the first number of its first \
         game (rule 8.2)"
    )]
    KenoToGoWholeOnly,
    #[error(
        "the game has started drawing: a game can be cancelled only until its first number is \
         drawn (rule 8.1)"
    )]
    GameDrawing,
}

impl CancelRefusal {
    /// The API's machine code (`{"error": code}`).
    pub fn code(&self) -> &'static str {
        match self {
            CancelRefusal::AlreadyPaid => "already_paid",
            CancelRefusal::AlreadyCancelled => "already_cancelled",
            CancelRefusal::Voided => "voided",
            CancelRefusal::LaterKenoDay { .. }
            | CancelRefusal::EveryGameDrawing
            | CancelRefusal::KenoToGoWholeOnly
            | CancelRefusal::GameDrawing => "cancel_not_allowed",
        }
    }

    /// The rule this refusal enforces.
    pub fn rule(&self) -> &'static str {
        match self {
            CancelRefusal::AlreadyPaid => "11.5",
            CancelRefusal::AlreadyCancelled => "8",
            CancelRefusal::Voided => "17.2",
            CancelRefusal::LaterKenoDay { .. } => "8.3",
            CancelRefusal::EveryGameDrawing | CancelRefusal::GameDrawing => "8.1",
            CancelRefusal::KenoToGoWholeOnly => "8.2",
        }
    }
}

/// Rule 8: what cancelling the ticket on Keno Day `today` cancels and refunds, or why it may
/// not. Refused in this order: paid, cancelled already, a later Keno Day (8.3), every game
/// drawing (8.1), a Keno To Go ticket in part (8.2), a single game drawing (8.1).
pub fn cancellation(facts: &CancelFacts, today: KenoDay) -> Result<Cancellation, CancelRefusal> {
    match facts.status {
        TicketStatus::Paid => return Err(CancelRefusal::AlreadyPaid),
        TicketStatus::Cancelled => return Err(CancelRefusal::AlreadyCancelled),
        TicketStatus::Voided => return Err(CancelRefusal::Voided),
        TicketStatus::Active => {}
    }
    if today > facts.keno_day {
        return Err(CancelRefusal::LaterKenoDay {
            sold_on: facts.keno_day,
        });
    }
    let (first, last) = (facts.first_game, facts.last_played_game);
    let Some(from) = facts
        .first_not_drawing
        .filter(|g| (first..=last).contains(g))
    else {
        return Err(CancelRefusal::EveryGameDrawing);
    };
    let whole = from == first;
    if !whole && facts.keno_to_go {
        return Err(CancelRefusal::KenoToGoWholeOnly);
    }
    if !whole && facts.games == 1 {
        return Err(CancelRefusal::GameDrawing);
    }
    let refund_cents = if whole {
        facts.total_cents
    } else {
        facts.game_cost_cents.saturating_mul(last - from + 1)
    };
    Ok(Cancellation {
        from_game: from,
        to_game: last,
        whole,
        refund_cents,
    })
}
