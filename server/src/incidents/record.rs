//! The episodes of the server's failures in the trail: a `system_fault` entry as one begins
//! and a `system_fault_ended` entry after a quiet minute, each naming the instance.

use diesel::prelude::*;

use super::{Episode, ToRecord};
use crate::audit::kind::EntryKind;
use crate::audit::log::{append, Entry};
use crate::db::DbConnection;

/// Appends what `to` holds, in one transaction of the caller's.
pub fn record(conn: &mut DbConnection, instance: &str, to: &ToRecord) -> QueryResult<()> {
    let entry = |kind: EntryKind, e: &Episode| {
        Entry::new(
            kind,
            e.fault.as_str(),
            serde_json::json!({
                "instance": instance,
                "fault": e.fault.as_str(),
                "began_at": e.began_at,
                "last_at": e.last_at,
                "count": e.count,
                "detail": e.detail,
            }),
        )
    };
    let entries: Vec<Entry> = to
        .begun
        .iter()
        .map(|e| entry(EntryKind::SystemFault, e))
        .chain(
            to.ended
                .iter()
                .map(|e| entry(EntryKind::SystemFaultEnded, e)),
        )
        .collect();
    if entries.is_empty() {
        return Ok(());
    }
    append(conn, entries)
}
