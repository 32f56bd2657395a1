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

/// Stake and ways on one number of the open game (a cell of the heat map).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NumberStake {
    pub number: u8,
    pub ways: u64,
    pub stake_cents: u64,
}

/// Stake and ways of one column: the schedule a way plays under and its spots.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ColumnStake {
    pub schedule: String,
    pub spots: u8,
    pub ways: u64,
    pub stake_cents: u64,
}

/// What the open game could cost (`GET /api/v1/games/current/liability`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Liability {
    pub game: i64,
    pub tickets: u64,
    pub ways: u64,
    pub stake_cents: u64,
    /// The exact expected payout (each way's prizes weighted by its catch probabilities, over
    /// C(80,20) draws), rounded down to the cent; the game's bonus prizes in (rule 6.3(e)),
    /// jackpot pool wins left out.
    pub expected_payout_cents: u64,
    /// A sound upper bound of what one draw pays: every way's largest minor prize, the major
    /// prizes after the per-way cap and pro-rating (rules 12.1-12.5), each with the game's
    /// bonus prizes (6.3(e)), and the pools at stake.
    pub worst_case_cents: u64,
    /// The jackpot pools at stake when jackpot ways are in play (rule 7).
    pub jackpot_pools_cents: u64,
    /// The operator's outstanding liability beside the game: prizes won by tickets not yet
    /// paid (neither voided nor moved as unclaimed, rule 13.2), and what live vouchers hold.
    pub unpaid_prizes_cents: u64,
    pub live_vouchers_cents: u64,
    /// Numbers 1 to 80, in order.
    pub per_number: Vec<NumberStake>,
    pub per_column: Vec<ColumnStake>,
    /// What the game's ways would pay over a sample of simulated draws, each settled as the
    /// game would be (majors pro-rated): the largest seen and the percentile curve.
    pub simulated: SimulatedPayout,
    /// The operator's limits a sale is refused for passing (none: no limit).
    pub limits: LiabilityLimits,
}

/// The payout over a sample of simulated draws.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SimulatedPayout {
    pub draws: u64,
    pub largest_cents: u64,
    /// Ascending: at 50%, 90%, 99%, 99.9% and 100% of the draws.
    pub percentiles: Vec<PayoutPercentile>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PayoutPercentile {
    /// In tenths of a percent: 500 is the median, 999 the 99.9th percentile.
    pub per_mille: u32,
    pub payout_cents: u64,
}

/// The liability limits in force (`--ticket-potential-limit`, `--game-expected-payout-limit`,
/// `--number-stake-limit`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LiabilityLimits {
    pub ticket_potential_cents: Option<u64>,
    pub game_expected_payout_cents: Option<u64>,
    pub number_stake_cents: Option<u64>,
}
