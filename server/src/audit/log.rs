//! Appending to the hash-chained audit trail, in the transaction that makes the record.
//!
//! Each entry's hash covers the previous entry's hash in its chain and every field of the entry,
//! so a changed, removed or inserted entry breaks its chain from there on. Appends take a
//! chain's head row last in their transaction (after any game or ticket rows), so they hold it
//! only for the moment before commit and always in the same lock order; on PostgreSQL each
//! takes a chain no one else holds (`chains`), so appends do not wait on each other.

use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Integer, Nullable, Text};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::chains;
pub use super::kind::EntryKind;
use crate::db::prepared::fixed;
use crate::db::schema::audit_log;
use crate::db::{now_micros, DbConnection};

/// One record for the trail.
#[derive(Debug, Clone)]
pub struct Entry {
    pub kind: EntryKind,
    pub subject: String,
    /// Who did it, when a person or a device did.
    pub principal: Option<String>,
    /// The payload as JSON text, as the trail stores and hashes it.
    pub payload: String,
}

impl Entry {
    pub fn new(kind: EntryKind, subject: impl ToString, payload: Value) -> Entry {
        Entry::serialized(kind, subject, payload.to_string())
    }

    /// An entry whose payload is already JSON text (a sale's, made mostly before the sale
    /// writer's turn: `tickets::sale::sold_record`).
    pub fn serialized(kind: EntryKind, subject: impl ToString, payload: String) -> Entry {
        Entry {
            kind,
            subject: subject.to_string(),
            principal: None,
            payload,
        }
    }

    pub fn by(mut self, principal: &str) -> Entry {
        self.principal = Some(principal.to_string());
        self
    }
}

/// The hash of an entry chained after `prev_hash`.
pub fn entry_hash(
    prev_hash: &str,
    seq: i64,
    recorded_at: i64,
    kind: &str,
    subject: &str,
    principal: Option<&str>,
    payload: &str,
) -> String {
    let mut h = Sha256::new();
    for part in [
        prev_hash,
        &seq.to_string(),
        &recorded_at.to_string(),
        kind,
        subject,
        principal.unwrap_or(""),
        payload,
    ] {
        // Length-prefixed, so no two different entries hash the same bytes.
        h.update((part.len() as u64).to_be_bytes());
        h.update(part.as_bytes());
    }
    hex::encode(h.finalize())
}

/// An entry as stored, read back: what verify and the running server's look at the trail
/// (`audit::live`) check against its chain.
#[derive(Queryable, Selectable)]
#[diesel(table_name = audit_log)]
pub struct StoredEntry {
    pub seq: i64,
    pub chain: i32,
    pub recorded_at: i64,
    pub kind: String,
    pub subject: String,
    pub principal_id: Option<String>,
    pub payload: String,
    pub prev_hash: String,
    pub hash: String,
}

impl StoredEntry {
    /// Whether it follows the entry hashed `prev` in its chain and hashes as stored.
    pub fn follows(&self, prev: &str) -> bool {
        self.prev_hash == prev
            && self.hash
                == entry_hash(
                    prev,
                    self.seq,
                    self.recorded_at,
                    &self.kind,
                    &self.subject,
                    self.principal_id.as_deref(),
                    &self.payload,
                )
    }
}

struct NewEntry {
    seq: i64,
    chain: i32,
    recorded_at: i64,
    kind: &'static str,
    subject: String,
    principal_id: Option<String>,
    payload: String,
    prev_hash: String,
    hash: String,
}

/// Appends `entries` to a chain of the trail (`chains::hold`). Call it last in the transaction.
pub fn append(conn: &mut DbConnection, entries: Vec<Entry>) -> QueryResult<()> {
    if entries.is_empty() {
        return Ok(());
    }
    // Held to commit: the next append on this chain waits here, then reads this one's head.
    let held = chains::hold(conn, entries.len())?;
    let mut prev = held.prev;
    let now = now_micros();
    let mut rows = Vec::with_capacity(entries.len());
    for (e, seq) in entries.into_iter().zip(held.seqs) {
        let payload = e.payload;
        let hash = entry_hash(
            &prev,
            seq,
            now,
            e.kind.as_str(),
            &e.subject,
            e.principal.as_deref(),
            &payload,
        );
        rows.push(NewEntry {
            seq,
            chain: held.chain,
            recorded_at: now,
            kind: e.kind.as_str(),
            subject: e.subject,
            principal_id: e.principal,
            payload,
            prev_hash: std::mem::replace(&mut prev, hash.clone()),
            hash,
        });
    }
    let last = rows.last().map_or(0, |r| r.seq);
    match conn {
        DbConnection::Pg(c) => append_pg(c, &rows, (held.chain, last, &prev))?,
        DbConnection::Sqlite(c) => append_sqlite(c, &rows, (held.chain, last, &prev))?,
    }
    Ok(())
}

/// A row at a time, as the sale's rows (`tickets::numbered`), in statements of
/// fixed text that stay prepared (diesel's own leave a `None` principal out of the text, and
/// never keep an `UPDATE`).
fn append_sqlite(
    c: &mut diesel::SqliteConnection,
    rows: &[NewEntry],
    (chain, last, hash): (i32, i64, &str),
) -> QueryResult<()> {
    for r in rows {
        fixed(INSERT_ENTRY)
            .bind::<BigInt, _>(r.seq)
            .bind::<Integer, _>(r.chain)
            .bind::<BigInt, _>(r.recorded_at)
            .bind::<Text, _>(r.kind)
            .bind::<Text, _>(&r.subject)
            .bind::<Nullable<Text>, _>(r.principal_id.as_deref())
            .bind::<Text, _>(&r.payload)
            .bind::<Text, _>(&r.prev_hash)
            .bind::<Text, _>(&r.hash)
            .execute(c)?;
    }
    let moved = fixed(MOVE_HEAD)
        .bind::<BigInt, _>(last)
        .bind::<Text, _>(hash)
        .bind::<Integer, _>(chain)
        .execute(c)?;
    // The chain is there to move on: anything else is no append.
    match moved {
        1 => Ok(()),
        _ => Err(diesel::result::Error::NotFound),
    }
}

const INSERT_ENTRY: &str = "INSERT INTO audit_log (seq, chain, recorded_at, kind, subject, \
     principal_id, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";
const MOVE_HEAD: &str = "UPDATE audit_chains SET seq = ?, hash = ? WHERE chain = ?";

/// The entries and the chain's new head in one prepared statement, whatever their number.
fn append_pg(
    c: &mut diesel::PgConnection,
    rows: &[NewEntry],
    (chain, last, hash): (i32, i64, &str),
) -> QueryResult<()> {
    let text = |f: fn(&NewEntry) -> &str| rows.iter().map(f).collect::<Vec<&str>>();
    let moved = fixed(APPEND)
        .bind::<Integer, _>(chain)
        .bind::<BigInt, _>(rows.first().map_or(0, |r| r.recorded_at))
        .bind::<Array<BigInt>, _>(rows.iter().map(|r| r.seq).collect::<Vec<i64>>())
        .bind::<Array<Text>, _>(text(|r| r.kind))
        .bind::<Array<Text>, _>(text(|r| &r.subject))
        .bind::<Array<Nullable<Text>>, _>(
            rows.iter()
                .map(|r| r.principal_id.as_deref())
                .collect::<Vec<Option<&str>>>(),
        )
        .bind::<Array<Text>, _>(text(|r| &r.payload))
        .bind::<Array<Text>, _>(text(|r| &r.prev_hash))
        .bind::<Array<Text>, _>(text(|r| &r.hash))
        .bind::<BigInt, _>(last)
        .bind::<Text, _>(hash)
        .bind::<Integer, _>(chain)
        .execute(c)?;
    // The chain held a moment ago is there to move on: anything else is no append.
    match moved {
        1 => Ok(()),
        _ => Err(diesel::result::Error::NotFound),
    }
}

/// An append's entries (all recorded at one time) and its chain's head after them.
const APPEND: &str = "WITH entries AS (INSERT INTO audit_log (seq, chain, recorded_at, kind, \
     subject, principal_id, payload, prev_hash, hash) SELECT e.seq, ?, ?, e.kind, e.subject, \
     e.principal_id, e.payload, e.prev_hash, e.hash FROM unnest(?::bigint[], ?::text[], \
     ?::text[], ?::text[], ?::text[], ?::text[], ?::text[]) AS e(seq, kind, subject, \
     principal_id, payload, prev_hash, hash)) \
     UPDATE audit_chains SET seq = ?, hash = ? WHERE chain = ?";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Db;

    #[derive(QueryableByName)]
    struct Kept {
        #[diesel(sql_type = BigInt)]
        kept: i64,
    }

    /// The append's one statement is prepared once per session and kept (it was parsed and
    /// planned again at every batch while it was run with `execute`).
    #[test]
    fn the_trail_s_append_is_kept_prepared_on_postgresql() {
        let Some(test) = keno_testkit::TestDb::new(keno_testkit::Backend::Postgres) else {
            return;
        };
        let db = Db::open(&test.url, 1).unwrap();
        let mut conn = db.conn().unwrap();
        for i in 0..3 {
            let entry = Entry::new(EntryKind::TicketSold, i, serde_json::json!({"i": i}));
            append(&mut conn, vec![entry.clone(), entry]).unwrap();
        }
        let kept: Kept = diesel::sql_query(
            "SELECT count(*) AS kept FROM pg_prepared_statements WHERE statement LIKE \
             'WITH entries AS (INSERT INTO audit_log%'",
        )
        .get_result(&mut *conn)
        .unwrap();
        drop((conn, db));
        assert_eq!(kept.kept, 1);
    }
}
