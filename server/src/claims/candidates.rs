//! The tickets a claim may be for: unpaid tickets that match what the claimant can tell (the
//! serial; or the date, the place, the numbers, an amount, the game and the number of games:
//! [`Told`]), each with what it is owed and how it matched, in sentences.

use diesel::prelude::*;

use super::told::{Place, Told, GAME_SLACK};
use super::ClaimRow;
use crate::db::schema::tickets;
use crate::db::DbConnection;
use crate::error::DomainResult;
use crate::tickets::pay::facts;
use crate::tickets::TicketRow;
use keno_api::Refusal;
use keno_core::TicketStatus;
// The wire's type (keno-api), where the server's modules have always found it.
pub use keno_api::claims::Candidate;

/// The most tickets of the days searched that one claim looks through: bounded work whatever
/// a day's sales (the place, the game or the number of games narrow it first).
const SCANNED: i64 = 20_000;
/// The most tickets whose prizes one claim works out (a few reads each), best matched first.
const PRICED: usize = 300;
/// The most candidates shown.
const SHOWN: usize = 50;

pub fn matching(conn: &mut DbConnection, claim: &ClaimRow) -> DomainResult<Vec<Candidate>> {
    let told = Told::of(conn, claim)?;
    let found: Vec<TicketRow> = match &claim.serial {
        Some(serial) => tickets::table
            .find(serial)
            .select(TicketRow::as_select())
            .load(conn)?,
        None => scan(conn, &told)?,
    };
    // The numbers first, as they cost nothing to check: the best matched are priced.
    let mut scored = Vec::with_capacity(found.len());
    for t in found {
        let hits = told.number_hits(&t)?;
        if claim.serial.is_some() || told.enough(hits) {
            scored.push((t, hits));
        }
    }
    scored.sort_by_key(|(t, hits)| {
        let cost = told.amount_matches(t, 0) == Some(true);
        (
            std::cmp::Reverse(*hits),
            std::cmp::Reverse(cost),
            t.issued_at,
        )
    });
    scored.truncate(PRICED);
    let mut out = Vec::new();
    for (t, hits) in scored {
        // What it is owed wherever paid (a claim is not held to rule 13.1's twelve months).
        let (owed, not_payable) = match keno_core::owed(&facts(conn, &t)?) {
            Ok(due) => (due.total_cents as i64, None),
            Err(e) => (0, Some(Refusal::from(&e).code().to_string())),
        };
        let amount = told.amount_matches(&t, owed);
        out.push((
            (hits, amount),
            Candidate {
                matched: told.said(&t, hits, owed),
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
            },
        ));
    }
    // Best matched first (most numbers, then the amount); among those, what is owed something:
    // those are the tickets a claim is usually for.
    out.sort_by_key(|((hits, amount), c)| {
        (
            std::cmp::Reverse(*hits),
            std::cmp::Reverse(*amount),
            c.not_payable.is_some(),
            std::cmp::Reverse(c.owed_cents),
        )
    });
    Ok(out.into_iter().map(|(_, c)| c).take(SHOWN).collect())
}

/// The unpaid tickets of the days searched, at the place if it names one here.
fn scan(conn: &mut DbConnection, told: &Told) -> DomainResult<Vec<TicketRow>> {
    let mut q = tickets::table
        .filter(tickets::keno_day.eq_any(told.days()))
        .filter(tickets::status.eq(TicketStatus::Active.as_str()))
        .select(TicketRow::as_select())
        .into_boxed();
    if let Place::Known {
        sites,
        terminals,
        writers,
    } = &told.place
    {
        let sites: Vec<&String> = sites.iter().map(|(s, _)| s).collect();
        q = q.filter(
            tickets::site
                .eq_any(sites)
                .or(tickets::terminal.eq_any(terminals))
                .or(tickets::writer.eq_any(writers)),
        );
    }
    if let Some(g) = told.game {
        q = q
            .filter(tickets::first_game.le(g + GAME_SLACK))
            .filter(tickets::last_game.ge(g - GAME_SLACK));
    }
    if let Some(n) = told.games {
        q = q.filter(tickets::games.eq(n));
    }
    Ok(q.order(tickets::issued_at).limit(SCANNED).load(conn)?)
}
