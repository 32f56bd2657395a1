//! Draw monitoring (issue 18): the tests of `keno_core::draw_stats` over the last
//! `--monitor-games` settled games of each draw source and device (rule 3.2: a device
//! "designed to select at random"), and an alarm in the audit trail when one of them begins
//! to fail (`alarm`).
//!
//! A game belongs to the group of its source and of the device that drew its first standing
//! ball (`drawn_numbers.entered_by`, when a device principal entered it): a draw finished by
//! hand after a fall-back or stoppage (rule 10.4(b), (d)) stays with the device whose balls it
//! drew; a ball game drawn wholly by hand, and every RNG game, has no device. Only settled games
//! count: their record is final (rule 10.1), and invalidated games are never settled.
//!
//! Each instance keeps every group's window of games in memory, caught up at each look with
//! only the games settled since its last (games settle in order, each after the one before, so
//! "settled and numbered above the last seen" misses none); the tests are computed from the
//! window's games at each look, a few milliseconds for 500.

mod alarm;
pub mod endpoint;

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::sync::{Mutex, MutexGuard};

use anyhow::Context;
use diesel::prelude::*;
use keno_api::monitoring::{DrawMonitoring, MonitorGroup, MonitorTestResult, MonitoredSource};
use keno_core::{Draw, DrawSource, DrawStats, GameState};

use crate::auth::Role;
use crate::db::schema::{drawn_numbers, games, principals};
use crate::db::DbConnection;

pub use alarm::on_settled;

/// Game headers read per query while catching up.
const PAGE: i64 = 5_000;

/// A draw source and device.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Group {
    pub source: MonitoredSource,
    pub device: Option<String>,
}

/// This instance's windows, one per group.
pub struct Monitor {
    window: usize,
    windows: Mutex<Windows>,
}

#[derive(Default)]
struct Windows {
    /// The last settled game taken in.
    seen: i64,
    /// Each group's last `window` games, oldest first; a game's draw is read once it is known
    /// to stay in its window.
    groups: BTreeMap<Group, VecDeque<(i64, Option<Draw>)>>,
}

/// A settled game as its group sees it.
#[derive(Queryable)]
struct Header {
    number: i64,
    #[diesel(deserialize_as = String)]
    source: DrawSource,
    first_ball_by: Option<String>,
}

impl Monitor {
    /// Windows of `window` games.
    pub fn new(window: std::num::NonZeroUsize) -> Monitor {
        Monitor {
            window: window.get(),
            windows: Mutex::default(),
        }
    }

    pub fn window(&self) -> usize {
        self.window
    }

    /// The windows, emptied if a panic left them half caught up: the next look reads them
    /// again from the database.
    fn lock(&self) -> MutexGuard<'_, Windows> {
        self.windows.lock().unwrap_or_else(|poisoned| {
            let mut windows = poisoned.into_inner();
            *windows = Windows::default();
            windows
        })
    }

    /// Takes in the games settled since the last look: once at start, so that the first
    /// settlement does not read a long history inside its transaction.
    pub fn catch_up(&self, conn: &mut DbConnection) -> anyhow::Result<()> {
        self.lock().catch_up(conn, i64::MAX, self.window)
    }

    /// Every group's window as it stands in the database now, and its tests.
    pub fn report(&self, conn: &mut DbConnection) -> anyhow::Result<DrawMonitoring> {
        let mut windows = self.lock();
        windows.catch_up(conn, i64::MAX, self.window)?;
        let groups = windows
            .groups
            .iter()
            .map(|(group, games)| shown(group, games))
            .collect::<anyhow::Result<_>>()?;
        Ok(DrawMonitoring {
            window: self.window as u64,
            groups,
        })
    }
}

impl Windows {
    /// Takes in the games settled since the last look and numbered below `below`.
    fn catch_up(
        &mut self,
        conn: &mut DbConnection,
        below: i64,
        window: usize,
    ) -> anyhow::Result<()> {
        loop {
            let page = headers(conn, self.seen, below, PAGE)?;
            let devices = devices(conn, &page)?;
            for h in &page {
                let games = self.groups.entry(group(h, &devices)).or_default();
                games.push_back((h.number, None));
                if games.len() > window {
                    games.pop_front();
                }
                self.seen = h.number;
            }
            if (page.len() as i64) < PAGE {
                break;
            }
        }
        let unread: Vec<i64> = self
            .groups
            .values()
            .flatten()
            .filter(|(_, draw)| draw.is_none())
            .map(|(number, _)| *number)
            .collect();
        let mut read = draws(conn, &unread)?;
        for (number, draw) in self.groups.values_mut().flatten() {
            if draw.is_none() {
                *draw = Some(
                    read.remove(number)
                        .with_context(|| format!("settled game {number} has no numbers"))?,
                );
            }
        }
        Ok(())
    }

    /// The games of `group`'s window and their draws (none for a group not seen yet).
    fn draws(&self, group: &Group) -> Vec<(i64, &Draw)> {
        self.groups
            .get(group)
            .into_iter()
            .flatten()
            .filter_map(|(number, draw)| Some((*number, draw.as_ref()?)))
            .collect()
    }
}

/// Settled games numbered above `after` and below `below`, in order, at most `limit`.
fn headers(
    conn: &mut DbConnection,
    after: i64,
    below: i64,
    limit: i64,
) -> QueryResult<Vec<Header>> {
    games::table
        .left_join(
            drawn_numbers::table.on(drawn_numbers::game
                .eq(games::number)
                .and(drawn_numbers::position.eq(1))),
        )
        .filter(games::state.eq(GameState::Settled.as_str()))
        .filter(games::number.gt(after))
        .filter(games::number.lt(below))
        .order(games::number)
        .limit(limit)
        .select((
            games::number,
            games::source,
            drawn_numbers::entered_by.nullable(),
        ))
        .load(conn)
}

/// The device principals among those who entered the first balls of `page`.
fn devices(conn: &mut DbConnection, page: &[Header]) -> QueryResult<HashSet<String>> {
    let named: Vec<&str> = page
        .iter()
        .filter_map(|h| h.first_ball_by.as_deref())
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    if named.is_empty() {
        return Ok(HashSet::new());
    }
    let ids: Vec<String> = principals::table
        .filter(principals::id.eq_any(named))
        .filter(principals::role.eq(Role::Device.as_str()))
        .select(principals::id)
        .load(conn)?;
    Ok(ids.into_iter().collect())
}

fn group(h: &Header, devices: &HashSet<String>) -> Group {
    Group {
        source: h.source.into(),
        device: h
            .first_ball_by
            .clone()
            .filter(|by| h.source == DrawSource::BallDevice && devices.contains(by)),
    }
}

/// The numbers of games `numbers`, in drawn order.
fn draws(
    conn: &mut DbConnection,
    numbers: &[i64],
) -> anyhow::Result<std::collections::HashMap<i64, Draw>> {
    let mut balls: BTreeMap<i64, Vec<u8>> = BTreeMap::new();
    // Chunks stay under both backends' limits on bound parameters.
    for chunk in numbers.chunks(500) {
        let rows: Vec<(i64, i32)> = drawn_numbers::table
            .filter(drawn_numbers::game.eq_any(chunk))
            .order((drawn_numbers::game, drawn_numbers::position))
            .select((drawn_numbers::game, drawn_numbers::number))
            .load(conn)?;
        for (game, n) in rows {
            let n = u8::try_from(n).with_context(|| format!("game {game}: number {n}"))?;
            balls.entry(game).or_default().push(n);
        }
    }
    balls
        .into_iter()
        .map(|(game, numbers)| {
            let draw = Draw::new(&numbers).with_context(|| format!("settled game {game}"))?;
            Ok((game, draw))
        })
        .collect()
}

fn shown(group: &Group, games: &VecDeque<(i64, Option<Draw>)>) -> anyhow::Result<MonitorGroup> {
    let (Some(first), Some(last)) = (games.front(), games.back()) else {
        anyhow::bail!("an empty window");
    };
    let stats = DrawStats::of(games.iter().filter_map(|(_, d)| d.as_ref()));
    let tests: Vec<MonitorTestResult> = stats.tests().iter().map(test_result).collect();
    Ok(MonitorGroup {
        source: group.source,
        device: group.device.clone(),
        games: stats.games(),
        first_game: first.0,
        last_game: last.0,
        frequency: stats.frequency().to_vec(),
        alarm: tests.iter().any(|t| t.fails),
        tests,
    })
}

fn test_result(t: &keno_core::TestResult) -> MonitorTestResult {
    MonitorTestResult {
        test: t.test.into(),
        statistic: t.statistic,
        degrees_of_freedom: t.degrees_of_freedom,
        p_value: t.p_value,
        fails: t.fails(),
    }
}
