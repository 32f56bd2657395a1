//! A server's start and graceful stop in the trail (issue 33), so the day's exceptions show
//! them: what started (its release and the digests of its binary and rules) and which
//! instances had started before with no graceful stop recorded since: a crash, a kill or a
//! power cut (or, with several instances, one still running).

use diesel::prelude::*;

use crate::audit::kind::EntryKind;
use crate::audit::log::{append, Entry};
use crate::db::schema::audit_log;
use crate::db::DbConnection;

/// What a start records besides its instance.
pub struct Start<'a> {
    pub release: &'a str,
    pub binary_sha256: &'a str,
    pub rules_sha256: &'a str,
}

/// Records `instance`'s start; the instances found not to have stopped gracefully.
pub fn started(
    conn: &mut DbConnection,
    instance: &str,
    start: &Start<'_>,
) -> QueryResult<Vec<String>> {
    let not_stopped = not_stopped(conn)?;
    append(
        conn,
        vec![Entry::new(
            EntryKind::ServerStarted,
            instance,
            serde_json::json!({
                "instance": instance, "release": start.release,
                "binary_sha256": start.binary_sha256, "rules_sha256": start.rules_sha256,
                "not_stopped": not_stopped,
            }),
        )],
    )?;
    Ok(not_stopped)
}

/// Records `instance`'s graceful stop.
pub fn stopped(conn: &mut DbConnection, instance: &str) -> QueryResult<()> {
    append(
        conn,
        vec![Entry::new(
            EntryKind::ServerStopped,
            instance,
            serde_json::json!({ "instance": instance, "signal": "a request to stop (SIGTERM or SIGINT)" }),
        )],
    )
}

/// The instances whose last start has no graceful stop after it, in the order they started.
fn not_stopped(conn: &mut DbConnection) -> QueryResult<Vec<String>> {
    let rows: Vec<(String, String)> = audit_log::table
        .filter(audit_log::kind.eq_any([
            EntryKind::ServerStarted.as_str(),
            EntryKind::ServerStopped.as_str(),
        ]))
        .order(audit_log::seq)
        .select((audit_log::kind, audit_log::subject))
        .load(conn)?;
    let mut running: Vec<String> = Vec::new();
    for (kind, instance) in rows {
        running.retain(|i| *i != instance);
        if kind == EntryKind::ServerStarted.as_str() {
            running.push(instance);
        }
    }
    Ok(running)
}
