//! Tickets: the stored record, the API's view of it, and what is done with one (sale, view,
//! cancel, pay; their endpoints are in `routes::tickets`); `tender`: a sale paid with vouchers
//! and winning tickets. A player is in a game once the ticket's row is committed (rules 4, 15).

mod batch;
pub mod cancel;
pub mod hand_pay;
mod numbered;
pub mod pay;
pub mod recent;
pub mod sale;
pub mod story;
pub mod tender;
pub mod view;
pub mod void;
pub mod writer;

use diesel::prelude::*;
use keno_core::{
    BetKind, BetPlan, Marks, NumberSet, PayMethod, RuleSet, ScheduleId, TicketStatus, WayCount,
};
use serde::{Deserialize, Serialize};

use crate::db::schema::{games, set_bet_tickets, set_bets, tickets};
use crate::db::{rfc3339, DbConnection};
use crate::error::DomainResult;
use crate::rule_sets::RuleSets;
use crate::set_bets::SetBetMode;
// The wire's types (keno-api), where the server's modules have always found them.
pub use keno_api::set_bets::SetBetRef;
pub use keno_api::tickets::{BetRequest, Schedule, Ticket, WaysLine};

#[derive(Queryable, Selectable, Clone, Debug)]
#[diesel(table_name = tickets)]
pub struct TicketRow {
    pub serial: String,
    pub principal_id: String,
    pub request_id: String,
    pub ticket_number: i64,
    pub site: String,
    pub terminal: String,
    pub writer: String,
    pub issued_at: i64,
    pub keno_day: String,
    pub bet_type: String,
    pub schedule: String,
    pub groups_json: String,
    pub combine_json: String,
    pub way_counts_json: String,
    pub amount_per_way_cents: i64,
    pub way_count: i64,
    pub first_game: i64,
    pub last_game: i64,
    pub games: i32,
    pub charged_games: i32,
    pub game_cost_cents: i64,
    pub total_cents: i64,
    pub rule_set: String,
    /// A stored word that is not a status is a deserialization error: an internal error.
    #[diesel(deserialize_as = String)]
    pub status: TicketStatus,
    pub cancelled_from_game: Option<i64>,
    pub refund_cents: i64,
    pub cancelled_at: Option<i64>,
    pub paid_cents: i64,
    pub paid_at: Option<i64>,
    pub paid_by: Option<String>,
    #[diesel(deserialize_as = crate::db::NullableWord<PayMethod>)]
    pub pay_method: Option<PayMethod>,
    /// The digest of the sale's request (`request_ids::digest`): a retry under the same
    /// request id must match it. None on tickets sold before it was kept.
    pub request_digest: Option<String>,
    /// The SHA-256 of the scanned entry form the sale was read from (rule 5.4); none for a
    /// sale keyed in.
    pub entry_form_sha256: Option<String>,
}

impl TicketRow {
    /// The last game the ticket still plays: games from `cancelled_from_game` on are
    /// cancelled (rule 8.2).
    pub fn last_played_game(&self) -> i64 {
        match self.cancelled_from_game {
            Some(c) => c - 1,
            None => self.last_game,
        }
    }

    pub fn groups(&self) -> anyhow::Result<Vec<Vec<u8>>> {
        stored(&self.serial, "groups_json", &self.groups_json)
    }

    /// The ticket's ways, planned again from what is stored (the same core code as at sale).
    pub fn plan(&self, rules: &RuleSet) -> anyhow::Result<BetPlan> {
        plan_stored(
            rules,
            &self.serial,
            &self.bet_type,
            &self.schedule,
            &self.groups_json,
            &self.combine_json,
        )
    }

    pub fn way_counts(&self) -> anyhow::Result<Vec<WaysLine>> {
        stored(&self.serial, "way_counts_json", &self.way_counts_json)
    }
}

/// A JSON column of ticket `serial` read back: one that does not read is an error that names
/// it, never an empty value.
pub fn stored<T: serde::de::DeserializeOwned>(
    serial: &str,
    column: &str,
    json: &str,
) -> anyhow::Result<T> {
    use anyhow::Context;
    serde_json::from_str(json)
        .with_context(|| format!("ticket {serial}: its {column} does not read"))
}

/// A stored ticket's ways, planned again from its columns by the same core code as at sale.
pub fn plan_stored(
    rules: &RuleSet,
    serial: &str,
    bet_type: &str,
    schedule: &str,
    groups_json: &str,
    combine_json: &str,
) -> anyhow::Result<BetPlan> {
    let groups: Vec<Vec<u8>> = serde_json::from_str(groups_json)?;
    let groups = groups
        .iter()
        .map(|g| NumberSet::from_numbers(g))
        .collect::<Result<Vec<_>, _>>()?;
    let marks = Marks {
        kind: parse(bet_type)?,
        groups,
        combine: serde_json::from_str(combine_json)?,
    };
    let schedule: ScheduleId = parse(schedule)?;
    rules
        .plan(marks, schedule)
        .map_err(|e| anyhow::anyhow!("ticket {serial} no longer plans: {e}"))
}

/// A snake_case name stored as text back into its enum.
pub fn parse<T: for<'de> Deserialize<'de>>(s: &str) -> anyhow::Result<T> {
    Ok(serde_json::from_value(serde_json::Value::String(
        s.to_string(),
    ))?)
}

pub fn name<T: Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}

pub fn find(conn: &mut DbConnection, serial: &str) -> QueryResult<Option<TicketRow>> {
    tickets::table
        .find(serial)
        .select(TicketRow::as_select())
        .first(conn)
        .optional()
}

/// The set a set bet ticket was sold from; `None` for other tickets.
pub fn set_bet_of(conn: &mut DbConnection, t: &TicketRow) -> DomainResult<Option<SetBetRef>> {
    if t.bet_type != bet_kind_name(BetKind::SetBet) {
        return Ok(None);
    }
    let found: Option<(i64, String, String)> = set_bet_tickets::table
        .inner_join(set_bets::table)
        .filter(set_bet_tickets::serial.eq(&t.serial))
        .select((set_bets::id, set_bets::name, set_bet_tickets::mode))
        .first(conn)
        .optional()?;
    let Some((id, name, mode)) = found else {
        return Ok(None);
    };
    let mode = SetBetMode::parse(&mode).ok_or_else(|| {
        anyhow::anyhow!(
            "ticket {}: its set bet mode {mode:?} does not read",
            t.serial
        )
    })?;
    Ok(Some(SetBetRef { id, name, mode }))
}

/// The ticket as the API shows it, with the set it was sold from and whether it is Keno To Go
/// under the rule set it was sold under (rule 1(f)), of `rule_sets`.
pub fn view(rule_sets: &RuleSets, conn: &mut DbConnection, t: &TicketRow) -> DomainResult<Ticket> {
    let mut ticket = Ticket::try_from(t)?;
    ticket.set_bet = set_bet_of(conn, t)?;
    let sold_under = rule_sets.get(conn, &t.rule_set)?;
    ticket.keno_to_go = Some(is_keno_to_go(&sold_under, t));
    Ok(ticket)
}

/// Rule 1(f): the ticket plays enough consecutive games under `rules` to be Keno To Go.
pub fn is_keno_to_go(rules: &RuleSet, t: &TicketRow) -> bool {
    u32::try_from(t.games).is_ok_and(|g| rules.games().is_keno_to_go(g))
}

pub fn ways_lines(plan: &BetPlan) -> Vec<WaysLine> {
    plan.way_counts()
        .into_iter()
        .map(|WayCount { count, spots }| {
            let plays_under = plan
                .ways
                .iter()
                .find(|w| w.spots() == spots)
                .map(|w| w.plays_under)
                .unwrap_or(plan.schedule);
            WaysLine {
                count,
                spots,
                plays_as: Schedule::from(plays_under),
            }
        })
        .collect()
}

impl TryFrom<&TicketRow> for Ticket {
    type Error = anyhow::Error;

    fn try_from(t: &TicketRow) -> anyhow::Result<Ticket> {
        Ok(Ticket {
            serial: t.serial.clone(),
            ticket_number: t.ticket_number,
            site: t.site.clone(),
            terminal: t.terminal.clone(),
            writer: t.writer.clone(),
            issued_at: rfc3339(t.issued_at),
            keno_day: t.keno_day.clone(),
            bet_type: t.bet_type.clone(),
            schedule: parse(&t.schedule)?,
            groups: t.groups()?,
            combine: stored(&t.serial, "combine_json", &t.combine_json)?,
            ways: t.way_counts()?,
            amount_per_way_cents: t.amount_per_way_cents,
            first_game: t.first_game,
            last_game: t.last_game,
            games: t.games,
            charged_games: t.charged_games,
            game_cost_cents: t.game_cost_cents,
            total_cents: t.total_cents,
            status: t.status.to_string(),
            cancelled_games: match t.cancelled_from_game {
                Some(c) => (c..=t.last_game).collect(),
                None => Vec::new(),
            },
            refund_cents: t.refund_cents,
            cancelled_at: t.cancelled_at.map(rfc3339),
            paid_cents: t.paid_cents,
            paid_at: t.paid_at.map(rfc3339),
            paid_by: t.paid_by.clone(),
            pay_method: t.pay_method.map(|m| m.to_string()),
            request_id: t.request_id.clone(),
            set_bet: None,
            // Rule 1(f) needs the rule set it was sold under: `view` and the sale fill it in.
            keno_to_go: None,
            entry_form_sha256: t.entry_form_sha256.clone(),
        })
    }
}

pub fn bet_kind_name(kind: BetKind) -> String {
    name(&kind)
}

/// Every ticket sold for games not yet opened will be settled under `rules`: refuses (with the
/// serials) if one of them cannot be, say because its schedule is gone or no longer approved.
pub fn check_sold_tickets(conn: &mut DbConnection, rules: &RuleSet) -> anyhow::Result<()> {
    let newest: i64 = games::table
        .select(diesel::dsl::max(games::number))
        .first::<Option<i64>>(conn)?
        .unwrap_or(0);
    let sold: Vec<TicketRow> = tickets::table
        .filter(tickets::status.eq(keno_core::TicketStatus::Active.as_str()))
        .filter(tickets::last_game.gt(newest))
        .select(TicketRow::as_select())
        .load(conn)?;
    let refused: Vec<String> = sold
        .iter()
        .filter(|t| t.last_played_game() > newest)
        .filter_map(|t| t.plan(rules).err().map(|e| format!("{}: {e:#}", t.serial)))
        .collect();
    if !refused.is_empty() {
        anyhow::bail!(
            "this rule set cannot settle {} ticket(s) already sold for games still to come; \
             keep the rule set in force until they are played or cancelled:\n  {}",
            refused.len(),
            refused.join("\n  ")
        );
    }
    Ok(())
}
