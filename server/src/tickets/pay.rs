//! `POST /api/v1/tickets/{serial}/pay`: pays a winning ticket once (rules 11.5, 12.2).
//!
//! A ticket is paid once, when every game it plays is settled: the whole prize in one
//! payment. Two pays at once pay once: the update that marks the ticket paid only matches an
//! unpaid ticket, and the loser of the race is told it is already paid.

use actix_web::{post, web};
use diesel::prelude::*;
use serde::Serialize;
use utoipa::ToSchema;

use super::find;
use crate::auth::{Principal, Role};
use crate::db::schema::{games, ticket_refunds, ticket_results, tickets};
use crate::db::{now_micros, DbConnection};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

#[derive(Debug, Serialize, ToSchema)]
pub struct Payment {
    pub paid_cents: i64,
    /// cash | cheque: a ticket with a major prize is paid by cheque (rule 12.2).
    pub method: String,
}

/// Pays what the ticket won, once.
#[utoipa::path(
    tag = "tickets",
    security(("bearer" = [])),
    params(("serial" = String, Path)),
    responses(
        (status = 200, body = Payment),
        (status = 409, body = crate::error::ErrorBody, description = "`already_paid`, `not_settled`, `no_prize`, `cancelled`, `claim_required` (more than 12 months after its Keno Day: rule 13.1)"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/tickets/{serial}/pay")]
pub async fn pay(
    state: web::Data<AppState>,
    principal: Principal,
    serial: web::Path<String>,
) -> ApiResult<web::Json<Payment>> {
    principal.require(&[Role::Writer])?;
    let serial = serial.into_inner();
    let payment = web::block(move || -> ApiResult<Payment> {
        let mut conn = state.db.conn()?;
        let _turn = state.db.writer_turn();
        let today = state
            .settings
            .hours
            .latest_started_day(chrono::Local::now());
        conn.transaction(|conn| pay_in(conn, &serial, &principal, today))
    })
    .await??;
    Ok(web::Json(payment))
}

fn pay_in(
    conn: &mut DbConnection,
    serial: &str,
    principal: &Principal,
    today: chrono::NaiveDate,
) -> ApiResult<Payment> {
    let t = find(conn, serial)?.ok_or_else(|| ApiError::not_found("ticket"))?;
    let due = amount_due(conn, &t)?;
    // Rule 13.1: payable at a writer terminal for 12 months after its Keno Day; after that
    // only through an Unclaimed Prize Claim Form.
    if let Some(until) = due.payable_until {
        if today > until {
            return Err(ApiError::conflict(
                "claim_required",
                format!(
                    "this ticket's prize was payable at a terminal until {until} (12 months after \
                     its Keno Day, rule 13.1): the player files an Unclaimed Prize Claim Form"
                ),
            ));
        }
    }
    let (total, major) = (due.total_cents, due.major);
    let method = if major { "cheque" } else { "cash" };
    mark_paid(conn, &t.serial, total, method, &principal.id)?;
    Ok(Payment {
        paid_cents: total,
        method: method.into(),
    })
}

/// What a ticket is owed, and until when a terminal may pay it.
pub struct Due {
    pub total_cents: i64,
    /// Includes a major prize: paid by cheque (rule 12.2).
    pub major: bool,
    /// The last day a writer terminal may pay it (rule 13.1), from the Keno Day of its last
    /// game.
    pub payable_until: Option<chrono::NaiveDate>,
}

/// What ticket `t` is owed once all its games are settled: its prizes and the refunds of
/// invalidated games. Refused when it is paid, cancelled, not settled or owed nothing.
pub fn amount_due(conn: &mut DbConnection, t: &super::TicketRow) -> ApiResult<Due> {
    match t.status.as_str() {
        "paid" => {
            return Err(ApiError::conflict(
                "already_paid",
                "this ticket has already been paid (rule 11.5)",
            ))
        }
        "cancelled" => return Err(ApiError::conflict("cancelled", "this ticket was cancelled")),
        _ => {}
    }
    let last = t.last_played_game();
    let settled: i64 = games::table
        .filter(games::number.between(t.first_game, last))
        .filter(games::state.eq_any(["settled", "invalidated"]))
        .count()
        .get_result(conn)?;
    if settled < last - t.first_game + 1 {
        return Err(ApiError::conflict(
            "not_settled",
            format!(
                "games {}-{} are not all played and settled (or invalidated) yet; the ticket is paid once, after its last game",
                t.first_game, last
            ),
        ));
    }
    let prizes: Vec<(i64, bool)> = ticket_results::table
        .filter(ticket_results::serial.eq(&t.serial))
        .filter(ticket_results::game.le(last))
        .select((ticket_results::prize_cents, ticket_results::major))
        .load(conn)?;
    // An invalidated game's wager comes back with the prizes (general rule 18.2).
    let refunds: i64 = ticket_refunds::table
        .filter(ticket_refunds::serial.eq(&t.serial))
        .select(ticket_refunds::refund_cents)
        .load::<i64>(conn)?
        .iter()
        .sum();
    let total: i64 = prizes.iter().map(|(p, _)| p).sum::<i64>() + refunds;
    if total == 0 {
        return Err(ApiError::conflict("no_prize", "this ticket won nothing"));
    }
    let last_day: Option<String> = games::table
        .find(last)
        .select(games::keno_day)
        .first(conn)
        .optional()?;
    let payable_until = last_day
        .and_then(|d| chrono::NaiveDate::parse_from_str(&d, "%Y-%m-%d").ok())
        .and_then(|d| d.checked_add_months(chrono::Months::new(12)));
    Ok(Due {
        total_cents: total,
        major: prizes.iter().any(|(_, major)| *major),
        payable_until,
    })
}

/// Marks ticket `serial` paid, once: the update matches only an unpaid ticket, so of two
/// payments at once (two terminals, or a terminal and a claim) one wins.
pub fn mark_paid(
    conn: &mut DbConnection,
    serial: &str,
    total: i64,
    method: &str,
    by: &str,
) -> ApiResult<()> {
    let now = now_micros();
    let changed = diesel::update(tickets::table.find(serial))
        .filter(tickets::status.eq("active"))
        .set((
            tickets::status.eq("paid"),
            tickets::paid_cents.eq(total),
            tickets::paid_at.eq(now),
            tickets::paid_by.eq(by),
            tickets::pay_method.eq(method),
        ))
        .execute(conn)?;
    if changed != 1 {
        return Err(ApiError::conflict(
            "already_paid",
            "this ticket has already been paid (rule 11.5)",
        ));
    }
    crate::audit::log::append(
        conn,
        vec![crate::audit::log::Entry::new(
            "ticket_paid",
            serial,
            serde_json::json!({ "paid_cents": total, "pay_method": method, "paid_at": now }),
        )
        .by(by)],
    )?;
    Ok(())
}
