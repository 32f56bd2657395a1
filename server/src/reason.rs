//! The free-text reason every act of a person gives (a fault, a correction, a rejection, a
//! void, an invalidation...): recorded for the inspectors, so never empty and never a page.

use keno_api::Refusal;

use crate::error::{DomainResult, Failure};

/// The reason, trimmed: 1 to 500 characters, or `invalid_reason`.
pub fn reason(text: &str) -> DomainResult<String> {
    let text = text.trim();
    if text.is_empty() || text.chars().count() > 500 {
        return Err(Failure::refuse(
            Refusal::InvalidReason,
            "say why (1 to 500 characters): it is recorded for the inspectors",
        ));
    }
    Ok(text.to_string())
}
