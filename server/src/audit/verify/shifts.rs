//! Writers' shifts against their entries, both ways: each opening, close and sign-off as
//! recorded, and every shift of the trail in the record. Each closed shift's drawer is summed
//! again from the records of its acts (the same sums and core arithmetic the close used), so a
//! changed expected cash, count or over/short, or a sale, payment or voucher changed under a
//! closed shift, is found.

use std::collections::BTreeSet;

use diesel::prelude::*;
use keno_core::{expected_cash, DrawerMovements};

use super::chain::Trail;
use super::Report;
use crate::db::schema::shifts;
use crate::db::DbConnection;
use crate::shifts::ShiftRow;

/// Every shift (from a checkpoint, those its later entries name) against its entries.
pub fn check(conn: &mut DbConnection, trail: &Trail, report: &mut Report) -> anyhow::Result<()> {
    let query = shifts::table
        .order(shifts::id)
        .select(ShiftRow::as_select())
        .into_boxed();
    let rows: Vec<ShiftRow> = match &trail.since {
        None => query.load(conn)?,
        Some(since) => {
            let ids: Vec<i64> = since.shifts.iter().filter_map(|s| s.parse().ok()).collect();
            query.filter(shifts::id.eq_any(ids)).load(conn)?
        }
    };
    for row in &rows {
        let cash = row.movements(conn)?;
        against_trail(row, &cash, trail, report);
        if row.closed_at.is_some() {
            balanced(row, &cash, report)?;
        }
    }
    let known: BTreeSet<i64> = rows.iter().map(|r| r.id).collect();
    let recorded = trail
        .shifts_opened
        .keys()
        .chain(trail.shifts_closed.keys())
        .chain(trail.shifts_signed_off.keys());
    for id in recorded.collect::<BTreeSet<_>>() {
        if !known.contains(id) {
            report.differ(format!(
                "shift {id} is in the audit trail but not in the record"
            ));
        }
    }
    report.checked(format!(
        "{} shifts, each closed one's drawer summed again",
        rows.len()
    ));
    Ok(())
}

/// The opening, close and sign-off of `row` as its entries record them.
fn against_trail(row: &ShiftRow, cash: &DrawerMovements, trail: &Trail, report: &mut Report) {
    let id = row.id;
    if trail.shifts_opened.get(&id) != Some(&row.opened_payload()) {
        report.differ(format!(
            "the opening of shift {id} differs from the one recorded"
        ));
    }
    let same = |stored: Option<serde_json::Value>, recorded: Option<&serde_json::Value>| {
        stored.as_ref() == recorded
    };
    if !same(row.closed_payload(cash), trail.shifts_closed.get(&id)) {
        report.differ(format!(
            "the close of shift {id} (its count, expected cash, over/short or the drawer's \
             movements) differs from the one recorded"
        ));
    }
    if !same(row.signed_off_payload(), trail.shifts_signed_off.get(&id)) {
        report.differ(format!(
            "the sign-off of shift {id} differs from the one recorded"
        ));
    }
    if row.signed_off_at.is_some() && !row.sign_off_required {
        report.differ(format!(
            "shift {id} is signed off but closed within the tolerance"
        ));
    }
}

/// A closed shift's expected cash from its drawer's records, and its over/short from the count.
fn balanced(row: &ShiftRow, cash: &DrawerMovements, report: &mut Report) -> anyhow::Result<()> {
    let id = row.id;
    let expected = expected_cash(row.float()?, cash);
    if row.expected_cents != Some(expected) {
        report.differ(format!(
            "shift {id}: the records of its drawer give {expected} cents expected, the shift \
             holds {:?}",
            row.expected_cents
        ));
    }
    let over_short = row
        .counted_cents
        .zip(row.expected_cents)
        .and_then(|(counted, expected)| counted.checked_sub(expected));
    if row.over_short_cents != over_short {
        report.differ(format!(
            "shift {id}: over/short {:?} is not the count less the expected cash ({over_short:?})",
            row.over_short_cents
        ));
    }
    Ok(())
}
