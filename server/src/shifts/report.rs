//! A shift's report, per writer and terminal: the shift and its balance, sales by bet type,
//! cancellations, payouts by method (with the cash each took from the drawer), vouchers issued
//! and cashed. JSON for programs, and the same figures as an A4 PDF (`audit::pdf`).

use std::collections::BTreeMap;

use diesel::prelude::*;
use keno_api::staff::{KindTally, PayoutTally, ShiftReport, ShiftState, Tally};
use keno_core::{paid_from_drawer, Dollars, PaidFromDrawer, PayMethod};

use super::drawer::{self, cancelled, cashed, issued, paid, sold};
use super::{names, one_view, ShiftRow};
use crate::audit::pdf::{render, wrap, Line, WIDTH_CHARS};
use crate::db::schema::{payment_parts, tickets, vouchers};
use crate::db::{rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};

/// Counts and cents by kind, in the kinds' order.
fn tallies(rows: impl IntoIterator<Item = (String, i64)>) -> Vec<KindTally> {
    let mut by: BTreeMap<String, (i64, i64)> = BTreeMap::new();
    for (kind, cents) in rows {
        let t = by.entry(kind).or_default();
        t.0 += 1;
        t.1 += cents;
    }
    by.into_iter()
        .map(|(kind, (count, cents))| KindTally { kind, count, cents })
        .collect()
}

fn tally(cents: impl IntoIterator<Item = i64>) -> Tally {
    cents.into_iter().fold(Tally::default(), |t, c| Tally {
        count: t.count + 1,
        cents: t.cents + c,
    })
}

/// Everything the report shows, read in the caller's snapshot.
pub fn read(conn: &mut DbConnection, row: ShiftRow) -> DomainResult<ShiftReport> {
    let w = row.window(conn)?;
    let sales: Vec<(String, i64)> = sold!(w)
        .select((tickets::bet_type, tickets::total_cents))
        .load(conn)?;
    let tendered = drawer::records(conn, &w)?.tendered_cents;
    let refunds: Vec<i64> = cancelled!(w).select(tickets::refund_cents).load(conn)?;
    let issued: Vec<(String, i64)> = issued!(w)
        .select((vouchers::source, vouchers::amount_cents))
        .load(conn)?;
    let cash_outs: Vec<i64> = cashed!(w).select(vouchers::cashed_cents).load(conn)?;
    let payouts = payouts(conn, &w)?;
    let supervisor = match &row.signed_off_by {
        Some(id) => names(conn, &[id.as_str()])?.remove(id),
        None => None,
    };
    let shift = one_view(conn, row)?;
    Ok(ShiftReport {
        shift,
        sales_total: tally(sales.iter().map(|(_, cents)| *cents)),
        sales: tallies(sales),
        tendered_cents: i64::try_from(tendered).unwrap_or(i64::MAX),
        cancellations: tally(refunds),
        payouts,
        vouchers_issued: tallies(issued),
        vouchers_cashed: tally(cash_outs),
        signed_off_by_name: supervisor,
    })
}

/// The tickets the writer paid in the shift, by method, with the cash each method took from
/// the drawer (rule 12.2: only cash, and only the cash parts of a payment in parts).
fn payouts(conn: &mut DbConnection, w: &drawer::Window) -> DomainResult<Vec<PayoutTally>> {
    let paid: Vec<(String, Option<String>, i64)> = paid!(w)
        .select((tickets::serial, tickets::pay_method, tickets::paid_cents))
        .load(conn)?;
    let cash_parts: Vec<(String, i64)> = payment_parts::table
        .filter(payment_parts::serial.eq_any(paid!(w).select(tickets::serial)))
        .filter(payment_parts::method.eq(PayMethod::Cash.as_str()))
        .select((payment_parts::serial, payment_parts::cents))
        .load(conn)?;
    let mut by: BTreeMap<String, PayoutTally> = BTreeMap::new();
    for (serial, method, cents) in paid {
        let method: PayMethod =
            method.as_deref().unwrap_or("").parse().map_err(|e| {
                Failure::Internal(anyhow::anyhow!("ticket {serial}: paid, but {e}"))
            })?;
        let cash = match paid_from_drawer(method) {
            PaidFromDrawer::Whole => cents,
            PaidFromDrawer::CashParts => cash_parts
                .iter()
                .filter(|(s, _)| *s == serial)
                .map(|(_, c)| c)
                .sum(),
            PaidFromDrawer::Nothing => 0,
        };
        let t = by
            .entry(method.as_str().to_string())
            .or_insert_with(|| PayoutTally {
                method: method.as_str().to_string(),
                count: 0,
                cents: 0,
                cash_cents: 0,
            });
        t.count += 1;
        t.cents += cents;
        t.cash_cents += cash;
    }
    Ok(by.into_values().collect())
}

/// Cents as dollars, a negative amount with a minus sign.
fn money(cents: i64) -> String {
    let dollars = Dollars(cents.unsigned_abs()).to_string();
    if cents < 0 {
        format!("-{dollars}")
    } else {
        dollars
    }
}

/// The report as an A4 PDF; `now` is when it was printed.
pub fn pdf(r: &ShiftReport, now: i64) -> Vec<u8> {
    let s = &r.shift;
    let mut lines = vec![Line::Title(format!("KENO SHIFT REPORT - SHIFT {}", s.id))];
    let mut text = |t: String| {
        for l in wrap(&t, WIDTH_CHARS, 8) {
            lines.push(Line::Text(l));
        }
    };
    text(format!(
        "Writer {} (staff ID {}), site {} terminal {}, Keno Day {}.",
        s.writer, s.staff_id, s.site, s.terminal, s.keno_day
    ));
    let state = match s.state {
        ShiftState::Open => "open",
        ShiftState::AwaitingSignOff => "closed, waiting for a supervisor's sign-off",
        ShiftState::Closed => "closed",
    };
    text(format!(
        "Opened {}; {}. State: {state}.",
        s.opened_at,
        s.closed_at
            .as_ref()
            .map_or("still open".to_string(), |c| format!("closed {c}")),
    ));
    lines.extend(drawer_lines(r));
    lines.extend(detail_lines(r));
    let footer = format!("Shift {} of {}, printed {}", s.id, s.writer, rfc3339(now));
    render(&format!("Keno shift report {}", s.id), &footer, &lines)
}

/// The drawer: float, each movement, expected, counted, over/short and the sign-off.
fn drawer_lines(r: &ShiftReport) -> Vec<Line> {
    let s = &r.shift;
    let c = &s.cash;
    let row = |label: &str, cents: i64| Line::Text(format!("{label:<40} {:>16}", money(cents)));
    let mut lines = vec![
        Line::Heading("1. DRAWER".into()),
        row("Float (bank) at the opening", s.float_cents),
        row("+ Cash from sales (rule 6.1)", c.sales_cash_cents),
        row(
            "+ Vouchers bought with cash (1(n)(i))",
            c.voucher_deposits_cents,
        ),
        row("- Change paid in cash for tenders", c.tender_change_cents),
        row("- Refunds of cancellations (rule 8)", c.refunds_cents),
        row("- Prizes paid in cash (rule 12.2)", c.prizes_cash_cents),
        row("- Vouchers cashed out", c.voucher_cash_outs_cents),
        row("= Expected in the drawer", s.expected_cents),
    ];
    if let (Some(counted), Some(over_short)) = (s.counted_cents, s.over_short_cents) {
        lines.push(row("Counted at the close", counted));
        lines.push(row("Over (+) / short (-)", over_short));
    }
    if let Some(at) = &s.signed_off_at {
        lines.push(Line::Text(format!(
            "Signed off {at} by {} ({}): {}",
            r.signed_off_by_name.as_deref().unwrap_or("?"),
            s.signed_off_by.as_deref().unwrap_or("?"),
            s.sign_off_reason.as_deref().unwrap_or("")
        )));
    } else if s.state == ShiftState::AwaitingSignOff {
        lines.push(Line::Text(
            "Over/short beyond the tolerance: waiting for a supervisor's sign-off.".into(),
        ));
    }
    lines
}

/// Sales by bet type, cancellations, payouts by method, vouchers.
fn detail_lines(r: &ShiftReport) -> Vec<Line> {
    let row = |name: &str, count: i64, cents: i64| {
        Line::Text(format!("{name:<24} {count:>8} {:>16}", money(cents)))
    };
    let mut lines = vec![
        Line::Heading("2. SALES BY BET TYPE".into()),
        Line::Columns(format!(
            "{:<24} {:>8} {:>16}",
            "BET TYPE", "TICKETS", "AMOUNT"
        )),
    ];
    lines.extend(r.sales.iter().map(|t| row(&t.kind, t.count, t.cents)));
    lines.push(row("Total", r.sales_total.count, r.sales_total.cents));
    lines.push(Line::Text(format!(
        "Paid by vouchers and winning tickets (rule 6.1): {}",
        money(r.tendered_cents)
    )));
    lines.push(Line::Heading("3. CANCELLATIONS (RULE 8)".into()));
    lines.push(row(
        "Refunded",
        r.cancellations.count,
        r.cancellations.cents,
    ));
    lines.push(Line::Heading("4. PAYOUTS BY METHOD (RULE 12.2)".into()));
    lines.push(Line::Columns(format!(
        "{:<24} {:>8} {:>16} {:>16}",
        "METHOD", "TICKETS", "PAID", "IN CASH"
    )));
    for p in &r.payouts {
        lines.push(Line::Text(format!(
            "{:<24} {:>8} {:>16} {:>16}",
            p.method,
            p.count,
            money(p.cents),
            money(p.cash_cents)
        )));
    }
    lines.push(Line::Heading("5. VOUCHERS (RULE 1(n))".into()));
    lines.push(Line::Columns(format!(
        "{:<24} {:>8} {:>16}",
        "ISSUED FROM", "VOUCHERS", "AMOUNT"
    )));
    lines.extend(
        r.vouchers_issued
            .iter()
            .map(|t| row(&t.kind, t.count, t.cents)),
    );
    lines.push(row(
        "Cashed out",
        r.vouchers_cashed.count,
        r.vouchers_cashed.cents,
    ));
    lines
}
