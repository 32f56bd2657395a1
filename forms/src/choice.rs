//! What a read Mark Sense Entry Form chooses, or why it cannot be sold as read.
//!
//! Only the form's own sense is checked here (one price, one game count, 1 to 15 numbers, no
//! unclear box); the bet is then checked as every typed sale is (the writer terminal hands it
//! to the same entry and the rules of keno-core). Nothing is guessed: an ambiguous form is
//! refused, naming its boxes, for the writer to ask the player.

use std::fmt;

use serde::Serialize;

use crate::layout::{FormBox, FormId, Meaning};
use crate::read::{Judgement, Reading};

/// Rule 6.3(f): a standard entry plays 1 to 15 numbers (keno-core's `MAX_SPOTS`).
pub const MAX_NUMBERS: usize = keno_core::board::MAX_SPOTS as usize;

/// The schedule a form chooses (rule 5.5(a)(iii) and the jackpot of rule 7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FormSchedule {
    Standard,
    Special(u8),
    Jackpot,
}

/// A form's choices, each exactly as marked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Choice {
    /// In the board's order.
    pub numbers: Vec<u8>,
    pub games: u32,
    pub price_cents: u64,
    pub schedule: FormSchedule,
}

/// What makes a form unreadable as a sale.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "problem", content = "boxes", rename_all = "snake_case")]
pub enum Problem {
    /// Boxes neither clearly crossed nor clearly empty.
    Unclear(Vec<String>),
    NoNumbers,
    TooManyNumbers(Vec<String>),
    NoGames,
    SeveralGames(Vec<String>),
    NoPrice,
    SeveralPrices(Vec<String>),
    SeveralSchedules(Vec<String>),
    /// The Way Bet Entry Form: its groups are drawn by hand, for the writer to key.
    WayForm,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |b: &[String]| b.join(", ");
        match self {
            Problem::Unclear(b) => write!(f, "unclear (neither crossed nor empty): {}", list(b)),
            Problem::NoNumbers => write!(f, "no number is marked"),
            Problem::TooManyNumbers(b) => write!(
                f,
                "{} numbers are marked, and a ticket plays at most {MAX_NUMBERS}: {}",
                b.len(),
                list(b)
            ),
            Problem::NoGames => write!(f, "no NUMBER OF GAMES is marked"),
            Problem::SeveralGames(b) => write!(f, "more than one NUMBER OF GAMES: {}", list(b)),
            Problem::NoPrice => write!(f, "no PRICE PER GAME is marked"),
            Problem::SeveralPrices(b) => write!(f, "more than one PRICE PER GAME: {}", list(b)),
            Problem::SeveralSchedules(b) => {
                write!(f, "more than one of SPECIAL and JACKPOT: {}", list(b))
            }
            Problem::WayForm => write!(
                f,
                "this is the Way Bet Entry Form (Diagram B): its groups are drawn by hand, so the \
                 writer keys it (w and the groups)"
            ),
        }
    }
}

/// A refusal: every problem found, not just the first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Refusal {
    pub problems: Vec<Problem>,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let said: Vec<String> = self.problems.iter().map(Problem::to_string).collect();
        write!(f, "the form cannot be sold as read: {}", said.join("; "))
    }
}

impl std::error::Error for Refusal {}

/// How a box is named to a person: "number 17", "PRICE PER GAME $5".
pub fn box_name(b: &FormBox) -> String {
    match b.meaning {
        Meaning::Number(n) => format!("number {n}"),
        Meaning::Games(g) => format!("NUMBER OF GAMES {g}"),
        Meaning::Price(c) => format!("PRICE PER GAME ${}", c / 100),
        Meaning::Special(s) => format!("SPECIAL {s}"),
        Meaning::Jackpot => "JACKPOT".to_string(),
        Meaning::Combine(k) => format!("WAYS {k}"),
        Meaning::CombineAll => "WAYS ALL".to_string(),
        Meaning::WriteIn => "a written square".to_string(),
    }
}

/// The sale a read form chooses.
pub fn choice(reading: &Reading) -> Result<Choice, Refusal> {
    if reading.form.id == FormId::WayBet {
        return Err(Refusal {
            problems: vec![Problem::WayForm],
        });
    }
    let boxes_judged = |j: Judgement| {
        reading
            .boxes
            .iter()
            .filter(move |b| b.judgement == j)
            .map(|b| &reading.form.boxes[b.index])
    };
    let names = |bs: &[&FormBox]| bs.iter().map(|b| box_name(b)).collect::<Vec<_>>();
    let unclear: Vec<&FormBox> = boxes_judged(Judgement::Unclear).collect();
    let marked: Vec<&FormBox> = boxes_judged(Judgement::Marked).collect();
    let numbers = chosen(&marked, |m| match m {
        Meaning::Number(n) => Some(n),
        _ => None,
    });
    let games = chosen(&marked, |m| match m {
        Meaning::Games(g) => Some(g),
        _ => None,
    });
    let prices = chosen(&marked, |m| match m {
        Meaning::Price(c) => Some(c),
        _ => None,
    });
    let schedules = chosen(&marked, |m| match m {
        Meaning::Special(s) => Some(FormSchedule::Special(s)),
        Meaning::Jackpot => Some(FormSchedule::Jackpot),
        _ => None,
    });
    let mut problems = Vec::new();
    if !unclear.is_empty() {
        problems.push(Problem::Unclear(names(&unclear)));
    }
    match numbers.len() {
        0 => problems.push(Problem::NoNumbers),
        n if n > MAX_NUMBERS => problems.push(Problem::TooManyNumbers(named(&numbers))),
        _ => {}
    }
    let (game, price) = (one(&games), one(&prices));
    if games.is_empty() {
        problems.push(Problem::NoGames);
    } else if game.is_none() {
        problems.push(Problem::SeveralGames(named(&games)));
    }
    if prices.is_empty() {
        problems.push(Problem::NoPrice);
    } else if price.is_none() {
        problems.push(Problem::SeveralPrices(named(&prices)));
    }
    if schedules.len() > 1 {
        problems.push(Problem::SeveralSchedules(named(&schedules)));
    }
    match (game, price) {
        (Some(games), Some(price_cents)) if problems.is_empty() => Ok(Choice {
            numbers: numbers.iter().map(|(n, _)| *n).collect(),
            games,
            price_cents,
            schedule: one(&schedules).unwrap_or(FormSchedule::Standard),
        }),
        _ => Err(Refusal { problems }),
    }
}

/// The marked boxes of one kind, each with its value.
fn chosen<'f, T>(
    marked: &[&'f FormBox],
    value: impl Fn(Meaning) -> Option<T>,
) -> Vec<(T, &'f FormBox)> {
    marked
        .iter()
        .filter_map(|b| value(b.meaning).map(|v| (v, *b)))
        .collect()
}

/// The value when exactly one box of a kind is marked.
fn one<T: Copy>(chosen: &[(T, &FormBox)]) -> Option<T> {
    match chosen {
        [(v, _)] => Some(*v),
        _ => None,
    }
}

fn named<T>(chosen: &[(T, &FormBox)]) -> Vec<String> {
    chosen.iter().map(|(_, b)| box_name(b)).collect()
}
