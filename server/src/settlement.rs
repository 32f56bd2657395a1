//! Settling a drawn game: every way of every ticket that covers it, through keno-core (rules
//! 11, 12, 18), recorded in one transaction with the game marked settled.
//!
//! What is stored: each (ticket, game) that won something, with its prize; each way whose prize
//! is not the plain schedule amount (major prizes, pro-rated or not, and jackpot wins); each
//! jackpot pool's movement; and the game's totals. Minor prizes are never adjusted, so a
//! ticket's view recomputes them from its ways and the draw with the same core code.

use std::collections::BTreeMap;
use std::time::Instant;

use diesel::prelude::*;
use keno_core::{BetPlan, Draw, WayInPlay};
use serde::Serialize;

use crate::db::schema::{
    game_settlements, games, jackpot_pools, ticket_results, tickets, way_results,
};
use crate::db::{now_micros, DbConnection};
use crate::games::{drawn, find};
use crate::jackpots::carried_into;
use crate::state::AppState;
use crate::tickets::plan_stored;

/// The `game_settled` event.
#[derive(Debug, Serialize)]
pub struct SettledGame {
    pub game: i64,
    pub tickets: usize,
    pub ways: usize,
    pub winning_tickets: usize,
    pub total_prizes_cents: u64,
    pub prorated: bool,
    pub jackpot_winners: usize,
}

/// Settles game `number` if it is drawn and not yet settled; `None` otherwise.
pub fn settle(
    state: &AppState,
    conn: &mut DbConnection,
    number: i64,
) -> anyhow::Result<Option<SettledGame>> {
    let _turn = state.db.writer_turn();
    conn.transaction(|conn| {
        // The game row held first: a fault, correction or invalidation of the game is then
        // wholly before this settlement or finds the game settled.
        let held = diesel::update(games::table.find(number))
            .filter(games::state.eq("drawn"))
            .set(games::state.eq(games::state))
            .execute(conn)?;
        let Some(game) = find(conn, number)?.filter(|_| held == 1) else {
            return Ok(None);
        };
        // Rule 10.1: a correction waiting for its approvals may change the official record,
        // and a ball draw stays open to one for its check time after the 20th ball.
        let check = state.settings.ball_check.as_micros() as i64;
        let checking = game.source == "ball_device"
            && game.drawn_at.is_none_or(|at| at + check > now_micros());
        if checking || crate::ball_draw::has_pending_correction(conn, number)? {
            return Ok(None);
        }
        // The rule set the game opened under settles it, for every ticket in it.
        let rules = &*state.rule_sets.get(conn, &game.rule_set)?;
        let started = Instant::now();
        let draw = Draw::new(&drawn(conn, number)?)?;
        let carried = carried_into(rules, conn, number)?;

        // Every ticket covering the game, multi-game tickets sold hours earlier included,
        // less the games cancelled (rule 8): only the columns that make its ways.
        let covering: Vec<Covering> = tickets::table
            .filter(tickets::first_game.le(number))
            .filter(tickets::last_game.ge(number))
            .filter(tickets::status.ne("cancelled"))
            .filter(
                tickets::cancelled_from_game
                    .is_null()
                    .or(tickets::cancelled_from_game.gt(number)),
            )
            .select(Covering::as_select())
            .load(conn)?;
        let loaded = started.elapsed();
        let plans = plan_all(rules, &covering)?;
        let mut ways = Vec::with_capacity(plans.iter().map(|p| p.ways.len()).sum());
        let mut owner: Vec<(usize, u32)> = Vec::with_capacity(ways.capacity());
        for (t, (ticket, plan)) in covering.iter().zip(&plans).enumerate() {
            for (w, way) in plan.ways.iter().enumerate() {
                ways.push(WayInPlay {
                    numbers: way.numbers,
                    plays_under: way.plays_under,
                    amount_per_way_cents: ticket.amount_per_way_cents as u64,
                });
                owner.push((t, w as u32));
            }
        }
        let planned = started.elapsed();
        let settled = rules.settle_game(&draw, &ways, &carried)?;
        let computed = started.elapsed();

        let major = rules.caps().major_prize_cents;
        let mut per_ticket: BTreeMap<usize, (u64, bool)> = BTreeMap::new();
        let mut special_ways = Vec::new();
        for (outcome, &(t, w)) in settled.ways.iter().zip(&owner) {
            if outcome.prize_cents == 0 {
                continue;
            }
            let is_major = outcome.jackpot || outcome.prize_cents >= major || outcome.prorated;
            let entry = per_ticket.entry(t).or_default();
            entry.0 += outcome.prize_cents;
            entry.1 |= is_major;
            if is_major {
                special_ways.push(WayResultRow {
                    serial: &covering[t].serial,
                    game: number,
                    way_index: w as i32,
                    catch: i32::from(outcome.catch),
                    prize_cents: outcome.prize_cents as i64,
                    prorated: outcome.prorated,
                    jackpot: outcome.jackpot,
                });
            }
        }
        let results: Vec<TicketResultRow> = per_ticket
            .iter()
            .map(|(&t, &(prize, major))| TicketResultRow {
                serial: &covering[t].serial,
                game: number,
                prize_cents: prize as i64,
                major,
            })
            .collect();
        write_results(conn, &results, &special_ways)?;
        for j in &settled.jackpots {
            diesel::insert_into(jackpot_pools::table)
                .values((
                    jackpot_pools::game.eq(number),
                    jackpot_pools::spots.eq(i32::from(j.spots)),
                    jackpot_pools::carried_in_cents.eq(j.carried_in_cents as i64),
                    jackpot_pools::contributions_cents.eq(j.contributions_cents as i64),
                    jackpot_pools::pool_cents.eq(j.pool_cents as i64),
                    jackpot_pools::winners.eq(j.winners as i64),
                    jackpot_pools::paid_cents.eq(j.paid_cents as i64),
                    jackpot_pools::breakage_cents.eq(j.breakage_cents as i64),
                    jackpot_pools::next_pool_cents.eq(j.next_pool_cents as i64),
                ))
                .execute(conn)?;
        }
        let now = now_micros();
        let p = settled.prorating.as_ref();
        diesel::insert_into(game_settlements::table)
            .values((
                game_settlements::game.eq(number),
                game_settlements::ways.eq(ways.len() as i64),
                game_settlements::total_prizes_cents.eq(settled.total_prizes_cents as i64),
                game_settlements::major_prizes.eq(p.map_or(0, |p| p.major_prizes as i64)),
                game_settlements::prorated.eq(p.is_some()),
                game_settlements::prorate_before_cents.eq(p.map_or(0, |p| p.before_cents as i64)),
                game_settlements::prorate_after_cents.eq(p.map_or(0, |p| p.after_cents as i64)),
                game_settlements::floor_binds_for_all.eq(p.is_some_and(|p| p.floor_binds_for_all)),
                game_settlements::settled_at.eq(now),
            ))
            .execute(conn)?;
        diesel::update(games::table.find(number))
            .set((games::state.eq("settled"), games::settled_at.eq(now)))
            .execute(conn)?;
        tracing::info!(
            game = number,
            tickets = covering.len(),
            ways = ways.len(),
            load_ms = loaded.as_millis() as u64,
            plan_ms = (planned - loaded).as_millis() as u64,
            settle_ms = (computed - planned).as_millis() as u64,
            write_ms = (started.elapsed() - computed).as_millis() as u64,
            "settled"
        );
        Ok(Some(SettledGame {
            game: number,
            tickets: covering.len(),
            ways: ways.len(),
            winning_tickets: results.len(),
            total_prizes_cents: settled.total_prizes_cents,
            prorated: p.is_some(),
            jackpot_winners: settled.jackpots.iter().map(|j| j.winners).sum(),
        }))
    })
}

/// What settlement reads of a ticket: what makes its ways.
#[derive(Queryable, Selectable)]
#[diesel(table_name = tickets)]
struct Covering {
    serial: String,
    bet_type: String,
    schedule: String,
    groups_json: String,
    combine_json: String,
    amount_per_way_cents: i64,
}

/// Plans every ticket's ways again, on every core: a full game has 100,000 tickets or more.
fn plan_all(rules: &keno_core::RuleSet, covering: &[Covering]) -> anyhow::Result<Vec<BetPlan>> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = covering.len().div_ceil(cores).max(1);
    std::thread::scope(|scope| {
        let parts: Vec<_> = covering
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|t| {
                            plan_stored(
                                rules,
                                &t.serial,
                                &t.bet_type,
                                &t.schedule,
                                &t.groups_json,
                                &t.combine_json,
                            )
                        })
                        .collect::<anyhow::Result<Vec<_>>>()
                })
            })
            .collect();
        let mut plans = Vec::with_capacity(covering.len());
        for part in parts {
            plans.extend(part.join().expect("planning does not panic")?);
        }
        Ok(plans)
    })
}

#[derive(Insertable)]
#[diesel(table_name = ticket_results, treat_none_as_default_value = false)]
struct TicketResultRow<'a> {
    serial: &'a str,
    game: i64,
    prize_cents: i64,
    major: bool,
}

#[derive(Insertable)]
#[diesel(table_name = way_results, treat_none_as_default_value = false)]
struct WayResultRow<'a> {
    serial: &'a str,
    game: i64,
    way_index: i32,
    catch: i32,
    prize_cents: i64,
    prorated: bool,
    jackpot: bool,
}

/// Writes the results the fastest way each backend has: PostgreSQL's COPY; on SQLite one
/// prepared insert run per row (it is in-process: a statement costs microseconds).
fn write_results(
    conn: &mut DbConnection,
    results: &[TicketResultRow],
    ways: &[WayResultRow],
) -> diesel::QueryResult<()> {
    match conn {
        DbConnection::Pg(pg) => {
            if !results.is_empty() {
                diesel::copy_from(ticket_results::table)
                    .from_insertable(results)
                    .execute(pg)?;
            }
            if !ways.is_empty() {
                diesel::copy_from(way_results::table)
                    .from_insertable(ways)
                    .execute(pg)?;
            }
        }
        DbConnection::Sqlite(sqlite) => {
            for row in results {
                diesel::insert_into(ticket_results::table)
                    .values(row)
                    .execute(sqlite)?;
            }
            for row in ways {
                diesel::insert_into(way_results::table)
                    .values(row)
                    .execute(sqlite)?;
            }
        }
    }
    Ok(())
}
