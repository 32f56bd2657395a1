//! A batch's new tickets numbered at their terminals (each terminal's own sequence) and
//! inserted, with the sets of set bets. On PostgreSQL one statement takes the numbers and
//! inserts the tickets (issue 37: a batch of plain sales was seven round trips, eight with
//! shifts, and is six, or seven); on SQLite, in process, a statement per terminal and per
//! ticket costs no round trip.

use std::collections::{BTreeMap, HashMap};

use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Integer, Nullable, Text};

use super::sale::{NewTicket, Sale};
use crate::db::prepared::{fixed, Prepared};
use crate::db::schema::{set_bet_tickets, terminals};
use crate::db::{per_backend, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::games::GameRow;

/// Numbers the new sales (their serials were drawn before), gives each its game and time, and
/// inserts them and the sets of set bets. Each terminal's sales go to one sale writer
/// (`writer`), so two writers of an instance never hold the same terminal's row; a terminal's
/// first sale makes its row.
pub fn number_and_insert(
    conn: &mut DbConnection,
    sales: &mut [Sale],
    new: &[usize],
    game: &GameRow,
    now: i64,
) -> DomainResult<()> {
    // A batch of retries only: nothing to number, and no round trip for it.
    if new.is_empty() {
        return Ok(());
    }
    for &i in new {
        let t = &mut sales[i].ticket;
        t.issued_at = now;
        t.keno_day = game.keno_day.clone();
        t.first_game = game.number;
        t.last_game = game.number + i64::from(t.games) - 1;
    }
    match conn {
        DbConnection::Pg(c) => number_and_insert_pg(c, sales, new)?,
        DbConnection::Sqlite(c) => {
            let mut next = take_numbers(c, sales, new)?;
            for &i in new {
                let t = &mut sales[i].ticket;
                let number = next
                    .get_mut(&(t.site.clone(), t.terminal.clone()))
                    .expect("numbered above");
                t.ticket_number = *number;
                *number += 1;
            }
            // A row at a time: one statement whatever the batch's size, and no journal of its
            // own to undo it alone. Fixed text, so it is kept prepared: diesel's own insert
            // leaves a `None` column out of its text, and was parsed at every call.
            for &i in new {
                insert_ticket(c, &NewTicket::from(&sales[i].ticket))?;
            }
        }
    }
    insert_set_bets(conn, sales, new)
}

/// The sets of the batch's set bets (rule 6.3(h)).
fn insert_set_bets(conn: &mut DbConnection, sales: &[Sale], new: &[usize]) -> DomainResult<()> {
    let from_sets: Vec<(&str, i64, &str)> = new
        .iter()
        .filter_map(|&i| {
            let s = &sales[i];
            s.set_bet
                .as_ref()
                .map(|b| (s.ticket.serial.as_str(), b.id, b.mode.as_str()))
        })
        .collect();
    for chunk in from_sets.chunks(500) {
        let values: Vec<_> = chunk
            .iter()
            .map(|&(serial, id, mode)| {
                (
                    set_bet_tickets::serial.eq(serial),
                    set_bet_tickets::set_bet_id.eq(id),
                    set_bet_tickets::mode.eq(mode),
                )
            })
            .collect();
        per_backend!(conn, |c| diesel::insert_into(set_bet_tickets::table)
            .values(&values)
            .execute(c))?;
    }
    Ok(())
}

/// How many of `new` each terminal has, and for each sale how many of its terminal's come
/// after it in the batch: its number is its terminal's last less that.
fn counted(sales: &[Sale], new: &[usize]) -> (BTreeMap<(String, String), i64>, Vec<i64>) {
    let mut per_terminal: BTreeMap<(String, String), i64> = BTreeMap::new();
    let mut after = vec![0; new.len()];
    for (j, &i) in new.iter().enumerate().rev() {
        let t = &sales[i].ticket;
        let count = per_terminal
            .entry((t.site.clone(), t.terminal.clone()))
            .or_default();
        after[j] = *count;
        *count += 1;
    }
    (per_terminal, after)
}

/// The batch's terminals' numbers taken (their rows made if new) and its tickets inserted, in
/// one prepared statement whatever their number (a multi-row insert's text, and so its parse
/// and plan, differs with each batch's size).
fn number_and_insert_pg(
    c: &mut diesel::PgConnection,
    sales: &mut [Sale],
    new: &[usize],
) -> DomainResult<()> {
    let (per_terminal, after) = counted(sales, new);
    let sites: Vec<&str> = per_terminal.keys().map(|(s, _)| s.as_str()).collect();
    let names: Vec<&str> = per_terminal.keys().map(|(_, t)| t.as_str()).collect();
    let counts: Vec<i64> = per_terminal.values().copied().collect();
    let rows: Vec<NewTicket> = new
        .iter()
        .map(|&i| NewTicket::from(&sales[i].ticket))
        .collect();
    let numbered = insert_numbered(c, (&sites, &names, &counts), &after, &rows)?;
    drop(rows);
    let numbers: HashMap<String, i64> = numbered
        .into_iter()
        .map(|n| (n.serial, n.ticket_number))
        .collect();
    let unnumbered = |serial: &str| {
        Failure::Internal(anyhow::anyhow!(
            "{} of the batch's {} tickets were inserted; {serial} was not",
            numbers.len(),
            new.len()
        ))
    };
    for &i in new {
        let t = &mut sales[i].ticket;
        t.ticket_number = *numbers
            .get(&t.serial)
            .ok_or_else(|| unnumbered(&t.serial))?;
    }
    Ok(())
}

/// `NUMBER_AND_INSERT` run: the terminals' (sites, names, counts), and each row with how many
/// of its terminal's come after it.
fn insert_numbered<'a>(
    c: &mut diesel::PgConnection,
    (sites, names, counts): (&[&str], &[&str], &[i64]),
    after: &[i64],
    rows: &[NewTicket<'a>],
) -> QueryResult<Vec<Numbered>> {
    let text = |f: fn(&NewTicket<'a>) -> &'a str| rows.iter().map(f).collect::<Vec<&'a str>>();
    let big = |f: fn(&NewTicket<'a>) -> i64| rows.iter().map(f).collect::<Vec<i64>>();
    let int = |f: fn(&NewTicket<'a>) -> i32| rows.iter().map(f).collect::<Vec<i32>>();
    fixed(NUMBER_AND_INSERT)
        .bind::<Array<Text>, _>(sites)
        .bind::<Array<Text>, _>(names)
        .bind::<Array<BigInt>, _>(counts)
        .bind::<Array<Text>, _>(text(|t| t.serial))
        .bind::<Array<Text>, _>(text(|t| t.principal_id))
        .bind::<Array<Text>, _>(text(|t| t.request_id))
        .bind::<Array<BigInt>, _>(after)
        .bind::<Array<Text>, _>(text(|t| t.site))
        .bind::<Array<Text>, _>(text(|t| t.terminal))
        .bind::<Array<Text>, _>(text(|t| t.writer))
        .bind::<Array<BigInt>, _>(big(|t| t.issued_at))
        .bind::<Array<Text>, _>(text(|t| t.keno_day))
        .bind::<Array<Text>, _>(text(|t| t.bet_type))
        .bind::<Array<Text>, _>(text(|t| t.schedule))
        .bind::<Array<Text>, _>(text(|t| t.groups_json))
        .bind::<Array<Text>, _>(text(|t| t.combine_json))
        .bind::<Array<Text>, _>(text(|t| t.way_counts_json))
        .bind::<Array<BigInt>, _>(big(|t| t.amount_per_way_cents))
        .bind::<Array<BigInt>, _>(big(|t| t.way_count))
        .bind::<Array<BigInt>, _>(big(|t| t.first_game))
        .bind::<Array<BigInt>, _>(big(|t| t.last_game))
        .bind::<Array<Integer>, _>(int(|t| t.games))
        .bind::<Array<Integer>, _>(int(|t| t.charged_games))
        .bind::<Array<BigInt>, _>(big(|t| t.game_cost_cents))
        .bind::<Array<BigInt>, _>(big(|t| t.total_cents))
        .bind::<Array<Text>, _>(text(|t| t.rule_set))
        .bind::<Array<Text>, _>(text(|t| t.status))
        .bind::<Array<Nullable<Text>>, _>(rows.iter().map(|t| t.request_digest).collect::<Vec<_>>())
        .bind::<Array<Nullable<Text>>, _>(
            rows.iter().map(|t| t.entry_form_sha256).collect::<Vec<_>>(),
        )
        .load(c)
}

/// `NewTicket`'s columns, in its order: both inserts bind them so.
macro_rules! ticket_columns {
    () => {
        "serial, principal_id, request_id, ticket_number, site, terminal, writer, issued_at, \
         keno_day, bet_type, schedule, groups_json, combine_json, way_counts_json, \
         amount_per_way_cents, way_count, first_game, last_game, games, charged_games, \
         game_cost_cents, total_cents, rule_set, status, request_digest, entry_form_sha256"
    };
}

/// The terminals' last numbers moved on by their counts (a terminal's row made at its first
/// sale), then the tickets, each numbered its terminal's last less the number of its
/// terminal's tickets after it in the batch. Parameters: the terminals (site, terminal,
/// count), then the tickets' columns in `NewTicket`'s order, with how many come after each
/// where its ticket number would be.
const NUMBER_AND_INSERT: &str = concat!(
    "WITH last AS (INSERT INTO terminals AS t (site, terminal, \
     last_ticket_number) SELECT * FROM unnest(?::text[], ?::text[], ?::bigint[]) \
     ON CONFLICT (site, terminal) DO UPDATE \
     SET last_ticket_number = t.last_ticket_number + excluded.last_ticket_number \
     RETURNING t.site, t.terminal, t.last_ticket_number) \
     INSERT INTO tickets (",
    ticket_columns!(),
    ") SELECT k.serial, k.principal_id, k.request_id, last.last_ticket_number - k.after, k.site, \
     k.terminal, k.writer, k.issued_at, k.keno_day, k.bet_type, k.schedule, k.groups_json, \
     k.combine_json, k.way_counts_json, k.amount_per_way_cents, k.way_count, k.first_game, \
     k.last_game, k.games, k.charged_games, k.game_cost_cents, k.total_cents, k.rule_set, \
     k.status, k.request_digest, k.entry_form_sha256 \
     FROM unnest(?::text[], ?::text[], ?::text[], ?::bigint[], ?::text[], ?::text[], \
     ?::text[], ?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], \
     ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::integer[], ?::integer[], \
     ?::bigint[], ?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[]) \
     AS k(serial, principal_id, request_id, after, site, terminal, writer, issued_at, \
     keno_day, bet_type, schedule, groups_json, combine_json, way_counts_json, \
     amount_per_way_cents, way_count, first_game, last_game, games, charged_games, \
     game_cost_cents, total_cents, rule_set, status, request_digest, entry_form_sha256) \
     JOIN last ON last.site = k.site AND last.terminal = k.terminal \
     RETURNING serial, ticket_number"
);

#[derive(QueryableByName)]
struct Numbered {
    #[diesel(sql_type = Text)]
    serial: String,
    #[diesel(sql_type = BigInt)]
    ticket_number: i64,
}

/// The first ticket number of the batch at each of its terminals, on SQLite.
fn take_numbers(
    c: &mut diesel::SqliteConnection,
    sales: &[Sale],
    new: &[usize],
) -> DomainResult<HashMap<(String, String), i64>> {
    let (per_terminal, _) = counted(sales, new);
    let mut first = HashMap::new();
    for ((site, terminal), count) in per_terminal {
        let last: Option<i64> = Prepared(
            diesel::update(terminals::table.find((&site, &terminal)))
                .set(terminals::last_ticket_number.eq(terminals::last_ticket_number + count))
                .returning(terminals::last_ticket_number),
        )
        .get_result(c)
        .optional()?;
        let last = match last {
            Some(last) => last,
            None => {
                diesel::insert_into(terminals::table)
                    .values((
                        terminals::site.eq(&site),
                        terminals::terminal.eq(&terminal),
                        terminals::last_ticket_number.eq(count),
                    ))
                    .execute(c)?;
                count
            }
        };
        first.insert((site, terminal), last - count + 1);
    }
    Ok(first)
}

/// One ticket on SQLite.
const INSERT_TICKET: &str = concat!(
    "INSERT INTO tickets (",
    ticket_columns!(),
    ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
);

fn insert_ticket(c: &mut diesel::SqliteConnection, t: &NewTicket<'_>) -> QueryResult<usize> {
    fixed(INSERT_TICKET)
        .bind::<Text, _>(t.serial)
        .bind::<Text, _>(t.principal_id)
        .bind::<Text, _>(t.request_id)
        .bind::<BigInt, _>(t.ticket_number)
        .bind::<Text, _>(t.site)
        .bind::<Text, _>(t.terminal)
        .bind::<Text, _>(t.writer)
        .bind::<BigInt, _>(t.issued_at)
        .bind::<Text, _>(t.keno_day)
        .bind::<Text, _>(t.bet_type)
        .bind::<Text, _>(t.schedule)
        .bind::<Text, _>(t.groups_json)
        .bind::<Text, _>(t.combine_json)
        .bind::<Text, _>(t.way_counts_json)
        .bind::<BigInt, _>(t.amount_per_way_cents)
        .bind::<BigInt, _>(t.way_count)
        .bind::<BigInt, _>(t.first_game)
        .bind::<BigInt, _>(t.last_game)
        .bind::<Integer, _>(t.games)
        .bind::<Integer, _>(t.charged_games)
        .bind::<BigInt, _>(t.game_cost_cents)
        .bind::<BigInt, _>(t.total_cents)
        .bind::<Text, _>(t.rule_set)
        .bind::<Text, _>(t.status)
        .bind::<Nullable<Text>, _>(t.request_digest)
        .bind::<Nullable<Text>, _>(t.entry_form_sha256)
        .execute(c)
}
