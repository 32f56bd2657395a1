//! A ball-drawing device feeds each ball as it falls (rules 3.2, 9.3, 10.1), or a supervisor
//! enters the balls drawn by hand after a fall-back or a stoppage (10.4(b), (d));
//! `POST /api/v1/games/{number}/balls` is `routes/ball_draw/balls.rs`.
//!
//! With a ball device the balls are the official record (10.1): each is committed before it is
//! shown, and the 20th distinct ball makes the game drawn, then settled. A ball that cannot be
//! right (off the board, already drawn, for a game that is not being drawn, from a device out
//! of service) is refused with a 4xx and nothing is stored.

use diesel::prelude::*;

use super::{devices, hold_ball_game, standing, StandingBall};
use crate::audit::log::Entry;
use crate::auth::{Principal, Role};
use crate::db::schema::{drawn_numbers, games, principals, voided_balls};
use crate::db::{now_micros, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::games::advance;
use crate::games::GameRow;
use keno_api::Refusal;
use keno_core::{DrawMode, GameEvent, GameState};
// The wire's types (keno-api), where the server's modules have always found them.
pub use keno_api::draw::{Ball, BallTaken};

/// Takes ball `n` into game `game`'s draw (of `attempt`, if given), entered by `principal`:
/// stored, and the game drawn with the 20th.
pub fn take_ball(
    conn: &mut DbConnection,
    game: i64,
    n: i32,
    attempt: Option<i64>,
    principal: &Principal,
) -> DomainResult<BallTaken> {
    // A device hears one code for every game it cannot feed, settled or not (the core's).
    let row = hold_ball_game(conn, game, &GameEvent::BallDrawn { standing: 1 })?;
    same_attempt(&row, attempt)?;
    let so_far = may_take(conn, &row, n, principal)?;
    let position = so_far.len() + 1;
    let now = now_micros();
    diesel::insert_into(drawn_numbers::table)
        .values((
            drawn_numbers::game.eq(game),
            drawn_numbers::position.eq(position as i32),
            drawn_numbers::number.eq(n),
            drawn_numbers::drawn_at.eq(now),
            drawn_numbers::entered_by.eq(&principal.id),
        ))
        .execute(conn)?;
    let mut drawn: Vec<u8> = so_far.iter().map(|b| b.number as u8).collect();
    drawn.push(n as u8);
    let complete = position == keno_core::board::NUMBERS_DRAWN;
    // Rule 10.1: the 20th ball completes the record; the core says what state that is.
    advance(
        conn,
        game,
        &GameEvent::BallDrawn {
            standing: position as u8,
        },
    )?;
    diesel::update(games::table.find(game))
        .set(games::drawn_at.eq(complete.then_some(now)))
        .execute(conn)?;
    let mut entries = vec![Entry::new(
        crate::audit::kind::EntryKind::NumberDrawn,
        game,
        serde_json::json!({
            "attempt": row.draw_attempt, "position": position, "number": n, "drawn_at": now,
        }),
    )
    .by(&principal.id)];
    if complete {
        entries.push(Entry::new(
            crate::audit::kind::EntryKind::GameDrawn,
            game,
            serde_json::json!({ "drawn": drawn, "drawn_at": now }),
        ));
    }
    crate::audit::log::append(conn, entries)?;
    Ok(BallTaken {
        game,
        position,
        number: n as u8,
        state: if complete {
            GameState::Drawn
        } else {
            GameState::Drawing
        }
        .as_str()
        .into(),
        drawn,
    })
}

/// Whether ball `n` may be taken into `row`'s draw now (games in order, the device's turn, a
/// ball once per draw); the balls standing before it.
fn may_take(
    conn: &mut DbConnection,
    row: &GameRow,
    n: i32,
    principal: &Principal,
) -> DomainResult<Vec<StandingBall>> {
    let game = row.number;
    // Games are drawn in order, each settled before the next is drawn: settlement carries each
    // game's jackpot pools into the next, and a fault found in a drawn game must not find the
    // device already drawing the next one.
    let earlier: Option<i64> = games::table
        .filter(games::number.lt(game))
        .filter(games::state.eq_any(GameState::codes_where(GameState::awaiting_draw)))
        .select(games::number)
        .order(games::number)
        .first(conn)
        .optional()?;
    if let Some(earlier) = earlier {
        return Err(Failure::refuse(
            Refusal::EarlierGameNotDrawn,
            format!("game {earlier} is not settled yet: games are drawn in order"),
        ));
    }
    let so_far = standing(conn, game)?;
    may_draw(conn, row, principal, &so_far)?;
    if so_far.iter().any(|b| b.number == n) {
        return Err(Failure::refuse(
            Refusal::DuplicateBall,
            format!("{n} is already drawn in game {game}: a ball is drawn once (rule 9.1)"),
        ));
    }
    let broken: bool = diesel::select(diesel::dsl::exists(
        voided_balls::table
            .filter(voided_balls::game.eq(game))
            .filter(voided_balls::attempt.eq(row.draw_attempt))
            .filter(voided_balls::number.eq(n)),
    ))
    .get_result(conn)?;
    if broken {
        return Err(Failure::refuse(
            Refusal::DuplicateBall,
            format!(
                "{n} was voided as a broken ball in this draw of game {game}; it cannot be \
                 drawn again in it (rule 10.4(a))"
            ),
        ));
    }
    Ok(so_far)
}

/// Refuses a ball or fault given for another draw than the game's current one.
pub fn same_attempt(row: &GameRow, attempt: Option<i64>) -> DomainResult<()> {
    match attempt {
        Some(a) if a != i64::from(row.draw_attempt) => Err(Failure::refuse(
            Refusal::DrawChanged,
            format!(
                "game {} is now in draw {} (draw {a} was voided): nothing of draw {a} is taken",
                row.number, row.draw_attempt
            ),
        )),
        _ => Ok(()),
    }
}

/// Whether `principal` may enter balls of (or report faults in) this draw: a device while the
/// device draws, not out of service, and not another device's draw; a supervisor once the draw
/// is finished by hand (rule 10.4(b), (d)).
pub fn may_draw(
    conn: &mut DbConnection,
    row: &GameRow,
    principal: &Principal,
    so_far: &[StandingBall],
) -> DomainResult<()> {
    let game = row.number;
    match (row.draw_mode, principal.role) {
        (DrawMode::Manual, Role::Supervisor) | (DrawMode::Device, Role::Device) => {}
        (DrawMode::Manual, _) => {
            return Err(Failure::refuse(
                Refusal::ManualDraw,
                format!(
                    "game {game} is being finished by hand after a fall-back or stoppage \
                     (rule 10.4(b), (d)): a supervisor enters its balls"
                ),
            ))
        }
        _ => {
            return Err(Failure::refuse(
                Refusal::DeviceDraw,
                format!(
                    "game {game} is drawn by a ball device; report a fall-back or a stoppage \
                     (rule 10.4(b), (d)) before entering balls by hand"
                ),
            ))
        }
    }
    if principal.role != Role::Device {
        return Ok(());
    }
    if let Some(hold) = devices::open_hold(conn, &principal.id, game)? {
        return Err(Failure::refuse(
            Refusal::DeviceOutOfService,
            format!(
                "this device is out of service since fault {} until a supervisor and an \
                 inspector return it (rule 10.4)",
                hold.fault_id
            ),
        ));
    }
    let mut others: Vec<&str> = so_far
        .iter()
        .filter_map(|b| b.entered_by.as_deref())
        .filter(|by| *by != principal.id)
        .collect();
    others.dedup();
    for other in others {
        if is_device(conn, other)? {
            return Err(Failure::refuse(
                Refusal::AnotherDeviceDrawing,
                format!("game {game}'s draw is being made by device {other}"),
            ));
        }
    }
    Ok(())
}

fn is_device(conn: &mut DbConnection, id: &str) -> DomainResult<bool> {
    let role: String = principals::table
        .find(id)
        .select(principals::role)
        .first(conn)?;
    Ok(crate::auth::stored_role(&role, id)? == Role::Device)
}
