//! `POST /api/v1/tickets/{serial}/pay`: pays a winning ticket once (rules 11.5, 12.2).
//!
//! A ticket is paid once, when every game it plays is settled: the whole prize in one
//! payment. Two pays at once pay once: the update that marks the ticket paid only matches an
//! unpaid ticket, and the loser of the race is told it is already paid. A winning ticket may
//! also be paid as a voucher (`vouchers::issue`) or tendered for a sale (`tickets::tender`):
//! the same `payable` and `mark_paid`.

use actix_web::{post, web};
use diesel::prelude::*;
use serde::Serialize;
use utoipa::ToSchema;

use super::{find, TicketRow};
use crate::audit::log::Entry;
use crate::auth::{Principal, Require, Role};
use crate::db::schema::{games, ticket_refunds, ticket_results, tickets};
use crate::db::{now_micros, DbConnection};
use crate::error::{ApiResult, DomainResult, Failure};
use crate::state::AppState;
use keno_api::Refusal;

#[derive(Debug, Serialize, ToSchema)]
pub struct Payment {
    pub paid_cents: i64,
    /// cash | cheque: a ticket with a major prize is paid by cheque (rule 12.2). (A ticket's
    /// `pay_method` may also be `voucher`, paid as a voucher, or `tender`, tendered for a sale.)
    pub method: String,
}

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
    let payment = web::block(move || -> DomainResult<Payment> {
        let mut conn = state.db.conn()?;
        let _turn = state.db.writer_turn();
        let today = crate::vouchers::today(&state);
        conn.transaction(|conn| {
            let payment = pay_in(conn, &serial, &principal, &today)?;
            state.faults.pause("payment");
            Ok(payment)
        })
    })
    .await??;
    Ok(web::Json(payment))
}

fn pay_in(
    conn: &mut DbConnection,
    serial: &str,
    principal: &Principal,
    today: &str,
) -> DomainResult<Payment> {
    let t = find(conn, serial)?.ok_or_else(|| Failure::not_found("ticket"))?;
    let payable = payable(conn, &t)?;
    payable.at_a_terminal(today)?;
    let method = if payable.major { "cheque" } else { "cash" };
    let entry = mark_paid(
        conn,
        &t,
        payable.total_cents,
        method,
        &principal.id,
        serde_json::json!({}),
    )?;
    crate::audit::log::append(conn, vec![entry])?;
    Ok(Payment {
        paid_cents: payable.total_cents,
        method: method.into(),
    })
}

/// What a ticket pays now.
#[derive(Clone, Copy, Debug)]
pub struct Payable {
    /// Prizes and invalidation refunds together.
    pub total_cents: i64,
    /// Some of it is a major prize (rule 1(h)): paid by cheque only (rule 12.2).
    pub major: bool,
    /// The last Keno Day a writer terminal may pay it (rule 13.1): 12 months after the Keno
    /// Day of its last game.
    pub payable_until: Option<chrono::NaiveDate>,
}

impl Payable {
    /// Rule 13.1: a terminal pays (or takes as tender, or turns into a voucher) a prize for 12
    /// months after its Keno Day; after that only an Unclaimed Prize Claim Form does.
    pub fn at_a_terminal(&self, today: &str) -> DomainResult<()> {
        let today = chrono::NaiveDate::parse_from_str(today, "%Y-%m-%d").ok();
        match (self.payable_until, today) {
            (Some(until), Some(today)) if today > until => Err(Failure::refuse(
                Refusal::ClaimRequired,
                format!(
                    "this ticket's prize was payable at a terminal until {until} (12 months after \
                     its Keno Day, rule 13.1): the player files an Unclaimed Prize Claim Form"
                ),
            )),
            _ => Ok(()),
        }
    }
}

/// What `t` pays, or why it cannot be paid now: paid already, cancelled, not every game
/// settled, or nothing won.
pub fn payable(conn: &mut DbConnection, t: &TicketRow) -> DomainResult<Payable> {
    match t.status.as_str() {
        "paid" => {
            return Err(Failure::refuse(
                Refusal::AlreadyPaid,
                format!("ticket {} has already been paid (rule 11.5)", t.serial),
            ))
        }
        "cancelled" => {
            return Err(Failure::refuse(
                Refusal::Cancelled,
                format!("ticket {} was cancelled", t.serial),
            ))
        }
        _ => {}
    }
    let last = t.last_played_game();
    let settled: i64 = games::table
        .filter(games::number.between(t.first_game, last))
        .filter(games::state.eq_any(["settled", "invalidated"]))
        .count()
        .get_result(conn)?;
    if settled < last - t.first_game + 1 {
        return Err(Failure::refuse(Refusal::NotSettled,
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
        return Err(Failure::refuse(
            Refusal::NoPrize,
            format!("ticket {} won nothing", t.serial),
        ));
    }
    let last_day: Option<String> = games::table
        .find(last)
        .select(games::keno_day)
        .first(conn)
        .optional()?;
    let payable_until = last_day
        .and_then(|d| chrono::NaiveDate::parse_from_str(&d, "%Y-%m-%d").ok())
        .and_then(|d| d.checked_add_months(chrono::Months::new(12)));
    Ok(Payable {
        total_cents: total,
        major: prizes.iter().any(|(_, major)| *major),
        payable_until,
    })
}

/// Marks `t` paid `total` by `method` (cash, cheque, voucher, tender), once: the update only
/// matches an unpaid ticket. Returns the trail's entry, to append last in the transaction;
/// `details` (a JSON object) adds to it what the payment became (the voucher, the ticket bought).
pub fn mark_paid(
    conn: &mut DbConnection,
    t: &TicketRow,
    total: i64,
    method: &str,
    by: &str,
    details: serde_json::Value,
) -> DomainResult<Entry> {
    let now = now_micros();
    let changed = diesel::update(tickets::table.find(&t.serial))
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
        return Err(Failure::refuse(
            Refusal::AlreadyPaid,
            format!("ticket {} has already been paid (rule 11.5)", t.serial),
        ));
    }
    let mut payload =
        serde_json::json!({ "paid_cents": total, "pay_method": method, "paid_at": now });
    if let (Some(p), serde_json::Value::Object(extra)) = (payload.as_object_mut(), details) {
        p.extend(extra);
    }
    Ok(Entry::new("ticket_paid", &t.serial, payload).by(by))
}
