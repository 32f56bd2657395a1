//! The cash one shift's drawer took and gave, summed from the records the acts already keep:
//! nothing is written to a shift as it goes, so no sale, payment or cancellation waits on it,
//! and `audit verify` sums the same records again.
//!
//! Each movement belongs to the shift of the writer who made it, between the shift's opening
//! and its close (or now, while open):
//! - sales: the writer's tickets sold at the shift's terminal; their cash is their totals less
//!   what vouchers and winning tickets covered (`sale_tenders`, rule 6.1). A tendered ticket's
//!   change is a voucher (`source = "change"`), not cash;
//! - voucher deposits: vouchers the writer issued at the terminal for cash (rule 1(n)(i));
//! - refunds: cancellations by the writer (rule 8; a cancellation records who, not where: a
//!   writer has one shift open at a time, so who and when are enough);
//! - prizes: payments by the writer, only what left the drawer in cash
//!   (`keno_core::paid_from_drawer`, rule 12.2);
//! - voucher cash-outs by the writer.
//!
//! Sums are SQL (`CAST(COALESCE(SUM(..), 0) AS BIGINT)`, the same text on both backends); the
//! arithmetic is keno-core's (`DrawerRecords::movements`).
//!
//! A limit: on PostgreSQL an act of the writer's still committing as the shift closes, timed
//! before the close, would belong to the shift but be missing from the sums the close kept;
//! `audit verify`, summing again, would name the shift. A writer's acts come from one counter,
//! one request at a time, so the close does not wait for acts it cannot see.

use diesel::dsl::sql;
use diesel::expression::SqlLiteral;
use diesel::prelude::*;
use diesel::sql_types::BigInt;
use keno_core::{methods_paid, DrawerMovements, DrawerRecords, PaidFromDrawer, PayMethod};

use crate::db::schema::{games, payment_parts, sale_tenders, shifts, tickets, vouchers};
use crate::db::DbConnection;
use crate::error::{DomainResult, Failure};

/// Of `writers`, who has a shift open and where: (writer, site, terminal). One query for a
/// batch of sales.
pub fn open_shifts(
    conn: &mut DbConnection,
    writers: &[&str],
) -> QueryResult<std::collections::HashSet<(String, String, String)>> {
    // Kept prepared: its text differs only with the number of writers (SQLite's `IN (?, ?)`),
    // and the sale writer asks it every batch.
    Ok(crate::db::prepared::Prepared(
        shifts::table
            .filter(shifts::principal_id.eq_any(writers))
            .filter(shifts::closed_at.is_null())
            .select((shifts::principal_id, shifts::site, shifts::terminal)),
    )
    .load::<(String, String, String)>(conn)?
    .into_iter()
    .collect())
}

/// Whose drawer and when: a shift's writer at its terminal, `[from, to)`.
#[derive(Clone, Debug)]
pub struct Window {
    pub principal: String,
    pub site: String,
    pub terminal: String,
    pub from: i64,
    /// The close; `i64::MAX` while the shift is open.
    pub to: i64,
    /// No ticket sold in the window has a first game before this one (`first_game_from`): it
    /// lets the sales be found through the `tickets_games` index.
    pub first_game: i64,
}

/// The sum of `column` over a query's rows, 0 for none, as BIGINT on both backends (PostgreSQL
/// sums BIGINT as NUMERIC).
fn sum(column: &str) -> SqlLiteral<BigInt> {
    sql(&format!("CAST(COALESCE(SUM({column}), 0) AS BIGINT)"))
}

/// The writer's tickets sold at the terminal in the window.
macro_rules! sold {
    ($w:expr) => {
        tickets::table
            .filter(tickets::last_game.ge($w.first_game))
            .filter(tickets::first_game.ge($w.first_game))
            .filter(tickets::principal_id.eq(&$w.principal))
            .filter(tickets::site.eq(&$w.site))
            .filter(tickets::terminal.eq(&$w.terminal))
            .filter(tickets::issued_at.ge($w.from))
            .filter(tickets::issued_at.lt($w.to))
    };
}

/// Tickets the writer cancelled in the window (found by `tickets_cancelled_at`).
macro_rules! cancelled {
    ($w:expr) => {
        tickets::table
            .filter(tickets::cancelled_at.ge($w.from))
            .filter(tickets::cancelled_at.lt($w.to))
            .filter(tickets::cancelled_by.eq(&$w.principal))
    };
}

/// Tickets the writer paid in the window (found by `tickets_paid_at`).
macro_rules! paid {
    ($w:expr) => {
        tickets::table
            .filter(tickets::paid_at.ge($w.from))
            .filter(tickets::paid_at.lt($w.to))
            .filter(tickets::paid_by.eq(&$w.principal))
    };
}

/// Vouchers the writer issued at the terminal in the window.
macro_rules! issued {
    ($w:expr) => {
        vouchers::table
            .filter(vouchers::principal_id.eq(&$w.principal))
            .filter(vouchers::site.eq(&$w.site))
            .filter(vouchers::terminal.eq(&$w.terminal))
            .filter(vouchers::issued_at.ge($w.from))
            .filter(vouchers::issued_at.lt($w.to))
    };
}

/// Vouchers the writer cashed out in the window.
macro_rules! cashed {
    ($w:expr) => {
        vouchers::table
            .filter(vouchers::cashed_by.eq(&$w.principal))
            .filter(vouchers::cashed_at.ge($w.from))
            .filter(vouchers::cashed_at.lt($w.to))
    };
}

pub(super) use {cancelled, cashed, issued, paid, sold};

/// The lowest game a ticket sold at or after `opened_at` can have as its first: the game open
/// then, less one. A sale holds the open game (`FOR SHARE`) before it takes its time, and the
/// game after the next opens only once the next one (opened in the close that waited for the
/// sale) has been open a while; the one game of margin covers the sale that held a game whose
/// close took its time before waiting.
pub fn first_game_from(conn: &mut DbConnection, opened_at: i64) -> QueryResult<i64> {
    // From the latest game back (the primary key), so a recent shift reads a few rows.
    let open_then: Option<i64> = games::table
        .filter(games::opened_at.le(opened_at))
        .order(games::number.desc())
        .select(games::number)
        .first(conn)
        .optional()?;
    Ok(open_then.map_or(0, |g| g - 1))
}

/// A stored sum, never negative: one that is is an internal error.
fn cents(value: i64, what: &str, w: &Window) -> DomainResult<u64> {
    u64::try_from(value).map_err(|_| {
        Failure::Internal(anyhow::anyhow!(
            "the drawer of {} at {}/{}: {what} sum to {value} cents",
            w.principal,
            w.site,
            w.terminal
        ))
    })
}

/// The codes of the payment methods whose payments leave the drawer as `share`.
pub fn codes(share: PaidFromDrawer) -> Vec<&'static str> {
    methods_paid(share).map(PayMethod::as_str).collect()
}

/// What the records say the drawer took and gave in the window, as sums.
pub fn records(conn: &mut DbConnection, w: &Window) -> DomainResult<DrawerRecords> {
    let sales: i64 = sold!(w).select(sum("total_cents")).first(conn)?;
    let tendered: i64 = sale_tenders::table
        .filter(sale_tenders::serial.eq_any(sold!(w).select(tickets::serial)))
        .select(sum("covered_cents"))
        .first(conn)?;
    let refunds: i64 = cancelled!(w).select(sum("refund_cents")).first(conn)?;
    let whole: i64 = paid!(w)
        .filter(tickets::pay_method.eq_any(codes(PaidFromDrawer::Whole)))
        .select(sum("paid_cents"))
        .first(conn)?;
    let in_parts = paid!(w)
        .filter(tickets::pay_method.eq_any(codes(PaidFromDrawer::CashParts)))
        .select(tickets::serial);
    let cash_parts: i64 = payment_parts::table
        .filter(payment_parts::serial.eq_any(in_parts))
        .filter(payment_parts::method.eq(PayMethod::Cash.as_str()))
        .select(sum("cents"))
        .first(conn)?;
    // Rule 1(n)(i): a deposit is bought with cash; a prize paid as a voucher and a tender's
    // change are not.
    let deposits: i64 = issued!(w)
        .filter(vouchers::source.eq("deposit"))
        .select(sum("amount_cents"))
        .first(conn)?;
    let cash_outs: i64 = cashed!(w).select(sum("cashed_cents")).first(conn)?;
    Ok(DrawerRecords {
        sales_cents: cents(sales, "sales", w)?,
        tendered_cents: cents(tendered, "tenders", w)?,
        voucher_deposits_cents: cents(deposits, "voucher deposits", w)?,
        refunds_cents: cents(refunds, "refunds", w)?,
        prizes_cash_cents: cents(whole, "cash payments", w)? + cents(cash_parts, "cash parts", w)?,
        voucher_cash_outs_cents: cents(cash_outs, "voucher cash-outs", w)?,
    })
}

/// The drawer's movements in the window (keno-core's arithmetic on the records' sums).
pub fn movements(conn: &mut DbConnection, w: &Window) -> DomainResult<DrawerMovements> {
    let records = records(conn, w)?;
    records.movements().map_err(|e| {
        Failure::Internal(anyhow::anyhow!(
            "the drawer of {} at {}/{}: {e}",
            w.principal,
            w.site,
            w.terminal
        ))
    })
}
