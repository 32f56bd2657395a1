//! Draw monitoring over HTTP (the HTTP layer): the report of the monitor, app data of its own.

use actix_web::{get, web};
use keno_api::monitoring::DrawMonitoring;

use crate::auth::http::Require;
use crate::auth::Role;
use crate::draw_monitor::Monitor;
use crate::error::{ApiResult, Failure};
use crate::state::AppState;

/// The frequency, position and pairs tests over the last `--monitor-games` settled games of
/// each draw source and device, each failing at 99.9% confidence.
#[utoipa::path(
    tag = "draw",
    security(("bearer" = [])),
    responses(
        (status = 200, body = DrawMonitoring),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[get(
    "/api/v1/draw-monitoring",
    wrap = "Require(&[Role::Supervisor, Role::Inspector, Role::Auditor])"
)]
pub async fn current(
    state: web::Data<AppState>,
    monitor: web::Data<Monitor>,
) -> ApiResult<web::Json<DrawMonitoring>> {
    let answer = crate::store::snapshot(&state.store, move |conn| {
        monitor.report(conn).map_err(Failure::Internal)
    })
    .await?;
    Ok(web::Json(answer))
}
