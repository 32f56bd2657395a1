//! `GET /api/v1/tickets?limit=`: a terminal's last sales, newest first. A writer reads the
//! sales of the terminal signed on at (the counter's `ls`: what was just sold, to cancel or
//! reprint the right one); the room's staff name the site and terminal.

use diesel::prelude::*;

use super::{Ticket, TicketRow};
use crate::auth::{Principal, Role};
use crate::db::schema::tickets;
use crate::db::DbConnection;
use crate::error::{DomainResult, Failure};
use crate::rule_sets::RuleSets;
use keno_api::Refusal;

/// The most a call lists: a terminal's recent sales, not its history (the audit exports are).
const MOST: i64 = 100;

/// How many sales a call lists: `asked`, 10 by default, at most `MOST`.
pub fn limit(asked: Option<i64>) -> DomainResult<i64> {
    let limit = asked.unwrap_or(10);
    if !(1..=MOST).contains(&limit) {
        return Err(Failure::refuse(
            Refusal::InvalidRange,
            "limit is 1 to 100 tickets",
        ));
    }
    Ok(limit)
}

/// The site and terminal whose sales `principal` may list, of those `asked` (site, terminal):
/// a writer's own; the room's staff name them.
pub fn whose(
    principal: &Principal,
    asked: (Option<&str>, Option<&str>),
) -> DomainResult<(String, String)> {
    if principal.role == Role::Writer {
        let (Some(site), Some(terminal)) = (&principal.site, &principal.terminal) else {
            return Err(Failure::forbidden(
                "this writer is signed on at no terminal",
            ));
        };
        let other = |asked: Option<&str>, own: &String| asked.is_some_and(|a| a != own);
        if other(asked.0, site) || other(asked.1, terminal) {
            return Err(Failure::forbidden(
                "a writer lists the sales of the terminal signed on at only",
            ));
        }
        return Ok((site.clone(), terminal.clone()));
    }
    match asked {
        (Some(site), Some(terminal)) => Ok((site.to_string(), terminal.to_string())),
        _ => Err(Failure::refuse(
            Refusal::InvalidTerminal,
            "give the site and the terminal whose sales to list",
        )),
    }
}

/// The last `limit` sales at terminal `terminal` of site `site`, newest first.
pub fn recent(
    rule_sets: &RuleSets,
    conn: &mut DbConnection,
    (site, terminal): (&str, &str),
    limit: i64,
) -> DomainResult<Vec<Ticket>> {
    let rows: Vec<TicketRow> = tickets::table
        .filter(tickets::site.eq(site))
        .filter(tickets::terminal.eq(terminal))
        .order(tickets::ticket_number.desc())
        .limit(limit)
        .select(TicketRow::as_select())
        .load(conn)?;
    rows.iter()
        .map(|t| super::view(rule_sets, conn, t))
        .collect()
}
