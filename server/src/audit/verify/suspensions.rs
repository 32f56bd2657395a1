//! Each suspension (issue 33) against its last entry in the trail, both ways: one ended, or its
//! keys or notes changed, by editing the database differs from what the trail recorded.

use diesel::prelude::*;

use super::chain::Trail;
use super::Report;
use crate::db::schema::suspensions;
use crate::db::DbConnection;
use crate::suspension::{recorded, SuspensionRow};

pub fn check(conn: &mut DbConnection, trail: &Trail, report: &mut Report) -> anyhow::Result<()> {
    let rows: Vec<SuspensionRow> = suspensions::table
        .order(suspensions::id)
        .select(SuspensionRow::as_select())
        .load(conn)?;
    for row in &rows {
        if trail.suspensions.get(&row.id) != Some(&recorded(row)) {
            report.differ(format!(
                "suspension {} ({}) differs from its last entry in the audit trail: it was \
                 changed behind the server's back",
                row.id,
                row.cause.words()
            ));
        }
    }
    for id in trail.suspensions.keys() {
        if !rows.iter().any(|r| r.id == *id) {
            report.differ(format!(
                "suspension {id} is in the audit trail but not in the suspensions table"
            ));
        }
    }
    report.checked(format!("{} suspension(s)", rows.len()));
    Ok(())
}
