//! The bonus fund (rule 13.2; INTERPRETATION, "The bonus fund"): prizes unclaimed for twelve
//! months and moved "to fund bonus prizes" are credited to it; the bonus prizes marked as funded
//! by it draw on it when a game that pays them settles (`keno_core::fund_draw`). The balance is
//! the sum of the movements: credits only raise it and only settlement, one game at a time,
//! draws on it, so a draw never takes it below 0. Each movement enters the audit trail in the
//! transaction that makes it, and `audit verify` compares the two. `GET /api/v1/bonus-fund`
//! is `routes/bonus_fund.rs`.

use diesel::prelude::*;
use serde::Serialize;
use utoipa::ToSchema;

use crate::audit::log::{append, Entry};
use crate::db::schema::bonus_fund_movements;
use crate::db::{per_backend, rfc3339, DbConnection};

#[derive(Queryable, Selectable, Debug, Clone)]
#[diesel(table_name = bonus_fund_movements)]
pub struct FundMovementRow {
    pub id: i64,
    pub cents: i64,
    pub unclaimed_movement: Option<i64>,
    pub game: Option<i64>,
    pub recorded_at: i64,
}

impl FundMovementRow {
    /// The audit trail's record of it (`bonus_fund_moved`).
    pub fn payload(&self) -> serde_json::Value {
        serde_json::json!({
            "cents": self.cents, "unclaimed_movement": self.unclaimed_movement,
            "game": self.game, "recorded_at": self.recorded_at,
        })
    }
}

/// The balance now: every movement in, less every draw.
pub fn balance(conn: &mut DbConnection) -> QueryResult<i64> {
    // Summed here rather than by SQL: SUM of a BIGINT is NUMERIC on PostgreSQL, and the
    // movements are few (one per movement of prizes, one per game paying a funded bonus).
    let cents: Vec<i64> = bonus_fund_movements::table
        .select(bonus_fund_movements::cents)
        .load(conn)?;
    Ok(cents.iter().sum())
}

/// Records a movement of `cents` (in > 0, out < 0) with its entry in the audit trail.
fn record(
    conn: &mut DbConnection,
    cents: i64,
    (unclaimed_movement, game): (Option<i64>, Option<i64>),
    at: i64,
    by: Option<&str>,
) -> QueryResult<FundMovementRow> {
    let row: FundMovementRow =
        per_backend!(conn, |c| diesel::insert_into(bonus_fund_movements::table)
            .values((
                bonus_fund_movements::cents.eq(cents),
                bonus_fund_movements::unclaimed_movement.eq(unclaimed_movement),
                bonus_fund_movements::game.eq(game),
                bonus_fund_movements::recorded_at.eq(at),
            ))
            .returning(FundMovementRow::as_returning())
            .get_result(c))?;
    let mut entry = Entry::new(
        crate::audit::kind::EntryKind::BonusFundMoved,
        row.id,
        row.payload(),
    );
    if let Some(by) = by {
        entry = entry.by(by);
    }
    append(conn, vec![entry])?;
    Ok(row)
}

/// Credits the prizes of unclaimed movement `movement` (rule 13.2).
pub fn credit(
    conn: &mut DbConnection,
    movement: i64,
    cents: i64,
    at: i64,
    by: &str,
) -> QueryResult<FundMovementRow> {
    record(conn, cents, (Some(movement), None), at, Some(by))
}

/// Draws on the fund for the funded bonus prizes game `game` paid (`won_cents`): what the fund
/// holds of them (`keno_core::fund_draw`); nothing recorded when that is nothing.
pub fn draw(
    conn: &mut DbConnection,
    game: i64,
    won_cents: u64,
    at: i64,
) -> QueryResult<Option<FundMovementRow>> {
    let held = u64::try_from(balance(conn)?).unwrap_or(0);
    let drawn = keno_core::fund_draw(held, won_cents);
    if drawn == 0 {
        return Ok(None);
    }
    record(conn, -(drawn as i64), (None, Some(game)), at, None).map(Some)
}

/// One movement of the fund, as the API shows it.
#[derive(Debug, Serialize, ToSchema)]
pub struct FundMovement {
    pub id: i64,
    /// In (prizes moved to the fund) above 0; out (funded bonus prizes paid) below 0.
    pub cents: i64,
    /// The movement of unclaimed prizes that credited it.
    pub unclaimed_movement: Option<i64>,
    /// The game whose funded bonus prizes drew on it.
    pub game: Option<i64>,
    pub recorded_at: String,
    /// The balance after it.
    pub balance_cents: i64,
    /// `recorded_at` as stored (microseconds), for the reports' windows.
    #[serde(skip)]
    pub at: i64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct BonusFund {
    pub balance_cents: i64,
    /// Oldest first.
    pub movements: Vec<FundMovement>,
}

/// Every movement of the fund in order, with the balance after each.
pub fn history(conn: &mut DbConnection) -> QueryResult<BonusFund> {
    let rows: Vec<FundMovementRow> = bonus_fund_movements::table
        .order(bonus_fund_movements::id)
        .select(FundMovementRow::as_select())
        .load(conn)?;
    let mut balance = 0;
    let movements = rows
        .into_iter()
        .map(|r| {
            balance += r.cents;
            FundMovement {
                id: r.id,
                cents: r.cents,
                unclaimed_movement: r.unclaimed_movement,
                game: r.game,
                recorded_at: rfc3339(r.recorded_at),
                balance_cents: balance,
                at: r.recorded_at,
            }
        })
        .collect();
    Ok(BonusFund {
        balance_cents: balance,
        movements,
    })
}
