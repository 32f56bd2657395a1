//! Draw monitoring (`GET /api/v1/draw-monitoring`): the frequency, position and pairs tests of
//! `keno_core::draw_stats` over the last games settled, per draw source and device.

use serde::{Deserialize, Serialize};

/// What drew a group's games (rule 3.2), as a game's `source` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum MonitoredSource {
    /// The random number generator.
    Rng,
    /// A ball-drawing device (or balls drawn by hand).
    BallDevice,
}

impl From<keno_core::DrawSource> for MonitoredSource {
    fn from(s: keno_core::DrawSource) -> MonitoredSource {
        match s {
            keno_core::DrawSource::Rng => MonitoredSource::Rng,
            keno_core::DrawSource::BallDevice => MonitoredSource::BallDevice,
        }
    }
}

/// One of the three tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum MonitorTest {
    /// Each number drawn in 20/80 of the games (79 df).
    Frequency,
    /// The drawn order, given the numbers drawn: each number's place uniform on 1 to 20.
    Position,
    /// Each pair drawn together as often as any other, beyond the numbers' own frequencies
    /// (3,080 df): an approximate screen.
    Pairs,
}

impl From<keno_core::StatTest> for MonitorTest {
    fn from(t: keno_core::StatTest) -> MonitorTest {
        match t {
            keno_core::StatTest::Frequency => MonitorTest::Frequency,
            keno_core::StatTest::Position => MonitorTest::Position,
            keno_core::StatTest::Pairs => MonitorTest::Pairs,
        }
    }
}

/// A test's outcome over a group's window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MonitorTestResult {
    pub test: MonitorTest,
    /// The chi-square statistic.
    pub statistic: f64,
    pub degrees_of_freedom: u32,
    pub p_value: f64,
    /// p below 0.001: the test fails at 99.9% confidence.
    pub fails: bool,
}

/// The games of one draw source and device.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MonitorGroup {
    pub source: MonitoredSource,
    /// The device that drew the games' first balls; null for the RNG, and for ball games
    /// drawn wholly by hand.
    pub device: Option<String>,
    /// Games in the window: the group's last settled games, at most `window`.
    pub games: u64,
    pub first_game: i64,
    pub last_game: i64,
    /// Games that drew each number, 1 to 80 in order.
    pub frequency: Vec<u64>,
    /// frequency, position, pairs.
    pub tests: Vec<MonitorTestResult>,
    /// A test fails.
    pub alarm: bool,
}

/// `GET /api/v1/draw-monitoring`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DrawMonitoring {
    /// The most games a group's tests look at (`--monitor-games`).
    pub window: u64,
    /// By source, then device.
    pub groups: Vec<MonitorGroup>,
}
