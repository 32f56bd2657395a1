//! The record as the audit reads it, shared by the export, the report and the exceptions: games
//! with their draw, settlement and invalidation; jackpot pools; faults; corrections; refunds;
//! payments and cancellations by when they happened; stored JSON read back (verify's too).

use std::collections::{BTreeMap, HashMap};

use anyhow::Context;
use diesel::dsl::case_when;
use diesel::prelude::*;
use serde::de::DeserializeOwned;

use super::source::for_each_row;
use crate::ball_draw::corrections::CorrectionRow;
use crate::ball_draw::faults::FaultRow;
use crate::db::schema::{
    draw_corrections, draw_faults, drawn_numbers, game_invalidations, game_settlements, games,
    jackpot_pools, ticket_refunds, tickets, voided_balls,
};
use crate::db::DbConnection;
use crate::games::GameRow;
use crate::tickets::WaysLine;
use keno_core::TicketStatus;

#[derive(Queryable, Selectable, Clone, Debug)]
#[diesel(table_name = game_settlements)]
pub struct SettlementRow {
    pub game: i64,
    #[diesel(embed)]
    pub totals: crate::settlement::Totals,
    pub settled_at: i64,
}

#[derive(Queryable, Selectable, Clone, Debug)]
#[diesel(table_name = game_invalidations)]
pub struct InvalidationRow {
    pub game: i64,
    pub reason: String,
    /// None: the server's own, of a game opened under a clock ahead of time (issue 22).
    pub principal_id: Option<String>,
    pub invalidated_at: i64,
}

/// A game as the record holds it.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub row: GameRow,
    /// The standing numbers, in the order drawn.
    pub drawn: Vec<i64>,
    pub settlement: Option<SettlementRow>,
    pub invalidation: Option<InvalidationRow>,
}

/// Games `lo..=hi`, lowest first.
pub fn games(conn: &mut DbConnection, lo: i64, hi: i64) -> QueryResult<Vec<GameRecord>> {
    let rows: Vec<GameRow> = games::table
        .filter(games::number.between(lo, hi))
        .order(games::number)
        .select(GameRow::as_select())
        .load(conn)?;
    let mut drawn: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
    let numbers: Vec<(i64, i32)> = drawn_numbers::table
        .filter(drawn_numbers::game.between(lo, hi))
        .order((drawn_numbers::game, drawn_numbers::position))
        .select((drawn_numbers::game, drawn_numbers::number))
        .load(conn)?;
    for (game, number) in numbers {
        drawn.entry(game).or_default().push(number.into());
    }
    let mut settlements: HashMap<i64, SettlementRow> = game_settlements::table
        .filter(game_settlements::game.between(lo, hi))
        .select(SettlementRow::as_select())
        .load(conn)?
        .into_iter()
        .map(|s: SettlementRow| (s.game, s))
        .collect();
    let mut invalidations: HashMap<i64, InvalidationRow> = invalidation_rows(conn, lo, hi)?
        .into_iter()
        .map(|i| (i.game, i))
        .collect();
    Ok(rows
        .into_iter()
        .map(|row| GameRecord {
            drawn: drawn.remove(&row.number).unwrap_or_default(),
            settlement: settlements.remove(&row.number),
            invalidation: invalidations.remove(&row.number),
            row,
        })
        .collect())
}

/// Each step of `size` games from `lo` to `hi`: a long range is read a slice at a time.
pub fn slices(lo: i64, hi: i64, size: i64) -> impl Iterator<Item = (i64, i64)> {
    (0..)
        .map(move |i| lo.saturating_add(i * size))
        .take_while(move |start| *start <= hi)
        .map(move |start| (start, start.saturating_add(size - 1).min(hi)))
}

pub fn invalidation_rows(
    conn: &mut DbConnection,
    lo: i64,
    hi: i64,
) -> QueryResult<Vec<InvalidationRow>> {
    game_invalidations::table
        .filter(game_invalidations::game.between(lo, hi))
        .order(game_invalidations::game)
        .select(InvalidationRow::as_select())
        .load(conn)
}

/// The wagers refunded for each invalidated game of `lo..=hi`: tickets and cents.
pub fn refunds_by_game(
    conn: &mut DbConnection,
    lo: i64,
    hi: i64,
) -> QueryResult<BTreeMap<i64, (i64, i64)>> {
    let rows: Vec<(i64, i64)> = ticket_refunds::table
        .filter(ticket_refunds::game.between(lo, hi))
        .select((ticket_refunds::game, ticket_refunds::refund_cents))
        .load(conn)?;
    let mut by_game: BTreeMap<i64, (i64, i64)> = BTreeMap::new();
    for (game, cents) in rows {
        let entry = by_game.entry(game).or_default();
        entry.0 += 1;
        entry.1 += cents;
    }
    Ok(by_game)
}

#[derive(Queryable, Selectable, Clone, Debug)]
#[diesel(table_name = jackpot_pools)]
pub struct PoolRow {
    pub game: i64,
    pub spots: i32,
    pub carried_in_cents: i64,
    pub contributions_cents: i64,
    pub pool_cents: i64,
    pub winners: i64,
    pub paid_cents: i64,
    pub breakage_cents: i64,
    pub next_pool_cents: i64,
}

/// Each jackpot pool's movement in each settled game of `lo..=hi`, by game then spots.
pub fn pools(conn: &mut DbConnection, lo: i64, hi: i64) -> QueryResult<Vec<PoolRow>> {
    jackpot_pools::table
        .filter(jackpot_pools::game.between(lo, hi))
        .order((jackpot_pools::game, jackpot_pools::spots))
        .select(PoolRow::as_select())
        .load(conn)
}

/// A fault and how many balls it took out of the record.
pub struct Fault {
    pub row: FaultRow,
    pub voided_balls: i64,
}

/// The draw faults of games `lo..=hi`, in the order recorded.
pub fn faults(conn: &mut DbConnection, lo: i64, hi: i64) -> QueryResult<Vec<Fault>> {
    let rows: Vec<FaultRow> = draw_faults::table
        .filter(draw_faults::game.between(lo, hi))
        .order(draw_faults::id)
        .select(FaultRow::as_select())
        .load(conn)?;
    let voided: Vec<i64> = voided_balls::table
        .filter(voided_balls::game.between(lo, hi))
        .select(voided_balls::fault_id)
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|row| Fault {
            voided_balls: voided.iter().filter(|&&f| f == row.id).count() as i64,
            row,
        })
        .collect())
}

/// Rule 10's words for a fault's kind.
pub fn fault_kind(kind: &str) -> &'static str {
    match kind {
        "short_of_balls" => "draw void: fewer than 80 balls (rule 10.2)",
        "broken_ball" => "broken ball void (rule 10.4(a))",
        "fall_back" => "balls fell back: drawn by hand (rule 10.4(b))",
        "spill" => "spill: draw void (rule 10.4(c))",
        "stoppage" => "stoppage: finished by hand (rule 10.4(d))",
        "no_device" => "no device: drawn by hand (rule 10.4(d))",
        _ => "fault",
    }
}

/// The draw corrections asked in games `lo..=hi`, in the order asked.
pub fn corrections(conn: &mut DbConnection, lo: i64, hi: i64) -> QueryResult<Vec<CorrectionRow>> {
    draw_corrections::table
        .filter(draw_corrections::game.between(lo, hi))
        .order(draw_corrections::id)
        .select(CorrectionRow::as_select())
        .load(conn)
}

/// A paid ticket, and the Keno Day of the game after which it could be paid.
#[derive(Queryable, Clone, Debug)]
pub struct Payment {
    pub serial: String,
    pub keno_day: String,
    pub site: String,
    pub terminal: String,
    pub writer: String,
    pub first_game: i64,
    /// The last game it played (its last game, or the one before its cancelled games).
    pub last_played_game: i64,
    pub paid_cents: i64,
    pub paid_at: i64,
    pub paid_by: Option<String>,
    pub pay_method: Option<String>,
    /// The Keno Day of its last played game: it can be paid from then on.
    pub payable_day: String,
}

/// Each ticket paid in `[from, to)` (stored moments), in the order paid, as it comes.
pub fn for_each_payment(
    conn: &mut DbConnection,
    (from, to): (i64, i64),
    mut f: impl FnMut(Payment) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let last_played = case_when(tickets::cancelled_from_game.is_null(), tickets::last_game)
        .otherwise(tickets::cancelled_from_game.assume_not_null() - 1);
    for_each_row!(
        conn,
        tickets::table
            .inner_join(games::table.on(games::number.eq(last_played)))
            .filter(tickets::paid_at.ge(from))
            .filter(tickets::paid_at.lt(to))
            .order((tickets::paid_at, tickets::serial))
            .select((
                tickets::serial,
                tickets::keno_day,
                tickets::site,
                tickets::terminal,
                tickets::writer,
                tickets::first_game,
                games::number,
                tickets::paid_cents,
                // In the window, so never null.
                tickets::paid_at.assume_not_null(),
                tickets::paid_by,
                tickets::pay_method,
                games::keno_day,
            )),
        Payment,
        |p| { f(p)? }
    );
    Ok(())
}

/// A cancellation: the ticket, what it cancelled, who and when.
#[derive(Queryable, Clone, Debug)]
pub struct Cancellation {
    pub serial: String,
    pub keno_day: String,
    pub site: String,
    pub terminal: String,
    pub first_game: i64,
    pub last_game: i64,
    #[diesel(deserialize_as = String)]
    pub status: TicketStatus,
    pub cancelled_from_game: Option<i64>,
    pub refund_cents: i64,
    pub total_cents: i64,
    pub cancelled_at: i64,
    pub cancelled_by: Option<String>,
}

/// The tickets cancelled (wholly or in part) in `[from, to)`, in the order cancelled.
pub fn cancellations(
    conn: &mut DbConnection,
    (from, to): (i64, i64),
) -> QueryResult<Vec<Cancellation>> {
    tickets::table
        .filter(tickets::cancelled_at.ge(from))
        .filter(tickets::cancelled_at.lt(to))
        .order((tickets::cancelled_at, tickets::serial))
        .select((
            tickets::serial,
            tickets::keno_day,
            tickets::site,
            tickets::terminal,
            tickets::first_game,
            tickets::last_game,
            tickets::status,
            tickets::cancelled_from_game,
            tickets::refund_cents,
            tickets::total_cents,
            // In the window, so never null.
            tickets::cancelled_at.assume_not_null(),
            tickets::cancelled_by,
        ))
        .load(conn)
}

/// A stored JSON column read back. What cannot be read is an error that names the record and
/// the column, never an empty value: read as empty it would hide what was stored.
pub fn stored_json<T: DeserializeOwned>(
    record: &str,
    column: &str,
    json: &str,
) -> anyhow::Result<T> {
    serde_json::from_str(json)
        .with_context(|| format!("{record}: its stored {column} cannot be read"))
}

/// A ticket's groups as its receipt prints them (Diagram C): "06 45-36 80".
pub fn selection(groups: &[Vec<u8>]) -> String {
    groups
        .iter()
        .map(|g| {
            g.iter()
                .map(|n| format!("{n:02}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("-")
}

/// A ticket's ways as its receipt lists them: "1/04", "3/08 1/12".
pub fn ways(lines: &[WaysLine]) -> String {
    lines
        .iter()
        .map(|l| format!("{}/{:02}", l.count, l.spots))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The parts of the payments made in `window` (rule 12.2): serial -> (method, cents) each, in
/// order. A payment not made in parts (a voucher, a tender, a claim) has none.
pub fn payment_parts(
    conn: &mut DbConnection,
    (from, to): (i64, i64),
) -> QueryResult<HashMap<String, Vec<(String, i64)>>> {
    use crate::db::schema::payment_parts;
    let rows: Vec<(String, String, i64)> = payment_parts::table
        .inner_join(tickets::table.on(tickets::serial.eq(payment_parts::serial)))
        .filter(tickets::paid_at.ge(from))
        .filter(tickets::paid_at.lt(to))
        .order((payment_parts::serial, payment_parts::part))
        .select((
            payment_parts::serial,
            payment_parts::method,
            payment_parts::cents,
        ))
        .load(conn)?;
    let mut parts: HashMap<String, Vec<(String, i64)>> = HashMap::new();
    for (serial, method, cents) in rows {
        parts.entry(serial).or_default().push((method, cents));
    }
    Ok(parts)
}

/// The hand-pays of the tickets paid in the window (a major prize's claimant and ID, the
/// cheque's number, the supervisor who approved), by serial.
pub fn hand_pays(
    conn: &mut DbConnection,
    (from, to): (i64, i64),
) -> QueryResult<HashMap<String, HandPayLine>> {
    use crate::db::schema::hand_pays;
    let rows: Vec<HandPayLine> = hand_pays::table
        .inner_join(tickets::table.on(tickets::serial.eq(hand_pays::serial)))
        .filter(tickets::paid_at.ge(from))
        .filter(tickets::paid_at.lt(to))
        .select((
            hand_pays::serial,
            hand_pays::claimant_name,
            hand_pays::id_kind,
            hand_pays::id_number,
            hand_pays::cheque_number,
            hand_pays::approved_by,
        ))
        .load(conn)?;
    Ok(rows.into_iter().map(|h| (h.serial.clone(), h)).collect())
}

/// A hand-pay as the export shows it.
#[derive(Queryable)]
pub struct HandPayLine {
    pub serial: String,
    pub claimant_name: String,
    pub id_kind: String,
    pub id_number: String,
    pub cheque_number: Option<String>,
    pub approved_by: Option<String>,
}

/// A writer's shift with its drawer's movements and what the drawer should hold (at the close
/// as stored; while open, so far).
pub struct ShiftLine {
    pub row: crate::shifts::ShiftRow,
    pub cash: keno_core::DrawerMovements,
    pub expected_cents: i64,
}

impl ShiftLine {
    pub fn cash_in(&self) -> i64 {
        self.cash.cash_in_cents() as i64
    }

    pub fn cash_out(&self) -> i64 {
        self.cash.cash_out_cents() as i64
    }

    /// open | awaiting_sign_off | closed
    pub fn state(&self) -> &'static str {
        self.row.state().as_str()
    }
}

/// The shifts opened in `[from, to)`, in the order they opened, each with its drawer summed
/// from the records (`shifts::drawer`, as the server sums it).
pub fn shifts(conn: &mut DbConnection, (from, to): (i64, i64)) -> anyhow::Result<Vec<ShiftLine>> {
    use crate::db::schema::shifts;
    use crate::shifts::ShiftRow;
    let rows: Vec<ShiftRow> = shifts::table
        .filter(shifts::opened_at.ge(from))
        .filter(shifts::opened_at.lt(to))
        .order(shifts::id)
        .select(ShiftRow::as_select())
        .load(conn)?;
    rows.into_iter()
        .map(|row| {
            let cash = row.movements(conn)?;
            let expected_cents = row.expected(&cash)?;
            Ok(ShiftLine {
                row,
                cash,
                expected_cents,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selections_and_ways_read_as_on_the_receipt() {
        let read =
            |json: &str| -> Vec<Vec<u8>> { stored_json("ticket 1", "groups_json", json).unwrap() };
        assert_eq!(selection(&read("[[6,45],[36,80]]")), "06 45-36 80");
        assert_eq!(selection(&read("[[1],[2],[3]]")), "01-02-03");
        let lines: Vec<WaysLine> = stored_json(
            "ticket 1",
            "way_counts_json",
            r#"[{"count":3,"spots":8,"plays_as":"special1"},{"count":1,"spots":12,"plays_as":"standard"}]"#,
        )
        .unwrap();
        assert_eq!(ways(&lines), "3/08 1/12");
    }

    #[test]
    fn stored_json_that_cannot_be_read_names_its_record() {
        let e = stored_json::<Vec<Vec<u8>>>("ticket 42", "groups_json", "not json").unwrap_err();
        assert!(
            format!("{e:#}").starts_with("ticket 42: its stored groups_json cannot be read: "),
            "{e:#}"
        );
        assert!(stored_json::<Vec<u8>>("ticket 42", "combine_json", "{}").is_err());
    }

    #[test]
    fn a_long_range_is_read_in_slices() {
        assert_eq!(
            slices(1, 2500, 1000).collect::<Vec<_>>(),
            [(1, 1000), (1001, 2000), (2001, 2500)]
        );
        assert_eq!(slices(7, 7, 1000).collect::<Vec<_>>(), [(7, 7)]);
    }
}
