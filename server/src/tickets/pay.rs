//! `POST /api/v1/tickets/{serial}/pay`: pays a winning ticket once (rules 11.5, 12.2).
//!
//! A ticket is paid once, when every game it plays is settled: the whole prize in one
//! payment, in parts (rule 12.2): the minor wins in cash, the major prizes by cheque unless the
//! payer chooses cash (`?major_prizes=cash`); each part is kept (`payment_parts`). Two pays at once pay once: the update that marks the ticket paid only matches an
//! unpaid ticket, and the loser of the race is told it is already paid. A winning ticket may
//! also be paid as a voucher (`vouchers::issue`) or tendered for a sale (`tickets::tender`):
//! the same `facts`, `keno_core::payable` and `mark_paid`.

use diesel::prelude::*;

use super::{find, TicketRow};
use crate::audit::log::Entry;
use crate::db::schema::{
    games, payment_parts, ticket_refunds, ticket_results, tickets, way_results,
};
use crate::db::{now_micros, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::staff::overrides::{Approval, AtCounter};
use keno_api::staff::PayRequest;
use keno_core::{
    GamePrize, GameState, KenoDay, MajorPrizesBy, PayMethod, PayPart, PayRefusal, Payable,
    PayableFacts, Played, TicketStatus,
};
// The wire's type (keno-api), where the server's modules have always found it.
pub use keno_api::tickets::{Payment, PaymentPart};

/// Pays what ticket `serial` won, once, to the writer at the counter (rules 11.5, 12.2):
/// `request` is the hand-pay's claimant, `today` the Keno Day, `majors` how major prizes go.
pub fn pay(
    conn: &mut DbConnection,
    serial: &str,
    (counter, request): (AtCounter<'_>, &PayRequest),
    (today, majors): (KenoDay, MajorPrizesBy),
) -> DomainResult<Payment> {
    let t = find(conn, serial)?.ok_or_else(|| Failure::not_found("ticket"))?;
    // Rules 11.5, 12.2, 13.1: the core decides what is paid, and in what parts; another
    // site's ticket, or more than a writer pays alone, needs a supervisor's approval.
    let (approval, due) = counter.admit_payment(conn, (&t.serial, &t.site), |conn| {
        let due = keno_core::payable(&facts(conn, &t)?, today).map_err(|e| match e {
            PayRefusal::AlreadyPaid => already_paid(conn, &t),
            e => refused(&t.serial, e),
        })?;
        Ok((due.total_cents, due))
    })?;
    let parts = due.parts(majors);
    let method = Payable::method_of(&parts);
    let by_cheque = parts.iter().any(|p| p.method == PayMethod::Cheque);
    let hand_pay = super::hand_pay::record(
        conn,
        &t.serial,
        due.major,
        by_cheque,
        request.hand_pay.as_ref(),
        &approval,
    )?;
    let entry = mark_paid(
        conn,
        &t,
        due.total_cents,
        method,
        &counter.principal.id,
        serde_json::json!({
            "parts": parts_json(&parts), "hand_pay": hand_pay,
            "approved_by": Approval::payload(&approval),
        }),
    )?;
    record_parts(conn, &t.serial, &parts)?;
    crate::audit::log::append(conn, vec![entry])?;
    Ok(Payment {
        paid_cents: due.total_cents as i64,
        method: wire_method(&parts).to_string(),
        parts: shown(&parts),
    })
}

/// Rule 11.5: paid once. The refusal says when, how and by whom, so a writer whose answer was
/// lost can tell the player's payment from another's.
fn already_paid(conn: &mut DbConnection, t: &TicketRow) -> Failure {
    let how = match paid_parts(conn, t) {
        Ok(parts) => parts
            .iter()
            .map(|p| {
                format!(
                    "{} {}",
                    keno_core::Dollars(p.cents.unsigned_abs()),
                    p.method
                )
            })
            .collect::<Vec<_>>()
            .join(" and "),
        Err(_) => keno_core::Dollars(t.paid_cents.unsigned_abs()).to_string(),
    };
    let when = t.paid_at.map_or("at a time not recorded".into(), |at| {
        format!("at {}", crate::db::rfc3339(at))
    });
    let by = t.paid_by.as_deref().unwrap_or("someone not recorded");
    Failure::refuse(
        keno_api::Refusal::AlreadyPaid,
        format!(
            "ticket {} was paid already: {how}, {when}, by {by} (rule 11.5)",
            t.serial
        ),
    )
}

/// The method the answer names: shared/API.md promises other vendors' terminals `cash` or
/// `cheque`, so a payment with any part by cheque says `cheque` (its `parts` say how much);
/// the ticket's stored `pay_method` keeps `cash_and_cheque`.
fn wire_method(parts: &[PayPart]) -> PayMethod {
    if parts.iter().any(|p| p.method == PayMethod::Cheque) {
        PayMethod::Cheque
    } else {
        PayMethod::Cash
    }
}

/// The parts as the audit trail records them: `[method, cents]` each.
pub fn parts_json(parts: &[PayPart]) -> serde_json::Value {
    parts
        .iter()
        .map(|p| serde_json::json!([p.method.as_str(), p.cents]))
        .collect()
}

fn shown(parts: &[PayPart]) -> Vec<PaymentPart> {
    parts
        .iter()
        .map(|p| PaymentPart {
            method: p.method.to_string(),
            cents: p.cents as i64,
        })
        .collect()
}

pub fn record_parts(conn: &mut DbConnection, serial: &str, parts: &[PayPart]) -> QueryResult<()> {
    for (i, p) in parts.iter().enumerate() {
        diesel::insert_into(payment_parts::table)
            .values((
                payment_parts::serial.eq(serial),
                payment_parts::part.eq(i as i32 + 1),
                payment_parts::method.eq(p.method.as_str()),
                payment_parts::cents.eq(p.cents as i64),
            ))
            .execute(conn)?;
    }
    Ok(())
}

/// How ticket `t` was paid, part by part: as recorded, or (paid in one way, as a voucher, a
/// tender or a claim) its one method. Empty while unpaid.
pub fn paid_parts(conn: &mut DbConnection, t: &TicketRow) -> DomainResult<Vec<PaymentPart>> {
    let rows: Vec<(String, i64)> = payment_parts::table
        .filter(payment_parts::serial.eq(&t.serial))
        .order(payment_parts::part)
        .select((payment_parts::method, payment_parts::cents))
        .load(conn)?;
    if !rows.is_empty() {
        return Ok(rows
            .into_iter()
            .map(|(method, cents)| PaymentPart { method, cents })
            .collect());
    }
    Ok(match t.pay_method {
        Some(method) => vec![PaymentPart {
            method: method.to_string(),
            cents: t.paid_cents,
        }],
        None => Vec::new(),
    })
}

/// A refusal of the core about ticket `serial`, named in its message.
pub fn refused(serial: &str, e: impl Into<Failure>) -> Failure {
    e.into().about(format_args!("ticket {serial}"))
}

/// What the core needs to know of `t` to pay it (`keno_core::owed`, `keno_core::payable`):
/// its status, whether every game it plays is over, its prizes and refunds, and the Keno Day
/// of its last game. Read here only, so the pay, the voucher, the tender, the claims and the
/// ticket's view all decide on the same facts.
pub fn facts(conn: &mut DbConnection, t: &TicketRow) -> DomainResult<PayableFacts> {
    let whose = format!("ticket {}", t.serial);
    let last = t.last_played_game();
    let over: i64 = games::table
        .filter(games::number.between(t.first_game, last))
        .filter(games::state.eq_any(GameState::codes_where(GameState::is_final)))
        .count()
        .get_result(conn)?;
    // A ticket cancelled whole plays no game (`last` before its first): none is over.
    let played = if last < t.first_game || over < last - t.first_game + 1 {
        Played::NotYet
    } else {
        let day: String = games::table
            .find(last)
            .select(games::keno_day)
            .first(conn)?;
        Played::All {
            last_keno_day: crate::keno_day::stored(&day, format_args!("game {last}"))?,
        }
    };
    let prizes = ticket_results::table
        .filter(ticket_results::serial.eq(&t.serial))
        .filter(ticket_results::game.le(last))
        .select((ticket_results::prize_cents, ticket_results::major))
        .load::<(i64, bool)>(conn)?
        .into_iter()
        .map(|(prize, major)| {
            Ok(GamePrize {
                prize_cents: unsigned(prize, "a prize", &whose)?,
                major,
            })
        })
        .collect::<DomainResult<_>>()?;
    // General rule 18.2: an invalidated game's wager comes back with the prizes.
    let refunds_cents = ticket_refunds::table
        .filter(ticket_refunds::serial.eq(&t.serial))
        .select(ticket_refunds::refund_cents)
        .load::<i64>(conn)?
        .into_iter()
        .map(|r| unsigned(r, "a refund", &whose))
        .collect::<DomainResult<_>>()?;
    // Rule 12.2: the major prizes, which a cheque may pay.
    let major_prizes_cents = way_results::table
        .filter(way_results::serial.eq(&t.serial))
        .filter(way_results::game.le(last))
        .filter(way_results::major.eq(true))
        .select(way_results::prize_cents)
        .load::<i64>(conn)?
        .into_iter()
        .map(|p| unsigned(p, "a major prize", &whose))
        .collect::<DomainResult<_>>()?;
    Ok(PayableFacts {
        major_prizes_cents,
        status: t.status,
        first_game: unsigned(t.first_game, "its first game", &whose)?,
        last_played_game: unsigned(last, "its last game", &whose)?,
        played,
        prizes,
        refunds_cents,
    })
}

/// Stored cents and game numbers are never negative: one that is is an internal error.
fn unsigned(value: i64, what: &str, whose: &str) -> DomainResult<u64> {
    u64::try_from(value)
        .map_err(|_| Failure::Internal(anyhow::anyhow!("{whose}: {what} is stored as {value}")))
}

/// Marks `t` paid `total` by `method`, once: the update only matches an unpaid ticket. Returns
/// the trail's entry, to append last in the transaction; `details` (a JSON object) adds to it
/// what the payment became (the voucher, the ticket bought, the claim).
pub fn mark_paid(
    conn: &mut DbConnection,
    t: &TicketRow,
    total: u64,
    method: PayMethod,
    by: &str,
    details: serde_json::Value,
) -> DomainResult<Entry> {
    let now = now_micros();
    let total = total as i64;
    let changed = diesel::update(tickets::table.find(&t.serial))
        .filter(tickets::status.eq(TicketStatus::Active.as_str()))
        .set((
            tickets::status.eq(TicketStatus::Paid.as_str()),
            tickets::paid_cents.eq(total),
            tickets::paid_at.eq(now),
            tickets::paid_by.eq(by),
            tickets::pay_method.eq(method.as_str()),
        ))
        .execute(conn)?;
    if changed != 1 {
        // Rule 11.5: paid meanwhile, by another terminal, voucher, tender or claim.
        return Err(refused(&t.serial, PayRefusal::AlreadyPaid));
    }
    let mut payload = serde_json::json!({
        "paid_cents": total, "pay_method": method.as_str(), "paid_at": now
    });
    if let (Some(p), serde_json::Value::Object(extra)) = (payload.as_object_mut(), details) {
        p.extend(extra);
    }
    Ok(Entry::new(
        crate::audit::kind::EntryKind::TicketPaid,
        &t.serial,
        payload,
    )
    .by(by))
}
