//! Bonus prizes (rule 6.3(e)): a set prize the operator offers on top of the schedule, for a
//! ticket type and/or value, at chosen intervals (every Nth game, or a time window). A
//! supervisor defines one; it is offered only once an inspector has recorded the regulator's
//! approval, and until a supervisor withdraws it. Which bonuses a game offers is fixed when the
//! game opens (`game_bonus_offers`), so the displays can announce them and settlement (and the
//! audit's settling again) pays exactly those. The endpoints are `routes/bonus.rs`.

use anyhow::Context;
use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::approvals::{self, approvable, Approvable};
use crate::db::schema::{bonus_prizes, game_bonus_offers};
use crate::db::{now_micros, per_backend, rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};
use keno_api::Refusal;
use keno_core::{Act, BetKind, BonusState, BonusTerms};

#[derive(Queryable, Selectable, Debug, Clone)]
#[diesel(table_name = bonus_prizes)]
pub struct BonusRow {
    pub id: i64,
    pub name: String,
    pub bet_type: Option<String>,
    pub spots: Option<i32>,
    pub min_amount_per_way_cents: i64,
    pub catch: i32,
    pub prize_cents: i64,
    pub every_nth_game: Option<i64>,
    pub window_from: Option<i64>,
    pub window_to: Option<i64>,
    pub created_by: String,
    pub created_at: i64,
    pub approval_reference: Option<String>,
    pub approved_by: Option<String>,
    pub approved_at: Option<i64>,
    pub withdrawn_by: Option<String>,
    pub withdrawn_at: Option<i64>,
    pub funded_by_bonus_fund: bool,
    pub withdrawal_reason: Option<String>,
}

impl BonusRow {
    /// What the bonus asks of a way (rule 6.3(e)), for `keno_core::wins_bonus`. A stored ticket
    /// type or number that does not read is an internal error, never a bonus nobody wins.
    pub fn terms(&self) -> anyhow::Result<BonusTerms> {
        let unreadable = || format!("bonus {} is stored unreadable", self.id);
        let bet_kind = self
            .bet_type
            .as_deref()
            .map(crate::tickets::parse::<BetKind>)
            .transpose()
            .with_context(unreadable)?;
        Ok(BonusTerms {
            bet_kind,
            spots: self
                .spots
                .map(u8::try_from)
                .transpose()
                .with_context(unreadable)?,
            min_amount_per_way_cents: u64::try_from(self.min_amount_per_way_cents)
                .with_context(unreadable)?,
            catch: u8::try_from(self.catch).with_context(unreadable)?,
        })
    }

    fn offered_in(&self, game: i64, opened_at: i64) -> bool {
        let approved = self.approved_at.is_some() && self.withdrawn_at.is_none();
        let nth = self.every_nth_game.is_some_and(|n| game % n == 0);
        let window = matches!((self.window_from, self.window_to),
            (Some(from), Some(to)) if (from..to).contains(&opened_at));
        approved && (nth || window)
    }
}

/// The bonuses game `game` offers, as fixed when it opened.
pub fn offered(conn: &mut DbConnection, game: i64) -> QueryResult<Vec<BonusRow>> {
    bonus_prizes::table
        .inner_join(game_bonus_offers::table.on(game_bonus_offers::bonus_id.eq(bonus_prizes::id)))
        .filter(game_bonus_offers::game.eq(game))
        .order(bonus_prizes::id)
        .select(BonusRow::as_select())
        .load(conn)
}

/// Fixes the bonuses of a game being opened (in the transaction that opens it).
pub fn offer_for_new_game(
    conn: &mut DbConnection,
    game: i64,
    opened_at: i64,
) -> QueryResult<Vec<i64>> {
    let all: Vec<BonusRow> = bonus_prizes::table
        .filter(bonus_prizes::approved_at.is_not_null())
        .filter(bonus_prizes::withdrawn_at.is_null())
        .select(BonusRow::as_select())
        .load(conn)?;
    let ids: Vec<i64> = all
        .iter()
        .filter(|b| b.offered_in(game, opened_at))
        .map(|b| b.id)
        .collect();
    for id in &ids {
        diesel::insert_into(game_bonus_offers::table)
            .values((
                game_bonus_offers::game.eq(game),
                game_bonus_offers::bonus_id.eq(id),
            ))
            .execute(conn)?;
    }
    Ok(ids)
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewBonus {
    pub name: String,
    /// Only tickets of this type (standard, quick_pick, mystery_quick_pick, way...): any if absent.
    pub bet_type: Option<String>,
    /// Only ways of this many spots: any if absent.
    pub spots: Option<u8>,
    /// Only ways wagering at least this much.
    #[serde(default)]
    pub min_amount_per_way_cents: i64,
    /// The catch that wins the bonus.
    pub catch: u8,
    pub prize_cents: i64,
    /// Offered in every Nth game...
    pub every_nth_game: Option<i64>,
    /// ...or in the games opened from (RFC 3339)...
    pub window_from: Option<String>,
    /// ...until (RFC 3339).
    pub window_to: Option<String>,
    /// Paid from the bonus fund (rule 13.2) while it holds enough; by the operator otherwise.
    #[serde(default)]
    pub funded_by_bonus_fund: bool,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Bonus {
    pub id: i64,
    pub name: String,
    pub bet_type: Option<String>,
    pub spots: Option<i32>,
    pub min_amount_per_way_cents: i64,
    pub catch: i32,
    pub prize_cents: i64,
    pub every_nth_game: Option<i64>,
    pub window_from: Option<String>,
    pub window_to: Option<String>,
    /// proposed (waiting for the regulator's approval) | approved | withdrawn
    pub state: String,
    pub approval_reference: Option<String>,
    pub approved_by: Option<String>,
    pub created_by: String,
    pub created_at: String,
    pub withdrawn_by: Option<String>,
    /// Why it was withdrawn, when the supervisor said (issue 34).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub withdrawal_reason: Option<String>,
    /// Paid from the bonus fund (rule 13.2).
    pub funded_by_bonus_fund: bool,
}

impl From<BonusRow> for Bonus {
    fn from(b: BonusRow) -> Bonus {
        let state = b.state();
        Bonus {
            id: b.id,
            name: b.name,
            bet_type: b.bet_type,
            spots: b.spots,
            min_amount_per_way_cents: b.min_amount_per_way_cents,
            catch: b.catch,
            prize_cents: b.prize_cents,
            every_nth_game: b.every_nth_game,
            window_from: b.window_from.map(rfc3339),
            window_to: b.window_to.map(rfc3339),
            state: state.as_str().into(),
            approval_reference: b.approval_reference,
            approved_by: b.approved_by,
            created_by: b.created_by,
            created_at: rfc3339(b.created_at),
            withdrawn_by: b.withdrawn_by,
            withdrawal_reason: b.withdrawal_reason,
            funded_by_bonus_fund: b.funded_by_bonus_fund,
        }
    }
}

fn invalid(message: impl Into<String>) -> Failure {
    Failure::refuse(Refusal::InvalidBonus, message)
}

fn time(field: &str, value: &Option<String>) -> DomainResult<Option<i64>> {
    value
        .as_deref()
        .map(|t| {
            chrono::DateTime::parse_from_rfc3339(t)
                .map(|t| t.timestamp_micros())
                .map_err(|_| invalid(format!("{field}: give an RFC 3339 time")))
        })
        .transpose()
}
approvable! {
    BonusRow in bonus_prizes as "bonus prize",
    state: BonusState = |b| BonusState::from_times(b.approved_at.is_some(), b.withdrawn_at.is_some()),
    refused: |_| Refusal::BonusDecided,
    subject: |b| b.id.to_string(),
    kind: |act| match act {
        None => crate::audit::kind::EntryKind::BonusProposed,
        Some(Act::Approve) => crate::audit::kind::EntryKind::BonusApproved,
        Some(_) => crate::audit::kind::EntryKind::BonusWithdrawn,
    },
    payload: |b| withdrawal_payload(b, serde_json::json!({
        "name": b.name, "bet_type": b.bet_type, "spots": b.spots,
        "min_amount_per_way_cents": b.min_amount_per_way_cents, "catch": b.catch,
        "prize_cents": b.prize_cents, "every_nth_game": b.every_nth_game,
        "window_from": b.window_from, "window_to": b.window_to,
        "approval_reference": b.approval_reference,
        "funded_by_bonus_fund": b.funded_by_bonus_fund,
    })),
}

/// Why it was withdrawn, only when given: a withdrawal of the first API reads as written.
fn withdrawal_payload(b: &BonusRow, mut payload: serde_json::Value) -> serde_json::Value {
    if let Some(reason) = &b.withdrawal_reason {
        payload["withdrawal_reason"] = reason.as_str().into();
    }
    payload
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BonusApproval {
    /// The regulator's approval: its reference.
    pub reference: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct BonusBoard {
    /// Every bonus prize, proposed, approved or withdrawn.
    pub bonuses: Vec<Bonus>,
    /// The game open for sale and the bonuses it offers (for the displays).
    pub open_game: Option<i64>,
    pub offered_now: Vec<i64>,
}

/// A bonus as a supervisor proposes it, checked: its name as kept, its window read.
pub struct Proposal {
    bonus: NewBonus,
    name: String,
    window: (Option<i64>, Option<i64>),
}

/// Checks a proposed bonus: a ticket type there is, a catch its spots allow, a prize a way may
/// win under the rule set in force (`cap`: its most a way wins, rule 12.1), and when it is
/// offered.
pub fn check(b: NewBonus, cap: u64) -> DomainResult<Proposal> {
    let name = crate::reason::kept("a bonus's name", &b.name, 100, Refusal::InvalidBonus)?;
    // A type no ticket has would make a bonus nobody can win.
    if let Some(t) = &b.bet_type {
        if crate::tickets::parse::<keno_core::BetKind>(t).is_err() {
            return Err(invalid(format!(
                "{t:?} is not a ticket type: standard, quick_pick, mystery_quick_pick, way or set_bet"
            )));
        }
    }
    let spots_ok = b.spots.is_none_or(|s| (1..=15).contains(&s));
    if !spots_ok || b.catch > 15 || b.spots.is_some_and(|s| b.catch > s) {
        return Err(invalid("spots are 1 to 15 and the catch at most the spots"));
    }
    if b.prize_cents <= 0 || b.min_amount_per_way_cents < 0 {
        return Err(invalid(
            "the prize is more than 0 and the minimum wager not negative",
        ));
    }
    // Rule 12.1: a bonus is part of the way's prize (rule 6.3(e)); one that alone is over the
    // per-way cap could never be paid as offered.
    if b.prize_cents as u64 > cap {
        return Err(invalid(format!(
            "a bonus prize of {} is over the {} a way may win (rule 12.1)",
            keno_core::Dollars(b.prize_cents as u64),
            keno_core::Dollars(cap)
        )));
    }
    let (from, to) = (
        time("window_from", &b.window_from)?,
        time("window_to", &b.window_to)?,
    );
    let window = match (from, to) {
        (Some(f), Some(t)) if f < t => true,
        (None, None) => false,
        _ => return Err(invalid("a window needs window_from before window_to")),
    };
    if b.every_nth_game.is_some_and(|n| n < 1) || (b.every_nth_game.is_none() && !window) {
        return Err(invalid(
            "say when it is offered: every_nth_game (1 or more) or a time window",
        ));
    }
    Ok(Proposal {
        name,
        window: (from, to),
        bonus: b,
    })
}

/// Records a checked bonus, proposed by `principal`, with its entry in the trail.
pub fn propose(conn: &mut DbConnection, p: &Proposal, principal: &str) -> DomainResult<BonusRow> {
    let b = &p.bonus;
    let row: BonusRow = per_backend!(conn, |c| diesel::insert_into(bonus_prizes::table)
        .values((
            bonus_prizes::name.eq(&p.name),
            bonus_prizes::bet_type.eq(&b.bet_type),
            bonus_prizes::spots.eq(b.spots.map(i32::from)),
            bonus_prizes::min_amount_per_way_cents.eq(b.min_amount_per_way_cents),
            bonus_prizes::catch.eq(i32::from(b.catch)),
            bonus_prizes::prize_cents.eq(b.prize_cents),
            bonus_prizes::every_nth_game.eq(b.every_nth_game),
            bonus_prizes::window_from.eq(p.window.0),
            bonus_prizes::window_to.eq(p.window.1),
            bonus_prizes::funded_by_bonus_fund.eq(b.funded_by_bonus_fund),
            bonus_prizes::created_by.eq(principal),
            bonus_prizes::created_at.eq(now_micros()),
        ))
        .returning(BonusRow::as_returning())
        .get_result(c))?;
    approvals::proposed(conn, &row, principal)?;
    Ok(row)
}

/// Records the regulator's approval of bonus `id` (its `reference`), by inspector `principal`.
pub fn approve(
    conn: &mut DbConnection,
    id: i64,
    principal: &str,
    reference: &str,
) -> DomainResult<BonusRow> {
    approvals::decide::<BonusRow, _>(conn, id, Act::Approve, principal, |conn, _, _| {
        let target = bonus_prizes::table.find(id);
        Ok(
            diesel::update(target.filter(bonus_prizes::approved_at.is_null()))
                .filter(bonus_prizes::withdrawn_at.is_null())
                .set((
                    bonus_prizes::approval_reference.eq(reference),
                    bonus_prizes::approved_by.eq(principal),
                    bonus_prizes::approved_at.eq(now_micros()),
                ))
                .execute(conn)?,
        )
    })
}

/// Withdraws bonus `id` (by supervisor `principal`): games opened from now on do not offer it.
pub fn withdraw(
    conn: &mut DbConnection,
    id: i64,
    principal: &str,
    reason: Option<&str>,
) -> DomainResult<BonusRow> {
    approvals::decide::<BonusRow, _>(conn, id, Act::Withdraw, principal, |conn, _, _| {
        let target = bonus_prizes::table.find(id);
        Ok(
            diesel::update(target.filter(bonus_prizes::withdrawn_at.is_null()))
                .set((
                    bonus_prizes::withdrawn_by.eq(principal),
                    bonus_prizes::withdrawn_at.eq(now_micros()),
                    bonus_prizes::withdrawal_reason.eq(reason),
                ))
                .execute(conn)?,
        )
    })
}

/// Every bonus prize, and those the open game offers.
pub fn board(conn: &mut DbConnection) -> DomainResult<BonusBoard> {
    let rows: Vec<BonusRow> = bonus_prizes::table
        .order(bonus_prizes::id)
        .select(BonusRow::as_select())
        .load(conn)?;
    let open = crate::games::open_game(conn)?.map(|g| g.number);
    let offered_now = match open {
        Some(g) => offered(conn, g)?.into_iter().map(|b| b.id).collect(),
        None => Vec::new(),
    };
    Ok(BonusBoard {
        bonuses: rows.into_iter().map(Bonus::from).collect(),
        open_game: open,
        offered_now,
    })
}
