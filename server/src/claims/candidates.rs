//! The tickets a claim may be for: unpaid tickets that match what the claimant remembers
//! (serial; or place, date, game and number of games), each with what it is owed.

use diesel::prelude::*;

use super::ClaimRow;
use crate::db::schema::tickets;
use crate::db::DbConnection;
use crate::error::{DomainResult, Failure};
use crate::tickets::pay::facts;
use crate::tickets::TicketRow;
use keno_api::Refusal;
use keno_core::TicketStatus;
// The wire's type (keno-api), where the server's modules have always found it.
pub use keno_api::claims::Candidate;

/// How many games either side of the one the claimant remembers still match.
const GAME_SLACK: i64 = 20;

pub fn matching(conn: &mut DbConnection, claim: &ClaimRow) -> DomainResult<Vec<Candidate>> {
    let found: Vec<TicketRow> = match &claim.serial {
        Some(serial) => tickets::table
            .find(serial)
            .select(TicketRow::as_select())
            .load(conn)?,
        None => {
            let date = chrono::NaiveDate::parse_from_str(&claim.purchase_date, "%Y-%m-%d")
                .map_err(|_| Failure::refuse(Refusal::InvalidClaim, "bad purchase date"))?;
            // A day either side: people misremember, and a Keno Day runs past midnight.
            let days: Vec<String> = [-1i64, 0, 1]
                .iter()
                .filter_map(|d| date.checked_add_signed(chrono::TimeDelta::days(*d)))
                .map(|d| d.format("%Y-%m-%d").to_string())
                .collect();
            let place = claim.purchase_place.trim().to_string();
            let mut q = tickets::table
                .filter(tickets::keno_day.eq_any(days))
                .filter(tickets::status.eq(TicketStatus::Active.as_str()))
                .filter(
                    tickets::site
                        .eq(&place)
                        .or(tickets::terminal.eq(&place))
                        .or(tickets::writer.eq(&place)),
                )
                .select(TicketRow::as_select())
                .into_boxed();
            if let Some(g) = claim.approx_game {
                q = q
                    .filter(tickets::first_game.le(g + GAME_SLACK))
                    .filter(tickets::last_game.ge(g - GAME_SLACK));
            }
            if let Some(n) = claim.games {
                q = q.filter(tickets::games.eq(n));
            }
            q.order(tickets::issued_at).limit(200).load(conn)?
        }
    };
    let mut out = Vec::new();
    for t in found {
        // What it is owed wherever paid (a claim is not held to rule 13.1's twelve months).
        let (owed, not_payable) = match keno_core::owed(&facts(conn, &t)?) {
            Ok(due) => (due.total_cents as i64, None),
            Err(e) => (0, Some(Refusal::from(&e).code().to_string())),
        };
        out.push(Candidate {
            serial: t.serial,
            site: t.site,
            terminal: t.terminal,
            keno_day: t.keno_day,
            first_game: t.first_game,
            last_game: t.last_game,
            games: t.games,
            total_cents: t.total_cents,
            owed_cents: owed,
            not_payable,
        });
    }
    // What is owed something first: those are the tickets a claim is usually for.
    out.sort_by_key(|c| (c.not_payable.is_some(), std::cmp::Reverse(c.owed_cents)));
    out.truncate(50);
    Ok(out)
}
