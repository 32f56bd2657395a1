//! Lists come in pages: at most `limit` items (1 to `keno_api::limits::MAX_PAGE`, which is
//! also the default), and the next page is asked for from the last item's key (`after`, or
//! `before` for a list newest first). An answer shorter than its `limit` is the last page. So
//! no list's answer grows with the record, however long it gets.

use keno_api::limits::MAX_PAGE;
use keno_api::Refusal;

use crate::error::{DomainResult, Failure};

/// The page's length: the one asked for, or the most.
pub fn limit(asked: Option<i64>) -> DomainResult<i64> {
    let most = MAX_PAGE as i64;
    match asked {
        None => Ok(most),
        Some(n) if (1..=most).contains(&n) => Ok(n),
        Some(n) => Err(Failure::refuse(
            Refusal::InvalidRange,
            format!("limit is 1 to {most} items a page, not {n}"),
        )),
    }
}
