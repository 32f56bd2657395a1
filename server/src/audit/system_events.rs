//! The server's own life among the day's exceptions (issue 33): each start (its release and
//! the digests of its binary and rules, and any instance found not to have stopped cleanly
//! before), each graceful stop, each suspension and each key turned to resume one, each check
//! of the software that found a difference, and each failure of the server's machinery (the
//! database, a commit of unknown outcome, the drawer, a request failed inside), read from the
//! trail.

use anyhow::Context;
use diesel::prelude::*;
use serde_json::Value;

use crate::audit::kind::EntryKind;
use crate::db::schema::audit_log;
use crate::db::DbConnection;

/// One of them: when, what, who (the instance, or the person), why.
pub struct SystemEvent {
    pub micros: i64,
    pub what: String,
    pub who: String,
    pub why: String,
}

const KINDS: [EntryKind; 7] = [
    EntryKind::ServerStarted,
    EntryKind::ServerStopped,
    EntryKind::Suspended,
    EntryKind::ResumeKeyTurned,
    EntryKind::IntegrityChecked,
    EntryKind::SystemFault,
    EntryKind::SystemFaultEnded,
];

/// Those recorded in `window`; `name` gives a person's name for a staff ID.
pub fn system_events(
    conn: &mut DbConnection,
    (from, to): (i64, i64),
    name: &dyn Fn(&str) -> String,
) -> anyhow::Result<Vec<SystemEvent>> {
    let rows: Vec<(i64, i64, String, Option<String>, String)> = audit_log::table
        .filter(audit_log::kind.eq_any(KINDS.map(EntryKind::as_str)))
        .filter(audit_log::recorded_at.ge(from))
        .filter(audit_log::recorded_at.lt(to))
        .order(audit_log::seq)
        .select((
            audit_log::seq,
            audit_log::recorded_at,
            audit_log::kind,
            audit_log::principal_id,
            audit_log::payload,
        ))
        .load(conn)?;
    let mut out = Vec::new();
    for (seq, at, kind, principal, payload) in rows {
        let whose = || format!("audit entry {seq} ({kind})");
        let p: Value = serde_json::from_str(&payload).with_context(whose)?;
        let kind = EntryKind::parse(&kind).with_context(whose)?;
        if let Some(e) = read(kind, &p, principal.as_deref().map(name)) {
            out.push(SystemEvent { micros: at, ..e });
        }
    }
    Ok(out)
}

fn text(p: &Value, field: &str) -> String {
    p[field].as_str().unwrap_or("").to_string()
}

/// An entry of `kind` with payload `p` as an exception; `None` for a check that found nothing.
fn read(kind: EntryKind, p: &Value, person: Option<String>) -> Option<SystemEvent> {
    let instance = format!("the server (instance {})", text(p, "instance"));
    let (what, who, why) = match kind {
        EntryKind::ServerStarted => (
            format!("the server started: {}", text(p, "release")),
            instance,
            started_why(p),
        ),
        EntryKind::ServerStopped => (
            "the server stopped gracefully".to_string(),
            instance,
            text(p, "signal"),
        ),
        EntryKind::Suspended => (
            format!("the system was suspended (suspension {})", p["suspension"]),
            instance,
            text(p, "detail"),
        ),
        EntryKind::ResumeKeyTurned => (
            if p["resumed"] == true {
                format!("suspension {} resumed: both keys turned", p["suspension"])
            } else {
                format!("a key turned to resume suspension {}", p["suspension"])
            },
            person.unwrap_or_default(),
            [text(p, "supervisor_note"), text(p, "inspector_note")]
                .into_iter()
                .filter(|n| !n.is_empty())
                .collect::<Vec<_>>()
                .join("; "),
        ),
        EntryKind::IntegrityChecked if p["as_approved"] == false => (
            "the software is not as approved".to_string(),
            instance,
            p["differences"]
                .as_array()
                .map(|d| {
                    d.iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join("; ")
                })
                .unwrap_or_default(),
        ),
        EntryKind::SystemFault | EntryKind::SystemFaultEnded => fault(kind, p, instance),
        _ => return None,
    };
    Some(SystemEvent {
        micros: 0,
        what,
        who,
        why,
    })
}

/// A failure of the server's machinery as it began, or as it ended a quiet minute after its
/// last (`incidents`).
fn fault(kind: EntryKind, p: &Value, instance: String) -> (String, String, String) {
    let words = crate::incidents::Fault::parse(&text(p, "fault"))
        .map_or("a failure of a kind this release does not know", |f| {
            f.words()
        });
    let count = p["count"].as_u64().unwrap_or(0);
    let times = if count == 1 {
        "once".to_string()
    } else {
        format!("{count} times")
    };
    let what = match kind {
        EntryKind::SystemFault => format!("failure: {words}"),
        _ => format!(
            "failure over: {words}, {times} from {} to {}",
            crate::audit::source::when(p["began_at"].as_i64().unwrap_or(0)),
            crate::audit::source::when(p["last_at"].as_i64().unwrap_or(0))
        ),
    };
    (what, instance, format!("the last: {}", text(p, "detail")))
}

fn started_why(p: &Value) -> String {
    let digests = format!(
        "binary SHA-256 {}, rules SHA-256 {}",
        text(p, "binary_sha256"),
        text(p, "rules_sha256")
    );
    match p["not_stopped"].as_array().filter(|a| !a.is_empty()) {
        Some(before) => format!(
            "{digests}; no graceful stop was recorded for {} (a crash, a kill or a power cut, \
             or still running)",
            before
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => digests,
    }
}
