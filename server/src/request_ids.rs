//! Request ids: what makes a request that moves money safe to send again after a lost answer.
//!
//! - A sale and a voucher keep their request id on their row, with the digest of the request
//!   that made them (`request_digest`).
//! - A payment, a cancellation, a cash-out and a claim's payment take an optional request id
//!   (header `X-Keno-Request-Id`) and keep it in `request_outcomes` with their answer, written in
//!   the act's own transaction: a retry gets the first answer again, never a bare
//!   `already_paid`.
//!
//! Either way, the same request id with a different request is refused (409
//! `request_id_reused`) with the request it belongs to, rather than answered with the first
//! request's outcome as if it were this one's.

use diesel::prelude::*;
use serde::de::DeserializeOwned;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::db::schema::request_outcomes;
use crate::db::{now_micros, rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::store::Store;
use keno_api::limits::REQUEST_ID;
use keno_api::Refusal;

/// The header a client names its request with on the acts that take no `request_id` field.
pub use keno_api::tickets::REQUEST_ID_HEADER as HEADER;

/// The digest of a request: what it does, to what, and with which body, the body as parsed
/// (so key order, spacing and defaults written out or left out do not count).
pub fn digest(act: &str, subject: &str, body: &impl Serialize) -> DomainResult<String> {
    let mut body = serde_json::to_value(body).map_err(|e| Failure::Internal(e.into()))?;
    // The request id names the request; it is not part of what is asked.
    if let Some(map) = body.as_object_mut() {
        map.remove("request_id");
    }
    let mut h = Sha256::new();
    for part in [
        act.as_bytes(),
        subject.as_bytes(),
        body.to_string().as_bytes(),
    ] {
        h.update((part.len() as u64).to_be_bytes());
        h.update(part);
    }
    Ok(hex::encode(h.finalize()))
}

/// A request's own `request_id` (a sale's, a voucher's issue) checked, 1 to 100 characters,
/// and the request's digest, which its row keeps.
pub fn checked(act: &str, request_id: &str, body: &impl Serialize) -> DomainResult<String> {
    if request_id.is_empty() || request_id.len() > REQUEST_ID {
        return Err(Failure::refuse(
            Refusal::InvalidRequestId,
            format!("request_id must be 1 to {REQUEST_ID} characters"),
        ));
    }
    digest(act, "", body)
}

/// 409 for a request id already used for another request, naming that request.
pub fn reused(request_id: &str, earlier: impl std::fmt::Display) -> Failure {
    Failure::refuse(
        Refusal::RequestIdReused,
        format!(
            "request id {request_id} belongs to another request ({earlier}); \
             this one was not done: send it with a new request id"
        ),
    )
}

/// Whether a row made under a request id was made by this request. A row made before digests
/// were kept has none, and is taken as this request's (as it always was).
pub fn same(stored: Option<&str>, digest: &str) -> bool {
    stored.is_none_or(|d| d == digest)
}

/// The acts whose answers are kept for a retry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    Pay,
    Cancel,
    CashOut,
    ClaimPay,
}

impl Act {
    const ALL: [Act; 4] = [Act::Pay, Act::Cancel, Act::CashOut, Act::ClaimPay];

    pub fn as_str(self) -> &'static str {
        match self {
            Act::Pay => "pay",
            Act::Cancel => "cancel",
            Act::CashOut => "cash_out",
            Act::ClaimPay => "claim_pay",
        }
    }

    fn described(self, subject: &str) -> String {
        match self {
            Act::Pay => format!("the payment of ticket {subject}"),
            Act::Cancel => format!("the cancellation of ticket {subject}"),
            Act::CashOut => format!("the cash-out of voucher {subject}"),
            Act::ClaimPay => format!("the payment of claim {subject}"),
        }
    }
}

/// The request id a client sent in [`HEADER`], if any: 1 to 100 characters.
#[derive(Clone, Debug, Default)]
pub struct RequestIdHeader(pub Option<String>);

/// A request to do once: who asks, under which id, and what.
#[derive(Clone, Debug)]
pub struct Once {
    pub principal: String,
    pub request_id: String,
    pub act: Act,
    pub subject: String,
    pub digest: String,
}

impl Once {
    /// `None` when the client sent no request id: the act is done as before, unkept.
    pub fn new(
        header: RequestIdHeader,
        principal: &str,
        act: Act,
        subject: &str,
        body: &impl Serialize,
    ) -> DomainResult<Option<Once>> {
        let Some(request_id) = header.0 else {
            return Ok(None);
        };
        Ok(Some(Once {
            principal: principal.to_string(),
            request_id,
            act,
            subject: subject.to_string(),
            digest: digest(act.as_str(), subject, body)?,
        }))
    }
}

/// Does `work` in one write transaction, once per request id: a request done before gets its
/// first answer again; the answer is kept in the same transaction as the act. A twin of the
/// request that committed meanwhile (so this one was refused: `already_paid`, say) is answered
/// with the twin's outcome too.
pub async fn once<T, F>(
    store: &Store,
    request: Option<Once>,
    stage: Option<&'static str>,
    work: F,
) -> DomainResult<T>
where
    T: Serialize + DeserializeOwned + Send + 'static,
    F: FnOnce(&mut DbConnection) -> DomainResult<T> + Send + 'static,
{
    let Some(request) = request else {
        return crate::store::write(store, stage, work).await;
    };
    let kept = request.clone();
    let done = crate::store::write(store, stage, move |conn| {
        if let Some(earlier) = earlier(conn, &kept)? {
            return Ok(earlier);
        }
        let outcome = work(conn)?;
        keep(conn, &kept, &outcome)?;
        Ok(outcome)
    })
    .await;
    match done {
        Ok(outcome) => Ok(outcome),
        Err(e) => {
            let twin = crate::store::read(store, move |conn| earlier::<T>(conn, &request)).await?;
            twin.ok_or(e)
        }
    }
}

/// The answer kept for this request id, if it was used: the first answer for the same request,
/// 409 for another.
fn earlier<T: DeserializeOwned>(conn: &mut DbConnection, r: &Once) -> DomainResult<Option<T>> {
    let row: Option<(String, String, String, String, i64)> = request_outcomes::table
        .find((&r.principal, &r.request_id))
        .select((
            request_outcomes::act,
            request_outcomes::subject,
            request_outcomes::digest,
            request_outcomes::outcome_json,
            request_outcomes::done_at,
        ))
        .first(conn)
        .optional()?;
    let Some((act, subject, digest, outcome, at)) = row else {
        return Ok(None);
    };
    if digest != r.digest {
        // An act this build does not know (written by a newer one) is named as stored.
        let act = Act::ALL
            .into_iter()
            .find(|a| a.as_str() == act)
            .map_or(act.clone(), |a| a.described(&subject));
        return Err(reused(
            &r.request_id,
            format_args!("{act}, at {}", rfc3339(at)),
        ));
    }
    let outcome = serde_json::from_str(&outcome).map_err(|e| {
        Failure::Internal(anyhow::anyhow!(
            "the kept answer of request {}: {e}",
            r.request_id
        ))
    })?;
    Ok(Some(outcome))
}

fn keep<T: Serialize>(conn: &mut DbConnection, r: &Once, outcome: &T) -> DomainResult<()> {
    let outcome = serde_json::to_string(outcome).map_err(|e| Failure::Internal(e.into()))?;
    diesel::insert_into(request_outcomes::table)
        .values((
            request_outcomes::principal_id.eq(&r.principal),
            request_outcomes::request_id.eq(&r.request_id),
            request_outcomes::act.eq(r.act.as_str()),
            request_outcomes::subject.eq(&r.subject),
            request_outcomes::digest.eq(&r.digest),
            request_outcomes::outcome_json.eq(outcome),
            request_outcomes::done_at.eq(now_micros()),
        ))
        .execute(conn)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_digest_is_of_what_is_asked_not_how_it_is_written_nor_its_id() {
        let a = serde_json::json!({"request_id": "a", "games": 1, "amount": 100});
        let b = serde_json::json!({"amount": 100, "games": 1, "request_id": "b"});
        let c = serde_json::json!({"amount": 200, "games": 1, "request_id": "a"});
        let d = |v| digest("sale", "", &v).unwrap();
        assert_eq!(d(a.clone()), d(b));
        assert_ne!(d(a.clone()), d(c));
        assert_ne!(
            digest("pay", "S1", &a).unwrap(),
            digest("pay", "S2", &a).unwrap()
        );
        assert!(same(None, "x") && same(Some("x"), "x") && !same(Some("y"), "x"));
    }
}
