//! What a domain operation answers when it does not do what was asked: refused, with the
//! machine code of `shared/API.md` and a message for people, or failed inside.
//!
//! Domain code knows nothing of HTTP: `error.rs` alone turns a `Failure` into a status and a
//! body, at the handler's edge.

use keno_api::Refusal;
use keno_core::tender::TenderError;
use keno_core::{BetError, CancelRefusal, ClaimRequired, PayRefusal};

#[derive(Debug, thiserror::Error)]
pub enum Failure {
    #[error("{message}")]
    Refused {
        refusal: Refusal,
        message: String,
        /// Seconds to wait before trying again, for a refusal that passes.
        retry_after: Option<u64>,
    },
    #[error("internal error: {0:#}")]
    Internal(anyhow::Error),
}

pub type DomainResult<T> = Result<T, Failure>;

impl Failure {
    pub fn refuse(refusal: Refusal, message: impl Into<String>) -> Self {
        Failure::Refused {
            refusal,
            message: message.into(),
            retry_after: None,
        }
    }

    /// Too many from this place: try again after `wait_seconds`.
    pub fn too_many(refusal: Refusal, message: impl Into<String>, wait_seconds: u64) -> Self {
        Failure::Refused {
            refusal,
            message: message.into(),
            retry_after: Some(wait_seconds),
        }
    }

    pub fn not_found(what: &str) -> Self {
        Self::refuse(Refusal::NotFound, format!("no such {what}"))
    }

    pub fn unauthorized() -> Self {
        Self::refuse(Refusal::Unauthorized, "a valid bearer token is required")
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::refuse(Refusal::Forbidden, message)
    }

    /// The database out of reach for a moment: try again (503, `Retry-After: 1`).
    pub fn unavailable() -> Self {
        Failure::Refused {
            refusal: Refusal::Unavailable,
            message: "the database is out of reach for a moment; nothing was changed: try again"
                .into(),
            retry_after: Some(1),
        }
    }

    /// The connection failed during the COMMIT itself: the change may have been done or not
    /// (503, `Retry-After: 1`). Only "unknown" is true, and a retry with the same request id
    /// finds what was done.
    pub fn outcome_unknown() -> Self {
        Failure::Refused {
            refusal: Refusal::Unavailable,
            message: "the connection to the database failed as the change was being committed, \
                      so whether it was done is unknown: send the same request again with the \
                      same request id (it is done at most once), or look it up"
                .into(),
            retry_after: Some(1),
        }
    }

    /// A sale written whose sync to the disk failed (`db::wal_sync`): the server stops, and
    /// whether the sale stands is known only once it is started again.
    pub fn sync_failed() -> Self {
        Failure::Refused {
            refusal: Refusal::Unavailable,
            message: "the sale was written, but the disk failed as it was being made safe, so \
                      whether it was sold is unknown and the server is stopping: once it is \
                      running again, send the same request again with the same request id \
                      (it is sold at most once), or look it up"
                .into(),
            retry_after: Some(1),
        }
    }

    /// A failure of the COMMIT itself (`store::CommitUnknown`): told apart from
    /// [`Failure::out_of_reach`], which it also is.
    pub fn failed_at_commit(&self) -> bool {
        matches!(self, Failure::Internal(e) if e.downcast_ref::<crate::store::CommitUnknown>().is_some())
    }

    /// A lost or unobtainable database connection, or a session that cannot write (its node a
    /// primary being demoted, or a standby not yet promoted): the database refused the work,
    /// which may be sent again, to this or another instance. (A session lost inside its commit
    /// may have committed: [`Failure::failed_at_commit`] tells that apart.)
    pub fn out_of_reach(&self) -> bool {
        use diesel::result::{DatabaseErrorKind, Error};
        let Failure::Internal(e) = self else {
            return false;
        };
        e.chain().any(|cause| {
            matches!(
                cause.downcast_ref::<Error>(),
                Some(Error::DatabaseError(
                    DatabaseErrorKind::ClosedConnection | DatabaseErrorKind::ReadOnlyTransaction,
                    _
                ))
            ) || cause.downcast_ref::<diesel::r2d2::PoolError>().is_some()
        })
    }

    /// A unique key already taken: a copy of the same request (or the same name) committed
    /// meanwhile by another writer.
    pub fn is_duplicate(&self) -> bool {
        use diesel::result::{DatabaseErrorKind, Error};
        matches!(self, Failure::Internal(e) if matches!(
            e.downcast_ref::<Error>(),
            Some(Error::DatabaseError(DatabaseErrorKind::UniqueViolation, _))
        ))
    }

    /// What went wrong, in a line: a refusal's message, or an internal failure's causes.
    pub fn said(&self) -> String {
        match self {
            Failure::Refused { message, .. } => message.clone(),
            Failure::Internal(e) => format!("{e:#}"),
        }
    }

    /// The refusal's code, if this is one.
    pub fn refusal(&self) -> Option<Refusal> {
        match self {
            Failure::Refused { refusal, .. } => Some(*refusal),
            Failure::Internal(_) => None,
        }
    }

    /// The refusal with what it is about before its message (`ticket {serial}: ...`), for the
    /// core's refusals, which do not know the serial or code they refuse.
    pub fn about(self, subject: impl std::fmt::Display) -> Self {
        match self {
            Failure::Refused {
                refusal,
                message,
                retry_after,
            } => Failure::Refused {
                refusal,
                message: format!("{subject}: {message}"),
                retry_after,
            },
            other => other,
        }
    }
}

impl From<BetError> for Failure {
    fn from(e: BetError) -> Self {
        // The rule is part of the message so the writer can tell the player why.
        Failure::refuse(Refusal::from(&e), e.to_string())
    }
}

impl From<&TenderError> for Failure {
    fn from(e: &TenderError) -> Self {
        Failure::refuse(Refusal::from(e), e.to_string())
    }
}

impl From<&keno_core::LifecycleError> for Failure {
    fn from(e: &keno_core::LifecycleError) -> Self {
        Failure::refuse(Refusal::from(e), e.to_string())
    }
}

impl From<keno_core::LimitRefusal> for Failure {
    fn from(e: keno_core::LimitRefusal) -> Self {
        Failure::refuse(Refusal::from(&e), e.to_string())
    }
}

impl From<PayRefusal> for Failure {
    fn from(e: PayRefusal) -> Self {
        Failure::refuse(Refusal::from(&e), e.to_string())
    }
}

impl From<keno_core::VoidRefusal> for Failure {
    fn from(e: keno_core::VoidRefusal) -> Self {
        Failure::refuse(Refusal::from(&e), e.to_string())
    }
}

impl From<CancelRefusal> for Failure {
    fn from(e: CancelRefusal) -> Self {
        Failure::refuse(Refusal::from(&e), e.to_string())
    }
}

impl From<ClaimRequired> for Failure {
    fn from(e: ClaimRequired) -> Self {
        Failure::refuse(Refusal::from(&e), e.to_string())
    }
}

impl From<diesel::result::Error> for Failure {
    fn from(e: diesel::result::Error) -> Self {
        Failure::Internal(e.into())
    }
}

impl From<diesel::r2d2::PoolError> for Failure {
    fn from(e: diesel::r2d2::PoolError) -> Self {
        Failure::Internal(e.into())
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure::Internal(e)
    }
}
