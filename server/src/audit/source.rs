//! Where the audit reads from: the database as it is (nothing created or migrated), one
//! read-only snapshot per command, rows streamed as they come, and what a range of Keno Days or
//! games covers: its games, the tickets sold in it, and the hours its payments and cancellations
//! fall in.

use std::collections::HashMap;

use chrono::{DateTime, Local, NaiveDate, NaiveTime, TimeDelta, TimeZone};
use clap::Args;
use diesel::connection::SimpleConnection;
use diesel::prelude::*;

use crate::db::schema::{games, principals};
use crate::db::{Db, DbConnection};
use crate::keno_day::KenoHours;

#[derive(Debug, Args)]
pub struct SourceArgs {
    /// The server's database, read only: sqlite://PATH or postgres://...
    #[arg(long, env = "KENO_DATABASE_URL", default_value = crate::db::DEFAULT_DATABASE)]
    pub database_url: String,
    /// When a Keno Day starts, local time, as the server runs (`serve --keno-day-start`): a
    /// day's payments, cancellations and new principals are those from its start to the next
    /// day's start.
    #[arg(
        long,
        env = "KENO_DAY_START",
        default_value = "10:00",
        value_name = "HH:MM"
    )]
    pub keno_day_start: String,
}

/// The database, opened to be read, and the hour Keno Days start.
pub struct Source {
    db: Db,
    days: Days,
}

impl Source {
    pub fn open(args: &SourceArgs) -> anyhow::Result<Source> {
        let start = KenoHours::parse_time(&args.keno_day_start).map_err(anyhow::Error::msg)?;
        let db = Db::open_existing(&args.database_url, 1)?;
        Ok(Source {
            db,
            days: Days::starting(start),
        })
    }

    pub fn backend_name(&self) -> &'static str {
        self.db.backend().name()
    }

    pub fn days(&self) -> &Days {
        &self.days
    }

    /// Runs `f` in one read-only snapshot (`snapshot`).
    pub fn read<T>(
        &self,
        f: impl FnOnce(&mut DbConnection) -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        snapshot(&mut *self.db.conn()?, f)
    }
}

/// Runs `f` in one read-only snapshot: every figure of a tool comes from the same moment of the
/// record, and the database itself refuses a write. On PostgreSQL a `REPEATABLE READ, READ
/// ONLY` transaction; on SQLite a read transaction (WAL mode: one snapshot from its first read)
/// under `query_only`, which is set back afterwards, as the connection may be the server's
/// pool's.
pub fn snapshot<T>(
    conn: &mut DbConnection,
    f: impl FnOnce(&mut DbConnection) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    if let DbConnection::Pg(_) = conn {
        return conn.transaction(|conn| {
            diesel::sql_query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                .execute(conn)?;
            f(conn)
        });
    }
    conn.batch_execute("PRAGMA query_only = ON")?;
    let read = conn.transaction(f);
    // Writable again before the connection goes back to the pool, whatever the read did.
    let reset = conn.batch_execute("PRAGMA query_only = OFF");
    let read = read?;
    reset?;
    Ok(read)
}

/// How the audit counts Keno Days: each from its start, local time, to the next day's start
/// (the server's `--keno-day-start`).
#[derive(Clone, Copy, Debug)]
pub struct Days {
    start: NaiveTime,
}

impl Days {
    pub fn starting(start: NaiveTime) -> Days {
        Days { start }
    }

    /// When Keno Day `day` starts, as stored (microseconds, UTC).
    pub fn day_start(&self, day: NaiveDate) -> i64 {
        let at = day.and_time(self.start);
        // In a daylight-saving gap the day starts when the clocks resume.
        Local
            .from_local_datetime(&at)
            .earliest()
            .or_else(|| {
                Local
                    .from_local_datetime(&(at + TimeDelta::hours(1)))
                    .earliest()
            })
            .map_or(0, |t| t.timestamp_micros())
    }

    /// The Keno Day a stored moment belongs to (the one started most recently).
    pub fn day_of(&self, micros: i64) -> NaiveDate {
        let hours = KenoHours {
            start: self.start,
            end: self.start,
        };
        hours.latest_started_day(local(micros))
    }
}

/// A stored moment in local time.
pub fn local(micros: i64) -> DateTime<Local> {
    DateTime::from_timestamp_micros(micros)
        .unwrap_or_default()
        .with_timezone(&Local)
}

/// A stored moment as people read it: local date and time to the second.
pub fn when(micros: i64) -> String {
    local(micros).format("%Y-%m-%d %H:%M:%S").to_string()
}

/// What a range asked for cannot be: each maps to its own refusal over HTTP.
#[derive(Debug, thiserror::Error)]
pub enum SpanError {
    #[error("{0:?} is not a Keno Day: give YYYY-MM-DD")]
    NotADay(String),
    #[error("give a first Keno Day or a first game")]
    NoStart,
    #[error("give Keno Days or game numbers, not both")]
    DaysAndGames,
    #[error("the range ends before it starts")]
    Backwards,
}

pub fn parse_day(s: &str) -> Result<NaiveDate, SpanError> {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").map_err(|_| SpanError::NotADay(s.to_string()))
}

/// What a command covers, as asked.
#[derive(Clone, Copy, Debug)]
pub enum Span {
    /// Keno Days, first and last.
    Days(NaiveDate, NaiveDate),
    /// Game numbers, first and last.
    Games(i64, i64),
}

impl Span {
    /// The span asked for: Keno Days from `from_day` (to `to_day`, or the same day), or games
    /// from `from_game` (to `to_game`, or the same game).
    pub fn asked(
        from_day: Option<&str>,
        to_day: Option<&str>,
        from_game: Option<i64>,
        to_game: Option<i64>,
    ) -> Result<Span, SpanError> {
        let span = match (from_day, from_game) {
            (Some(_), Some(_)) => return Err(SpanError::DaysAndGames),
            (Some(from), None) if to_game.is_none() => {
                let from = parse_day(from)?;
                Span::Days(from, to_day.map(parse_day).transpose()?.unwrap_or(from))
            }
            (None, Some(from)) if to_day.is_none() => Span::Games(from, to_game.unwrap_or(from)),
            (Some(_), None) | (None, Some(_)) => return Err(SpanError::DaysAndGames),
            (None, None) => return Err(SpanError::NoStart),
        };
        let ordered = match span {
            Span::Days(from, to) => from <= to,
            Span::Games(from, to) => from <= to,
        };
        if ordered {
            Ok(span)
        } else {
            Err(SpanError::Backwards)
        }
    }

    /// The span in a file's name: `2026-11-22`, `2026-11-22_2026-11-23`, `games-5-9`.
    pub fn file_part(&self) -> String {
        match *self {
            Span::Days(from, to) if from == to => day_text(from),
            Span::Days(from, to) => format!("{}_{}", day_text(from), day_text(to)),
            Span::Games(from, to) => format!("games-{from}-{to}"),
        }
    }
}

/// A span resolved against the record.
#[derive(Clone, Debug)]
pub struct Range {
    pub span: Span,
    /// The lowest and highest game numbers in it; `None` when it holds no game.
    pub games: Option<(i64, i64)>,
    /// When its payments and cancellations happened, `[from, to)` as stored: the Keno Days'
    /// hours, or from the first game's opening to the opening of the game after the last.
    pub window: (i64, i64),
}

impl Range {
    pub fn resolve(days: &Days, conn: &mut DbConnection, span: Span) -> QueryResult<Range> {
        match span {
            Span::Days(from, to) => {
                let (lo, hi): (Option<i64>, Option<i64>) = games::table
                    .filter(games::keno_day.between(day_text(from), day_text(to)))
                    .select((
                        diesel::dsl::min(games::number),
                        diesel::dsl::max(games::number),
                    ))
                    .first(conn)?;
                let after = to.succ_opt().unwrap_or(to);
                Ok(Range {
                    span,
                    games: lo.zip(hi),
                    window: (days.day_start(from), days.day_start(after)),
                })
            }
            Span::Games(from, to) => {
                let (lo, hi): (Option<i64>, Option<i64>) = games::table
                    .filter(games::number.between(from, to))
                    .select((
                        diesel::dsl::min(games::number),
                        diesel::dsl::max(games::number),
                    ))
                    .first(conn)?;
                let opened = |n: i64, conn: &mut DbConnection| {
                    games::table
                        .find(n)
                        .select(games::opened_at)
                        .first::<i64>(conn)
                        .optional()
                };
                let window = match lo.zip(hi) {
                    Some((lo, hi)) => (
                        opened(lo, conn)?.unwrap_or(0),
                        opened(hi + 1, conn)?.unwrap_or(i64::MAX),
                    ),
                    None => (0, 0),
                };
                Ok(Range {
                    span,
                    games: lo.zip(hi),
                    window,
                })
            }
        }
    }

    /// The range in words: "Keno Day 2026-11-22", "Keno Days ... to ...", "games 5 to 9".
    pub fn describe(&self) -> String {
        match self.span {
            Span::Days(from, to) if from == to => format!("Keno Day {}", day_text(from)),
            Span::Days(from, to) => format!("Keno Days {} to {}", day_text(from), day_text(to)),
            Span::Games(from, to) => format!("games {from} to {to}"),
        }
    }
}

pub fn day_text(day: NaiveDate) -> String {
    day.format("%Y-%m-%d").to_string()
}

/// Tickets sold in games `lo..=hi`: the first game of a ticket is the one open when it was
/// sold. (The `last_game` bound lets the `tickets_games` index find them.)
pub fn sold_in(
    lo: i64,
    hi: i64,
) -> diesel::dsl::And<
    diesel::dsl::Between<crate::db::schema::tickets::first_game, i64, i64>,
    diesel::dsl::GtEq<crate::db::schema::tickets::last_game, i64>,
> {
    use crate::db::schema::tickets;
    tickets::first_game
        .between(lo, hi)
        .and(tickets::last_game.ge(lo))
}

/// Runs `$body` on each row of `$query` as the database sends it, never holding the whole
/// result: SQLite steps through it, PostgreSQL sends it row by row. `$body` may use `?`.
/// `$query` is written out in the call: it is built once for each backend.
macro_rules! for_each_row {
    ($conn:expr, $query:expr, $row:ty, |$r:ident| $body:block) => {
        match $conn {
            $crate::db::DbConnection::Pg(c) => {
                for row in $query.load_iter::<$row, diesel::pg::PgRowByRowLoadingMode>(c)? {
                    let $r: $row = row?;
                    $body
                }
            }
            $crate::db::DbConnection::Sqlite(c) => {
                for row in $query.load_iter::<$row, diesel::connection::DefaultLoadingMode>(c)? {
                    let $r: $row = row?;
                    $body
                }
            }
        }
    };
}
pub(crate) use for_each_row;

#[derive(Queryable, Selectable, Clone, Debug)]
#[diesel(table_name = principals)]
struct PrincipalRow {
    id: String,
    role: String,
    name: String,
    site: Option<String>,
    terminal: Option<String>,
}

/// Every principal by id, to name who did what.
pub struct People(HashMap<String, PrincipalRow>);

impl People {
    pub fn load(conn: &mut DbConnection) -> QueryResult<People> {
        let rows: Vec<PrincipalRow> = principals::table
            .select(PrincipalRow::as_select())
            .load(conn)?;
        Ok(People(
            rows.into_iter().map(|p| (p.id.clone(), p)).collect(),
        ))
    }

    /// "JULIE (writer, site 735624 terminal 03)", "SUPER (supervisor)"; "not recorded".
    pub fn who(&self, id: Option<&str>) -> String {
        let Some(id) = id else {
            return "not recorded".into();
        };
        match self.0.get(id) {
            Some(p) => match (&p.site, &p.terminal) {
                (Some(site), Some(terminal)) => {
                    format!("{} ({}, site {site} terminal {terminal})", p.name, p.role)
                }
                _ => format!("{} ({})", p.name, p.role),
            },
            None => format!("unknown principal {id}"),
        }
    }

    /// The name alone ("JULIE"), or the id when it is not a principal.
    pub fn name(&self, id: &str) -> String {
        self.0
            .get(id)
            .map_or_else(|| id.to_string(), |p| p.name.clone())
    }
}
