//! Prizes unclaimed 12 months after their win (rule 13.2): a supervisor moves them, by a
//! recorded decision, to a return-to-player use (counted in Keno Days, as rule 13.1 counts
//! them: a prize moves exactly when a writer terminal no longer pays it, never both): a jackpot pool (carried into the next game
//! settled) or the bonus-prize fund. The tickets stay payable by claim (13.4); vouchers are
//! never moved (13.3: they are not tickets, and nothing here reads them).

use chrono::TimeZone;
use diesel::prelude::*;
use keno_core::RuleSet;
use serde::Serialize;
use utoipa::ToSchema;

use super::ClaimState;
use crate::audit::log::{append, Entry};
use crate::db::schema::{
    claims, games, jackpot_additions, tickets, unclaimed_movements, unclaimed_prizes_moved,
};
use crate::db::{now_micros, per_backend, rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::keno_day::KenoHours;
use crate::tickets::pay::facts;
use crate::tickets::TicketRow;
use keno_api::Refusal;
use keno_core::{KenoDay, TicketStatus};

#[derive(Debug, Serialize, ToSchema, Queryable, Selectable)]
#[diesel(table_name = unclaimed_movements)]
pub struct MovementRow {
    pub id: i64,
    pub destination: String,
    #[serde(skip)]
    pub won_before: i64,
    pub tickets: i64,
    pub total_cents: i64,
    pub reason: String,
    pub decided_by: String,
    #[serde(skip)]
    pub decided_at: i64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Movement {
    #[serde(flatten)]
    pub row: MovementRow,
    /// Prizes won before this moment were moved: the start of the Keno Day after the last
    /// Keno Day whose prizes were moved.
    pub won_before: String,
    pub decided_at: String,
    /// Of the moved prizes, what has since been paid by claim (rule 13.4).
    pub recovered_by_claim_cents: i64,
}

/// Where unclaimed prizes go: the spots of a jackpot pool of `rules` (`jackpot_N`), or none
/// for the bonus fund (`bonus_fund`); anything else is `invalid_destination`.
pub fn destination(rules: &RuleSet, named: &str) -> DomainResult<Option<u8>> {
    if named == "bonus_fund" {
        return Ok(None);
    }
    named
        .strip_prefix("jackpot_")
        .and_then(|s| s.parse::<u8>().ok())
        .filter(|s| rules.jackpot_type(*s).is_some())
        .map(Some)
        .ok_or_else(|| {
            Failure::refuse(
                Refusal::InvalidDestination,
                format!(
                    "{named:?}: the destination is bonus_fund or jackpot_N for a jackpot \
                     pool of the rules in force"
                ),
            )
        })
}

/// Moves every prize unclaimed 12 months after its win (Keno Days of `hours`) to
/// `destination` (`spots`: its jackpot pool, if one), by `by`'s decision, saying why.
pub fn move_unclaimed(
    conn: &mut DbConnection,
    hours: KenoHours,
    (destination, spots): (&str, Option<u8>),
    why: &str,
    by: &str,
) -> DomainResult<Movement> {
    let today = hours.today()?;
    // Rule 13.2, counted in Keno Days as rule 13.1 is: the prizes of Keno Days up to this
    // one are unclaimed for twelve months today, and no longer payable at a terminal.
    let Some(old_day) = keno_core::unclaimed_before(today) else {
        return Err(nothing());
    };
    let won_before = day_started(hours, old_day)?;
    let id = record(
        conn,
        destination,
        spots,
        (old_day, won_before),
        today,
        why,
        by,
    )?;
    movement(conn, id)
}

/// The movements numbered above `after`, oldest first, at most `limit`.
pub fn movements(
    conn: &mut DbConnection,
    (limit, after): (i64, i64),
) -> DomainResult<Vec<Movement>> {
    let ids: Vec<i64> = unclaimed_movements::table
        .filter(unclaimed_movements::id.gt(after))
        .order(unclaimed_movements::id)
        .limit(limit)
        .select(unclaimed_movements::id)
        .load(conn)?;
    ids.into_iter().map(|id| movement(conn, id)).collect()
}

/// The moment the Keno Day after `old_day` started (its hours' start, local time): the prizes
/// of Keno Days up to `old_day` were won before it (`won_before`, kept as the API shows it).
fn day_started(hours: KenoHours, old_day: KenoDay) -> DomainResult<i64> {
    let next = crate::keno_day::to_date(old_day)
        .succ_opt()
        .ok_or_else(|| Failure::Internal(anyhow::anyhow!("no day after {old_day}")))?;
    let start = next.and_time(hours.start);
    let local = chrono::Local
        .from_local_datetime(&start)
        .earliest()
        .ok_or_else(|| Failure::Internal(anyhow::anyhow!("{start} is no local time")))?;
    Ok(local.timestamp_micros())
}

fn record(
    conn: &mut DbConnection,
    destination: &str,
    spots: Option<u8>,
    (old_day, won_before): (KenoDay, i64),
    today: KenoDay,
    why: &str,
    by: &str,
) -> DomainResult<i64> {
    let owed = unclaimed(conn, old_day, today)?;
    if owed.is_empty() {
        return Err(nothing());
    }
    let total: i64 = owed.iter().map(|(_, c)| c).sum();
    let now = now_micros();
    let row: MovementRow = per_backend!(conn, |c| diesel::insert_into(unclaimed_movements::table)
        .values((
            unclaimed_movements::destination.eq(destination),
            unclaimed_movements::won_before.eq(won_before),
            unclaimed_movements::tickets.eq(owed.len() as i64),
            unclaimed_movements::total_cents.eq(total),
            unclaimed_movements::reason.eq(why),
            unclaimed_movements::decided_by.eq(by),
            unclaimed_movements::decided_at.eq(now),
        ))
        .returning(MovementRow::as_returning())
        .get_result(c))?;
    for (serial, cents) in &owed {
        diesel::insert_into(unclaimed_prizes_moved::table)
            .values((
                unclaimed_prizes_moved::serial.eq(serial),
                unclaimed_prizes_moved::movement_id.eq(row.id),
                unclaimed_prizes_moved::prize_cents.eq(cents),
            ))
            .execute(conn)?;
    }
    // Rule 13.2: to fund bonus prizes: the bonus fund's balance.
    if destination == "bonus_fund" {
        crate::bonus_fund::credit(conn, row.id, total, now, by)?;
    }
    if let Some(spots) = spots {
        diesel::insert_into(jackpot_additions::table)
            .values((
                jackpot_additions::spots.eq(i32::from(spots)),
                jackpot_additions::cents.eq(total),
                jackpot_additions::movement_id.eq(row.id),
                jackpot_additions::added_at.eq(now),
            ))
            .execute(conn)?;
    }
    append(
        conn,
        vec![Entry::new(
            crate::audit::kind::EntryKind::UnclaimedMoved,
            row.id,
            serde_json::json!({
                "destination": destination, "won_before": won_before, "reason": why,
                "total_cents": total,
                "prizes": owed.iter().map(|(s, c)| serde_json::json!([s, c])).collect::<Vec<_>>(),
            }),
        )
        .by(by)],
    )?;
    Ok(row.id)
}

/// Rule 13.2: each prize of a Keno Day up to `old_day` still owed and not yet moved, with what
/// it is owed: its serial and cents.
fn unclaimed(
    conn: &mut DbConnection,
    old_day: KenoDay,
    today: KenoDay,
) -> DomainResult<Vec<(String, i64)>> {
    // The last game of a Keno Day twelve months old: tickets whose last game is no later.
    // (`YYYY-MM-DD` orders as the days do.) Its last game may have been invalidated rather
    // than settled (rule 17.3): it is over for its tickets all the same.
    let old_game: Option<i64> = games::table
        .filter(games::state.eq_any(keno_core::GameState::codes_where(
            keno_core::GameState::is_final,
        )))
        .filter(games::keno_day.le(old_day.to_string()))
        .select(diesel::dsl::max(games::number))
        .first(conn)?;
    let Some(old_game) = old_game else {
        return Ok(Vec::new());
    };
    let unpaid: Vec<TicketRow> = tickets::table
        .filter(tickets::status.eq(TicketStatus::Active.as_str()))
        .filter(
            tickets::last_game
                .le(old_game)
                .or(tickets::cancelled_from_game.le(old_game + 1)),
        )
        .filter(diesel::dsl::not(diesel::dsl::exists(
            unclaimed_prizes_moved::table
                .filter(unclaimed_prizes_moved::serial.eq(tickets::serial)),
        )))
        // A claim approved and waiting for its cheque is being paid: it is not unclaimed.
        .filter(diesel::dsl::not(diesel::dsl::exists(
            claims::table
                .filter(claims::ticket_serial.eq(tickets::serial.nullable()))
                .filter(claims::state.eq(ClaimState::Approved.as_str())),
        )))
        .select(TicketRow::as_select())
        .load(conn)?;
    let mut owed = Vec::new();
    for t in &unpaid {
        if t.last_played_game() > old_game {
            continue;
        }
        // Rules 13.1, 13.2: moved exactly when a terminal no longer pays it today (the same
        // Keno Day rule), so a prize is never both payable there and moved.
        let Ok(due) = keno_core::owed(&facts(conn, t)?) else {
            continue;
        };
        // Rule 13.2 moves unclaimed prizes only: the refund of an invalidated game stays the
        // ticket holder's, by claim after the twelve months (INTERPRETATION, "Only prizes are
        // unclaimed prizes").
        if due.prizes_cents > 0 && keno_core::at_a_terminal(due.deadline, today).is_err() {
            owed.push((t.serial.clone(), due.prizes_cents as i64));
        }
    }
    Ok(owed)
}

fn nothing() -> Failure {
    Failure::refuse(
        Refusal::NothingToMove,
        "no prize has been unclaimed for 12 months since its win (rule 13.2)",
    )
}

fn movement(conn: &mut DbConnection, id: i64) -> DomainResult<Movement> {
    let row: MovementRow = unclaimed_movements::table
        .find(id)
        .select(MovementRow::as_select())
        .first(conn)?;
    let recovered: Vec<Option<i64>> = claims::table
        .inner_join(
            unclaimed_prizes_moved::table.on(unclaimed_prizes_moved::serial
                .nullable()
                .eq(claims::ticket_serial)),
        )
        .filter(unclaimed_prizes_moved::movement_id.eq(id))
        .filter(claims::state.eq(ClaimState::Paid.as_str()))
        .select(claims::paid_cents)
        .load(conn)?;
    Ok(Movement {
        won_before: rfc3339(row.won_before),
        decided_at: rfc3339(row.decided_at),
        recovered_by_claim_cents: recovered.into_iter().flatten().sum(),
        row,
    })
}
