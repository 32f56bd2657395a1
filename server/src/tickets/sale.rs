//! `POST /api/v1/tickets`: selling a ticket (rules 4, 5, 6).
//!
//! The price and the ways come from keno-core. The sale commits in one transaction that holds
//! the open game against the close (PostgreSQL: a shared row lock on the game; SQLite: the
//! single writer), so a sale that races the close lands in the game before it closes or in the
//! next one, never in a closed game. A `request_id` already sold by the same writer returns that
//! ticket and sells nothing.

use actix_web::{post, web, HttpResponse};
use diesel::prelude::*;
use getrandom::SysRng;
use keno_core::serial::new_serial;
use keno_core::{Bet, ScheduleId};
use rand_core::UnwrapErr;
use serde::Deserialize;
use utoipa::ToSchema;

use super::{bet_kind_name, find, ways_lines, BetRequest, Schedule, Ticket, TicketRow};
use crate::auth::{Principal, Role};
use crate::db::schema::{games, terminals, tickets};
use crate::db::{now_micros, per_backend, DbConnection};
use crate::error::{ApiError, ApiResult};
use crate::games::GameRow;
use crate::state::AppState;

/// A sale (`shared/API.md`).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SaleRequest {
    /// Unique per sale, chosen by the terminal; a retry with the same id sells nothing twice.
    pub request_id: String,
    pub bet: BetRequest,
    #[serde(default)]
    pub schedule: Schedule,
    pub amount_per_way_cents: u64,
    /// Consecutive games from the next game open for sale (Keno To Go from 50).
    #[serde(default = "one")]
    pub games: u32,
}

fn one() -> u32 {
    1
}

/// Sells a ticket: 201 with the ticket; 200 with the same ticket for a `request_id` already sold.
#[utoipa::path(
    tag = "tickets",
    security(("bearer" = [])),
    request_body = SaleRequest,
    responses(
        (status = 201, body = Ticket, description = "Sold"),
        (status = 200, body = Ticket, description = "Already sold under this request_id: nothing sold"),
        (status = 409, body = crate::error::ErrorBody, description = "`game_closed`: no game open for sale"),
        (status = 422, body = crate::error::ErrorBody, description = "Refused under the rules: `invalid_selection`, `below_minimum_wager`, `invalid_wager_increment`, `ticket_total_over_limit`, `schedule_not_offered`, ..."),
        (status = 400, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/tickets")]
pub async fn sell(
    state: web::Data<AppState>,
    principal: Principal,
    request: web::Json<SaleRequest>,
) -> ApiResult<HttpResponse> {
    principal.require(&[Role::Writer])?;
    let request = request.into_inner();
    if request.request_id.is_empty() || request.request_id.len() > 100 {
        return Err(ApiError::bad_request(
            "invalid_request_id",
            "request_id must be 1 to 100 characters",
        ));
    }
    let (Some(site), Some(terminal)) = (principal.site.clone(), principal.terminal.clone()) else {
        return Err(ApiError::forbidden(
            "this writer is not bound to a site and terminal",
        ));
    };
    let schedule = ScheduleId::from(request.schedule);
    let ticket = match prepare(&state, &principal, &request, site, terminal) {
        Ok(ticket) => ticket,
        Err(refusal) => {
            // A retry of a sale made before a change (of the rule set, say) still gets its
            // ticket rather than a refusal.
            let (s, p, r) = (
                state.clone(),
                principal.id.clone(),
                request.request_id.clone(),
            );
            let sold =
                web::block(move || -> ApiResult<_> { Ok(by_request(&mut *s.db.conn()?, &p, &r)?) })
                    .await??;
            return match sold {
                Some(t) => Ok(HttpResponse::Ok().json(Ticket::from(&t))),
                None => Err(refusal),
            };
        }
    };
    // A game that closes as the sale commits sends it to the next game.
    for _ in 0..3 {
        match state.sales.commit(ticket.clone()).await? {
            Some(Outcome::Sold(t)) => {
                if schedule == ScheduleId::Jackpot {
                    // The pool on the displays grows as the game sells (rule 7.3 as
                    // interpreted); the announcer sends the new figure within a second.
                    state
                        .jackpots_changed
                        .store(true, std::sync::atomic::Ordering::Relaxed);
                }
                return Ok(HttpResponse::Created().json(Ticket::from(&*t)));
            }
            Some(Outcome::AlreadySold(t)) => return Ok(HttpResponse::Ok().json(Ticket::from(&*t))),
            None => tokio::time::sleep(std::time::Duration::from_millis(20)).await,
        }
    }
    Err(ApiError::conflict(
        "game_closed",
        "no game is open for sale: Keno is closed",
    ))
}

pub enum Outcome {
    Sold(Box<TicketRow>),
    AlreadySold(Box<TicketRow>),
}

/// The ticket as it will be stored, checked and priced by keno-core; the game, serial and
/// ticket number are given when it commits.
fn prepare(
    state: &AppState,
    principal: &Principal,
    request: &SaleRequest,
    site: String,
    terminal: String,
) -> ApiResult<TicketRow> {
    let rules = &state.rules;
    let schedule = ScheduleId::from(request.schedule);
    let bet = Bet::from(request.bet.clone());
    let marks = bet.mark(rules, schedule, &mut UnwrapErr(SysRng))?;
    let plan = rules.plan(marks, schedule)?;
    let price = rules.price(&plan, request.amount_per_way_cents, request.games)?;
    let groups: Vec<Vec<u8>> = plan.groups.iter().map(|g| g.to_vec()).collect();
    Ok(TicketRow {
        serial: String::new(),
        principal_id: principal.id.clone(),
        request_id: request.request_id.clone(),
        ticket_number: 0,
        site,
        terminal,
        writer: principal.name.clone(),
        issued_at: 0,
        keno_day: String::new(),
        bet_type: bet_kind_name(plan.kind),
        schedule: schedule.key().to_string(),
        groups_json: serde_json::to_string(&groups).expect("numbers serialize"),
        combine_json: serde_json::to_string(&plan.combine).expect("numbers serialize"),
        way_counts_json: serde_json::to_string(&ways_lines(&plan)).expect("lines serialize"),
        amount_per_way_cents: price.amount_per_way_cents as i64,
        way_count: price.ways as i64,
        first_game: 0,
        last_game: 0,
        games: price.games as i32,
        charged_games: price.charged_games as i32,
        game_cost_cents: price.game_cost_cents as i64,
        total_cents: price.total_cents as i64,
        rule_set: state.rule_set_hash.clone(),
        status: "active".into(),
        cancelled_from_game: None,
        refund_cents: 0,
        cancelled_at: None,
        paid_cents: 0,
        paid_at: None,
        paid_by: None,
        pay_method: None,
    })
}

/// Commits one sale into `game`, which the caller holds open, or finds it already sold.
pub fn commit_sale(
    conn: &mut DbConnection,
    ticket: &mut TicketRow,
    game: &GameRow,
) -> QueryResult<Outcome> {
    if let Some(t) = by_request(conn, &ticket.principal_id, &ticket.request_id)? {
        return Ok(Outcome::AlreadySold(Box::new(t)));
    }
    let number: Option<i64> = per_backend!(conn, |c| diesel::update(
        terminals::table.find((&ticket.site, &ticket.terminal))
    )
    .set(terminals::last_ticket_number.eq(terminals::last_ticket_number + 1))
    .returning(terminals::last_ticket_number)
    .get_result(c)
    .optional())?;
    ticket.ticket_number = match number {
        Some(n) => n,
        None => {
            diesel::insert_into(terminals::table)
                .values((
                    terminals::site.eq(&ticket.site),
                    terminals::terminal.eq(&ticket.terminal),
                    terminals::last_ticket_number.eq(1i64),
                ))
                .execute(conn)?;
            1
        }
    };
    ticket.serial = new_serial(&mut UnwrapErr(SysRng));
    ticket.issued_at = now_micros();
    ticket.keno_day = game.keno_day.clone();
    ticket.first_game = game.number;
    ticket.last_game = game.number + i64::from(ticket.games) - 1;
    let t = &*ticket;
    diesel::insert_into(tickets::table)
        .values((
            tickets::serial.eq(&t.serial),
            tickets::principal_id.eq(&t.principal_id),
            tickets::request_id.eq(&t.request_id),
            tickets::ticket_number.eq(t.ticket_number),
            tickets::site.eq(&t.site),
            tickets::terminal.eq(&t.terminal),
            tickets::writer.eq(&t.writer),
            tickets::issued_at.eq(t.issued_at),
            tickets::keno_day.eq(&t.keno_day),
            tickets::bet_type.eq(&t.bet_type),
            tickets::schedule.eq(&t.schedule),
            tickets::groups_json.eq(&t.groups_json),
            tickets::combine_json.eq(&t.combine_json),
            tickets::way_counts_json.eq(&t.way_counts_json),
            tickets::amount_per_way_cents.eq(t.amount_per_way_cents),
            tickets::way_count.eq(t.way_count),
            tickets::first_game.eq(t.first_game),
            tickets::last_game.eq(t.last_game),
            tickets::games.eq(t.games),
            tickets::charged_games.eq(t.charged_games),
            tickets::game_cost_cents.eq(t.game_cost_cents),
            tickets::total_cents.eq(t.total_cents),
            tickets::rule_set.eq(&t.rule_set),
            tickets::status.eq(&t.status),
        ))
        .execute(conn)?;
    Ok(Outcome::Sold(Box::new(ticket.clone())))
}

/// The open game, held against the close until this transaction ends.
pub fn lock_open_game(conn: &mut DbConnection) -> QueryResult<Option<GameRow>> {
    let open = games::table
        .filter(games::state.eq("open"))
        .order(games::number.desc());
    match conn {
        // A shared lock: sales run side by side; the close's UPDATE waits for them, and a sale
        // that waited on a close finds the row no longer open.
        DbConnection::Pg(pg) => open
            .select(GameRow::as_select())
            .for_share()
            .first(pg)
            .optional(),
        // SQLite writers take turns (Db::writer_turn), so nothing can close the game meanwhile.
        DbConnection::Sqlite(sqlite) => open.select(GameRow::as_select()).first(sqlite).optional(),
    }
}

fn by_request(
    conn: &mut DbConnection,
    principal: &str,
    request_id: &str,
) -> QueryResult<Option<TicketRow>> {
    let serial: Option<String> = tickets::table
        .filter(tickets::principal_id.eq(principal))
        .filter(tickets::request_id.eq(request_id))
        .select(tickets::serial)
        .first(conn)
        .optional()?;
    match serial {
        Some(s) => find(conn, &s),
        None => Ok(None),
    }
}
