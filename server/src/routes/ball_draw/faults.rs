//! `POST /api/v1/games/{number}/faults`: a fault of the ball draw reported
//! (`ball_draw::faults`, rules 10.2, 10.4).

use actix_web::http::StatusCode;
use actix_web::{post, web};

use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::ball_draw::faults::{self, FaultRecorded, FaultReport};
use crate::ball_draw::reason;
use crate::error::ApiResult;
use crate::state::AppState;

/// Reports a fault of the ball draw (rules 10.2, 10.4).
#[utoipa::path(
    tag = "draw",
    security(("bearer" = [])),
    params(("number" = i64, Path, description = "Game number")),
    request_body = FaultReport,
    responses(
        (status = 201, body = FaultRecorded),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_reason`, `number_required`, `device_required`, `not_a_device`"),
        (status = 409, body = crate::error::ErrorBody, description = "`not_a_ball_game`, `game_not_drawing`, `already_settled`, `not_drawn` (the broken ball is not in the draw), `draw_changed`, `already_manual`, `manual_draw`, `another_device_drawing`, `supervisor_only` (a device reporting on a completed draw, or `no_device`)"),
        (status = 422, body = crate::error::ErrorBody, description = "`invalid_number`"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post(
    "/api/v1/games/{number}/faults",
    wrap = "Require(&[Role::Device, Role::Supervisor])"
)]
pub async fn report_fault(
    state: web::Data<AppState>,
    principal: Principal,
    number: web::Path<i64>,
    report: web::Json<FaultReport>,
) -> ApiResult<(web::Json<FaultRecorded>, StatusCode)> {
    let game = number.into_inner();
    let report = report.into_inner();
    let why = reason(&report.reason)?;
    let number = faults::reported_number(report.kind, report.number)?;
    let recorded = crate::store::write(&state.store, None, move |conn| {
        faults::record(conn, game, &report, number, &why, &principal)
    })
    .await?;
    state.events.publish(&faults::event(game, &recorded));
    Ok((web::Json(recorded), StatusCode::CREATED))
}
