//! `GET /api/v1/tickets/{serial}/story`: a ticket's entries in the audit trail
//! (`tickets::story`).

use actix_web::{get, web};

use crate::auth::http::Require;
use crate::auth::Role;
use crate::error::ApiResult;
use crate::state::AppState;
use crate::tickets;
use crate::tickets::story::StoryEntry;

/// The audit trail's entries about one ticket, oldest first.
#[utoipa::path(
    tag = "tickets",
    security(("bearer" = [])),
    params(("serial" = String, Path)),
    responses(
        (status = 200, body = [StoryEntry]),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[get(
    "/api/v1/tickets/{serial}/story",
    wrap = "Require(&[Role::Supervisor, Role::Inspector, Role::Auditor])"
)]
pub async fn story(
    state: web::Data<AppState>,
    serial: web::Path<String>,
) -> ApiResult<web::Json<Vec<StoryEntry>>> {
    let serial = serial.into_inner();
    let entries = crate::store::snapshot(&state.store, move |conn| {
        tickets::story::story(conn, &serial)
    })
    .await?;
    Ok(web::Json(entries))
}
