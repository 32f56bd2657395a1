//! The bonus fund's movements (rule 13.2) against their entries, both ways: each movement as
//! recorded, and no entry without its movement (a movement removed would raise the balance a
//! draw may take).

use diesel::prelude::*;

use super::chain::Trail;
use super::Report;
use crate::bonus_fund::FundMovementRow;
use crate::db::schema::bonus_fund_movements;
use crate::db::DbConnection;

pub fn check(conn: &mut DbConnection, trail: &Trail, report: &mut Report) -> anyhow::Result<()> {
    let rows: Vec<FundMovementRow> = bonus_fund_movements::table
        .order(bonus_fund_movements::id)
        .select(FundMovementRow::as_select())
        .load(conn)?;
    for row in &rows {
        if trail.fund_moved.get(&row.id) != Some(&row.payload()) {
            report.differ(format!(
                "bonus fund movement {} ({} cents) differs from the one recorded",
                row.id, row.cents
            ));
        }
    }
    for id in trail.fund_moved.keys() {
        if !rows.iter().any(|r| r.id == *id) {
            report.differ(format!(
                "bonus fund movement {id} is in the audit trail but not in the record"
            ));
        }
    }
    let balance: i64 = rows.iter().map(|r| r.cents).sum();
    if balance < 0 {
        report.differ(format!("the bonus fund stands at {balance} cents, below 0"));
    }
    report.checked(format!(
        "{} movements of the bonus fund (balance {} cents)",
        rows.len(),
        balance
    ));
    Ok(())
}
