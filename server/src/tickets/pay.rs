//! `POST /api/v1/tickets/{serial}/pay`: pays a winning ticket once (rules 11.5, 12.2).
//!
//! A ticket is paid once, when every game it plays is settled: the whole prize in one
//! payment. Two pays at once pay once: the update that marks the ticket paid only matches an
//! unpaid ticket, and the loser of the race is told it is already paid. A winning ticket may
//! also be paid as a voucher (`vouchers::issue`) or tendered for a sale (`tickets::tender`):
//! the same `facts`, `keno_core::payable` and `mark_paid`.

use actix_web::{post, web};
use diesel::prelude::*;

use super::{find, TicketRow};
use crate::audit::log::Entry;
use crate::auth::{Principal, Require, Role};
use crate::db::schema::{games, ticket_refunds, ticket_results, tickets};
use crate::db::{now_micros, DbConnection};
use crate::error::{ApiResult, DomainResult, Failure};
use crate::state::AppState;
use keno_core::{
    GamePrize, GameState, KenoDay, PayMethod, PayRefusal, PayableFacts, Played, TicketStatus,
};
// The wire's type (keno-api), where the server's modules have always found it.
pub use keno_api::tickets::Payment;

/// Pays what the ticket won, once.
#[utoipa::path(
    tag = "tickets",
    security(("bearer" = [])),
    params(("serial" = String, Path)),
    responses(
        (status = 200, body = Payment),
        (status = 409, body = crate::error::ErrorBody, description = "`already_paid`, `not_settled`, `no_prize`, `cancelled`"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/tickets/{serial}/pay", wrap = "Require(&[Role::Writer])")]
pub async fn pay(
    state: web::Data<AppState>,
    principal: Principal,
    serial: web::Path<String>,
) -> ApiResult<web::Json<Payment>> {
    let serial = serial.into_inner();
    let payment = crate::store::write(&state, Some("payment"), move |state, conn| {
        let today = crate::vouchers::today(state)?;
        pay_in(conn, &serial, &principal, today)
    })
    .await?;
    Ok(web::Json(payment))
}

fn pay_in(
    conn: &mut DbConnection,
    serial: &str,
    principal: &Principal,
    today: KenoDay,
) -> DomainResult<Payment> {
    let t = find(conn, serial)?.ok_or_else(|| Failure::not_found("ticket"))?;
    // Rules 11.5, 12.2, 13.1: the core decides what is paid, and how.
    let due = keno_core::payable(&facts(conn, &t)?, today).map_err(|e| refused(&t.serial, e))?;
    let entry = mark_paid(
        conn,
        &t,
        due.total_cents,
        due.method,
        &principal.id,
        serde_json::json!({}),
    )?;
    crate::audit::log::append(conn, vec![entry])?;
    Ok(Payment {
        paid_cents: due.total_cents as i64,
        method: due.method.to_string(),
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
    Ok(PayableFacts {
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
    Ok(Entry::new("ticket_paid", &t.serial, payload).by(by))
}
