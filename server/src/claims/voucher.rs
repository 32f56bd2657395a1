//! Claims for vouchers (rules 13.1, 13.3, 13.5; INTERPRETATION, "Old vouchers"): twelve months
//! after its Keno Day a voucher is paid only through an Unclaimed Prize Claim Form, which names
//! it by code or, for a lost one, by the date and amount it was issued for. The inspector
//! approves the claim against the voucher; a supervisor pays what is left on it by cheque, once,
//! through the same guarded update as a cash-out (`vouchers::cash::pay_out`).

use diesel::prelude::*;

use super::{ClaimRow, ClaimState};
use crate::db::schema::{claims, vouchers};
use crate::db::{now_micros, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::vouchers::{check_code, lock, VoucherRow, VoucherStatus};
use keno_api::claims::{ClaimForm, VoucherCandidate};
use keno_api::Refusal;

/// How many days either side of the date the claimant gives still match a lost voucher.
const DAY_SLACK: i64 = 1;

/// The voucher a form names, checked: its code, or a lost one's amount, and never with a
/// ticket's serial too.
pub fn named_on(f: &ClaimForm, serial: bool) -> DomainResult<(Option<String>, Option<i64>)> {
    let code = f
        .voucher_code
        .as_deref()
        .map(|c| c.chars().filter(char::is_ascii_digit).collect::<String>())
        .filter(|c| !c.is_empty());
    if let Some(code) = &code {
        check_code(code)?;
    }
    let amount = f.voucher_amount_cents;
    let invalid = |message: &str| Err(Failure::refuse(Refusal::InvalidClaim, message));
    if amount.is_some_and(|a| a <= 0) {
        return invalid("a voucher's amount is more than 0 cents");
    }
    if serial && (code.is_some() || amount.is_some()) {
        return invalid("a claim is for a ticket (its serial) or a voucher, not both");
    }
    Ok((code, amount))
}

/// The claim is for a voucher.
pub fn named(row: &ClaimRow) -> bool {
    row.voucher_code.is_some() || row.voucher_amount_cents.is_some()
}

/// Vouchers with something left that match the claim: the one it names, or those issued for
/// its amount on (about) its date.
pub fn matching(conn: &mut DbConnection, row: &ClaimRow) -> DomainResult<Vec<VoucherCandidate>> {
    let mut q = vouchers::table
        .filter(vouchers::balance_cents.gt(0))
        .select(VoucherRow::as_select())
        .into_boxed();
    if let Some(code) = &row.voucher_code {
        q = q.filter(vouchers::code.eq(code));
    } else {
        let date = chrono::NaiveDate::parse_from_str(&row.purchase_date, "%Y-%m-%d")
            .map_err(|_| Failure::refuse(Refusal::InvalidClaim, "bad purchase date"))?;
        let days: Vec<String> = (-DAY_SLACK..=DAY_SLACK)
            .filter_map(|d| date.checked_add_signed(chrono::TimeDelta::days(d)))
            .map(|d| d.format("%Y-%m-%d").to_string())
            .collect();
        q = q.filter(vouchers::keno_day.eq_any(days));
        if let Some(amount) = row.voucher_amount_cents {
            q = q.filter(vouchers::amount_cents.eq(amount));
        }
    }
    let found: Vec<VoucherRow> = q.order(vouchers::issued_at).limit(50).load(conn)?;
    Ok(found
        .into_iter()
        .map(|v| VoucherCandidate {
            code: v.code,
            site: v.site,
            keno_day: v.keno_day,
            amount_cents: v.amount_cents,
            balance_cents: v.balance_cents,
            status: v.status.to_string(),
        })
        .collect())
}

/// Voucher `code` may be what claim `id` is approved for: something is left on it and no other
/// claim has it.
pub fn claimable(conn: &mut DbConnection, id: i64, code: &str) -> DomainResult<()> {
    check_code(code)?;
    let v = lock(conn, &[code])?
        .pop()
        .ok_or_else(|| Failure::not_found("voucher"))?;
    if v.status != VoucherStatus::Active || v.balance_cents == 0 {
        return Err(Failure::refuse(
            Refusal::VoucherEmpty,
            format!("voucher {code} has nothing left on it: nothing to claim"),
        ));
    }
    if super::held_by_another(conn, id, &super::Claimed::Voucher(code.to_string()))? {
        return Err(Failure::refuse(
            Refusal::VoucherClaimed,
            format!("voucher {code} is already the subject of an approved claim"),
        ));
    }
    Ok(())
}

/// Pays approved claim `row` for voucher `code` by cheque (rule 13.5): what is left on the
/// voucher, paid out once, and the claim marked paid in the same transaction.
pub fn pay(
    conn: &mut DbConnection,
    row: &ClaimRow,
    code: &str,
    (to, cheque, by): (ClaimState, &str, &str),
) -> DomainResult<usize> {
    let v = lock(conn, &[code])?
        .pop()
        .ok_or_else(|| Failure::not_found("voucher"))?;
    let paid = crate::vouchers::cash::pay_out(conn, v, (by, None))?;
    Ok(diesel::update(claims::table.find(row.id))
        .filter(claims::state.eq(ClaimState::Approved.as_str()))
        .set((
            claims::state.eq(to.as_str()),
            claims::paid_cents.eq(paid.cashed_cents),
            claims::paid_by.eq(by),
            claims::paid_at.eq(now_micros()),
            claims::cheque_reference.eq(cheque),
        ))
        .execute(conn)?)
}
