//! A hand-pay: a payment that includes a major prize (rule 1(h)) records the claimant's name
//! and identity document, and a cheque its number (rule 12.2), before it is made
//! (`keno_core::check_hand_pay`), its fields as keno-core's text rule keeps them. Kept in `hand_pays`, named in the payment's trail entry,
//! printed on the payment slip and in the auditors' export.

use diesel::prelude::*;
use keno_api::staff::HandPay;
use keno_api::Refusal;

use crate::db::schema::hand_pays;
use crate::db::{now_micros, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::staff::overrides::Approval;

/// Checks and records the hand-pay of ticket `serial`'s payment; answers what the trail
/// records of it (null without a major prize).
pub fn record(
    conn: &mut DbConnection,
    serial: &str,
    has_major: bool,
    by_cheque: bool,
    given: Option<&HandPay>,
    approval: &Option<Approval>,
) -> DomainResult<serde_json::Value> {
    let core = given.map(|h| keno_core::HandPay {
        claimant_name: &h.claimant_name,
        id_kind: &h.id_kind,
        id_number: &h.id_number,
        cheque_number: h.cheque_number.as_deref(),
    });
    // Kept as keno-core's text rule keeps it (issue 31): trimmed, NFC, nothing invisible.
    let kept = keno_core::check_hand_pay(has_major, by_cheque, core.as_ref())
        .map_err(|e| Failure::refuse(Refusal::HandPayRequired, format!("ticket {serial}: {e}")))?;
    let Some(h) = kept else {
        return Ok(serde_json::Value::Null);
    };
    diesel::insert_into(hand_pays::table)
        .values((
            hand_pays::serial.eq(serial),
            hand_pays::claimant_name.eq(&h.claimant_name),
            hand_pays::id_kind.eq(&h.id_kind),
            hand_pays::id_number.eq(&h.id_number),
            hand_pays::cheque_number.eq(&h.cheque_number),
            hand_pays::approved_by.eq(approval.as_ref().map(|a| &a.supervisor_id)),
            hand_pays::recorded_at.eq(now_micros()),
        ))
        .execute(conn)?;
    Ok(serde_json::json!({
        "claimant_name": h.claimant_name, "id_kind": h.id_kind,
        "id_number": h.id_number, "cheque_number": h.cheque_number,
    }))
}

/// The hand-pay recorded for ticket `serial`, if any.
pub fn find(conn: &mut DbConnection, serial: &str) -> QueryResult<Option<HandPay>> {
    Ok(hand_pays::table
        .find(serial)
        .select((
            hand_pays::claimant_name,
            hand_pays::id_kind,
            hand_pays::id_number,
            hand_pays::cheque_number,
        ))
        .first::<(String, String, String, Option<String>)>(conn)
        .optional()?
        .map(
            |(claimant_name, id_kind, id_number, cheque_number)| HandPay {
                claimant_name,
                id_kind,
                id_number,
                cheque_number,
            },
        ))
}

/// A payment's optional body: empty or `null`, or a [`keno_api::staff::PayRequest`] read
/// strictly.
pub fn body(bytes: &[u8]) -> DomainResult<keno_api::staff::PayRequest> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Default::default());
    }
    serde_json::from_slice::<Option<keno_api::staff::PayRequest>>(bytes)
        .map(Option::unwrap_or_default)
        .map_err(|e| Failure::refuse(Refusal::InvalidRequest, format!("the payment's body: {e}")))
}
