//! The regulator's approval of Special 3 (rule 18.4): "reserved for promotional events ...
//! subject to the approval of the Casino Surveillance Authority".
//!
//! The rule set says what Special 3 pays; an inspector records the regulator's approval of that
//! table (reference, who approved it, when, an optional expiry) and a supervisor or inspector
//! can withdraw it. Special 3 sells only while an approval is in force: recorded, not withdrawn,
//! not expired, and for the table in force (identified by [`schedule_digest`], so a changed
//! prize needs approving again). Each record and withdrawal enters the audit trail in the
//! transaction that makes it.
//!
//! A sale checks the approval twice: when it is priced, and again in the transaction that
//! commits it, holding the approval row (PostgreSQL: `FOR SHARE`; SQLite: the writer turn), so
//! a withdrawal is wholly before a sale or wholly after it.

use actix_web::{get, post, web, HttpResponse};
use chrono::DateTime;
use diesel::prelude::*;
use keno_core::{Act, Pay, RuleSet, ScheduleId, Special3Approval, Standing};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use crate::approvals::{self, approvable};
use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::db::schema::special3_approvals;
use crate::db::{now_micros, rfc3339, DbConnection};
use crate::error::{ApiResult, DomainResult, Failure};
use crate::state::AppState;
use crate::store::hold::{held, Hold};
use keno_api::events::{Event, SchedulesChanged};
use keno_api::Refusal;

/// SHA-256 of the Special 3 table of `rules` (its base wager, and what each catch of each spot
/// count pays under the schedule it plays as), or `None` when the rule set defines none. An
/// approval is recorded against this digest. The text hashed is fixed here, apart from any
/// display format, so that it changes only when a prize does.
pub fn schedule_digest(rules: &RuleSet) -> Option<String> {
    if !rules.defines(ScheduleId::Special3) {
        return None;
    }
    let table = rules.prize_table();
    let mut text = format!(
        "special3 base {}\n",
        table.base_wager_cents(ScheduleId::Special3)
    );
    for spots in rules.offered_spots(ScheduleId::Special3) {
        let Some(under) = rules.plays_as(ScheduleId::Special3, spots) else {
            continue;
        };
        text.push_str(&format!("spots {spots} as {}:", under.key()));
        for catch in 0..=spots {
            match table.pay(under, spots, catch) {
                Some(Pay::Cents(0)) | None => {}
                Some(Pay::Cents(c)) => text.push_str(&format!(" {catch}={c}")),
                Some(Pay::JackpotPool) => text.push_str(&format!(" {catch}=pool")),
            }
        }
        text.push('\n');
    }
    Some(hex::encode(Sha256::digest(text.as_bytes())))
}

#[derive(Queryable, Selectable, Clone, Debug)]
#[diesel(table_name = special3_approvals)]
pub struct ApprovalRow {
    pub id: i64,
    pub reference: String,
    pub approved_by: String,
    pub approved_at: i64,
    pub expires_at: Option<i64>,
    pub note: Option<String>,
    pub schedule_digest: String,
    pub rule_set: String,
    pub recorded_by: String,
    pub recorded_at: i64,
    pub withdrawn_at: Option<i64>,
    pub withdrawn_by: Option<String>,
    pub withdrawal_reason: Option<String>,
}

impl ApprovalRow {
    /// In force at `now` (microseconds), whatever table it was recorded for.
    pub fn in_force_at(&self, now: i64) -> bool {
        self.withdrawn_at.is_none()
            && self.approved_at <= now
            && self.expires_at.is_none_or(|e| now < e)
    }

    /// The audit trail's record of it as recorded (`special3_approval_recorded`).
    pub fn recorded_payload(&self) -> serde_json::Value {
        serde_json::json!({
            "reference": self.reference,
            "approved_by": self.approved_by,
            "approved_at": self.approved_at,
            "expires_at": self.expires_at,
            "note": self.note,
            "schedule_digest": self.schedule_digest,
            "rule_set": self.rule_set,
            "recorded_by": self.recorded_by,
            "recorded_at": self.recorded_at,
        })
    }

    /// The audit trail's record of its withdrawal (`special3_approval_withdrawn`), if withdrawn.
    pub fn withdrawn_payload(&self) -> Option<serde_json::Value> {
        self.withdrawn_at.map(|at| {
            serde_json::json!({
                "withdrawn_at": at,
                "withdrawn_by": self.withdrawn_by,
                "reason": self.withdrawal_reason,
            })
        })
    }
}

// Recorded in force; withdrawn once. Its entries carry what `audit verify` compares.
approvable! {
    ApprovalRow in special3_approvals as "approval",
    state: Standing = |a| Standing::from_withdrawal(a.withdrawn_at),
    refused: |_| Refusal::AlreadyWithdrawn,
    subject: |a| a.id.to_string(),
    kind: |act| if act.is_some() { "special3_approval_withdrawn" } else { "special3_approval_recorded" },
    payload: |a| a.withdrawn_payload().unwrap_or_else(|| a.recorded_payload()),
}

/// The approval in force now for the table `digest`, if any. With `hold` (inside a sale's
/// transaction) its row is held against a withdrawal until the transaction ends.
pub fn in_force(
    conn: &mut DbConnection,
    digest: &str,
    hold: bool,
) -> QueryResult<Option<ApprovalRow>> {
    let now = now_micros();
    let query = special3_approvals::table
        .filter(special3_approvals::schedule_digest.eq(digest))
        .filter(special3_approvals::withdrawn_at.is_null())
        .filter(special3_approvals::approved_at.le(now))
        .filter(
            special3_approvals::expires_at
                .is_null()
                .or(special3_approvals::expires_at.gt(now)),
        )
        .order(special3_approvals::id.desc());
    // A shared lock: sales run side by side; a withdrawal's UPDATE waits for them, and a sale
    // that waited on a withdrawal finds the row no longer in force.
    let how = if hold { Hold::Share } else { Hold::Read };
    held!(conn, how, query.select(ApprovalRow::as_select()), |c, q| q
        .first(c)
        .optional())
}

/// Whether Special 3 may be sold now under the rule set in force.
pub fn approval(state: &AppState, conn: &mut DbConnection) -> QueryResult<Special3Approval> {
    Ok(match &state.special3_digest {
        Some(digest) if in_force(conn, digest, false)?.is_some() => Special3Approval::InForce,
        _ => Special3Approval::NotInForce,
    })
}

/// The regulator's approval as an inspector records it.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordApproval {
    /// The regulator's reference for the approval (its letter or decision), 1 to 200 characters.
    pub reference: String,
    /// Who at the regulator approved it, 1 to 200 characters.
    pub approved_by: String,
    /// When the regulator approved it (RFC 3339), not in the future; now if left out.
    pub approved_at: Option<String>,
    /// When the approval lapses (RFC 3339), if it does: later than now.
    pub expires_at: Option<String>,
    /// Anything else the inspector wants on the record (up to 500 characters).
    pub note: Option<String>,
}

/// Why an approval is withdrawn.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WithdrawApproval {
    /// 1 to 500 characters.
    pub reason: String,
}

/// An approval of Special 3 as recorded.
#[derive(Debug, Serialize, ToSchema)]
pub struct Approval {
    pub id: i64,
    pub reference: String,
    pub approved_by: String,
    pub approved_at: String,
    pub expires_at: Option<String>,
    pub note: Option<String>,
    /// SHA-256 of the Special 3 table approved (its prizes): the approval covers that table.
    pub schedule_digest: String,
    /// The rule set in force when it was recorded.
    pub rule_set: String,
    /// The inspector (principal id) who recorded it.
    pub recorded_by: String,
    pub recorded_at: String,
    pub withdrawn_at: Option<String>,
    /// The principal who withdrew it.
    pub withdrawn_by: Option<String>,
    pub withdrawal_reason: Option<String>,
    /// In force now (not withdrawn, not expired) for the Special 3 table in force: Special 3
    /// sells.
    pub in_force: bool,
}

impl Approval {
    fn new(row: ApprovalRow, digest: Option<&str>, now: i64) -> Approval {
        Approval {
            in_force: row.in_force_at(now) && digest == Some(row.schedule_digest.as_str()),
            id: row.id,
            reference: row.reference,
            approved_by: row.approved_by,
            approved_at: rfc3339(row.approved_at),
            expires_at: row.expires_at.map(rfc3339),
            note: row.note,
            schedule_digest: row.schedule_digest,
            rule_set: row.rule_set,
            recorded_by: row.recorded_by,
            recorded_at: rfc3339(row.recorded_at),
            withdrawn_at: row.withdrawn_at.map(rfc3339),
            withdrawn_by: row.withdrawn_by,
            withdrawal_reason: row.withdrawal_reason,
        }
    }
}

/// Special 3 under the rule set in force, and every approval recorded.
#[derive(Debug, Serialize, ToSchema)]
pub struct Special3Status {
    /// The rule set in force defines a Special 3 table.
    pub defined: bool,
    /// SHA-256 of that table: what an approval must cover.
    pub schedule_digest: Option<String>,
    /// Special 3 sells now: an approval of this table is in force.
    pub on_sale: bool,
    /// Newest first.
    pub approvals: Vec<Approval>,
}

fn bad(message: impl Into<String>) -> Failure {
    Failure::refuse(Refusal::InvalidApproval, message)
}

fn text(what: &str, value: &str, max: usize) -> DomainResult<String> {
    crate::reason::kept(what, value, max, Refusal::InvalidApproval)
}

fn time(what: &str, value: &str) -> DomainResult<i64> {
    DateTime::parse_from_rfc3339(value.trim())
        .map(|t| t.timestamp_micros())
        .map_err(|_| {
            bad(format!(
                "{what} must be a time in RFC 3339, like 2026-03-01T09:00:00Z, not {value:?}"
            ))
        })
}

/// Special 3 under the rule set in force, and every approval recorded, newest first.
#[utoipa::path(
    tag = "special3",
    security(("bearer" = [])),
    responses((status = 200, body = Special3Status),
              (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody))
)]
#[get(
    "/api/v1/special3/approvals",
    wrap = "Require(&[Role::Supervisor, Role::Inspector, Role::Auditor])"
)]
pub async fn list(state: web::Data<AppState>) -> ApiResult<web::Json<Special3Status>> {
    let status = crate::state::read(&state, move |state, conn| -> DomainResult<Special3Status> {
        let rows: Vec<ApprovalRow> = special3_approvals::table
            .order(special3_approvals::id.desc())
            .select(ApprovalRow::as_select())
            .load(conn)?;
        let now = now_micros();
        let digest = state.special3_digest.as_deref();
        let approvals: Vec<Approval> = rows
            .into_iter()
            .map(|r| Approval::new(r, digest, now))
            .collect();
        Ok(Special3Status {
            defined: digest.is_some(),
            schedule_digest: digest.map(str::to_string),
            on_sale: approvals.iter().any(|a| a.in_force),
            approvals,
        })
    })
    .await?;
    Ok(web::Json(status))
}

/// Records the regulator's approval of the Special 3 table in force (an inspector).
#[utoipa::path(
    tag = "special3",
    security(("bearer" = [])),
    request_body = RecordApproval,
    responses(
        (status = 201, body = Approval, description = "Recorded: Special 3 sells while it is in force"),
        (status = 409, body = crate::error::ErrorBody, description = "`special3_not_defined`: the rule set in force has no Special 3 table to approve"),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_approval`: a field missing, too long, or a time in the wrong order"),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/special3/approvals", wrap = "Require(&[Role::Inspector])")]
pub async fn record(
    state: web::Data<AppState>,
    principal: Principal,
    request: web::Json<RecordApproval>,
) -> ApiResult<HttpResponse> {
    let r = request.into_inner();
    let reference = text("reference", &r.reference, 200)?;
    let approved_by = text("approved_by", &r.approved_by, 200)?;
    let note = match r.note.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(n) => Some(text("note", n, 500)?),
    };
    let now = now_micros();
    let approved_at = match &r.approved_at {
        Some(t) => time("approved_at", t)?,
        None => now,
    };
    if approved_at > now {
        return Err(
            bad("approved_at is in the future: record an approval once it is given").into(),
        );
    }
    let expires_at = r
        .expires_at
        .as_deref()
        .map(|t| time("expires_at", t))
        .transpose()?;
    if expires_at.is_some_and(|e| e <= now) {
        return Err(bad("expires_at has passed: that approval is no longer in force").into());
    }
    let Some(digest) = state.special3_digest.clone() else {
        return Err(Failure::refuse(
            Refusal::Special3NotDefined,
            "the rule set in force defines no Special 3 table to approve: load one with \
             [schedules.special3] first (rule 18.4)",
        )
        .into());
    };
    let s = state.clone();
    let row = crate::state::write(&s, None, move |s, conn| {
        let conn: &mut DbConnection = conn;
        let row: ApprovalRow =
            crate::db::per_backend!(conn, |c| diesel::insert_into(special3_approvals::table)
                .values((
                    special3_approvals::reference.eq(&reference),
                    special3_approvals::approved_by.eq(&approved_by),
                    special3_approvals::approved_at.eq(approved_at),
                    special3_approvals::expires_at.eq(expires_at),
                    special3_approvals::note.eq(&note),
                    special3_approvals::schedule_digest.eq(&digest),
                    special3_approvals::rule_set.eq(&s.rule_set_hash),
                    special3_approvals::recorded_by.eq(&principal.id),
                    special3_approvals::recorded_at.eq(now),
                ))
                .returning(ApprovalRow::as_returning())
                .get_result(c))?;
        approvals::proposed(conn, &row, &principal.id)?;
        Ok(row)
    })
    .await?;
    state
        .events
        .publish(&Event::SchedulesChanged(SchedulesChanged {
            special3: true,
        }));
    let digest = state.special3_digest.as_deref();
    Ok(HttpResponse::Created().json(Approval::new(row, digest, now_micros())))
}

/// Withdraws an approval of Special 3 (a supervisor or an inspector): with none left in force,
/// Special 3 is no longer sold. Tickets already sold stand.
#[utoipa::path(
    tag = "special3",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "The approval's id")),
    request_body = WithdrawApproval,
    responses(
        (status = 200, body = Approval),
        (status = 409, body = crate::error::ErrorBody, description = "`already_withdrawn`"),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_reason`"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post(
    "/api/v1/special3/approvals/{id}/withdraw",
    wrap = "Require(&[Role::Supervisor, Role::Inspector])"
)]
pub async fn withdraw(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<i64>,
    request: web::Json<WithdrawApproval>,
) -> ApiResult<web::Json<Approval>> {
    let reason = crate::reason::reason(&request.into_inner().reason)?;
    let id = id.into_inner();
    let row = crate::store::write(&state.store, None, move |conn| {
        approvals::decide::<ApprovalRow, _>(conn, id, Act::Withdraw, &principal.id, |conn, _, _| {
            let target = special3_approvals::table.find(id);
            Ok(
                diesel::update(target.filter(special3_approvals::withdrawn_at.is_null()))
                    .set((
                        special3_approvals::withdrawn_at.eq(now_micros()),
                        special3_approvals::withdrawn_by.eq(&principal.id),
                        special3_approvals::withdrawal_reason.eq(&reason),
                    ))
                    .execute(conn)?,
            )
        })
    })
    .await?;
    state
        .events
        .publish(&Event::SchedulesChanged(SchedulesChanged {
            special3: true,
        }));
    let digest = state.special3_digest.as_deref();
    Ok(web::Json(Approval::new(row, digest, now_micros())))
}
