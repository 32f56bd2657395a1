//! Committing a batch of sales (the sale writer's transaction): which are new, their tenders,
//! their ticket numbers, their rows and their audit entries, a statement or two per table per
//! batch rather than per sale.

use std::collections::{HashMap, HashSet};

use diesel::prelude::*;
use diesel::sql_types::{Array, Text};

use super::sale::{set_retired, sold_record, Outcome, Sale};
use super::tender::{Ledger, Planned, SalePayment};
use super::TicketRow;
use crate::audit::log::Entry;
use crate::db::prepared::fixed;
use crate::db::schema::tickets;
use crate::db::{now_micros, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::games::GameRow;
use keno_api::Refusal;
use keno_core::{Office, ShiftAt, ShiftRule};

/// Commits sales into `game`, which the caller holds open: a statement or two per batch, not
/// per sale. A sale whose `request_id` its writer already used (earlier in the same batch, or
/// before) is not sold again; its ticket is returned. Without `look_up`, a batch of plain sales
/// is not looked up: one used before fails it on the unique index, and the caller sends it
/// again looked up. A sale whose tender is refused is not sold (its refusal is its outcome);
/// the others are.
pub fn commit_sales(
    conn: &mut DbConnection,
    sales: &mut [Sale],
    game: &GameRow,
    (look_up, shift): (bool, ShiftRule),
) -> DomainResult<Vec<Result<Outcome, Failure>>> {
    // A sale the batch can refuse (a tender, a set bet, Special 3) must find a copy sold
    // before first: the copy's refusal now (its tender spent by the copy, say) would hide it.
    let refusable =
        |s: &Sale| !s.tenders.is_empty() || s.set_bet.is_some() || s.special3_digest.is_some();
    let sold = if look_up || sales.iter().any(refusable) {
        already_sold(conn, sales)?
    } else {
        HashMap::new()
    };
    let (mut new, mut refused) = new_sales(conn, sales, &sold)?;
    in_drawers(conn, sales, &mut new, &mut refused, shift)?;
    let (ledger, mut planned) = plan_tenders(conn, sales, &new, &mut refused, game)?;
    new.retain(|i| !refused.contains_key(i));
    // Never before the game opened, whatever the clock read then (issue 22).
    let now = keno_core::game_time::not_before(now_micros(), game.opened_at);
    super::numbered::number_and_insert(conn, sales, &new, game, now)?;
    let mut entries = Vec::with_capacity(new.len());
    let mut payments: HashMap<usize, SalePayment> = HashMap::new();
    for &i in &new {
        let s = &sales[i];
        entries.push(
            Entry::serialized(
                crate::audit::kind::EntryKind::TicketSold,
                &s.ticket.serial,
                sold_record(&s.record, &s.ticket),
            )
            .by(&s.ticket.principal_id),
        );
        if let (Some(ledger), Some(p)) = (&ledger, planned.remove(&i)) {
            let (more, payment) = ledger.record_sale(conn, &sales[i].ticket, &p, now)?;
            entries.extend(more);
            payments.insert(i, payment);
        }
    }
    if let Some(ledger) = &ledger {
        ledger.write_balances(conn)?;
    }
    crate::audit::log::append(conn, entries)?;
    Ok(outcomes(sales, new, refused, sold, payments))
}

/// A sale's key: its writer and request id.
fn sale_key(s: &Sale) -> (String, String) {
    (s.ticket.principal_id.clone(), s.ticket.request_id.clone())
}

/// The tickets already sold under the batch's request ids, by writer and request id. On
/// PostgreSQL one probe of the unique index per sale, by the exact pairs: the same lookup by
/// two lists (`IN` writers `AND IN` request ids) probed every pair of the two and was half of
/// the database's time at 2,000 sales a second.
fn already_sold(
    conn: &mut DbConnection,
    sales: &[Sale],
) -> DomainResult<HashMap<(String, String), TicketRow>> {
    let (writers, ids): (Vec<&str>, Vec<&str>) = sales
        .iter()
        .map(|s| (s.ticket.principal_id.as_str(), s.ticket.request_id.as_str()))
        .unzip();
    let serials: Vec<String> = match conn {
        DbConnection::Pg(c) => fixed(SOLD_BY_PAIRS)
            .bind::<Array<Text>, _>(&writers)
            .bind::<Array<Text>, _>(&ids)
            .load::<Serial>(c)?
            .into_iter()
            .map(|s| s.serial)
            .collect(),
        // In process, the two lists cost little; a pair that is not the batch's is not looked
        // up by its key below.
        DbConnection::Sqlite(c) => tickets::table
            .filter(tickets::principal_id.eq_any(&writers))
            .filter(tickets::request_id.eq_any(&ids))
            .select(tickets::serial)
            .load(c)?,
    };
    if serials.is_empty() {
        return Ok(HashMap::new());
    }
    Ok(tickets::table
        .filter(tickets::serial.eq_any(&serials))
        .select(TicketRow::as_select())
        .load(conn)?
        .into_iter()
        .map(|t| ((t.principal_id.clone(), t.request_id.clone()), t))
        .collect())
}

const SOLD_BY_PAIRS: &str = "SELECT t.serial FROM unnest(?::text[], ?::text[]) AS k(principal_id, \
     request_id) JOIN tickets t ON t.principal_id = k.principal_id AND t.request_id = k.request_id";

#[derive(QueryableByName)]
struct Serial {
    #[diesel(sql_type = Text)]
    serial: String,
}

/// Which sales are new (by index), and those refused because a set was retired or an
/// approval of Special 3 withdrawn since they were priced. The sets and approvals the new
/// sales rely on are held until the batch commits.
fn new_sales(
    conn: &mut DbConnection,
    sales: &[Sale],
    sold: &HashMap<(String, String), TicketRow>,
) -> DomainResult<(Vec<usize>, HashMap<usize, Failure>)> {
    let fresh = || sales.iter().filter(|s| !sold.contains_key(&sale_key(s)));
    let mut set_ids: Vec<i64> = fresh()
        .filter_map(|s| s.set_bet.as_ref().map(|b| b.id))
        .collect();
    set_ids.sort_unstable();
    set_ids.dedup();
    let on_sale = if set_ids.is_empty() {
        HashSet::new()
    } else {
        crate::set_bets::hold_on_sale(conn, &set_ids)?
    };
    let mut approved: HashMap<String, bool> = HashMap::new();
    for digest in fresh().filter_map(|s| s.special3_digest.as_ref()) {
        if !approved.contains_key(digest) {
            let in_force = crate::special3::in_force(conn, digest, true)?.is_some();
            approved.insert(digest.clone(), in_force);
        }
    }
    let mut new = Vec::new();
    let mut refused: HashMap<usize, Failure> = HashMap::new();
    let mut seen = HashSet::new();
    for (i, s) in sales.iter().enumerate() {
        let key = sale_key(s);
        if sold.contains_key(&key) || seen.contains(&key) {
            continue;
        }
        if let Some(set) = s.set_bet.as_ref().filter(|b| !on_sale.contains(&b.id)) {
            refused.insert(i, set_retired(set.id, &set.name));
            continue;
        }
        if let Some(digest) = &s.special3_digest {
            if approved.get(digest) != Some(&true) {
                refused.insert(i, keno_core::BetError::ScheduleNotApproved.into());
                continue;
            }
        }
        seen.insert(key);
        new.push(i);
    }
    Ok((new, refused))
}

/// Sales whose writer has no shift open at the terminal are refused (issue 31: every cent in
/// a drawer, `keno_core::drawer_for`); one query for the batch's writers.
fn in_drawers(
    conn: &mut DbConnection,
    sales: &[Sale],
    new: &mut Vec<usize>,
    refused: &mut HashMap<usize, Failure>,
    rule: ShiftRule,
) -> DomainResult<()> {
    if rule == ShiftRule::NotRequired || new.is_empty() {
        return Ok(());
    }
    let mut writers: Vec<&str> = new
        .iter()
        .map(|&i| sales[i].ticket.principal_id.as_str())
        .collect();
    writers.sort_unstable();
    writers.dedup();
    let open = crate::shifts::drawer::open_shifts(conn, &writers)?;
    new.retain(|&i| {
        let t = &sales[i].ticket;
        let key = (t.principal_id.clone(), t.site.clone(), t.terminal.clone());
        let shift = if open.contains(&key) {
            ShiftAt::Open
        } else {
            ShiftAt::NoneOpen
        };
        match keno_core::drawer_for(Office::Writer, rule, shift) {
            Ok(()) => true,
            Err(keno_core::NoShift) => {
                refused.insert(i, crate::shifts::no_shift());
                false
            }
        }
    });
    Ok(())
}

/// Tenders (rule 6.1), planned against the vouchers and tickets held for the batch, before
/// anything is numbered: a sale whose tender is refused takes no ticket number.
fn plan_tenders(
    conn: &mut DbConnection,
    sales: &[Sale],
    new: &[usize],
    refused: &mut HashMap<usize, Failure>,
    game: &GameRow,
) -> DomainResult<(Option<Ledger>, HashMap<usize, Planned>)> {
    let mut planned: HashMap<usize, Planned> = HashMap::new();
    let tendering: Vec<usize> = new
        .iter()
        .copied()
        .filter(|&i| !sales[i].tenders.is_empty())
        .collect();
    if tendering.is_empty() {
        return Ok((None, planned));
    }
    let mut ledger = Ledger::load(
        conn,
        tendering.iter().map(|&i| sales[i].tenders.as_slice()),
        true,
        crate::keno_day::stored(&game.keno_day, format_args!("game {}", game.number))?,
    )?;
    for &i in &tendering {
        match ledger.plan(sales[i].ticket.total_cents as u64, &sales[i].tenders) {
            Ok(p) => {
                planned.insert(i, p);
            }
            Err(e) => {
                refused.insert(i, e);
            }
        }
    }
    Ok((Some(ledger), planned))
}

/// Each sale's outcome, in the batch's order: sold now, sold before (a retry), or refused.
fn outcomes(
    sales: &[Sale],
    new: Vec<usize>,
    mut refused: HashMap<usize, Failure>,
    mut sold: HashMap<(String, String), TicketRow>,
    mut payments: HashMap<usize, SalePayment>,
) -> Vec<Result<Outcome, Failure>> {
    let mut outcomes = Vec::with_capacity(sales.len());
    let mut fresh = new.into_iter().peekable();
    for (i, s) in sales.iter().enumerate() {
        let t = &s.ticket;
        let key = sale_key(s);
        if let Some(e) = refused.remove(&i) {
            outcomes.push(Err(e));
        } else if fresh.peek() == Some(&i) {
            fresh.next();
            sold.insert(key, t.clone());
            outcomes.push(Ok(Outcome::Sold(Box::new(t.clone()), payments.remove(&i))));
        } else {
            match sold.get(&key) {
                Some(earlier) => outcomes.push(Ok(Outcome::AlreadySold(Box::new(earlier.clone())))),
                // The same request earlier in this batch was refused: asked again, it is
                // planned again.
                None => outcomes.push(Err(Failure::refuse(
                    Refusal::RequestInProgress,
                    "the same sale is being made: send it again",
                ))),
            }
        }
    }
    outcomes
}
