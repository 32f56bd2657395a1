//! The jackpot pools as the displays show them (rules 7.2, 7.3).
//!
//! A pool as it stands = what the last settled game carried over + 20% of every amount per
//! way wagered on that jackpot type in each game since (the open game included), rounded down
//! per way. It is settled per game by keno-core; this is the running figure for the displays
//! (`GET /api/v1/jackpots`: `routes/jackpots.rs`; the announcer's task: `task.rs`).

pub mod task;

use std::collections::BTreeMap;

use diesel::prelude::*;
use keno_core::{JackpotPools, RuleSet, TicketStatus};

use crate::db::schema::{jackpot_additions, jackpot_pools, tickets};
use crate::db::{Db, DbConnection};
use crate::events::bus::Events;
use crate::tickets::WaysLine;

// The wire's type (keno-api), where the server's modules have always found it.
pub use keno_api::games::Jackpot;

/// The pools carried into game `game`: the next pools of the last settled game before it.
pub fn carried_into(
    rules: &RuleSet,
    conn: &mut DbConnection,
    game: i64,
) -> QueryResult<JackpotPools> {
    let last: Option<i64> = jackpot_pools::table
        .filter(jackpot_pools::game.lt(game))
        .select(diesel::dsl::max(jackpot_pools::game))
        .first(conn)?;
    let mut pools = JackpotPools::initial(rules);
    if let Some(last) = last {
        let rows: Vec<(i32, i64)> = jackpot_pools::table
            .filter(jackpot_pools::game.eq(last))
            .select((jackpot_pools::spots, jackpot_pools::next_pool_cents))
            .load(conn)?;
        for (spots, cents) in rows {
            pools.0.insert(spots as u8, cents as u64);
        }
    }
    // Money added from outside the wagers (unclaimed prizes, rule 13.2) goes on top of what
    // the pool would carry, its guaranteed minimum included.
    let added: Vec<(i32, i64)> = jackpot_additions::table
        .filter(jackpot_additions::applied_game.eq(game))
        .select((jackpot_additions::spots, jackpot_additions::cents))
        .load(conn)?;
    for (spots, cents) in added {
        let spots = spots as u8;
        let base = pools.carried(rules, spots);
        pools.0.insert(spots, base + cents as u64);
    }
    Ok(pools)
}

/// Hands the additions not yet in a pool to game `game`, which is being settled.
pub fn apply_additions(conn: &mut DbConnection, game: i64) -> QueryResult<usize> {
    diesel::update(jackpot_additions::table)
        .filter(jackpot_additions::applied_game.is_null())
        .set(jackpot_additions::applied_game.eq(game))
        .execute(conn)
}

/// Each pool now: carried over from the last settled game plus the contributions of every game
/// sold since.
pub fn current(rules: &RuleSet, conn: &mut DbConnection) -> anyhow::Result<Vec<Jackpot>> {
    let last_settled: i64 = jackpot_pools::table
        .select(diesel::dsl::max(jackpot_pools::game))
        .first::<Option<i64>>(conn)?
        .unwrap_or(0);
    let carried = carried_into(rules, conn, last_settled + 1)?;
    let sold: Vec<(String, String, i64, i64, i64, Option<i64>)> = tickets::table
        .filter(tickets::schedule.eq("jackpot"))
        // A voided ticket (rule 17.2) adds nothing to a pool it takes no part in.
        .filter(tickets::status.ne_all([
            TicketStatus::Cancelled.as_str(),
            TicketStatus::Voided.as_str(),
        ]))
        .filter(tickets::last_game.gt(last_settled))
        .select((
            tickets::serial,
            tickets::way_counts_json,
            tickets::amount_per_way_cents,
            tickets::first_game,
            tickets::last_game,
            tickets::cancelled_from_game,
        ))
        .load(conn)?;
    // Games played or open so far: future games of multi-game tickets do not count yet.
    let newest: i64 = crate::db::schema::games::table
        .select(diesel::dsl::max(crate::db::schema::games::number))
        .first::<Option<i64>>(conn)?
        .unwrap_or(0);
    // An invalidated game's wagers are refunded: they add nothing to any pool.
    let invalidated: Vec<i64> = crate::db::schema::games::table
        .filter(crate::db::schema::games::number.gt(last_settled))
        .filter(crate::db::schema::games::state.eq(keno_core::GameState::Invalidated.as_str()))
        .select(crate::db::schema::games::number)
        .load(conn)?;
    let mut contributions: BTreeMap<u8, u64> = BTreeMap::new();
    // Additions waiting for the next game settled count already.
    let pending: Vec<(i32, i64)> = jackpot_additions::table
        .filter(jackpot_additions::applied_game.is_null())
        .select((jackpot_additions::spots, jackpot_additions::cents))
        .load(conn)?;
    for (spots, cents) in pending {
        *contributions.entry(spots as u8).or_default() += cents as u64;
    }
    for (serial, lines, amount, first, last, cancelled_from) in sold {
        let last = cancelled_from.map_or(last, |c| c - 1);
        // Games of this ticket from the first unsettled one to the open game.
        let upto = newest.min(last);
        let from = first.max(last_settled + 1);
        if upto < from {
            continue;
        }
        let games = (upto - from + 1) as u64
            - invalidated
                .iter()
                .filter(|g| (from..=upto).contains(*g))
                .count() as u64;
        let lines: Vec<WaysLine> = crate::tickets::stored(&serial, "way_counts_json", &lines)?;
        for line in lines {
            if let Some(j) = rules.jackpot_type(line.spots) {
                *contributions.entry(line.spots).or_default() +=
                    games * line.count * j.contribution_cents(amount as u64);
            }
        }
    }
    Ok(rules
        .jackpot_types()
        .iter()
        .map(|j| Jackpot {
            spots: j.spots,
            pool_cents: carried.carried(rules, j.spots)
                + contributions.get(&j.spots).copied().unwrap_or(0),
            guaranteed_cents: j.guaranteed_cents,
        })
        .collect())
}

/// Publishes `jackpot_changed` with the pools as they stand; a failure is logged, not raised:
/// the sale or settlement it follows is already committed.
pub fn announce(db: &Db, rules: &RuleSet, events: &Events) {
    let pools = db
        .conn()
        .map_err(anyhow::Error::from)
        .and_then(|mut conn| current(rules, &mut conn));
    match pools {
        Ok(pools) => events.publish(&keno_api::events::Event::JackpotChanged(pools)),
        Err(e) => tracing::warn!(error = %format!("{e:#}"), "jackpot pools not announced"),
    }
}
