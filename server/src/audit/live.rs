//! The trail checked while the server runs (issue 33): each chain walked from where an
//! earlier look left it to its stored head, every entry linked to the one before and hashed as
//! stored. A writer with the database in hand (the triggers dropped) who changes, removes or
//! inserts an entry breaks its chain, and the next looks find it: the system is suspended
//! (`integrity::task`) rather than selling on a trail that no longer proves itself. A full
//! `audit verify` proves the whole history; this costs what was written since.

use diesel::prelude::*;

use crate::audit::chains::{self, Head, GENESIS};
use crate::audit::log::StoredEntry;
use crate::db::schema::audit_log;
use crate::db::DbConnection;

const PAGE: i64 = 5_000;

/// The triggers that keep the trail and its checkpoints append-only (the migrations'
/// `audit_log` and `audit_checkpoints`), as each backend names them.
const SQLITE_GUARDS: &[&str] = &[
    "audit_log_no_update",
    "audit_log_no_delete",
    "audit_checkpoints_no_update",
    "audit_checkpoints_no_delete",
];
const POSTGRES_GUARDS: &[&str] = &[
    "audit_log_no_change",
    "audit_log_no_truncate",
    "audit_checkpoints_no_change",
    "audit_checkpoints_no_truncate",
];

#[derive(QueryableByName)]
struct Named {
    #[diesel(sql_type = diesel::sql_types::Text)]
    name: String,
}

/// The trail is still append-only: every trigger that refuses a change or a removal is in
/// place (and, on PostgreSQL, enabled). Dropping one is the first step of a change behind the
/// server's back, whichever entry it then changes; what differs, in a sentence.
pub fn guarded(conn: &mut DbConnection) -> QueryResult<Result<(), String>> {
    let (expected, present): (&[&str], Vec<Named>) = match conn {
        DbConnection::Sqlite(c) => (
            SQLITE_GUARDS,
            diesel::sql_query("SELECT name FROM sqlite_master WHERE type = 'trigger'").load(c)?,
        ),
        DbConnection::Pg(c) => (
            POSTGRES_GUARDS,
            diesel::sql_query(
                "SELECT tgname::text AS name FROM pg_trigger WHERE NOT tgisinternal \
                 AND tgenabled <> 'D'",
            )
            .load(c)?,
        ),
    };
    let missing: Vec<&str> = expected
        .iter()
        .copied()
        .filter(|t| !present.iter().any(|p| p.name == *t))
        .collect();
    if missing.is_empty() {
        return Ok(Ok(()));
    }
    Ok(Err(format!(
        "the triggers that keep the audit trail append-only were removed or disabled ({}): \
         its entries can be changed behind the server's back",
        missing.join(", ")
    )))
}

/// Walks every chain from `since` (each chain's head as an earlier look reached it; a chain not
/// in it from its start) to its stored head. The heads reached, or what differs, in a sentence.
pub fn walk(conn: &mut DbConnection, since: &[Head]) -> QueryResult<Result<Vec<Head>, String>> {
    let heads = chains::heads(conn)?;
    if let Some(gone) = since
        .iter()
        .find(|s| !heads.iter().any(|h| h.chain == s.chain))
    {
        return Ok(Err(format!(
            "audit chain {} had entries to {} and now has no head",
            gone.chain, gone.seq
        )));
    }
    for head in &heads {
        let from = since.iter().find(|s| s.chain == head.chain);
        if let Err(said) = walk_chain(conn, head, from)? {
            return Ok(Err(said));
        }
    }
    Ok(Ok(heads))
}

/// One chain from `from` to `head`.
fn walk_chain(
    conn: &mut DbConnection,
    head: &Head,
    from: Option<&Head>,
) -> QueryResult<Result<(), String>> {
    let (mut after, mut prev) = from.map_or((0, GENESIS.to_string()), |f| (f.seq, f.hash.clone()));
    if after > 0 {
        let stored: Option<String> = audit_log::table
            .filter(audit_log::chain.eq(head.chain))
            .filter(audit_log::seq.eq(after))
            .select(audit_log::hash)
            .first(conn)
            .optional()?;
        if stored.as_deref() != Some(prev.as_str()) {
            return Ok(Err(format!(
                "entry {after} of audit chain {}, checked before, is {} now",
                head.chain,
                if stored.is_some() { "changed" } else { "gone" }
            )));
        }
    }
    loop {
        let page: Vec<StoredEntry> = audit_log::table
            .filter(audit_log::chain.eq(head.chain))
            .filter(audit_log::seq.gt(after))
            .filter(audit_log::seq.le(head.seq))
            .order(audit_log::seq)
            .limit(PAGE)
            .select(StoredEntry::as_select())
            .load(conn)?;
        for e in &page {
            if !e.follows(&prev) {
                return Ok(Err(format!(
                    "audit chain {} breaks at entry {} ({} {}): an entry was changed, removed or \
                     inserted under the running server",
                    head.chain, e.seq, e.kind, e.subject
                )));
            }
            prev = e.hash.clone();
            after = e.seq;
        }
        if (page.len() as i64) < PAGE {
            break;
        }
    }
    if after != head.seq || prev != head.hash {
        return Ok(Err(format!(
            "audit chain {} ends at entry {after} but its head says {}: entries were removed",
            head.chain, head.seq
        )));
    }
    Ok(Ok(()))
}
