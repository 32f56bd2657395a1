//! The free-text reason every act of a person gives (a fault, a correction, a rejection, a
//! void, an invalidation...): recorded for the inspectors, so never empty and never a page.
//!
//! And the way every other text a person types is kept (names, a claim's fields, a set's
//! description): keno-core's one rule (`keno_core::text`: trimmed, no control or invisible
//! character, NFC), refused under the caller's own code with the character named.

use keno_api::Refusal;
use keno_core::TextError;

use crate::error::{DomainResult, Failure};

/// The longest reason kept (characters).
const REASON_MAX_CHARS: usize = 500;

/// The reason, as kept: 1 to 500 characters of one line, or `invalid_reason`.
pub fn reason(text: &str) -> DomainResult<String> {
    kept(
        "the reason (recorded for the inspectors)",
        text,
        REASON_MAX_CHARS,
        Refusal::InvalidReason,
    )
}

/// One line of text `what` as kept, 1 to `max_chars` characters, or `refusal` saying why.
pub fn kept(what: &str, text: &str, max_chars: usize, refusal: Refusal) -> DomainResult<String> {
    keno_core::clean_text(text, max_chars).map_err(|e| refused(what, max_chars, refusal, e))
}

/// As [`kept`], for text of several lines (a postal address, a claim's other details).
pub fn kept_lines(
    what: &str,
    text: &str,
    max_chars: usize,
    refusal: Refusal,
) -> DomainResult<String> {
    keno_core::clean_lines(text, max_chars).map_err(|e| refused(what, max_chars, refusal, e))
}

/// `text` kept as [`kept`] if given and not blank; `None` if not given or blank.
pub fn kept_optional(
    what: &str,
    text: Option<&str>,
    max_chars: usize,
    refusal: Refusal,
) -> DomainResult<Option<String>> {
    match text.map(|t| keno_core::clean_text(t, max_chars)) {
        None | Some(Err(TextError::Empty)) => Ok(None),
        Some(Ok(t)) => Ok(Some(t)),
        Some(Err(e)) => Err(refused(what, max_chars, refusal, e)),
    }
}

fn refused(what: &str, max_chars: usize, refusal: Refusal, e: TextError) -> Failure {
    Failure::refuse(
        refusal,
        format!("{what} is 1 to {max_chars} characters of text; this one {e}"),
    )
}
