//! The catalogue of set bets (rule 6.3(h)) on the wire: how a set bet is played, the set a
//! ticket names, and a set as `GET /api/v1/set-bets` lists it.

use keno_core::SetMode;
use serde::{Deserialize, Serialize};

use crate::tickets::WaysLine;

/// How a set bet is played (rule 6.3(h)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum SetBetMode {
    /// The set's own numbers.
    Fixed,
    /// Numbers picked by the server (the OS CSPRNG) in groups of the set's sizes, with the same
    /// combinations.
    Random,
}

impl From<SetBetMode> for SetMode {
    fn from(m: SetBetMode) -> SetMode {
        match m {
            SetBetMode::Fixed => SetMode::Fixed,
            SetBetMode::Random => SetMode::Random,
        }
    }
}

impl SetBetMode {
    pub fn as_str(self) -> &'static str {
        match self {
            SetBetMode::Fixed => "fixed",
            SetBetMode::Random => "random",
        }
    }

    pub fn parse(s: &str) -> Option<SetBetMode> {
        match s {
            "fixed" => Some(SetBetMode::Fixed),
            "random" => Some(SetBetMode::Random),
            _ => None,
        }
    }
}

/// The catalogue set a ticket was sold from (rule 6.3(h)).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SetBetRef {
    pub id: i64,
    /// The set's name, printed on the receipt.
    pub name: String,
    pub mode: SetBetMode,
}

/// A set of the catalogue.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SetBet {
    pub id: i64,
    pub name: String,
    pub description: Option<String>,
    /// The numbers in groups ("fixed" plays these).
    pub groups: Vec<Vec<u8>>,
    pub combine: Vec<u8>,
    /// Its ways in the standard schedule ("3/06"), as a way ticket of these groups has them.
    pub ways: Vec<WaysLine>,
    pub way_count: u64,
    /// The amount per way suggested to the player.
    pub amount_per_way_cents: i64,
    /// One game at the suggested amount.
    pub game_cost_cents: u64,
    /// Sold (not retired).
    pub on_sale: bool,
    pub created_at: String,
    pub retired_at: Option<String>,
    /// Why it was retired, when the supervisor said (issue 34).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired_reason: Option<String>,
}
