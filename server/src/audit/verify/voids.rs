//! Voided wagers (rule 17.2) against their entries, both ways: each void as recorded, and each
//! voided ticket with its void (a void removed would make its prizes payable again).

use diesel::prelude::*;

use super::chain::Trail;
use super::Report;
use crate::db::schema::{ticket_voids, tickets};
use crate::db::DbConnection;
use crate::tickets::void::VoidRow;
use keno_core::TicketStatus;

pub fn check(conn: &mut DbConnection, trail: &Trail, report: &mut Report) -> anyhow::Result<()> {
    let rows: Vec<VoidRow> = ticket_voids::table
        .order(ticket_voids::serial)
        .select(VoidRow::as_select())
        .load(conn)?;
    for v in &rows {
        if trail.voided.get(&v.serial) != Some(&v.payload()) {
            report.differ(format!(
                "the void of ticket {} differs from the one recorded",
                v.serial
            ));
        }
    }
    let voided: Vec<String> = tickets::table
        .filter(tickets::status.eq(TicketStatus::Voided.as_str()))
        .select(tickets::serial)
        .load(conn)?;
    for serial in trail.voided.keys().chain(&voided) {
        if !rows.iter().any(|v| &v.serial == serial) {
            report.differ(format!(
                "ticket {serial} is voided in the trail or its status but has no void"
            ));
        }
    }
    report.checked(format!("{} voided tickets", rows.len()));
    Ok(())
}
