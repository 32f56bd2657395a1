//! `GET /api/v1/tickets?limit=`: a terminal's last sales, newest first (`tickets::recent`).

use actix_web::{get, web};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::error::ApiResult;
use crate::state::AppState;
use crate::tickets::{self, Ticket};

#[derive(Debug, Deserialize, IntoParams)]
pub struct RecentQuery {
    /// How many, newest first (default 10, at most 100).
    pub limit: Option<i64>,
    /// The terminal's site: given by a supervisor, inspector or auditor; a writer's is the
    /// session's.
    pub site: Option<String>,
    pub terminal: Option<String>,
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
    let limit = tickets::recent::limit(q.limit)?;
    let (site, terminal) =
        tickets::recent::whose(&principal, (q.site.as_deref(), q.terminal.as_deref()))?;
    let s = state.clone();
    // Synced: the list may hold a sale whose own answer still waits for its sync, and a
    // writer may reprint what it shows.
    let read =
        move |conn: &mut _| tickets::recent::recent(&s.rule_sets, conn, (&site, &terminal), limit);
    let sold = crate::store::read_synced(&state.store, read, |sold| !sold.is_empty()).await?;
    Ok(web::Json(sold))
}
