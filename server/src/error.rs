//! One error type for the API, turned into `{"error", "message"}` responses in one place.
//!
//! Refusals carry the machine code of `shared/API.md`; database and other internal failures are
//! logged in full and answered with a 500 that says nothing about the internals.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use keno_core::BetError;
use serde::Serialize;
use utoipa::ToSchema;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{message}")]
    Refused {
        status: StatusCode,
        code: &'static str,
        message: String,
        /// Seconds to wait before trying again (`Retry-After`), for a 429.
        retry_after: Option<u64>,
    },
    #[error("internal error: {0:#}")]
    Internal(anyhow::Error),
}

/// The body of every error response.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    /// Machine code in snake_case, e.g. `game_closed`, `below_minimum_wager`, `already_paid`.
    pub error: String,
    /// For people.
    pub message: String,
}

impl ApiError {
    pub fn refused(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError::Refused {
            status,
            code,
            message: message.into(),
            retry_after: None,
        }
    }

    /// 429: too many from this place; the wait goes in `Retry-After` and in the message.
    pub fn too_many(code: &'static str, message: impl Into<String>, wait_seconds: u64) -> Self {
        ApiError::Refused {
            status: StatusCode::TOO_MANY_REQUESTS,
            code,
            message: message.into(),
            retry_after: Some(wait_seconds),
        }
    }

    pub fn bad_request(code: &'static str, message: impl Into<String>) -> Self {
        Self::refused(StatusCode::BAD_REQUEST, code, message)
    }

    pub fn conflict(code: &'static str, message: impl Into<String>) -> Self {
        Self::refused(StatusCode::CONFLICT, code, message)
    }

    /// The same refusal under another machine code, where one caller's contract names it so.
    pub fn with_code_if(self, from: &str, to: &'static str) -> Self {
        match self {
            ApiError::Refused {
                status,
                code,
                message,
                retry_after,
            } if code == from => ApiError::Refused {
                status,
                code: to,
                message,
                retry_after,
            },
            other => other,
        }
    }

    pub fn not_found(what: &str) -> Self {
        Self::refused(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("no such {what}"),
        )
    }

    pub fn unauthorized() -> Self {
        Self::refused(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "a valid bearer token is required",
        )
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::refused(StatusCode::FORBIDDEN, "forbidden", message)
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::Refused { status, .. } => *status,
            ApiError::Internal(e) if database_out_of_reach(e) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let body = match self {
            ApiError::Refused { code, message, .. } => ErrorBody {
                error: (*code).to_string(),
                message: message.clone(),
            },
            ApiError::Internal(e) if database_out_of_reach(e) => {
                tracing::warn!(error = %format!("{e:#}"), "database out of reach");
                ErrorBody {
                    error: "unavailable".into(),
                    message: "the database is out of reach for a moment; nothing was changed: \
                              try again"
                        .into(),
                }
            }
            ApiError::Internal(e) => {
                tracing::error!(error = %format!("{e:#}"), "internal error");
                ErrorBody {
                    error: "internal".into(),
                    message: "the server could not complete the request; nothing was changed"
                        .into(),
                }
            }
        };
        let mut response = HttpResponse::build(self.status_code());
        match self {
            ApiError::Refused {
                retry_after: Some(seconds),
                ..
            } => {
                response.insert_header(("Retry-After", seconds.to_string()));
            }
            ApiError::Internal(e) if database_out_of_reach(e) => {
                response.insert_header(("Retry-After", "1"));
            }
            _ => {}
        }
        response.json(body)
    }
}

impl From<BetError> for ApiError {
    fn from(e: BetError) -> Self {
        // The rule is part of the message so the writer can tell the player why.
        let message = e.to_string();
        ApiError::refused(StatusCode::UNPROCESSABLE_ENTITY, e.code(), message)
    }
}

impl From<diesel::result::Error> for ApiError {
    fn from(e: diesel::result::Error) -> Self {
        ApiError::Internal(e.into())
    }
}

impl From<diesel::r2d2::PoolError> for ApiError {
    fn from(e: diesel::r2d2::PoolError) -> Self {
        ApiError::Internal(e.into())
    }
}

impl From<anyhow::Error> for ApiError {
    fn from(e: anyhow::Error) -> Self {
        ApiError::Internal(e)
    }
}

impl From<actix_web::error::BlockingError> for ApiError {
    fn from(e: actix_web::error::BlockingError) -> Self {
        ApiError::Internal(anyhow::anyhow!("blocking task failed: {e}"))
    }
}

pub type ApiResult<T> = Result<T, ApiError>;

/// A lost or unobtainable database connection: the request did nothing and may be sent again
/// (to this or another instance), so it is a 503 rather than a 500.
fn database_out_of_reach(e: &anyhow::Error) -> bool {
    use diesel::result::{DatabaseErrorKind, Error};
    e.chain().any(|cause| {
        matches!(
            cause.downcast_ref::<Error>(),
            Some(Error::DatabaseError(DatabaseErrorKind::ClosedConnection, _))
        ) || cause.downcast_ref::<diesel::r2d2::PoolError>().is_some()
    })
}
