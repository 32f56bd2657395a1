//! Games: the record of each game, the game clock's transactions and the draw history (the
//! endpoints are `routes/games.rs`).

use std::time::Duration;

use diesel::prelude::*;

use anyhow::Context;
use keno_core::{transition, DrawMode, DrawSource, GameEvent, GameFacts, GameState};

use crate::db::schema::{draw_corrections, drawn_numbers, games};
use crate::db::{now_micros, rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::events::bus::Events;
use crate::keno_day::KenoHours;
use crate::store::Store;
use keno_api::events::{Event, GameOpened};
use keno_api::Refusal;
// The wire's type (keno-api), where the server's modules have always found it.
pub use keno_api::games::Game;

#[derive(Queryable, Selectable, Clone, Debug)]
#[diesel(table_name = games)]
pub struct GameRow {
    pub number: i64,
    pub keno_day: String,
    #[diesel(deserialize_as = String)]
    pub state: GameState,
    #[diesel(deserialize_as = String)]
    pub source: DrawSource,
    pub rule_set: String,
    pub opened_at: i64,
    pub closes_at: i64,
    pub closed_at: Option<i64>,
    pub drawn_at: Option<i64>,
    pub settled_at: Option<i64>,
    pub draw_attempt: i32,
    #[diesel(deserialize_as = String)]
    pub draw_mode: DrawMode,
}

/// The game as the API shows it: its row and the numbers drawn.
fn shown(row: GameRow, drawn: Vec<u8>) -> Game {
    Game {
        number: row.number,
        keno_day: row.keno_day,
        state: row.state.as_str().into(),
        opened_at: rfc3339(row.opened_at),
        closes_at: rfc3339(row.closes_at),
        closed_at: row.closed_at.map(rfc3339),
        drawn_at: row.drawn_at.map(rfc3339),
        settled_at: row.settled_at.map(rfc3339),
        source: row.source.as_str().into(),
        drawn,
        draw_attempt: row.draw_attempt,
        draw_mode: row.draw_mode.as_str().into(),
    }
}

pub fn drawn(conn: &mut DbConnection, game: i64) -> QueryResult<Vec<u8>> {
    let numbers: Vec<i32> = drawn_numbers::table
        .filter(drawn_numbers::game.eq(game))
        .order(drawn_numbers::position)
        .select(drawn_numbers::number)
        .load(conn)?;
    Ok(numbers.into_iter().map(|n| n as u8).collect())
}

pub fn find(conn: &mut DbConnection, number: i64) -> QueryResult<Option<GameRow>> {
    games::table
        .find(number)
        .select(GameRow::as_select())
        .first(conn)
        .optional()
}

pub fn load(conn: &mut DbConnection, number: i64) -> QueryResult<Option<Game>> {
    let Some(row) = find(conn, number)? else {
        return Ok(None);
    };
    let drawn = drawn(conn, number)?;
    Ok(Some(shown(row, drawn)))
}

/// What the game's life cycle depends on, as stored: the facts `keno_core::drawer_step` and
/// `GameFacts::apply` decide on. `None` for no such game.
pub fn facts(conn: &mut DbConnection, number: i64) -> anyhow::Result<Option<GameFacts>> {
    let Some(row) = find(conn, number)? else {
        return Ok(None);
    };
    let standing: i64 = drawn_numbers::table
        .filter(drawn_numbers::game.eq(number))
        .count()
        .get_result(conn)?;
    let pending: i64 = draw_corrections::table
        .filter(draw_corrections::game.eq(number))
        .filter(draw_corrections::state.eq(keno_core::CorrectionState::Pending.as_str()))
        .count()
        .get_result(conn)?;
    Ok(Some(GameFacts {
        state: row.state,
        source: row.source,
        mode: row.draw_mode,
        attempt: u32::try_from(row.draw_attempt).context("a stored draw attempt")?,
        closes_at: row.closes_at,
        drawn_at: row.drawn_at,
        standing: u8::try_from(standing).context("the numbers standing")?,
        pending_corrections: u32::try_from(pending).context("the pending corrections")?,
    }))
}

/// The stored codes of `states`, for a filter on `games.state`.
pub fn codes(states: &[GameState]) -> Vec<&'static str> {
    states.iter().map(|s| s.as_str()).collect()
}

/// Holds game `number`'s row for the rest of the transaction if it is in one of `states` (a
/// no-op update: PostgreSQL's row lock; on SQLite the writer's turn already serialises). A
/// change of state by another transaction is then wholly before or after the caller's.
pub fn hold(conn: &mut DbConnection, number: i64, states: &[GameState]) -> QueryResult<bool> {
    let held = diesel::update(games::table.find(number))
        .filter(games::state.eq_any(codes(states)))
        .set(games::state.eq(games::state))
        .execute(conn)?;
    Ok(held == 1)
}

/// Moves game `number` by `event` as the core's life cycle decides, in the caller's
/// transaction. The row changes only from a state the event is allowed in, so a game changed
/// meanwhile is left alone (`false`) rather than moved wrongly. An event that keeps the state
/// (a correction asked, a switch to drawing by hand) only holds the row.
pub fn advance(conn: &mut DbConnection, number: i64, event: &GameEvent) -> QueryResult<bool> {
    let from = event.allowed_from();
    let to: Vec<GameState> = from
        .iter()
        .filter_map(|f| transition(*f, event).ok())
        .collect();
    if to.len() != from.len() {
        return Ok(false);
    }
    if to.iter().zip(from).all(|(t, f)| t == f) {
        return hold(conn, number, from);
    }
    // The core's table sends every state an event is allowed from to one state.
    let Some(&target) = to.first().filter(|t| to.iter().all(|u| u == *t)) else {
        return Err(diesel::result::Error::QueryBuilderError(
            format!("{event} leads to several states").into(),
        ));
    };
    let changed = diesel::update(games::table.find(number))
        .filter(games::state.eq_any(codes(from)))
        .set(games::state.eq(target.as_str()))
        .execute(conn)?;
    Ok(changed == 1)
}

/// The game open for sale, if Keno is open.
pub fn open_game(conn: &mut DbConnection) -> QueryResult<Option<GameRow>> {
    games::table
        .filter(games::state.eq(GameState::Open.as_str()))
        .order(games::number.desc())
        .select(GameRow::as_select())
        .first(conn)
        .optional()
}

/// The game open for sale as the API shows it, if Keno is open.
pub fn open_now(conn: &mut DbConnection) -> DomainResult<Option<Game>> {
    match open_game(conn)? {
        Some(row) => Ok(load(conn, row.number)?),
        None => Ok(None),
    }
}

/// What opening a game takes of the settings: the Keno hours, how long a game sells, where
/// its numbers come from, and the rule set in force (its hash).
#[derive(Clone, Copy, Debug)]
pub struct Opening<'a> {
    pub hours: KenoHours,
    pub interval: Duration,
    pub source: DrawSource,
    pub rule_set: &'a str,
}

/// Opens the next game if none is open, it is within Keno hours and Keno has not closed early
/// (rule 16.2). Game numbers count on from the last game ever played: they never restart, so
/// a multi-game ticket's games not played before a closure are the next games opened.
pub fn ensure_open_game(
    store: &Store,
    events: &Events,
    conn: &mut DbConnection,
    opening: Opening<'_>,
    term: crate::leader::Term,
) -> QueryResult<Option<GameRow>> {
    let (row, opened) = crate::store::transact(&store.db, conn, None, |conn| {
        term.check(conn)?;
        if let Some(open) = open_game(conn)? {
            return Ok((Some(open), false));
        }
        let row = insert_next_game(opening, conn, now_micros())?;
        let opened = row.is_some();
        QueryResult::Ok((row, opened))
    })?;
    if let (Some(row), true) = (&row, opened) {
        events.publish(&Event::GameOpened(game_opened_event(row)));
    }
    Ok(row)
}

fn insert_next_game(
    opening: Opening<'_>,
    conn: &mut DbConnection,
    now: i64,
) -> QueryResult<Option<GameRow>> {
    let local = crate::time::local(now);
    let Some(keno_day) = opening.hours.keno_day(local) else {
        return Ok(None);
    };
    let keno_day = keno_day.format("%Y-%m-%d").to_string();
    // Rule 16.2: no game opens at or after an early closure of this Keno Day, and one that
    // would close after it closes at it.
    let closure = crate::closures::in_force(conn, &keno_day)?.map(|c| c.closes_at);
    let interval = opening.interval.as_micros() as i64;
    let Some(closes_at) = keno_core::game_closes_at(now, interval, closure) else {
        return Ok(None);
    };
    let last: Option<i64> = games::table
        .select(diesel::dsl::max(games::number))
        .first(conn)?;
    let row = GameRow {
        number: last.unwrap_or(0) + 1,
        keno_day,
        state: GameState::Open,
        source: opening.source,
        rule_set: opening.rule_set.to_string(),
        opened_at: now,
        closes_at,
        closed_at: None,
        drawn_at: None,
        settled_at: None,
        draw_attempt: 1,
        draw_mode: DrawMode::initial(opening.source),
    };
    diesel::insert_into(games::table)
        .values((
            games::number.eq(row.number),
            games::keno_day.eq(&row.keno_day),
            games::state.eq(row.state.as_str()),
            games::source.eq(row.source.as_str()),
            games::rule_set.eq(&row.rule_set),
            games::opened_at.eq(row.opened_at),
            games::closes_at.eq(row.closes_at),
            games::draw_mode.eq(row.draw_mode.as_str()),
        ))
        .execute(conn)?;
    // Rule 6.3(e): the bonuses this game offers are fixed as it opens.
    let bonuses = crate::bonus::offer_for_new_game(conn, row.number, now)?;
    crate::audit::log::append(
        conn,
        vec![crate::audit::log::Entry::new(
            crate::audit::kind::EntryKind::GameOpened,
            row.number,
            serde_json::json!({
                "keno_day": row.keno_day,
                "source": row.source.as_str(),
                "rule_set": row.rule_set,
                "opened_at": row.opened_at,
                "closes_at": row.closes_at,
                "bonuses": bonuses,
            }),
        )],
    )?;
    Ok(Some(row))
}

/// The displays' `game_opened` of a game just opened.
pub fn game_opened_event(row: &GameRow) -> GameOpened {
    GameOpened {
        game: row.number,
        keno_day: row.keno_day.clone(),
        closes_at: rfc3339(row.closes_at),
    }
}

/// A game just closed: when, and the game opened after it (if Keno is still open).
pub struct Closed {
    /// The close as stamped (`close_in`).
    pub at: i64,
    pub next: Option<GameRow>,
}

/// Closes game `number` for sale (rule 9.2) and opens the next one (if within Keno hours), in
/// one transaction. A sale that races the close either committed before it (and is in the
/// game) or finds the game closed and goes to the next one. `None` if this call did not close
/// it. The game clock closes as the leader (`term`); a supervisor closes at any instance.
pub fn close_game(
    store: &Store,
    conn: &mut DbConnection,
    opening: Opening<'_>,
    (number, term, by): (i64, Option<crate::leader::Term>, Option<&ByHand>),
) -> QueryResult<Option<Closed>> {
    crate::store::transact(&store.db, conn, None, |conn| {
        if let Some(term) = term {
            term.check(conn)?;
        }
        let opens_next = now_micros();
        let Some(at) = close_in(conn, number, by)? else {
            return Ok(None);
        };
        // The next game opens at game time now, even after a close stamped later (`close_in`).
        let next = insert_next_game(opening, conn, opens_next)?;
        store.faults.pause("close");
        QueryResult::Ok(Some(Closed { at, next }))
    })
}

/// Closes game `number` in the caller's transaction (rule 9.2: the core's life cycle), stamped
/// and recorded; the time stamped, or `None` if it was not open.
///
/// Stamped once the close has taken effect: its update waited for the sales in flight (their
/// hold on the game; SQLite: the writer's turn), so no ticket of the game is issued after its
/// close (issue 22). Never stamped before the game opened, whatever the clock read then (a game
/// opened before a restart under a clock ahead of time).
/// A game closed by a person before its time (a supervisor stopping its sales): who, and why.
/// Recorded on the close's entry, so the day's exceptions show it.
pub struct ByHand {
    pub principal: String,
    /// Why, as given (the console always asks; a terminal of the API's first version may not).
    pub reason: Option<String>,
}

pub fn close_in(
    conn: &mut DbConnection,
    number: i64,
    by: Option<&ByHand>,
) -> QueryResult<Option<i64>> {
    if !advance(conn, number, &GameEvent::Close)? {
        return Ok(None);
    }
    let opened_at: i64 = games::table
        .find(number)
        .select(games::opened_at)
        .first(conn)?;
    let now = keno_core::game_time::not_before(now_micros(), opened_at);
    diesel::update(games::table.find(number))
        .set(games::closed_at.eq(now))
        .execute(conn)?;
    let entry = match by {
        None => crate::audit::log::Entry::new(
            crate::audit::kind::EntryKind::GameClosed,
            number,
            serde_json::json!({ "closed_at": now }),
        ),
        Some(by) => crate::audit::log::Entry::new(
            crate::audit::kind::EntryKind::GameClosed,
            number,
            serde_json::json!({ "closed_at": now, "by_hand": true, "reason": by.reason }),
        )
        .by(&by.principal),
    };
    crate::audit::log::append(conn, vec![entry])?;
    Ok(Some(now))
}

/// A draw-history query, checked.
pub struct GameFilter {
    from: i64,
    to: i64,
    limit: i64,
    latest_first: bool,
    states: Option<Vec<GameState>>,
    keno_day: Option<String>,
}

impl GameFilter {
    /// The games numbered `from` to `to` (at most 1,000 apart), at most `limit`, in `order`
    /// (`asc` or `desc`), of the `states` named (comma-separated) and of `keno_day`.
    pub fn parse(
        (first, last): (Option<i64>, Option<i64>),
        limit: Option<i64>,
        order: Option<&str>,
        states: Option<&str>,
        keno_day: Option<String>,
    ) -> DomainResult<GameFilter> {
        let from = first.unwrap_or(i64::MIN);
        let to = last.unwrap_or(i64::MAX);
        let bounded = first.is_some() && last.is_some();
        if from > to || (bounded && to.checked_sub(from).is_none_or(|span| span >= 1000)) {
            return Err(Failure::refuse(
                Refusal::InvalidRange,
                "give from <= to, at most 1,000 games apart",
            ));
        }
        let limit = limit.unwrap_or(1000);
        if !(1..=1000).contains(&limit) {
            return Err(Failure::refuse(
                Refusal::InvalidRange,
                "limit is 1 to 1,000 games",
            ));
        }
        let latest_first = match order {
            None | Some("asc") => false,
            Some("desc") => true,
            Some(other) => {
                return Err(Failure::refuse(
                    Refusal::InvalidOrder,
                    format!("{other:?}: order is asc or desc"),
                ))
            }
        };
        let states = states.map(parse_states).transpose()?;
        if let Some(day) = &keno_day {
            if day.parse::<keno_core::KenoDay>().is_err() {
                return Err(Failure::refuse(
                    Refusal::InvalidKenoDay,
                    format!("{day:?} is not a Keno Day: give YYYY-MM-DD"),
                ));
            }
        }
        Ok(GameFilter {
            from,
            to,
            limit,
            latest_first,
            states,
            keno_day,
        })
    }

    /// The games it asks for, with their numbers.
    pub fn load(self, conn: &mut DbConnection) -> DomainResult<Vec<Game>> {
        let mut rows = games::table
            .filter(games::number.between(self.from, self.to))
            .limit(self.limit)
            .select(GameRow::as_select())
            .into_boxed();
        rows = if self.latest_first {
            rows.order(games::number.desc())
        } else {
            rows.order(games::number)
        };
        if let Some(states) = &self.states {
            rows = rows.filter(games::state.eq_any(codes(states)));
        }
        if let Some(day) = self.keno_day {
            rows = rows.filter(games::keno_day.eq(day));
        }
        let rows: Vec<GameRow> = rows.load(conn)?;
        with_numbers(conn, rows)
    }
}

/// `closed,drawing,void`: the states named, or `invalid_state`.
fn parse_states(names: &str) -> DomainResult<Vec<GameState>> {
    names
        .split(',')
        .map(|s| GameState::parse(s.trim()))
        .collect::<Result<_, _>>()
        .map_err(|bad| {
            let all = codes(&GameState::ALL).join(", ");
            Failure::refuse(
                Refusal::InvalidState,
                format!("{:?} is not a game state: one of {all}", bad.value),
            )
        })
}

/// The games of `rows` with their numbers: only of the games returned, so that a sparse
/// filter does not read the numbers of all the games between.
fn with_numbers(conn: &mut DbConnection, rows: Vec<GameRow>) -> DomainResult<Vec<Game>> {
    let numbers_of: Vec<i64> = rows.iter().map(|r| r.number).collect();
    let mut numbers: Vec<(i64, i32, i32)> = drawn_numbers::table
        .filter(drawn_numbers::game.eq_any(&numbers_of))
        .select((
            drawn_numbers::game,
            drawn_numbers::position,
            drawn_numbers::number,
        ))
        .load(conn)?;
    numbers.sort_unstable();
    Ok(rows
        .into_iter()
        .map(|row| {
            let at = numbers.partition_point(|(g, _, _)| *g < row.number);
            let drawn = numbers[at..]
                .iter()
                .take_while(|(g, _, _)| *g == row.number)
                .map(|(_, _, n)| *n as u8)
                .collect();
            shown(row, drawn)
        })
        .collect())
}
