//! A supervisor invalidates a game disrupted by commotion, fire, robbery, an act of God or
//! fraud (rule 17.3, general rule 18.1; `POST /api/v1/games/{number}/invalidate`).
//!
//! Every wager on the game is refunded (general rule 18.2): a single-game ticket its cost, a
//! multi-game ticket that game's share of what it was charged (`keno_core::game_refund`: the
//! charge spread evenly over its games, the last game also taking the cents left over, so a
//! ticket whose every game is invalidated gets back exactly what it paid, and a Keno To Go
//! discount is shared too). The game pays nothing: it is never drawn further or settled. Who
//! did it, when and why is recorded.

use std::sync::atomic::AtomicBool;

use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::db::schema::{game_invalidations, ticket_refunds, tickets};
use crate::db::{now_micros, per_backend, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::events::bus::Events;
use crate::games::{advance, find};
use crate::store::Store;
use keno_api::events::{Event, GameInvalidated};
use keno_api::Refusal;
use keno_core::{game_refund, invalidation_steps, GameEvent, TicketStatus};

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct InvalidateRequest {
    /// Why: recorded for the inspectors (rule 17.3).
    pub reason: String,
    /// Tickets whose wagers on the game are forfeited rather than refunded: a cheating player's
    /// (general rule 18.2).
    #[serde(default)]
    pub forfeit: Vec<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Invalidation {
    pub game: i64,
    pub reason: String,
    pub tickets_refunded: usize,
    pub refunded_cents: i64,
    /// The tickets whose wagers were forfeited (general rule 18.2).
    pub forfeited: Vec<String>,
}

/// The displays told, the jackpot pools' figures refreshed (`jackpots_changed`: the
/// announcer's flag).
pub fn announce(events: &Events, jackpots_changed: &AtomicBool, done: &Invalidation) {
    events.publish(&Event::GameInvalidated(GameInvalidated {
        game: done.game,
        reason: done.reason.clone(),
        refunded_cents: done.refunded_cents,
    }));
    jackpots_changed.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Whether game `game` is to be closed before it is invalidated: it is open, and an open game
/// first closes (and the next opens), in its own transaction, so that no sale lands in it
/// meanwhile (rule 17.3, as the core's `invalidation_steps` has it).
pub fn closes_first(conn: &mut DbConnection, game: i64) -> DomainResult<bool> {
    Ok(find(conn, game)?.is_some_and(|row| {
        invalidation_steps(row.state).is_ok_and(|steps| steps.contains(&GameEvent::Close))
    }))
}

/// The server's own invalidation of open game `game` (a game left open under a clock ahead of
/// time, its Keno Day not yet begun: `game_time::repair_open_game`): closed and invalidated in
/// one transaction, so it is never drawn; every wager refunded, no person named
/// (`principal_id` NULL), the reason recorded. The leader's `term` fences it; the caller
/// announces it ([`announce`]).
pub fn by_the_server(
    store: &Store,
    conn: &mut DbConnection,
    (game, term): (i64, crate::leader::Term),
    reason: &str,
) -> DomainResult<Invalidation> {
    crate::store::transact(&store.db, conn, None, |conn| {
        term.check(conn)?;
        crate::games::close_in(conn, game, None)?;
        invalidate_in(conn, game, (reason, &[]), None)
    })
}

/// Each of `serials` is a ticket that plays game `game`.
pub fn plays_game(conn: &mut DbConnection, game: i64, serials: &[String]) -> DomainResult<()> {
    for serial in serials {
        let plays: bool = diesel::select(diesel::dsl::exists(
            tickets::table
                .find(serial)
                .filter(tickets::first_game.le(game))
                .filter(tickets::last_game.ge(game)),
        ))
        .get_result(conn)?;
        if !plays {
            return Err(Failure::refuse(
                Refusal::InvalidRequest,
                format!("ticket {serial:?} does not play game {game}: it has no wager to forfeit"),
            ));
        }
    }
    Ok(())
}

/// Invalidates game `game` in the caller's transaction: every wager refunded but those of
/// `forfeit`, recorded with the reason and who (`principal`, `None`: the server).
pub fn invalidate_in(
    conn: &mut DbConnection,
    game: i64,
    (reason, forfeit): (&str, &[String]),
    principal: Option<&str>,
) -> DomainResult<Invalidation> {
    let row = find(conn, game)?.ok_or_else(|| Failure::not_found("game"))?;
    if !advance(conn, game, &GameEvent::Invalidate)? {
        return Err(Failure::refuse(
            Refusal::CannotInvalidate,
            format!(
                "game {game} is {}: only a game not yet settled can be invalidated",
                row.state
            ),
        ));
    }
    crate::ball_draw::lapse_pending_corrections(conn, game, "the game was invalidated")?;
    diesel::insert_into(game_invalidations::table)
        .values((
            game_invalidations::game.eq(game),
            game_invalidations::reason.eq(reason),
            game_invalidations::principal_id.eq(principal),
            game_invalidations::invalidated_at.eq(now_micros()),
        ))
        .execute(conn)?;
    let (tickets_refunded, refunded_cents) = refund_wagers(conn, game, forfeit)?;
    let done = Invalidation {
        game,
        reason: reason.to_string(),
        tickets_refunded,
        refunded_cents,
        forfeited: forfeit.to_vec(),
    };
    let entry = crate::audit::log::Entry::new(
        crate::audit::kind::EntryKind::GameInvalidated,
        game,
        serde_json::json!({
            "reason": reason,
            "tickets_refunded": done.tickets_refunded,
            "refunded_cents": done.refunded_cents,
            "forfeited": done.forfeited,
        }),
    );
    let entry = match principal {
        Some(p) => entry.by(p),
        None => entry,
    };
    crate::audit::log::append(conn, vec![entry])?;
    Ok(done)
}

/// Each wager game `game`'s invalidation would refund (rule 17.3, general rule 18.2): every
/// ticket playing it but those `forfeit` names, cancelled ones and voided ones (their stake was
/// settled when voided, rule 17.2), with its share for this game.
fn refunds_due(
    conn: &mut DbConnection,
    game: i64,
    forfeit: &[String],
) -> DomainResult<Vec<(String, i64)>> {
    let covering: Vec<(String, i64, i32, i64)> = tickets::table
        .filter(tickets::first_game.le(game))
        .filter(tickets::last_game.ge(game))
        .filter(tickets::status.ne_all([
            TicketStatus::Cancelled.as_str(),
            TicketStatus::Voided.as_str(),
        ]))
        .filter(tickets::serial.ne_all(forfeit))
        .filter(
            tickets::cancelled_from_game
                .is_null()
                .or(tickets::cancelled_from_game.gt(game)),
        )
        .select((
            tickets::serial,
            tickets::total_cents,
            tickets::games,
            tickets::first_game,
        ))
        .order(tickets::serial)
        .load(conn)?;
    // Each ticket's share for this game: its index among the ticket's games from its first.
    Ok(covering
        .into_iter()
        .map(|(serial, total, games, first)| {
            let share = game_refund(total as u64, games as u32, (game - first) as u32);
            (serial, share as i64)
        })
        .collect())
}

/// Refunds every wager on invalidated game `game` as [`refunds_due`] has them: how many
/// tickets, and how much together.
fn refund_wagers(
    conn: &mut DbConnection,
    game: i64,
    forfeit: &[String],
) -> DomainResult<(usize, i64)> {
    let refunded = refunds_due(conn, game, forfeit)?;
    let refunds: Vec<_> = refunded
        .iter()
        .map(|(serial, cents)| {
            (
                ticket_refunds::serial.eq(serial),
                ticket_refunds::game.eq(game),
                ticket_refunds::refund_cents.eq(*cents),
            )
        })
        .collect();
    for chunk in refunds.chunks(1000) {
        per_backend!(conn, |c| diesel::insert_into(ticket_refunds::table)
            .values(chunk)
            .execute(c))?;
    }
    Ok((
        refunded.len(),
        refunded.iter().map(|(_, cents)| cents).sum(),
    ))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RefundDue {
    pub serial: String,
    pub refund_cents: i64,
}

/// What invalidating a game would do, before a supervisor confirms it.
#[derive(Debug, Serialize, ToSchema)]
pub struct InvalidationPreview {
    pub game: i64,
    pub state: String,
    pub tickets_refunded: usize,
    pub refunded_cents: i64,
    pub forfeited: Vec<String>,
    /// Each ticket's refund, by serial.
    pub refunds: Vec<RefundDue>,
}

/// What invalidating game `game` would do now, the tickets of `forfeit` forfeited: computed as
/// the invalidation computes it, and nothing changed.
pub fn preview(
    conn: &mut DbConnection,
    game: i64,
    forfeit: Vec<String>,
) -> DomainResult<InvalidationPreview> {
    let row = find(conn, game)?.ok_or_else(|| Failure::not_found("game"))?;
    if invalidation_steps(row.state).is_err() {
        return Err(Failure::refuse(
            Refusal::CannotInvalidate,
            format!(
                "game {game} is {}: only a game not yet settled can be invalidated",
                row.state
            ),
        ));
    }
    plays_game(conn, game, &forfeit)?;
    let due = refunds_due(conn, game, &forfeit)?;
    Ok(InvalidationPreview {
        game,
        state: row.state.to_string(),
        tickets_refunded: due.len(),
        refunded_cents: due.iter().map(|(_, c)| c).sum(),
        forfeited: forfeit,
        refunds: due
            .into_iter()
            .map(|(serial, refund_cents)| RefundDue {
                serial,
                refund_cents,
            })
            .collect(),
    })
}
