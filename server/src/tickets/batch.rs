//! Committing a batch of sales (the sale writer's transaction): which are new, their tenders,
//! their ticket numbers, their rows and their audit entries, a statement or two per table per
//! batch rather than per sale.

use std::collections::{BTreeMap, HashMap, HashSet};

use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Integer, Nullable, Text};

use super::sale::{set_retired, sold_record, NewTicket, Outcome, Sale};
use super::tender::{Ledger, Planned, SalePayment};
use super::TicketRow;
use crate::audit::log::Entry;
use crate::db::prepared::{fixed, Prepared};
use crate::db::schema::{set_bet_tickets, terminals, tickets};
use crate::db::{now_micros, per_backend, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::games::GameRow;
use keno_api::Refusal;
use keno_core::{Office, ShiftAt, ShiftRule};

/// Commits sales into `game`, which the caller holds open: a statement or two per batch, not
/// per sale. A sale whose `request_id` its writer already used (earlier in the same batch, or
/// before) is not sold again; its ticket is returned. Without `look_up`, a batch of plain sales
/// is not looked up: one used before fails it on the unique index, and the caller sends it
/// again looked up. A sale whose tender is refused is not sold (its refusal is its outcome);
/// the others are.
pub fn commit_sales(
    conn: &mut DbConnection,
    sales: &mut [Sale],
    game: &GameRow,
    (look_up, shift): (bool, ShiftRule),
) -> DomainResult<Vec<Result<Outcome, Failure>>> {
    // A sale the batch can refuse (a tender, a set bet, Special 3) must find a copy sold
    // before first: the copy's refusal now (its tender spent by the copy, say) would hide it.
    let refusable =
        |s: &Sale| !s.tenders.is_empty() || s.set_bet.is_some() || s.special3_digest.is_some();
    let sold = if look_up || sales.iter().any(refusable) {
        already_sold(conn, sales)?
    } else {
        HashMap::new()
    };
    let (mut new, mut refused) = new_sales(conn, sales, &sold)?;
    in_drawers(conn, sales, &mut new, &mut refused, shift)?;
    let (ledger, mut planned) = plan_tenders(conn, sales, &new, &mut refused, game)?;
    new.retain(|i| !refused.contains_key(i));
    let next_number = take_numbers(conn, sales, &new)?;
    // Never before the game opened, whatever the clock read then (issue 22).
    let now = keno_core::game_time::not_before(now_micros(), game.opened_at);
    number_and_insert(conn, sales, &new, next_number, game, now)?;
    let mut entries = Vec::with_capacity(new.len());
    let mut payments: HashMap<usize, SalePayment> = HashMap::new();
    for &i in &new {
        let s = &sales[i];
        entries.push(
            Entry::serialized(
                crate::audit::kind::EntryKind::TicketSold,
                &s.ticket.serial,
                sold_record(&s.record, &s.ticket),
            )
            .by(&s.ticket.principal_id),
        );
        if let (Some(ledger), Some(p)) = (&ledger, planned.remove(&i)) {
            let (more, payment) = ledger.record_sale(conn, &sales[i].ticket, &p, now)?;
            entries.extend(more);
            payments.insert(i, payment);
        }
    }
    if let Some(ledger) = &ledger {
        ledger.write_balances(conn)?;
    }
    crate::audit::log::append(conn, entries)?;
    Ok(outcomes(sales, new, refused, sold, payments))
}

/// A sale's key: its writer and request id.
fn sale_key(s: &Sale) -> (String, String) {
    (s.ticket.principal_id.clone(), s.ticket.request_id.clone())
}

/// The tickets already sold under the batch's request ids, by writer and request id. On
/// PostgreSQL one probe of the unique index per sale, by the exact pairs: the same lookup by
/// two lists (`IN` writers `AND IN` request ids) probed every pair of the two and was half of
/// the database's time at 2,000 sales a second.
fn already_sold(
    conn: &mut DbConnection,
    sales: &[Sale],
) -> DomainResult<HashMap<(String, String), TicketRow>> {
    let (writers, ids): (Vec<&str>, Vec<&str>) = sales
        .iter()
        .map(|s| (s.ticket.principal_id.as_str(), s.ticket.request_id.as_str()))
        .unzip();
    let serials: Vec<String> = match conn {
        DbConnection::Pg(c) => fixed(SOLD_BY_PAIRS)
            .bind::<Array<Text>, _>(&writers)
            .bind::<Array<Text>, _>(&ids)
            .load::<Serial>(c)?
            .into_iter()
            .map(|s| s.serial)
            .collect(),
        // In process, the two lists cost little; a pair that is not the batch's is not looked
        // up by its key below.
        DbConnection::Sqlite(c) => tickets::table
            .filter(tickets::principal_id.eq_any(&writers))
            .filter(tickets::request_id.eq_any(&ids))
            .select(tickets::serial)
            .load(c)?,
    };
    if serials.is_empty() {
        return Ok(HashMap::new());
    }
    Ok(tickets::table
        .filter(tickets::serial.eq_any(&serials))
        .select(TicketRow::as_select())
        .load(conn)?
        .into_iter()
        .map(|t| ((t.principal_id.clone(), t.request_id.clone()), t))
        .collect())
}

const SOLD_BY_PAIRS: &str = "SELECT t.serial FROM unnest(?::text[], ?::text[]) AS k(principal_id, \
     request_id) JOIN tickets t ON t.principal_id = k.principal_id AND t.request_id = k.request_id";

#[derive(QueryableByName)]
struct Serial {
    #[diesel(sql_type = Text)]
    serial: String,
}

/// Which sales are new (by index), and those refused because a set was retired or an
/// approval of Special 3 withdrawn since they were priced. The sets and approvals the new
/// sales rely on are held until the batch commits.
fn new_sales(
    conn: &mut DbConnection,
    sales: &[Sale],
    sold: &HashMap<(String, String), TicketRow>,
) -> DomainResult<(Vec<usize>, HashMap<usize, Failure>)> {
    let fresh = || sales.iter().filter(|s| !sold.contains_key(&sale_key(s)));
    let mut set_ids: Vec<i64> = fresh()
        .filter_map(|s| s.set_bet.as_ref().map(|b| b.id))
        .collect();
    set_ids.sort_unstable();
    set_ids.dedup();
    let on_sale = if set_ids.is_empty() {
        HashSet::new()
    } else {
        crate::set_bets::hold_on_sale(conn, &set_ids)?
    };
    let mut approved: HashMap<String, bool> = HashMap::new();
    for digest in fresh().filter_map(|s| s.special3_digest.as_ref()) {
        if !approved.contains_key(digest) {
            let in_force = crate::special3::in_force(conn, digest, true)?.is_some();
            approved.insert(digest.clone(), in_force);
        }
    }
    let mut new = Vec::new();
    let mut refused: HashMap<usize, Failure> = HashMap::new();
    let mut seen = HashSet::new();
    for (i, s) in sales.iter().enumerate() {
        let key = sale_key(s);
        if sold.contains_key(&key) || seen.contains(&key) {
            continue;
        }
        if let Some(set) = s.set_bet.as_ref().filter(|b| !on_sale.contains(&b.id)) {
            refused.insert(i, set_retired(set.id, &set.name));
            continue;
        }
        if let Some(digest) = &s.special3_digest {
            if approved.get(digest) != Some(&true) {
                refused.insert(i, keno_core::BetError::ScheduleNotApproved.into());
                continue;
            }
        }
        seen.insert(key);
        new.push(i);
    }
    Ok((new, refused))
}

/// Sales whose writer has no shift open at the terminal are refused (issue 31: every cent in
/// a drawer, `keno_core::drawer_for`); one query for the batch's writers.
fn in_drawers(
    conn: &mut DbConnection,
    sales: &[Sale],
    new: &mut Vec<usize>,
    refused: &mut HashMap<usize, Failure>,
    rule: ShiftRule,
) -> DomainResult<()> {
    if rule == ShiftRule::NotRequired || new.is_empty() {
        return Ok(());
    }
    let mut writers: Vec<&str> = new
        .iter()
        .map(|&i| sales[i].ticket.principal_id.as_str())
        .collect();
    writers.sort_unstable();
    writers.dedup();
    let open = crate::shifts::drawer::open_shifts(conn, &writers)?;
    new.retain(|&i| {
        let t = &sales[i].ticket;
        let key = (t.principal_id.clone(), t.site.clone(), t.terminal.clone());
        let shift = if open.contains(&key) {
            ShiftAt::Open
        } else {
            ShiftAt::NoneOpen
        };
        match keno_core::drawer_for(Office::Writer, rule, shift) {
            Ok(()) => true,
            Err(keno_core::NoShift) => {
                refused.insert(i, crate::shifts::no_shift());
                false
            }
        }
    });
    Ok(())
}

/// Tenders (rule 6.1), planned against the vouchers and tickets held for the batch, before
/// anything is numbered: a sale whose tender is refused takes no ticket number.
fn plan_tenders(
    conn: &mut DbConnection,
    sales: &[Sale],
    new: &[usize],
    refused: &mut HashMap<usize, Failure>,
    game: &GameRow,
) -> DomainResult<(Option<Ledger>, HashMap<usize, Planned>)> {
    let mut planned: HashMap<usize, Planned> = HashMap::new();
    let tendering: Vec<usize> = new
        .iter()
        .copied()
        .filter(|&i| !sales[i].tenders.is_empty())
        .collect();
    if tendering.is_empty() {
        return Ok((None, planned));
    }
    let mut ledger = Ledger::load(
        conn,
        tendering.iter().map(|&i| sales[i].tenders.as_slice()),
        true,
        crate::keno_day::stored(&game.keno_day, format_args!("game {}", game.number))?,
    )?;
    for &i in &tendering {
        match ledger.plan(sales[i].ticket.total_cents as u64, &sales[i].tenders) {
            Ok(p) => {
                planned.insert(i, p);
            }
            Err(e) => {
                refused.insert(i, e);
            }
        }
    }
    Ok((Some(ledger), planned))
}

/// The first ticket number of the batch at each terminal. On PostgreSQL one statement takes
/// every terminal's numbers (a round trip per terminal was a round trip per sale); each
/// terminal's sales go to one sale writer (`writer`), so two writers of an instance never hold
/// the same terminal's row. A terminal's first sale makes its row.
fn take_numbers(
    conn: &mut DbConnection,
    sales: &[Sale],
    new: &[usize],
) -> DomainResult<HashMap<(String, String), i64>> {
    let mut per_terminal: BTreeMap<(String, String), i64> = BTreeMap::new();
    for &i in new {
        let t = &sales[i].ticket;
        *per_terminal
            .entry((t.site.clone(), t.terminal.clone()))
            .or_default() += 1;
    }
    let mut last = numbers_taken(conn, &per_terminal)?;
    for ((site, terminal), &count) in &per_terminal {
        if let std::collections::hash_map::Entry::Vacant(first) =
            last.entry((site.clone(), terminal.clone()))
        {
            diesel::insert_into(terminals::table)
                .values((
                    terminals::site.eq(site),
                    terminals::terminal.eq(terminal),
                    terminals::last_ticket_number.eq(count),
                ))
                .execute(conn)?;
            first.insert(count);
        }
    }
    Ok(last
        .into_iter()
        .map(|(key, last)| {
            let first = last - per_terminal[&key] + 1;
            (key, first)
        })
        .collect())
}

const TAKE_NUMBERS: &str = "UPDATE terminals AS t SET last_ticket_number = t.last_ticket_number \
     + k.n FROM unnest(?::text[], ?::text[], ?::bigint[]) AS k(site, terminal, n) \
     WHERE t.site = k.site AND t.terminal = k.terminal \
     RETURNING t.site, t.terminal, t.last_ticket_number";

#[derive(QueryableByName)]
struct Taken {
    #[diesel(sql_type = Text)]
    site: String,
    #[diesel(sql_type = Text)]
    terminal: String,
    #[diesel(sql_type = BigInt)]
    last_ticket_number: i64,
}

/// Each registered terminal's last number after taking `counts` of them; a terminal with no
/// row yet is absent.
fn numbers_taken(
    conn: &mut DbConnection,
    counts: &BTreeMap<(String, String), i64>,
) -> DomainResult<HashMap<(String, String), i64>> {
    match conn {
        DbConnection::Pg(c) => {
            let sites: Vec<&str> = counts.keys().map(|(s, _)| s.as_str()).collect();
            let names: Vec<&str> = counts.keys().map(|(_, t)| t.as_str()).collect();
            let ns: Vec<i64> = counts.values().copied().collect();
            Ok(fixed(TAKE_NUMBERS)
                .bind::<Array<Text>, _>(&sites)
                .bind::<Array<Text>, _>(&names)
                .bind::<Array<BigInt>, _>(&ns)
                .load::<Taken>(c)?
                .into_iter()
                .map(|t| ((t.site, t.terminal), t.last_ticket_number))
                .collect())
        }
        // In process: a statement per terminal costs no round trip.
        DbConnection::Sqlite(c) => {
            let mut out = HashMap::new();
            for ((site, terminal), count) in counts {
                let last: Option<i64> = Prepared(
                    diesel::update(terminals::table.find((site, terminal)))
                        .set(
                            terminals::last_ticket_number.eq(terminals::last_ticket_number + count),
                        )
                        .returning(terminals::last_ticket_number),
                )
                .get_result(c)
                .optional()?;
                if let Some(last) = last {
                    out.insert((site.clone(), terminal.clone()), last);
                }
            }
            Ok(out)
        }
    }
}

/// Numbers the new sales (their serials were drawn before), gives each its game and time, and
/// inserts them and the sets of set bets.
fn number_and_insert(
    conn: &mut DbConnection,
    sales: &mut [Sale],
    new: &[usize],
    mut next_number: HashMap<(String, String), i64>,
    game: &GameRow,
    now: i64,
) -> DomainResult<()> {
    for &i in new {
        let t = &mut sales[i].ticket;
        let number = next_number
            .get_mut(&(t.site.clone(), t.terminal.clone()))
            .expect("numbered above");
        t.ticket_number = *number;
        *number += 1;
        t.issued_at = now;
        t.keno_day = game.keno_day.clone();
        t.first_game = game.number;
        t.last_game = game.number + i64::from(t.games) - 1;
    }
    let rows: Vec<NewTicket> = new
        .iter()
        .map(|&i| NewTicket::from(&sales[i].ticket))
        .collect();
    insert_tickets(conn, &rows)?;
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

/// Each sale's outcome, in the batch's order: sold now, sold before (a retry), or refused.
fn outcomes(
    sales: &[Sale],
    new: Vec<usize>,
    mut refused: HashMap<usize, Failure>,
    mut sold: HashMap<(String, String), TicketRow>,
    mut payments: HashMap<usize, SalePayment>,
) -> Vec<Result<Outcome, Failure>> {
    let mut outcomes = Vec::with_capacity(sales.len());
    let mut fresh = new.into_iter().peekable();
    for (i, s) in sales.iter().enumerate() {
        let t = &s.ticket;
        let key = sale_key(s);
        if let Some(e) = refused.remove(&i) {
            outcomes.push(Err(e));
        } else if fresh.peek() == Some(&i) {
            fresh.next();
            sold.insert(key, t.clone());
            outcomes.push(Ok(Outcome::Sold(Box::new(t.clone()), payments.remove(&i))));
        } else {
            match sold.get(&key) {
                Some(earlier) => outcomes.push(Ok(Outcome::AlreadySold(Box::new(earlier.clone())))),
                // The same request earlier in this batch was refused: asked again, it is
                // planned again.
                None => outcomes.push(Err(Failure::refuse(
                    Refusal::RequestInProgress,
                    "the same sale is being made: send it again",
                ))),
            }
        }
    }
    outcomes
}

/// The batch's tickets: on PostgreSQL one prepared statement whatever their number (a
/// multi-row insert's text, and so its parse and plan, differs with each batch's size).
fn insert_tickets<'a>(conn: &mut DbConnection, rows: &[NewTicket<'a>]) -> DomainResult<()> {
    let c = match conn {
        DbConnection::Pg(c) => c,
        DbConnection::Sqlite(c) => {
            // A row at a time: one statement whatever the batch's size, and no journal of its
            // own to undo it alone. Fixed text, so it is kept prepared: diesel's own insert
            // leaves a `None` column out of its text, and was parsed at every call.
            for row in rows {
                insert_ticket(c, row)?;
            }
            return Ok(());
        }
    };
    let text = |f: fn(&NewTicket<'a>) -> &'a str| rows.iter().map(f).collect::<Vec<&str>>();
    let big = |f: fn(&NewTicket<'a>) -> i64| rows.iter().map(f).collect::<Vec<i64>>();
    let int = |f: fn(&NewTicket<'a>) -> i32| rows.iter().map(f).collect::<Vec<i32>>();
    let sold = fixed(INSERT_TICKETS)
        .bind::<Array<Text>, _>(text(|t| t.serial))
        .bind::<Array<Text>, _>(text(|t| t.principal_id))
        .bind::<Array<Text>, _>(text(|t| t.request_id))
        .bind::<Array<BigInt>, _>(big(|t| t.ticket_number))
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
        .execute(c)?;
    if sold == rows.len() {
        return Ok(());
    }
    Err(Failure::Internal(anyhow::anyhow!(
        "{sold} of the batch's {} tickets were inserted",
        rows.len()
    )))
}

/// `NewTicket`'s columns, in its order.
macro_rules! ticket_columns {
    () => {
        "serial, principal_id, request_id, ticket_number, site, terminal, writer, issued_at, \
         keno_day, bet_type, schedule, groups_json, combine_json, way_counts_json, \
         amount_per_way_cents, way_count, first_game, last_game, games, charged_games, \
         game_cost_cents, total_cents, rule_set, status, request_digest, entry_form_sha256"
    };
}

const INSERT_TICKETS: &str = concat!(
    "INSERT INTO tickets (",
    ticket_columns!(),
    ") SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::bigint[], ?::text[], \
     ?::text[], ?::text[], ?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], \
     ?::text[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::integer[], ?::integer[], \
     ?::bigint[], ?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[])"
);

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
