//! `POST /api/v1/games/{number}/invalidate` and `GET /api/v1/games/{number}/invalidation`
//! (its preview): a supervisor invalidates a game (`invalidation`, rule 17.3).

use actix_web::{get, post, web};
use serde::Deserialize;

use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::error::{ApiResult, DomainResult};
use crate::invalidation::{
    announce, closes_first, invalidate_in, plays_game, InvalidateRequest, Invalidation,
    InvalidationPreview,
};
use crate::state::AppState;

/// Invalidates a game not yet settled and refunds every wager on it.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(("number" = i64, Path, description = "Game number")),
    request_body = InvalidateRequest,
    responses(
        (status = 200, body = Invalidation),
        (status = 409, body = crate::error::ErrorBody, description = "`cannot_invalidate`: already settled or invalidated"),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_reason`"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post(
    "/api/v1/games/{number}/invalidate",
    wrap = "Require(&[Role::Supervisor])"
)]
pub async fn invalidate(
    state: web::Data<AppState>,
    principal: Principal,
    number: web::Path<i64>,
    request: web::Json<InvalidateRequest>,
) -> ApiResult<web::Json<Invalidation>> {
    let request = request.into_inner();
    let reason = crate::reason::reason(&request.reason)?;
    let game = number.into_inner();
    let forfeit = request.forfeit;
    let named = forfeit.clone();
    // The tickets named are checked before the game closes: a bad name changes nothing.
    crate::state::read(&state, move |state, conn| -> DomainResult<()> {
        plays_game(conn, game, &named)?;
        if closes_first(conn, game)? {
            crate::clock::close_game(state, conn, game, (None, None))?;
        }
        Ok(())
    })
    .await?;
    let done = crate::store::write(&state.store, None, move |conn| {
        invalidate_in(conn, game, (&reason, &forfeit), Some(&principal.id))
    })
    .await?;
    announce(&state.events, &state.jackpots_changed, &done);
    Ok(web::Json(done))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct PreviewQuery {
    /// Tickets whose wagers would be forfeited, comma-separated serials.
    #[serde(default)]
    pub forfeit: String,
}

/// The refunds an invalidation of the game would make now (rule 17.3, general rule 18.2),
/// computed as the invalidation computes them, and nothing changed.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(("number" = i64, Path, description = "Game number"), PreviewQuery),
    responses(
        (status = 200, body = InvalidationPreview),
        (status = 409, body = crate::error::ErrorBody, description = "`cannot_invalidate`: already settled or invalidated"),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_request`: a forfeited ticket does not play the game"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[get(
    "/api/v1/games/{number}/invalidation",
    wrap = "Require(&[Role::Supervisor])"
)]
pub async fn preview(
    state: web::Data<AppState>,
    number: web::Path<i64>,
    query: web::Query<PreviewQuery>,
) -> ApiResult<web::Json<InvalidationPreview>> {
    let game = number.into_inner();
    let forfeit: Vec<String> = query
        .forfeit
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    let preview = crate::store::snapshot(&state.store, move |conn| {
        crate::invalidation::preview(conn, game, forfeit)
    })
    .await?;
    Ok(web::Json(preview))
}
