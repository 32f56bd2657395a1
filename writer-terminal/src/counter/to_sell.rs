//! The ticket as it will be sold, shown before the second Enter: the numbers or groups, the
//! ways and their spots, the schedule, the amount, the games from the first to the last, and
//! the total, and what a tender pays of it. The writer confirms what the server priced, not
//! what the line was.

use keno_api::tickets::{BetRequest, Quote};

use crate::order::Order;

use super::dollars;

fn two(n: &u8) -> String {
    format!("{n:02}")
}

/// The panel's lines for `order` priced as `q`, to play from game `game` (the game open now).
pub fn lines(order: &Order, q: &Quote, game: Option<i64>) -> Vec<String> {
    let numbers = match &order.bet {
        BetRequest::Standard { spots } => {
            let mut s = spots.clone();
            s.sort_unstable();
            format!(
                "NUMBERS   {}",
                s.iter().map(two).collect::<Vec<_>>().join(" ")
            )
        }
        BetRequest::QuickPick { count } => format!("NUMBERS   a quick pick of {count}"),
        BetRequest::MysteryQuickPick => "NUMBERS   a mystery quick pick".to_string(),
        BetRequest::Way { groups, combine } => format!(
            "GROUPS    {}  combined {} at a time",
            groups
                .iter()
                .map(|g| g.iter().map(two).collect::<Vec<_>>().join(" "))
                .collect::<Vec<_>>()
                .join(" | "),
            combine
                .iter()
                .map(u8::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        BetRequest::SetBet { set, .. } => format!("SET BET   {set}"),
    };
    let ways: Vec<String> = q
        .ways
        .iter()
        .map(|l| format!("{} x {}-spot ({})", l.count, l.spots, l.plays_as.as_str()))
        .collect();
    let games = match game {
        Some(first) if q.games > 1 => {
            format!(
                "GAMES     {}: {first} to {}",
                q.games,
                first + i64::from(q.games) - 1
            )
        }
        Some(first) => format!("GAMES     1: game {first}"),
        None => format!("GAMES     {}: from the next game opened", q.games),
    };
    let tendered = (q.payment.tendered_cents > 0).then(|| {
        format!(
            "PAYMENT   TENDERED {}, CASH {}",
            dollars(q.payment.tendered_cents),
            dollars(q.payment.cash_cents)
        )
    });
    let form = order
        .entry_form
        .as_ref()
        .map(|sha| format!("FORM      scanned entry form, SHA-256 {}...", &sha[..16]));
    [
        HEADING.to_string(),
        numbers,
        format!("WAYS      {}", ways.join(", ")),
        format!("SCHEDULE  {}", order.schedule.as_str()),
        format!("AMOUNT    {} a way", dollars(q.amount_per_way_cents)),
        games,
        format!(
            "TOTAL     {} ({} charged)",
            dollars(q.total_cents),
            q.charged_games
        ),
    ]
    .into_iter()
    .chain(tendered)
    .chain(form)
    .collect()
}

/// The panel's first line while a ticket waits to be sold.
pub const HEADING: &str = "TO SELL (ENTER sells, ESC drops)";
