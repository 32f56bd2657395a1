//! `GET /api/v1/tickets/{serial}/story`: a ticket's whole story as the audit trail holds it
//! (issue 18's ticket inquiry): its sale, cancellation, void, payments and every other entry
//! made about it, in order, with who did each. The trail is what `audit verify` proves, so
//! what an inspector reads here is what the evidence says.

use actix_web::{get, web};
use diesel::prelude::*;
use serde::Serialize;
use utoipa::ToSchema;

use crate::auth::http::Require;
use crate::auth::Role;
use crate::db::rfc3339;
use crate::db::schema::{audit_log, tickets};
use crate::error::{ApiResult, DomainResult, Failure};
use crate::state::AppState;

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

/// The audit trail's entries about one ticket, oldest first.
#[utoipa::path(
    tag = "tickets",
    security(("bearer" = [])),
    params(("serial" = String, Path)),
    responses(
        (status = 200, body = [StoryEntry]),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[get(
    "/api/v1/tickets/{serial}/story",
    wrap = "Require(&[Role::Supervisor, Role::Inspector, Role::Auditor])"
)]
pub async fn story(
    state: web::Data<AppState>,
    serial: web::Path<String>,
) -> ApiResult<web::Json<Vec<StoryEntry>>> {
    let serial = serial.into_inner();
    let entries = crate::store::snapshot(&state.store, move |conn| -> DomainResult<_> {
        let known: bool =
            diesel::select(diesel::dsl::exists(tickets::table.find(&serial))).get_result(conn)?;
        if !known {
            return Err(Failure::not_found("ticket"));
        }
        let rows: Vec<(i64, i64, String, Option<String>, String)> = audit_log::table
            .filter(audit_log::subject.eq(&serial))
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
    })
    .await?;
    Ok(web::Json(entries))
}
