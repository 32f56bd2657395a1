//! `GET /api/v1/games/current`, `/api/v1/games/{number}`, `/api/v1/games` (the draw history)
//! and `POST /api/v1/games/current/close` (`games`).

use actix_web::{get, post, web, HttpResponse};
use keno_api::Refusal;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::auth::http::Require;
use crate::auth::Principal;
use crate::auth::Role;
use crate::error::{ApiResult, DomainResult, Failure};
use crate::games::{load, open_game, open_now, ByHand, Game, GameFilter};
use crate::state::AppState;

/// Why a supervisor closes the open game before its time.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CloseRequest {
    /// Recorded with the close and shown among the day's exceptions.
    pub reason: Option<String>,
}

/// The game now open for sale.
#[utoipa::path(
    tag = "games",
    responses(
        (status = 200, body = Game),
        (status = 404, body = crate::error::ErrorBody, description = "Keno is closed: no game is open (`no_open_game`)")
    )
)]
#[get("/api/v1/games/current")]
pub async fn current(state: web::Data<AppState>) -> ApiResult<web::Json<Game>> {
    let game = crate::store::read(&state.store, open_now).await?;
    game.map(web::Json).ok_or_else(|| {
        Failure::refuse(
            Refusal::NoOpenGame,
            "Keno is closed: no game is open for sale",
        )
        .into()
    })
}

/// One game, with the numbers drawn so far.
#[utoipa::path(
    tag = "games",
    params(("number" = i64, Path, description = "Game number")),
    responses((status = 200, body = Game), (status = 404, body = crate::error::ErrorBody))
)]
#[get("/api/v1/games/{number}")]
pub async fn by_number(
    state: web::Data<AppState>,
    number: web::Path<i64>,
) -> ApiResult<web::Json<Game>> {
    let number = number.into_inner();
    let game = crate::store::read(&state.store, move |conn| Ok(load(conn, number)?)).await?;
    game.map(web::Json)
        .ok_or_else(|| Failure::not_found("game").into())
}

#[derive(Deserialize, IntoParams)]
pub struct GameQuery {
    /// First game number (inclusive).
    pub from: Option<i64>,
    /// Last game number (inclusive); with `from`, at most 1,000 games apart.
    pub to: Option<i64>,
    /// Only games in these states, comma-separated (e.g. `closed,drawing,void`: the games
    /// awaiting a draw).
    pub state: Option<String>,
    /// Only games of this Keno Day (YYYY-MM-DD, rule 1(d)).
    pub keno_day: Option<String>,
    /// At most this many games (default and most: 1,000).
    pub limit: Option<i64>,
    /// `asc` (default): the lowest numbers first; `desc`: the latest first (a display's last
    /// results: `?state=settled&order=desc&limit=5`).
    pub order: Option<String>,
}

/// Draw history: the games numbered `from` to `to`, lowest first, filtered by state and Keno
/// Day.
#[utoipa::path(
    tag = "games",
    params(GameQuery),
    responses((status = 200, body = [Game]), (status = 400, body = crate::error::ErrorBody))
)]
#[get("/api/v1/games")]
pub async fn list(
    state: web::Data<AppState>,
    query: web::Query<GameQuery>,
) -> ApiResult<web::Json<Vec<Game>>> {
    let q = query.into_inner();
    let filter = GameFilter::parse(
        (q.from, q.to),
        q.limit,
        q.order.as_deref(),
        q.state.as_deref(),
        q.keno_day,
    )?;
    let games = crate::store::read(&state.store, move |conn| filter.load(conn)).await?;
    Ok(web::Json(games))
}

/// Closes the open game for sale now (the next game opens); with the RNG the server then
/// draws it. The body `{"reason": "..."}` is optional (the first API had none); the close is
/// recorded with who and why, and listed among the day's exceptions.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    request_body(content = Option<CloseRequest>, description = "Why, recorded"),
    responses(
        (status = 200, body = Game, description = "The game just closed"),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_reason`: blank or too long; `invalid_request`: a body that is not a close request"),
        (status = 404, body = crate::error::ErrorBody, description = "No game is open"),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/games/current/close", wrap = "Require(&[Role::Supervisor])")]
pub async fn close_current(
    state: web::Data<AppState>,
    principal: Principal,
    body: web::Bytes,
) -> ApiResult<HttpResponse> {
    // The reason is asked for by the console; a terminal of the first API may send no body (or
    // `null`), and the day's exceptions then say so. Anything else must be a close request.
    let reason = super::why::optional_reason(&body, |r: CloseRequest| r.reason)?;
    let by = ByHand {
        principal: principal.id,
        reason,
    };
    let game = crate::state::read(&state, move |state, conn| -> DomainResult<Option<Game>> {
        let Some(open) = open_game(conn)? else {
            return Ok(None);
        };
        crate::clock::close_game(state, conn, open.number, (None, Some(&by)))?;
        state.wake_clock();
        Ok(load(conn, open.number)?)
    })
    .await?;
    match game {
        Some(g) => Ok(HttpResponse::Ok().json(g)),
        None => Err(Failure::refuse(Refusal::NoOpenGame, "no game is open for sale").into()),
    }
}
