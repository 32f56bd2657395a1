//! The room's acts among the day's exceptions (issue "Running the room"): failed sign-ons and
//! locks, people added, disabled, enabled or their secret reset, terminals registered or their
//! credential rotated, and every supervisor's approval given at a counter. Read from the audit
//! trail's entries, which hold who, where and why.

use diesel::prelude::*;
use keno_api::audit::ExceptionKind;
use serde_json::Value;

use super::source::People;
use crate::audit::kind::EntryKind;
use crate::db::schema::audit_log;
use crate::db::DbConnection;
use crate::displays::DisplayAct;

/// One act: when, its exception kind, what, who, why.
pub struct Act {
    pub micros: i64,
    pub kind: ExceptionKind,
    pub serial: Option<String>,
    pub what: String,
    pub who: String,
    pub why: String,
}

const KINDS: [EntryKind; 12] = [
    EntryKind::SignOnFailed,
    EntryKind::SignOnUnknownFailures,
    EntryKind::StaffAdded,
    EntryKind::StaffDisabled,
    EntryKind::StaffEnabled,
    EntryKind::StaffSecretReset,
    EntryKind::TerminalRegistered,
    EntryKind::TerminalCredentialRotated,
    EntryKind::OverrideGranted,
    // Registered displays (issue 31): `DisplayAct`'s kinds.
    EntryKind::DisplayRegistered,
    EntryKind::DisplayCredentialRotated,
    EntryKind::DisplayDisabled,
];

pub fn acts(
    conn: &mut DbConnection,
    people: &People,
    (from, to): (i64, i64),
) -> anyhow::Result<Vec<Act>> {
    let rows: Vec<(i64, String, String, Option<String>, String)> = audit_log::table
        .filter(audit_log::kind.eq_any(KINDS.map(EntryKind::as_str)))
        .filter(audit_log::recorded_at.ge(from))
        .filter(audit_log::recorded_at.lt(to))
        .order(audit_log::seq)
        .select((
            audit_log::recorded_at,
            audit_log::kind,
            audit_log::subject,
            audit_log::principal_id,
            audit_log::payload,
        ))
        .load(conn)?;
    rows.into_iter()
        .map(|(at, kind, subject, by, payload)| {
            let payload: Value = serde_json::from_str(&payload)?;
            let kind = EntryKind::parse(&kind).ok_or_else(|| {
                anyhow::anyhow!("an audit entry of a kind no server writes: {kind:?}")
            })?;
            Ok(act(at, kind, subject, by.as_deref(), &payload, people))
        })
        .collect()
}

/// A minute's tally of sign-ons for staff IDs that do not exist, in words.
fn unknown_failures(p: &Value) -> String {
    let places: Vec<String> = p["places"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|place| {
            let at = place["place"].as_str().unwrap_or("an unrecorded place");
            let at = match at.split_once(':') {
                Some(("terminal", t)) => format!("terminal {t}"),
                Some(("address", a)) => format!("address {a}"),
                _ => at.to_string(),
            };
            format!("{} from {at}", place["failures"])
        })
        .collect();
    let others = match p["other_places_failures"].as_u64() {
        Some(n) if n > 0 => format!(" and {n} from elsewhere"),
        _ => String::new(),
    };
    format!(
        "{} sign-ons failed for staff IDs that do not exist ({}{others})",
        p["failures"],
        places.join(", ")
    )
}

/// A failed sign-on, as the room's acts tell it.
fn sign_on_failed(
    subject: &str,
    place: &str,
    p: &Value,
    people: &People,
) -> (ExceptionKind, String, String, String) {
    let locked = if p["locked_until"].is_i64() {
        "; the ID is now locked"
    } else {
        ""
    };
    (
        ExceptionKind::SignOn,
        format!("sign-on failed for staff ID {subject}{place}{locked}"),
        people.who(Some(subject)),
        "a wrong or unknown staff ID, PIN, password or code".to_string(),
    )
}

fn act(
    at: i64,
    kind: EntryKind,
    subject: String,
    by: Option<&str>,
    p: &Value,
    people: &People,
) -> Act {
    let text = |k: &str| p[k].as_str().unwrap_or("").to_string();
    let who = || by.map_or_else(|| text("by"), |id| people.who(Some(id)));
    let place = match (p["site"].as_str(), p["terminal"].as_str()) {
        (Some(s), Some(t)) => format!(" at site {s} terminal {t}"),
        _ => p["address"]
            .as_str()
            .map(|a| format!(" from {a}"))
            .unwrap_or_default(),
    };
    if let Some(done) = DisplayAct::of(kind) {
        let what = format!("display {subject} {}", done.in_words());
        let (who, why) = (who(), text("reason"));
        return Act {
            micros: at,
            kind: ExceptionKind::Terminal,
            serial: None,
            what,
            who,
            why,
        };
    }
    let (kind, what, who, why) = match kind {
        EntryKind::SignOnFailed => sign_on_failed(&subject, &place, p, people),
        EntryKind::SignOnUnknownFailures => (
            ExceptionKind::SignOn,
            unknown_failures(p),
            "no one known".to_string(),
            "staff IDs that do not exist, tried (counted, not entered one by one)".to_string(),
        ),
        EntryKind::OverrideGranted => (
            ExceptionKind::Approval,
            format!(
                "a supervisor's approval to {} ticket {subject} for writer {} ({}){place}",
                text("action"),
                text("writer_name"),
                text("writer")
            ),
            format!("{} ({})", text("supervisor_name"), text("supervisor")),
            text("reason"),
        ),
        EntryKind::TerminalRegistered | EntryKind::TerminalCredentialRotated => {
            let done = if kind == EntryKind::TerminalRegistered {
                "registered"
            } else {
                "credential rotated"
            };
            (
                ExceptionKind::Terminal,
                format!("terminal {subject} {done}"),
                who(),
                text("reason"),
            )
        }
        _ => {
            let done = kind.as_str().trim_start_matches("staff_").replace('_', " ");
            (
                ExceptionKind::Staff,
                format!("staff ID {subject} ({}) {done}", people.who(Some(&subject))),
                who(),
                text("reason"),
            )
        }
    };
    let serial = (kind == ExceptionKind::Approval).then_some(subject);
    Act {
        micros: at,
        kind,
        serial,
        what,
        who,
        why,
    }
}
