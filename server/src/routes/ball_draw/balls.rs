//! `POST /api/v1/games/{number}/balls`: a ball device's feed, or a supervisor's balls drawn by
//! hand (`ball_draw::balls`).

use actix_web::http::StatusCode;
use actix_web::{post, web};
use keno_api::events::{Event, GameDrawn, NumberDrawn};
use keno_core::GameState;

use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::ball_draw::balls::{take_ball, Ball, BallTaken};
use crate::ball_draw::board_number;
use crate::error::ApiResult;
use crate::state::AppState;

/// Records the next ball drawn for a closed game: by its device, or by a supervisor once the
/// draw is finished by hand.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(("number" = i64, Path, description = "Game number")),
    request_body = Ball,
    responses(
        (status = 201, body = BallTaken, description = "Committed, then announced as number_drawn"),
        (status = 422, body = crate::error::ErrorBody, description = "`invalid_number`: not 1 to 80"),
        (status = 409, body = crate::error::ErrorBody, description = "`duplicate_ball`, `game_not_drawing` (open, drawn, settled...), `not_a_ball_game`, `draw_changed` (the given attempt was voided), `earlier_game_not_drawn`, `device_out_of_service`, `another_device_drawing`, `manual_draw` (a device after a fall-back or stoppage), `device_draw` (a supervisor before one)"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post(
    "/api/v1/games/{number}/balls",
    wrap = "Require(&[Role::Device, Role::Supervisor])"
)]
pub async fn post_ball(
    state: web::Data<AppState>,
    principal: Principal,
    number: web::Path<i64>,
    ball: web::Json<Ball>,
) -> ApiResult<(web::Json<BallTaken>, StatusCode)> {
    let game = number.into_inner();
    let n = board_number(ball.number)?;
    let attempt = ball.attempt;
    let taken = crate::store::write(&state.store, None, move |conn| {
        take_ball(conn, game, n, attempt, &principal)
    })
    .await?;
    // Committed: now it may be shown (rule 10.1).
    state.events.publish(&Event::NumberDrawn(NumberDrawn {
        game,
        position: taken.position as usize,
        number: taken.number as u8,
    }));
    if taken.state == GameState::Drawn.as_str() {
        state.events.publish(&Event::GameDrawn(GameDrawn {
            game,
            drawn: taken.drawn.clone(),
        }));
        state.wake_drawer();
    }
    Ok((web::Json(taken), StatusCode::CREATED))
}
