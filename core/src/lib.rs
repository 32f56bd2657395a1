//! The rules of Keno (ACT Casino Control Act 1988, Keno rules 1992, as interpreted in
//! `shared/rules/INTERPRETATION.md`) as pure code.
//!
//! Inputs in, decisions out: this crate does no I/O, reads no clock and owns no random number
//! generator. Randomness (the draw, quick picks) comes from a generator the caller passes in.
//!
//! - [`board`]: numbers, sets of numbers (an 80-bit set), selections and draws;
//! - [`rules`]: the rule set as data, loaded from TOML or JSON and validated;
//! - [`bet`]: bets, way tickets and the schedule each way plays;
//! - [`pricing`]: what a ticket costs (rule 6.2);
//! - [`settle`]: settling a game, with [`prorate`] and [`jackpot`];
//! - [`theory`]: the theoretical return of each schedule;
//! - [`random`]: unbiased random choices from a caller's generator;
//! - [`serial`]: ticket serials and voucher codes; [`tender`]: a sale paid by vouchers and
//!   winning tickets (rule 6.1);
//! - [`game`]: a game's life cycle (open, closed, drawn, settled; void draws and invalidation,
//!   rules 8.1, 9, 10, 17.3) and the game clock's and drawer's decisions, with time as an input;
//! - [`game_time`]: game time, carried by the monotonic clock from the wall clock, so a step of
//!   the wall clock never freezes, stretches or back-dates a game; the repair of a game left open
//!   under a wrong clock;
//! - the money of a ticket's life: [`keno_day`] (Keno Days without a clock), [`status`] (ticket
//!   status, payment method), [`prize`] (major prizes, rule 1(h); bonus wins, rule 6.3(e)),
//!   [`mod@payable`] (what a ticket pays and how, rules 11.5, 12.2), [`deadline`] (the twelve
//!   months of rules 13.1, 13.2), [`cancel`] (rule 8), [`refund`] (an invalidated game, rule
//!   17.3), [`closure`] (Keno closed early with notice, rule 16.2), [`standing`] (what each
//!   game of a ticket came to and when it is collected, as every view tells it);
//! - [`draw_stats`]: draw monitoring, the frequency, position and pairs tests of the games
//!   drawn;
//! - [`liability`]: what the open game could cost (expected payout, worst case), kept as ways
//!   are sold;
//! - running the room: [`staff`] (secrets, sign-on lock-out, sessions), [`duties`] (who
//!   manages whom, the same person, two parts by two people), [`shift`] (a drawer's expected
//!   cash and over/short), [`payout`] (payout authority, hand-pays), [`value_out`] (the one
//!   rule of value leaving the room: site and payout limit, by every path), [`text`] (names, reasons
//!   and hand-pay fields as kept: no control or invisible character, NFC).

pub mod approval;
pub mod bet;
pub mod board;
pub mod cancel;
pub mod closure;
mod code;
pub mod deadline;
pub mod draw_stats;
pub mod duties;
pub mod error;
pub mod game;
pub mod game_time;
pub mod jackpot;
pub mod keno_day;
pub mod liability;
pub mod money;
pub mod payable;
pub mod payout;
pub mod pricing;
pub mod prize;
pub mod prorate;
pub mod random;
pub mod refund;
pub mod rules;
pub mod schedule;
pub mod serial;
pub mod settle;
pub mod shift;
pub mod simulate;
pub mod staff;
pub mod standing;
pub mod status;
pub mod suspension;
pub mod tender;
pub mod text;
pub mod theory;
pub mod value_out;
pub mod void;

pub use approval::{
    decide, Act, AlreadyApproved, BonusState, ClaimState, CorrectionState, HoldState, Key, Keys,
    Lifecycle, NotOpen, Standing,
};
pub use bet::{Bet, BetKind, BetPlan, Marks, PlannedWay, SetMode, WayCount};
pub use board::{Draw, NumberSet, Selection};
pub use cancel::{cancellation, CancelFacts, CancelRefusal, Cancellation};
pub use closure::{check_closure, game_closes_at, ClosureError, ClosureState, KenoDayHours};
pub use deadline::{at_a_terminal, terminal_deadline, unclaimed_before, ClaimRequired};
pub use draw_stats::{DrawStats, StatTest, TestResult};
pub use duties::{
    may_manage, person_key, same_person, two_people, DutyRefusal, Manager, Office, Part, StaffAct,
};
pub use error::{BetError, SelectionError};
pub use game::{
    clock_step, drawer_step, invalidation_steps, transition, ClockStep, DrawMode, DrawSource,
    DrawerSettings, DrawerStep, FaultEffect, FaultKind, GameEvent, GameFacts, GameState,
    LifecycleError, UnknownCode,
};
pub use game_time::{GameTime, Observed, OpenGameFacts, Reading, Repair};
pub use jackpot::{JackpotOutcome, JackpotPools};
pub use keno_day::{KenoDay, KenoDayError};
pub use liability::{
    ticket_potential, Exposure, LiabilityLimits, LimitRefusal, Stake, WayExposure,
};
pub use money::Dollars;
pub use payable::{
    owed, payable, GamePrize, MajorPrizesBy, PayPart, PayRefusal, Payable, PayableFacts, Played,
};
pub use payout::{check_hand_pay, Authority, HandPay, HandPayError, KeptHandPay, PayoutTiers};
pub use pricing::Price;
pub use prize::{
    bonus_by_catch, fund_draw, is_major_prize, way_prize, wins_bonus, BonusOffer, BonusTerms,
    WayPlayed,
};
pub use refund::game_refund;
pub use rules::{RuleSet, RuleSetError, Special3Approval};
pub use schedule::{Pay, ScheduleId};
pub use settle::{GameSettlement, ProRating, SettleError, WayInPlay, WayOutcome};
pub use shift::{
    balance, drawer_amount, expected_cash, methods_paid, paid_from_drawer, Balance,
    DrawerAmountError, DrawerMovements, DrawerRecords, OverTendered, PaidFromDrawer, ShiftState,
};
pub use simulate::{Curve, Percentile, Simulation};
pub use staff::{
    after_failed_try, check_secret, reserve_try, session_standing, FailureCount, LockOut, Reserved,
    SecretError, SecretKind, SessionEnd, SessionFacts, SignOnRefusal,
};
pub use standing::{game_standings, Collect, GameStanding, TicketFacts, TicketGame};
pub use status::{PayMethod, TicketStatus, UnknownPayMethod, UnknownTicketStatus};
pub use text::{clean_lines, clean_text, code_point, TextError};
pub use value_out::{
    drawer_for, value_out, NeedsSupervisor, NoShift, OutAct, OutLimits, ShiftAt, ShiftRule,
    ValueOut, Withheld,
};
pub use void::{took_part, void_wagers, VoidRefusal, Voiding};
