//! Registered displays (issue 31): a venue's board, registered by a supervisor or at the
//! server's command line, holds a credential of its own (`kd_` and 64 hex digits, stored as
//! its SHA-256). Presented with `GET /api/v1/events` it gets the board a stream outside the
//! caps anonymous streams share (`events::slots`), so no crowd of idle clients shuts the
//! venue's board out. It grants nothing else: it is no principal, and every endpoint behind a
//! token refuses it. The trail keeps each act with who and why, and the credential's digest.
//!
//! - [`cli`]: `keno-server display ...`; the supervisors' HTTP endpoints, and the credential
//!   presented with a stream judged as a bearer token is, are `routes::displays`.

pub mod cli;

use diesel::prelude::*;
use keno_api::displays::{DisplayCredential, DisplayInfo};
use keno_api::Refusal;

use crate::audit::kind::EntryKind;
use crate::audit::log::{append, Entry};
use crate::auth::token_hash;
use crate::db::schema::displays;
use crate::db::{now_micros, rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::staff::check_code;
use crate::staff::people::Actor;

/// How a display's credential begins: told from a principal's token at a glance, so a bearer
/// token of another kind sent with a stream is ignored as it always was.
pub const CREDENTIAL_PREFIX: &str = "kd_";

/// What was done to a display, as the audit trail names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DisplayAct {
    Registered,
    CredentialRotated,
    Disabled,
}

impl DisplayAct {
    const ALL: [DisplayAct; 3] = [
        DisplayAct::Registered,
        DisplayAct::CredentialRotated,
        DisplayAct::Disabled,
    ];

    /// The kind of its entry in the trail.
    pub fn kind(self) -> EntryKind {
        match self {
            DisplayAct::Registered => EntryKind::DisplayRegistered,
            DisplayAct::CredentialRotated => EntryKind::DisplayCredentialRotated,
            DisplayAct::Disabled => EntryKind::DisplayDisabled,
        }
    }

    /// What was done, for the day's exceptions.
    pub fn in_words(self) -> &'static str {
        match self {
            DisplayAct::Registered => "registered",
            DisplayAct::CredentialRotated => "credential rotated",
            DisplayAct::Disabled => "disabled",
        }
    }

    pub fn of(kind: EntryKind) -> Option<DisplayAct> {
        DisplayAct::ALL.into_iter().find(|a| a.kind() == kind)
    }
}

#[derive(Queryable, Selectable, Clone, Debug)]
#[diesel(table_name = displays)]
pub struct DisplayRow {
    pub site: String,
    pub display: String,
    pub credential_hash: String,
    pub registered_at: i64,
    pub credential_at: i64,
    pub disabled: bool,
}

impl DisplayRow {
    /// The display's name among the streams: `SITE/DISPLAY`.
    pub fn key(&self) -> String {
        format!("{}/{}", self.site, self.display)
    }
}

impl From<DisplayRow> for DisplayInfo {
    fn from(d: DisplayRow) -> Self {
        DisplayInfo {
            site: d.site,
            display: d.display,
            registered_at: rfc3339(d.registered_at),
            credential_at: rfc3339(d.credential_at),
            disabled: d.disabled,
        }
    }
}

fn find(conn: &mut DbConnection, site: &str, display: &str) -> QueryResult<Option<DisplayRow>> {
    displays::table
        .find((site, display))
        .select(DisplayRow::as_select())
        .first(conn)
        .optional()
}

/// Registers a display and answers its credential; `display_registered` if it is already
/// (rotate its credential instead).
pub fn register_in(
    conn: &mut DbConnection,
    by: &Actor,
    site: &str,
    display: &str,
    reason: &str,
) -> DomainResult<DisplayCredential> {
    let site = check_code("site", site, Refusal::InvalidDisplay)?;
    let display = check_code("display", display, Refusal::InvalidDisplay)?;
    let reason = crate::reason::reason(reason)?;
    if find(conn, &site, &display)?.is_some() {
        return Err(Failure::refuse(
            Refusal::DisplayRegistered,
            format!("display {site}/{display} is registered: rotate its credential instead"),
        ));
    }
    let credential = crate::staff::secret::new_token(CREDENTIAL_PREFIX);
    let now = now_micros();
    diesel::insert_into(displays::table)
        .values((
            displays::site.eq(&site),
            displays::display.eq(&display),
            displays::credential_hash.eq(token_hash(&credential)),
            displays::registered_at.eq(now),
            displays::credential_at.eq(now),
            displays::disabled.eq(false),
        ))
        .execute(conn)?;
    let made = DisplayCredential {
        site,
        display,
        credential,
    };
    record(conn, by, DisplayAct::Registered, &made, now, &reason)?;
    Ok(made)
}

/// A new credential for a registered display, enabled again if it was disabled: the old
/// credential stops at once.
pub fn rotate_in(
    conn: &mut DbConnection,
    by: &Actor,
    site: &str,
    display: &str,
    reason: &str,
) -> DomainResult<DisplayCredential> {
    let reason = crate::reason::reason(reason)?;
    if find(conn, site, display)?.is_none() {
        return Err(Failure::not_found("registered display"));
    }
    let credential = crate::staff::secret::new_token(CREDENTIAL_PREFIX);
    let now = now_micros();
    diesel::update(displays::table.find((site, display)))
        .set((
            displays::credential_hash.eq(token_hash(&credential)),
            displays::credential_at.eq(now),
            displays::disabled.eq(false),
        ))
        .execute(conn)?;
    let made = DisplayCredential {
        site: site.to_string(),
        display: display.to_string(),
        credential,
    };
    record(conn, by, DisplayAct::CredentialRotated, &made, now, &reason)?;
    Ok(made)
}

/// Disables a display: its credential is refused from now on (a stream it holds runs until
/// it ends; the next one needs a credential that works).
pub fn disable_in(
    conn: &mut DbConnection,
    by: &Actor,
    site: &str,
    display: &str,
    reason: &str,
) -> DomainResult<DisplayInfo> {
    let reason = crate::reason::reason(reason)?;
    let row = find(conn, site, display)?.ok_or_else(|| Failure::not_found("registered display"))?;
    if row.disabled {
        return Err(Failure::refuse(
            Refusal::AlreadyDisabled,
            format!("display {site}/{display} is disabled already"),
        ));
    }
    let now = now_micros();
    diesel::update(displays::table.find((site, display)))
        .set(displays::disabled.eq(true))
        .execute(conn)?;
    let payload = serde_json::json!({
        "site": site, "display": display, "at": now, "by": by.name, "reason": reason,
    });
    let entry = Entry::new(DisplayAct::Disabled.kind(), row.key(), payload);
    append(conn, vec![by.entry(entry)])?;
    Ok(DisplayInfo::from(DisplayRow {
        disabled: true,
        ..row
    }))
}

/// The trail's entry of a credential made: its digest, as the table keeps it.
fn record(
    conn: &mut DbConnection,
    by: &Actor,
    act: DisplayAct,
    made: &DisplayCredential,
    now: i64,
    reason: &str,
) -> QueryResult<()> {
    let payload = serde_json::json!({
        "site": made.site, "display": made.display,
        "credential_sha256": token_hash(&made.credential),
        "at": now, "by": by.name, "reason": reason,
    });
    let subject = format!("{}/{}", made.site, made.display);
    append(
        conn,
        vec![by.entry(Entry::new(act.kind(), subject, payload))],
    )
}

/// A page of the displays in (site, display) order, after `after` (`SITE/DISPLAY`).
pub fn list_in(
    conn: &mut DbConnection,
    (limit, after): (i64, &str),
) -> QueryResult<Vec<DisplayInfo>> {
    let (site, display) = after.split_once('/').unwrap_or((after, ""));
    Ok(displays::table
        .filter(
            displays::site
                .gt(site)
                .or(displays::site.eq(site).and(displays::display.gt(display))),
        )
        .order((displays::site, displays::display))
        .limit(limit)
        .select(DisplayRow::as_select())
        .load(conn)?
        .into_iter()
        .map(DisplayInfo::from)
        .collect())
}

/// The enabled display whose credential has the digest `hash`.
pub fn by_credential(conn: &mut DbConnection, hash: &str) -> QueryResult<Option<DisplayRow>> {
    let row = displays::table
        .filter(displays::credential_hash.eq(hash))
        .filter(displays::disabled.eq(false))
        .select(DisplayRow::as_select())
        .first(conn)
        .optional()?;
    // As for bearer tokens: no collation or index slip admits a near miss.
    use subtle::ConstantTimeEq;
    Ok(row.filter(|r| bool::from(r.credential_hash.as_bytes().ct_eq(hash.as_bytes()))))
}
