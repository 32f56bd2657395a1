//! `POST /api/v1/tickets/{serial}/cancel` (rule 8).
//!
//! - 8.1: a game can be cancelled until its first number is drawn;
//! - 8.2: a multi-game ticket's games not yet played can be cancelled; a Keno To Go ticket only
//!   whole, before the first number of its first game;
//! - 8.3: not on a later Keno Day than the one it was sold on.
//!
//! The drawer marks a game `drawing` in the same transaction as its first number; the cancel
//! takes the row of the first game it cancels (a no-op update) so the two are serialized. Who
//! cancelled is recorded (`cancelled_by`) for the auditors' daily exceptions.

use actix_web::{post, web};
use chrono::Local;
use diesel::prelude::*;
use serde::Serialize;
use utoipa::ToSchema;

use super::{find, TicketRow};
use crate::auth::{Principal, Require, Role};
use crate::db::schema::{games, tickets};
use crate::db::{now_micros, DbConnection};
use crate::error::{ApiResult, DomainResult, Failure};
use crate::state::AppState;
use keno_api::Refusal;

#[derive(Debug, Serialize, ToSchema)]
pub struct Cancellation {
    pub refund_cents: i64,
    pub games_cancelled: Vec<i64>,
}

/// Cancels what rule 8 allows and returns the refund.
#[utoipa::path(
    tag = "tickets",
    security(("bearer" = [])),
    params(("serial" = String, Path)),
    responses(
        (status = 200, body = Cancellation),
        (status = 409, body = crate::error::ErrorBody, description = "`cancel_not_allowed` (with the rule), `already_paid`, `already_cancelled`"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/tickets/{serial}/cancel", wrap = "Require(&[Role::Writer])")]
pub async fn cancel(
    state: web::Data<AppState>,
    principal: Principal,
    serial: web::Path<String>,
) -> ApiResult<web::Json<Cancellation>> {
    let serial = serial.into_inner();
    let result = web::block(move || -> DomainResult<Cancellation> {
        let mut conn = state.db.conn()?;
        let _turn = state.db.writer_turn();
        conn.transaction(|conn| cancel_in(&state, conn, &serial, &principal.id))
    })
    .await??;
    Ok(web::Json(result))
}

fn not_allowed(message: impl Into<String>) -> Failure {
    Failure::refuse(Refusal::CancelNotAllowed, message)
}

fn cancel_in(
    state: &AppState,
    conn: &mut DbConnection,
    serial: &str,
    by: &str,
) -> DomainResult<Cancellation> {
    let t: TicketRow = find(conn, serial)?.ok_or_else(|| Failure::not_found("ticket"))?;
    match t.status.as_str() {
        "paid" => return Err(Failure::refuse(Refusal::AlreadyPaid, "the ticket is paid")),
        "cancelled" => {
            return Err(Failure::refuse(
                Refusal::AlreadyCancelled,
                "the ticket is already cancelled",
            ))
        }
        _ => {}
    }
    // The Keno Day started most recently: outside the hours it is still the one just ended, so
    // a game left open past the end of gaming can still be cancelled until its draw.
    let today = state.settings.hours.latest_started_day(Local::now());
    if today.format("%Y-%m-%d").to_string() > t.keno_day {
        return Err(not_allowed(format!(
            "the ticket was sold on Keno Day {}; its games cannot be cancelled on a later Keno Day (rule 8.3)",
            t.keno_day
        )));
    }
    let last = t.last_played_game();
    let Some(from) = first_unplayed(conn, t.first_game, last)? else {
        return Err(not_allowed(
            "every game of the ticket has started drawing: a game can be cancelled only until its first number is drawn (rule 8.1)",
        ));
    };
    let sold_under = state.rule_sets.get(conn, &t.rule_set)?;
    let keno_to_go = sold_under.games().is_keno_to_go(t.games as u32);
    if from != t.first_game {
        if keno_to_go {
            return Err(not_allowed(
                "a Keno To Go ticket can be cancelled only whole, before the first number of its first game (rule 8.2)",
            ));
        }
        if t.games == 1 {
            return Err(not_allowed(
                "the game has started drawing: a game can be cancelled only until its first number is drawn (rule 8.1)",
            ));
        }
    }
    let whole = from == t.first_game;
    // A whole ticket returns what was paid (a Keno To Go discount included); otherwise the
    // games not played, at the game cost (only tickets under 50 games get here: no discount).
    let refund = if whole {
        t.total_cents
    } else {
        t.game_cost_cents * (last - from + 1)
    };
    let now = now_micros();
    // The refund as read: a second cancel of the same ticket at once (PostgreSQL) finds it
    // changed and refunds nothing twice.
    let changed = diesel::update(tickets::table.find(&t.serial))
        .filter(tickets::status.eq("active"))
        .filter(tickets::refund_cents.eq(t.refund_cents))
        .set((
            tickets::status.eq(if whole { "cancelled" } else { "active" }),
            tickets::cancelled_from_game.eq(from),
            tickets::refund_cents.eq(tickets::refund_cents + refund),
            tickets::cancelled_at.eq(now),
            tickets::cancelled_by.eq(by),
        ))
        .execute(conn)?;
    if changed != 1 {
        return Err(Failure::refuse(
            Refusal::TicketChanged,
            "the ticket changed meanwhile: look it up again",
        ));
    }
    crate::audit::log::append(
        conn,
        vec![crate::audit::log::Entry::new(
            "ticket_cancelled",
            &t.serial,
            serde_json::json!({
                "cancelled_from_game": from,
                "refund_cents": refund,
                "whole": whole,
                "cancelled_at": now,
            }),
        )
        .by(by)],
    )?;
    if t.schedule == "jackpot" {
        state
            .jackpots_changed
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }
    Ok(Cancellation {
        refund_cents: refund,
        games_cancelled: (from..=last).collect(),
    })
}

/// The first game from `first` to `last` not yet drawing, held against its draw starting.
fn first_unplayed(conn: &mut DbConnection, first: i64, last: i64) -> QueryResult<Option<i64>> {
    let mut candidate = first;
    while candidate <= last {
        let state: Option<String> = games::table
            .find(candidate)
            .select(games::state)
            .first(conn)
            .optional()?;
        match state.as_deref() {
            // A game not created yet is in the future.
            None => return Ok(Some(candidate)),
            Some("open") | Some("closed") => {
                let held = diesel::update(games::table.find(candidate))
                    .filter(games::state.eq_any(["open", "closed"]))
                    .set(games::state.eq(games::state))
                    .execute(conn)?;
                if held == 1 {
                    return Ok(Some(candidate));
                }
            }
            _ => {}
        }
        candidate += 1;
    }
    Ok(None)
}
