//! A page of records' entries, read from the trail by kind and subject (the `audit_log_subject`
//! index), so that a check holds one page of records and their entries, never the whole trail.
//! The chain's own reading has already reported any entry whose payload cannot be read; such an
//! entry vouches for nothing here.

use std::collections::HashMap;

use diesel::prelude::*;
use serde_json::Value;

use crate::db::schema::audit_log;
use crate::db::DbConnection;

/// Subjects per statement: within both backends' limits on bound parameters.
const CHUNK: usize = 5_000;

/// Each (kind, subject)'s entries among `kinds` for `subjects`, in the trail's order.
#[derive(Default)]
pub struct Entries(HashMap<(String, String), Vec<Value>>);

impl Entries {
    pub fn of(
        conn: &mut DbConnection,
        kinds: &[&str],
        subjects: &[String],
    ) -> QueryResult<Entries> {
        let mut out: HashMap<(String, String), Vec<Value>> = HashMap::new();
        for chunk in subjects.chunks(CHUNK) {
            let rows: Vec<(String, String, String)> = audit_log::table
                .filter(audit_log::kind.eq_any(kinds))
                .filter(audit_log::subject.eq_any(chunk))
                .order(audit_log::seq)
                .select((audit_log::kind, audit_log::subject, audit_log::payload))
                .load(conn)?;
            for (kind, subject, payload) in rows {
                if let Ok(payload) = serde_json::from_str(&payload) {
                    out.entry((kind, subject)).or_default().push(payload);
                }
            }
        }
        Ok(Entries(out))
    }

    /// The entries of `kind` for `subject`, oldest first.
    pub fn get(&self, kind: &str, subject: &str) -> &[Value] {
        self.0
            .get(&(kind.to_string(), subject.to_string()))
            .map_or(&[], Vec::as_slice)
    }

    /// The one entry of `kind` for `subject`, if there is one (the last, if several).
    pub fn one(&self, kind: &str, subject: &str) -> Option<&Value> {
        self.get(kind, subject).last()
    }
}
