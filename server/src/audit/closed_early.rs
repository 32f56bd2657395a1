//! Games closed for sale by a supervisor before their time (rule 9.2), among the day's
//! exceptions: who, when against when it was to close, and why, from the close's entry.

use diesel::prelude::*;
use serde_json::Value;

use super::source::{when, People};
use crate::audit::kind::EntryKind;
use crate::db::schema::{audit_log, games};
use crate::db::DbConnection;

/// One of them.
pub struct ClosedEarly {
    pub micros: i64,
    pub game: i64,
    pub what: String,
    pub who: String,
    pub why: String,
}

/// Those closed in `window`.
pub fn closed_early(
    conn: &mut DbConnection,
    people: &People,
    (from, to): (i64, i64),
) -> anyhow::Result<Vec<ClosedEarly>> {
    let rows: Vec<(i64, String, Option<String>, String)> = audit_log::table
        .filter(audit_log::kind.eq(EntryKind::GameClosed.as_str()))
        .filter(audit_log::principal_id.is_not_null())
        .filter(audit_log::recorded_at.ge(from))
        .filter(audit_log::recorded_at.lt(to))
        .order(audit_log::seq)
        .select((
            audit_log::recorded_at,
            audit_log::subject,
            audit_log::principal_id,
            audit_log::payload,
        ))
        .load(conn)?;
    let mut out = Vec::new();
    for (at, subject, principal, payload) in rows {
        let game: i64 = subject.parse()?;
        let p: Value = serde_json::from_str(&payload)?;
        let closes_at: Option<i64> = games::table
            .find(game)
            .select(games::closes_at)
            .first(conn)
            .optional()?;
        let due = closes_at.map_or(String::new(), |c| format!(", due to close at {}", when(c)));
        out.push(ClosedEarly {
            micros: at,
            game,
            what: format!("game {game} closed for sale by hand{due}"),
            who: people.who(principal.as_deref()),
            why: p["reason"]
                .as_str()
                .map_or("no reason given".to_string(), str::to_string),
        });
    }
    Ok(out)
}
