//! `GET/POST /api/v1/displays`, `POST /api/v1/displays/{site}/{display}/rotate|disable`: the
//! supervisors' endpoints for registered displays, as for terminals; and a display's
//! credential presented with `GET /api/v1/events` (`displays`).

use actix_web::{get, post, web, HttpRequest, HttpResponse};
use keno_api::displays::{DisplayChange, DisplayCredential, DisplayInfo, RegisterDisplay};
use keno_api::Refusal;

use crate::auth::http::{bearer_token, Require};
use crate::auth::{token_hash, Principal, Role};
use crate::displays::{by_credential, DisplayRow, CREDENTIAL_PREFIX};
use crate::error::{ApiResult, DomainResult, Failure};
use crate::staff::people::Actor;
use crate::state::AppState;

/// A page of the displays, by site and display.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
pub struct DisplayQuery {
    /// At most this many displays (1 to 500, the default).
    pub limit: Option<i64>,
    /// Only displays after this one, written `SITE/DISPLAY`: the next page, from the last of a
    /// full one.
    pub after: Option<String>,
}

/// Every registered display, by site and display, a page at a time.
#[utoipa::path(
    tag = "staff",
    security(("bearer" = [])),
    params(DisplayQuery),
    responses((status = 200, body = Vec<DisplayInfo>), (status = 400, body = crate::error::ErrorBody, description = "`invalid_range`: limit is 1 to 500"), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody))
)]
#[get("/api/v1/displays", wrap = "Require(&[Role::Supervisor])")]
pub async fn list(
    state: web::Data<AppState>,
    query: web::Query<DisplayQuery>,
) -> ApiResult<web::Json<Vec<DisplayInfo>>> {
    let limit = crate::paging::limit(query.limit)?;
    let after = query.into_inner().after.unwrap_or_default();
    Ok(web::Json(
        crate::store::read(&state.store, move |conn| {
            Ok(crate::displays::list_in(conn, (limit, &after))?)
        })
        .await?,
    ))
}

/// Registers a display: its credential is shown once, for the board's address
/// (`/?display=...`) or its config. It gets the display an event stream whatever anonymous
/// clients hold, and nothing else.
#[utoipa::path(
    tag = "staff",
    security(("bearer" = [])),
    request_body = RegisterDisplay,
    responses(
        (status = 201, body = DisplayCredential),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_display`, `invalid_reason`"),
        (status = 409, body = crate::error::ErrorBody, description = "`display_registered`"),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/displays", wrap = "Require(&[Role::Supervisor])")]
pub async fn register(
    state: web::Data<AppState>,
    principal: Principal,
    body: web::Json<RegisterDisplay>,
) -> ApiResult<HttpResponse> {
    let by = Actor::of(&principal);
    let made = crate::store::write(&state.store, None, move |conn| {
        crate::displays::register_in(conn, &by, &body.site, &body.display, &body.reason)
    })
    .await?;
    Ok(HttpResponse::Created().json(made))
}

/// Replaces a display's credential (lost, shown where it should not be, or the screen
/// replaced) and enables it again if it was disabled: the old credential stops at once.
#[utoipa::path(
    tag = "staff",
    security(("bearer" = [])),
    params(("site" = String, Path), ("display" = String, Path)),
    request_body = DisplayChange,
    responses((status = 200, body = DisplayCredential), (status = 404, body = crate::error::ErrorBody), (status = 400, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody))
)]
#[post(
    "/api/v1/displays/{site}/{display}/rotate",
    wrap = "Require(&[Role::Supervisor])"
)]
pub async fn rotate(
    state: web::Data<AppState>,
    principal: Principal,
    path: web::Path<(String, String)>,
    body: web::Json<DisplayChange>,
) -> ApiResult<web::Json<DisplayCredential>> {
    let (site, display) = path.into_inner();
    let by = Actor::of(&principal);
    Ok(web::Json(
        crate::store::write(&state.store, None, move |conn| {
            crate::displays::rotate_in(conn, &by, &site, &display, &body.reason)
        })
        .await?,
    ))
}

/// Disables a display: its credential is refused from the next stream it opens.
#[utoipa::path(
    tag = "staff",
    security(("bearer" = [])),
    params(("site" = String, Path), ("display" = String, Path)),
    request_body = DisplayChange,
    responses((status = 200, body = DisplayInfo), (status = 404, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody, description = "`already_disabled`"), (status = 400, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody))
)]
#[post(
    "/api/v1/displays/{site}/{display}/disable",
    wrap = "Require(&[Role::Supervisor])"
)]
pub async fn disable(
    state: web::Data<AppState>,
    principal: Principal,
    path: web::Path<(String, String)>,
    body: web::Json<DisplayChange>,
) -> ApiResult<web::Json<DisplayInfo>> {
    let (site, display) = path.into_inner();
    let by = Actor::of(&principal);
    Ok(web::Json(
        crate::store::write(&state.store, None, move |conn| {
            crate::displays::disable_in(conn, &by, &site, &display, &body.reason)
        })
        .await?,
    ))
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(list)
        .service(register)
        .service(rotate)
        .service(disable);
}

/// The display credential a stream request presents, if any: the query's `display` (a
/// browser's EventSource cannot set a header), else a bearer token that is a display's.
pub fn presented(request: &HttpRequest, query: Option<String>) -> Option<String> {
    query.or_else(|| bearer_token(request).filter(|t| t.starts_with(CREDENTIAL_PREFIX)))
}

/// The registered, enabled display behind `credential`. A credential that is no display's is
/// refused (401) and counted against the client's address as a bad bearer token is; an
/// address over its limit is still looked up (a venue's board behind the guesser's NAT gets
/// in), a few at a time, and refused 429 after a pause when its credential is bad too.
pub async fn admit(
    state: &web::Data<AppState>,
    request: &HttpRequest,
    credential: String,
) -> DomainResult<DisplayRow> {
    let client = crate::rate_limit::client_key(request, state.trust_forwarded_for);
    let over = client.and_then(|c| state.auth_failures.check(c).err());
    let turn = match over {
        Some(_) => state.auth_failures.suspect_turn().await,
        None => None,
    };
    let hash = token_hash(&credential);
    drop(credential);
    let found =
        crate::store::read(&state.store, move |conn| Ok(by_credential(conn, &hash)?)).await?;
    drop(turn);
    if let Some(display) = found {
        return Ok(display);
    }
    if let Some(client) = client {
        if state.auth_failures.fail(client) {
            tracing::warn!(%client, "bad credentials: this address is refused for a while");
        } else {
            tracing::info!(%client, "a display credential that matches no registered display");
        }
    }
    if let Some(refusal) = over {
        tokio::time::sleep(crate::rate_limit::FAILURE_PAUSE).await;
        return Err(refusal);
    }
    Err(Failure::refuse(
        Refusal::Unauthorized,
        "the display credential matches no registered, enabled display",
    ))
}
