//! Each settled game against its entry (numbers, totals, results digest), and settled again
//! from the stored tickets and draw under the game's own rule set.

use std::collections::HashMap;
use std::sync::Arc;

use diesel::prelude::*;
use keno_core::{GameState, RuleSet};
use serde_json::Value;

use super::chain::Trail;
use super::tickets::Unreadable;
use super::Report;
use crate::db::schema::{
    bonus_results, game_settlements, games, rule_sets, ticket_results, way_results,
};
use crate::db::DbConnection;
use crate::settlement::{
    compute, results_digest, BonusResultRow, TicketResultRow, Totals, WayResultRow,
};

/// A settled game as stored.
struct Stored {
    drawn: Vec<u8>,
    totals: Option<Totals>,
    /// The digest of its prizes, as the trail records it.
    digest: String,
}

/// Every settled game (from a checkpoint, from the lowest its later entries name).
pub fn check(
    conn: &mut DbConnection,
    trail: &Trail,
    unreadable: &Unreadable,
    report: &mut Report,
) -> anyhow::Result<()> {
    let settled: Vec<(i64, String)> = games::table
        .filter(games::state.eq(GameState::Settled.as_str()))
        .filter(games::number.gt(trail.games_after()))
        .order(games::number)
        .select((games::number, games::rule_set))
        .load(conn)?;
    let mut rules: HashMap<String, Arc<RuleSet>> = HashMap::new();
    for (game, hash) in &settled {
        let game = *game;
        let stored = stored(conn, game)?;
        // A settled game without its entry is `super::games`'s to report.
        if let Some(entry) = settled_entry(conn, game)? {
            as_recorded(game, &stored, &entry, report);
        }
        if let Some(serial) = unreadable.covering(game) {
            report.differ(format!(
                "game {game}: not settled again: the stored numbers of ticket {serial} cannot \
                 be read"
            ));
            continue;
        }
        if !rules.contains_key(hash) {
            let body: String = rule_sets::table
                .find(hash)
                .select(rule_sets::body)
                .first(conn)?;
            rules.insert(hash.clone(), Arc::new(RuleSet::from_toml_str(&body)?));
        }
        settled_again(conn, game, &rules[hash], &stored, report)?;
    }
    report.checked(format!(
        "{} settled games, each settled again",
        settled.len()
    ));
    Ok(())
}

fn stored(conn: &mut DbConnection, game: i64) -> anyhow::Result<Stored> {
    let drawn = crate::games::drawn(conn, game)?;
    let totals = stored_totals(conn, game)?;
    let results: Vec<TicketResultRow> = ticket_results::table
        .filter(ticket_results::game.eq(game))
        .select(TicketResultRow::as_select())
        .load(conn)?;
    let ways: Vec<WayResultRow> = way_results::table
        .filter(way_results::game.eq(game))
        .select(WayResultRow::as_select())
        .load(conn)?;
    let bonuses: Vec<BonusResultRow> = bonus_results::table
        .filter(bonus_results::game.eq(game))
        .select(BonusResultRow::as_select())
        .load(conn)?;
    Ok(Stored {
        drawn,
        totals,
        digest: results_digest(&results, &ways, &bonuses),
    })
}

/// The stored settlement against the trail's entry of it. Numbers or totals the entry holds
/// but that cannot be read are reported as such.
fn as_recorded(game: i64, stored: &Stored, entry: &Value, report: &mut Report) {
    let drawn = &stored.drawn;
    match serde_json::from_value::<Vec<u8>>(entry["drawn"].clone()) {
        Ok(numbers) if numbers != *drawn => report.differ(format!(
            "game {game}: the numbers drawn are {drawn:?}, the trail says {numbers:?}"
        )),
        Ok(_) => {}
        Err(e) => report.differ(format!(
            "game {game}: the trail's numbers drawn cannot be read ({e})"
        )),
    }
    match serde_json::from_value::<Totals>(entry["totals"].clone()) {
        Ok(totals) if Some(&totals) != stored.totals.as_ref() => report.differ(format!(
            "game {game}: the settlement's totals differ from the trail's"
        )),
        Ok(_) => {}
        Err(e) => report.differ(format!(
            "game {game}: the trail's totals of the settlement cannot be read ({e})"
        )),
    }
    if entry["results_digest"].as_str() != Some(stored.digest.as_str()) {
        report.differ(format!(
            "game {game}: the stored prizes differ from those the trail recorded"
        ));
    }
}

/// Settled again from the stored tickets and draw, under the game's own rule set.
fn settled_again(
    conn: &mut DbConnection,
    game: i64,
    rules: &RuleSet,
    stored: &Stored,
    report: &mut Report,
) -> anyhow::Result<()> {
    let again = compute(rules, conn, game, &stored.drawn)?;
    if Some(again.totals()) != stored.totals {
        report.differ(format!(
            "game {game}: settled again, its totals differ from the stored settlement"
        ));
    }
    if results_digest(&again.results, &again.special_ways, &again.bonuses) != stored.digest {
        report.differ(format!(
            "game {game}: settled again from the stored tickets and draw, the prizes differ \
             from the stored ones"
        ));
    }
    Ok(())
}

fn stored_totals(conn: &mut DbConnection, game: i64) -> QueryResult<Option<Totals>> {
    game_settlements::table
        .find(game)
        .select(Totals::as_select())
        .first(conn)
        .optional()
}

/// The trail's entry of game `game`'s settlement (the index on kind and subject finds it).
fn settled_entry(conn: &mut DbConnection, game: i64) -> QueryResult<Option<Value>> {
    let payload: Option<String> = crate::db::schema::audit_log::table
        .filter(
            crate::db::schema::audit_log::kind
                .eq(crate::audit::kind::EntryKind::GameSettled.as_str()),
        )
        .filter(crate::db::schema::audit_log::subject.eq(game.to_string()))
        .order(crate::db::schema::audit_log::seq.desc())
        .select(crate::db::schema::audit_log::payload)
        .first(conn)
        .optional()?;
    // Unreadable: reported by the chain's reading; it vouches for nothing.
    Ok(payload.and_then(|p| serde_json::from_str(&p).ok()))
}
