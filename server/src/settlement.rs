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
use keno_core::{
    wins_bonus, BetPlan, Draw, DrawerSettings, GameEvent, GameSettlement, TicketStatus, WayInPlay,
    WayPlayed,
};
use serde::Serialize;

use crate::db::schema::{
    bonus_results, game_settlements, games, jackpot_pools, ticket_results, ticket_voids, tickets,
    way_results,
};
use crate::db::{now_micros, per_backend, DbConnection};
use crate::draw_monitor::Monitor;
use crate::games::{advance, drawn, find, hold};
use crate::jackpots::carried_into;
use crate::rule_sets::RuleSets;
use crate::store::Store;
use crate::tickets::plan_stored;
use keno_api::events::{DrawMonitorAlarm, GameSettled};

/// A game settled: its totals, and the draw monitoring alarms it raised (`draw_monitor`), each
/// to announce once committed.
pub struct Settled {
    pub summary: GameSettled,
    pub alarms: Vec<DrawMonitorAlarm>,
}

/// Settles game `number` if it is drawn and not yet settled; `None` otherwise. Each game under
/// its own rule set (`rule_sets`), once its ball check is over (`drawer`); its draw tested by
/// draw monitoring (`monitor`).
pub fn settle(
    store: &Store,
    conn: &mut DbConnection,
    (rule_sets, drawer, monitor): (&RuleSets, DrawerSettings, &Monitor),
    number: i64,
    term: crate::leader::Term,
) -> anyhow::Result<Option<Settled>> {
    crate::store::transact(&store.db, conn, None, |conn| {
        // Only the leader settles (`leader.rs`).
        term.check(conn)?;
        // The game row held first: a fault, correction or invalidation of the game is then
        // wholly before this settlement or finds the game settled.
        if !hold(conn, number, GameEvent::Settle.allowed_from())? {
            return Ok(None);
        }
        let (Some(game), Some(facts)) = (find(conn, number)?, crate::games::facts(conn, number)?)
        else {
            return Ok(None);
        };
        // Rule 10.1: a correction waiting for its approvals may change the official record,
        // and a ball draw stays open to one for its check time after the 20th ball.
        if facts
            .apply(&GameEvent::Settle, &drawer, now_micros())
            .is_err()
        {
            return Ok(None);
        }
        // The rule set the game opened under settles it, for every ticket in it.
        let rules = &*rule_sets.get(conn, &game.rule_set)?;
        let started = Instant::now();
        let numbers = drawn(conn, number)?;
        crate::jackpots::apply_additions(conn, number)?;
        let c = compute(rules, conn, number, &numbers)?;
        let computed = started.elapsed();
        let totals = record(conn, number, &numbers, &c)?;
        // Rule 13.2: the bonus fund pays the funded bonus prizes won, while it holds enough.
        crate::bonus_fund::draw(conn, number, c.funded_bonus_cents, now_micros())?;
        // Rule 3.2: the tests of the games drawn, with this one; a test that begins to fail
        // is recorded with the settlement.
        let alarms = crate::draw_monitor::on_settled(monitor, conn, number);
        store.faults.pause("settlement");
        tracing::info!(
            game = number,
            tickets = c.tickets,
            ways = totals.ways,
            load_ms = c.loaded.as_millis() as u64,
            plan_ms = (c.planned - c.loaded).as_millis() as u64,
            settle_ms = (computed - c.planned).as_millis() as u64,
            write_ms = (started.elapsed() - computed).as_millis() as u64,
            "settled"
        );
        Ok(Some(Settled {
            summary: GameSettled {
                game: number,
                tickets: c.tickets,
                ways: totals.ways as usize,
                winning_tickets: c.results.len(),
                total_prizes_cents: c.settled.total_prizes_cents,
                prorated: totals.prorated,
                jackpot_winners: c.settled.jackpots.iter().map(|j| j.winners).sum(),
            },
            alarms,
        }))
    })
}

/// Writes what settling game `number` came to, and moves the game to settled (rule 11.1),
/// with the trail's entry: every prize stored, the pools carried on, the totals.
fn record(
    conn: &mut DbConnection,
    number: i64,
    numbers: &[u8],
    c: &Computed,
) -> QueryResult<Totals> {
    write_results(conn, &c.results, &c.special_ways)?;
    for chunk in c.bonuses.chunks(500) {
        per_backend!(conn, |pc| diesel::insert_into(bonus_results::table)
            .values(chunk)
            .execute(pc))?;
    }
    for j in &c.settled.jackpots {
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
    let totals = c.totals();
    diesel::insert_into(game_settlements::table)
        .values((
            game_settlements::game.eq(number),
            game_settlements::ways.eq(totals.ways),
            game_settlements::total_prizes_cents.eq(totals.total_prizes_cents),
            game_settlements::major_prizes.eq(totals.major_prizes),
            game_settlements::prorated.eq(totals.prorated),
            game_settlements::prorate_before_cents.eq(totals.prorate_before_cents),
            game_settlements::prorate_after_cents.eq(totals.prorate_after_cents),
            game_settlements::floor_binds_for_all.eq(totals.floor_binds_for_all),
            game_settlements::bonus_cents.eq(totals.bonus_cents),
            game_settlements::settled_at.eq(now),
        ))
        .execute(conn)?;
    advance(conn, number, &GameEvent::Settle)?;
    diesel::update(games::table.find(number))
        .set(games::settled_at.eq(now))
        .execute(conn)?;
    crate::audit::log::append(
        conn,
        vec![crate::audit::log::Entry::new(
            crate::audit::kind::EntryKind::GameSettled,
            number,
            serde_json::json!({
                "drawn": numbers,
                "totals": totals,
                "results_digest": results_digest(&c.results, &c.special_ways, &c.bonuses),
                "jackpots": c.settled.jackpots.iter().map(|j| serde_json::json!({
                    "spots": j.spots, "pool_cents": j.pool_cents, "winners": j.winners,
                    "paid_cents": j.paid_cents, "next_pool_cents": j.next_pool_cents,
                })).collect::<Vec<_>>(),
                "settled_at": now,
            }),
        )],
    )?;
    Ok(totals)
}

/// What settling a game comes to, before it is written: every winning ticket, every way
/// whose prize is not the plain schedule amount, the pools and the totals. The audit's verify
/// computes it again from the stored tickets and draw and compares.
pub struct Computed {
    pub tickets: usize,
    pub ways: usize,
    pub results: Vec<TicketResultRow>,
    pub special_ways: Vec<WayResultRow>,
    /// Bonus prizes won (rule 6.3(e)), on top of the schedule.
    pub bonuses: Vec<BonusResultRow>,
    /// Of the prizes, what the bonus prizes marked as funded by the bonus fund came to (each
    /// way's no more than its prize after the caps).
    pub funded_bonus_cents: u64,
    pub settled: GameSettlement,
    loaded: std::time::Duration,
    planned: std::time::Duration,
}

/// The totals a settlement records (`game_settlements`).
#[derive(
    Debug,
    Clone,
    PartialEq,
    Eq,
    Serialize,
    serde::Deserialize,
    Queryable,
    Selectable,
    utoipa::ToSchema,
)]
#[diesel(table_name = game_settlements)]
pub struct Totals {
    pub ways: i64,
    pub total_prizes_cents: i64,
    pub major_prizes: i64,
    pub prorated: bool,
    pub prorate_before_cents: i64,
    pub prorate_after_cents: i64,
    pub floor_binds_for_all: bool,
    /// The bonus prizes won, as offered (rule 6.3(e)): already inside `total_prizes_cents`,
    /// which pays them within the caps.
    #[serde(default)]
    pub bonus_cents: i64,
}

impl Computed {
    pub fn totals(&self) -> Totals {
        let p = self.settled.prorating.as_ref();
        Totals {
            ways: self.ways as i64,
            total_prizes_cents: self.settled.total_prizes_cents as i64,
            major_prizes: p.map_or(0, |p| p.major_prizes as i64),
            prorated: p.is_some(),
            prorate_before_cents: p.map_or(0, |p| p.before_cents as i64),
            prorate_after_cents: p.map_or(0, |p| p.after_cents as i64),
            floor_binds_for_all: p.is_some_and(|p| p.floor_binds_for_all),
            bonus_cents: self.bonuses.iter().map(|b| b.prize_cents).sum(),
        }
    }
}

/// Settles game `number` on `drawn` in memory, from the stored tickets and the pools carried
/// in from the game before.
pub fn compute(
    rules: &keno_core::RuleSet,
    conn: &mut DbConnection,
    number: i64,
    drawn: &[u8],
) -> anyhow::Result<Computed> {
    let started = Instant::now();
    let draw = Draw::new(drawn)?;
    let carried = carried_into(rules, conn, number)?;
    let covering = covering(conn, number)?;
    let loaded = started.elapsed();
    let plans = plan_all(rules, &covering)?;
    let (ways, owner) = ways_in_play(&covering, &plans);
    let planned = started.elapsed();
    let offered = Offered {
        bonuses: crate::bonus::offered(conn, number)?
            .into_iter()
            .map(|b| Ok((b.terms()?, b)))
            .collect::<anyhow::Result<Vec<_>>>()?,
        plans: &plans,
        ways: &ways,
        owner: &owner,
    };
    // The bonus is part of the way's prize: inside the caps and pro-rating (keno-core).
    let settled = rules.settle_game_with_bonuses(&draw, &ways, &carried, |i, catch| {
        offered.won(i, catch).map(|b| b.prize_cents as u64).sum()
    })?;
    let tally = Tally::of(
        (number, &covering),
        &settled,
        &offered,
        rules.caps().major_prize_cents,
    );
    Ok(Computed {
        tickets: covering.len(),
        ways: ways.len(),
        results: ticket_results(number, &covering, &tally.per_ticket),
        special_ways: tally.special_ways,
        bonuses: tally.bonuses,
        funded_bonus_cents: tally.funded_bonus_cents,
        settled,
        loaded,
        planned,
    })
}

/// The bonus prizes a game offers (rule 6.3(e)), and the ways in play that may win them.
struct Offered<'a> {
    bonuses: Vec<(keno_core::BonusTerms, crate::bonus::BonusRow)>,
    plans: &'a [BetPlan],
    ways: &'a [WayInPlay],
    owner: &'a [(usize, u32)],
}

impl Offered<'_> {
    /// The bonus prizes way `i` wins with `catch`, whether or not the schedule pays it.
    fn won(&self, i: usize, catch: u8) -> impl Iterator<Item = &crate::bonus::BonusRow> {
        let played = WayPlayed {
            bet_kind: self.plans[self.owner[i].0].kind,
            spots: self.ways[i].numbers.len(),
            amount_per_way_cents: self.ways[i].amount_per_way_cents,
            catch,
        };
        self.bonuses
            .iter()
            .filter(move |(terms, _)| wins_bonus(terms, &played))
            .map(|(_, b)| b)
    }
}

/// What the settled ways come to, per ticket and per way, as stored.
#[derive(Default)]
struct Tally {
    per_ticket: BTreeMap<usize, (u64, bool)>,
    special_ways: Vec<WayResultRow>,
    bonuses: Vec<BonusResultRow>,
    funded_bonus_cents: u64,
}

impl Tally {
    fn of(
        (number, covering): (i64, &[Covering]),
        settled: &GameSettlement,
        offered: &Offered<'_>,
        major: u64,
    ) -> Tally {
        let mut tally = Tally::default();
        for (i, (outcome, &(t, w))) in settled.ways.iter().zip(offered.owner).enumerate() {
            let serial = &covering[t].serial;
            let won: Vec<_> = offered.won(i, outcome.catch).collect();
            let funded: u64 = won
                .iter()
                .filter(|b| b.funded_by_bonus_fund)
                .map(|b| b.prize_cents as u64)
                .sum();
            tally.funded_bonus_cents += funded.min(outcome.prize_cents);
            tally.bonuses.extend(won.iter().map(|b| BonusResultRow {
                serial: serial.clone(),
                game: number,
                way_index: w as i32,
                bonus_id: b.id,
                prize_cents: b.prize_cents,
            }));
            if outcome.prize_cents == 0 {
                continue;
            }
            let is_major = outcome.is_major(major);
            let entry = tally.per_ticket.entry(t).or_default();
            entry.0 += outcome.prize_cents;
            entry.1 |= is_major;
            // Stored whole where it cannot be worked out again from the schedule alone.
            if is_major || outcome.jackpot || !won.is_empty() {
                tally.special_ways.push(WayResultRow {
                    serial: serial.clone(),
                    game: number,
                    way_index: w as i32,
                    catch: i32::from(outcome.catch),
                    prize_cents: outcome.prize_cents as i64,
                    prorated: outcome.prorated,
                    jackpot: outcome.jackpot,
                    major: is_major,
                });
            }
        }
        tally
    }
}

/// The tickets covering game `number`.
fn covering(conn: &mut DbConnection, number: i64) -> QueryResult<Vec<Covering>> {
    // Rule 17.2: a ticket voided before the game settled takes no part in it; one voided after
    // keeps its results (its prizes withheld), so settling again finds the same tickets.
    let settled_at: Option<i64> = games::table
        .find(number)
        .select(games::settled_at)
        .first::<Option<i64>>(conn)
        .optional()?
        .flatten();
    let voided_before = settled_at.unwrap_or(i64::MAX);
    // Every ticket covering the game, multi-game tickets sold hours earlier included, less
    // the games cancelled (rule 8): only the columns that make its ways.
    tickets::table
        .filter(tickets::first_game.le(number))
        .filter(tickets::last_game.ge(number))
        .filter(tickets::status.ne(TicketStatus::Cancelled.as_str()))
        .filter(
            tickets::cancelled_from_game
                .is_null()
                .or(tickets::cancelled_from_game.gt(number)),
        )
        .filter(diesel::dsl::not(diesel::dsl::exists(
            ticket_voids::table
                .filter(ticket_voids::serial.eq(tickets::serial))
                .filter(ticket_voids::voided_at.lt(voided_before)),
        )))
        .select(Covering::as_select())
        .load(conn)
}

/// Every way in play, and whose it is: (the ticket's index in `covering`, the way's index).
fn ways_in_play(covering: &[Covering], plans: &[BetPlan]) -> (Vec<WayInPlay>, Vec<(usize, u32)>) {
    let mut ways = Vec::with_capacity(plans.iter().map(|p| p.ways.len()).sum());
    let mut owner: Vec<(usize, u32)> = Vec::with_capacity(ways.capacity());
    for (t, (ticket, plan)) in covering.iter().zip(plans).enumerate() {
        for (w, way) in plan.ways.iter().enumerate() {
            ways.push(WayInPlay {
                numbers: way.numbers,
                plays_under: way.plays_under,
                amount_per_way_cents: ticket.amount_per_way_cents as u64,
            });
            owner.push((t, w as u32));
        }
    }
    (ways, owner)
}

/// Each winning ticket's result from its prizes and whether any is major, by its index.
fn ticket_results(
    number: i64,
    covering: &[Covering],
    per_ticket: &BTreeMap<usize, (u64, bool)>,
) -> Vec<TicketResultRow> {
    per_ticket
        .iter()
        .map(|(&t, &(prize, major))| TicketResultRow {
            serial: covering[t].serial.clone(),
            game: number,
            prize_cents: prize as i64,
            major,
        })
        .collect()
}

/// One hash over a game's results, in serial order: what the audit trail records of them.
pub fn results_digest(
    results: &[TicketResultRow],
    ways: &[WayResultRow],
    bonuses: &[BonusResultRow],
) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    let mut r: Vec<_> = results
        .iter()
        .map(|r| (&r.serial, r.prize_cents, r.major))
        .collect();
    r.sort();
    for (serial, prize, major) in r {
        h.update(format!("{serial}|{prize}|{major}\n"));
    }
    let mut w: Vec<_> = ways
        .iter()
        .map(|w| {
            (
                &w.serial,
                w.way_index,
                w.catch,
                w.prize_cents,
                w.prorated,
                w.jackpot,
                w.major,
            )
        })
        .collect();
    w.sort();
    for (serial, way, catch, prize, prorated, jackpot, major) in w {
        // A minor way is marked, a major one is not: the digests of games settled when only
        // major prizes were stored read as they always did.
        let minor = if major { "" } else { "|minor" };
        h.update(format!(
            "{serial}|{way}|{catch}|{prize}|{prorated}|{jackpot}{minor}\n"
        ));
    }
    let mut b: Vec<_> = bonuses
        .iter()
        .map(|b| (&b.serial, b.way_index, b.bonus_id, b.prize_cents))
        .collect();
    b.sort();
    for (serial, way, bonus, prize) in b {
        h.update(format!("bonus|{serial}|{way}|{bonus}|{prize}\n"));
    }
    hex::encode(h.finalize())
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

#[derive(Insertable, Queryable, Selectable, Debug, Clone, PartialEq, Eq)]
#[diesel(table_name = ticket_results, treat_none_as_default_value = false)]
pub struct TicketResultRow {
    pub serial: String,
    pub game: i64,
    pub prize_cents: i64,
    pub major: bool,
}

#[derive(Insertable, Queryable, Selectable, Debug, Clone, PartialEq, Eq)]
#[diesel(table_name = bonus_results, treat_none_as_default_value = false)]
pub struct BonusResultRow {
    pub serial: String,
    pub game: i64,
    pub way_index: i32,
    pub bonus_id: i64,
    pub prize_cents: i64,
}

#[derive(Insertable, Queryable, Selectable, Debug, Clone, PartialEq, Eq)]
#[diesel(table_name = way_results, treat_none_as_default_value = false)]
pub struct WayResultRow {
    pub serial: String,
    pub game: i64,
    pub way_index: i32,
    pub catch: i32,
    pub prize_cents: i64,
    pub prorated: bool,
    pub jackpot: bool,
    /// A major prize (rule 1(h)): the part of a payment a cheque may pay (rule 12.2). A way is
    /// stored too when it won a bonus prize under the major-prize amount.
    pub major: bool,
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
