//! `keno-server audit return`: the actual return to players against the theoretical, per
//! schedule and spot count (Kentucky 820 KAR 1:110; Ontario 17.1.7(b)), over the tickets sold
//! on a span of Keno Days.
//!
//! A ticket counts once every game it plays is final (settled or invalidated): its stake is
//! what it was charged less every refund (a cancellation, rule 8; an invalidated game, 17.3),
//! shared among its ways by their number (each way costs the same); its prizes are every way's
//! prize as settled (pro-rated, jackpot shares included) and every bonus prize. A ticket voided
//! for cheating (17.2) is left out: its prizes are withheld. The theoretical return is keno-core's
//! exact one for the rule set each ticket was sold under (prizes over the wager, the jackpot's
//! contribution included).

use std::collections::{BTreeMap, HashMap};

use chrono::NaiveDate;
use clap::Args;
use diesel::prelude::*;
use keno_core::{GameState, RuleSet, ScheduleId, TicketStatus};
use serde::Serialize;

use super::source::{self, Source, SourceArgs};
use crate::db::schema::{games, tickets};
use crate::db::DbConnection;
use crate::rule_sets::RuleSets;
use crate::tickets::view::GameResult;
use crate::tickets::TicketRow;

#[derive(Debug, Args)]
pub struct ReturnArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    /// The first Keno Day of sales (YYYY-MM-DD); without it, from the first.
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub from: Option<String>,
    /// The last Keno Day of sales (YYYY-MM-DD); without it, `--from` alone, or to the last.
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub to: Option<String>,
    /// JSON rows instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// One schedule and spot count.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ReturnRow {
    /// standard | special1 | special2 | special3 | jackpot: as the ticket was sold.
    pub schedule: String,
    pub spots: u8,
    /// Tickets with ways of this schedule and spot count.
    pub tickets: u64,
    /// Ways played: each way once for each game it played.
    pub ways: u64,
    pub stake_cents: i64,
    /// Prizes as settled, bonus prizes and jackpot shares included.
    pub prizes_cents: i64,
    /// Prizes over stake; none without a stake.
    pub actual: Option<f64>,
    /// keno-core's exact return, weighted by stake where the tickets' rule sets differ.
    pub theoretical: Option<f64>,
}

/// The table, and what it leaves out.
#[derive(Debug, Default)]
pub struct Returns {
    pub rows: Vec<ReturnRow>,
    /// Tickets with a game still to be drawn or settled.
    pub unfinished: u64,
    /// Tickets voided for cheating (rule 17.2).
    pub voided: u64,
}

pub fn run(args: ReturnArgs) -> anyhow::Result<()> {
    let span = span(args.from.as_deref(), args.to.as_deref())?;
    let source = Source::open(&args.source)?;
    let returns = source.read(|conn| read(conn, span))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&returns.rows)?);
    } else {
        print!("{}", render(&returns, span));
    }
    Ok(())
}

/// The Keno Days asked: none for the whole record.
fn span(from: Option<&str>, to: Option<&str>) -> anyhow::Result<Option<(NaiveDate, NaiveDate)>> {
    let parse = |d: &str| source::parse_day(d).map_err(anyhow::Error::msg);
    Ok(match (from, to) {
        (None, None) => None,
        (Some(f), None) => Some((parse(f)?, parse(f)?)),
        (None, Some(t)) => Some((NaiveDate::MIN, parse(t)?)),
        (Some(f), Some(t)) => {
            let (f, t) = (parse(f)?, parse(t)?);
            anyhow::ensure!(f <= t, "--from {f} is after --to {t}");
            Some((f, t))
        }
    })
}

/// A row being summed.
#[derive(Default)]
struct Sum {
    tickets: u64,
    ways: u64,
    stake: i64,
    prizes: i64,
    /// Stake by rule set, for the theoretical return.
    stake_by_rules: HashMap<String, i64>,
}

/// Tickets read at once: the prizes of each are read between pages, on the same snapshot.
const PAGE: i64 = 1_000;

/// The return over the tickets sold on the Keno Days of `span` (all, if none).
pub fn read(
    conn: &mut DbConnection,
    span: Option<(NaiveDate, NaiveDate)>,
) -> anyhow::Result<Returns> {
    let final_up_to = last_final_game(conn)?;
    let rules = RuleSets::from_database();
    let mut sums: BTreeMap<(ScheduleId, u8), Sum> = BTreeMap::new();
    let mut returns = Returns::default();
    let (from, to) = span.map_or((String::new(), "9999-12-31".to_string()), |(f, t)| {
        (source::day_text(f), source::day_text(t))
    });
    let mut after = String::new();
    loop {
        let page: Vec<TicketRow> = tickets::table
            .filter(tickets::keno_day.between(&from, &to))
            .filter(tickets::serial.gt(&after))
            .order(tickets::serial)
            .limit(PAGE)
            .select(TicketRow::as_select())
            .load(conn)?;
        let Some(last) = page.last() else { break };
        after = last.serial.clone();
        for t in &page {
            if t.status == TicketStatus::Voided {
                returns.voided += 1;
            } else if t.last_played_game() > final_up_to {
                returns.unfinished += 1;
            } else {
                let results = crate::tickets::view::game_results(&rules, conn, t)?;
                let sold_under = rules.get(conn, &t.rule_set)?;
                add_ticket(&mut sums, t, &results, &sold_under)?;
            }
        }
    }
    returns.rows = rows(sums, &rules, conn)?;
    Ok(returns)
}

/// Ticket `t`, its games all final, into the rows of its schedule and spot counts: its ways
/// (from the rule set it was sold under), its stake shared among them, and its prizes as each
/// game's result gives them (the ticket's view: bonus prizes within the ways' prizes).
fn add_ticket(
    sums: &mut BTreeMap<(ScheduleId, u8), Sum>,
    t: &TicketRow,
    results: &[GameResult],
    sold_under: &RuleSet,
) -> anyhow::Result<()> {
    let plan = t.plan(sold_under)?;
    let mut ways_by_spots: BTreeMap<u8, u64> = BTreeMap::new();
    for w in &plan.ways {
        *ways_by_spots.entry(w.spots()).or_default() += 1;
    }
    let all_ways: u64 = ways_by_spots.values().sum();
    let refunded: i64 = results.iter().map(|r| r.refund_cents as i64).sum();
    let played = || {
        results
            .iter()
            .filter(|r| r.state == GameState::Settled.as_str() && !r.voided)
    };
    let games_played = played().count() as u64;
    let mut prizes_by_spots: BTreeMap<u8, i64> = BTreeMap::new();
    for way in played().flat_map(|r| &r.ways) {
        *prizes_by_spots.entry(way.spots).or_default() += way.prize_cents as i64;
    }
    let stake = t.total_cents - t.refund_cents - refunded;
    let shares = shares(stake, &ways_by_spots, all_ways);
    for ((spots, ways), share) in ways_by_spots.iter().zip(shares) {
        let sum = sums.entry((plan.schedule, *spots)).or_default();
        sum.tickets += 1;
        sum.ways += ways * games_played;
        sum.stake += share;
        sum.prizes += prizes_by_spots.get(spots).copied().unwrap_or(0);
        *sum.stake_by_rules.entry(t.rule_set.clone()).or_default() += share;
    }
    Ok(())
}

/// `stake` shared among the spot counts by their ways, to the cent: the cents the shares leave
/// over go to the first.
fn shares(stake: i64, ways_by_spots: &BTreeMap<u8, u64>, all_ways: u64) -> Vec<i64> {
    if all_ways == 0 {
        return vec![0; ways_by_spots.len()];
    }
    let mut out: Vec<i64> = ways_by_spots
        .values()
        .map(|w| (i128::from(stake) * i128::from(*w) / i128::from(all_ways)) as i64)
        .collect();
    let left = stake - out.iter().sum::<i64>();
    if let Some(first) = out.first_mut() {
        *first += left;
    }
    out
}

fn rows(
    sums: BTreeMap<(ScheduleId, u8), Sum>,
    rules: &RuleSets,
    conn: &mut DbConnection,
) -> anyhow::Result<Vec<ReturnRow>> {
    let mut out = Vec::with_capacity(sums.len());
    for ((schedule, spots), sum) in sums {
        // keno-core's exact return of each rule set the row's tickets were sold under.
        let mut each = Vec::new();
        for (hash, stake) in &sum.stake_by_rules {
            let exact = rules
                .get(conn, hash)?
                .theoretical_return(schedule, spots)
                .map(|r| r.total())
                .map(|t| t.numerator as f64 / t.denominator as f64);
            each.push((exact, *stake));
        }
        let theoretical = match each.as_slice() {
            [(exact, _)] => *exact,
            _ if sum.stake > 0 && each.iter().all(|(e, _)| e.is_some()) => Some(
                each.iter()
                    .map(|(e, s)| e.unwrap_or(0.0) * *s as f64)
                    .sum::<f64>()
                    / sum.stake as f64,
            ),
            _ => None,
        };
        out.push(ReturnRow {
            schedule: schedule.key().to_string(),
            spots,
            tickets: sum.tickets,
            ways: sum.ways,
            stake_cents: sum.stake,
            prizes_cents: sum.prizes,
            actual: (sum.stake > 0).then(|| sum.prizes as f64 / sum.stake as f64),
            theoretical,
        });
    }
    Ok(out)
}

/// The highest game number at and below which every game is final: games are settled in
/// order, so a ticket whose last game is at or below it has all its results.
fn last_final_game(conn: &mut DbConnection) -> anyhow::Result<i64> {
    let unfinished: Option<i64> = games::table
        .filter(games::state.ne_all([GameState::Settled.as_str(), GameState::Invalidated.as_str()]))
        .select(diesel::dsl::min(games::number))
        .first(conn)?;
    let highest: Option<i64> = games::table
        .select(diesel::dsl::max(games::number))
        .first(conn)?;
    Ok(match unfinished {
        Some(n) => n - 1,
        None => highest.unwrap_or(0),
    })
}

/// The table for people, with what it leaves out said in words.
pub fn render(returns: &Returns, span: Option<(NaiveDate, NaiveDate)>) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let over = match span {
        None => "every Keno Day".to_string(),
        Some((f, t)) if f == t => format!("Keno Day {}", f.format("%-d %b %Y")),
        Some((f, t)) if f == NaiveDate::MIN => format!("Keno Days to {}", t.format("%-d %b %Y")),
        Some((f, t)) => format!(
            "Keno Days {} to {}",
            f.format("%-d %b %Y"),
            t.format("%-d %b %Y")
        ),
    };
    let _ = writeln!(
        out,
        "Return to players, actual and theoretical: tickets sold on {over}"
    );
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{:<10} {:>5} {:>9} {:>11} {:>15} {:>15} {:>8} {:>11}",
        "schedule", "spots", "tickets", "ways", "stake", "prizes", "actual", "theoretical"
    );
    for r in &returns.rows {
        let _ = writeln!(
            out,
            "{:<10} {:>5} {:>9} {:>11} {:>15} {:>15} {:>8} {:>11}",
            schedule_name(&r.schedule),
            r.spots,
            r.tickets,
            r.ways,
            super::report::money(r.stake_cents),
            super::report::money(r.prizes_cents),
            percent(r.actual),
            percent(r.theoretical),
        );
    }
    if returns.rows.is_empty() {
        let _ = writeln!(out, "(no ticket whose games are all final)");
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "Left out: {} tickets with a game still to be drawn or settled, {} tickets voided \
         (rule 17.2: prizes withheld).",
        returns.unfinished, returns.voided
    );
    out
}

fn schedule_name(key: &str) -> String {
    ScheduleId::ALL
        .into_iter()
        .find(|s| s.key() == key)
        .map_or(key.to_string(), |s| s.to_string())
}

/// 74.52%; a dash for none.
pub fn percent(fraction: Option<f64>) -> String {
    fraction.map_or("-".into(), |f| format!("{:.2}%", f * 100.0))
}
