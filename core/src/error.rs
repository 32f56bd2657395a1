//! Why a selection, bet or wager is refused.
//!
//! Each refusal is its own variant so that callers can tell them apart; each says which rule it
//! enforces ([`BetError::rule`]) and carries the machine code of `shared/API.md`
//! ([`BetError::code`]). The `Display` text is for people at the counter.

use thiserror::Error;

use crate::money::Dollars;
use crate::schedule::ScheduleId;

/// A set of numbers that is not a valid selection, way or draw.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SelectionError {
    #[error("{number} is not on the board: numbers are 1 to 80 (rule 3.2)")]
    NumberOutOfRange { number: u8 },
    #[error("{number} is marked twice: each number may be chosen once (rule 1(l))")]
    DuplicateNumber { number: u8 },
    #[error("no numbers are marked: choose 1 to 15 numbers (rule 1(l))")]
    NoNumbers,
    #[error("{spots} numbers are marked: a selection has 1 to 15 numbers (rule 1(l))")]
    TooManySpots { spots: u8 },
    #[error("a draw is 20 distinct numbers, not {count} (rule 9.1)")]
    DrawSize { count: usize },
    #[error("a quick pick is for 1 to 15 numbers, not {count} (rules 1(l), 6.3(b))")]
    QuickPickCount { count: u8 },
    #[error("a way ticket needs at least one group of numbers (rule 5.5(b))")]
    NoGroups,
    #[error("group {group} of the way ticket is empty (rule 5.5(b))")]
    EmptyGroup { group: usize },
    #[error("{number} is in two groups: each number may be in one group only (rule 5.5(b))")]
    NumberInTwoGroups { number: u8 },
    #[error("say which ways to play: how many groups each way combines (rule 5.5(b)(v))")]
    NoCombine,
    #[error("a way cannot combine {k} groups when the ticket has {groups} (rule 5.5(b)(v))")]
    CombineOutOfRange { k: u8, groups: usize },
    #[error("combinations of {k} groups are listed twice (rule 5.5(b)(v))")]
    CombineRepeated { k: u8 },
    #[error(
        "a way of {spots} numbers is too large: each way has 1 to 15 spots (rules 1(l), 1(o))"
    )]
    WayTooLarge { spots: u8 },
    #[error("only a way ticket has groups and combinations; this bet is one selection (rule 5.5)")]
    NotAWayTicket,
    #[error("{count} numbers do not fit on the board of 80 (rule 3.2)")]
    TooManyNumbers { count: usize },
}

/// A bet or wager refused under the rule set.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BetError {
    #[error(transparent)]
    Selection(#[from] SelectionError),

    #[error("the {schedule} schedule has no prizes for {spots} spots (rule {})", schedule.rule())]
    ScheduleNotOffered { schedule: ScheduleId, spots: u8 },
    #[error("Special 3 is not approved by the regulator and cannot be sold (rule 18.4)")]
    ScheduleNotApproved,
    #[error("a jackpot entry must be of {allowed} spots, not {spots} (rules 6.3(a), 7.2)")]
    NotAJackpotType { spots: u8, allowed: String },

    #[error("the wager is {amount}; the minimum for a game is {min} (rule 6.2)")]
    BelowMinimumWager { amount: Dollars, min: Dollars },
    #[error("the wager is {amount}; a game's wager is in whole multiples of {step} (rule 6.2)")]
    NotWholeDollars { amount: Dollars, step: Dollars },
    #[error("the wager is {amount} per way; a jackpot entry is at least {min} per way (rules 6.2(c), 7.1)")]
    BelowJackpotMinimum { amount: Dollars, min: Dollars },
    #[error("the wager is {amount} per way; above the jackpot minimum {min}, wagers rise in units of {step} (rule 7.1)")]
    JackpotIncrement {
        amount: Dollars,
        min: Dollars,
        step: Dollars,
    },
    #[error("the wager is {amount} per way; with {ways} ways the minimum is {min} per way (rule 6.2(d))")]
    BelowWayMinimum {
        amount: Dollars,
        ways: u64,
        min: Dollars,
    },
    #[error("the wager is {amount} per way; amounts rise in units of {fine_step} up to {fine_limit}, then in units of {coarse_step} (rule 6.2(d))")]
    WayIncrement {
        amount: Dollars,
        fine_step: Dollars,
        fine_limit: Dollars,
        coarse_step: Dollars,
    },
    #[error("a ticket plays at least one game (rule 6.2)")]
    NoGames,
    #[error("a ticket plays at most {max} games, not {games} (rule 6.2, rule-set limit)")]
    TooManyGames { games: u32, max: u32 },
    #[error(
        "the ticket total would be {total}; a single receipt ticket is at most {max} (rule 6.2)"
    )]
    TicketTotalOverLimit { total: Dollars, max: Dollars },
    #[error("a ticket of {ways} ways is more than the {max} one ticket may have")]
    TooManyWays { ways: u64, max: u64 },
}

impl SelectionError {
    /// The rule this refusal enforces, as cited in the rule text.
    pub fn rule(&self) -> &'static str {
        use SelectionError::*;
        match self {
            NumberOutOfRange { .. } | TooManyNumbers { .. } => "3.2",
            DuplicateNumber { .. } | NoNumbers | TooManySpots { .. } => "1(l)",
            DrawSize { .. } => "9.1",
            QuickPickCount { .. } => "6.3(b)",
            NoGroups | EmptyGroup { .. } | NumberInTwoGroups { .. } => "5.5(b)",
            NoCombine | CombineOutOfRange { .. } | CombineRepeated { .. } => "5.5(b)(v)",
            WayTooLarge { .. } => "1(o)",
            NotAWayTicket => "5.5",
        }
    }
}

impl BetError {
    /// The machine code of `shared/API.md` (`{"error": code}`).
    pub fn code(&self) -> &'static str {
        use BetError::*;
        match self {
            Selection(_) => "invalid_selection",
            ScheduleNotOffered { .. } => "schedule_not_offered",
            ScheduleNotApproved => "schedule_not_approved",
            NotAJackpotType { .. } => "not_a_jackpot_type",
            BelowMinimumWager { .. } | BelowJackpotMinimum { .. } | BelowWayMinimum { .. } => {
                "below_minimum_wager"
            }
            NotWholeDollars { .. } | JackpotIncrement { .. } | WayIncrement { .. } => {
                "invalid_wager_increment"
            }
            NoGames | TooManyGames { .. } => "invalid_games",
            TicketTotalOverLimit { .. } => "ticket_total_over_limit",
            TooManyWays { .. } => "too_many_ways",
        }
    }

    /// The rule this refusal enforces, as cited in the rule text.
    pub fn rule(&self) -> &'static str {
        use BetError::*;
        match self {
            Selection(e) => e.rule(),
            ScheduleNotOffered { schedule, .. } => schedule.rule(),
            ScheduleNotApproved => "18.4",
            NotAJackpotType { .. } => "6.3(a)",
            BelowMinimumWager { .. } | NotWholeDollars { .. } => "6.2",
            BelowJackpotMinimum { .. } => "6.2(c)",
            JackpotIncrement { .. } => "7.1",
            BelowWayMinimum { .. } | WayIncrement { .. } => "6.2(d)",
            NoGames | TooManyGames { .. } | TicketTotalOverLimit { .. } | TooManyWays { .. } => {
                "6.2"
            }
        }
    }
}
