//! `GET /api/v1/tickets?limit=`: a terminal's last sales, newest first. A writer reads the
//! sales of the terminal signed on at (the counter's `ls`: what was just sold, to cancel or
//! reprint the right one); the room's staff name the site and terminal.

use actix_web::{get, web};
use diesel::prelude::*;
use serde::Deserialize;
use utoipa::IntoParams;

use super::{Ticket, TicketRow};
use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::db::schema::tickets;
use crate::error::{ApiResult, Failure};
use crate::state::AppState;
use keno_api::Refusal;

/// The most a call lists: a terminal's recent sales, not its history (the audit exports are).
const MOST: i64 = 100;

#[derive(Debug, Deserialize, IntoParams)]
pub struct RecentQuery {
    /// How many, newest first (default 10, at most 100).
    pub limit: Option<i64>,
    /// The terminal's site: given by a supervisor, inspector or auditor; a writer's is the
    /// session's.
    pub site: Option<String>,
    pub terminal: Option<String>,
}

/// The site and terminal whose sales `principal` may list.
fn whose(principal: &Principal, q: &RecentQuery) -> Result<(String, String), Failure> {
    if principal.role == Role::Writer {
        let (Some(site), Some(terminal)) = (&principal.site, &principal.terminal) else {
            return Err(Failure::forbidden(
                "this writer is signed on at no terminal",
            ));
        };
        let other = |asked: &Option<String>, own: &String| asked.as_ref().is_some_and(|a| a != own);
        if other(&q.site, site) || other(&q.terminal, terminal) {
            return Err(Failure::forbidden(
                "a writer lists the sales of the terminal signed on at only",
            ));
        }
        return Ok((site.clone(), terminal.clone()));
    }
    match (&q.site, &q.terminal) {
        (Some(site), Some(terminal)) => Ok((site.clone(), terminal.clone())),
        _ => Err(Failure::refuse(
            Refusal::InvalidTerminal,
            "give the site and the terminal whose sales to list",
        )),
    }
}

/// A terminal's last sales, newest first.
#[utoipa::path(
    tag = "tickets",
    security(("bearer" = [])),
    params(RecentQuery),
    responses(
        (status = 200, body = [Ticket]),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_range`: limit is 1 to 100; `invalid_terminal`: the room's staff name a site and terminal"),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[get(
    "/api/v1/tickets",
    wrap = "Require(&[Role::Writer, Role::Supervisor, Role::Inspector, Role::Auditor])"
)]
pub async fn recent(
    state: web::Data<AppState>,
    principal: Principal,
    query: web::Query<RecentQuery>,
) -> ApiResult<web::Json<Vec<Ticket>>> {
    let q = query.into_inner();
    let limit = q.limit.unwrap_or(10);
    if !(1..=MOST).contains(&limit) {
        return Err(Failure::refuse(Refusal::InvalidRange, "limit is 1 to 100 tickets").into());
    }
    let (site, terminal) = whose(&principal, &q)?;
    let sold = crate::state::read(&state, move |state, conn| {
        let rows: Vec<TicketRow> = tickets::table
            .filter(tickets::site.eq(&site))
            .filter(tickets::terminal.eq(&terminal))
            .order(tickets::ticket_number.desc())
            .limit(limit)
            .select(TicketRow::as_select())
            .load(conn)?;
        rows.iter().map(|t| super::view(state, conn, t)).collect()
    })
    .await?;
    Ok(web::Json(sold))
}
