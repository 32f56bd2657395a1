//! `POST /api/v1/tickets/{serial}/void`: a supervisor voids the wagers of a player caught
//! cheating (rule 17.2; general rules 17.3, 18.2). The ticket is marked `voided` by a guarded
//! update of an active ticket, so a void and a payment at once cannot both succeed. A game not
//! yet settled then leaves it out (`settlement::covering`); its unpaid prizes are withheld
//! (`keno_core::owed` refuses `voided`). The stake is refunded unless forfeited
//! (`keno_core::void_wagers`). The void, who did it and why, enters the audit trail and the
//! day's exceptions.

use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::find;
use crate::audit::log::{append, Entry};
use crate::db::schema::{ticket_voids, tickets};
use crate::db::{now_micros, rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};
use keno_core::{PayRefusal, TicketStatus};

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VoidRequest {
    /// Why: what the player was caught doing (1 to 500 characters).
    pub reason: String,
    /// The person to exclude, described for the staff who will keep them out (rule 17.2).
    #[serde(default)]
    pub excluded_person: Option<String>,
    /// The stake is forfeited rather than refunded (general rule 18.2).
    #[serde(default)]
    pub forfeit: bool,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TicketVoid {
    pub serial: String,
    pub reason: String,
    pub excluded_person: Option<String>,
    pub forfeited: bool,
    /// The stake handed back (0 when forfeited).
    pub refund_cents: i64,
    pub voided_by: String,
    pub voided_at: String,
}

#[derive(Queryable, Selectable, Debug, Clone)]
#[diesel(table_name = ticket_voids)]
pub struct VoidRow {
    pub serial: String,
    pub reason: String,
    pub excluded_person: Option<String>,
    pub forfeited: bool,
    pub refund_cents: i64,
    pub voided_by: String,
    pub voided_at: i64,
}

impl From<VoidRow> for TicketVoid {
    fn from(row: VoidRow) -> TicketVoid {
        TicketVoid {
            voided_at: rfc3339(row.voided_at),
            serial: row.serial,
            reason: row.reason,
            excluded_person: row.excluded_person,
            forfeited: row.forfeited,
            refund_cents: row.refund_cents,
            voided_by: row.voided_by,
        }
    }
}

impl VoidRow {
    /// The audit trail's record of it (`ticket_voided`).
    pub fn payload(&self) -> serde_json::Value {
        serde_json::json!({
            "reason": self.reason, "excluded_person": self.excluded_person,
            "forfeited": self.forfeited, "refund_cents": self.refund_cents,
            "voided_at": self.voided_at,
        })
    }
}

/// The serials of the tickets voided at or after `since` (rule 17.2): what the live
/// liability's book and the jackpot announcer's tally take back.
pub fn voided_since(conn: &mut DbConnection, since: i64) -> QueryResult<Vec<String>> {
    ticket_voids::table
        .filter(ticket_voids::voided_at.ge(since))
        .select(ticket_voids::serial)
        .load(conn)
}

/// Voids the wagers of ticket `serial` (rule 17.2) for supervisor `by`: the reason, the
/// person to exclude, and whether the stake is forfeited.
pub fn void(
    conn: &mut DbConnection,
    serial: &str,
    (reason, person, forfeit): (&str, Option<String>, bool),
    by: &str,
) -> DomainResult<VoidRow> {
    let t = find(conn, serial)?.ok_or_else(|| Failure::not_found("ticket"))?;
    let voiding = keno_core::void_wagers(
        t.status,
        t.total_cents.max(0) as u64,
        t.refund_cents.max(0) as u64,
        forfeit,
    )
    .map_err(|e| Failure::from(e).about(format_args!("ticket {serial}")))?;
    // Only from active: a payment or a cancel that came first wins.
    let changed = diesel::update(tickets::table.find(serial))
        .filter(tickets::status.eq(TicketStatus::Active.as_str()))
        .set(tickets::status.eq(TicketStatus::Voided.as_str()))
        .execute(conn)?;
    if changed != 1 {
        return Err(Failure::from(PayRefusal::AlreadyPaid).about(format_args!("ticket {serial}")));
    }
    let row = VoidRow {
        serial: serial.to_string(),
        reason: reason.to_string(),
        excluded_person: person,
        forfeited: forfeit,
        refund_cents: voiding.refund_cents as i64,
        voided_by: by.to_string(),
        voided_at: now_micros(),
    };
    diesel::insert_into(ticket_voids::table)
        .values((
            ticket_voids::serial.eq(&row.serial),
            ticket_voids::reason.eq(&row.reason),
            ticket_voids::excluded_person.eq(&row.excluded_person),
            ticket_voids::forfeited.eq(row.forfeited),
            ticket_voids::refund_cents.eq(row.refund_cents),
            ticket_voids::voided_by.eq(&row.voided_by),
            ticket_voids::voided_at.eq(row.voided_at),
        ))
        .execute(conn)?;
    append(
        conn,
        vec![Entry::new(
            crate::audit::kind::EntryKind::TicketVoided,
            serial,
            row.payload(),
        )
        .by(by)],
    )?;
    Ok(row)
}
