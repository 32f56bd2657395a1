//! Cancelling a ticket's games not yet played (rule 8; `POST /api/v1/tickets/{serial}/cancel`).
//!
//! - 8.1: a game can be cancelled until its first number is drawn;
//! - 8.2: a multi-game ticket's games not yet played can be cancelled; a Keno To Go ticket only
//!   whole, before the first number of its first game;
//! - 8.3: not on a later Keno Day than the one it was sold on.
//!
//! The drawer marks a game `drawing` in the same transaction as its first number; the cancel
//! takes the row of the first game it cancels (a no-op update) so the two are serialized. Who
//! cancelled is recorded (`cancelled_by`) for the auditors' daily exceptions.

use diesel::prelude::*;

use super::{find, TicketRow};
use crate::db::schema::tickets;
use crate::db::{now_micros, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::keno_day::KenoHours;
use crate::rule_sets::RuleSets;
use crate::staff::overrides::{admit, Approval, AtCounter};
use keno_api::staff::OverrideAction;
use keno_api::Refusal;
use keno_core::{CancelFacts, GameState, KenoDay, TicketStatus};
// The wire's type (keno-api), where the server's modules have always found it.
pub use keno_api::tickets::Cancellation;

/// A cancellation done, and whether it took a jackpot ticket's games out of the pools.
pub struct Cancelled {
    pub cancellation: Cancellation,
    pub jackpot: bool,
}

/// Cancels what rule 8 allows of ticket `serial` for the writer at the counter, on the Keno Day
/// now (`hours`), the ticket judged under the rule set it was sold under (of `rule_sets`).
pub fn cancel(
    conn: &mut DbConnection,
    serial: &str,
    counter: AtCounter<'_>,
    (rule_sets, hours): (&RuleSets, KenoHours),
) -> DomainResult<Cancelled> {
    let t: TicketRow = find(conn, serial)?.ok_or_else(|| Failure::not_found("ticket"))?;
    let principal = counter.principal;
    // Another site's ticket: only with a supervisor's approval given now.
    let approval = admit(
        counter.limits,
        conn,
        principal,
        counter.carried,
        OverrideAction::Cancel,
        &t.serial,
        &t.site,
        None,
    )?;
    let by = principal.id.as_str();
    // The Keno Day started most recently: outside the hours it is still the one just ended, so
    // a game left open past the end of gaming can still be cancelled until its draw.
    let today = hours.today()?;
    // Rule 8: the core decides what is cancelled and refunded.
    let c = keno_core::cancellation(&facts(rule_sets, conn, &t, today, Hold::Games)?, today)?;
    let (from, last) = (c.from_game as i64, c.to_game as i64);
    let refund = c.refund_cents as i64;
    let status = if c.whole {
        TicketStatus::Cancelled
    } else {
        TicketStatus::Active
    };
    let now = now_micros();
    // The refund as read: a second cancel of the same ticket at once (PostgreSQL) finds it
    // changed and refunds nothing twice.
    let changed = diesel::update(tickets::table.find(&t.serial))
        .filter(tickets::status.eq(TicketStatus::Active.as_str()))
        .filter(tickets::refund_cents.eq(t.refund_cents))
        .set((
            tickets::status.eq(status.as_str()),
            tickets::cancelled_from_game.eq(from),
            tickets::refund_cents.eq(tickets::refund_cents + refund),
            tickets::cancelled_at.eq(now),
            tickets::cancelled_by.eq(by),
        ))
        .execute(conn)?;
    if changed != 1 {
        return Err(Failure::refuse(
            Refusal::TicketChanged,
            "the ticket changed meanwhile: look it up again",
        ));
    }
    crate::audit::log::append(
        conn,
        vec![crate::audit::log::Entry::new(
            crate::audit::kind::EntryKind::TicketCancelled,
            &t.serial,
            serde_json::json!({
                "cancelled_from_game": from,
                "refund_cents": refund,
                "whole": c.whole,
                "cancelled_at": now,
                "approved_by": Approval::payload(&approval),
            }),
        )
        .by(by)],
    )?;
    Ok(Cancelled {
        cancellation: Cancellation {
            refund_cents: refund,
            games_cancelled: (from..=last).collect(),
        },
        jackpot: t.schedule == keno_core::ScheduleId::Jackpot.key(),
    })
}

/// What the core needs to know of `t` to cancel it on Keno Day `today`. The first game not yet
/// drawing is found (and held against its draw starting) only for a ticket the core could
/// cancel: a paid or cancelled ticket, or one of an earlier Keno Day (rule 8.3), is refused
/// before the games count, and holds none.
fn facts(
    rule_sets: &RuleSets,
    conn: &mut DbConnection,
    t: &TicketRow,
    today: KenoDay,
    hold: Hold,
) -> DomainResult<CancelFacts> {
    let keno_day = crate::keno_day::stored(&t.keno_day, format_args!("ticket {}", t.serial))?;
    let last = t.last_played_game();
    let first_not_drawing = if t.status == TicketStatus::Active && today <= keno_day {
        first_unplayed(conn, t.first_game, last, hold)?
    } else {
        None
    };
    let sold_under = rule_sets.get(conn, &t.rule_set)?;
    let games = u32::try_from(t.games).map_err(|_| {
        Failure::Internal(anyhow::anyhow!("ticket {}: {} games", t.serial, t.games))
    })?;
    Ok(CancelFacts {
        status: t.status,
        keno_day,
        first_game: t.first_game as u64,
        last_played_game: last as u64,
        games,
        // Rule 1(f), under the rule set it was sold under.
        keno_to_go: sold_under.games().is_keno_to_go(games),
        total_cents: t.total_cents as u64,
        game_cost_cents: t.game_cost_cents as u64,
        first_not_drawing: first_not_drawing.map(|g| g as u64),
    })
}

/// Whether the games are held against their draws starting: by a cancellation, not by a look.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Hold {
    Games,
    Nothing,
}

/// What cancelling `t` would do now (rule 8), by the cancellation's own facts and core
/// decision, holding nothing; `None` when it would be refused. The ticket's view shows it.
pub fn preview(
    rule_sets: &RuleSets,
    conn: &mut DbConnection,
    t: &TicketRow,
    today: KenoDay,
) -> DomainResult<Option<keno_api::tickets::CancelPreview>> {
    let facts = facts(rule_sets, conn, t, today, Hold::Nothing)?;
    Ok(keno_core::cancellation(&facts, today)
        .ok()
        .map(|c| keno_api::tickets::CancelPreview {
            from_game: c.from_game as i64,
            to_game: c.to_game as i64,
            whole: c.whole,
            refund_cents: c.refund_cents,
        }))
}

/// The first game from `first` to `last` not yet drawing, held against its draw starting
/// (`Hold::Games`).
fn first_unplayed(
    conn: &mut DbConnection,
    first: i64,
    last: i64,
    hold: Hold,
) -> QueryResult<Option<i64>> {
    let mut candidate = first;
    while candidate <= last {
        match crate::games::find(conn, candidate)?.map(|g| g.state) {
            // A game not created yet is in the future.
            None => return Ok(Some(candidate)),
            Some(state) if state.cancellable() && hold == Hold::Nothing => {
                return Ok(Some(candidate))
            }
            // Rule 8.1: until its first number is drawn; held against the draw starting.
            Some(state) if state.cancellable() => {
                let cancellable: Vec<GameState> = GameState::ALL
                    .into_iter()
                    .filter(|s| s.cancellable())
                    .collect();
                if crate::games::hold(conn, candidate, &cancellable)? {
                    return Ok(Some(candidate));
                }
            }
            Some(_) => {}
        }
        candidate += 1;
    }
    Ok(None)
}
