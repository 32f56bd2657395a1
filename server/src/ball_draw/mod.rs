//! Drawing with a ball machine (rules 3.2, 9.3, 10): the device's feed, the faults of rule 10
//! and their consequences, corrections of a mis-transferred number with two approvals, devices
//! out of service, and the draw's full record for an inspector.
//!
//! `drawn_numbers` holds the standing numbers of a game's current draw, positions 1 to k with
//! no gaps, so that settlement, tickets and displays read one official record (10.1). What a
//! fault takes out of that record moves to `voided_balls`, never deleted; the fault itself, the
//! corrections and the holds on a device each keep who, when and why.

pub mod balls;
pub mod corrections;
pub mod devices;
pub mod faults;
pub mod record;

use diesel::prelude::*;

use crate::db::schema::{draw_corrections, drawn_numbers, games, voided_balls};
use crate::db::{now_micros, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::games::{advance, codes, find, hold, GameRow};
use keno_api::Refusal;
use keno_core::{transition, CorrectionState, DrawMode, DrawSource, FaultKind, GameEvent, Key};

/// A standing ball of the current draw.
#[derive(Queryable, Selectable, Clone, Debug)]
#[diesel(table_name = drawn_numbers)]
pub struct StandingBall {
    pub position: i32,
    pub number: i32,
    pub drawn_at: i64,
    pub entered_by: Option<String>,
}

pub fn standing(conn: &mut DbConnection, game: i64) -> QueryResult<Vec<StandingBall>> {
    drawn_numbers::table
        .filter(drawn_numbers::game.eq(game))
        .order(drawn_numbers::position)
        .select(StandingBall::as_select())
        .load(conn)
}

/// The game drawn by a ball device, held for the rest of the transaction: a settlement, an
/// invalidation, a ball or a fault of the same game is then wholly before or after this one.
/// Refused unless `event` may happen in the game's state, with the core's refusal
/// (`already_settled` once it is settled, else `game_not_drawing`).
pub fn hold_ball_game(
    conn: &mut DbConnection,
    game: i64,
    event: &GameEvent,
) -> DomainResult<GameRow> {
    let row = find(conn, game)?.ok_or_else(|| Failure::not_found("game"))?;
    if row.source != DrawSource::BallDevice {
        // Rule 10.1: with the RNG the computer's record is the official one; it has no balls.
        return Err(Failure::refuse(
            Refusal::NotABallGame,
            format!("game {game} is drawn by the random number generator, not a ball device"),
        ));
    }
    let allowed = event.allowed_from();
    if !hold(conn, game, allowed)? {
        let now = find(conn, game)?.map_or(row.state, |r| r.state);
        let refusal = match transition(now, event) {
            Err(e) => Refusal::from(&e),
            Ok(_) => Refusal::GameNotDrawing,
        };
        return Err(Failure::refuse(
            refusal,
            format!(
                "game {game} is {now}: this is possible only while it is {}",
                codes(allowed).join(" or ")
            ),
        ));
    }
    // Read again under the hold: what was read before it may have changed meanwhile.
    Ok(find(conn, game)?.expect("the held game exists"))
}

/// Moves balls out of the official record into `voided_balls`, with the fault that voided them.
fn void_balls(
    conn: &mut DbConnection,
    game: &GameRow,
    balls: &[StandingBall],
    fault_id: i64,
) -> QueryResult<()> {
    for ball in balls {
        diesel::insert_into(voided_balls::table)
            .values((
                voided_balls::game.eq(game.number),
                voided_balls::attempt.eq(game.draw_attempt),
                voided_balls::number.eq(ball.number),
                voided_balls::position.eq(ball.position),
                voided_balls::drawn_at.eq(ball.drawn_at),
                voided_balls::entered_by.eq(&ball.entered_by),
                voided_balls::fault_id.eq(fault_id),
            ))
            .execute(conn)?;
    }
    Ok(())
}

/// The whole draw is void (rules 10.2, 10.4(c)): its balls leave the record, the game waits
/// for a new draw (state `void`) by a device unless a supervisor reports that it cannot run.
pub fn void_draw(
    conn: &mut DbConnection,
    game: &GameRow,
    fault: (i64, FaultKind),
) -> QueryResult<()> {
    let (fault_id, kind) = fault;
    let balls = standing(conn, game.number)?;
    void_balls(conn, game, &balls, fault_id)?;
    lapse_pending_corrections(
        conn,
        game.number,
        &format!("fault {fault_id} voided the draw"),
    )?;
    diesel::delete(drawn_numbers::table.filter(drawn_numbers::game.eq(game.number)))
        .execute(conn)?;
    advance(conn, game.number, &GameEvent::Fault(kind))?;
    diesel::update(games::table.find(game.number))
        .set((
            games::draw_attempt.eq(game.draw_attempt + 1),
            games::draw_mode.eq(DrawMode::initial(game.source).as_str()),
            games::drawn_at.eq(None::<i64>),
        ))
        .execute(conn)?;
    Ok(())
}

/// One ball is void (rule 10.4(a)): it leaves the record, the balls after it move up one place,
/// and the draw needs one more ball.
pub fn void_ball(
    conn: &mut DbConnection,
    game: &GameRow,
    number: i32,
    fault_id: i64,
) -> DomainResult<()> {
    let balls = standing(conn, game.number)?;
    let Some(at) = balls.iter().position(|b| b.number == number) else {
        return Err(Failure::refuse(
            Refusal::NotDrawn,
            format!(
                "{number} is not among the numbers drawn in game {}",
                game.number
            ),
        ));
    };
    void_balls(conn, game, &balls[at..=at], fault_id)?;
    lapse_pending_corrections(
        conn,
        game.number,
        &format!("fault {fault_id} voided ball {number}: the balls after it moved up"),
    )?;
    // Delete and write again rather than shift in place: PostgreSQL checks the (game,
    // position) key row by row, so an in-place shift can collide with itself.
    diesel::delete(
        drawn_numbers::table
            .filter(drawn_numbers::game.eq(game.number))
            .filter(drawn_numbers::position.ge(balls[at].position)),
    )
    .execute(conn)?;
    for ball in &balls[at + 1..] {
        diesel::insert_into(drawn_numbers::table)
            .values((
                drawn_numbers::game.eq(game.number),
                drawn_numbers::position.eq(ball.position - 1),
                drawn_numbers::number.eq(ball.number),
                drawn_numbers::drawn_at.eq(ball.drawn_at),
                drawn_numbers::entered_by.eq(&ball.entered_by),
            ))
            .execute(conn)?;
    }
    advance(conn, game.number, &GameEvent::Fault(FaultKind::BrokenBall))?;
    diesel::update(games::table.find(game.number))
        .set(games::drawn_at.eq(None::<i64>))
        .execute(conn)?;
    Ok(())
}

/// A pending correction was asked against a record that has changed (balls voided, the game
/// invalidated): it lapses, with why, and no one's name as if they had rejected it.
pub fn lapse_pending_corrections(
    conn: &mut DbConnection,
    game: i64,
    why: &str,
) -> QueryResult<usize> {
    // The core's table: a pending correction lapses (rule 10.1: it was asked of a record that
    // no longer stands).
    let lapsed = keno_core::decide(CorrectionState::Pending, keno_core::Act::Lapse)
        .map_err(|e| diesel::result::Error::QueryBuilderError(e.into()))?;
    diesel::update(draw_corrections::table)
        .filter(draw_corrections::game.eq(game))
        .filter(draw_corrections::state.eq(CorrectionState::Pending.as_str()))
        .set((
            draw_corrections::state.eq(lapsed.as_str()),
            draw_corrections::closed_at.eq(now_micros()),
            draw_corrections::close_reason.eq(why),
        ))
        .execute(conn)
}

/// The key of a two-key act (rules 10.1, 10.4) that `by` turns: the routes admit only
/// supervisors and inspectors to them.
pub fn key_of(by: &crate::auth::Principal) -> Key {
    match by.role {
        crate::auth::Role::Supervisor => Key::Supervisor,
        _ => Key::Inspector,
    }
}

pub use crate::reason::reason;

/// A number on the board, or a 422.
pub fn board_number(n: i64) -> DomainResult<i32> {
    match n {
        1..=80 => Ok(n as i32),
        _ => Err(Failure::refuse(
            Refusal::InvalidNumber,
            format!("{n} is not on the board: balls are numbered 1 to 80 (rule 3.2)"),
        )),
    }
}
