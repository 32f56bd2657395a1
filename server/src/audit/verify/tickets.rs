//! Each ticket against its sale, cancellation and payment in the trail, and its stored numbers
//! and ways readable.

use std::collections::{HashMap, HashSet};

use diesel::prelude::*;

use super::chain::{sold_digest, Trail};
use super::entries::Entries;
use super::{Report, PAGE};
use crate::audit::kind::EntryKind;
use crate::audit::queries::stored_json;
use crate::db::schema::{audit_log, set_bet_tickets, tickets};
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

/// The trail's kinds of entry about a ticket.
const SOLD: EntryKind = EntryKind::TicketSold;
const CANCELLED: EntryKind = EntryKind::TicketCancelled;
const PAID: EntryKind = EntryKind::TicketPaid;

/// One page of tickets with what the record and the trail hold of them.
struct Page {
    tickets: Vec<TicketRow>,
    entries: Entries,
    from_sets: HashMap<String, (i64, String)>,
    parts: HashMap<String, Value>,
}

impl Page {
    /// Tickets chosen by `which` (a page of the table, or a page of serials), with their entries,
    /// sets and payment parts.
    fn of(conn: &mut DbConnection, which: Which) -> QueryResult<Page> {
        let query = tickets::table.select(TicketRow::as_select()).into_boxed();
        let tickets: Vec<TicketRow> = match which {
            Which::After(after) => query
                .filter(tickets::serial.gt(after))
                .order(tickets::serial)
                .limit(PAGE),
            Which::Among(serials) => query.filter(tickets::serial.eq_any(serials)),
        }
        .load(conn)?;
        let serials: Vec<String> = tickets.iter().map(|t| t.serial.clone()).collect();
        Ok(Page {
            entries: Entries::of(conn, &[SOLD, CANCELLED, PAID], &serials)?,
            from_sets: sold_from_sets(conn, &serials)?,
            parts: paid_in_parts(conn, &serials)?,
            tickets,
        })
    }
}

/// Which tickets a page holds.
enum Which<'a> {
    /// The next page of the table.
    After(&'a str),
    /// These (from a checkpoint: those its later entries name).
    Among(&'a [String]),
}

/// Every ticket against its entries, a page at a time: memory holds one page, whatever the
/// history. From a checkpoint, the tickets its later entries name, and the table's count
/// against the trail's sales.
pub fn check(
    conn: &mut DbConnection,
    trail: &Trail,
    report: &mut Report,
) -> anyhow::Result<Unreadable> {
    let mut tally = Tally {
        unreadable: Unreadable(Vec::new()),
        checked: 0,
        seen: 0,
    };
    match &trail.since {
        None => {
            let mut after = String::new();
            loop {
                let page = Page::of(conn, Which::After(&after))?;
                let Some(last) = page.tickets.last() else {
                    break;
                };
                after = last.serial.clone();
                tally.page(&page, report);
            }
        }
        Some(since) => {
            let serials: Vec<String> = since.tickets.iter().cloned().collect();
            for chunk in serials.chunks(PAGE as usize) {
                tally.page(&Page::of(conn, Which::Among(chunk))?, report);
            }
        }
    }
    let stored = match trail.since {
        None => tally.seen,
        Some(_) => tickets::table.count().get_result(conn)?,
    };
    if let Some(recorded) = super::since::counted(conn, stored, SOLD)? {
        if trail.since.is_some() {
            report.differ(format!(
                "the tickets table holds {stored} tickets but the trail records {recorded} \
                 sales: a ticket was added or removed"
            ));
        }
        sold_but_not_stored(conn, report)?;
    }
    report.checked(format!(
        "{} tickets against their sale, cancellation and payment",
        tally.checked
    ));
    Ok(tally.unreadable)
}

/// What the pages of tickets found.
struct Tally {
    unreadable: Unreadable,
    checked: usize,
    /// The tickets whose sale the trail holds.
    seen: i64,
}

impl Tally {
    fn page(&mut self, page: &Page, report: &mut Report) {
        for t in &page.tickets {
            if !readable(t, report) {
                self.unreadable
                    .0
                    .push((t.serial.clone(), t.first_game, t.last_game));
            }
            self.checked += 1;
            self.seen += i64::from(sold_as_recorded(t, page, report));
            cancelled_as_recorded(t, &page.entries, report);
            paid_as_recorded(t, &page.entries, report);
            parts_as_recorded(t, page, report);
        }
    }
}

/// Each sale in the trail whose ticket is not in the tickets table: the trail read a page at a
/// time, each page's serials looked up.
fn sold_but_not_stored(conn: &mut DbConnection, report: &mut Report) -> anyhow::Result<()> {
    let mut after = 0i64;
    loop {
        let sold: Vec<(i64, String)> = audit_log::table
            .filter(audit_log::kind.eq(SOLD.as_str()))
            .filter(audit_log::seq.gt(after))
            .order(audit_log::seq)
            .limit(PAGE)
            .select((audit_log::seq, audit_log::subject))
            .load(conn)?;
        let Some((last, _)) = sold.last() else {
            return Ok(());
        };
        after = *last;
        let serials: Vec<&String> = sold.iter().map(|(_, s)| s).collect();
        let stored: HashSet<String> = tickets::table
            .filter(tickets::serial.eq_any(&serials))
            .select(tickets::serial)
            .load::<String>(conn)?
            .into_iter()
            .collect();
        for (seq, serial) in &sold {
            if !stored.contains(serial) {
                report.differ(format!(
                    "audit entry {seq} records the sale of ticket {serial}, which is not in the \
                     tickets table: a ticket was removed"
                ));
            }
        }
    }
}

/// The set each set bet of `serials` was sold from, and how: part of what the trail recorded
/// of its sale.
fn sold_from_sets(
    conn: &mut DbConnection,
    serials: &[String],
) -> QueryResult<HashMap<String, (i64, String)>> {
    Ok(set_bet_tickets::table
        .filter(set_bet_tickets::serial.eq_any(serials))
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
fn sold_as_recorded(t: &TicketRow, page: &Page, report: &mut Report) -> bool {
    let s = &t.serial;
    let sales = page.entries.get(SOLD, s);
    let Some(sold) = sales.first() else {
        report.differ(format!("ticket {s} has no sale in the audit trail"));
        return false;
    };
    if sales.len() > 1 {
        report.differ(format!(
            "ticket {s} is sold {} times in the audit trail",
            sales.len()
        ));
    }
    let set = page.from_sets.get(s).map(|(id, mode)| (*id, mode.as_str()));
    if sold_digest(sold.clone()) != sold_digest(sold_payload(t, set)) {
        report.differ(format!("ticket {s} differs from the ticket sold"));
    }
    true
}

fn cancelled_as_recorded(t: &TicketRow, entries: &Entries, report: &mut Report) {
    let s = &t.serial;
    let cancels = entries.get(CANCELLED, s);
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

fn paid_as_recorded(t: &TicketRow, entries: &Entries, report: &mut Report) {
    let paid = entries.one(PAID, &t.serial);
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

/// The parts of the payments of `serials` (rule 12.2), by serial: `[method, cents]` each, in
/// order.
fn paid_in_parts(
    conn: &mut DbConnection,
    serials: &[String],
) -> QueryResult<HashMap<String, Value>> {
    use crate::db::schema::payment_parts;
    let rows: Vec<(String, String, i64)> = payment_parts::table
        .filter(payment_parts::serial.eq_any(serials))
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
fn parts_as_recorded(t: &TicketRow, page: &Page, report: &mut Report) {
    let parts = &page.parts;
    let recorded = page
        .entries
        .one(PAID, &t.serial)
        .and_then(|p| p.get("parts"));
    if recorded != parts.get(&t.serial) {
        report.differ(format!(
            "ticket {}: paid in parts {:?}, the trail says {:?}",
            t.serial,
            parts.get(&t.serial),
            recorded
        ));
    }
}
