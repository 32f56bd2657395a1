//! Everything about how a game was drawn, for an inspector or an auditor: each standing ball
//! and who entered it, each voided ball, each fault and each correction (rule 10;
//! `GET /api/v1/games/{number}/draw-record`, `routes/ball_draw/record.rs`).

use diesel::prelude::*;

use super::corrections::for_game;
use super::faults::FaultRow;
use super::standing;
use crate::db::schema::{draw_faults, voided_balls};
use crate::db::{rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::games::load;
// The wire's types (keno-api), where the server's modules have always found them.
pub use keno_api::draw::{BallEntry, DrawRecord, Fault, VoidedBall};

/// The full record of game `game`'s draw: balls, voided balls, faults and corrections.
pub fn draw_record(conn: &mut DbConnection, game: i64) -> DomainResult<DrawRecord> {
    let shown = load(conn, game)?.ok_or_else(|| Failure::not_found("game"))?;
    let balls = standing(conn, game)?
        .into_iter()
        .map(|b| BallEntry {
            position: b.position,
            number: b.number,
            drawn_at: rfc3339(b.drawn_at),
            entered_by: b.entered_by,
        })
        .collect();
    type Voided = (i32, i32, i32, i64, Option<String>, i64);
    let voided: Vec<Voided> = voided_balls::table
        .filter(voided_balls::game.eq(game))
        .order((voided_balls::attempt, voided_balls::drawn_at))
        .select((
            voided_balls::attempt,
            voided_balls::position,
            voided_balls::number,
            voided_balls::drawn_at,
            voided_balls::entered_by,
            voided_balls::fault_id,
        ))
        .load(conn)?;
    let faults: Vec<FaultRow> = draw_faults::table
        .filter(draw_faults::game.eq(game))
        .order(draw_faults::id)
        .select(FaultRow::as_select())
        .load(conn)?;
    Ok(DrawRecord {
        game: shown,
        balls,
        voided: voided
            .into_iter()
            .map(
                |(attempt, position, number, drawn_at, entered_by, fault)| VoidedBall {
                    attempt,
                    position,
                    number,
                    drawn_at: rfc3339(drawn_at),
                    entered_by,
                    fault,
                },
            )
            .collect(),
        faults: faults
            .into_iter()
            .map(|row| Fault {
                recorded_at: rfc3339(row.recorded_at),
                row: row.shown(),
            })
            .collect(),
        corrections: for_game(conn, game)?,
    })
}
