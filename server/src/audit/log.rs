//! Appending to the hash-chained audit trail, in the transaction that makes the record.
//!
//! Each entry's hash covers the previous entry's hash and every field of the entry, so a
//! changed, removed or inserted entry breaks the chain from there on. Appends take the chain's
//! head row last in their transaction (after any game or ticket rows), so they serialize only
//! for the moment before commit and always in the same lock order.

use diesel::prelude::*;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::db::schema::{audit_head, audit_log};
use crate::db::{now_micros, per_backend, DbConnection};

/// One record for the trail.
#[derive(Debug, Clone)]
pub struct Entry {
    pub kind: &'static str,
    pub subject: String,
    /// Who did it, when a person or a device did.
    pub principal: Option<String>,
    pub payload: Value,
}

impl Entry {
    pub fn new(kind: &'static str, subject: impl ToString, payload: Value) -> Entry {
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

#[derive(Insertable)]
#[diesel(table_name = audit_log)]
struct NewEntry {
    seq: i64,
    recorded_at: i64,
    kind: &'static str,
    subject: String,
    principal_id: Option<String>,
    payload: String,
    prev_hash: String,
    hash: String,
}

/// Appends `entries` to the chain. Call it last in the transaction.
pub fn append(conn: &mut DbConnection, entries: Vec<Entry>) -> QueryResult<()> {
    if entries.is_empty() {
        return Ok(());
    }
    // Held to commit: the next append waits here, then reads this one's head.
    diesel::update(audit_head::table.find(1))
        .set(audit_head::seq.eq(audit_head::seq))
        .execute(conn)?;
    let (mut seq, mut prev): (i64, String) = audit_head::table
        .find(1)
        .select((audit_head::seq, audit_head::hash))
        .first(conn)?;
    let now = now_micros();
    let mut rows = Vec::with_capacity(entries.len());
    for e in entries {
        seq += 1;
        let payload = e.payload.to_string();
        let hash = entry_hash(
            &prev,
            seq,
            now,
            e.kind,
            &e.subject,
            e.principal.as_deref(),
            &payload,
        );
        rows.push(NewEntry {
            seq,
            recorded_at: now,
            kind: e.kind,
            subject: e.subject,
            principal_id: e.principal,
            payload,
            prev_hash: std::mem::replace(&mut prev, hash.clone()),
            hash,
        });
    }
    // Chunks stay under both backends' limits on bound parameters.
    for chunk in rows.chunks(500) {
        per_backend!(conn, |c| diesel::insert_into(audit_log::table)
            .values(chunk)
            .execute(c))?;
    }
    diesel::update(audit_head::table.find(1))
        .set((audit_head::seq.eq(seq), audit_head::hash.eq(&prev)))
        .execute(conn)?;
    Ok(())
}
