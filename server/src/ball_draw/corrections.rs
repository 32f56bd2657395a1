//! Correcting a mis-transferred number (rule 10.1): with a ball device the numbers on the drawn
//! balls are the official record, so a number the feed got wrong is set to the ball's. A
//! supervisor or an inspector asks, with a reason; the other role approves with their own
//! token; only then is the number changed. Until then the game is not settled, and once it is
//! settled nothing can be corrected. The endpoints are `routes/ball_draw/corrections.rs`.

use diesel::prelude::*;

use super::{hold_ball_game, key_of, standing};
use crate::approvals::{self, approvable, TwoKey};
use crate::auth::{Principal, Role};
use crate::db::schema::{draw_corrections, drawn_numbers, voided_balls};
use crate::db::{now_micros, per_backend, rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};
use keno_api::Refusal;
use keno_core::{Act, CorrectionState, GameEvent, Key};
// The wire's types (keno-api), where the server's modules have always found them.
pub use keno_api::draw::{Correction, CorrectionRequest, RejectRequest};

#[derive(Queryable, Selectable, Debug, Clone)]
#[diesel(table_name = draw_corrections)]
pub struct CorrectionRow {
    pub id: i64,
    pub game: i64,
    pub attempt: i32,
    pub position: i32,
    pub old_number: i32,
    pub new_number: i32,
    pub reason: String,
    #[diesel(deserialize_as = String)]
    pub state: CorrectionState,
    pub requested_by: String,
    pub requested_at: i64,
    pub supervisor_id: Option<String>,
    pub supervisor_at: Option<i64>,
    pub inspector_id: Option<String>,
    pub inspector_at: Option<i64>,
    pub closed_by: Option<String>,
    pub closed_at: Option<i64>,
    pub close_reason: Option<String>,
}

impl From<CorrectionRow> for Correction {
    fn from(r: CorrectionRow) -> Correction {
        Correction {
            id: r.id,
            game: r.game,
            attempt: r.attempt,
            position: r.position,
            old_number: r.old_number,
            new_number: r.new_number,
            reason: r.reason,
            state: r.state.as_str().into(),
            requested_by: r.requested_by,
            requested_at: rfc3339(r.requested_at),
            supervisor: r.supervisor_id,
            supervisor_at: r.supervisor_at.map(rfc3339),
            inspector: r.inspector_id,
            inspector_at: r.inspector_at.map(rfc3339),
            closed_by: r.closed_by,
            closed_at: r.closed_at.map(rfc3339),
            close_reason: r.close_reason,
        }
    }
}

pub fn for_game(conn: &mut DbConnection, game: i64) -> QueryResult<Vec<Correction>> {
    let rows: Vec<CorrectionRow> = draw_corrections::table
        .filter(draw_corrections::game.eq(game))
        .order(draw_corrections::id)
        .select(CorrectionRow::as_select())
        .load(conn)?;
    Ok(rows.into_iter().map(Correction::from).collect())
}

/// Asks to correct position `position` of game `game`'s draw to `new_number`, for `why`; the
/// asker's approval counts as their role's.
pub fn ask(
    conn: &mut DbConnection,
    game: i64,
    position: i64,
    new_number: i32,
    why: &str,
    by: &Principal,
) -> DomainResult<CorrectionRow> {
    let row = hold_ball_game(conn, game, &GameEvent::CorrectionAsked)?;
    let balls = standing(conn, game)?;
    let Some(ball) = balls.iter().find(|b| i64::from(b.position) == position) else {
        return Err(Failure::refuse(
            Refusal::InvalidPosition,
            format!(
                "game {game} has {} numbers drawn: give a position from 1 to {}",
                balls.len(),
                balls.len()
            ),
        ));
    };
    check_new_number(conn, game, row.draw_attempt, ball.number, new_number)?;
    let pending: bool = diesel::select(diesel::dsl::exists(
        draw_corrections::table
            .filter(draw_corrections::game.eq(game))
            .filter(draw_corrections::position.eq(ball.position))
            .filter(draw_corrections::state.eq(CorrectionState::Pending.as_str())),
    ))
    .get_result(conn)?;
    if pending {
        return Err(Failure::refuse(
            Refusal::CorrectionPending,
            format!("a correction of position {position} of game {game} is already waiting"),
        ));
    }
    let now = now_micros();
    let (supervisor, inspector) = match by.role {
        Role::Supervisor => (Some(&by.id), None),
        _ => (None, Some(&by.id)),
    };
    let asked: CorrectionRow =
        per_backend!(conn, |c| diesel::insert_into(draw_corrections::table)
            .values((
                draw_corrections::game.eq(game),
                draw_corrections::attempt.eq(row.draw_attempt),
                draw_corrections::position.eq(ball.position),
                draw_corrections::old_number.eq(ball.number),
                draw_corrections::new_number.eq(new_number),
                draw_corrections::reason.eq(why),
                draw_corrections::state.eq(CorrectionState::Pending.as_str()),
                draw_corrections::requested_by.eq(&by.id),
                draw_corrections::requested_at.eq(now),
                draw_corrections::supervisor_id.eq(supervisor),
                draw_corrections::supervisor_at.eq(supervisor.map(|_| now)),
                draw_corrections::inspector_id.eq(inspector),
                draw_corrections::inspector_at.eq(inspector.map(|_| now)),
            ))
            .returning(CorrectionRow::as_returning())
            .get_result(c))?;
    approvals::proposed(conn, &asked, &by.id)?;
    Ok(asked)
}

/// The new number must be a ball that could be in this draw in place of the old one.
fn check_new_number(
    conn: &mut DbConnection,
    game: i64,
    attempt: i32,
    old: i32,
    new: i32,
) -> DomainResult<()> {
    if new == old {
        return Err(Failure::refuse(
            Refusal::NoChange,
            format!("position already holds {new}"),
        ));
    }
    if standing(conn, game)?.iter().any(|b| b.number == new) {
        return Err(Failure::refuse(
            Refusal::DuplicateBall,
            format!("{new} is already drawn in game {game}: a ball is drawn once (rule 9.1)"),
        ));
    }
    let broken: bool = diesel::select(diesel::dsl::exists(
        voided_balls::table
            .filter(voided_balls::game.eq(game))
            .filter(voided_balls::attempt.eq(attempt))
            .filter(voided_balls::number.eq(new)),
    ))
    .get_result(conn)?;
    if broken {
        return Err(Failure::refuse(
            Refusal::DuplicateBall,
            format!("{new} was voided as a broken ball in this draw (rule 10.4(a))"),
        ));
    }
    Ok(())
}

// The trail's entries of a correction are the game's: its subject is the game.
approvable! {
    CorrectionRow in draw_corrections as "correction",
    state: CorrectionState = |c| c.state,
    refused: |_| Refusal::CorrectionClosed,
    subject: |c| c.game.to_string(),
    kind: |act| match act {
        None => crate::audit::kind::EntryKind::CorrectionAsked,
        Some(Act::Approve) => crate::audit::kind::EntryKind::CorrectionApplied,
        Some(Act::Lapse) => crate::audit::kind::EntryKind::CorrectionLapsed,
        Some(_) => crate::audit::kind::EntryKind::CorrectionRejected,
    },
    payload: |c| serde_json::json!({
        "correction": c.id, "attempt": c.attempt, "position": c.position,
        "old_number": c.old_number, "new_number": c.new_number, "reason": c.reason,
        "supervisor": c.supervisor_id, "inspector": c.inspector_id,
        "state": c.state.as_str(), "close_reason": c.close_reason,
    }),
}

impl TwoKey for CorrectionRow {
    fn holder(&self, key: Key) -> Option<&str> {
        match key {
            Key::Supervisor => self.supervisor_id.as_deref(),
            Key::Inspector => self.inspector_id.as_deref(),
        }
    }
}

/// Approves correction `id` with `by`'s role: with both approvals it is applied to the official
/// record.
pub fn apply(conn: &mut DbConnection, id: i64, by: &Principal) -> DomainResult<CorrectionRow> {
    let game = approvals::open::<CorrectionRow>(conn, id, Act::Approve)?.game;
    // Held before the correction is read again: a settlement of the game is then wholly before
    // (and the correction refused) or after (and settles the corrected number).
    let held = hold_ball_game(conn, game, &GameEvent::Corrected)?;
    // Rule 10.1: two keys, each turned once; the asker's was turned when it was asked, so this
    // one completes them.
    let key = key_of(by);
    let turner = approvals::Turner {
        id: &by.id,
        name: &by.name,
    };
    approvals::turn::<CorrectionRow, _>(conn, id, key, turner, |conn, c, to| {
        let to = to.ok_or_else(|| {
            Failure::Internal(anyhow::anyhow!(
                "correction {id} was asked with no key turned"
            ))
        })?;
        let still = standing(conn, game)?
            .iter()
            .any(|b| b.position == c.position && b.number == c.old_number);
        if c.attempt != held.draw_attempt || !still {
            return Err(Failure::refuse(
                Refusal::CorrectionClosed,
                format!("the draw of game {game} changed since correction {id} was asked"),
            ));
        }
        check_new_number(conn, game, c.attempt, c.old_number, c.new_number)?;
        let closed = close(conn, c, to, &by.id, None)?;
        turn_key(conn, id, key, &by.id)?;
        diesel::update(
            drawn_numbers::table
                .filter(drawn_numbers::game.eq(game))
                .filter(drawn_numbers::position.eq(c.position)),
        )
        .set(drawn_numbers::number.eq(c.new_number))
        .execute(conn)?;
        Ok(closed)
    })
}

/// Closes pending correction `c` as `to`: only from pending, so that whatever closed it
/// meanwhile wins.
fn close(
    conn: &mut DbConnection,
    c: &CorrectionRow,
    to: CorrectionState,
    by: &str,
    why: Option<&str>,
) -> QueryResult<usize> {
    diesel::update(draw_corrections::table.find(c.id))
        .filter(draw_corrections::state.eq(CorrectionState::Pending.as_str()))
        .set((
            draw_corrections::state.eq(to.as_str()),
            draw_corrections::closed_by.eq(by),
            draw_corrections::closed_at.eq(now_micros()),
            draw_corrections::close_reason.eq(why),
        ))
        .execute(conn)
}

fn turn_key(conn: &mut DbConnection, id: i64, key: Key, by: &str) -> QueryResult<usize> {
    let target = draw_corrections::table.find(id);
    let now = now_micros();
    match key {
        Key::Supervisor => diesel::update(target)
            .set((
                draw_corrections::supervisor_id.eq(by),
                draw_corrections::supervisor_at.eq(now),
            ))
            .execute(conn),
        Key::Inspector => diesel::update(target)
            .set((
                draw_corrections::inspector_id.eq(by),
                draw_corrections::inspector_at.eq(now),
            ))
            .execute(conn),
    }
}

/// Rejects pending correction `id` (by `by`, for `why`): the number stands as drawn.
pub fn reject(
    conn: &mut DbConnection,
    id: i64,
    by: &str,
    why: &str,
) -> DomainResult<CorrectionRow> {
    let game = approvals::open::<CorrectionRow>(conn, id, Act::Reject)?.game;
    // Ordered against an approval and a settlement of the same game.
    hold_ball_game(conn, game, &GameEvent::CorrectionRejected)?;
    approvals::decide::<CorrectionRow, _>(conn, id, Act::Reject, by, |conn, c, to| {
        Ok(close(conn, c, to, by, Some(why))?)
    })
}
