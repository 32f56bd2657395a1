//! Draw monitoring: running statistics over the games actually drawn, and three chi-square
//! tests of whether they look like the draw of rule 3.2, "a device designed to select at random
//! 20 winning numbers" of the 80: each number as often as any other (frequency), in any place of
//! the drawn order (position), and with any other number (pairs). A worn or unbalanced ball set
//! shows here first.
//!
//! Inputs in, figures out: the caller gives the games (each a [`Draw`], its 20 numbers in drawn
//! order) and reads the counts and the tests; nothing here knows where the games came from or
//! which of them make the window. Each test fails at 99.9% confidence (p below [`ALPHA`]).
//!
//! The three tests are built not to repeat each other: the position test looks only at the
//! order, given which numbers were drawn, and the pairs test only at how numbers go together
//! beyond their own frequencies. A ball that comes up too often fails the frequency test alone;
//! a draw that favours a number's place fails the position test alone.

use statrs::distribution::{ChiSquared, ContinuousCDF};

use crate::board::{Draw, LAST_NUMBER, NUMBERS_DRAWN};

/// A test fails when its p-value is below this: 99.9% confidence.
pub const ALPHA: f64 = 0.001;

/// Numbers on the board (80) and in a draw (20).
const BOARD: usize = LAST_NUMBER as usize;
const DRAWN: usize = NUMBERS_DRAWN;

/// Unordered pairs of board numbers: C(80,2).
pub const PAIRS: usize = BOARD * (BOARD - 1) / 2;

/// The three tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StatTest {
    Frequency,
    Position,
    Pairs,
}

impl StatTest {
    pub const ALL: [StatTest; 3] = [StatTest::Frequency, StatTest::Position, StatTest::Pairs];

    pub fn as_str(self) -> &'static str {
        match self {
            StatTest::Frequency => "frequency",
            StatTest::Position => "position",
            StatTest::Pairs => "pairs",
        }
    }
}

/// One test's outcome over the games counted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TestResult {
    pub test: StatTest,
    /// The chi-square statistic.
    pub statistic: f64,
    pub degrees_of_freedom: u32,
    /// How often a fair draw would give a statistic this large or larger.
    pub p_value: f64,
}

impl TestResult {
    /// Whether the test fails at 99.9% confidence. A p-value that is not a number fails.
    pub fn fails(&self) -> bool {
        self.p_value.is_nan() || self.p_value < ALPHA
    }
}

/// The counts of a run of games: per number, per place in the drawn order, per pair.
#[derive(Clone, Debug)]
pub struct DrawStats {
    games: u64,
    /// `frequency[n - 1]`: games that drew `n`.
    frequency: [u64; BOARD],
    /// `positions[p][n - 1]`: games that drew `n` as their `p + 1`-th number.
    positions: Box<[[u64; BOARD]; DRAWN]>,
    /// `pairs[a - 1][b - 1]`, `a < b`: games that drew both.
    pairs: Box<[[u64; BOARD]; BOARD]>,
}

impl Default for DrawStats {
    fn default() -> DrawStats {
        DrawStats {
            games: 0,
            frequency: [0; BOARD],
            positions: Box::new([[0; BOARD]; DRAWN]),
            pairs: Box::new([[0; BOARD]; BOARD]),
        }
    }
}

impl DrawStats {
    /// The counts of `games`.
    pub fn of<'a>(games: impl IntoIterator<Item = &'a Draw>) -> DrawStats {
        let mut stats = DrawStats::default();
        for game in games {
            stats.add(game);
        }
        stats
    }

    /// Counts one more game.
    pub fn add(&mut self, draw: &Draw) {
        self.games += 1;
        for (p, &n) in draw.in_order().iter().enumerate() {
            self.frequency[usize::from(n) - 1] += 1;
            self.positions[p][usize::from(n) - 1] += 1;
        }
        let mut sorted = *draw.in_order();
        sorted.sort_unstable();
        for (i, &a) in sorted.iter().enumerate() {
            let row = &mut self.pairs[usize::from(a) - 1];
            for &b in &sorted[i + 1..] {
                row[usize::from(b) - 1] += 1;
            }
        }
    }

    pub fn games(&self) -> u64 {
        self.games
    }

    /// Games that drew each number, 1 to 80 in order.
    pub fn frequency(&self) -> &[u64; BOARD] {
        &self.frequency
    }

    /// Games that drew number `n` as their `position`-th (both counted from 1); 0 off the board.
    pub fn at_position(&self, position: usize, n: u8) -> u64 {
        match (position, usize::from(n)) {
            (p @ 1..=DRAWN, n @ 1..=BOARD) => self.positions[p - 1][n - 1],
            _ => 0,
        }
    }

    /// Games that drew both `a` and `b` (in either order); 0 for a number off the board or
    /// `a == b`.
    pub fn together(&self, a: u8, b: u8) -> u64 {
        let (a, b) = (usize::from(a.min(b)), usize::from(a.max(b)));
        if a == 0 || b > BOARD || a == b {
            return 0;
        }
        self.pairs[a - 1][b - 1]
    }

    /// The three tests over the games counted, in the order of [`StatTest::ALL`].
    pub fn tests(&self) -> [TestResult; 3] {
        [
            self.frequency_test(),
            self.position_test(),
            self.pairs_test(),
        ]
    }

    /// Frequency: each number is drawn in 20/80 of the games. Pearson's chi-square over the 80
    /// counts, scaled by (80 - 1)/(80 - 20) for drawing without replacement: a game's 20
    /// numbers are distinct, so a count varies as games x 1/4 x 3/4 rather than as in 20
    /// independent picks, and the plain sum would average 60, not 79. Scaled, it is chi-square
    /// with 79 degrees of freedom (80 counts with a fixed total).
    pub fn frequency_test(&self) -> TestResult {
        let expected = self.games as f64 * DRAWN as f64 / BOARD as f64;
        let plain = pearson(self.frequency.iter().map(|&c| (c as f64, expected)));
        let statistic = plain * (BOARD - 1) as f64 / (BOARD - DRAWN) as f64;
        result(StatTest::Frequency, statistic, (BOARD - 1) as u32)
    }

    /// Position: the order of the draw, given which numbers were drawn. A fair device draws a
    /// game's 20 numbers in any order alike, so each number's place among the 20 is uniform on
    /// 1..=20 whatever else was drawn: for each of the `c` numbers drawn at least once,
    /// Pearson's chi-square of its 20 place counts against its frequency / 20 each (19 degrees
    /// of freedom each, 19c in all). A game's numbers take distinct places, so each place's
    /// counts sum to the games: that leaves 19(c - 1) free dimensions, and the sum, scaled by
    /// (c - 1)/c, averages 19(c - 1), its degrees of freedom (simulated, its variance is a
    /// little under the chi-square's: the test errs on the side of passing).
    ///
    /// This is the 20 x 80 table of place against number tested for independence, and not
    /// each place's 80 counts against games / 80: that sum is this one plus 20 times the
    /// frequency test's plain sum, and would mostly repeat it. A ball set that favours a
    /// number in any place fails the frequency test here, not this one.
    pub fn position_test(&self) -> TestResult {
        let mut sum = 0.0;
        let mut drawn = 0u32;
        for (n, &f) in self.frequency.iter().enumerate().filter(|(_, f)| **f > 0) {
            drawn += 1;
            let expected = f as f64 / DRAWN as f64;
            sum += pearson(self.positions.iter().map(|row| (row[n] as f64, expected)));
        }
        if drawn < 2 {
            return result(StatTest::Position, 0.0, 0);
        }
        let c = f64::from(drawn);
        let statistic = sum * (c - 1.0) / c;
        result(
            StatTest::Position,
            statistic,
            (DRAWN as u32 - 1) * (drawn - 1),
        )
    }

    /// Pairs: each of the 3,160 pairs is drawn together in games x C(78,18)/C(80,20) =
    /// games x (20 x 19)/(80 x 79) of the games.
    ///
    /// An approximate screen, not an exact test: the pair counts are not independent. A
    /// pair's count departs from its expectation for two reasons, its numbers' own
    /// frequencies and how the numbers go together, and the plain Pearson sum over the 3,160
    /// pairs is no chi-square with 3,159 degrees of freedom: its 79 dimensions along the
    /// frequencies count 14.6 times what a chi-square's would, so it mostly repeats the
    /// frequency test. So the per-number part (the least-squares fit d[a][b] ~ f[a] + f[b] of
    /// the deviations, f = row sums / 78) is taken out, and what is left (3,080 dimensions) is
    /// scaled for drawing without replacement by (80 - 20)(80 - 21)/((80 - 2)(80 - 3)), its
    /// covariance relative to the multinomial's. That is about chi-square with 3,080 degrees
    /// of freedom; over a short window each pair expects only a few games and the
    /// approximation is rough (its tail thinner than the chi-square's: it errs on the side of
    /// passing).
    pub fn pairs_test(&self) -> TestResult {
        let expected =
            self.games as f64 * (DRAWN * (DRAWN - 1)) as f64 / (BOARD * (BOARD - 1)) as f64;
        let df = (BOARD * (BOARD - 3) / 2) as u32;
        if self.games == 0 {
            return result(StatTest::Pairs, 0.0, df);
        }
        let mut squares = 0.0;
        let mut rows = [0.0; BOARD];
        for a in 0..BOARD {
            for b in a + 1..BOARD {
                let d = self.pairs[a][b] as f64 - expected;
                squares += d * d;
                rows[a] += d;
                rows[b] += d;
            }
        }
        let explained = rows.iter().map(|r| r * r).sum::<f64>() / (BOARD - 2) as f64;
        let without_replacement =
            ((BOARD - DRAWN) * (BOARD - DRAWN - 1)) as f64 / ((BOARD - 2) * (BOARD - 3)) as f64;
        let statistic = (squares - explained).max(0.0) / expected / without_replacement;
        result(StatTest::Pairs, statistic, df)
    }
}

/// Pearson's sum of (observed - expected)^2 / expected; cells expecting nothing count nothing.
fn pearson(observed_expected: impl IntoIterator<Item = (f64, f64)>) -> f64 {
    observed_expected
        .into_iter()
        .filter(|&(_, e)| e > 0.0)
        .map(|(o, e)| (o - e) * (o - e) / e)
        .sum()
}

/// P(X >= statistic) for X chi-square with `df` degrees of freedom; 1 with none (nothing to
/// test: no games, or no choice left in them).
pub fn chi_square_upper(statistic: f64, df: u32) -> f64 {
    match ChiSquared::new(f64::from(df)) {
        Ok(chi) if df > 0 => chi.sf(statistic),
        _ => 1.0,
    }
}

fn result(test: StatTest, statistic: f64, degrees_of_freedom: u32) -> TestResult {
    TestResult {
        test,
        statistic,
        degrees_of_freedom,
        p_value: chi_square_upper(statistic, degrees_of_freedom),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::{draw_numbers, uniform_below};
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    /// Fair games from a seeded generator, through the production draw.
    fn fair(seed: u64, games: usize) -> Vec<Draw> {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        (0..games).map(|_| draw_numbers(&mut rng)).collect()
    }

    /// Games from a ball set where ball `n` weighs `weight[n - 1]`: each ball drawn is picked
    /// among those left with chances in proportion to their weights (0: the ball is missing).
    fn weighted(seed: u64, games: usize, weight: impl Fn(u8) -> u32) -> Vec<Draw> {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        (0..games)
            .map(|_| {
                let mut left: Vec<u8> = (1..=LAST_NUMBER).filter(|&n| weight(n) > 0).collect();
                let mut order = Vec::with_capacity(DRAWN);
                while order.len() < DRAWN {
                    let total: u32 = left.iter().map(|&n| weight(n)).sum();
                    let mut pick = uniform_below(&mut rng, total);
                    let at = left
                        .iter()
                        .position(|&n| {
                            let hit = pick < weight(n);
                            pick = pick.saturating_sub(weight(n));
                            hit
                        })
                        .expect("a pick below the total weight");
                    order.push(left.remove(at));
                }
                Draw::new(&order).unwrap()
            })
            .collect()
    }

    fn draw(numbers: impl IntoIterator<Item = u8>) -> Draw {
        Draw::new(&numbers.into_iter().collect::<Vec<_>>()).unwrap()
    }

    fn failing(stats: &DrawStats) -> Vec<StatTest> {
        stats
            .tests()
            .iter()
            .filter(|t| t.fails())
            .map(|t| t.test)
            .collect()
    }

    #[test]
    fn counts_each_number_place_and_pair_of_a_game() {
        let game = draw((1..=20).rev());
        let stats = DrawStats::of([&game, &game]);
        assert_eq!(stats.games(), 2);
        assert_eq!(stats.frequency()[..20], [2; 20]);
        assert_eq!(stats.frequency()[20..], [0; 60]);
        assert_eq!((stats.at_position(1, 20), stats.at_position(20, 1)), (2, 2));
        assert_eq!((stats.at_position(1, 1), stats.at_position(21, 1)), (0, 0));
        assert_eq!((stats.together(3, 17), stats.together(17, 3)), (2, 2));
        assert_eq!((stats.together(3, 21), stats.together(3, 3)), (0, 0));
        let pairs: u64 = (1..=80u8)
            .flat_map(|a| (a + 1..=80).map(move |b| (a, b)))
            .map(|(a, b)| stats.together(a, b))
            .sum();
        assert_eq!(pairs, 2 * 190);
    }

    #[test]
    fn chi_square_p_values_agree_with_the_tables() {
        // Upper points of chi-square tables: 5% and 0.1% with 1 df, 0.1% with 79 df.
        for (x, df, p) in [
            (3.841_459, 1, 0.05),
            (10.827_566, 1, 0.001),
            (23.209_251, 10, 0.01),
            (112.328_8, 80, 0.01),
        ] {
            let got = chi_square_upper(x, df);
            assert!(
                (got - p).abs() < 1e-6,
                "chi-square {x} with {df} df: p {got}"
            );
        }
        assert_eq!(chi_square_upper(0.0, 79), 1.0);
        assert_eq!(chi_square_upper(5.0, 0), 1.0);
    }

    #[test]
    fn no_games_fail_nothing() {
        let stats = DrawStats::default();
        let tests = stats.tests();
        assert_eq!(tests.map(|t| t.test), StatTest::ALL);
        assert!(tests.iter().all(|t| t.p_value == 1.0 && !t.fails()));
    }

    #[test]
    fn every_number_equally_often_in_every_place_gives_zero() {
        // Four games covering the board, each number once; then the same four turned so each
        // number takes every place: 80 games, each number 20 times, once in each place.
        let games: Vec<Draw> = (0..80u8)
            .map(|g| {
                let block = g % 4 * 20;
                draw((0..20u8).map(|i| block + (i + g / 4) % 20 + 1))
            })
            .collect();
        let stats = DrawStats::of(&games);
        assert_eq!(stats.frequency(), &[20; 80]);
        let [frequency, position, _] = stats.tests();
        assert_eq!((frequency.statistic, frequency.p_value), (0.0, 1.0));
        assert_eq!((position.statistic, position.p_value), (0.0, 1.0));
        assert_eq!(position.degrees_of_freedom, 19 * 79);
    }

    #[test]
    fn the_frequency_statistic_is_the_scaled_pearson_sum() {
        // Four games: 1..=40 twice each, 41..=80 never. Expected 1 each: the plain sum is
        // 40 x 1 + 40 x 1 = 80, scaled by 79/60: 105.3, between the 5% and 2% points.
        let games = [1, 21, 1, 21].map(|first| draw(first..first + 20));
        let f = DrawStats::of(&games).frequency_test();
        assert!((f.statistic - 80.0 * 79.0 / 60.0).abs() < 1e-9);
        assert_eq!(f.degrees_of_freedom, 79);
        assert!((0.02..0.05).contains(&f.p_value), "{f:?}");
        assert!(!f.fails());
    }

    #[test]
    fn the_position_statistic_counts_only_the_numbers_drawn() {
        // The same 20 numbers in the same order, twice: each number drawn twice, always in one
        // place, expected 2/20 = 0.1 in each: (2 - 0.1)^2/0.1 + 19 x 0.1 = 38 per number, 760
        // for the 20, scaled by 19/20, with 19 x 19 df.
        let game = draw(1..=20);
        let p = DrawStats::of([&game, &game]).position_test();
        assert_eq!(p.degrees_of_freedom, 361);
        assert!((p.statistic - 760.0 * 19.0 / 20.0).abs() < 1e-9, "{p:?}");
        assert!(p.fails());
    }

    #[test]
    fn pairs_explained_by_the_numbers_frequencies_count_nothing() {
        // 316 games: each pair expected 316 x 380/6320 = 19 times. Counts of 19 + f(a) + f(b),
        // f summing to zero, are the frequency test's business: nothing is left for this one.
        let f = |a: usize| if a < 40 { 3 } else { -3 };
        let mut stats = DrawStats {
            games: 316,
            ..DrawStats::default()
        };
        for a in 0..BOARD {
            for b in a + 1..BOARD {
                stats.pairs[a][b] = (19 + f(a) + f(b)) as u64;
            }
        }
        let p = stats.pairs_test();
        assert_eq!(p.degrees_of_freedom, 3080);
        assert!(p.statistic.abs() < 1e-9, "{p:?}");
        assert_eq!(p.p_value, 1.0);
    }

    #[test]
    fn the_pairs_statistic_is_what_is_left_after_each_numbers_part() {
        // Pair by pair: the residual d[a][b] - (r[a] + r[b]) / 78 (r: the deviations' row
        // sums) has nothing per number left (its own row sums are zero), and its sum of
        // squares over the expectation, scaled, is the statistic.
        let stats = DrawStats::of(&fair(3, 500));
        let expected = 500.0 * 380.0 / 6320.0;
        let d = |a: usize, b: usize| stats.together(a as u8, b as u8) as f64 - expected;
        let rows: Vec<f64> = (0..=BOARD)
            .map(|a| (1..=BOARD).filter(|&b| b != a).map(|b| d(a, b)).sum())
            .collect();
        let mut residual_rows = [0.0; BOARD + 1];
        let mut squares = 0.0;
        for a in 1..=BOARD {
            for b in a + 1..=BOARD {
                let r = d(a, b) - (rows[a] + rows[b]) / 78.0;
                residual_rows[a] += r;
                residual_rows[b] += r;
                squares += r * r;
            }
        }
        assert!(
            residual_rows.iter().all(|r| r.abs() < 1e-6),
            "{residual_rows:?}"
        );
        let statistic = squares / expected / (60.0 * 59.0 / (78.0 * 77.0));
        let p = stats.pairs_test();
        assert!(
            (p.statistic - statistic).abs() < 1e-6 * statistic,
            "{p:?} {statistic}"
        );
    }

    #[test]
    fn over_many_fair_windows_the_statistics_average_their_degrees_of_freedom() {
        // 100 windows of 200 fair games: the scalings for drawing without replacement make
        // each statistic's mean its degrees of freedom, and its spread no wider than the
        // chi-square's (2 df).
        let windows: Vec<[TestResult; 3]> = (0..100)
            .map(|w| DrawStats::of(&fair(1_000 + w, 200)).tests())
            .collect();
        for (i, test) in StatTest::ALL.iter().enumerate() {
            let xs: Vec<f64> = windows.iter().map(|t| t[i].statistic).collect();
            let df = f64::from(windows[0][i].degrees_of_freedom);
            let mean = xs.iter().sum::<f64>() / xs.len() as f64;
            let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (xs.len() - 1) as f64;
            let standard_error = (2.0 * df / xs.len() as f64).sqrt();
            assert!(
                (mean - df).abs() < 4.0 * standard_error,
                "{test:?}: mean {mean}, df {df}"
            );
            assert!(var < 2.0 * df * 1.4, "{test:?}: variance {var}, df {df}");
        }
    }

    #[test]
    fn a_fair_draw_fails_nothing_over_2000_games() {
        for seed in 1..=3 {
            let stats = DrawStats::of(&fair(seed, 2_000));
            assert_eq!(failing(&stats), [], "seed {seed}: {:?}", stats.tests());
            // Each statistic is near its degrees of freedom.
            for t in stats.tests() {
                let df = f64::from(t.degrees_of_freedom);
                assert!((t.statistic - df).abs() < 5.0 * (2.0 * df).sqrt(), "{t:?}");
            }
        }
    }

    #[test]
    fn a_missing_ball_fails_the_frequency_test_within_300_games() {
        let games = weighted(7, 300, |n| u32::from(n != 42));
        let stats = DrawStats::of(&games);
        assert_eq!(stats.frequency()[41], 0);
        // The order stays fair: the position test does not see a missing ball.
        assert_eq!(
            failing(&stats),
            [StatTest::Frequency],
            "{:?}",
            stats.tests()
        );
    }

    #[test]
    fn a_ball_twice_as_likely_fails_the_frequency_test_within_a_few_hundred_games() {
        // Ball 1 weighs twice any other: picked twice as likely at each ball drawn.
        let games = weighted(8, 2_000, |n| if n == 1 { 2 } else { 1 });
        let first_failing = (50..=2_000)
            .step_by(50)
            .find(|&g| DrawStats::of(&games[..g]).frequency_test().fails())
            .expect("the frequency test fails");
        assert!(
            first_failing <= 800,
            "failed first over {first_failing} games"
        );
        let stats = DrawStats::of(&games[..800]);
        assert!(stats.frequency_test().fails(), "{:?}", stats.tests());
        assert!(!stats.position_test().fails(), "{:?}", stats.tests());
    }

    #[test]
    fn number_1_always_drawn_first_fails_the_position_test_and_not_the_frequency_test() {
        let games: Vec<Draw> = fair(9, 2_000)
            .into_iter()
            .map(|d| {
                let mut order = *d.in_order();
                if let Some(at) = order.iter().position(|&n| n == 1) {
                    order.swap(0, at);
                }
                Draw::new(&order).unwrap()
            })
            .collect();
        let stats = DrawStats::of(&games);
        assert_eq!(failing(&stats), [StatTest::Position], "{:?}", stats.tests());
        assert_eq!(stats.at_position(1, 1), stats.frequency()[0]);
    }

    #[test]
    fn a_pair_always_drawn_together_fails_the_pairs_test() {
        // 1 and 2 together in every game; the other 18 from a fair draw.
        let games: Vec<Draw> = fair(10, 2_000)
            .into_iter()
            .map(|d| {
                draw(
                    [1, 2]
                        .into_iter()
                        .chain(d.in_order().iter().copied().filter(|&n| n > 2).take(18)),
                )
            })
            .collect();
        let stats = DrawStats::of(&games);
        assert!(stats.pairs_test().fails(), "{:?}", stats.tests());
    }
}
