//! `GET /api/v1/tickets/{serial}/story`: a ticket's whole story as the audit trail holds it
//! (issue 18's ticket inquiry): its sale, cancellation, void, payments and every other entry
//! made about it, in order, with who did each. The trail is what `audit verify` proves, so
//! what an inspector reads here is what the evidence says.

use diesel::prelude::*;
use serde::Serialize;
use utoipa::ToSchema;

use crate::db::schema::{audit_log, tickets};
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
    rows.into_iter()
        .map(|(seq, at, kind, by, payload)| {
            Ok(StoryEntry {
                seq,
                at: rfc3339(at),
                kind,
                by,
                payload: serde_json::from_str(&payload).map_err(|e| {
                    Failure::Internal(anyhow::anyhow!("trail entry {seq} unreadable: {e}"))
                })?,
            })
        })
        .collect()
}
