//! Settling a drawn game: every way of every ticket that covers it, through keno-core (rules
//! 11, 12, 18), recorded in one transaction with the game marked settled.
//!
//! What is stored: each (ticket, game) that won something, with its prize; each way whose prize
//! is not the plain schedule amount (major prizes, pro-rated or not, and jackpot wins); each
//! jackpot pool's movement; and the game's totals. Minor prizes are never adjusted, so a
//! ticket's view recomputes them from its ways and the draw with the same core code.

use std::collections::BTreeMap;

use diesel::prelude::*;
use keno_core::{Draw, WayInPlay};
use serde::Serialize;

use crate::db::schema::{
    game_settlements, games, jackpot_pools, ticket_results, tickets, way_results,
};
use crate::db::{now_micros, per_backend, DbConnection};
use crate::games::{drawn, find};
use crate::jackpots::carried_into;
use crate::state::AppState;
use crate::tickets::TicketRow;

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
    let rules = &state.rules;
    let _turn = state.db.writer_turn();
    conn.transaction(|conn| {
        let Some(game) = find(conn, number)? else {
            return Ok(None);
        };
        if game.state != "drawn" {
            return Ok(None);
        }
        let draw = Draw::new(&drawn(conn, number)?)?;
        let carried = carried_into(rules, conn, number)?;

        // Every ticket covering the game, multi-game tickets sold hours earlier included,
        // less the games cancelled (rule 8).
        let covering: Vec<TicketRow> = tickets::table
            .filter(tickets::first_game.le(number))
            .filter(tickets::last_game.ge(number))
            .filter(tickets::status.ne("cancelled"))
            .filter(
                tickets::cancelled_from_game
                    .is_null()
                    .or(tickets::cancelled_from_game.gt(number)),
            )
            .select(TicketRow::as_select())
            .load(conn)?;
        let mut ways = Vec::new();
        let mut owner: Vec<(usize, u32)> = Vec::new();
        for (t, ticket) in covering.iter().enumerate() {
            let plan = ticket.plan(rules)?;
            for (w, way) in plan.ways.iter().enumerate() {
                ways.push(WayInPlay {
                    numbers: way.numbers,
                    plays_under: way.plays_under,
                    amount_per_way_cents: ticket.amount_per_way_cents as u64,
                });
                owner.push((t, w as u32));
            }
        }
        let settled = rules.settle_game(&draw, &ways, &carried)?;

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
                special_ways.push((
                    way_results::serial.eq(covering[t].serial.clone()),
                    way_results::game.eq(number),
                    way_results::way_index.eq(w as i32),
                    way_results::catch.eq(i32::from(outcome.catch)),
                    way_results::prize_cents.eq(outcome.prize_cents as i64),
                    way_results::prorated.eq(outcome.prorated),
                    way_results::jackpot.eq(outcome.jackpot),
                ));
            }
        }
        let results: Vec<_> = per_ticket
            .iter()
            .map(|(&t, &(prize, is_major))| {
                (
                    ticket_results::serial.eq(covering[t].serial.clone()),
                    ticket_results::game.eq(number),
                    ticket_results::prize_cents.eq(prize as i64),
                    ticket_results::major.eq(is_major),
                )
            })
            .collect();
        // Batches stay under both backends' limits on bound parameters.
        for chunk in results.chunks(1000) {
            per_backend!(conn, |c| diesel::insert_into(ticket_results::table)
                .values(chunk)
                .execute(c))?;
        }
        for chunk in special_ways.chunks(1000) {
            per_backend!(conn, |c| diesel::insert_into(way_results::table)
                .values(chunk)
                .execute(c))?;
        }
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
