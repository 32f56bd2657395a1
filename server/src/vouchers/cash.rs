//! Paying a voucher's balance out in cash, once (`POST /api/v1/vouchers/{code}/cash`).
//!
//! The voucher's row is held (PostgreSQL: `FOR UPDATE`; SQLite: the writer's turn), so a
//! cash-out and a sale spending the same voucher at once are one before the other: the sale
//! finds nothing left, or the cash-out pays what the sale left.

use diesel::prelude::*;

use super::{at_a_terminal, lock, view, VoucherRow, VoucherStatus};
use crate::audit::log::Entry;
use crate::db::schema::vouchers;
use crate::db::{now_micros, rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::staff::overrides::{admit, Approval, AtCounter};
use keno_api::staff::OverrideAction;
use keno_api::Refusal;
use keno_core::{KenoDay, PayMethod};
// The wire's type (keno-api), where the server's modules have always found it.
pub use keno_api::vouchers::CashOut;

/// Pays the balance of voucher `code` in cash to the writer at the counter on Keno Day `today`,
/// once: it then has nothing left.
pub fn cash_out(
    conn: &mut DbConnection,
    code: &str,
    counter: AtCounter<'_>,
    today: KenoDay,
) -> DomainResult<CashOut> {
    let v = lock(conn, &[code])?
        .pop()
        .ok_or_else(|| Failure::not_found("voucher"))?;
    has_balance(&v)?;
    // Rule 13.1: at a terminal for twelve months only; then by claim.
    at_a_terminal(&v, today)?;
    // Issue 31: the one rule of value going out, as for a ticket's payment: another site's
    // voucher, or more than the writer's payout limit, needs a supervisor now.
    let approval = admit(
        counter.limits,
        conn,
        counter.principal,
        counter.carried,
        OverrideAction::CashOut,
        &v.code,
        &v.site,
        Some(v.balance_cents as u64),
    )?;
    let row = pay_out(conn, v, (&counter.principal.id, approval.as_ref()))?;
    Ok(CashOut {
        paid_cents: row.cashed_cents,
        method: PayMethod::Cash.to_string(),
        voucher: view(conn, &row, today)?,
    })
}

/// Pays out what is left on voucher `v` (held by [`lock`]), once: a cash-out at a terminal, or
/// the cheque of a claim approved against it (rule 13.5). The update is guarded by the balance
/// read, so two payments of one voucher cannot both succeed.
pub fn pay_out(
    conn: &mut DbConnection,
    mut v: VoucherRow,
    (by, approval): (&str, Option<&Approval>),
) -> DomainResult<VoucherRow> {
    has_balance(&v)?;
    let code = v.code.clone();
    let now = now_micros();
    let paid = v.balance_cents;
    let changed = diesel::update(vouchers::table.find(&code))
        .filter(vouchers::status.eq(VoucherStatus::Active.as_str()))
        .filter(vouchers::balance_cents.eq(paid))
        .set((
            vouchers::balance_cents.eq(0),
            vouchers::cashed_cents.eq(paid),
            vouchers::cashed_at.eq(now),
            vouchers::cashed_by.eq(by),
            vouchers::status.eq(VoucherStatus::Cashed.as_str()),
        ))
        .execute(conn)?;
    if changed != 1 {
        return Err(Failure::refuse(
            Refusal::VoucherChanged,
            "the voucher changed meanwhile: look it up again",
        ));
    }
    crate::audit::log::append(
        conn,
        vec![Entry::new(
            crate::audit::kind::EntryKind::VoucherCashed,
            &code,
            serde_json::json!({
                "cashed_cents": paid, "cashed_at": now,
                "approved_by": approval.map(|a| a.supervisor_id.clone()),
            }),
        )
        .by(by)],
    )?;
    v.balance_cents = 0;
    v.cashed_cents = paid;
    v.cashed_at = Some(now);
    v.cashed_by = Some(by.to_string());
    v.status = VoucherStatus::Cashed;
    Ok(v)
}

/// Something is left on voucher `v` to pay out: not paid out already, not all spent.
fn has_balance(v: &VoucherRow) -> DomainResult<()> {
    let code = &v.code;
    if v.status == VoucherStatus::Cashed {
        return Err(Failure::refuse(
            Refusal::AlreadyCashed,
            format!(
                "voucher {code} was paid out already: {} {}",
                keno_core::Dollars(v.cashed_cents as u64),
                // Said as such rather than as no time: a cashed voucher's time is its record's.
                v.cashed_at
                    .map_or("at a time not recorded".into(), |at| format!(
                        "at {}",
                        rfc3339(at)
                    ))
            ),
        ));
    }
    if v.balance_cents == 0 {
        return Err(Failure::refuse(
            Refusal::VoucherEmpty,
            format!("voucher {code} has been spent: nothing is left on it"),
        ));
    }
    Ok(())
}
