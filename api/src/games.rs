//! Games and the jackpot pools as the API shows them (`GET /api/v1/games...`,
//! `GET /api/v1/jackpots`).

use serde::{Deserialize, Serialize};

/// A game as the API shows it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Game {
    pub number: i64,
    /// The Keno Day (YYYY-MM-DD) the game belongs to (rule 1(d)).
    pub keno_day: String,
    /// open | closed | drawing | drawn | settled | void | invalidated
    pub state: String,
    pub opened_at: String,
    /// When the game closes (or closed) for sale (rule 9.2).
    pub closes_at: String,
    pub closed_at: Option<String>,
    pub drawn_at: Option<String>,
    pub settled_at: Option<String>,
    /// rng | ball_device
    pub source: String,
    /// The numbers drawn so far, in the order drawn; only committed numbers (rule 10.1).
    pub drawn: Vec<u8>,
    /// Which draw of the game this is: a void draw (rules 10.2, 10.4(c)) is drawn again.
    pub draw_attempt: i32,
    /// rng | device | manual: how the numbers of the current draw are entered; manual after
    /// a fall-back or a stoppage (rule 10.4(b), (d)).
    pub draw_mode: String,
}

impl Game {
    /// The number the draw holds at `position` (from 1), if it is that far.
    pub fn ball_at(&self, position: usize) -> Option<u8> {
        position
            .checked_sub(1)
            .and_then(|i| self.drawn.get(i))
            .copied()
    }
}

// A jackpot pool (rule 7.3). (Not a doc comment: it would become a description that the
// published schema does not have.)
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Jackpot {
    pub spots: u8,
    pub pool_cents: u64,
    pub guaranteed_cents: u64,
}
