//! Each ticket against its sale, cancellation and payment in the trail, and its stored numbers
//! and ways readable.

use std::collections::HashMap;

use diesel::prelude::*;

use super::chain::{sold_digest, Trail};
use super::{for_each_page, Report, PAGE};
use crate::audit::queries::stored_json;
use crate::db::schema::{set_bet_tickets, tickets};
use crate::db::DbConnection;
use crate::tickets::sale::sold_payload;
use crate::tickets::{TicketRow, WaysLine};
use keno_core::{PayMethod, TicketStatus};
use serde_json::Value;

/// The tickets whose numbers cannot be read: the games they cover cannot be settled again.
pub struct Unreadable(Vec<(String, i64, i64)>);

impl Unreadable {
    /// An unreadable ticket among those covering `game`, if any.
    pub fn covering(&self, game: i64) -> Option<&str> {
        self.0
            .iter()
            .find(|(_, first, last)| (*first..=*last).contains(&game))
            .map(|(serial, _, _)| serial.as_str())
    }
}

pub fn check(
    conn: &mut DbConnection,
    trail: &Trail,
    report: &mut Report,
) -> anyhow::Result<Unreadable> {
    let from_sets = sold_from_sets(conn)?;
    let parts = paid_in_parts(conn)?;
    let mut unreadable = Unreadable(Vec::new());
    let (mut checked, mut seen) = (0usize, 0usize);
    for_each_page(
        conn,
        |conn, after: &String| {
            tickets::table
                .filter(tickets::serial.gt(after))
                .order(tickets::serial)
                .limit(PAGE)
                .select(TicketRow::as_select())
                .load(conn)
        },
        |t| t.serial.clone(),
        |t| {
            if !readable(&t, report) {
                unreadable
                    .0
                    .push((t.serial.clone(), t.first_game, t.last_game));
            }
            checked += 1;
            seen += usize::from(sold_as_recorded(&t, trail, &from_sets, report));
            cancelled_as_recorded(&t, trail, report);
            paid_as_recorded(&t, trail, report);
            parts_as_recorded(&t, trail, &parts, report);
            Ok(())
        },
    )?;
    if seen != trail.sold.len() {
        report.differ(format!(
            "the trail records {} sales but {seen} of them are in the tickets table: tickets \
             were removed",
            trail.sold.len()
        ));
    }
    report.checked(format!(
        "{checked} tickets against their sale, cancellation and payment"
    ));
    Ok(unreadable)
}

/// The set each set bet was sold from, and how: part of what the trail recorded of its sale.
fn sold_from_sets(conn: &mut DbConnection) -> QueryResult<HashMap<String, (i64, String)>> {
    Ok(set_bet_tickets::table
        .select((
            set_bet_tickets::serial,
            set_bet_tickets::set_bet_id,
            set_bet_tickets::mode,
        ))
        .load::<(String, i64, String)>(conn)?
        .into_iter()
        .map(|(serial, id, mode)| (serial, (id, mode)))
        .collect())
}

/// Whether the ticket's stored numbers (groups and combinations) can be read; each stored JSON
/// column that cannot is reported.
fn readable(t: &TicketRow, report: &mut Report) -> bool {
    let record = format!("ticket {}", t.serial);
    let numbers = [
        stored_json::<Vec<Vec<u8>>>(&record, "groups_json", &t.groups_json).err(),
        stored_json::<Vec<u8>>(&record, "combine_json", &t.combine_json).err(),
    ];
    let ways = stored_json::<Vec<WaysLine>>(&record, "way_counts_json", &t.way_counts_json).err();
    let readable = numbers.iter().all(Option::is_none);
    for e in numbers.into_iter().chain([ways]).flatten() {
        report.differ(format!("{e:#}"));
    }
    readable
}

/// Whether the trail holds the ticket's sale; a sale it holds must match the ticket.
fn sold_as_recorded(
    t: &TicketRow,
    trail: &Trail,
    from_sets: &HashMap<String, (i64, String)>,
    report: &mut Report,
) -> bool {
    let s = &t.serial;
    let Some(d) = trail.sold.get(s) else {
        report.differ(format!("ticket {s} has no sale in the audit trail"));
        return false;
    };
    let set = from_sets.get(s).map(|(id, mode)| (*id, mode.as_str()));
    if *d != sold_digest(sold_payload(t, set)) {
        report.differ(format!("ticket {s} differs from the ticket sold"));
    }
    true
}

fn cancelled_as_recorded(t: &TicketRow, trail: &Trail, report: &mut Report) {
    let s = &t.serial;
    let cancels = trail.cancelled.get(s).map_or(&[][..], Vec::as_slice);
    let refunds: i64 = cancels
        .iter()
        .map(|c| c["refund_cents"].as_i64().unwrap_or(0))
        .sum();
    let from = cancels
        .iter()
        .filter_map(|c| c["cancelled_from_game"].as_i64())
        .min();
    if refunds != t.refund_cents || from != t.cancelled_from_game {
        report.differ(format!(
            "ticket {s}: cancelled from game {:?} with {} refunded, the trail says {from:?} and \
             {refunds}",
            t.cancelled_from_game, t.refund_cents
        ));
    }
}

fn paid_as_recorded(t: &TicketRow, trail: &Trail, report: &mut Report) {
    let paid = trail.paid.get(&t.serial);
    let (trail_paid, trail_method) = paid.map_or((0, None), |p| {
        (
            p["paid_cents"].as_i64().unwrap_or(-1),
            p["pay_method"].as_str(),
        )
    });
    if trail_paid != t.paid_cents
        || trail_method != t.pay_method.map(PayMethod::as_str)
        || (t.status == TicketStatus::Paid) != paid.is_some()
    {
        report.differ(format!(
            "ticket {}: {} with {} paid, the trail says {trail_paid} paid",
            t.serial, t.status, t.paid_cents
        ));
    }
}

/// Every payment's parts (rule 12.2), by serial: `[method, cents]` each, in order.
fn paid_in_parts(conn: &mut DbConnection) -> QueryResult<HashMap<String, Value>> {
    use crate::db::schema::payment_parts;
    let rows: Vec<(String, String, i64)> = payment_parts::table
        .order((payment_parts::serial, payment_parts::part))
        .select((
            payment_parts::serial,
            payment_parts::method,
            payment_parts::cents,
        ))
        .load(conn)?;
    let mut by_serial: HashMap<String, Vec<Value>> = HashMap::new();
    for (serial, method, cents) in rows {
        by_serial
            .entry(serial)
            .or_default()
            .push(serde_json::json!([method, cents]));
    }
    Ok(by_serial
        .into_iter()
        .map(|(s, parts)| (s, Value::Array(parts)))
        .collect())
}

/// The parts a payment was made in are the parts its entry records, both ways.
fn parts_as_recorded(
    t: &TicketRow,
    trail: &Trail,
    parts: &HashMap<String, Value>,
    report: &mut Report,
) {
    let recorded = trail.paid.get(&t.serial).and_then(|p| p.get("parts"));
    if recorded != parts.get(&t.serial) {
        report.differ(format!(
            "ticket {}: paid in parts {:?}, the trail says {:?}",
            t.serial,
            parts.get(&t.serial),
            recorded
        ));
    }
}
