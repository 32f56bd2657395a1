//! A reason sent as an optional body, `{"reason": "..."}`, for acts the first API took with no
//! body (closing the game, retiring a set bet, withdrawing a bonus prize). Its clients still
//! work; the console always asks why (issue 34, 6), and the record says so either way.

use keno_api::Refusal;
use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::error::Failure;

/// Why a supervisor does it: recorded with the act.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReasonRequest {
    pub reason: Option<String>,
}

/// The reason in `body` (a request `T`, its reason taken by `reason`), checked as every
/// reason is; none for an empty body or `null`. Anything else is refused, `invalid_request`.
pub fn optional_reason<T: DeserializeOwned>(
    body: &[u8],
    reason: impl FnOnce(T) -> Option<String>,
) -> Result<Option<String>, Failure> {
    if body.is_empty() {
        return Ok(None);
    }
    let request: Option<T> = serde_json::from_slice(body).map_err(|e| {
        Failure::refuse(
            Refusal::InvalidRequest,
            format!("the body must be {{\"reason\": \"...\"}} or nothing: {e}"),
        )
    })?;
    match request.and_then(reason) {
        Some(reason) => Ok(Some(crate::reason::reason(&reason)?)),
        None => Ok(None),
    }
}
