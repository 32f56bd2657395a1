//! What a claimant can tell of a lost ticket (issue 34, 8): the date, where (a venue's name, a
//! site, a terminal or a writer), the numbers, an amount, the game and the number of games.
//! Each is matched against a ticket and said back in a sentence, so the inspector sees why a
//! ticket is offered, and what the claimant remembered that it does not bear out.

use chrono::NaiveDate;
use diesel::prelude::*;

use super::ClaimRow;
use crate::db::schema::{principals, terminals};
use crate::db::DbConnection;
use crate::error::{DomainResult, Failure};
use crate::tickets::TicketRow;
use keno_api::Refusal;
use keno_core::Dollars;

/// How many games either side of the one the claimant remembers still match.
pub const GAME_SLACK: i64 = 20;

/// Shortest text matched inside a venue's name: "Ci" is in too many.
const VENUE_MIN_CHARS: usize = 3;

/// Where the claimant says the ticket was bought, as the room knows it.
pub enum Place {
    /// What it names here: sites (each with its venue's name, if given), terminals, writers.
    Known {
        sites: Vec<(String, Option<String>)>,
        terminals: Vec<String>,
        writers: Vec<String>,
    },
    /// It names nothing here: the place is not used to find tickets.
    Unknown(String),
}

impl Place {
    /// `said` against the terminals' sites, numbers and venues and the writers' names, each
    /// without regard to case; a venue's name also by part ("Civic" finds "Civic Club").
    pub fn resolve(conn: &mut DbConnection, said: &str) -> QueryResult<Place> {
        let said = said.trim();
        let lower = said.to_lowercase();
        let rows: Vec<(String, String, Option<String>)> = terminals::table
            .select((terminals::site, terminals::terminal, terminals::venue))
            .load(conn)?;
        let venue_has = |v: &str| {
            let v = v.to_lowercase();
            v == lower
                || (lower.chars().count() >= VENUE_MIN_CHARS
                    && (v.contains(&lower) || lower.contains(&v)))
        };
        let mut sites: Vec<(String, Option<String>)> = Vec::new();
        let mut terminals = Vec::new();
        for (site, terminal, venue) in rows {
            let by_venue = venue.as_deref().is_some_and(venue_has);
            if (site.to_lowercase() == lower || by_venue) && !sites.iter().any(|(s, _)| *s == site)
            {
                sites.push((site.clone(), venue.clone()));
            }
            if terminal.to_lowercase() == lower || format!("{site}/{terminal}") == lower {
                terminals.push(terminal);
            }
        }
        let writers: Vec<String> = principals::table
            .filter(principals::role.eq(crate::auth::Role::Writer.as_str()))
            .select(principals::name)
            .distinct()
            .load::<String>(conn)?
            .into_iter()
            .filter(|n| n.to_lowercase() == lower)
            .collect();
        Ok(
            match sites.is_empty() && terminals.is_empty() && writers.is_empty() {
                true => Place::Unknown(said.to_string()),
                false => Place::Known {
                    sites,
                    terminals,
                    writers,
                },
            },
        )
    }

    /// How `t` matches the place, in a sentence.
    fn said(&self, t: &TicketRow) -> String {
        match self {
            Place::Known {
                sites,
                terminals,
                writers,
            } => {
                if let Some((site, venue)) = sites.iter().find(|(s, _)| *s == t.site) {
                    match venue {
                        Some(v) => format!("bought at {v} (site {site})"),
                        None => format!("bought at site {site}"),
                    }
                } else if terminals.contains(&t.terminal) {
                    format!("bought at terminal {}/{}", t.site, t.terminal)
                } else if writers.contains(&t.writer) {
                    format!("sold by writer {}", t.writer)
                } else {
                    format!("bought at site {}, not the place remembered", t.site)
                }
            }
            Place::Unknown(said) => format!(
                "the place \u{201c}{said}\u{201d} names no venue, site, terminal or writer here: \
                 found without it"
            ),
        }
    }
}

/// All the claimant told, as the search uses it.
pub struct Told {
    pub date: NaiveDate,
    pub place: Place,
    pub numbers: Option<Vec<u8>>,
    pub amount: Option<i64>,
    pub game: Option<i64>,
    pub games: Option<i32>,
}

impl Told {
    pub fn of(conn: &mut DbConnection, claim: &ClaimRow) -> DomainResult<Told> {
        let date = NaiveDate::parse_from_str(&claim.purchase_date, "%Y-%m-%d")
            .map_err(|_| Failure::refuse(Refusal::InvalidClaim, "bad purchase date"))?;
        Ok(Told {
            date,
            place: Place::resolve(conn, &claim.purchase_place)?,
            numbers: claim.remembered_numbers()?,
            amount: claim.amount_cents,
            game: claim.approx_game,
            games: claim.games,
        })
    }

    /// The Keno Days searched: a day either side, as people misremember and a Keno Day runs
    /// past midnight.
    pub fn days(&self) -> Vec<String> {
        [-1i64, 0, 1]
            .iter()
            .filter_map(|d| self.date.checked_add_signed(chrono::TimeDelta::days(*d)))
            .map(|d| d.format("%Y-%m-%d").to_string())
            .collect()
    }

    /// How many of the numbers remembered `t` plays; None if none were told.
    pub fn number_hits(&self, t: &TicketRow) -> DomainResult<Option<usize>> {
        let Some(told) = &self.numbers else {
            return Ok(None);
        };
        let played: Vec<u8> = t.groups()?.into_iter().flatten().collect();
        Ok(Some(told.iter().filter(|n| played.contains(n)).count()))
    }

    /// Whether `hits` of the numbers remembered is enough to offer the ticket: at least half,
    /// for a player may misremember a few.
    pub fn enough(&self, hits: Option<usize>) -> bool {
        match (&self.numbers, hits) {
            (Some(told), Some(h)) => h >= 1 && h * 2 >= told.len(),
            _ => true,
        }
    }

    /// Whether the amount remembered is what `t` cost (in all, or a game) or what it is owed.
    pub fn amount_matches(&self, t: &TicketRow, owed: i64) -> Option<bool> {
        self.amount
            .map(|a| a == t.total_cents || a == t.game_cost_cents || (owed > 0 && a == owed))
    }

    /// How `t` matches each thing told, one sentence each.
    pub fn said(&self, t: &TicketRow, hits: Option<usize>, owed: i64) -> Vec<String> {
        let mut out = vec![self.said_date(t), self.place.said(t)];
        if let (Some(told), Some(h)) = (&self.numbers, hits) {
            out.push(match h == told.len() {
                true => format!("plays all {} numbers remembered", told.len()),
                false => format!("plays {h} of the {} numbers remembered", told.len()),
            });
        }
        if let Some(a) = self.amount {
            out.push(said_amount(t, owed, a));
        }
        if let Some(g) = self.games {
            out.push(match g == t.games {
                true => format!("for {g} games, as remembered"),
                false => format!("for {} games, not the {g} remembered", t.games),
            });
        }
        if let Some(g) = self.game {
            out.push(format!(
                "plays games {} to {}, about game {g} as remembered",
                t.first_game, t.last_game
            ));
        }
        out
    }

    fn said_date(&self, t: &TicketRow) -> String {
        let day = NaiveDate::parse_from_str(&t.keno_day, "%Y-%m-%d").ok();
        let shown = day.map_or(t.keno_day.clone(), |d| d.format("%-d %b %Y").to_string());
        match day.map(|d| (d - self.date).num_days()) {
            Some(0) => format!("bought on {shown}, the day remembered"),
            Some(1) => format!("bought on {shown}, the day after the one remembered"),
            Some(-1) => format!("bought on {shown}, the day before the one remembered"),
            _ => format!("bought on {shown}"),
        }
    }
}

fn said_amount(t: &TicketRow, owed: i64, told: i64) -> String {
    let told_s = Dollars(told.max(0) as u64);
    if told == t.total_cents {
        format!("cost {told_s}, as remembered")
    } else if told == t.game_cost_cents {
        format!("cost {told_s} a game, as remembered")
    } else if owed > 0 && told == owed {
        format!("is owed {told_s}, as remembered")
    } else {
        format!(
            "cost {} and is owed {}, not the {told_s} remembered",
            Dollars(t.total_cents.max(0) as u64),
            Dollars(owed.max(0) as u64)
        )
    }
}
