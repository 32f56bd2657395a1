//! Every machine code the server answers a refused request with.
//!
//! One enum, as lemmy's `LemmyErrorType`: a code is written once, here, and compared as a value
//! everywhere else, so a misspelt code is a compile error rather than a silent new code on the
//! wire. The codes are the contract of `shared/API.md` and never change once published.

use std::fmt;

use keno_core::tender::TenderError;
use keno_core::{BetError, CancelRefusal, ClaimRequired, LifecycleError, PayRefusal, VoidRefusal};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

macro_rules! refusals {
    ($( $(#[$doc:meta])* $variant:ident = $code:literal, )*) => {
        /// A refusal's machine code (`{"error": code}`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Refusal {
            $( $(#[$doc])* $variant, )*
        }

        impl Refusal {
            /// Every code, in the order declared.
            pub const ALL: &'static [Refusal] = &[$(Refusal::$variant,)*];

            /// The code as it is on the wire.
            pub fn code(self) -> &'static str {
                match self {
                    $(Refusal::$variant => $code,)*
                }
            }

            /// The refusal a code names, for clients reading an answer.
            pub fn from_code(code: &str) -> Option<Refusal> {
                match code {
                    $($code => Some(Refusal::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

refusals! {
    // The request itself.
    /// A path, query or body that could not be read.
    InvalidRequest = "invalid_request",
    InvalidRequestId = "invalid_request_id",
    /// A text longer, or a list longer, than its field allows (`keno_api::limits`).
    TooLong = "too_long",
    InvalidSerial = "invalid_serial",
    InvalidVoucherCode = "invalid_voucher_code",
    InvalidAmount = "invalid_amount",
    InvalidKenoDay = "invalid_keno_day",
    InvalidRange = "invalid_range",
    InvalidReason = "invalid_reason",
    InvalidName = "invalid_name",
    InvalidDescription = "invalid_description",
    InvalidOrder = "invalid_order",
    InvalidPosition = "invalid_position",
    InvalidNumber = "invalid_number",
    InvalidState = "invalid_state",
    InvalidTender = "invalid_tender",
    /// A sale's `entry_form_sha256` that is not 64 lowercase hex digits.
    InvalidEntryForm = "invalid_entry_form",
    DuplicateTender = "duplicate_tender",
    InvalidClaim = "invalid_claim",
    InvalidApproval = "invalid_approval",
    InvalidBonus = "invalid_bonus",
    InvalidDestination = "invalid_destination",
    NumberRequired = "number_required",
    DeviceRequired = "device_required",
    NotADevice = "not_a_device",
    /// A closure of Keno that rule 16.2 does not allow: no inspector's notification recorded,
    /// too little notice, or not before today's normal end of gaming.
    InvalidClosure = "invalid_closure",
    /// A PIN or password too weak or malformed to set.
    InvalidSecret = "invalid_secret",
    InvalidStaffId = "invalid_staff_id",
    InvalidTerminal = "invalid_terminal",
    /// A display's site or name that is not 1 to 16 letters, digits or dashes.
    InvalidDisplay = "invalid_display",
    /// A major prize is a hand-pay: the claimant's name and ID (and a cheque's number) needed.
    HandPayRequired = "hand_pay_required",

    // Who is asking.
    Unauthorized = "unauthorized",
    Forbidden = "forbidden",
    /// The duty table: this person may not manage that one (a supervisor manages writers; an
    /// administrator supervisors, inspectors and auditors; no one themselves).
    NotYourDuty = "not_your_duty",
    /// No one takes two parts in one decision: the same person (by name, whatever the staff ID)
    /// filed, approved or pays it already, or is the writer an override is for.
    SamePerson = "same_person",
    TooManyRequests = "too_many_requests",
    TooManyAuthFailures = "too_many_auth_failures",
    NotFound = "not_found",
    /// A sign-on refused: an unknown staff ID, a wrong PIN, password or TOTP code, or a disabled
    /// person (which of these is not said).
    SignOnFailed = "sign_on_failed",
    /// Too many failed sign-ons: the staff ID is locked for a while (or until a supervisor
    /// resets it).
    StaffLocked = "staff_locked",
    /// The session is over (signed off, inactive, the Keno Day ended, the person disabled or
    /// signed on elsewhere): sign on again.
    SessionEnded = "session_ended",
    /// A writer signs on only at a registered terminal, with its credential (rule 5.1).
    TerminalNotRegistered = "terminal_not_registered",
    /// The ticket was sold at another site: a supervisor's approval at that moment is needed.
    OtherSite = "other_site",
    /// Above the writer's payout authority: a supervisor's approval at that moment is needed.
    ApprovalRequired = "approval_required",
    /// The supervisor's approval carried by the request is unknown, used, expired, or for
    /// another action, ticket or writer.
    InvalidOverride = "invalid_override",

    // The bet and its price (keno-core's `BetError`).
    InvalidSelection = "invalid_selection",
    ScheduleNotOffered = "schedule_not_offered",
    ScheduleNotApproved = "schedule_not_approved",
    NotAJackpotType = "not_a_jackpot_type",
    BelowMinimumWager = "below_minimum_wager",
    InvalidWagerIncrement = "invalid_wager_increment",
    InvalidGames = "invalid_games",
    TicketTotalOverLimit = "ticket_total_over_limit",
    TooManyWays = "too_many_ways",
    UnknownSet = "unknown_set",
    /// The ticket could win more in one game than the operator's limit
    /// (`--ticket-potential-limit`).
    TicketPotentialOverLimit = "ticket_potential_over_limit",
    /// With the ticket the game's expected payout would pass the operator's limit
    /// (`--game-expected-payout-limit`).
    GameExpectedPayoutOverLimit = "game_expected_payout_over_limit",
    /// With the ticket the stake on one number in the game would pass the operator's limit
    /// (`--number-stake-limit`).
    NumberStakeOverLimit = "number_stake_over_limit",
    SetRetired = "set_retired",
    SetNameTaken = "set_name_taken",
    AlreadyRetired = "already_retired",

    // Sales and the game.
    NoOpenGame = "no_open_game",
    GameClosed = "game_closed",
    RequestInProgress = "request_in_progress",
    /// The request id was used before by the same principal for another request (409): the
    /// message names that request.
    RequestIdReused = "request_id_reused",

    // Tender (keno-core's `TenderError`) and vouchers.
    VoucherEmpty = "voucher_empty",
    TenderNotNeeded = "tender_not_needed",
    InsufficientBalance = "insufficient_balance",
    TenderExceedsSale = "tender_exceeds_sale",
    VoucherChanged = "voucher_changed",
    AlreadyCashed = "already_cashed",

    // A ticket's life after the sale.
    AlreadyPaid = "already_paid",
    AlreadyCancelled = "already_cancelled",
    Cancelled = "cancelled",
    CancelNotAllowed = "cancel_not_allowed",
    TicketChanged = "ticket_changed",
    NotSettled = "not_settled",
    NoPrize = "no_prize",
    ClaimRequired = "claim_required",
    ChequeOnly = "cheque_only",

    // Claims and unclaimed prizes (rules 13, 14).
    TicketClaimed = "ticket_claimed",
    Voided = "voided",
    VoucherClaimed = "voucher_claimed",
    ClaimDecided = "claim_decided",
    ClaimNotApproved = "claim_not_approved",
    NothingToMove = "nothing_to_move",

    // The draw with a ball device (rule 10).
    NotABallGame = "not_a_ball_game",
    GameNotDrawing = "game_not_drawing",
    AlreadySettled = "already_settled",
    EarlierGameNotDrawn = "earlier_game_not_drawn",
    AnotherDeviceDrawing = "another_device_drawing",
    DeviceOutOfService = "device_out_of_service",
    DeviceInService = "device_in_service",
    DeviceDraw = "device_draw",
    ManualDraw = "manual_draw",
    AlreadyManual = "already_manual",
    DuplicateBall = "duplicate_ball",
    NotDrawn = "not_drawn",
    DrawChanged = "draw_changed",
    CorrectionPending = "correction_pending",
    CorrectionClosed = "correction_closed",
    NoChange = "no_change",
    SupervisorOnly = "supervisor_only",
    CannotInvalidate = "cannot_invalidate",
    /// The life cycle's own refusals, met inside the server's tasks rather than in requests.
    GameNotDrawn = "game_not_drawn",
    GameOpen = "game_open",
    NotAnRngGame = "not_an_rng_game",
    DrawOutOfOrder = "draw_out_of_order",
    DrawIncomplete = "draw_incomplete",
    BallCheck = "ball_check",

    // Approvals: bonus prizes, Special 3.
    AlreadyApproved = "already_approved",
    AlreadyWithdrawn = "already_withdrawn",
    BonusDecided = "bonus_decided",
    Special3NotDefined = "special3_not_defined",

    // Early closure of Keno (rule 16.2).
    /// A closure is already scheduled (or in effect) for today's Keno Day.
    ClosureScheduled = "closure_scheduled",
    /// The closure has taken effect or was withdrawn: it can no longer be withdrawn.
    ClosureNotOpen = "closure_not_open",

    // Running the room: people, terminals, shifts.
    /// The staff ID is taken.
    StaffIdTaken = "staff_id_taken",
    /// The person already has an active staff ID in this role (one per person name and role).
    StaffActive = "staff_active",
    AlreadyDisabled = "already_disabled",
    AlreadyEnabled = "already_enabled",
    TerminalRegistered = "terminal_registered",
    /// The display is registered already: rotate its credential instead.
    DisplayRegistered = "display_registered",
    /// A shift is already open for this writer or at this terminal.
    ShiftOpen = "shift_open",
    /// No shift is open for this writer at this terminal.
    NoShift = "no_shift",
    /// The shift is not waiting for a supervisor's sign-off.
    ShiftNotAwaitingSignOff = "shift_not_awaiting_sign_off",

    // The auditors' tools.
    /// A verification of the audit trail is already running on this server: one at a time, as
    /// it settles every game again.
    VerifyRunning = "verify_running",

    // Suspension (issue 33).
    /// The system is suspended: nothing is sold, cancelled, paid, cashed out or drawn until a
    /// supervisor and an inspector resume it (503; the message says why).
    Suspended = "suspended",
    /// The suspension was resumed already.
    NotSuspended = "not_suspended",

    // Not refusals of the request: the server could not answer it.
    /// The database is out of reach for a moment; try again.
    Unavailable = "unavailable",
    /// Too many event streams are open, in all or from the address (503, `Retry-After`).
    TooManyStreams = "too_many_streams",
    /// Something failed inside the server; nothing was changed.
    Internal = "internal",
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl Serialize for Refusal {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.code())
    }
}

impl<'de> Deserialize<'de> for Refusal {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let code = String::deserialize(d)?;
        Refusal::from_code(&code)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown refusal code {code:?}")))
    }
}

impl From<&keno_core::LimitRefusal> for Refusal {
    fn from(e: &keno_core::LimitRefusal) -> Self {
        match e {
            keno_core::LimitRefusal::TicketPotential { .. } => Refusal::TicketPotentialOverLimit,
            keno_core::LimitRefusal::GameExpectedPayout { .. } => {
                Refusal::GameExpectedPayoutOverLimit
            }
            keno_core::LimitRefusal::NumberStake { .. } => Refusal::NumberStakeOverLimit,
        }
    }
}

impl From<&BetError> for Refusal {
    fn from(e: &BetError) -> Self {
        use BetError::*;
        match e {
            Selection(_) => Refusal::InvalidSelection,
            ScheduleNotOffered { .. } => Refusal::ScheduleNotOffered,
            ScheduleNotApproved => Refusal::ScheduleNotApproved,
            NotAJackpotType { .. } => Refusal::NotAJackpotType,
            BelowMinimumWager { .. } | BelowJackpotMinimum { .. } | BelowWayMinimum { .. } => {
                Refusal::BelowMinimumWager
            }
            NotWholeDollars { .. } | JackpotIncrement { .. } | WayIncrement { .. } => {
                Refusal::InvalidWagerIncrement
            }
            NoGames | TooManyGames { .. } => Refusal::InvalidGames,
            TicketTotalOverLimit { .. } => Refusal::TicketTotalOverLimit,
            TooManyWays { .. } => Refusal::TooManyWays,
        }
    }
}

impl From<&TenderError> for Refusal {
    fn from(e: &TenderError) -> Self {
        match e {
            TenderError::Empty { .. } => Refusal::VoucherEmpty,
            TenderError::NotNeeded { .. } => Refusal::TenderNotNeeded,
            TenderError::InsufficientBalance { .. } => Refusal::InsufficientBalance,
            TenderError::ExceedsSale { .. } => Refusal::TenderExceedsSale,
            TenderError::ZeroAmount { .. } => Refusal::InvalidAmount,
        }
    }
}

impl From<&LifecycleError> for Refusal {
    fn from(e: &LifecycleError) -> Self {
        use LifecycleError::*;
        match e {
            NotOpen { .. } => Refusal::GameClosed,
            NotDrawing { .. } => Refusal::GameNotDrawing,
            AlreadySettled { .. } => Refusal::AlreadySettled,
            NotDrawn { .. } => Refusal::GameNotDrawn,
            CloseFirst => Refusal::GameOpen,
            CannotInvalidate { .. } => Refusal::CannotInvalidate,
            NotABallGame { .. } => Refusal::NotABallGame,
            NotAnRngGame { .. } => Refusal::NotAnRngGame,
            StandingOutOfRange { .. } | NothingToCorrect => Refusal::InvalidPosition,
            OutOfOrder { .. } => Refusal::DrawOutOfOrder,
            DrawIncomplete { .. } => Refusal::DrawIncomplete,
            AlreadyManual { .. } => Refusal::AlreadyManual,
            NoBallToVoid => Refusal::NotDrawn,
            NoPendingCorrection => Refusal::CorrectionClosed,
            BallCheck { .. } => Refusal::BallCheck,
            HeldByCorrection => Refusal::CorrectionPending,
        }
    }
}

impl From<&ClaimRequired> for Refusal {
    fn from(_: &ClaimRequired) -> Self {
        Refusal::ClaimRequired
    }
}

impl From<&PayRefusal> for Refusal {
    fn from(e: &PayRefusal) -> Self {
        match e {
            PayRefusal::AlreadyPaid => Refusal::AlreadyPaid,
            PayRefusal::Cancelled => Refusal::Cancelled,
            PayRefusal::Voided => Refusal::Voided,
            PayRefusal::NotSettled { .. } => Refusal::NotSettled,
            PayRefusal::NoPrize => Refusal::NoPrize,
            PayRefusal::ClaimRequired(c) => Refusal::from(c),
            PayRefusal::ChequeOnly { .. } => Refusal::ChequeOnly,
        }
    }
}

impl From<&VoidRefusal> for Refusal {
    fn from(e: &VoidRefusal) -> Self {
        match e {
            VoidRefusal::AlreadyPaid => Refusal::AlreadyPaid,
            VoidRefusal::Cancelled => Refusal::Cancelled,
            VoidRefusal::AlreadyVoided => Refusal::Voided,
        }
    }
}

impl From<&CancelRefusal> for Refusal {
    fn from(e: &CancelRefusal) -> Self {
        match e {
            CancelRefusal::AlreadyPaid => Refusal::AlreadyPaid,
            CancelRefusal::AlreadyCancelled => Refusal::AlreadyCancelled,
            CancelRefusal::Voided => Refusal::Voided,
            CancelRefusal::LaterKenoDay { .. }
            | CancelRefusal::EveryGameDrawing
            | CancelRefusal::KenoToGoWholeOnly
            | CancelRefusal::GameDrawing => Refusal::CancelNotAllowed,
        }
    }
}

/// A refusal's code as a client reads it: one this crate knows, or one of a newer server's,
/// kept as its text so that the client can still show it (and never fails to read the answer).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RefusalCode {
    Known(Refusal),
    Unknown(String),
}

impl RefusalCode {
    /// The code as it is on the wire.
    pub fn as_str(&self) -> &str {
        match self {
            RefusalCode::Known(r) => r.code(),
            RefusalCode::Unknown(code) => code,
        }
    }

    /// The refusal, if this crate knows the code.
    pub fn refusal(&self) -> Option<Refusal> {
        match self {
            RefusalCode::Known(r) => Some(*r),
            RefusalCode::Unknown(_) => None,
        }
    }
}

impl From<Refusal> for RefusalCode {
    fn from(r: Refusal) -> Self {
        RefusalCode::Known(r)
    }
}

impl From<&str> for RefusalCode {
    fn from(code: &str) -> Self {
        Refusal::from_code(code).map_or_else(
            || RefusalCode::Unknown(code.to_string()),
            RefusalCode::Known,
        )
    }
}

impl PartialEq<Refusal> for RefusalCode {
    fn eq(&self, other: &Refusal) -> bool {
        *self == RefusalCode::Known(*other)
    }
}

impl fmt::Display for RefusalCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for RefusalCode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for RefusalCode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(RefusalCode::from(String::deserialize(d)?.as_str()))
    }
}

/// The body of every error response.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorBody {
    /// Machine code in snake_case, e.g. `game_closed`, `below_minimum_wager`, `already_paid`.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub error: RefusalCode,
    /// For people.
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_unique_snake_case_and_reads_back() {
        let mut seen = std::collections::BTreeSet::new();
        for r in Refusal::ALL {
            let code = r.code();
            assert!(seen.insert(code), "{code} is declared twice");
            assert!(
                code.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                "{code} is not snake_case"
            );
            assert_eq!(Refusal::from_code(code), Some(*r));
        }
        assert_eq!(Refusal::from_code("no_such_code"), None);
    }

    #[test]
    fn the_cores_refusals_keep_their_codes() {
        use keno_core::money::Dollars;
        let bets = [
            BetError::NoGames,
            BetError::ScheduleNotApproved,
            BetError::TooManyWays { ways: 9, max: 1 },
            BetError::BelowMinimumWager {
                amount: Dollars(0),
                min: Dollars(100),
            },
        ];
        for e in &bets {
            assert_eq!(Refusal::from(e).code(), e.code());
        }
        let tenders = [
            TenderError::Empty { position: 1 },
            TenderError::NotNeeded { position: 1 },
            TenderError::ZeroAmount { position: 1 },
        ];
        for e in &tenders {
            assert_eq!(Refusal::from(e).code(), e.code());
        }
        use keno_core::{FaultKind, GameEvent, GameState};
        let lifecycle = [
            LifecycleError::NotOpen {
                state: GameState::Closed,
            },
            LifecycleError::AlreadySettled {
                event: GameEvent::Settle,
            },
            LifecycleError::CloseFirst,
            LifecycleError::OutOfOrder {
                expected: 2,
                got: 3,
            },
            LifecycleError::AlreadyManual {
                fault: FaultKind::Stoppage,
            },
            LifecycleError::NoBallToVoid,
            LifecycleError::NoPendingCorrection,
            LifecycleError::BallCheck { until: None },
            LifecycleError::HeldByCorrection,
        ];
        for e in &lifecycle {
            assert_eq!(Refusal::from(e).code(), e.code());
        }
    }

    #[test]
    fn the_money_refusals_keep_the_cores_codes() {
        use keno_core::{KenoDay, PayMethod};
        let deadline = KenoDay::new(2027, 11, 23).unwrap();
        let claim = ClaimRequired { deadline };
        assert_eq!(Refusal::from(&claim).code(), claim.code());
        let pays = [
            PayRefusal::AlreadyPaid,
            PayRefusal::Cancelled,
            PayRefusal::NotSettled {
                first_game: 1,
                last_game: 3,
            },
            PayRefusal::NoPrize,
            PayRefusal::ClaimRequired(claim),
            PayRefusal::ChequeOnly {
                instead: PayMethod::Voucher,
            },
        ];
        for e in &pays {
            assert_eq!(Refusal::from(e).code(), e.code(), "{e:?}");
        }
        let cancels = [
            CancelRefusal::AlreadyPaid,
            CancelRefusal::AlreadyCancelled,
            CancelRefusal::LaterKenoDay { sold_on: deadline },
            CancelRefusal::EveryGameDrawing,
            CancelRefusal::KenoToGoWholeOnly,
            CancelRefusal::GameDrawing,
        ];
        for e in &cancels {
            assert_eq!(Refusal::from(e).code(), e.code(), "{e:?}");
        }
    }

    #[test]
    fn serialises_as_its_code() {
        let json = serde_json::to_string(&Refusal::AlreadyPaid).unwrap();
        assert_eq!(json, "\"already_paid\"");
        let back: Refusal = serde_json::from_str(&json).unwrap();
        assert_eq!(back, Refusal::AlreadyPaid);
    }

    #[test]
    fn a_newer_servers_code_is_kept_as_text() {
        let body: ErrorBody =
            serde_json::from_str(r#"{"error": "game_closed", "message": "closed"}"#).unwrap();
        assert_eq!(body.error, Refusal::GameClosed);
        let newer: ErrorBody =
            serde_json::from_str(r#"{"error": "moon_phase", "message": "wait"}"#).unwrap();
        assert_eq!(newer.error, RefusalCode::Unknown("moon_phase".into()));
        assert_eq!(
            serde_json::to_string(&newer).unwrap(),
            r#"{"error":"moon_phase","message":"wait"}"#
        );
    }
}
