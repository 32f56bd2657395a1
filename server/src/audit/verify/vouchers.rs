//! Each voucher against its issue, spends and cash-out in the trail, its balance as their sum;
//! and each ticket tendered for a sale against its payment.

use std::collections::HashMap;

use diesel::prelude::*;
use keno_core::tender::TenderKind;

use super::chain::Trail;
use super::since::Since;
use super::{for_each_page, Report, PAGE};
use crate::audit::kind::EntryKind;
use crate::db::schema::{sale_tenders, vouchers};
use crate::db::DbConnection;
use crate::vouchers::{NewVoucher, VoucherRow, VoucherStatus};
use keno_core::PayMethod;

/// What sales were tendered, as stored.
struct Tenders {
    /// Voucher code -> each spend: (the ticket sold, cents).
    spends: HashMap<String, Vec<(String, i64)>>,
    /// Each ticket tendered: (it, the ticket sold, what it was worth).
    tickets: Vec<(String, String, i64)>,
}

/// Every voucher against its entries (from a checkpoint, those its later entries name, and the
/// table's count against the trail's issues), and every ticket tendered for a sale.
pub fn check(conn: &mut DbConnection, trail: &Trail, report: &mut Report) -> anyhow::Result<()> {
    let mut tenders = tenders(conn, trail.since.as_ref())?;
    let (mut checked, mut seen) = (0usize, 0usize);
    let mut each = |v: VoucherRow| {
        checked += 1;
        seen += usize::from(issued_as_recorded(&v, trail, report));
        let stored = tenders.spends.remove(&v.code).unwrap_or_default();
        let spent = spends_as_recorded(&v, stored, trail, report);
        cashed_as_recorded(&v, trail, report);
        balance_adds_up(&v, spent, report);
        Ok(())
    };
    match &trail.since {
        None => for_each_page(
            conn,
            String::new(),
            |conn, after: &String| {
                vouchers::table
                    .filter(vouchers::code.gt(after))
                    .order(vouchers::code)
                    .limit(PAGE)
                    .select(VoucherRow::as_select())
                    .load(conn)
            },
            |v| v.code.clone(),
            &mut each,
        )?,
        Some(since) => {
            let codes: Vec<&String> = since.vouchers.iter().collect();
            for chunk in codes.chunks(PAGE as usize) {
                let rows: Vec<VoucherRow> = vouchers::table
                    .filter(vouchers::code.eq_any(chunk))
                    .select(VoucherRow::as_select())
                    .load(conn)?;
                rows.into_iter().try_for_each(&mut each)?;
            }
        }
    }
    for (code, spent) in tenders.spends {
        report.differ(format!(
            "spends {spent:?} name voucher {code}, which does not exist"
        ));
    }
    if seen != trail.vouchers_issued.len() {
        report.differ(format!(
            "the trail records {} vouchers issued but {seen} of them are in the vouchers table: \
             vouchers were removed",
            trail.vouchers_issued.len()
        ));
    }
    counted(conn, trail, report)?;
    let serials: Vec<String> = tenders.tickets.iter().map(|(s, ..)| s.clone()).collect();
    let paid = super::entries::Entries::of(conn, &[EntryKind::TicketPaid], &serials)?;
    tendered_as_recorded(&tenders.tickets, &paid, report);
    report.checked(format!(
        "{checked} vouchers against their issue, spends and cash-out; {} tickets tendered",
        tenders.tickets.len()
    ));
    Ok(())
}

/// From a checkpoint, the vouchers table's count against the trail's issues: a voucher added or
/// removed among those taken as proved.
fn counted(conn: &mut DbConnection, trail: &Trail, report: &mut Report) -> anyhow::Result<()> {
    if trail.since.is_none() {
        return Ok(());
    }
    let stored: i64 = vouchers::table.count().get_result(conn)?;
    if let Some(recorded) = super::since::counted(conn, stored, EntryKind::VoucherIssued)? {
        report.differ(format!(
            "the vouchers table holds {stored} vouchers but the trail records {recorded} \
             issued: a voucher was added or removed"
        ));
    }
    Ok(())
}

type TenderRow = (String, String, String, i64, i64);

/// The sales' tenders: all of them, or from a checkpoint, those of the tickets and vouchers its
/// later entries name (every spend of such a voucher, old or new).
fn tenders(conn: &mut DbConnection, since: Option<&Since>) -> anyhow::Result<Tenders> {
    let mut tenders = Tenders {
        spends: HashMap::new(),
        tickets: Vec::new(),
    };
    let columns = (
        sale_tenders::serial,
        sale_tenders::kind,
        sale_tenders::reference,
        sale_tenders::covered_cents,
        sale_tenders::change_cents,
    );
    let rows: Vec<TenderRow> = match since {
        None => sale_tenders::table.select(columns).load(conn)?,
        Some(since) => {
            let mut rows = Vec::new();
            let serials: Vec<&String> = since.tickets.iter().collect();
            for chunk in serials.chunks(PAGE as usize) {
                rows.extend(
                    sale_tenders::table
                        .filter(sale_tenders::serial.eq_any(chunk))
                        .filter(sale_tenders::kind.eq(TenderKind::Ticket.as_str()))
                        .select(columns)
                        .load::<TenderRow>(conn)?,
                );
            }
            let codes: Vec<&String> = since.vouchers.iter().collect();
            for chunk in codes.chunks(PAGE as usize) {
                rows.extend(
                    sale_tenders::table
                        .filter(sale_tenders::reference.eq_any(chunk))
                        .filter(sale_tenders::kind.eq(TenderKind::Voucher.as_str()))
                        .select(columns)
                        .load::<TenderRow>(conn)?,
                );
            }
            rows
        }
    };
    for (serial, kind, reference, covered, change) in rows {
        match TenderKind::parse(&kind) {
            Some(TenderKind::Voucher) => {
                let spends = tenders.spends.entry(reference).or_default();
                spends.push((serial, covered));
            }
            Some(TenderKind::Ticket) => tenders.tickets.push((reference, serial, covered + change)),
            None => anyhow::bail!("ticket {serial}: a tender of a kind no server writes: {kind:?}"),
        }
    }
    Ok(tenders)
}

/// Whether the trail holds the voucher's issue; an issue it holds must match the voucher.
fn issued_as_recorded(v: &VoucherRow, trail: &Trail, report: &mut Report) -> bool {
    let c = &v.code;
    let Some(issued) = trail.vouchers_issued.get(c) else {
        report.differ(format!("voucher {c} has no issue in the audit trail"));
        return false;
    };
    if *issued != serde_json::json!(NewVoucher::from(v)) {
        report.differ(format!("voucher {c} differs from the voucher issued"));
    }
    true
}

/// The stored spends against the trail's; returns the cents they spent.
fn spends_as_recorded(
    v: &VoucherRow,
    mut stored: Vec<(String, i64)>,
    trail: &Trail,
    report: &mut Report,
) -> i64 {
    let c = &v.code;
    let mut recorded = trail.voucher_spends.get(c).cloned().unwrap_or_default();
    stored.sort();
    recorded.sort();
    if stored != recorded {
        report.differ(format!(
            "voucher {c}: spent {:?}, the trail says {recorded:?}",
            stored
        ));
    }
    stored.iter().map(|(_, cents)| cents).sum()
}

fn cashed_as_recorded(v: &VoucherRow, trail: &Trail, report: &mut Report) {
    let cashed = trail.voucher_cashed.get(&v.code);
    let trail_cashed = cashed.map_or(0, |p| p["cashed_cents"].as_i64().unwrap_or(-1));
    if trail_cashed != v.cashed_cents || (v.status == VoucherStatus::Cashed) != cashed.is_some() {
        report.differ(format!(
            "voucher {}: {} with {} cashed out, the trail says {trail_cashed}",
            v.code, v.status, v.cashed_cents
        ));
    }
}

/// The voucher's balance and status as its amount less what was spent and cashed out.
fn balance_adds_up(v: &VoucherRow, spent: i64, report: &mut Report) {
    let balance = v.amount_cents - spent - v.cashed_cents;
    let status = match (v.cashed_cents > 0, balance) {
        (true, _) => VoucherStatus::Cashed,
        (false, 0) => VoucherStatus::Spent,
        _ => VoucherStatus::Active,
    };
    if v.balance_cents != balance || v.status != status {
        report.differ(format!(
            "voucher {}: balance {} ({}), but {} issued less {spent} spent and {} cashed out \
             leaves {balance} ({status})",
            v.code, v.balance_cents, v.status, v.amount_cents, v.cashed_cents
        ));
    }
}

/// A ticket tendered is paid whole by tender, for the sale that names it.
fn tendered_as_recorded(
    tendered: &[(String, String, i64)],
    paid: &super::entries::Entries,
    report: &mut Report,
) {
    for (serial, sale, worth) in tendered {
        let paid = paid.one(EntryKind::TicketPaid, serial);
        let ok = paid.is_some_and(|p| {
            p["pay_method"] == PayMethod::Tender.as_str()
                && p["for_ticket"].as_str() == Some(sale.as_str())
                && p["paid_cents"].as_i64() == Some(*worth)
        });
        if !ok {
            report.differ(format!(
                "ticket {serial} is tendered for ticket {sale} ({worth} cents), but the trail \
                 records no such payment"
            ));
        }
    }
}
