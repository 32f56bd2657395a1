//! People and terminals against the trail, both ways: each person as the trail's changes leave
//! them (added, disabled, enabled, secret reset: name, role, whether disabled, and the digests
//! of the stored secret hash and TOTP secret), and each registered terminal's credential
//! digest. A person or credential changed, added or removed behind the server's back is a
//! difference.

use std::collections::HashMap;

use diesel::prelude::*;
use serde_json::Value;

use super::chain::Trail;
use super::Report;
use crate::audit::kind::EntryKind;
use crate::db::schema::{principals, terminals};
use crate::db::DbConnection;
use crate::staff::people::digest;
use crate::staff::{PrincipalKind, StaffRow};

/// A person as the trail says they are.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Person {
    /// `None` when the entry has none: it then differs from the table's.
    pub name: Option<String>,
    pub role: Option<String>,
    pub disabled: bool,
    pub secret_sha256: Option<String>,
    pub totp_sha256: Option<String>,
}

/// Applies one entry of a person's history.
pub fn replay(
    people: &mut HashMap<String, Person>,
    kind: EntryKind,
    id: String,
    payload: &Value,
    report: &mut Report,
) {
    // A field missing from the entry reads as none, and then differs from the table's.
    let text = |k: &str| payload[k].as_str().map(str::to_string);
    if kind == EntryKind::StaffAdded {
        let person = Person {
            name: text("name"),
            role: text("role"),
            disabled: false,
            secret_sha256: text("secret_sha256"),
            totp_sha256: payload["totp_sha256"].as_str().map(str::to_string),
        };
        if people.insert(id.clone(), person).is_some() {
            report.differ(format!("staff {id} is added twice in the audit trail"));
        }
        return;
    }
    let Some(person) = people.get_mut(&id) else {
        report.differ(format!("audit entry {kind} names staff {id}, never added"));
        return;
    };
    match kind {
        EntryKind::StaffDisabled => person.disabled = true,
        EntryKind::StaffEnabled => person.disabled = false,
        _ => {
            person.secret_sha256 = text("secret_sha256");
            person.totp_sha256 = payload["totp_sha256"].as_str().map(str::to_string);
        }
    }
}

pub fn check(conn: &mut DbConnection, trail: &Trail, report: &mut Report) -> anyhow::Result<()> {
    let rows: Vec<StaffRow> = principals::table
        .filter(principals::kind.ne(PrincipalKind::Token.as_str()))
        .select(StaffRow::as_select())
        .load(conn)?;
    let mut seen = 0;
    for row in &rows {
        seen += 1;
        if PrincipalKind::parse(&row.kind).is_none() {
            report.differ(format!("principal {}: unknown kind {:?}", row.id, row.kind));
            continue;
        }
        let stored = Person {
            name: Some(row.name.clone()),
            role: Some(row.role.clone()),
            disabled: row.disabled,
            secret_sha256: row.secret_hash.as_deref().map(digest),
            totp_sha256: row.totp_secret.as_deref().map(digest),
        };
        match trail.staff.get(&row.id) {
            None => report.differ(format!(
                "staff {} ({} {}) is not in the audit trail",
                row.id, row.role, row.name
            )),
            Some(person) if *person != stored => report.differ(format!(
                "staff {} ({} {}) differs from the audit trail (name, role, disabled, or a secret)",
                row.id, row.role, row.name
            )),
            Some(_) => {}
        }
    }
    for id in trail.staff.keys() {
        if !rows.iter().any(|r| &r.id == id) {
            report.differ(format!(
                "staff {id} of the audit trail is missing from the table"
            ));
        }
    }
    let registered: Vec<(String, String, Option<String>, Option<String>)> = terminals::table
        .select((
            terminals::site,
            terminals::terminal,
            terminals::credential_hash,
            terminals::venue,
        ))
        .load(conn)?;
    for (site, terminal, credential, venue) in &registered {
        let key = format!("{site}/{terminal}");
        if venue.as_ref() != trail.terminal_venues.get(&key).and_then(Option::as_ref) {
            report.differ(format!(
                "terminal {key}: its venue's name differs from the audit trail"
            ));
        }
        if credential.as_ref()
            != trail
                .terminal_credentials
                .get(&key)
                .and_then(Option::as_ref)
        {
            report.differ(format!(
                "terminal {key}: its credential differs from the audit trail"
            ));
        }
    }
    for key in trail.terminal_credentials.keys() {
        if !registered
            .iter()
            .any(|(s, t, _, _)| format!("{s}/{t}") == *key)
        {
            report.differ(format!(
                "terminal {key} of the audit trail is missing from the table"
            ));
        }
    }
    report.checked(format!(
        "{seen} staff and {} registered terminals against the audit trail",
        trail.terminal_credentials.len()
    ));
    Ok(())
}
