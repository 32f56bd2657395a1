//! Registered terminals (rule 5.1: an entry only through a writer terminal). A terminal is
//! registered with its site and number and given its own credential, kept in its config: the
//! bearer token of a writer's sign-on there, and of nothing else. A rotation replaces the
//! credential (the old one stops at once). The trail keeps the credential's digest, as the
//! table does, so `audit verify` finds a credential swapped behind the server's back.

use diesel::prelude::*;
use keno_api::staff::{TerminalCredential, TerminalInfo};
use keno_api::Refusal;

use super::people::Actor;
use super::{check_code, secret};
use crate::audit::log::{append, Entry};
use crate::auth::token_hash;
use crate::db::schema::terminals;
use crate::db::{now_micros, rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};

#[derive(Queryable, Selectable, Clone, Debug)]
#[diesel(table_name = terminals)]
pub struct TerminalRow {
    pub site: String,
    pub terminal: String,
    pub last_ticket_number: i64,
    pub credential_hash: Option<String>,
    pub registered_at: Option<i64>,
    pub venue: Option<String>,
}

impl From<TerminalRow> for TerminalInfo {
    fn from(t: TerminalRow) -> Self {
        TerminalInfo {
            registered: t.credential_hash.is_some(),
            site: t.site,
            terminal: t.terminal,
            registered_at: t.registered_at.map(rfc3339),
            last_ticket_number: t.last_ticket_number,
            venue: t.venue,
        }
    }
}

fn find(conn: &mut DbConnection, site: &str, terminal: &str) -> QueryResult<Option<TerminalRow>> {
    terminals::table
        .find((site, terminal))
        .select(TerminalRow::as_select())
        .first(conn)
        .optional()
}

/// Registers a terminal (or one known only from legacy writer tokens) and answers its
/// credential; `terminal_registered` if it already has one (rotate it instead). `venue` is the
/// name players know the site by.
pub fn register_in(
    conn: &mut DbConnection,
    by: &Actor,
    (site, terminal): (&str, &str),
    venue: Option<&str>,
    reason: &str,
) -> DomainResult<TerminalCredential> {
    let site = check_code("site", site, Refusal::InvalidTerminal)?;
    let terminal = check_code("terminal", terminal, Refusal::InvalidTerminal)?;
    let reason = crate::reason::reason(reason)?;
    let venue = crate::reason::kept_optional(
        "the venue's name",
        venue.map(str::trim).filter(|v| !v.is_empty()),
        100,
        Refusal::InvalidTerminal,
    )?;
    let credential = secret::new_token("kt_");
    let now = now_micros();
    match find(conn, &site, &terminal)? {
        Some(t) if t.credential_hash.is_some() => {
            return Err(Failure::refuse(
                Refusal::TerminalRegistered,
                format!("terminal {site}/{terminal} is registered: rotate its credential instead"),
            ))
        }
        Some(_) => {
            set_credential(conn, &site, &terminal, &credential, now)?;
            diesel::update(terminals::table.find((&site, &terminal)))
                .set(terminals::venue.eq(&venue))
                .execute(conn)?;
        }
        None => {
            diesel::insert_into(terminals::table)
                .values((
                    terminals::site.eq(&site),
                    terminals::terminal.eq(&terminal),
                    terminals::last_ticket_number.eq(0i64),
                    terminals::credential_hash.eq(token_hash(&credential)),
                    terminals::registered_at.eq(now),
                    terminals::venue.eq(&venue),
                ))
                .execute(conn)?;
        }
    }
    record(
        conn,
        by,
        crate::audit::kind::EntryKind::TerminalRegistered,
        (&site, &terminal, venue.as_deref()),
        &credential,
        now,
        &reason,
    )?;
    Ok(TerminalCredential {
        site,
        terminal,
        credential,
    })
}

/// A new credential for a registered terminal; the old one stops at once.
pub fn rotate_in(
    conn: &mut DbConnection,
    by: &Actor,
    site: &str,
    terminal: &str,
    reason: &str,
) -> DomainResult<TerminalCredential> {
    let reason = crate::reason::reason(reason)?;
    match find(conn, site, terminal)? {
        Some(t) if t.credential_hash.is_some() => {}
        _ => return Err(Failure::not_found("registered terminal")),
    }
    let credential = secret::new_token("kt_");
    let now = now_micros();
    set_credential(conn, site, terminal, &credential, now)?;
    record(
        conn,
        by,
        crate::audit::kind::EntryKind::TerminalCredentialRotated,
        (site, terminal, None),
        &credential,
        now,
        &reason,
    )?;
    Ok(TerminalCredential {
        site: site.to_string(),
        terminal: terminal.to_string(),
        credential,
    })
}

fn set_credential(
    conn: &mut DbConnection,
    site: &str,
    terminal: &str,
    credential: &str,
    now: i64,
) -> QueryResult<usize> {
    diesel::update(terminals::table.find((site, terminal)))
        .set((
            terminals::credential_hash.eq(token_hash(credential)),
            terminals::registered_at.eq(now),
        ))
        .execute(conn)
}

fn record(
    conn: &mut DbConnection,
    by: &Actor,
    kind: crate::audit::kind::EntryKind,
    (site, terminal, venue): (&str, &str, Option<&str>),
    credential: &str,
    now: i64,
    reason: &str,
) -> QueryResult<()> {
    let mut payload = serde_json::json!({
        "site": site, "terminal": terminal, "credential_sha256": token_hash(credential),
        "at": now, "by": by.name, "reason": reason,
    });
    // Only when named: a registration without one reads as it always has.
    if let Some(venue) = venue {
        payload["venue"] = venue.into();
    }
    append(
        conn,
        vec![by.entry(Entry::new(kind, format!("{site}/{terminal}"), payload))],
    )
}

pub fn list_in(
    conn: &mut DbConnection,
    (limit, after): (i64, &str),
) -> QueryResult<Vec<TerminalInfo>> {
    // `after` is the last terminal's "site/terminal": the rows after it in (site, terminal)
    // order.
    let (site, terminal) = after.split_once('/').unwrap_or((after, ""));
    Ok(terminals::table
        .filter(
            terminals::site.gt(site).or(terminals::site
                .eq(site)
                .and(terminals::terminal.gt(terminal))),
        )
        .order((terminals::site, terminals::terminal))
        .limit(limit)
        .select(TerminalRow::as_select())
        .load(conn)?
        .into_iter()
        .map(TerminalInfo::from)
        .collect())
}
