//! `keno-server audit export`: the record of a range of Keno Days (or games) as files an
//! auditor loads into a spreadsheet or a script, one per kind:
//!
//! - `games`: each game's state, draw (numbers in the order drawn, attempt, mode), settled
//!   totals and invalidation;
//! - `tickets`: each ticket sold in the range, with its status, refunds, winnings and payment;
//! - `settlements`: each settled game's totals and every jackpot pool's movement in it;
//! - `payments`: each ticket paid in the range's hours, whenever it was sold;
//! - `results`: what each ticket won in each game of the range;
//! - `bonus_fund`: the bonus fund's movements in the range's hours;
//! - `shifts`: each writer's shift opened in the range's hours, with its drawer's movements,
//!   expected cash, count, over/short and sign-off.
//!
//! Tickets, payments and results are streamed; games and settlements are read 1,000 games at a
//! time.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{ArgGroup, Args};
use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable, Text};
use keno_api::audit::ExportKind;

use super::queries::{self, selection, slices, stored_json, ways};
use super::source::{self, for_each_row, sold_in, Days, People, Range, Source, SourceArgs, Span};
use super::table::{columns, Cell, Format, Table};
use crate::db::schema::{jackpot_pools, ticket_results, tickets};
use crate::db::{rfc3339, DbConnection};
use crate::tickets::{TicketRow, WaysLine};
use keno_core::PayMethod;

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("range").required(true).args(["from_day", "from_game"])))]
pub struct ExportArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    /// The first Keno Day (YYYY-MM-DD).
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub from_day: Option<String>,
    /// The last Keno Day (default: the first).
    #[arg(long, value_name = "YYYY-MM-DD", requires = "from_day")]
    pub to_day: Option<String>,
    /// The first game number (instead of Keno Days).
    #[arg(long, value_name = "N")]
    pub from_game: Option<i64>,
    /// The last game number (default: the first).
    #[arg(long, value_name = "M", requires = "from_game")]
    pub to_game: Option<i64>,
    /// CSV files, or JSON files each holding an array of objects.
    #[arg(long, value_parser = format_parser(), default_value = "csv")]
    pub format: Format,
    /// The folder to write the files into (created if need be).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// The server's audit signing key (`serve --audit-key`): it signs the export's manifest.
    /// Without it at hand the manifest holds the files' digests unsigned.
    #[arg(long, env = "KENO_AUDIT_KEY", default_value = "data/keno-audit.key")]
    pub audit_key: PathBuf,
}

/// `--format`: csv or json, by the files' endings (the format is keno-api's, which knows
/// nothing of clap).
fn format_parser() -> impl TypedValueParser<Value = Format> {
    const FORMATS: [Format; 2] = [Format::Csv, Format::Json];
    PossibleValuesParser::new(FORMATS.map(Format::extension)).map(|name: String| {
        FORMATS
            .into_iter()
            .find(|f| f.extension() == name)
            .expect("a format's own name")
    })
}

pub fn run(args: ExportArgs) -> anyhow::Result<()> {
    let span = Span::asked(
        args.from_day.as_deref(),
        args.to_day.as_deref(),
        args.from_game,
        args.to_game,
    )?;
    let source = Source::open(&args.source)?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let written = source.read(|conn| {
        let range = Range::resolve(source.days(), conn, span)?;
        let mut written = Vec::new();
        for &kind in ExportKind::ALL {
            let path = args
                .out
                .join(format!("{}.{}", kind.as_str(), args.format.extension()));
            let file =
                File::create(&path).with_context(|| format!("cannot create {}", path.display()))?;
            let out = Sink {
                out: file,
                format: args.format,
            };
            written.push((path, write(kind, conn, source.days(), &range, out)?));
        }
        eprintln!("exported {}", range.describe());
        Ok((range.describe(), written))
    })?;
    let (range, written) = written;
    for (path, rows) in &written {
        println!("{rows:>9} rows  {}", path.display());
    }
    sign(
        &args,
        range,
        written.into_iter().map(|(path, _)| path).collect(),
    )
}

/// The export's manifest, signed with the server's key when it is at hand.
fn sign(args: &ExportArgs, range: String, files: Vec<PathBuf>) -> anyhow::Result<()> {
    use crate::audit::anchor::{key::AuditKey, manifest};
    let key = if args.audit_key.exists() {
        Some(AuditKey::load(&args.audit_key)?)
    } else {
        eprintln!(
            "{} unsigned: no audit key at {} (give the server's --audit-key)",
            manifest::MANIFEST,
            args.audit_key.display()
        );
        None
    };
    manifest::write(&args.out, &files, range, key.as_ref())?;
    println!(
        "{:>9}       {}",
        if key.is_some() { "signed" } else { "unsigned" },
        args.out.join(manifest::MANIFEST).display()
    );
    Ok(())
}

/// Where one kind's rows go (a file, a download), and how they are written.
pub struct Sink<W> {
    pub out: W,
    pub format: Format,
}

impl<W: Write> Sink<W> {
    fn table(self, kind: ExportKind, header: Vec<String>) -> anyhow::Result<Table<W>> {
        Table::new(self.out, kind.as_str(), self.format, header)
    }
}

/// Writes the rows of `kind` in `range` as `conn` sees the record (the caller's read-only
/// snapshot); the rows written. The command and `GET /api/v1/audit/exports/{kind}` both write
/// them here.
pub fn write<W: Write>(
    kind: ExportKind,
    conn: &mut DbConnection,
    days: &Days,
    range: &Range,
    out: Sink<W>,
) -> anyhow::Result<u64> {
    match kind {
        ExportKind::Games => games(conn, range, out),
        ExportKind::Tickets => tickets(conn, range, out),
        ExportKind::Settlements => settlements(conn, range, out),
        ExportKind::Payments => payments(conn, days, range, out),
        ExportKind::Results => results(conn, range, out),
        ExportKind::BonusFund => bonus_fund(conn, range, out),
        ExportKind::Shifts => shifts(conn, range, out),
    }
}

fn time(micros: Option<i64>) -> Cell {
    micros.map(rfc3339).into()
}

fn games<W: Write>(conn: &mut DbConnection, range: &Range, out: Sink<W>) -> anyhow::Result<u64> {
    let mut table = out.table(
        ExportKind::Games,
        columns(&[
            "game",
            "keno_day",
            "state",
            "source",
            "draw_mode",
            "draw_attempt",
            "void_draws",
            "rule_set",
            "opened_at",
            "closes_at",
            "closed_at",
            "drawn_at",
            "settled_at",
            "drawn",
            "ways",
            "total_prizes_cents",
            "major_prizes",
            "prorated",
            "invalidated_at",
            "invalidated_by",
            "invalidation_reason",
        ]),
    )?;
    if let Some((lo, hi)) = range.games {
        for (lo, hi) in slices(lo, hi, 1000) {
            for g in queries::games(conn, lo, hi)? {
                let s = g.settlement.as_ref();
                let i = g.invalidation.as_ref();
                table.row(vec![
                    g.row.number.into(),
                    g.row.keno_day.into(),
                    g.row.state.as_str().to_string().into(),
                    g.row.source.as_str().to_string().into(),
                    g.row.draw_mode.as_str().to_string().into(),
                    g.row.draw_attempt.into(),
                    (g.row.draw_attempt - 1).into(),
                    g.row.rule_set.into(),
                    time(Some(g.row.opened_at)),
                    time(Some(g.row.closes_at)),
                    time(g.row.closed_at),
                    time(g.row.drawn_at),
                    time(g.row.settled_at),
                    Cell::Numbers(g.drawn),
                    s.map(|s| s.totals.ways).into(),
                    s.map(|s| s.totals.total_prizes_cents).into(),
                    s.map(|s| s.totals.major_prizes).into(),
                    s.map(|s| s.totals.prorated).into(),
                    time(i.map(|i| i.invalidated_at)),
                    i.map(|i| i.principal_id.clone()).into(),
                    i.map(|i| i.reason.clone()).into(),
                ])?;
            }
        }
    }
    table.finish()
}

/// What a ticket won in all its games, and what was refunded for its invalidated games:
/// correlated sums, the same SQL on both backends (no parameters).
const WON: &str = "COALESCE((SELECT CAST(SUM(r.prize_cents) AS BIGINT) FROM ticket_results r \
                   WHERE r.serial = tickets.serial), 0)";
const INVALIDATION_REFUNDS: &str = "COALESCE((SELECT CAST(SUM(f.refund_cents) AS BIGINT) \
                                    FROM ticket_refunds f WHERE f.serial = tickets.serial), 0)";

/// The set a set bet was sold from (rule 6.3(h)), and how: one primary-key lookup each, null
/// for other tickets.
const SET_BET_ID: &str =
    "(SELECT b.set_bet_id FROM set_bet_tickets b WHERE b.serial = tickets.serial)";
const SET_BET_NAME: &str = "(SELECT s.name FROM set_bet_tickets b JOIN set_bets s \
                            ON s.id = b.set_bet_id WHERE b.serial = tickets.serial)";
const SET_BET_MODE: &str = "(SELECT b.mode FROM set_bet_tickets b WHERE b.serial = tickets.serial)";

/// A ticket with what the export adds to it: who cancelled it, what it won, what was refunded
/// for its invalidated games, the set it was sold from (id, name, how).
type TicketLine = (
    TicketRow,
    Option<String>,
    i64,
    i64,
    Option<i64>,
    Option<String>,
    Option<String>,
);

const TICKET_COLUMNS: [&str; 37] = [
    "serial",
    "keno_day",
    "issued_at",
    "site",
    "terminal",
    "ticket_number",
    "writer",
    "principal_id",
    "request_id",
    "bet_type",
    "schedule",
    "selection",
    "combine",
    "ways",
    "way_count",
    "amount_per_way_cents",
    "first_game",
    "last_game",
    "games",
    "charged_games",
    "game_cost_cents",
    "total_cents",
    "rule_set",
    "status",
    "cancelled_from_game",
    "cancelled_at",
    "cancelled_by",
    "cancel_refund_cents",
    "invalidation_refund_cents",
    "won_cents",
    "paid_cents",
    "paid_at",
    "paid_by",
    "pay_method",
    "set_bet_id",
    "set_bet_name",
    "set_bet_mode",
];

fn tickets<W: Write>(conn: &mut DbConnection, range: &Range, out: Sink<W>) -> anyhow::Result<u64> {
    let mut table = out.table(ExportKind::Tickets, columns(&TICKET_COLUMNS))?;
    if let Some((lo, hi)) = range.games {
        for_each_row!(
            conn,
            tickets::table
                .filter(sold_in(lo, hi))
                .order((tickets::first_game, tickets::issued_at, tickets::serial))
                .select((
                    TicketRow::as_select(),
                    tickets::cancelled_by,
                    sql::<BigInt>(WON),
                    sql::<BigInt>(INVALIDATION_REFUNDS),
                    sql::<Nullable<BigInt>>(SET_BET_ID),
                    sql::<Nullable<Text>>(SET_BET_NAME),
                    sql::<Nullable<Text>>(SET_BET_MODE),
                )),
            TicketLine,
            |row| {
                table.row(ticket_cells(row)?)?;
            }
        );
    }
    table.finish()
}

/// A ticket's row, its stored numbers and ways as its receipt shows them.
fn ticket_cells(line: TicketLine) -> anyhow::Result<Vec<Cell>> {
    let (t, cancelled_by, won, invalidation_refunds, set_id, set_name, set_mode) = line;
    let record = format!("ticket {}", t.serial);
    let groups: Vec<Vec<u8>> = stored_json(&record, "groups_json", &t.groups_json)?;
    let combine: Vec<u8> = stored_json(&record, "combine_json", &t.combine_json)?;
    let way_lines: Vec<WaysLine> = stored_json(&record, "way_counts_json", &t.way_counts_json)?;
    Ok(vec![
        t.serial.into(),
        t.keno_day.into(),
        time(Some(t.issued_at)),
        t.site.into(),
        t.terminal.into(),
        t.ticket_number.into(),
        t.writer.into(),
        t.principal_id.into(),
        t.request_id.into(),
        t.bet_type.into(),
        t.schedule.into(),
        selection(&groups).into(),
        Cell::Numbers(combine.into_iter().map(i64::from).collect()),
        ways(&way_lines).into(),
        t.way_count.into(),
        t.amount_per_way_cents.into(),
        t.first_game.into(),
        t.last_game.into(),
        t.games.into(),
        t.charged_games.into(),
        t.game_cost_cents.into(),
        t.total_cents.into(),
        t.rule_set.into(),
        t.status.as_str().into(),
        t.cancelled_from_game.into(),
        time(t.cancelled_at),
        cancelled_by.into(),
        t.refund_cents.into(),
        invalidation_refunds.into(),
        won.into(),
        t.paid_cents.into(),
        time(t.paid_at),
        t.paid_by.into(),
        t.pay_method.map(PayMethod::as_str).into(),
        set_id.into(),
        set_name.into(),
        set_mode.into(),
    ])
}

const POOL_COLUMNS: [&str; 7] = [
    "carried_in_cents",
    "contributions_cents",
    "pool_cents",
    "winners",
    "paid_cents",
    "breakage_cents",
    "next_pool_cents",
];

/// One row per settled game; for each jackpot (by spot count) in the range, its movement in
/// that game as `jackpot_{spots}_...` columns.
fn settlements<W: Write>(
    conn: &mut DbConnection,
    range: &Range,
    out: Sink<W>,
) -> anyhow::Result<u64> {
    let spots: BTreeSet<i32> = match range.games {
        Some((lo, hi)) => jackpot_pools::table
            .filter(jackpot_pools::game.between(lo, hi))
            .select(jackpot_pools::spots)
            .distinct()
            .load::<i32>(conn)?
            .into_iter()
            .collect(),
        None => BTreeSet::new(),
    };
    let mut header = columns(&[
        "game",
        "keno_day",
        "ways",
        "total_prizes_cents",
        "major_prizes",
        "prorated",
        "prorate_before_cents",
        "prorate_after_cents",
        "floor_binds_for_all",
        "settled_at",
    ]);
    for s in &spots {
        header.extend(POOL_COLUMNS.iter().map(|c| format!("jackpot_{s}_{c}")));
    }
    let mut table = out.table(ExportKind::Settlements, header)?;
    if let Some((lo, hi)) = range.games {
        for (lo, hi) in slices(lo, hi, 1000) {
            let pools = queries::pools(conn, lo, hi)?;
            for g in queries::games(conn, lo, hi)? {
                let Some(s) = g.settlement else { continue };
                let mut row: Vec<Cell> = vec![
                    s.game.into(),
                    g.row.keno_day.into(),
                    s.totals.ways.into(),
                    s.totals.total_prizes_cents.into(),
                    s.totals.major_prizes.into(),
                    s.totals.prorated.into(),
                    s.totals.prorate_before_cents.into(),
                    s.totals.prorate_after_cents.into(),
                    s.totals.floor_binds_for_all.into(),
                    time(Some(s.settled_at)),
                ];
                for spot in &spots {
                    match pools.iter().find(|p| p.game == s.game && p.spots == *spot) {
                        Some(p) => row.extend([
                            p.carried_in_cents.into(),
                            p.contributions_cents.into(),
                            p.pool_cents.into(),
                            p.winners.into(),
                            p.paid_cents.into(),
                            p.breakage_cents.into(),
                            p.next_pool_cents.into(),
                        ]),
                        None => row.extend(std::iter::repeat_n(Cell::Null, POOL_COLUMNS.len())),
                    }
                }
                table.row(row)?;
            }
        }
    }
    table.finish()
}

/// The payments export's columns: each payment, its parts (rule 12.2) and its hand-pay.
const PAYMENT_COLUMNS: &[&str] = &[
    "serial",
    "keno_day",
    "site",
    "terminal",
    "writer",
    "first_game",
    "last_played_game",
    "payable_keno_day",
    "paid_at",
    "paid_keno_day",
    "late",
    "paid_cents",
    "pay_method",
    "cash_cents",
    "cheque_cents",
    "paid_by",
    "paid_by_name",
    "claimant_name",
    "id_kind",
    "id_number",
    "cheque_number",
    "approved_by",
];

fn payments<W: Write>(
    conn: &mut DbConnection,
    days: &Days,
    range: &Range,
    out: Sink<W>,
) -> anyhow::Result<u64> {
    let mut table = out.table(ExportKind::Payments, columns(PAYMENT_COLUMNS))?;
    let people = People::load(conn)?;
    let parts = queries::payment_parts(conn, range.window)?;
    // A major prize's hand-pay: who took it, the ID shown, the cheque, the approval.
    let hand_pays = queries::hand_pays(conn, range.window)?;
    queries::for_each_payment(conn, range.window, |p| {
        // Rule 12.2: what was paid in cash and by cheque, part by part.
        let part = |method: &str| -> i64 {
            parts.get(&p.serial).map_or(0, |all| {
                all.iter()
                    .filter(|(m, _)| m == method)
                    .map(|(_, c)| c)
                    .sum()
            })
        };
        let (cash, cheque) = (part("cash"), part("cheque"));
        let hand = hand_pays.get(&p.serial);
        let paid_day = source::day_text(days.day_of(p.paid_at));
        table.row(vec![
            p.serial.into(),
            p.keno_day.into(),
            p.site.into(),
            p.terminal.into(),
            p.writer.into(),
            p.first_game.into(),
            p.last_played_game.into(),
            p.payable_day.clone().into(),
            time(Some(p.paid_at)),
            paid_day.clone().into(),
            (paid_day > p.payable_day).into(),
            p.paid_cents.into(),
            p.pay_method.into(),
            cash.into(),
            cheque.into(),
            p.paid_by.as_deref().into(),
            p.paid_by.as_deref().map(|id| people.name(id)).into(),
            hand.map(|h| h.claimant_name.as_str()).into(),
            hand.map(|h| h.id_kind.as_str()).into(),
            hand.map(|h| h.id_number.as_str()).into(),
            hand.and_then(|h| h.cheque_number.as_deref()).into(),
            hand.and_then(|h| h.approved_by.as_deref()).into(),
        ])
    })?;
    table.finish()
}

/// The bonus fund's movements in the window (rule 13.2), each with the balance after it.
fn bonus_fund<W: Write>(
    conn: &mut DbConnection,
    range: &Range,
    out: Sink<W>,
) -> anyhow::Result<u64> {
    let mut table = out.table(
        ExportKind::BonusFund,
        columns(&[
            "id",
            "recorded_at",
            "cents",
            "balance_cents",
            "unclaimed_movement",
            "game",
        ]),
    )?;
    let (from, to) = range.window;
    for m in crate::bonus_fund::history(conn)?.movements {
        if !(from..to).contains(&m.at) {
            continue;
        }
        table.row(vec![
            m.id.into(),
            m.recorded_at.into(),
            m.cents.into(),
            m.balance_cents.into(),
            m.unclaimed_movement.into(),
            m.game.into(),
        ])?;
    }
    table.finish()
}

/// Writers' shifts opened in the range's hours (issue 17): who, where, the float, each kind of
/// cash taken and given, the expected cash, the count, over/short and the sign-off.
fn shifts<W: Write>(conn: &mut DbConnection, range: &Range, out: Sink<W>) -> anyhow::Result<u64> {
    let mut table = out.table(
        ExportKind::Shifts,
        columns(&[
            "shift",
            "keno_day",
            "staff_id",
            "site",
            "terminal",
            "state",
            "opened_at",
            "float_cents",
            "sales_cash_cents",
            "voucher_deposits_cents",
            "tender_change_cents",
            "refunds_cents",
            "prizes_cash_cents",
            "voucher_cash_outs_cents",
            "expected_cents",
            "closed_at",
            "counted_cents",
            "over_short_cents",
            "sign_off_required",
            "signed_off_by",
            "signed_off_at",
            "sign_off_reason",
        ]),
    )?;
    for s in queries::shifts(conn, range.window)? {
        let (r, c) = (&s.row, &s.cash);
        let cents = |v: u64| Cell::from(v as i64);
        table.row(vec![
            r.id.into(),
            r.keno_day.clone().into(),
            r.principal_id.clone().into(),
            r.site.clone().into(),
            r.terminal.clone().into(),
            s.state().into(),
            time(Some(r.opened_at)),
            r.float_cents.into(),
            cents(c.sales_cash_cents),
            cents(c.voucher_deposits_cents),
            cents(c.tender_change_cents),
            cents(c.refunds_cents),
            cents(c.prizes_cash_cents),
            cents(c.voucher_cash_outs_cents),
            s.expected_cents.into(),
            time(r.closed_at),
            r.counted_cents.into(),
            r.over_short_cents.into(),
            r.sign_off_required.into(),
            r.signed_off_by.clone().into(),
            time(r.signed_off_at),
            r.sign_off_reason.clone().into(),
        ])?;
    }
    table.finish()
}

fn results<W: Write>(conn: &mut DbConnection, range: &Range, out: Sink<W>) -> anyhow::Result<u64> {
    let mut table = out.table(
        ExportKind::Results,
        columns(&["game", "serial", "prize_cents", "major"]),
    )?;
    if let Some((lo, hi)) = range.games {
        // From the tickets covering the range (found by the `tickets_games` index) to their
        // results by primary key.
        type Row = (i64, String, i64, bool);
        for_each_row!(
            conn,
            tickets::table
                .inner_join(ticket_results::table.on(ticket_results::serial.eq(tickets::serial)))
                .filter(tickets::last_game.ge(lo))
                .filter(tickets::first_game.le(hi))
                .filter(ticket_results::game.between(lo, hi))
                .order((ticket_results::game, ticket_results::serial))
                .select((
                    ticket_results::game,
                    ticket_results::serial,
                    ticket_results::prize_cents,
                    ticket_results::major,
                )),
            Row,
            |row| {
                let (game, serial, prize, major) = row;
                table.row(vec![game.into(), serial.into(), prize.into(), major.into()])?;
            }
        );
    }
    table.finish()
}
