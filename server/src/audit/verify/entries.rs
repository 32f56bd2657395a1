//! A page of records' entries, read from the trail by kind and subject (the `audit_log_subject`
//! index), so that a check holds one page of records and their entries, never the whole trail.
//! The chain's own reading has already reported any entry whose payload cannot be read; such an
//! entry vouches for nothing here.

use std::collections::HashMap;

use diesel::prelude::*;
use serde_json::Value;

use crate::audit::kind::EntryKind;
use crate::db::schema::audit_log;
use crate::db::DbConnection;

/// Subjects per statement: within both backends' limits on bound parameters.
const CHUNK: usize = 5_000;

/// Each (kind, subject)'s entries among `kinds` for `subjects`, in the trail's order.
#[derive(Default)]
pub struct Entries(HashMap<(EntryKind, String), Vec<Value>>);

impl Entries {
    pub fn of(
        conn: &mut DbConnection,
        kinds: &[EntryKind],
        subjects: &[String],
    ) -> QueryResult<Entries> {
        let names: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
        let mut out: HashMap<(EntryKind, String), Vec<Value>> = HashMap::new();
        for chunk in subjects.chunks(CHUNK) {
            let rows: Vec<(String, String, String)> = audit_log::table
                .filter(audit_log::kind.eq_any(&names))
                .filter(audit_log::subject.eq_any(chunk))
                .order(audit_log::seq)
                .select((audit_log::kind, audit_log::subject, audit_log::payload))
                .load(conn)?;
            for (kind, subject, payload) in rows {
                // Only the kinds asked for are read, each a name `EntryKind` knows.
                let kind = kinds.iter().copied().find(|k| k.as_str() == kind);
                if let (Some(kind), Ok(payload)) = (kind, serde_json::from_str(&payload)) {
                    out.entry((kind, subject)).or_default().push(payload);
                }
            }
        }
        Ok(Entries(out))
    }

    /// The entries of `kind` for `subject`, oldest first.
    pub fn get(&self, kind: EntryKind, subject: &str) -> &[Value] {
        self.0
            .get(&(kind, subject.to_string()))
            .map_or(&[], Vec::as_slice)
    }

    /// The one entry of `kind` for `subject`, if there is one (the last, if several).
    pub fn one(&self, kind: EntryKind, subject: &str) -> Option<&Value> {
        self.get(kind, subject).last()
    }
}
