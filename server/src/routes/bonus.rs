//! `/api/v1/bonus-prizes`: a supervisor proposes and withdraws a bonus prize, an inspector
//! records its approval, anyone reads the board (`bonus`, rule 6.3(e)).

use actix_web::http::StatusCode;
use actix_web::{get, post, web};

use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::bonus::{Bonus, BonusApproval, BonusBoard, NewBonus};
use crate::error::ApiResult;
use crate::state::AppState;

/// A supervisor proposes a bonus prize; it is offered once approved.
#[utoipa::path(
    tag = "bonus",
    security(("bearer" = [])),
    request_body = NewBonus,
    responses(
        (status = 201, body = Bonus),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_bonus`"),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/bonus-prizes", wrap = "Require(&[Role::Supervisor])")]
pub async fn create(
    state: web::Data<AppState>,
    principal: Principal,
    body: web::Json<NewBonus>,
) -> ApiResult<(web::Json<Bonus>, StatusCode)> {
    let checked = crate::bonus::check(body.into_inner(), state.rules.caps().per_way_cents)?;
    let bonus = crate::store::write(&state.store, None, move |conn| {
        crate::bonus::propose(conn, &checked, &principal.id)
    })
    .await?;
    Ok((web::Json(bonus.into()), StatusCode::CREATED))
}

/// An inspector records the regulator's approval of a bonus prize; games opened from now on
/// offer it when their interval says so.
#[utoipa::path(
    tag = "bonus",
    security(("bearer" = [])),
    params(("id" = i64, Path)),
    request_body = BonusApproval,
    responses(
        (status = 200, body = Bonus),
        (status = 409, body = crate::error::ErrorBody, description = "`bonus_decided`: approved or withdrawn already"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post(
    "/api/v1/bonus-prizes/{id}/approve",
    wrap = "Require(&[Role::Inspector])"
)]
pub async fn approve(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<i64>,
    body: web::Json<BonusApproval>,
) -> ApiResult<web::Json<Bonus>> {
    let id = id.into_inner();
    let reference = crate::reason::reason(&body.reference)?;
    let bonus = crate::store::write(&state.store, None, move |conn| {
        crate::bonus::approve(conn, id, &principal.id, &reference)
    })
    .await?;
    Ok(web::Json(bonus.into()))
}

/// A supervisor withdraws a bonus prize: games opened from now on do not offer it (games
/// already open keep what they announced). The body `{"reason": "..."}` is optional (the
/// first API had none).
#[utoipa::path(
    tag = "bonus",
    security(("bearer" = [])),
    params(("id" = i64, Path)),
    request_body(content = Option<super::why::ReasonRequest>, description = "Why, recorded"),
    responses(
        (status = 200, body = Bonus),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_reason`: a blank or too long reason; `invalid_request`: a body other than `{\"reason\": \"...\"}`; `too_long`: a body over 256 KiB"),
        (status = 409, body = crate::error::ErrorBody, description = "`bonus_decided`: withdrawn already"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post(
    "/api/v1/bonus-prizes/{id}/withdraw",
    wrap = "Require(&[Role::Supervisor])"
)]
pub async fn withdraw(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<i64>,
    body: web::Bytes,
) -> ApiResult<web::Json<Bonus>> {
    let id = id.into_inner();
    let reason = super::why::optional_reason(&body, |r: super::why::ReasonRequest| r.reason)?;
    let bonus = crate::store::write(&state.store, None, move |conn| {
        crate::bonus::withdraw(conn, id, &principal.id, reason.as_deref())
    })
    .await?;
    Ok(web::Json(bonus.into()))
}

/// The bonus prizes, and those the open game offers.
#[utoipa::path(tag = "bonus", responses((status = 200, body = BonusBoard)))]
#[get("/api/v1/bonus-prizes")]
pub async fn list(state: web::Data<AppState>) -> ApiResult<web::Json<BonusBoard>> {
    let board = crate::store::read(&state.store, crate::bonus::board).await?;
    Ok(web::Json(board))
}
