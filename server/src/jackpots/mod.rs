//! The jackpot pools as the displays show them (rules 7.2, 7.3).
//!
//! A pool as it stands = what the last settled game carried over + 20% of every amount per
//! way wagered on that jackpot type in each game since (the open game included), rounded down
//! per way. It is settled per game by keno-core; this is the running figure for the displays
//! (`GET /api/v1/jackpots`: `routes/jackpots.rs`; the announcer's task: `task.rs`).

pub mod tally;
pub mod task;

use std::collections::{BTreeMap, HashMap};

use diesel::prelude::*;
use keno_core::{JackpotPools, RuleSet, TicketStatus};

use crate::db::schema::{games, jackpot_additions, jackpot_pools, tickets};
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
    let unsettled = Unsettled::read(rules, conn)?;
    let sold = sold(conn, unsettled.last_settled, Which::All, None)?;
    pools(rules, &unsettled, sold.iter().map(|(_, t)| t))
}

/// What the pools of the games not yet settled start from and count: the last settled game and
/// what it carried over, the newest game (a multi-game ticket's later games do not count yet),
/// the invalidated games (their wagers are refunded) and the additions waiting for the next game
/// settled.
struct Unsettled {
    last_settled: i64,
    carried: JackpotPools,
    newest: i64,
    invalidated: Vec<i64>,
    pending: Vec<(i32, i64)>,
}

impl Unsettled {
    fn read(rules: &RuleSet, conn: &mut DbConnection) -> QueryResult<Unsettled> {
        let last_settled: i64 = jackpot_pools::table
            .select(diesel::dsl::max(jackpot_pools::game))
            .first::<Option<i64>>(conn)?
            .unwrap_or(0);
        let carried = carried_into(rules, conn, last_settled + 1)?;
        let newest: i64 = games::table
            .select(diesel::dsl::max(games::number))
            .first::<Option<i64>>(conn)?
            .unwrap_or(0);
        let invalidated: Vec<i64> = games::table
            .filter(games::number.gt(last_settled))
            .filter(games::state.eq(keno_core::GameState::Invalidated.as_str()))
            .select(games::number)
            .load(conn)?;
        let pending: Vec<(i32, i64)> = jackpot_additions::table
            .filter(jackpot_additions::applied_game.is_null())
            .select((jackpot_additions::spots, jackpot_additions::cents))
            .load(conn)?;
        Ok(Unsettled {
            last_settled,
            carried,
            newest,
            invalidated,
            pending,
        })
    }
}

/// A jackpot ticket as the pools count it.
#[derive(Clone, Debug, PartialEq)]
struct Counted {
    lines: Vec<WaysLine>,
    amount_per_way_cents: u64,
    first_game: i64,
    /// Its last game in play: the one before its cancelled games (rule 8), if any.
    last_game: i64,
}

/// Which jackpot tickets [`sold`] reads.
enum Which<'a> {
    /// Every one.
    All,
    /// Those issued at or after this time: told apart within the index `tickets_jackpot`
    /// (schedule, last game, issue time), which is still stepped over entry by entry, and only
    /// they are read from the table.
    IssuedSince(i64),
    /// These serials.
    Serials(&'a [String]),
}

/// The jackpot tickets in play in a game after `last_settled` (of `which`), by serial; those in
/// `held` are left out unparsed.
fn sold(
    conn: &mut DbConnection,
    last_settled: i64,
    which: Which<'_>,
    held: Option<&HashMap<String, Counted>>,
) -> anyhow::Result<Vec<(String, Counted)>> {
    let mut query = tickets::table
        .filter(tickets::schedule.eq(keno_core::ScheduleId::Jackpot.key()))
        // A voided ticket (rule 17.2) adds nothing to a pool it takes no part in.
        .filter(tickets::status.ne_all([
            TicketStatus::Cancelled.as_str(),
            TicketStatus::Voided.as_str(),
        ]))
        .filter(tickets::last_game.gt(last_settled))
        .into_boxed();
    match which {
        Which::All => {}
        Which::IssuedSince(since) => query = query.filter(tickets::issued_at.ge(since)),
        Which::Serials(serials) => query = query.filter(tickets::serial.eq_any(serials)),
    }
    let rows: Vec<(String, String, i64, i64, i64, Option<i64>)> = query
        .select((
            tickets::serial,
            tickets::way_counts_json,
            tickets::amount_per_way_cents,
            tickets::first_game,
            tickets::last_game,
            tickets::cancelled_from_game,
        ))
        .load(conn)?;
    rows.into_iter()
        .filter(|(serial, ..)| held.is_none_or(|h| !h.contains_key(serial)))
        .map(|(serial, lines, amount, first, last, cancelled_from)| {
            let counted = Counted {
                lines: crate::tickets::stored(&serial, "way_counts_json", &lines)?,
                amount_per_way_cents: u64::try_from(amount).map_err(|_| {
                    anyhow::anyhow!("ticket {serial}: its amount per way {amount} is negative")
                })?,
                first_game: first,
                last_game: cancelled_from.map_or(last, |c| c - 1),
            };
            Ok((serial, counted))
        })
        .collect()
}

/// The pools of `unsettled` with the contributions of `sold` (rule 7.3 as interpreted): each
/// ticket adds, for each of its games from the first unsettled one to the newest and not
/// invalidated, 20% of its amount per way for each way of a jackpot type, rounded down per way.
fn pools<'a>(
    rules: &RuleSet,
    unsettled: &Unsettled,
    sold: impl Iterator<Item = &'a Counted>,
) -> anyhow::Result<Vec<Jackpot>> {
    let mut contributions: BTreeMap<u8, u64> = BTreeMap::new();
    // Additions waiting for the next game settled count already.
    for &(spots, cents) in &unsettled.pending {
        let spots = u8::try_from(spots)
            .map_err(|_| anyhow::anyhow!("a jackpot addition for {spots} spots"))?;
        let cents = u64::try_from(cents)
            .map_err(|_| anyhow::anyhow!("a jackpot addition of {cents} cents"))?;
        *contributions.entry(spots).or_default() += cents;
    }
    for t in sold {
        // Games of this ticket from the first unsettled one to the open game.
        let upto = unsettled.newest.min(t.last_game);
        let from = t.first_game.max(unsettled.last_settled + 1);
        if upto < from {
            continue;
        }
        let games = (upto - from + 1) as u64
            - unsettled
                .invalidated
                .iter()
                .filter(|g| (from..=upto).contains(*g))
                .count() as u64;
        for line in &t.lines {
            if let Some(j) = rules.jackpot_type(line.spots) {
                *contributions.entry(line.spots).or_default() +=
                    games * line.count * j.contribution_cents(t.amount_per_way_cents);
            }
        }
    }
    Ok(rules
        .jackpot_types()
        .iter()
        .map(|j| Jackpot {
            spots: j.spots,
            pool_cents: unsettled.carried.carried(rules, j.spots)
                + contributions.get(&j.spots).copied().unwrap_or(0),
            guaranteed_cents: j.guaranteed_cents,
        })
        .collect())
}

/// Publishes `jackpot_changed` with the pools as they stand; a failure is logged, not raised:
/// the sale or settlement it follows is already committed.
pub fn announce(db: &Db, rules: &RuleSet, events: &Events) {
    announce_with(db, events, |conn| current(rules, conn));
}

/// `announce`, the pools from `pools` (the announcer's [`tally::Tally`]).
pub fn announce_with(
    db: &Db,
    events: &Events,
    pools: impl FnOnce(&mut DbConnection) -> anyhow::Result<Vec<Jackpot>>,
) {
    let pools = db
        .conn()
        .map_err(anyhow::Error::from)
        .and_then(|mut conn| pools(&mut conn));
    match pools {
        Ok(pools) => {
            // The pools may count a sale whose answer still waits for its sync: the displays
            // are told only of what is on the disk (`db::wal_sync`).
            db.sync_committed_or_stop();
            events.publish(&keno_api::events::Event::JackpotChanged(pools))
        }
        Err(e) => tracing::warn!(error = %format!("{e:#}"), "jackpot pools not announced"),
    }
}
