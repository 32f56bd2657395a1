//! `POST /api/v1/games/{number}/faults`: the device or a supervisor reports a fault of rule 10,
//! and the draw takes the path the rule sets for it.
//!
//! | kind | rule | what follows |
//! | --- | --- | --- |
//! | `short_of_balls` | 10.2 | the draw is void; a new draw starts |
//! | `broken_ball` | 10.4(a) | that number is void, one more ball is drawn; the device draws no further game until the ball is replaced before an inspector |
//! | `fall_back` | 10.4(b) | the balls drawn stand; the rest are drawn by hand |
//! | `spill` | 10.4(c) | the draw is void; the device is out of service until a supervisor and an inspector return it |
//! | `stoppage` | 10.4(d) | the draw is finished by hand; the device draws no further game until it is returned |
//! | `no_device` | 10.4(d) | no functional device: a supervisor draws the game by hand |

use diesel::prelude::*;
use serde::Serialize;

use super::balls::{may_draw, same_attempt};
use super::{hold_ball_game, standing, void_ball, void_draw};
use crate::auth::{Principal, Role};
use crate::db::schema::{device_holds, draw_faults, games, principals};
use crate::db::{now_micros, per_backend, rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::games::{load, GameRow};
use keno_api::events::{DrawFault, Event};
use keno_api::Refusal;
use keno_core::{DrawMode, GameEvent, GameState};
// The wire's types (keno-api), where the server's modules have always found them.
pub use keno_api::draw::{FaultKind, FaultRecorded, FaultReport};

/// A recorded fault, as stored (the API shows it as `keno_api::draw::FaultRow`).
#[derive(Debug, Serialize, Queryable, Selectable)]
#[diesel(table_name = draw_faults)]
pub struct FaultRow {
    pub id: i64,
    pub game: i64,
    /// The draw of the game the fault happened in.
    pub attempt: i32,
    pub kind: String,
    pub number: Option<i32>,
    pub device_id: Option<String>,
    pub reason: String,
    /// Who reported it.
    pub principal_id: String,
    #[serde(skip)]
    pub recorded_at: i64,
}

impl FaultRow {
    /// The fault as the API shows it (its time is given beside it, as RFC 3339).
    pub fn shown(self) -> keno_api::draw::FaultRow {
        keno_api::draw::FaultRow {
            id: self.id,
            game: self.game,
            attempt: self.attempt,
            kind: self.kind,
            number: self.number,
            device_id: self.device_id,
            reason: self.reason,
            principal_id: self.principal_id,
        }
    }
}

/// The number a fault report gives: a broken ball's, on the board, and none for another
/// kind.
pub fn reported_number(kind: FaultKind, number: Option<i64>) -> DomainResult<Option<i32>> {
    match (kind, number) {
        (FaultKind::BrokenBall, Some(n)) => Ok(Some(super::board_number(n)?)),
        (FaultKind::BrokenBall, None) => Err(Failure::refuse(
            Refusal::NumberRequired,
            "give the number of the broken ball (rule 10.4(a))",
        )),
        (_, Some(_)) => Err(Failure::refuse(
            Refusal::InvalidRequest,
            "a number is given only for a broken ball",
        )),
        (_, None) => Ok(None),
    }
}

/// The displays' `draw_fault` event of a fault recorded in game `game`.
pub fn event(game: i64, recorded: &FaultRecorded) -> Event {
    Event::DrawFault(DrawFault {
        game,
        fault: recorded.fault.id,
        kind: recorded.fault.kind.clone(),
        number: recorded.fault.number,
        reason: recorded.fault.reason.clone(),
        state: recorded.game.state.clone(),
        draw_attempt: recorded.game.draw_attempt,
        draw_mode: recorded.game.draw_mode.clone(),
        drawn: recorded.game.drawn.clone(),
    })
}

/// Records a fault of game `game`'s draw reported by `by` (the ball `number`, for a broken
/// one), and takes the path rule 10 sets for it.
pub fn record(
    conn: &mut DbConnection,
    game: i64,
    report: &FaultReport,
    number: Option<i32>,
    why: &str,
    by: &Principal,
) -> DomainResult<FaultRecorded> {
    let kind = report.kind;
    let row = hold_ball_game(conn, game, &GameEvent::Fault(kind.core()))?;
    same_attempt(&row, report.attempt)?;
    may_report(conn, &row, report, by)?;
    let device = device_at_fault(conn, &row, kind, number, report.device.clone(), by)?;
    let now = now_micros();
    let fault = per_backend!(conn, |c| diesel::insert_into(draw_faults::table)
        .values((
            draw_faults::game.eq(game),
            draw_faults::attempt.eq(row.draw_attempt),
            draw_faults::kind.eq(kind.as_str()),
            draw_faults::number.eq(number),
            draw_faults::device_id.eq(&device),
            draw_faults::reason.eq(why),
            draw_faults::principal_id.eq(&by.id),
            draw_faults::recorded_at.eq(now),
        ))
        .returning(FaultRow::as_returning())
        .get_result(c))?;
    let hold_from = consequences(conn, &row, kind, number, fault.id)?;
    let out_of_service = match (hold_from, &device) {
        (Some(from), Some(device)) => {
            diesel::insert_into(device_holds::table)
                .values((
                    device_holds::device_id.eq(device),
                    device_holds::fault_id.eq(fault.id),
                    device_holds::blocks_from_game.eq(from),
                    device_holds::opened_at.eq(now),
                ))
                .execute(conn)?;
            true
        }
        _ => false,
    };
    let after = load(conn, game)?.expect("the held game exists");
    crate::audit::log::append(
        conn,
        vec![crate::audit::log::Entry::new(
            crate::audit::kind::EntryKind::DrawFault,
            game,
            serde_json::json!({
                "fault": fault.id, "kind": fault.kind, "attempt": fault.attempt,
                "number": fault.number, "device": fault.device_id, "reason": fault.reason,
                "hold_from_game": hold_from.filter(|_| out_of_service),
                "drawn_after": after.drawn, "draw_attempt_after": after.draw_attempt,
                "draw_mode_after": after.draw_mode,
            }),
        )
        .by(&by.id)],
    )?;
    Ok(FaultRecorded {
        recorded_at: rfc3339(fault.recorded_at),
        fault: fault.shown(),
        device_out_of_service: out_of_service,
        game: after,
    })
}

/// What the fault does to the draw (rule 10.2, 10.4), as the core's fault kind has it; and
/// which game on its device is out of service from, if it is taken out.
fn consequences(
    conn: &mut DbConnection,
    row: &GameRow,
    kind: FaultKind,
    number: Option<i32>,
    fault_id: i64,
) -> DomainResult<Option<i64>> {
    let game = row.number;
    Ok(match kind {
        FaultKind::ShortOfBalls => {
            void_draw(conn, row, (fault_id, kind.core()))?;
            None
        }
        FaultKind::BrokenBall => {
            void_ball(conn, row, number.expect("checked"), fault_id)?;
            // The draw in progress is completed; no further draw before the ball is replaced.
            Some(game + 1)
        }
        FaultKind::Spill => {
            void_draw(conn, row, (fault_id, kind.core()))?;
            Some(game)
        }
        FaultKind::FallBack | FaultKind::Stoppage | FaultKind::NoDevice => {
            diesel::update(games::table.find(game))
                .set(games::draw_mode.eq(DrawMode::Manual.as_str()))
                .execute(conn)?;
            // A stopped device draws again once it is rectified and returned (10.4(d)).
            (kind == FaultKind::Stoppage).then_some(game + 1)
        }
    })
}

/// Whether `by` may report this fault of `row`'s draw now: who may report what, and a draw
/// already finished by hand.
fn may_report(
    conn: &mut DbConnection,
    row: &GameRow,
    report: &FaultReport,
    by: &Principal,
) -> DomainResult<()> {
    let (game, kind) = (row.number, report.kind);
    let supervisor_only = match kind {
        FaultKind::NoDevice => true,
        // Once the 20th ball is shown, only a supervisor's check of the balls finds a fault.
        _ => row.state == GameState::Drawn,
    };
    if supervisor_only && by.role != Role::Supervisor {
        return Err(Failure::refuse(
            Refusal::SupervisorOnly,
            format!("a supervisor reports this fault of game {game}"),
        ));
    }
    if matches!(
        kind,
        FaultKind::FallBack | FaultKind::Stoppage | FaultKind::NoDevice
    ) && row.draw_mode == DrawMode::Manual
    {
        return Err(Failure::refuse(
            Refusal::AlreadyManual,
            format!("game {game}'s draw is already being finished by hand"),
        ));
    }
    if by.role == Role::Device {
        if report.device.is_some() {
            return Err(Failure::refuse(
                Refusal::InvalidRequest,
                "a device reports its own faults: `device` is for a supervisor's report",
            ));
        }
        let balls = standing(conn, game)?;
        may_draw(conn, row, by, &balls)?;
    }
    Ok(())
}

/// The device a fault is charged to: the reporting device; or the one a supervisor names; or
/// the one that drew the broken ball, or the draw's balls. A spill must name one, since it
/// takes the device out of service.
fn device_at_fault(
    conn: &mut DbConnection,
    game: &GameRow,
    kind: FaultKind,
    number: Option<i32>,
    named: Option<String>,
    by: &Principal,
) -> DomainResult<Option<String>> {
    if by.role == Role::Device {
        return Ok(Some(by.id.clone()));
    }
    if let Some(named) = named {
        let role: Option<String> = principals::table
            .find(&named)
            .select(principals::role)
            .first(conn)
            .optional()?;
        let role = role
            .map(|r| crate::auth::stored_role(&r, &named))
            .transpose()?;
        if role != Some(Role::Device) {
            return Err(Failure::refuse(
                Refusal::NotADevice,
                format!("{named} is not a ball device"),
            ));
        }
        return Ok(Some(named));
    }
    let balls = standing(conn, game.number)?;
    let pick = |b: &&super::StandingBall| match kind {
        FaultKind::BrokenBall => Some(b.number) == number,
        _ => true,
    };
    let mut device = None;
    for ball in balls.iter().filter(pick) {
        if let Some(by) = &ball.entered_by {
            let role: String = principals::table
                .find(by)
                .select(principals::role)
                .first(conn)?;
            if crate::auth::stored_role(&role, by)? == Role::Device {
                device = Some(by.clone());
                break;
            }
        }
    }
    if kind == FaultKind::NoDevice {
        return Ok(None);
    }
    if device.is_none() && kind == FaultKind::Spill {
        return Err(Failure::refuse(
            Refusal::DeviceRequired,
            "name the device that spilled (`device`): it is out of service until returned \
             (rule 10.4(c))",
        ));
    }
    Ok(device)
}
