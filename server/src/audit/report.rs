//! `keno-server audit report`: the daily report of one Keno Day as a PDF (A4): games drawn,
//! sales, prizes, pro-rated games, voids and faults, cancellations, payments and late pays,
//! jackpot movements, invalidations and refunds, the bonus fund, and writers' shifts with
//! their totals per writer and per terminal.

use keno_core::GameState;
use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Context;
use chrono::NaiveDate;
use clap::Args;
use diesel::prelude::*;
use keno_core::money::Dollars;
use keno_core::TicketStatus;

use super::pdf::{self, Line, WIDTH_CHARS};
use super::queries::{self, Cancellation, Fault, GameRecord, Payment, PoolRow, ShiftLine};
use super::source::{self, for_each_row, sold_in, Days, People, Range, Source, SourceArgs, Span};
use crate::db::schema::tickets;
use crate::db::DbConnection;

#[derive(Debug, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    /// The Keno Day (YYYY-MM-DD).
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub day: String,
    /// The PDF file to write.
    #[arg(long, value_name = "FILE.pdf")]
    pub out: PathBuf,
}

pub fn run(args: ReportArgs) -> anyhow::Result<()> {
    let day = source::parse_day(&args.day)?;
    let source = Source::open(&args.source)?;
    let daily = source.read(|conn| Daily::read(source.days(), conn, day))?;
    let bytes = daily.pdf(source.backend_name(), crate::db::now_micros());
    std::fs::write(&args.out, bytes)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    println!("{}", args.out.display());
    Ok(())
}

/// Tickets and cents.
#[derive(Clone, Copy, Debug, Default)]
struct Count {
    tickets: i64,
    cents: i64,
}

impl Count {
    fn add(&mut self, cents: i64) {
        self.tickets += 1;
        self.cents += cents;
    }
}

#[derive(Default)]
struct Sales {
    all: Count,
    by_bet_type: BTreeMap<String, Count>,
    by_schedule: BTreeMap<String, Count>,
    cancelled: Count,
}

impl Sales {
    /// The tickets sold in the games of `range`, by bet type and schedule, and those cancelled.
    fn read(conn: &mut DbConnection, range: &Range) -> anyhow::Result<Sales> {
        let mut sales = Sales::default();
        let Some((lo, hi)) = range.games else {
            return Ok(sales);
        };
        type Row = (String, String, i64, Option<i64>, i64);
        for_each_row!(
            conn,
            tickets::table.filter(sold_in(lo, hi)).select((
                tickets::bet_type,
                tickets::schedule,
                tickets::total_cents,
                tickets::cancelled_at,
                tickets::refund_cents,
            )),
            Row,
            |row| {
                let (bet_type, schedule, total, cancelled_at, refund) = row;
                sales.all.add(total);
                sales.by_bet_type.entry(bet_type).or_default().add(total);
                sales.by_schedule.entry(schedule).or_default().add(total);
                if cancelled_at.is_some() {
                    sales.cancelled.add(refund);
                }
            }
        );
        Ok(sales)
    }
}

#[derive(Default)]
struct Payments {
    all: Count,
    by_method: BTreeMap<String, Count>,
    /// Of the payments made in parts (rule 12.2), what each method paid.
    in_parts: BTreeMap<String, Count>,
    late: Vec<Payment>,
}

/// Of the payments made in `window` in parts (rule 12.2), what each method paid.
fn in_parts(
    conn: &mut DbConnection,
    window: (i64, i64),
) -> anyhow::Result<BTreeMap<String, Count>> {
    let mut by_method: BTreeMap<String, Count> = BTreeMap::new();
    for parts in queries::payment_parts(conn, window)?.values() {
        if parts.len() > 1 {
            for (method, cents) in parts {
                by_method.entry(method.clone()).or_default().add(*cents);
            }
        }
    }
    Ok(by_method)
}

/// Everything the report shows, read in one snapshot.
pub struct Daily {
    day: NaiveDate,
    range: Range,
    people: People,
    games: Vec<GameRecord>,
    faults: Vec<Fault>,
    pools: Vec<PoolRow>,
    refunds: BTreeMap<i64, (i64, i64)>,
    sales: Sales,
    cancellations: Vec<Cancellation>,
    payments: Payments,
    /// The bonus fund's movements up to the end of the day, with the balance after each.
    fund: Vec<crate::bonus_fund::FundMovement>,
    /// Writers' shifts opened in the day's hours, each with its drawer.
    shifts: Vec<ShiftLine>,
    /// The day's last signed checkpoint of the audit trail (its closing one once the day ended).
    checkpoint: Option<crate::audit::anchor::Checkpoint>,
    /// The return to players of the tickets sold on the day, actual and theoretical.
    returns: super::returns::Returns,
}

impl Daily {
    /// Keno Day `day` as `conn` sees the record (the caller's read-only snapshot): the command
    /// and `GET /api/v1/audit/report.pdf` both read it here.
    pub fn read(days: &Days, conn: &mut DbConnection, day: NaiveDate) -> anyhow::Result<Daily> {
        let range = Range::resolve(days, conn, Span::Days(day, day))?;
        let people = People::load(conn)?;
        let (games, faults, pools, refunds) = match range.games {
            Some((lo, hi)) => (
                queries::games(conn, lo, hi)?,
                queries::faults(conn, lo, hi)?,
                queries::pools(conn, lo, hi)?,
                queries::refunds_by_game(conn, lo, hi)?,
            ),
            None => Default::default(),
        };
        let sales = Sales::read(conn, &range)?;
        let cancellations = queries::cancellations(conn, range.window)?;
        let mut payments = Payments {
            in_parts: in_parts(conn, range.window)?,
            ..Payments::default()
        };
        queries::for_each_payment(conn, range.window, |p| {
            payments.all.add(p.paid_cents);
            let method = p.pay_method.clone().ok_or_else(|| {
                anyhow::anyhow!(
                    "ticket {}: paid, with no method of payment stored",
                    p.serial
                )
            })?;
            payments
                .by_method
                .entry(method)
                .or_default()
                .add(p.paid_cents);
            if source::day_text(days.day_of(p.paid_at)) > p.payable_day {
                payments.late.push(p);
            }
            Ok(())
        })?;
        let fund = crate::bonus_fund::history(conn)?
            .movements
            .into_iter()
            .filter(|m| m.at < range.window.1)
            .collect();
        let shifts = queries::shifts(conn, range.window)?;
        let checkpoint = crate::audit::anchor::last_of_day(conn, &source::day_text(day))?;
        let returns = super::returns::read(conn, Some((day, day)))?;
        Ok(Daily {
            returns,
            checkpoint,
            shifts,
            fund,
            day,
            range,
            people,
            games,
            faults,
            pools,
            refunds,
            sales,
            cancellations,
            payments,
        })
    }

    /// The report as a PDF (A4), read from the `backend` database at `now`.
    pub fn pdf(&self, backend: &str, now: i64) -> Vec<u8> {
        let day = source::day_text(self.day);
        let footer = format!(
            "Keno daily report, Keno Day {day}, read {}",
            source::when(now)
        );
        pdf::render(
            &format!("Keno daily report {day}"),
            &footer,
            &self.lines(backend),
        )
    }

    fn lines(&self, backend: &str) -> Vec<Line> {
        let mut out = Report(Vec::new());
        let day = source::day_text(self.day);
        out.push(Line::Title(format!("KENO DAILY REPORT - KENO DAY {day}")));
        out.text(format!(
            "Read from the {backend} database. Payments and cancellations counted from {} to {} (local time).",
            source::when(self.range.window.0),
            source::when(self.range.window.1)
        ));
        out.text("Money in dollars and cents; times in local time.".into());
        self.games_section(&mut out);
        self.sales_section(&mut out);
        self.prizes_section(&mut out);
        self.faults_section(&mut out);
        self.cancellations_section(&mut out);
        self.payments_section(&mut out);
        self.jackpots_section(&mut out);
        self.invalidations_section(&mut out);
        self.fund_section(&mut out);
        self.shifts_section(&mut out);
        self.checkpoint_section(&mut out);
        self.returns_section(&mut out);
        out.0
    }

    /// The actual return against the theoretical of the day's tickets (issue 35; Ontario
    /// 17.1.7(b)): as `keno-server audit return --from DAY` prints it.
    fn returns_section(&self, out: &mut Report) {
        use super::returns::percent;
        out.heading("12. RETURN TO PLAYERS, ACTUAL AND THEORETICAL");
        out.text(
            "Tickets sold on the day whose games are all final; prizes as settled, bonus prizes \
             and jackpot shares included."
                .into(),
        );
        out.push(Line::Columns(format!(
            "{:<10} {:>5} {:>8} {:>10} {:>15} {:>15} {:>8} {:>11}",
            "SCHEDULE", "SPOTS", "TICKETS", "WAYS", "STAKE", "PRIZES", "ACTUAL", "THEORETICAL"
        )));
        for r in &self.returns.rows {
            out.text(format!(
                "{:<10} {:>5} {:>8} {:>10} {:>15} {:>15} {:>8} {:>11}",
                r.schedule,
                r.spots,
                r.tickets,
                r.ways,
                money(r.stake_cents),
                money(r.prizes_cents),
                percent(r.actual),
                percent(r.theoretical)
            ));
        }
        out.text(format!(
            "Left out: {} tickets with a game still to be drawn or settled, {} voided (rule 17.2).",
            self.returns.unfinished, self.returns.voided
        ));
    }

    /// The day's last signed checkpoint (issue 20): what an auditor compares with the
    /// checkpoint file and `audit verify --public-key`.
    fn checkpoint_section(&self, out: &mut Report) {
        out.heading("11. THE AUDIT TRAIL'S CHECKPOINT");
        let Some(c) = &self.checkpoint else {
            out.text("No checkpoint of the trail was made in this Keno Day.".into());
            return;
        };
        out.text(format!(
            "Checkpoint {} ({}), made {} by {}: the trail to entry {}, whose hash is {}.",
            c.n,
            c.reason,
            source::when(c.made_at),
            c.instance,
            c.seq,
            c.hash
        ));
        out.text(format!("Signed with Ed25519 public key {}:", c.public_key));
        out.text(c.signature.clone());
    }

    fn games_section(&self, out: &mut Report) {
        out.heading("1. GAMES DRAWN");
        let Some((lo, hi)) = self.range.games else {
            out.text("No games on this Keno Day.".into());
            return;
        };
        let in_state = |s: GameState| self.games.iter().filter(|g| g.row.state == s).count();
        let void_draws: i64 = self
            .games
            .iter()
            .map(|g| i64::from(g.row.draw_attempt - 1))
            .sum();
        out.text(format!(
            "Games: {}, numbers {lo} to {hi}.  Settled: {}.  Invalidated: {}.  Not finished: {}.",
            self.games.len(),
            in_state(GameState::Settled),
            in_state(GameState::Invalidated),
            self.games.len() - in_state(GameState::Settled) - in_state(GameState::Invalidated),
        ));
        out.text(format!(
            "Void draws (drawn again): {void_draws}.  Faults recorded: {}.",
            self.faults.len()
        ));
        out.blank();
        out.push(Line::Columns(format!(
            "{:>8}  {:<11}  {:<6}  {:>3}  NUMBERS DRAWN (IN ORDER)",
            "GAME", "STATE", "MODE", "ATT"
        )));
        for g in &self.games {
            out.text(format!(
                "{:>8}  {:<11}  {:<6}  {:>3}  {}",
                g.row.number,
                g.row.state,
                g.row.draw_mode,
                g.row.draw_attempt,
                numbers(&g.drawn)
            ));
        }
    }

    fn sales_section(&self, out: &mut Report) {
        out.heading("2. SALES");
        let s = &self.sales;
        out.text(format!("Tickets sold:       {:>12}", s.all.tickets));
        out.text(format!("Sales:              {:>12}", money(s.all.cents)));
        out.text(format!(
            "Cancelled:          {:>12}  tickets, refunded {}",
            s.cancelled.tickets,
            money(s.cancelled.cents)
        ));
        out.text(format!(
            "Net sales:          {:>12}",
            money(s.all.cents - s.cancelled.cents)
        ));
        for (title, map) in [("BET TYPE", &s.by_bet_type), ("SCHEDULE", &s.by_schedule)] {
            out.blank();
            out.push(Line::Columns(format!(
                "{title:<18}  {:>12}  {:>14}",
                "TICKETS", "AMOUNT"
            )));
            for (name, c) in map {
                out.text(format!(
                    "{name:<18}  {:>12}  {:>14}",
                    c.tickets,
                    money(c.cents)
                ));
            }
        }
    }

    fn prizes_section(&self, out: &mut Report) {
        out.heading("3. PRIZES");
        let settled: Vec<_> = self
            .games
            .iter()
            .filter_map(|g| g.settlement.as_ref())
            .collect();
        let total: i64 = settled.iter().map(|s| s.totals.total_prizes_cents).sum();
        let majors: i64 = settled.iter().map(|s| s.totals.major_prizes).sum();
        out.text(format!(
            "Prizes won: {} in {} settled games; major prizes ($200 or more a way): {majors}.",
            money(total),
            settled.len()
        ));
        if !settled.is_empty() {
            out.blank();
            out.push(Line::Columns(format!(
                "{:>8}  {:>10}  {:>16}  {:>6}  PRO-RATED",
                "GAME", "WAYS", "PRIZES", "MAJOR"
            )));
            for s in &settled {
                out.text(format!(
                    "{:>8}  {:>10}  {:>16}  {:>6}  {}",
                    s.game,
                    s.totals.ways,
                    money(s.totals.total_prizes_cents),
                    s.totals.major_prizes,
                    if s.totals.prorated { "yes" } else { "" }
                ));
            }
        }
        out.subheading("Pro-rated games (rules 12.3-12.5)");
        let prorated: Vec<_> = settled.iter().filter(|s| s.totals.prorated).collect();
        if prorated.is_empty() {
            out.text("None.".into());
            return;
        }
        out.push(Line::Columns(format!(
            "{:>8}  {:>6}  {:>18}  {:>18}  $200 FLOOR FOR ALL",
            "GAME", "MAJOR", "BEFORE", "AFTER"
        )));
        for s in prorated {
            out.text(format!(
                "{:>8}  {:>6}  {:>18}  {:>18}  {}",
                s.game,
                s.totals.major_prizes,
                money(s.totals.prorate_before_cents),
                money(s.totals.prorate_after_cents),
                if s.totals.floor_binds_for_all {
                    "yes"
                } else {
                    "no"
                }
            ));
        }
    }

    fn faults_section(&self, out: &mut Report) {
        out.heading("4. VOIDS AND FAULTS (RULE 10)");
        if self.faults.is_empty() {
            out.text("None.".into());
            return;
        }
        for f in &self.faults {
            let r = &f.row;
            let ball = r.number.map(|n| format!(", ball {n}")).unwrap_or_default();
            out.wrapped(format!(
                "{}  game {} attempt {}: {}{ball}; {} ball(s) taken out of the record",
                source::when(r.recorded_at),
                r.game,
                r.attempt,
                queries::fault_kind(&r.kind),
                f.voided_balls
            ));
            let device = r
                .device_id
                .as_deref()
                .filter(|d| *d != r.principal_id)
                .map(|d| format!("; device {}", self.people.name(d)))
                .unwrap_or_default();
            out.wrapped(format!(
                "    reported by {}{device}; why: {}",
                self.people.who(Some(&r.principal_id)),
                r.reason
            ));
        }
    }

    fn cancellations_section(&self, out: &mut Report) {
        out.heading("5. CANCELLATIONS (RULE 8)");
        let refunds: i64 = self.cancellations.iter().map(|c| c.refund_cents).sum();
        out.text(format!(
            "Cancelled this Keno Day: {} ticket(s), refunded {}.",
            self.cancellations.len(),
            money(refunds)
        ));
        if self.cancellations.is_empty() {
            return;
        }
        out.blank();
        out.push(Line::Columns(format!(
            "{:<19} {:<20} {:<9} {:<5} {:<11} {:>9} {:>10}  BY",
            "WHEN", "SERIAL", "TERMINAL", "WHAT", "GAMES", "TICKET", "REFUND"
        )));
        let day = source::day_text(self.day);
        for c in &self.cancellations {
            let from = c.cancelled_from_game.unwrap_or(c.first_game);
            out.text(format!(
                "{:<19} {:<20} {:<9} {:<5} {:<11} {:>9} {:>10}  {}",
                source::when(c.cancelled_at),
                c.serial,
                format!("{}/{}", c.site, c.terminal),
                if c.status == TicketStatus::Cancelled {
                    "whole"
                } else {
                    "part"
                },
                games_span(from, c.last_game),
                money(c.total_cents),
                money(c.refund_cents),
                c.cancelled_by
                    .as_deref()
                    .map_or_else(|| "not recorded".to_string(), |p| self.people.name(p))
            ));
            if c.keno_day != day {
                out.text(format!(
                    "        sold on Keno Day {}: cancelled on a later Keno Day (rule 8.3)",
                    c.keno_day
                ));
            }
        }
    }

    fn payments_section(&self, out: &mut Report) {
        out.heading("6. PAYMENTS AND LATE PAYS");
        let p = &self.payments;
        out.text(format!(
            "Paid this Keno Day: {} ticket(s), {}.",
            p.all.tickets,
            money(p.all.cents)
        ));
        for (method, c) in &p.by_method {
            out.text(format!(
                "  by {method:<8} {:>8} ticket(s)  {:>14}",
                c.tickets,
                money(c.cents)
            ));
        }
        if !p.in_parts.is_empty() {
            out.text(
                "  of which paid in parts (rule 12.2: minor wins in cash, major prizes by cheque):"
                    .into(),
            );
            for (method, c) in &p.in_parts {
                out.text(format!("    {method:<8} {:>22}", money(c.cents)));
            }
        }
        out.subheading("Late pays: paid on a later Keno Day than the ticket's last game");
        if p.late.is_empty() {
            out.text("None.".into());
            return;
        }
        out.push(Line::Columns(format!(
            "{:<19}  {:<20}  {:<10}  {:>8}  {:>12}  {:<6}  BY",
            "PAID", "SERIAL", "GAME DAY", "GAME", "PAID", "METHOD"
        )));
        for l in &p.late {
            out.text(format!(
                "{:<19}  {:<20}  {:<10}  {:>8}  {:>12}  {:<6}  {}",
                source::when(l.paid_at),
                l.serial,
                l.payable_day,
                l.last_played_game,
                money(l.paid_cents),
                l.pay_method.as_deref().unwrap_or(""),
                l.paid_by
                    .as_deref()
                    .map_or_else(|| "not recorded".to_string(), |p| self.people.name(p))
            ));
        }
    }

    fn jackpots_section(&self, out: &mut Report) {
        out.heading("7. JACKPOT MOVEMENTS (RULES 7, 12.6)");
        if self.pools.is_empty() {
            out.text("No jackpot pool moved (no settled game).".into());
            return;
        }
        out.push(Line::Columns(format!(
            "{:>8} {:>5} {:>13} {:>12} {:>13} {:>7} {:>13} {:>8} {:>13}",
            "GAME", "SPOTS", "CARRIED IN", "ADDED", "POOL", "WINNERS", "PAID", "BREAKAGE", "NEXT"
        )));
        for p in &self.pools {
            out.text(format!(
                "{:>8} {:>5} {:>13} {:>12} {:>13} {:>7} {:>13} {:>8} {:>13}",
                p.game,
                p.spots,
                money(p.carried_in_cents),
                money(p.contributions_cents),
                money(p.pool_cents),
                p.winners,
                money(p.paid_cents),
                money(p.breakage_cents),
                money(p.next_pool_cents)
            ));
        }
    }

    /// Rule 13.2: the day's movements of the bonus fund and its balance at the day's end.
    fn fund_section(&self, out: &mut Report) {
        out.heading("9. BONUS FUND (RULE 13.2)");
        let today: Vec<_> = self
            .fund
            .iter()
            .filter(|m| m.at >= self.range.window.0)
            .collect();
        for m in &today {
            let what = match (m.unclaimed_movement, m.game) {
                (Some(u), _) => format!("unclaimed prizes moved in (movement {u})"),
                (None, Some(g)) => format!("funded bonus prizes of game {g}"),
                (None, None) => "movement".to_string(),
            };
            out.text(format!(
                "{:>13}  {what}; balance {}",
                money(m.cents),
                money(m.balance_cents)
            ));
        }
        let balance = self.fund.last().map_or(0, |m| m.balance_cents);
        out.text(format!(
            "{} movement(s) today; the fund holds {} at the end of the day.",
            today.len(),
            money(balance)
        ));
    }

    fn invalidations_section(&self, out: &mut Report) {
        out.heading("8. INVALIDATIONS AND REFUNDS (RULE 17.3)");
        let invalidated: Vec<_> = self
            .games
            .iter()
            .filter_map(|g| g.invalidation.as_ref())
            .collect();
        let (tickets, cents) = self
            .refunds
            .values()
            .fold((0, 0), |(t, c), (ti, ci)| (t + ti, c + ci));
        out.text(format!(
            "Games invalidated: {}; wagers refunded: {tickets} ticket(s), {}.",
            invalidated.len(),
            money(cents)
        ));
        for i in invalidated {
            let (t, c) = self.refunds.get(&i.game).copied().unwrap_or_default();
            out.blank();
            out.wrapped(format!(
                "Game {} invalidated {} by {}: {t} ticket(s) refunded {}.",
                i.game,
                source::when(i.invalidated_at),
                super::exceptions::invalidated_by(&self.people, i.principal_id.as_deref()),
                money(c)
            ));
            out.wrapped(format!("    why: {}", i.reason));
        }
    }
}

/// A shift's figures, or the sum of several: floats, cash in and out, expected, counted,
/// over/short.
#[derive(Clone, Copy, Default)]
struct Drawer {
    shifts: i64,
    float: i64,
    cash_in: i64,
    cash_out: i64,
    expected: i64,
    counted: i64,
    over_short: i64,
}

impl Drawer {
    fn add(&mut self, s: &ShiftLine) {
        self.shifts += 1;
        self.float += s.row.float_cents;
        self.cash_in += s.cash_in();
        self.cash_out += s.cash_out();
        self.expected += s.expected_cents;
        self.counted += s.row.counted_cents.unwrap_or(0);
        self.over_short += s.row.over_short_cents.unwrap_or(0);
    }

    fn columns(&self) -> String {
        format!(
            "{:>11} {:>11} {:>11} {:>11} {:>11} {:>11}",
            money(self.float),
            money(self.cash_in),
            money(self.cash_out),
            money(self.expected),
            money(self.counted),
            money(self.over_short)
        )
    }
}

const DRAWER_COLUMNS: &str =
    "      FLOAT     CASH IN    CASH OUT    EXPECTED     COUNTED  OVER/SHORT";

impl Daily {
    /// Writers' shifts (issue 17): each shift's drawer, then totals per writer and per
    /// terminal. An open shift counts what it should hold so far, and nothing counted.
    fn shifts_section(&self, out: &mut Report) {
        out.heading("10. SHIFTS AND DRAWERS");
        if self.shifts.is_empty() {
            out.text("No shift opened.".into());
            return;
        }
        out.push(Line::Columns(format!(
            "{:>4} {:<8} {:<9} {DRAWER_COLUMNS} STATE",
            "SHIFT", "WRITER", "TERMINAL"
        )));
        let mut writers: BTreeMap<String, Drawer> = BTreeMap::new();
        let mut terminals: BTreeMap<String, Drawer> = BTreeMap::new();
        for s in &self.shifts {
            let mut one = Drawer::default();
            one.add(s);
            let writer = self.people.name(&s.row.principal_id);
            let terminal = format!("{}/{}", s.row.site, s.row.terminal);
            out.text(format!(
                "{:>4} {writer:<8} {terminal:<9} {} {}",
                s.row.id,
                one.columns(),
                match s.row.state() {
                    keno_core::ShiftState::Open => "open",
                    keno_core::ShiftState::AwaitingSignOff => "sign-off",
                    keno_core::ShiftState::Closed => "closed",
                }
            ));
            writers.entry(writer).or_default().add(s);
            terminals.entry(terminal).or_default().add(s);
        }
        for (title, totals) in [("WRITER", &writers), ("TERMINAL", &terminals)] {
            out.subheading(&format!("Totals per {}", title.to_lowercase()));
            out.push(Line::Columns(format!(
                "{title:<10} {:>6} {DRAWER_COLUMNS}",
                "SHIFTS"
            )));
            for (name, d) in totals {
                out.text(format!("{name:<10} {:>6} {}", d.shifts, d.columns()));
            }
        }
    }
}

/// The report's lines as they are added.
struct Report(Vec<Line>);

impl Report {
    fn push(&mut self, line: Line) {
        self.0.push(line);
    }

    fn heading(&mut self, text: &str) {
        self.0.push(Line::Heading(text.to_string()));
    }

    fn subheading(&mut self, text: &str) {
        self.0.push(Line::Blank);
        self.0.push(Line::Columns(text.to_string()));
    }

    fn text(&mut self, text: String) {
        self.wrapped(text);
    }

    /// Text longer than a line goes on under itself, indented.
    fn wrapped(&mut self, text: String) {
        for l in pdf::wrap(&text, WIDTH_CHARS, 8) {
            self.0.push(Line::Text(l));
        }
    }

    fn blank(&mut self) {
        self.0.push(Line::Blank);
    }
}

/// Cents as dollars: "$1,234.50" (a negative amount with a minus sign).
pub fn money(cents: i64) -> String {
    let dollars = Dollars(cents.unsigned_abs()).to_string();
    if cents < 0 {
        format!("-{dollars}")
    } else {
        dollars
    }
}

/// Numbers as two digits each, in order: "04 11 23".
fn numbers(drawn: &[i64]) -> String {
    drawn
        .iter()
        .map(|n| format!("{n:02}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn games_span(from: i64, to: i64) -> String {
    if from == to {
        from.to_string()
    } else {
        format!("{from}-{to}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_and_numbers_read_as_printed() {
        assert_eq!(money(123_456), "$1,234.56");
        assert_eq!(money(-300), "-$3.00");
        assert_eq!(numbers(&[4, 11, 80]), "04 11 80");
        assert_eq!(games_span(5, 5), "5");
        assert_eq!(games_span(5, 7), "5-7");
    }
}
