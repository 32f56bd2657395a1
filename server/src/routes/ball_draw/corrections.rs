//! `POST /api/v1/games/{number}/corrections`, `/api/v1/corrections/{id}/approve` and
//! `/api/v1/corrections/{id}/reject`: correcting a mis-transferred number
//! (`ball_draw::corrections`, rule 10.1).

use actix_web::http::StatusCode;
use actix_web::{post, web};
use keno_api::events::{Event, NumberCorrected};

use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::ball_draw::corrections::{self, Correction, CorrectionRequest, RejectRequest};
use crate::ball_draw::{board_number, reason};
use crate::error::ApiResult;
use crate::state::AppState;

/// Asks to correct a number of a ball draw not yet settled; applied once a supervisor and an
/// inspector have both approved (the asker's approval counts).
#[utoipa::path(
    tag = "draw",
    security(("bearer" = [])),
    params(("number" = i64, Path, description = "Game number")),
    request_body = CorrectionRequest,
    responses(
        (status = 201, body = Correction, description = "Pending: it needs the other role's approval"),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_reason`, `invalid_position`"),
        (status = 409, body = crate::error::ErrorBody, description = "`already_settled`, `not_a_ball_game` (the RNG's record is official), `game_not_drawing`, `duplicate_ball`, `correction_pending`, `no_change`"),
        (status = 422, body = crate::error::ErrorBody, description = "`invalid_number`"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post(
    "/api/v1/games/{number}/corrections",
    wrap = "Require(&[Role::Supervisor, Role::Inspector])"
)]
pub async fn request_correction(
    state: web::Data<AppState>,
    principal: Principal,
    number: web::Path<i64>,
    request: web::Json<CorrectionRequest>,
) -> ApiResult<(web::Json<Correction>, StatusCode)> {
    let game = number.into_inner();
    let request = request.into_inner();
    let why = reason(&request.reason)?;
    let new_number = board_number(request.number)?;
    let position = request.position;
    let correction = crate::store::write(&state.store, None, move |conn| {
        corrections::ask(conn, game, position, new_number, &why, &principal)
    })
    .await?;
    Ok((web::Json(correction.into()), StatusCode::CREATED))
}

/// Approves a pending correction with the role it still needs; with both approvals it is
/// applied to the official record.
#[utoipa::path(
    tag = "draw",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Correction id")),
    responses(
        (status = 200, body = Correction, description = "Applied"),
        (status = 409, body = crate::error::ErrorBody, description = "`already_approved` (it needs the other role), `correction_closed`, `already_settled`, `duplicate_ball`"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post(
    "/api/v1/corrections/{id}/approve",
    wrap = "Require(&[Role::Supervisor, Role::Inspector])"
)]
pub async fn approve(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<i64>,
) -> ApiResult<web::Json<Correction>> {
    let id = id.into_inner();
    let applied = crate::store::write(&state.store, None, move |conn| {
        corrections::apply(conn, id, &principal)
    })
    .await?;
    state
        .events
        .publish(&Event::NumberCorrected(NumberCorrected {
            game: applied.game,
            position: applied.position,
            old_number: applied.old_number,
            number: applied.new_number,
        }));
    // The game may now be settled.
    state.wake_drawer();
    Ok(web::Json(applied.into()))
}

/// Rejects a pending correction, with a reason: the number stands as drawn.
#[utoipa::path(
    tag = "draw",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Correction id")),
    request_body = RejectRequest,
    responses(
        (status = 200, body = Correction),
        (status = 409, body = crate::error::ErrorBody, description = "`correction_closed`"),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_reason`"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post(
    "/api/v1/corrections/{id}/reject",
    wrap = "Require(&[Role::Supervisor, Role::Inspector])"
)]
pub async fn reject(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<i64>,
    request: web::Json<RejectRequest>,
) -> ApiResult<web::Json<Correction>> {
    let id = id.into_inner();
    let why = reason(&request.reason)?;
    let rejected = crate::store::write(&state.store, None, move |conn| {
        corrections::reject(conn, id, &principal.id, &why)
    })
    .await?;
    state.wake_drawer();
    Ok(web::Json(rejected.into()))
}
