//! The edge between the domain and HTTP: a `Failure` becomes `{"error", "message"}` with its
//! status here, and nowhere else.
//!
//! Each refusal's status is given once, in [`status`]; database and other internal failures
//! are logged in full and answered with a 500 that says nothing about the internals.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
pub use keno_api::ErrorBody;
use keno_api::Refusal;

pub use crate::failure::{DomainResult, Failure};

/// A handler's error: a domain `Failure` on its way out as an HTTP answer.
#[derive(Debug)]
pub struct ApiError(pub Failure);

pub type ApiResult<T> = Result<T, ApiError>;

/// The HTTP status of each refusal: the one place the domain's codes meet HTTP. (Kept as
/// written: one arm per status, its codes wrapped, so the table reads at a glance.)
#[rustfmt::skip]
pub fn status(refusal: Refusal) -> StatusCode {
    use Refusal::*;
    match refusal {
        InvalidRequest | InvalidRequestId | InvalidSerial | InvalidVoucherCode | InvalidAmount
        | InvalidKenoDay | InvalidRange | InvalidReason | InvalidName | InvalidDescription
        | InvalidOrder | InvalidPosition | InvalidState | InvalidTender | DuplicateTender
        | InvalidClaim | InvalidApproval | InvalidBonus | InvalidDestination | NumberRequired
        | DeviceRequired | NotADevice | InvalidClosure | InvalidSecret | InvalidStaffId
        | InvalidTerminal | HandPayRequired | TooLong | InvalidDisplay
        | InvalidEntryForm => StatusCode::BAD_REQUEST,
        Unauthorized | SignOnFailed | SessionEnded | TerminalNotRegistered => {
            StatusCode::UNAUTHORIZED
        }
        Forbidden | NotYourDuty | SamePerson | OtherSite | ApprovalRequired
        | InvalidOverride => StatusCode::FORBIDDEN,
        StaffLocked => StatusCode::LOCKED,
        NotFound | NoOpenGame => StatusCode::NOT_FOUND,
        TooManyRequests | TooManyAuthFailures => StatusCode::TOO_MANY_REQUESTS,
        // The request is well formed, but the rules refuse what it asks (rule cited).
        InvalidNumber | InvalidSelection | ScheduleNotOffered | ScheduleNotApproved
        | NotAJackpotType | BelowMinimumWager | InvalidWagerIncrement | InvalidGames
        | TicketTotalOverLimit | TooManyWays | UnknownSet | SetRetired | TenderNotNeeded
        | TenderExceedsSale
        | TicketPotentialOverLimit
        | GameExpectedPayoutOverLimit
        | NumberStakeOverLimit => StatusCode::UNPROCESSABLE_ENTITY,
        // What was asked no longer fits the record as it stands.
        SetNameTaken | AlreadyRetired | GameClosed | RequestInProgress | RequestIdReused
        | VoucherEmpty
        | InsufficientBalance | VoucherChanged | AlreadyCashed | AlreadyPaid | AlreadyCancelled
        | Cancelled | CancelNotAllowed | TicketChanged | NotSettled | NoPrize | ClaimRequired
        | ChequeOnly | TicketClaimed | VoucherClaimed | Voided | ClaimDecided | ClaimNotApproved
        | NothingToMove | NotABallGame | GameNotDrawing | AlreadySettled | EarlierGameNotDrawn
        | AnotherDeviceDrawing | DeviceOutOfService | DeviceInService | DeviceDraw | ManualDraw
        | AlreadyManual | DuplicateBall | NotDrawn | DrawChanged | CorrectionPending
        | CorrectionClosed | NoChange | SupervisorOnly | CannotInvalidate | AlreadyApproved
        | AlreadyWithdrawn | BonusDecided | Special3NotDefined | GameNotDrawn | GameOpen
        | NotAnRngGame | DrawOutOfOrder | DrawIncomplete | BallCheck | ClosureScheduled
        | ClosureNotOpen | StaffIdTaken | StaffActive | AlreadyDisabled | AlreadyEnabled
        | TerminalRegistered | ShiftOpen | NoShift | ShiftNotAwaitingSignOff
        | VerifyRunning | DisplayRegistered | NotSuspended => StatusCode::CONFLICT,
        Unavailable | TooManyStreams | Suspended => StatusCode::SERVICE_UNAVAILABLE,
        Internal => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

impl ApiError {
    /// The refusal or failure as it goes on the wire: code, message, `Retry-After`.
    fn answer(&self) -> (Refusal, String, Option<u64>) {
        match &self.0 {
            Failure::Refused {
                refusal,
                message,
                retry_after,
            } => (*refusal, message.clone(), *retry_after),
            Failure::Internal(e) if self.0.failed_at_commit() => {
                tracing::warn!(error = %format!("{e:#}"), "the database connection failed during COMMIT");
                ApiError(Failure::outcome_unknown()).answer()
            }
            Failure::Internal(e) if self.0.out_of_reach() => {
                tracing::warn!(error = %format!("{e:#}"), "database out of reach");
                ApiError(Failure::unavailable()).answer()
            }
            Failure::Internal(e) => {
                tracing::error!(error = %format!("{e:#}"), "internal error");
                let message = "the server could not complete the request; nothing was changed";
                (Refusal::Internal, message.into(), None)
            }
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match &self.0 {
            Failure::Refused { refusal, .. } => status(*refusal),
            Failure::Internal(_) if self.0.out_of_reach() || self.0.failed_at_commit() => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            Failure::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let (refusal, message, retry_after) = self.answer();
        let mut response = HttpResponse::build(status(refusal));
        if let Some(seconds) = retry_after {
            response.insert_header(("Retry-After", seconds.to_string()));
        }
        response.json(ErrorBody {
            error: refusal.into(),
            message,
        })
    }
}

impl From<Failure> for ApiError {
    fn from(e: Failure) -> Self {
        ApiError(e)
    }
}

/// Extractors' error handlers answer an `actix_web::Error`.
impl From<Failure> for actix_web::Error {
    fn from(e: Failure) -> Self {
        ApiError(e).into()
    }
}

/// What a handler's `?` meets besides a domain `Failure`.
macro_rules! through_failure {
    ($($t:ty),*) => {$(
        impl From<$t> for ApiError {
            fn from(e: $t) -> Self {
                ApiError(e.into())
            }
        }
    )*};
}

through_failure!(
    diesel::result::Error,
    diesel::r2d2::PoolError,
    anyhow::Error,
    keno_core::BetError,
    actix_web::error::BlockingError
);

impl From<actix_web::error::BlockingError> for Failure {
    fn from(e: actix_web::error::BlockingError) -> Self {
        Failure::Internal(anyhow::anyhow!("blocking task failed: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_refusal_has_a_client_or_server_error_status() {
        for r in Refusal::ALL {
            let s = status(*r);
            assert!(s.is_client_error() || s.is_server_error(), "{r}: {s}");
        }
        assert_eq!(status(Refusal::GameClosed), StatusCode::CONFLICT);
        assert_eq!(
            status(Refusal::BelowMinimumWager),
            StatusCode::UNPROCESSABLE_ENTITY
        );
    }

    /// A session lost, or one on a node that turned read-only (a primary being demoted in a
    /// failover), is a 503 to send again; any other database error is a 500.
    #[test]
    fn a_lost_or_read_only_session_is_a_503() {
        use diesel::result::{DatabaseErrorKind, Error};
        let db = |kind| {
            let e = Error::DatabaseError(kind, Box::new("from the database".to_string()));
            ApiError(Failure::from(e)).status_code()
        };
        assert_eq!(
            db(DatabaseErrorKind::ReadOnlyTransaction),
            StatusCode::SERVICE_UNAVAILABLE
        );
        assert_eq!(
            db(DatabaseErrorKind::ClosedConnection),
            StatusCode::SERVICE_UNAVAILABLE
        );
        assert_eq!(
            db(DatabaseErrorKind::Unknown),
            StatusCode::INTERNAL_SERVER_ERROR
        );
        let (refusal, _, retry_after) =
            ApiError(Failure::from(anyhow::Error::from(Error::DatabaseError(
                DatabaseErrorKind::ReadOnlyTransaction,
                Box::new(String::new()),
            ))))
            .answer();
        assert_eq!((refusal, retry_after), (Refusal::Unavailable, Some(1)));
    }
}
