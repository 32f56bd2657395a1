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
//!
//! The endpoints (`/api/v1/special3/approvals`) are `routes/special3.rs`.

use chrono::DateTime;
use diesel::prelude::*;
use keno_core::{Act, Pay, RuleSet, ScheduleId, Special3Approval, Standing};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use crate::approvals::{self, approvable};
use crate::db::schema::special3_approvals;
use crate::db::{now_micros, rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::store::hold::{held, Hold};
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
    kind: |act| if act.is_some() { crate::audit::kind::EntryKind::Special3ApprovalWithdrawn } else { crate::audit::kind::EntryKind::Special3ApprovalRecorded },
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

/// Whether Special 3 may be sold now under the rule set in force, whose Special 3 table is
/// `digest` (`AppState::special3_digest`).
pub fn approval(digest: Option<&str>, conn: &mut DbConnection) -> QueryResult<Special3Approval> {
    Ok(match digest {
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
    /// As the API shows it at `now`, under the Special 3 table in force (`digest`).
    pub fn new(row: ApprovalRow, digest: Option<&str>, now: i64) -> Approval {
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

/// Special 3 under the rule set in force (its table `digest`), and every approval recorded,
/// newest first.
pub fn status(conn: &mut DbConnection, digest: Option<&str>) -> DomainResult<Special3Status> {
    let rows: Vec<ApprovalRow> = special3_approvals::table
        .order(special3_approvals::id.desc())
        .select(ApprovalRow::as_select())
        .load(conn)?;
    let now = now_micros();
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
}

/// An approval as asked, checked at `now`: to record against the table `digest`, the table in
/// force (`special3_not_defined` when the rule set has none).
pub struct Checked {
    reference: String,
    approved_by: String,
    approved_at: i64,
    expires_at: Option<i64>,
    note: Option<String>,
    digest: String,
    now: i64,
}

/// Checks an inspector's record of an approval at `now`, against the Special 3 table in force
/// (`digest`).
pub fn check(r: RecordApproval, digest: Option<&str>, now: i64) -> DomainResult<Checked> {
    let reference = text("reference", &r.reference, 200)?;
    let approved_by = text("approved_by", &r.approved_by, 200)?;
    let note = match r.note.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(n) => Some(text("note", n, 500)?),
    };
    let approved_at = match &r.approved_at {
        Some(t) => time("approved_at", t)?,
        None => now,
    };
    if approved_at > now {
        return Err(bad(
            "approved_at is in the future: record an approval once it is given",
        ));
    }
    let expires_at = r
        .expires_at
        .as_deref()
        .map(|t| time("expires_at", t))
        .transpose()?;
    if expires_at.is_some_and(|e| e <= now) {
        return Err(bad(
            "expires_at has passed: that approval is no longer in force",
        ));
    }
    let Some(digest) = digest.map(str::to_string) else {
        return Err(Failure::refuse(
            Refusal::Special3NotDefined,
            "the rule set in force defines no Special 3 table to approve: load one with \
             [schedules.special3] first (rule 18.4)",
        ));
    };
    Ok(Checked {
        reference,
        approved_by,
        approved_at,
        expires_at,
        note,
        digest,
        now,
    })
}

/// Records a checked approval under the rule set in force (its hash, `rule_set`), with its
/// entry in the trail.
pub fn insert(
    conn: &mut DbConnection,
    c: &Checked,
    rule_set: &str,
    principal: &str,
) -> DomainResult<ApprovalRow> {
    let row: ApprovalRow =
        crate::db::per_backend!(conn, |conn| diesel::insert_into(special3_approvals::table)
            .values((
                special3_approvals::reference.eq(&c.reference),
                special3_approvals::approved_by.eq(&c.approved_by),
                special3_approvals::approved_at.eq(c.approved_at),
                special3_approvals::expires_at.eq(c.expires_at),
                special3_approvals::note.eq(&c.note),
                special3_approvals::schedule_digest.eq(&c.digest),
                special3_approvals::rule_set.eq(rule_set),
                special3_approvals::recorded_by.eq(principal),
                special3_approvals::recorded_at.eq(c.now),
            ))
            .returning(ApprovalRow::as_returning())
            .get_result(conn))?;
    approvals::proposed(conn, &row, principal)?;
    Ok(row)
}

/// Withdraws approval `id` (by `principal`, for `reason`), with its entry in the trail.
pub fn withdraw(
    conn: &mut DbConnection,
    id: i64,
    principal: &str,
    reason: &str,
) -> DomainResult<ApprovalRow> {
    approvals::decide::<ApprovalRow, _>(conn, id, Act::Withdraw, principal, |conn, _, _| {
        let target = special3_approvals::table.find(id);
        Ok(
            diesel::update(target.filter(special3_approvals::withdrawn_at.is_null()))
                .set((
                    special3_approvals::withdrawn_at.eq(now_micros()),
                    special3_approvals::withdrawn_by.eq(principal),
                    special3_approvals::withdrawal_reason.eq(reason),
                ))
                .execute(conn)?,
        )
    })
}
