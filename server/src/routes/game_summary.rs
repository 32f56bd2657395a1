//! `GET /api/v1/games/{number}/summary`: a game for the console's history browser
//! (`game_summary`).

use actix_web::{get, web};

use crate::auth::http::Require;
use crate::auth::Role;
use crate::error::ApiResult;
use crate::game_summary::{summarise, GameSummary};
use crate::state::AppState;

/// A game's record for the history browser.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(("number" = i64, Path, description = "Game number")),
    responses(
        (status = 200, body = GameSummary),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[get(
    "/api/v1/games/{number}/summary",
    wrap = "Require(&[Role::Supervisor, Role::Inspector, Role::Auditor])"
)]
pub async fn summary(
    state: web::Data<AppState>,
    number: web::Path<i64>,
) -> ApiResult<web::Json<GameSummary>> {
    let number = number.into_inner();
    let summary = crate::store::snapshot(&state.store, move |conn| summarise(conn, number)).await?;
    Ok(web::Json(summary))
}
