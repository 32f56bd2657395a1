//! The board of 80 numbers, sets of numbers on it, and a game's draw.
//!
//! A set of numbers is a bit set in a `u128` (bit `n` for number `n`), so that the catch of a
//! way is one AND and one popcount.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::SelectionError;

/// The lowest number on the board (rule 3.2).
pub const FIRST_NUMBER: u8 = 1;
/// The highest number on the board (rule 3.2).
pub const LAST_NUMBER: u8 = 80;
/// How many numbers a game draws (rule 9.1).
pub const NUMBERS_DRAWN: usize = 20;
/// The most spots one selection or way may have (rule 1(l)).
pub const MAX_SPOTS: u8 = 15;

/// Numbers 1..=80 in a set, as bits 1..=80 of a `u128`.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NumberSet(u128);

const BOARD_MASK: u128 = ((1u128 << 81) - 1) & !1;

impl NumberSet {
    pub const EMPTY: NumberSet = NumberSet(0);

    /// Builds a set from numbers, refusing any outside 1..=80 or repeated (rule 3.2).
    pub fn from_numbers(numbers: &[u8]) -> Result<NumberSet, SelectionError> {
        let mut set = 0u128;
        for &n in numbers {
            if !(FIRST_NUMBER..=LAST_NUMBER).contains(&n) {
                return Err(SelectionError::NumberOutOfRange { number: n });
            }
            let bit = 1u128 << n;
            if set & bit != 0 {
                return Err(SelectionError::DuplicateNumber { number: n });
            }
            set |= bit;
        }
        Ok(NumberSet(set))
    }

    /// The raw bits (bit `n` = number `n`), e.g. for storage.
    pub fn bits(self) -> u128 {
        self.0
    }

    /// Rebuilds a set from [`NumberSet::bits`]; `None` if a bit outside 1..=80 is set.
    pub fn from_bits(bits: u128) -> Option<NumberSet> {
        (bits & !BOARD_MASK == 0).then_some(NumberSet(bits))
    }

    pub fn len(self) -> u8 {
        self.0.count_ones() as u8
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn contains(self, n: u8) -> bool {
        n < 128 && self.0 & (1u128 << n) != 0
    }

    pub fn union(self, other: NumberSet) -> NumberSet {
        NumberSet(self.0 | other.0)
    }

    pub fn intersects(self, other: NumberSet) -> bool {
        self.0 & other.0 != 0
    }

    /// How many of this set's numbers are in `other`: the catch when `other` is the draw.
    #[inline]
    pub fn count_common(self, other: NumberSet) -> u8 {
        (self.0 & other.0).count_ones() as u8
    }

    /// The numbers in ascending order.
    pub fn numbers(self) -> impl Iterator<Item = u8> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let n = bits.trailing_zeros() as u8;
            bits &= bits - 1;
            Some(n)
        })
    }

    pub fn to_vec(self) -> Vec<u8> {
        self.numbers().collect()
    }
}

impl fmt::Debug for NumberSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.numbers()).finish()
    }
}

impl Serialize for NumberSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.numbers())
    }
}

impl<'de> Deserialize<'de> for NumberSet {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let numbers = Vec::<u8>::deserialize(d)?;
        NumberSet::from_numbers(&numbers).map_err(serde::de::Error::custom)
    }
}

/// The 20 winning numbers of a game (rule 9.1), in the order they were drawn.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Draw {
    order: [u8; NUMBERS_DRAWN],
    set: NumberSet,
}

impl Draw {
    /// Accepts exactly 20 distinct numbers of 1..=80 (rule 9.1), in drawn order.
    pub fn new(numbers: &[u8]) -> Result<Draw, SelectionError> {
        if numbers.len() != NUMBERS_DRAWN {
            return Err(SelectionError::DrawSize {
                count: numbers.len(),
            });
        }
        let set = NumberSet::from_numbers(numbers)?;
        let mut order = [0u8; NUMBERS_DRAWN];
        order.copy_from_slice(numbers);
        Ok(Draw { order, set })
    }

    /// The numbers in the order they were drawn.
    pub fn in_order(&self) -> &[u8; NUMBERS_DRAWN] {
        &self.order
    }

    pub fn set(&self) -> NumberSet {
        self.set
    }

    /// The catch of a way: how many of its numbers were drawn (rule 11.1).
    #[inline]
    pub fn catch(&self, way: NumberSet) -> u8 {
        way.count_common(self.set)
    }
}

/// A player's pick of 1..=15 distinct numbers (rule 1(l)).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize)]
#[serde(transparent)]
pub struct Selection(NumberSet);

impl Selection {
    pub fn new(numbers: &[u8]) -> Result<Selection, SelectionError> {
        Selection::from_set(NumberSet::from_numbers(numbers)?)
    }

    pub fn from_set(set: NumberSet) -> Result<Selection, SelectionError> {
        match set.len() {
            0 => Err(SelectionError::NoNumbers),
            n if n > MAX_SPOTS => Err(SelectionError::TooManySpots { spots: n }),
            _ => Ok(Selection(set)),
        }
    }

    pub fn set(self) -> NumberSet {
        self.0
    }

    pub fn spots(self) -> u8 {
        self.0.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_3_2_board_is_1_to_80() {
        assert!(NumberSet::from_numbers(&[1, 80]).is_ok());
        assert_eq!(
            NumberSet::from_numbers(&[0]),
            Err(SelectionError::NumberOutOfRange { number: 0 })
        );
        assert_eq!(
            NumberSet::from_numbers(&[81]),
            Err(SelectionError::NumberOutOfRange { number: 81 })
        );
    }

    #[test]
    fn rule_1l_selection_is_1_to_15_distinct_numbers() {
        assert_eq!(Selection::new(&[]), Err(SelectionError::NoNumbers));
        assert_eq!(
            Selection::new(&[5, 5]),
            Err(SelectionError::DuplicateNumber { number: 5 })
        );
        let fifteen: Vec<u8> = (1..=15).collect();
        assert_eq!(Selection::new(&fifteen).unwrap().spots(), 15);
        let sixteen: Vec<u8> = (1..=16).collect();
        assert_eq!(
            Selection::new(&sixteen),
            Err(SelectionError::TooManySpots { spots: 16 })
        );
    }

    #[test]
    fn rule_9_1_a_draw_is_20_distinct_numbers_in_order() {
        let numbers: Vec<u8> = (61..=80).rev().collect();
        let draw = Draw::new(&numbers).unwrap();
        assert_eq!(draw.in_order()[0], 80);
        assert_eq!(draw.set().len(), 20);
        assert_eq!(
            Draw::new(&numbers[..19]),
            Err(SelectionError::DrawSize { count: 19 })
        );
        let mut dup = numbers.clone();
        dup[19] = 80;
        assert_eq!(
            Draw::new(&dup),
            Err(SelectionError::DuplicateNumber { number: 80 })
        );
    }

    #[test]
    fn catch_is_the_count_of_drawn_numbers_in_the_way() {
        let draw = Draw::new(&(1..=20).collect::<Vec<u8>>()).unwrap();
        let way = NumberSet::from_numbers(&[1, 2, 20, 21, 80]).unwrap();
        assert_eq!(draw.catch(way), 3);
    }

    #[test]
    fn bits_round_trip_and_reject_off_board_bits() {
        let set = NumberSet::from_numbers(&[1, 17, 64, 65, 80]).unwrap();
        assert_eq!(NumberSet::from_bits(set.bits()), Some(set));
        assert_eq!(set.to_vec(), vec![1, 17, 64, 65, 80]);
        assert_eq!(NumberSet::from_bits(1), None);
        assert_eq!(NumberSet::from_bits(1 << 81), None);
    }
}
