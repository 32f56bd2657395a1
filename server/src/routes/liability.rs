//! `GET /api/v1/games/current/liability`: what the open game could cost (`liability`).

use actix_web::{get, web};
use keno_api::games::Liability;

use crate::auth::http::Require;
use crate::auth::Role;
use crate::error::ApiResult;
use crate::liability::Books;
use crate::state::AppState;

/// What the open game could cost: stake per number and column, the exact expected payout and
/// a sound worst case, kept as its tickets are sold.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    responses(
        (status = 200, body = Liability),
        (status = 404, body = crate::error::ErrorBody, description = "`no_open_game`"),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[get(
    "/api/v1/games/current/liability",
    wrap = "Require(&[Role::Supervisor, Role::Inspector, Role::Auditor])"
)]
pub async fn current(
    state: web::Data<AppState>,
    books: web::Data<Books>,
) -> ApiResult<web::Json<Liability>> {
    let books = books.into_inner();
    let answer = crate::state::read(&state, move |state, conn| {
        books.liability((&state.rule_sets, &state.settings.limits), conn)
    })
    .await?;
    Ok(web::Json(answer))
}
