//! A ticket in detail (`GET /api/v1/tickets/{serial}`) and what its public `check` shows: each
//! game's result per way.

use std::collections::HashMap;

use diesel::prelude::*;
use std::sync::Arc;

use keno_core::{BetPlan, Draw, GameState, PayMethod, RuleSet, TicketFacts, TicketGame, WayInPlay};

use super::{find, TicketRow};
use crate::db::schema::{
    bonus_results, games, sale_tenders, ticket_refunds, ticket_results, ticket_voids, vouchers,
    way_results,
};
use crate::db::DbConnection;
use crate::error::{DomainResult, Failure};
use crate::games::drawn;
use crate::keno_day::KenoHours;
use crate::rule_sets::RuleSets;
use keno_api::{Refusal, RefusalCode};
// The wire's types (keno-api), where the server's modules have always found them.
pub use keno_api::tickets::{GameLine, GameResult, TicketCheck, TicketDetail, WayResult};

/// The ticket with each game's result, each game under the rule set it was played under (of
/// `rule_sets`), and what is payable on the Keno Day now (`hours`).
pub fn detail(
    (rule_sets, hours): (&RuleSets, KenoHours),
    conn: &mut DbConnection,
    t: &TicketRow,
) -> DomainResult<TicketDetail> {
    let refunds = refunds(conn, t)?;
    let results = results(rule_sets, conn, t, &refunds)?;
    let prizes: Vec<i64> = ticket_results::table
        .filter(ticket_results::serial.eq(&t.serial))
        .select(ticket_results::prize_cents)
        .load(conn)?;

    let won_cents: u64 = prizes.iter().map(|&p| p as u64).sum();
    let invalidated_refund_cents: u64 = refunds.values().map(|&r| r as u64).sum();
    let today = hours.today()?;
    let payable = keno_core::payable(&super::pay::facts(conn, t)?, today);
    let (payable_cents, cheque, not_payable) = match &payable {
        Ok(p) => (p.total_cents, p.method == PayMethod::Cheque, None),
        Err(e) => (0, false, Some(RefusalCode::from(Refusal::from(e)))),
    };
    let lines = lines(t, &results, payable)?;
    let (paid_as_voucher, tendered_for) = paid_as(conn, t)?;
    let cancel = super::cancel::preview(rule_sets, conn, t, today)?;
    Ok(TicketDetail {
        cancel,
        payment: super::tender::load_payment(conn, t)?,
        paid_as_voucher,
        tendered_for,
        ticket: super::view(rule_sets, conn, t)?,
        results,
        won_cents,
        invalidated_refund_cents,
        payable_cents,
        cheque,
        not_payable,
        payment_parts: super::pay::paid_parts(conn, t)?,
        hand_pay: super::hand_pay::find(conn, &t.serial)?,
        lines,
    })
}

/// Every game of the ticket with what it came to, from the pay's own decision (`payable`: rules
/// 11.5, 12.2, 13.1) by keno-core's one rule: the view never shows a prize the pay refuses.
fn lines(
    t: &TicketRow,
    results: &[GameResult],
    payable: Result<keno_core::Payable, keno_core::PayRefusal>,
) -> DomainResult<Vec<GameLine>> {
    let whose = || format!("ticket {}", t.serial);
    let number =
        |n: i64| u64::try_from(n).map_err(|_| anyhow::anyhow!("{}: game {n} is negative", whose()));
    let played = results
        .iter()
        .map(|r| {
            let state = match r.state.as_str() {
                FUTURE => None,
                s => Some(s.parse::<GameState>().map_err(anyhow::Error::from)?),
            };
            Ok(TicketGame {
                game: number(r.game)?,
                state,
                prize_cents: r.prize_cents,
                refund_cents: r.refund_cents,
            })
        })
        .collect::<anyhow::Result<_>>()?;
    let cancelled = match t.cancelled_from_game {
        Some(c) => (c..=t.last_game)
            .map(number)
            .collect::<anyhow::Result<_>>()?,
        None => Vec::new(),
    };
    let facts = TicketFacts {
        status: t.status,
        played,
        cancelled,
        cancel_refund_cents: u64::try_from(t.refund_cents)
            .map_err(|_| anyhow::anyhow!("{}: a negative refund", whose()))?,
        game_cost_cents: u64::try_from(t.game_cost_cents)
            .map_err(|_| anyhow::anyhow!("{}: a negative game cost", whose()))?,
        payable,
    };
    Ok(keno_core::game_standings(&facts)
        .into_iter()
        .map(|(game, standing)| GameLine::new(game, standing))
        .collect::<Result<_, _>>()
        .map_err(anyhow::Error::from)?)
}

/// What a paid ticket became: the voucher it was paid as, the ticket it was tendered for.
fn paid_as(
    conn: &mut DbConnection,
    t: &TicketRow,
) -> QueryResult<(Option<String>, Option<String>)> {
    let paid_as_voucher = if matches!(
        t.pay_method,
        Some(PayMethod::Voucher | PayMethod::VoucherAndCheque)
    ) {
        vouchers::table
            .filter(vouchers::ticket.eq(&t.serial))
            .filter(vouchers::source.eq("ticket"))
            .select(vouchers::code)
            .first(conn)
            .optional()?
    } else {
        None
    };
    let tendered_for = if t.pay_method == Some(PayMethod::Tender) {
        sale_tenders::table
            .filter(sale_tenders::reference.eq(&t.serial))
            .filter(sale_tenders::kind.eq(keno_core::tender::TenderKind::Ticket.as_str()))
            .select(sale_tenders::serial)
            .first(conn)
            .optional()?
    } else {
        None
    };
    Ok((paid_as_voucher, tendered_for))
}

/// A settled game's stored way results (catch, prize, pro-rated, jackpot) and bonus prizes,
/// by game and way.
type StoredWays = (
    HashMap<(i64, i32), (i32, i64, bool, bool)>,
    HashMap<(i64, i32), u64>,
);

fn stored_ways(conn: &mut DbConnection, t: &TicketRow) -> QueryResult<StoredWays> {
    let stored: HashMap<(i64, i32), (i32, i64, bool, bool)> = way_results::table
        .filter(way_results::serial.eq(&t.serial))
        .select((
            way_results::game,
            way_results::way_index,
            way_results::catch,
            way_results::prize_cents,
            way_results::prorated,
            way_results::jackpot,
        ))
        .load::<(i64, i32, i32, i64, bool, bool)>(conn)?
        .into_iter()
        .map(|(g, w, c, p, pr, j)| ((g, w), (c, p, pr, j)))
        .collect();
    let mut bonuses: HashMap<(i64, i32), u64> = HashMap::new();
    for (g, w, cents) in bonus_results::table
        .filter(bonus_results::serial.eq(&t.serial))
        .select((
            bonus_results::game,
            bonus_results::way_index,
            bonus_results::prize_cents,
        ))
        .load::<(i64, i32, i64)>(conn)?
    {
        *bonuses.entry((g, w)).or_default() += cents as u64;
    }
    Ok((stored, bonuses))
}

/// A game's `state` in the results before it is opened.
const FUTURE: &str = "future";

/// Each game's result per way, under the rule set it was played under.
fn results(
    rule_sets: &RuleSets,
    conn: &mut DbConnection,
    t: &TicketRow,
    refunds: &HashMap<i64, i64>,
) -> DomainResult<Vec<GameResult>> {
    let last = t.last_played_game();
    type GameRow = (i64, String, String, Option<i64>);
    let states: HashMap<i64, (String, String, Option<i64>)> = games::table
        .filter(games::number.between(t.first_game, last))
        .select((
            games::number,
            games::state,
            games::rule_set,
            games::settled_at,
        ))
        .load::<GameRow>(conn)?
        .into_iter()
        .map(|(n, s, r, at)| (n, (s, r, at)))
        .collect();
    let voided_at: Option<i64> = ticket_voids::table
        .find(&t.serial)
        .select(ticket_voids::voided_at)
        .first(conn)
        .optional()?;
    let mut plans: HashMap<String, (Arc<RuleSet>, BetPlan)> = HashMap::new();
    let stored = stored_ways(conn, t)?;
    let mut results = Vec::new();
    for game in t.first_game..=last {
        let (state, rule_set, settled_at) = states
            .get(&game)
            .cloned()
            .unwrap_or_else(|| (FUTURE.into(), String::new(), None));
        let settled = state == keno_core::GameState::Settled.as_str();
        // Rule 17.2: voided before the game settled, the ticket took no part in it.
        let voided = settled && !keno_core::took_part(voided_at, settled_at.unwrap_or(i64::MAX));
        let mut ways = Vec::new();
        if settled && !voided {
            if !plans.contains_key(&rule_set) {
                let rules = rule_sets.get(conn, &rule_set)?;
                let plan = t.plan(&rules)?;
                plans.insert(rule_set.clone(), (rules, plan));
            }
            let (rules, plan) = &plans[&rule_set];
            ways = settled_ways(conn, (rules, plan), t, game, &stored)?;
        }
        results.push(GameResult {
            game,
            state,
            prize_cents: ways.iter().map(|w| w.prize_cents).sum(),
            ways,
            refund_cents: refunds.get(&game).copied().unwrap_or(0) as u64,
            voided,
        });
    }
    Ok(results)
}

/// Each way's result in settled game `game`: its catch and schedule prize, or as stored where
/// settlement stored it whole.
fn settled_ways(
    conn: &mut DbConnection,
    (rules, plan): (&RuleSet, &BetPlan),
    t: &TicketRow,
    game: i64,
    (stored, bonuses): &StoredWays,
) -> DomainResult<Vec<WayResult>> {
    let draw = Draw::new(&drawn(conn, game)?).map_err(anyhow::Error::from)?;
    let mut ways = Vec::new();
    for (i, way) in plan.ways.iter().enumerate() {
        let in_play = WayInPlay {
            numbers: way.numbers,
            plays_under: way.plays_under,
            amount_per_way_cents: t.amount_per_way_cents as u64,
        };
        let mut outcome = rules
            .schedule_outcome(&draw, &in_play)
            .map_err(anyhow::Error::from)?;
        // A way that won a major prize, a jackpot share or a bonus is stored whole: its bonus
        // is inside its prize, under the caps (rule 6.3(e)).
        if let Some(&(_, prize, prorated, jackpot)) = stored.get(&(game, i as i32)) {
            outcome.prize_cents = prize as u64;
            outcome.prorated = prorated;
            outcome.jackpot = jackpot;
        }
        ways.push(WayResult {
            numbers: way.numbers.to_vec(),
            spots: way.spots(),
            catch: outcome.catch,
            prize_cents: outcome.prize_cents,
            prorated: outcome.prorated,
            jackpot: outcome.jackpot,
            bonus_cents: bonuses.get(&(game, i as i32)).copied().unwrap_or(0),
        });
    }
    Ok(ways)
}

/// Ticket `t`'s refund for each invalidated game (general rule 18.2).
fn refunds(conn: &mut DbConnection, t: &TicketRow) -> QueryResult<HashMap<i64, i64>> {
    Ok(ticket_refunds::table
        .filter(ticket_refunds::serial.eq(&t.serial))
        .select((ticket_refunds::game, ticket_refunds::refund_cents))
        .load::<(i64, i64)>(conn)?
        .into_iter()
        .collect())
}

/// Each game's result of ticket `t`, way by way (prizes with their bonus prizes), each game
/// under the rule set it was played under: what [`detail`] shows, for the audit's reports.
pub fn game_results(
    rule_sets: &RuleSets,
    conn: &mut DbConnection,
    t: &TicketRow,
) -> DomainResult<Vec<GameResult>> {
    let refunds = refunds(conn, t)?;
    results(rule_sets, conn, t, &refunds)
}

/// Ticket `serial` in detail ([`detail`]).
pub fn load(
    settings: (&RuleSets, KenoHours),
    conn: &mut DbConnection,
    serial: &str,
) -> DomainResult<TicketDetail> {
    let t = find(conn, serial)?.ok_or_else(|| Failure::not_found("ticket"))?;
    detail(settings, conn, &t)
}

/// What a player may see of a ticket in detail: its selections, each game's result and the
/// prize; not who sold it, where, or how it was paid.
pub fn public(d: TicketDetail) -> TicketCheck {
    let t = d.ticket;
    TicketCheck {
        serial: t.serial,
        bet_type: t.bet_type,
        schedule: t.schedule,
        groups: t.groups,
        ways: t.ways,
        amount_per_way_cents: t.amount_per_way_cents,
        first_game: t.first_game,
        last_game: t.last_game,
        games: t.games,
        status: t.status,
        results: d.results,
        won_cents: d.won_cents,
        payable_cents: d.payable_cents,
        not_payable: d.not_payable,
        paid_cents: t.paid_cents,
        set_bet: t.set_bet,
        // Rule 8: the games cancelled are shown as such, with their refund.
        cancelled_games: t.cancelled_games,
        refund_cents: t.refund_cents,
        payment_parts: d.payment_parts,
        paid_at: t.paid_at,
        pay_method: t.pay_method,
        lines: d.lines,
    }
}
