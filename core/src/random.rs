//! Random choices made from a generator the caller supplies: the core has no RNG of its own.
//!
//! The server passes the operating system's CSPRNG; tests pass a seeded generator. The draw
//! takes a [`CryptoRng`] so that only a cryptographic generator can produce official numbers
//! (the general rules' RNG: independent, uniform over its range, unpredictable).

use rand_core::{CryptoRng, Rng};

use crate::board::{Draw, NumberSet, Selection, LAST_NUMBER, MAX_SPOTS, NUMBERS_DRAWN};
use crate::error::SelectionError;

/// A uniform integer in `0..n` with no modulo bias (Lemire's multiply-and-reject).
pub fn uniform_below<R: Rng + ?Sized>(rng: &mut R, n: u32) -> u32 {
    assert!(n > 0, "uniform_below(0) has no values");
    let mut m = u64::from(rng.next_u32()) * u64::from(n);
    let mut low = m as u32;
    if low < n {
        // The values of `low` below 2^32 mod n would make some results more likely: reject them.
        let threshold = n.wrapping_neg() % n;
        while low < threshold {
            m = u64::from(rng.next_u32()) * u64::from(n);
            low = m as u32;
        }
    }
    (m >> 32) as u32
}

/// `count` distinct numbers of 1..=80, in the order chosen, each ordered sample equally likely
/// (a partial Fisher-Yates shuffle with unbiased indices).
pub fn distinct_numbers<R: Rng + ?Sized>(rng: &mut R, count: usize) -> Vec<u8> {
    assert!(count <= LAST_NUMBER as usize);
    let mut board: [u8; LAST_NUMBER as usize] = std::array::from_fn(|i| i as u8 + 1);
    for i in 0..count {
        let j = i + uniform_below(rng, (board.len() - i) as u32) as usize;
        board.swap(i, j);
    }
    board[..count].to_vec()
}

/// The next number of a draw: uniform among the numbers not yet drawn (rules 3.2, 9.1).
///
/// The server draws one number at a time so that each is committed before it is shown and a
/// draw interrupted by a malfunction continues from the last valid number (rule 10.3).
pub fn draw_next<R: CryptoRng + ?Sized>(rng: &mut R, drawn: NumberSet) -> u8 {
    assert!(
        (drawn.len() as usize) < NUMBERS_DRAWN,
        "a draw has {NUMBERS_DRAWN} numbers"
    );
    let remaining = u32::from(LAST_NUMBER - drawn.len());
    let mut k = uniform_below(rng, remaining);
    for n in 1..=LAST_NUMBER {
        if !drawn.contains(n) {
            if k == 0 {
                return n;
            }
            k -= 1;
        }
    }
    unreachable!("fewer numbers left than counted")
}

/// The 20 numbers of a game drawn by the RNG (rules 3.2, 9.1), in drawn order: the same
/// [`draw_next`] the server calls number by number.
pub fn draw_numbers<R: CryptoRng + ?Sized>(rng: &mut R) -> Draw {
    let mut drawn = NumberSet::EMPTY;
    let mut order = Vec::with_capacity(NUMBERS_DRAWN);
    for _ in 0..NUMBERS_DRAWN {
        let n = draw_next(rng, drawn);
        drawn = drawn.union(NumberSet::from_numbers(&[n]).expect("a board number"));
        order.push(n);
    }
    Draw::new(&order).expect("20 distinct board numbers")
}

/// The terminal's pick of `count` numbers for a quick pick ticket (rule 6.3(b)).
pub fn quick_pick<R: Rng + ?Sized>(rng: &mut R, count: u8) -> Result<Selection, SelectionError> {
    if !(1..=MAX_SPOTS).contains(&count) {
        return Err(SelectionError::QuickPickCount { count });
    }
    let set = NumberSet::from_numbers(&distinct_numbers(rng, count as usize))?;
    Selection::from_set(set)
}

/// Fresh numbers for a "random" set bet (rule 6.3(h)): groups of the sizes given, in that order,
/// every number distinct. The numbers are a uniform ordered sample of the board (partial
/// Fisher-Yates) cut into the groups, so every way of filling the groups is equally likely.
pub fn shaped_pick<R: Rng + ?Sized>(
    rng: &mut R,
    sizes: &[u8],
) -> Result<Vec<NumberSet>, SelectionError> {
    let total: usize = sizes.iter().map(|&s| usize::from(s)).sum();
    if total > LAST_NUMBER as usize {
        return Err(SelectionError::TooManyNumbers { count: total });
    }
    let numbers = distinct_numbers(rng, total);
    let mut rest = &numbers[..];
    let mut groups = Vec::with_capacity(sizes.len());
    for &size in sizes {
        let (group, tail) = rest.split_at(usize::from(size));
        groups.push(NumberSet::from_numbers(group)?);
        rest = tail;
    }
    Ok(groups)
}

/// How many numbers a mystery quick pick plays, uniform in `min..=max` (rule 6.3(c)).
pub fn mystery_spots<R: Rng + ?Sized>(rng: &mut R, (min, max): (u8, u8)) -> u8 {
    min + uniform_below(rng, u32::from(max - min) + 1) as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    #[test]
    fn uniform_below_covers_the_range_evenly() {
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        let mut counts = [0u32; 7];
        for _ in 0..70_000 {
            counts[uniform_below(&mut rng, 7) as usize] += 1;
        }
        // Each bucket expects 10,000; 5 standard deviations is about 470.
        for c in counts {
            assert!((9_500..=10_500).contains(&c), "{counts:?}");
        }
    }

    /// An RNG that replays fixed words, to drive the rejection branch deterministically.
    struct Replay(Vec<u32>);
    impl rand_core::TryRng for Replay {
        type Error = core::convert::Infallible;
        fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
            Ok(self.0.remove(0))
        }
        fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
            unreachable!()
        }
        fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), Self::Error> {
            unreachable!()
        }
    }

    #[test]
    fn uniform_below_rejects_the_biased_low_values() {
        // n = 3: 2^32 mod 3 = 1, so the word whose product has low part 0 is rejected.
        let mut rng = Replay(vec![0, u32::MAX]);
        assert_eq!(uniform_below(&mut rng, 3), 2);
        assert!(rng.0.is_empty(), "the first word must have been rejected");
    }

    #[test]
    fn rule_9_1_rng_draw_is_20_distinct_board_numbers() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        for _ in 0..1000 {
            let draw = draw_numbers(&mut rng);
            assert_eq!(draw.set().len(), 20);
            assert!(draw.in_order().iter().all(|n| (1..=80).contains(n)));
        }
    }

    #[test]
    fn every_number_is_drawn_about_a_quarter_of_the_time() {
        let mut rng = ChaCha20Rng::seed_from_u64(2);
        let mut hits = [0u32; 81];
        let games = 20_000;
        for _ in 0..games {
            for &n in draw_numbers(&mut rng).in_order() {
                hits[n as usize] += 1;
            }
        }
        // Expected 5,000 each, sd about 61: allow 6 sd.
        for (n, &h) in hits.iter().enumerate().skip(1) {
            assert!((4_630..=5_370).contains(&h), "number {n} drawn {h} times");
        }
    }

    #[test]
    fn rule_10_3_a_draw_continues_from_the_numbers_already_drawn() {
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        let first = NumberSet::from_numbers(&[1, 2, 3, 80]).unwrap();
        let mut drawn = first;
        for _ in 4..20 {
            let n = draw_next(&mut rng, drawn);
            assert!(!drawn.contains(n) && (1..=80).contains(&n));
            drawn = drawn.union(NumberSet::from_numbers(&[n]).unwrap());
        }
        assert_eq!(drawn.len(), 20);
        assert_eq!(drawn.count_common(first), 4);
    }

    #[test]
    fn draw_next_is_uniform_over_the_numbers_left() {
        // Nineteen numbers drawn: the twentieth is one of the 61 left, each equally likely.
        let mut rng = ChaCha20Rng::seed_from_u64(6);
        let drawn = NumberSet::from_numbers(&(1..=19).collect::<Vec<u8>>()).unwrap();
        let mut hits = [0u32; 81];
        for _ in 0..61_000 {
            hits[draw_next(&mut rng, drawn) as usize] += 1;
        }
        assert!(hits[1..=19].iter().all(|&h| h == 0));
        // Expected 1,000 each; sd about 31.4: allow 6 sd.
        assert!(
            hits[20..].iter().all(|&h| (811..=1_189).contains(&h)),
            "{hits:?}"
        );
    }

    #[test]
    fn rule_6_3_b_quick_pick_is_count_distinct_numbers() {
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        for count in 1..=15 {
            assert_eq!(quick_pick(&mut rng, count).unwrap().spots(), count);
        }
        assert_eq!(
            quick_pick(&mut rng, 0),
            Err(SelectionError::QuickPickCount { count: 0 })
        );
        assert_eq!(
            quick_pick(&mut rng, 16),
            Err(SelectionError::QuickPickCount { count: 16 })
        );
    }

    #[test]
    fn rule_6_3_h_a_shaped_pick_fills_each_group_with_distinct_numbers() {
        let mut rng = ChaCha20Rng::seed_from_u64(8);
        let sizes = [3u8, 3, 1, 5];
        let mut hits = [0u32; 81];
        for _ in 0..8_000 {
            let groups = shaped_pick(&mut rng, &sizes).unwrap();
            let got: Vec<u8> = groups.iter().map(|g| g.len()).collect();
            assert_eq!(got, sizes);
            let all = groups.iter().fold(NumberSet::EMPTY, |acc, &g| acc.union(g));
            assert_eq!(all.len(), 12, "numbers are distinct across groups");
            for n in all.numbers() {
                hits[n as usize] += 1;
            }
        }
        // Each number is in 12/80 of the picks: 1,200 expected, sd about 32: allow 6 sd.
        assert!(
            hits[1..].iter().all(|&h| (1_005..=1_395).contains(&h)),
            "{hits:?}"
        );
        // The whole board fills; one more number does not fit.
        let board = shaped_pick(&mut rng, &[40, 40]).unwrap();
        assert_eq!(board[0].union(board[1]).len(), 80);
        assert_eq!(
            shaped_pick(&mut rng, &[40, 41]),
            Err(SelectionError::TooManyNumbers { count: 81 })
        );
        // A group too large for a way is the plan's to refuse, not the pick's.
        assert_eq!(shaped_pick(&mut rng, &[20]).unwrap()[0].len(), 20);
    }

    #[test]
    fn rule_6_3_c_mystery_spots_stay_in_the_configured_range() {
        let mut rng = ChaCha20Rng::seed_from_u64(4);
        let mut seen = [false; 16];
        for _ in 0..2_000 {
            let n = mystery_spots(&mut rng, (3, 10));
            assert!((3..=10).contains(&n));
            seen[n as usize] = true;
        }
        assert!(seen[3..=10].iter().all(|&s| s));
    }
}
