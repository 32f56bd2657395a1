//! Draw monitoring's alarms among the day's exceptions: each test that began to fail over a
//! group's last games (`draw_monitor`), read from the trail's `draw_monitor_alarm` entries,
//! which hold the test, its p-value, the window and the source and device.

use anyhow::Context;
use diesel::prelude::*;
use keno_api::events::DrawMonitorAlarm;
use keno_api::monitoring::{MonitorTest, MonitoredSource};

use super::source::People;
use crate::audit::kind::EntryKind;
use crate::db::schema::audit_log;
use crate::db::DbConnection;

/// One alarm: when, the game whose settlement raised it, what, why.
pub struct Alarm {
    pub micros: i64,
    pub game: i64,
    pub what: String,
    pub why: String,
}

/// The alarms recorded in `window`.
pub fn alarms(
    conn: &mut DbConnection,
    people: &People,
    (from, to): (i64, i64),
) -> anyhow::Result<Vec<Alarm>> {
    let rows: Vec<(i64, i64, String)> = audit_log::table
        .filter(audit_log::kind.eq(EntryKind::DrawMonitorAlarm.as_str()))
        .filter(audit_log::recorded_at.ge(from))
        .filter(audit_log::recorded_at.lt(to))
        .order(audit_log::seq)
        .select((audit_log::seq, audit_log::recorded_at, audit_log::payload))
        .load(conn)?;
    rows.into_iter()
        .map(|(seq, at, payload)| {
            let a: DrawMonitorAlarm = serde_json::from_str(&payload)
                .with_context(|| format!("audit entry {seq} ({})", EntryKind::DrawMonitorAlarm))?;
            Ok(alarm(at, &a, people))
        })
        .collect()
}

fn alarm(at: i64, a: &DrawMonitorAlarm, people: &People) -> Alarm {
    let drawn_by = match (a.source, &a.device) {
        (MonitoredSource::Rng, _) => "the random number generator".to_string(),
        (MonitoredSource::BallDevice, Some(device)) => {
            format!("ball device {} ({device})", people.name(device))
        }
        (MonitoredSource::BallDevice, None) => "hand (ball games without a device)".to_string(),
    };
    let (test, looks_at) = match a.test {
        MonitorTest::Frequency => ("frequency", "each number in 20/80 of the games"),
        MonitorTest::Position => ("position", "each number's place in the drawn order"),
        MonitorTest::Pairs => ("pairs", "numbers drawn together"),
    };
    Alarm {
        micros: at,
        game: a.game,
        what: format!(
            "draw monitoring: the {test} test ({looks_at}) fails over games {} to {} drawn by \
             {drawn_by} ({} games, window {}): chi-square {:.1} with {} df, p = {:.1e}",
            a.first_game, a.game, a.games, a.window, a.statistic, a.degrees_of_freedom, a.p_value
        ),
        why: "a test of the random draw (rule 3.2) fails at 99.9% confidence: have the ball \
              set (worn or unbalanced balls) or the generator checked"
            .to_string(),
    }
}
