//! One game as the console's history browser shows it (issue 18;
//! `GET /api/v1/games/{number}/summary`, `routes/game_summary.rs`): the game and its draw, its
//! settlement totals and pro-rating (rule 12.4), its invalidation, its jackpot pools'
//! movements, how many tickets played it for what stake, and the tickets with the largest
//! prizes, with their payments.

use diesel::prelude::*;
use serde::Serialize;
use utoipa::ToSchema;

use crate::db::schema::{
    game_invalidations, game_settlements, jackpot_pools, ticket_results, tickets,
};
use crate::db::{rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::settlement::Totals;
use keno_api::games::Game;

/// The most tickets a summary lists: the rest are in the exports.
const SHOWN: i64 = 100;

/// A settled game's totals as settlement recorded them (`settlement::Totals`), and when.
#[derive(Debug, Serialize, ToSchema)]
pub struct Settled {
    #[serde(flatten)]
    pub totals: Totals,
    pub settled_at: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Invalidated {
    pub reason: String,
    pub invalidated_by: String,
    pub invalidated_at: String,
    pub refunded_cents: i64,
}

#[derive(Debug, Serialize, ToSchema, Queryable, Selectable)]
#[diesel(table_name = jackpot_pools)]
pub struct PoolMovement {
    pub spots: i32,
    pub carried_in_cents: i64,
    pub contributions_cents: i64,
    pub pool_cents: i64,
    pub winners: i64,
    pub paid_cents: i64,
    pub breakage_cents: i64,
    pub next_pool_cents: i64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TicketLine {
    pub serial: String,
    pub bet_type: String,
    pub site: String,
    pub terminal: String,
    pub writer: String,
    pub total_cents: i64,
    pub status: String,
    /// Its prize in this game (none before settlement).
    pub prize_cents: i64,
    pub paid_cents: i64,
    pub paid_at: Option<String>,
    pub pay_method: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct GameSummary {
    pub game: Game,
    pub settlement: Option<Settled>,
    pub invalidation: Option<Invalidated>,
    pub jackpots: Vec<PoolMovement>,
    /// Tickets playing the game (those cancelled before it excepted, rule 8).
    pub tickets: i64,
    /// What they staked on it: each ticket's cost of one game.
    pub stake_cents: i64,
    /// At most 100 of them: the largest prizes first, then the latest sold.
    pub shown: Vec<TicketLine>,
}

/// Game `number`'s record for the history browser.
pub fn summarise(conn: &mut DbConnection, number: i64) -> DomainResult<GameSummary> {
    let game = crate::games::load(conn, number)?.ok_or_else(|| Failure::not_found("game"))?;
    let settlement = game_settlements::table
        .find(number)
        .select((Totals::as_select(), game_settlements::settled_at))
        .first::<(Totals, i64)>(conn)
        .optional()?
        .map(|(totals, at)| Settled {
            totals,
            settled_at: rfc3339(at),
        });
    let invalidation = invalidation(conn, number)?;
    let jackpots = jackpot_pools::table
        .filter(jackpot_pools::game.eq(number))
        .order(jackpot_pools::spots)
        .select(PoolMovement::as_select())
        .load(conn)?;
    let (count, stake_cents) = stake(conn, number)?;
    Ok(GameSummary {
        game,
        settlement,
        invalidation,
        jackpots,
        tickets: count,
        stake_cents,
        shown: shown(conn, number)?,
    })
}

fn invalidation(conn: &mut DbConnection, number: i64) -> DomainResult<Option<Invalidated>> {
    let Some((reason, by, at)) = game_invalidations::table
        .find(number)
        .select((
            game_invalidations::reason,
            game_invalidations::principal_id,
            game_invalidations::invalidated_at,
        ))
        .first::<(String, Option<String>, i64)>(conn)
        .optional()?
    else {
        return Ok(None);
    };
    let refunds: Vec<i64> = crate::db::schema::ticket_refunds::table
        .filter(crate::db::schema::ticket_refunds::game.eq(number))
        .select(crate::db::schema::ticket_refunds::refund_cents)
        .load(conn)?;
    Ok(Some(Invalidated {
        reason,
        invalidated_by: by.unwrap_or_else(|| crate::audit::exceptions::BY_THE_SERVER.to_string()),
        invalidated_at: rfc3339(at),
        refunded_cents: refunds.iter().sum(),
    }))
}

/// The tickets playing game `number` (rule 8: not those cancelled from before it) and their
/// stake on it, summed here: a sum in SQL is a NUMERIC on PostgreSQL.
fn stake(conn: &mut DbConnection, number: i64) -> DomainResult<(i64, i64)> {
    let costs: Vec<i64> = tickets::table
        .filter(tickets::first_game.le(number))
        .filter(tickets::last_game.ge(number))
        .filter(
            tickets::cancelled_from_game
                .is_null()
                .or(tickets::cancelled_from_game.gt(number)),
        )
        .select(tickets::game_cost_cents)
        .load(conn)?;
    Ok((costs.len() as i64, costs.iter().sum()))
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = tickets)]
struct Line {
    serial: String,
    bet_type: String,
    site: String,
    terminal: String,
    writer: String,
    total_cents: i64,
    /// Read as the ticket row reads them: a stored word that is not one is an error.
    #[diesel(deserialize_as = String)]
    status: keno_core::TicketStatus,
    paid_cents: i64,
    paid_at: Option<i64>,
    #[diesel(deserialize_as = crate::db::NullableWord<keno_core::PayMethod>)]
    pay_method: Option<keno_core::PayMethod>,
}

fn shown(conn: &mut DbConnection, number: i64) -> DomainResult<Vec<TicketLine>> {
    let winners: Vec<(String, i64)> = ticket_results::table
        .filter(ticket_results::game.eq(number))
        .filter(ticket_results::prize_cents.gt(0))
        .order((ticket_results::prize_cents.desc(), ticket_results::serial))
        .select((ticket_results::serial, ticket_results::prize_cents))
        .limit(SHOWN)
        .load(conn)?;
    let mut serials: Vec<String> = winners.iter().map(|(s, _)| s.clone()).collect();
    if (serials.len() as i64) < SHOWN {
        let latest: Vec<String> = tickets::table
            .filter(tickets::first_game.le(number))
            .filter(tickets::last_game.ge(number))
            .filter(tickets::serial.ne_all(&serials))
            .order(tickets::issued_at.desc())
            .select(tickets::serial)
            .limit(SHOWN - serials.len() as i64)
            .load(conn)?;
        serials.extend(latest);
    }
    let mut lines: Vec<Line> = tickets::table
        .filter(tickets::serial.eq_any(&serials))
        .select(Line::as_select())
        .load(conn)?;
    lines.sort_by_key(|l| serials.iter().position(|s| *s == l.serial));
    Ok(lines
        .into_iter()
        .map(|l| TicketLine {
            prize_cents: winners
                .iter()
                .find(|(s, _)| *s == l.serial)
                .map_or(0, |(_, p)| *p),
            serial: l.serial,
            bet_type: l.bet_type,
            site: l.site,
            terminal: l.terminal,
            writer: l.writer,
            total_cents: l.total_cents,
            status: l.status.as_str().to_string(),
            paid_cents: l.paid_cents,
            paid_at: l.paid_at.map(rfc3339),
            pay_method: l.pay_method.map(|m| m.as_str().to_string()),
        })
        .collect())
}
