//! `GET /api/v1/games/{number}/draw-record`: how a game was drawn (`ball_draw::record`).

use actix_web::{get, web};

use crate::auth::http::Require;
use crate::auth::Role;
use crate::ball_draw::record::{self, DrawRecord};
use crate::error::ApiResult;
use crate::state::AppState;

/// The full record of a game's draw: balls, voided balls, faults and corrections.
#[utoipa::path(
    tag = "draw",
    security(("bearer" = [])),
    params(("number" = i64, Path, description = "Game number")),
    responses((status = 200, body = DrawRecord), (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody))
)]
#[get(
    "/api/v1/games/{number}/draw-record",
    wrap = "Require(&[Role::Supervisor, Role::Inspector, Role::Auditor])"
)]
pub async fn draw_record(
    state: web::Data<AppState>,
    number: web::Path<i64>,
) -> ApiResult<web::Json<DrawRecord>> {
    let game = number.into_inner();
    let found =
        crate::store::snapshot(&state.store, move |conn| record::draw_record(conn, game)).await?;
    Ok(web::Json(found))
}
