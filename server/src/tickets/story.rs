//! `GET /api/v1/tickets/{serial}/story`: a ticket's whole story as the audit trail holds it
//! (issue 18's ticket inquiry): its sale, cancellation, void, payments and every other entry
//! made about it, in order, with who did each. The trail is what `audit verify` proves, so
//! what an inspector reads here is what the evidence says.

use diesel::prelude::*;
use serde::Serialize;
use utoipa::ToSchema;

use keno_core::money::Dollars;
use serde_json::Value;

use crate::audit::kind::EntryKind;
use crate::db::schema::{audit_log, principals, tickets};
use crate::db::{rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};

#[derive(Debug, Serialize, ToSchema)]
pub struct StoryEntry {
    /// The entry's place in the trail.
    pub seq: i64,
    pub at: String,
    pub kind: String,
    /// Who did it: a principal's id, none for the server's own acts.
    pub by: Option<String>,
    /// Who did it as people read it: the name and role (`JULIE (writer)`), or `the server`.
    pub by_name: String,
    /// What the entry says, in a sentence, for people (the payload is for machines).
    pub said: String,
    #[schema(value_type = Object)]
    pub payload: serde_json::Value,
}

/// The audit trail's entries about ticket `serial`, oldest first; read in one snapshot, so the
/// story is the trail at one moment.
pub fn story(conn: &mut DbConnection, serial: &str) -> DomainResult<Vec<StoryEntry>> {
    let known: bool =
        diesel::select(diesel::dsl::exists(tickets::table.find(serial))).get_result(conn)?;
    if !known {
        return Err(Failure::not_found("ticket"));
    }
    let rows: Vec<(i64, i64, String, Option<String>, String)> = audit_log::table
        .filter(audit_log::subject.eq(serial))
        .order(audit_log::seq)
        .select((
            audit_log::seq,
            audit_log::recorded_at,
            audit_log::kind,
            audit_log::principal_id,
            audit_log::payload,
        ))
        .load(conn)?;
    let ids: Vec<&String> = rows.iter().filter_map(|r| r.3.as_ref()).collect();
    let names: std::collections::HashMap<String, (String, String)> = principals::table
        .filter(principals::id.eq_any(ids))
        .select((principals::id, principals::name, principals::role))
        .load::<(String, String, String)>(conn)?
        .into_iter()
        .map(|(id, name, role)| (id, (name, role)))
        .collect();
    rows.into_iter()
        .map(|(seq, at, kind, by, payload)| {
            let payload: Value = serde_json::from_str(&payload).map_err(|e| {
                Failure::Internal(anyhow::anyhow!("trail entry {seq} unreadable: {e}"))
            })?;
            let by_name = match by.as_ref().map(|id| (id, names.get(id))) {
                None => "the server".to_string(),
                Some((_, Some((name, role)))) => format!("{name} ({role})"),
                Some((id, None)) => format!("principal {id}"),
            };
            Ok(StoryEntry {
                seq,
                at: rfc3339(at),
                said: said(&kind, &payload),
                kind,
                by,
                by_name,
                payload,
            })
        })
        .collect()
}

/// What an entry about a ticket says, in a sentence.
fn said(kind: &str, p: &Value) -> String {
    let cents = |field: &str| Dollars(p[field].as_u64().unwrap_or(0));
    let text = |field: &str| p[field].as_str().unwrap_or("").to_string();
    match EntryKind::parse(kind) {
        Some(EntryKind::TicketSold) => {
            let games = p["games"].as_u64().unwrap_or(1);
            let plural = if games == 1 { "" } else { "s" };
            format!(
                "Sold at {}/{} by {}: {}, {} a way, {games} game{plural} from game {}, {} in all",
                text("site"),
                text("terminal"),
                text("writer"),
                text("bet_type").replace('_', " "),
                cents("amount_per_way_cents"),
                p["first_game"],
                cents("total_cents"),
            )
        }
        Some(EntryKind::TicketCancelled) => format!(
            "Cancelled from game {} (rule 8): {} refunded",
            p["cancelled_from_game"],
            cents("refund_cents")
        ),
        Some(EntryKind::TicketPaid) => format!(
            "Paid {} by {}",
            cents("paid_cents"),
            text("pay_method").replace('_', " ")
        ),
        Some(EntryKind::TicketVoided) => {
            let stake = match p["forfeited"].as_bool() {
                Some(true) => "the stake forfeited".to_string(),
                _ => format!("{} refunded", cents("refund_cents")),
            };
            format!("Its wagers voided (rule 17.2): {}; {stake}", text("reason"))
        }
        _ => {
            let words = kind.replace('_', " ");
            let mut first = words.chars();
            first.next().map_or(words.clone(), |c| {
                c.to_uppercase().collect::<String>() + first.as_str()
            })
        }
    }
}
