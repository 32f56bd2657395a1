//! `GET/POST /api/v1/terminals` and `POST /api/v1/terminals/{site}/{terminal}/rotate`:
//! registered terminals (`staff::terminals`).

use actix_web::{get, post, web, HttpResponse};
use keno_api::staff::{RegisterTerminal, TerminalCredential, TerminalInfo};

use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::error::ApiResult;
use crate::staff::people::Actor;
use crate::staff::terminals::{list_in, register_in, rotate_in};
use crate::state::AppState;

/// A page of the terminals, by site and terminal.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
pub struct TerminalQuery {
    /// At most this many terminals (1 to 500, the default).
    pub limit: Option<i64>,
    /// Only terminals after this one, written `SITE/TERMINAL`: the next page, from the last of
    /// a full one.
    pub after: Option<String>,
}

/// Every terminal, registered or known from legacy writer tokens, by site and terminal, a page
/// at a time.
#[utoipa::path(
    tag = "staff",
    security(("bearer" = [])),
    params(TerminalQuery),
    responses((status = 200, body = Vec<TerminalInfo>), (status = 400, body = crate::error::ErrorBody, description = "`invalid_range`: limit is 1 to 500"), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody))
)]
#[get("/api/v1/terminals", wrap = "Require(&[Role::Supervisor])")]
pub async fn list(
    state: web::Data<AppState>,
    query: web::Query<TerminalQuery>,
) -> ApiResult<web::Json<Vec<TerminalInfo>>> {
    let limit = crate::paging::limit(query.limit)?;
    let after = query.into_inner().after.unwrap_or_default();
    Ok(web::Json(
        crate::store::read(&state.store, move |conn| {
            Ok(list_in(conn, (limit, &after))?)
        })
        .await?,
    ))
}

/// Registers a terminal: its credential is shown once, for the terminal's config.
#[utoipa::path(
    tag = "staff",
    security(("bearer" = [])),
    request_body = RegisterTerminal,
    responses(
        (status = 201, body = TerminalCredential),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_terminal`, `invalid_reason`"),
        (status = 409, body = crate::error::ErrorBody, description = "`terminal_registered`"),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/terminals", wrap = "Require(&[Role::Supervisor])")]
pub async fn register(
    state: web::Data<AppState>,
    principal: Principal,
    body: web::Json<RegisterTerminal>,
) -> ApiResult<HttpResponse> {
    let by = Actor::of(&principal);
    let made = crate::store::write(&state.store, None, move |conn| {
        register_in(
            conn,
            &by,
            (&body.site, &body.terminal),
            body.venue.as_deref(),
            &body.reason,
        )
    })
    .await?;
    Ok(HttpResponse::Created().json(made))
}

/// Why a terminal's credential is rotated.
#[derive(serde::Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Rotate {
    pub reason: String,
}

/// Replaces a terminal's credential (lost, or a terminal replaced): the old one stops at once.
#[utoipa::path(
    tag = "staff",
    security(("bearer" = [])),
    params(("site" = String, Path), ("terminal" = String, Path)),
    request_body = Rotate,
    responses((status = 200, body = TerminalCredential), (status = 404, body = crate::error::ErrorBody), (status = 400, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody))
)]
#[post(
    "/api/v1/terminals/{site}/{terminal}/rotate",
    wrap = "Require(&[Role::Supervisor])"
)]
pub async fn rotate(
    state: web::Data<AppState>,
    principal: Principal,
    path: web::Path<(String, String)>,
    body: web::Json<Rotate>,
) -> ApiResult<web::Json<TerminalCredential>> {
    let (site, terminal) = path.into_inner();
    let by = Actor::of(&principal);
    Ok(web::Json(
        crate::store::write(&state.store, None, move |conn| {
            rotate_in(conn, &by, &site, &terminal, &body.reason)
        })
        .await?,
    ))
}
