//! `POST /api/v1/games/{number}/balls`: a ball-drawing device feeds each ball as it falls
//! (rules 3.2, 9.3, 10.1).
//!
//! With a ball device the balls are the official record (10.1): each is committed before it is
//! shown, and the 20th distinct ball makes the game drawn, then settled. A ball that cannot be
//! right (off the board, already drawn, for a game that is not being drawn) is refused with a
//! 4xx and nothing is stored.

use actix_web::http::StatusCode;
use actix_web::{post, web};
use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::{Principal, Role};
use crate::db::schema::{drawn_numbers, games};
use crate::db::{now_micros, DbConnection};
use crate::error::{ApiError, ApiResult};
use crate::games::{drawn, find};
use crate::state::AppState;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Ball {
    /// The number on the ball, 1 to 80.
    pub number: i64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct BallTaken {
    pub game: i64,
    /// 1 to 20: the ball's place in the draw.
    pub position: usize,
    pub number: u8,
    /// drawing, or drawn after the 20th ball.
    pub state: String,
    /// The numbers drawn so far, in order.
    pub drawn: Vec<u8>,
}

/// Records the next ball drawn by the device for a closed game.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(("number" = i64, Path, description = "Game number")),
    request_body = Ball,
    responses(
        (status = 201, body = BallTaken, description = "Committed, then announced as number_drawn"),
        (status = 422, body = crate::error::ErrorBody, description = "`invalid_number`: not 1 to 80"),
        (status = 409, body = crate::error::ErrorBody, description = "`duplicate_ball`, `game_not_drawing` (open, drawn, settled...), `not_a_ball_game`"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/games/{number}/balls")]
pub async fn post_ball(
    state: web::Data<AppState>,
    principal: Principal,
    number: web::Path<i64>,
    ball: web::Json<Ball>,
) -> ApiResult<(web::Json<BallTaken>, StatusCode)> {
    principal.require(&[Role::Device])?;
    let game = number.into_inner();
    let n = match u8::try_from(ball.number) {
        Ok(n @ 1..=80) => n,
        _ => {
            return Err(ApiError::refused(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid_number",
                format!(
                    "{} is not on the board: balls are numbered 1 to 80 (rule 3.2)",
                    ball.number
                ),
            ))
        }
    };
    let s = state.clone();
    let taken = web::block(move || -> ApiResult<BallTaken> {
        let mut conn = s.db.conn()?;
        let _turn = s.db.writer_turn();
        conn.transaction(|conn| take_ball(conn, game, n))
    })
    .await??;
    // Committed: now it may be shown (rule 10.1).
    state.events.publish(
        "number_drawn",
        &serde_json::json!({ "game": game, "position": taken.position, "number": taken.number }),
    );
    if taken.state == "drawn" {
        state.events.publish(
            "game_drawn",
            &serde_json::json!({ "game": game, "drawn": taken.drawn }),
        );
        state.drawer_wake.notify_one();
    }
    Ok((web::Json(taken), StatusCode::CREATED))
}

fn take_ball(conn: &mut DbConnection, game: i64, n: u8) -> ApiResult<BallTaken> {
    let row = find(conn, game)?.ok_or_else(|| ApiError::not_found("game"))?;
    if row.source != "ball_device" {
        return Err(ApiError::conflict(
            "not_a_ball_game",
            format!("game {game} is drawn by the random number generator, not a ball device"),
        ));
    }
    // Holding the game row orders this ball against a cancel of the game's tickets (rule 8.1).
    let held = diesel::update(games::table.find(game))
        .filter(games::state.eq_any(["closed", "drawing"]))
        .set(games::state.eq("drawing"))
        .execute(conn)?;
    if held != 1 {
        return Err(ApiError::conflict(
            "game_not_drawing",
            format!(
                "game {game} is {}: balls are taken only for a closed game until its 20th ball",
                row.state
            ),
        ));
    }
    let mut so_far = drawn(conn, game)?;
    if so_far.contains(&n) {
        return Err(ApiError::conflict(
            "duplicate_ball",
            format!("{n} is already drawn in game {game}: a ball is drawn once (rule 9.1)"),
        ));
    }
    let position = so_far.len() + 1;
    diesel::insert_into(drawn_numbers::table)
        .values((
            drawn_numbers::game.eq(game),
            drawn_numbers::position.eq(position as i32),
            drawn_numbers::number.eq(i32::from(n)),
            drawn_numbers::drawn_at.eq(now_micros()),
        ))
        .execute(conn)?;
    so_far.push(n);
    let state = if position == keno_core::board::NUMBERS_DRAWN {
        diesel::update(games::table.find(game))
            .set((games::state.eq("drawn"), games::drawn_at.eq(now_micros())))
            .execute(conn)?;
        "drawn"
    } else {
        "drawing"
    };
    Ok(BallTaken {
        game,
        position,
        number: n,
        state: state.into(),
        drawn: so_far,
    })
}
