//! A writer issues a voucher for a cash deposit, or in place of paying a winning ticket (rule
//! 1(n); `POST /api/v1/vouchers`).
//!
//! A `request_id` already used by the same writer returns that voucher (200) and issues nothing,
//! so a retried request never makes two vouchers. A ticket is paid once: as a voucher it is
//! marked paid (`pay_method = "voucher"`) in the transaction that makes the voucher. A ticket
//! with a major prize puts only its minor wins and refunds on the voucher, the major prizes
//! paid by cheque beside it (`voucher_and_cheque`, rule 12.2); one with nothing but major
//! prizes is refused here.

use diesel::prelude::*;

use super::{new_code, NewVoucher, VoucherRow, VoucherSource, VoucherStatus, MAX_DEPOSIT_CENTS};
use crate::auth::Principal;
use crate::db::schema::vouchers;
use crate::db::{now_micros, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::staff::overrides::{Approval, AtCounter};
use crate::tickets::pay::{facts, mark_paid, refused};
use keno_api::staff::HandPay;
use keno_api::Refusal;
use keno_core::KenoDay;
// The wire's type (keno-api), where the server's modules have always found it.
pub use keno_api::vouchers::IssueRequest;

/// What a voucher is issued for.
#[derive(Clone)]
pub enum What {
    Deposit(i64),
    Ticket(String),
}

impl What {
    /// What the request asks to be made a voucher: a deposit (1 cent to the most, rule 1(n))
    /// or a winning ticket, and never both.
    pub fn of(amount_cents: Option<i64>, ticket: Option<String>) -> DomainResult<What> {
        match (amount_cents, ticket) {
            (Some(amount), None) => {
                if !(1..=MAX_DEPOSIT_CENTS).contains(&amount) {
                    return Err(Failure::refuse(
                        Refusal::InvalidAmount,
                        format!(
                            "a deposit is 1 cent to {} (amount_cents {amount})",
                            keno_core::Dollars(MAX_DEPOSIT_CENTS as u64)
                        ),
                    ));
                }
                Ok(What::Deposit(amount))
            }
            (None, Some(serial)) => {
                if !keno_core::serial::is_well_formed(&serial) {
                    return Err(Failure::refuse(
                        Refusal::InvalidSerial,
                        "that is not a ticket serial number: check the digits",
                    ));
                }
                Ok(What::Ticket(serial))
            }
            _ => Err(Failure::refuse(
                Refusal::InvalidRequest,
                "give either amount_cents (a cash deposit) or ticket (a winning ticket's serial)",
            )),
        }
    }
}

/// Who issues, with the supervisor's approval and the hand-pay they carry.
pub struct Counter<'a> {
    pub at: AtCounter<'a>,
    pub hand_pay: Option<&'a HandPay>,
}

/// Issues a voucher for `what` on Keno Day `today` under the writer's `request_id` (the
/// request's `digest`): `true` with one made now, `false` with the one this request made
/// before (409 when that id was another request's).
pub fn issue(
    conn: &mut DbConnection,
    counter: &Counter<'_>,
    (request_id, digest): (&str, &str),
    what: &What,
    today: KenoDay,
) -> DomainResult<(bool, VoucherRow)> {
    let principal = counter.at.principal;
    if let Some(v) = by_request(conn, principal, request_id)? {
        return same_issue(v, (request_id, digest)).map(|v| (false, v));
    }
    // A voucher is issued at a counter: stored with no site, no other site's writer would
    // need an approval to pay it.
    let (site, terminal) = principal
        .site
        .clone()
        .zip(principal.terminal.clone())
        .ok_or_else(|| Failure::forbidden("a voucher is issued at a terminal: sign on at one"))?;
    let code = new_code();
    let mut entries = Vec::new();
    let (source, ticket, amount) = match what {
        What::Deposit(amount) => {
            let rule = counter.at.limits.shift;
            crate::shifts::taking_in(conn, principal, rule)?;
            (VoucherSource::Deposit, None, *amount)
        }
        What::Ticket(serial) => match pay_ticket(conn, counter, serial, &code, today) {
            Ok((entry, cents)) => {
                entries.push(entry);
                (VoucherSource::Ticket, Some(serial.as_str()), cents)
            }
            // Paid meanwhile: by this very request (a retry that waited on the first try's
            // row lock, PostgreSQL) it is that voucher; otherwise the refusal stands.
            Err(e) => {
                return match by_request(conn, principal, request_id)? {
                    Some(v) => same_issue(v, (request_id, digest)).map(|v| (false, v)),
                    None => Err(e),
                }
            }
        },
    };
    let row = VoucherRow {
        code: code.clone(),
        principal_id: principal.id.clone(),
        request_id: Some(request_id.to_string()),
        site,
        terminal,
        writer: principal.name.clone(),
        issued_at: now_micros(),
        keno_day: today.to_string(),
        source,
        ticket: ticket.map(str::to_string),
        amount_cents: amount,
        balance_cents: amount,
        status: VoucherStatus::Active,
        cashed_cents: 0,
        cashed_at: None,
        cashed_by: None,
        request_digest: Some(digest.to_string()),
    };
    entries.push(NewVoucher::from(&row).insert(conn)?);
    // Last in the transaction.
    crate::audit::log::append(conn, entries)?;
    Ok((true, row))
}

/// Pays winning ticket `serial` as voucher `code`: its trail entry, and the voucher's cents.
fn pay_ticket(
    conn: &mut DbConnection,
    counter: &Counter<'_>,
    serial: &str,
    code: &str,
    today: KenoDay,
) -> DomainResult<(crate::audit::log::Entry, i64)> {
    let t = crate::tickets::find(conn, serial)?.ok_or_else(|| Failure::not_found("ticket"))?;
    // Rules 13.1, 1(n)(ii), 12.2: payable at a terminal today; the voucher holds the minor
    // wins and refunds, a major prize is paid by cheque beside it. Another site's ticket, or
    // more than a writer pays alone, needs a supervisor's approval.
    let (approval, (due, parts)) =
        counter
            .at
            .admit_payment(conn, (&t.serial, &t.site), |conn| {
                let due =
                    keno_core::payable(&facts(conn, &t)?, today).map_err(|e| refused(serial, e))?;
                let parts = due.voucher_parts().map_err(|e| refused(serial, e))?;
                Ok((parts.iter().map(|p| p.cents).sum(), (due, parts)))
            })?;
    let total: u64 = parts.iter().map(|p| p.cents).sum();
    let by_cheque = parts.len() > 1;
    let hand_pay = crate::tickets::hand_pay::record(
        conn,
        &t.serial,
        due.major,
        by_cheque,
        counter.hand_pay,
        &approval,
    )?;
    let mut details = serde_json::json!({
        "voucher": code, "hand_pay": hand_pay, "approved_by": Approval::payload(&approval),
    });
    if by_cheque {
        details["parts"] = crate::tickets::pay::parts_json(&parts);
    }
    let method = keno_core::Payable::method_of(&parts);
    let entry = mark_paid(conn, &t, total, method, &counter.at.principal.id, details)?;
    if by_cheque {
        crate::tickets::pay::record_parts(conn, serial, &parts)?;
    }
    Ok((entry, parts[0].cents as i64))
}

/// The voucher issued earlier under the request id, if its request was this one (409 if not).
fn same_issue(v: VoucherRow, (request_id, digest): (&str, &str)) -> DomainResult<VoucherRow> {
    if crate::request_ids::same(v.request_digest.as_deref(), digest) {
        return Ok(v);
    }
    let earlier = format_args!(
        "the issue of voucher {}, at {}",
        v.code,
        crate::db::rfc3339(v.issued_at)
    );
    Err(crate::request_ids::reused(request_id, earlier))
}

/// The voucher this writer issued under `request_id`, if any.
fn by_request(
    conn: &mut DbConnection,
    principal: &Principal,
    request_id: &str,
) -> QueryResult<Option<VoucherRow>> {
    vouchers::table
        .filter(vouchers::principal_id.eq(&principal.id))
        .filter(vouchers::request_id.eq(request_id))
        .select(VoucherRow::as_select())
        .first(conn)
        .optional()
}
