//! The alarm: when a group's test goes from passing to failing with a game's settlement, the
//! trail records it (`draw_monitor_alarm`, by the system) in the settlement's transaction, and
//! the event goes out once it is committed.
//!
//! "Passing before" is the test over the group's window as it stood before the game, "failing
//! now" over the window with it: so a test that stays failing game after game is recorded once,
//! and again only after it has passed and fails anew. Being part of the settlement, the entry
//! is written once whatever happens: a settlement rolled back (or fenced: only the leader
//! settles, `leader.rs`) records no alarm, and a settlement committed records its alarm with
//! it. The game itself enters the windows only at the next look after the commit.

use diesel::Connection;
use keno_api::events::DrawMonitorAlarm;
use keno_core::DrawStats;

use super::{devices, draws, group, headers, Monitor};
use crate::audit::log::Entry;
use crate::db::DbConnection;

/// [`Monitor::on_settled`] in a savepoint of the settlement's transaction: monitoring never
/// holds up a settlement. Should it fail (it reads only what settlement has just relied on),
/// its writes are undone, the settlement goes on, and the error is logged.
pub fn on_settled(monitor: &Monitor, conn: &mut DbConnection, game: i64) -> Vec<DrawMonitorAlarm> {
    conn.transaction(|conn| monitor.on_settled(conn, game))
        .unwrap_or_else(|e| {
            tracing::error!(game, error = %format!("{e:#}"), "draw monitoring: game not looked at");
            Vec::new()
        })
}

impl Monitor {
    /// In the transaction that settles game `game` (already marked settled in it): the tests that
    /// begin to fail with it, recorded in the trail. Returns the events to publish after the
    /// commit.
    pub fn on_settled(
        &self,
        conn: &mut DbConnection,
        game: i64,
    ) -> anyhow::Result<Vec<DrawMonitorAlarm>> {
        let window = self.window();
        let mut windows = self.lock();
        windows.catch_up(conn, game, window)?;
        let header = headers(conn, game - 1, game + 1, 1)?;
        let Some(h) = header.first() else {
            return Ok(Vec::new());
        };
        let group = group(h, &devices(conn, &header)?);
        let Some(draw) = draws(conn, &[game])?.remove(&game) else {
            anyhow::bail!("game {game} is settled without its numbers");
        };
        let before = windows.draws(&group);
        // The window with this game: the last `window - 1` before it, and it.
        let kept = &before[(before.len() + 1).saturating_sub(window)..];
        let first_game = kept.first().map_or(game, |(number, _)| *number);
        let was = DrawStats::of(before.iter().map(|(_, d)| *d)).tests();
        let now_stats = DrawStats::of(kept.iter().map(|(_, d)| *d).chain([&draw]));
        let alarms: Vec<DrawMonitorAlarm> = was
            .iter()
            .zip(now_stats.tests())
            .filter(|(was, now)| !was.fails() && now.fails())
            .map(|(_, now)| DrawMonitorAlarm {
                game,
                source: group.source,
                device: group.device.clone(),
                test: now.test.into(),
                statistic: now.statistic,
                degrees_of_freedom: now.degrees_of_freedom,
                p_value: now.p_value,
                games: now_stats.games(),
                first_game,
                window: window as u64,
            })
            .collect();
        let entries = alarms
            .iter()
            .map(|a| {
                Ok(Entry::new(
                    crate::audit::kind::EntryKind::DrawMonitorAlarm,
                    game,
                    serde_json::to_value(a)?,
                ))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        crate::audit::log::append(conn, entries)?;
        Ok(alarms)
    }
}
