//! Pro-rating of a game's major prizes (rules 12.3, 12.4, 12.5).

/// How a game's major prizes were reduced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProRated {
    /// The prizes after pro-rating, in the order given.
    pub amounts: Vec<u64>,
    /// Every major prize is held at the floor because even that exceeds the limit (12.4
    /// prevails over 12.3).
    pub floor_binds_for_all: bool,
}

/// Reduces major prizes whose total exceeds `limit`.
///
/// - rule 12.3: the major prizes of a game add up to at most `limit`, unless 12.4 forbids it
///   (more than `limit / floor` major prizes: each is then held at the floor);
/// - rule 12.4: no major prize is reduced below `floor`; prizes that would fall under it are
///   held at it and the others share what remains;
/// - rule 12.5: each share is in proportion to what the prize would have been, rounded down
///   to the cent (the rounding never takes the total over the limit).
///
/// `prizes` are the major prizes after the per-way cap (12.1), each at least `floor`. When the
/// total is within the limit nothing changes.
pub fn prorate(prizes: &[u64], limit: u64, floor: u64) -> ProRated {
    let total: u128 = prizes.iter().map(|&p| u128::from(p)).sum();
    if total <= u128::from(limit) {
        return ProRated {
            amounts: prizes.to_vec(),
            floor_binds_for_all: false,
        };
    }
    let n = prizes.len() as u128;
    if n * u128::from(floor) > u128::from(limit) {
        return ProRated {
            amounts: vec![floor; prizes.len()],
            floor_binds_for_all: true,
        };
    }

    // The prizes held at the floor are the smallest ones: proportional shares keep the order.
    // Holding one at the floor lowers everyone else's share, so walk up from the smallest until
    // the smallest remaining prize's share reaches the floor.
    let mut order: Vec<usize> = (0..prizes.len()).collect();
    order.sort_by_key(|&i| prizes[i]);
    let mut held = 0usize;
    let mut rest_total = total;
    let share = |p: u64, held: usize, rest_total: u128| -> u128 {
        let remaining = u128::from(limit) - held as u128 * u128::from(floor);
        u128::from(p) * remaining / rest_total
    };
    while held < order.len() && share(prizes[order[held]], held, rest_total) < u128::from(floor) {
        rest_total -= u128::from(prizes[order[held]]);
        held += 1;
    }
    let mut amounts = vec![floor; prizes.len()];
    for &i in &order[held..] {
        amounts[i] = share(prizes[i], held, rest_total) as u64;
    }
    ProRated {
        amounts,
        floor_binds_for_all: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const LIMIT: u64 = 5_000_000;
    const FLOOR: u64 = 20_000;

    #[test]
    fn rule_12_3_no_change_within_the_limit() {
        let p = prorate(&[2_500_000, 2_500_000], LIMIT, FLOOR);
        assert_eq!(p.amounts, vec![2_500_000, 2_500_000]);
        assert!(!p.floor_binds_for_all);
    }

    #[test]
    fn rule_12_5_shares_in_proportion_to_what_would_have_been_won() {
        // $50,000 + $25,000 + $25,000 = $100,000: everyone gets half.
        let p = prorate(&[5_000_000, 2_500_000, 2_500_000], LIMIT, FLOOR);
        assert_eq!(p.amounts, vec![2_500_000, 1_250_000, 1_250_000]);
    }

    #[test]
    fn rule_12_4_prizes_held_at_200_and_the_rest_share_the_remainder() {
        // Two $50,000 wins and one $250 win: halving would take the $250 to $125, so it is held
        // at $200 and the two big ones share $49,800.
        let p = prorate(&[5_000_000, 25_000, 5_000_000], LIMIT, FLOOR);
        assert_eq!(p.amounts, vec![2_490_000, 20_000, 2_490_000]);
        assert_eq!(p.amounts.iter().sum::<u64>(), LIMIT);
    }

    #[test]
    fn rule_12_4_prevails_when_200_each_exceeds_the_limit() {
        let prizes = vec![30_000u64; 251];
        let p = prorate(&prizes, LIMIT, FLOOR);
        assert!(p.floor_binds_for_all);
        assert_eq!(p.amounts, vec![FLOOR; 251]);
        assert!(p.amounts.iter().sum::<u64>() > LIMIT);
    }

    #[test]
    fn exactly_250_major_prizes_fit_the_limit_at_200_each_without_the_exception() {
        let p = prorate(&[30_000u64; 250], LIMIT, FLOOR);
        assert!(!p.floor_binds_for_all);
        assert_eq!(p.amounts, vec![FLOOR; 250]);
        assert_eq!(p.amounts.iter().sum::<u64>(), LIMIT);
    }

    #[test]
    fn rounding_is_down_to_the_cent() {
        // Three equal prizes of $20,000 against $50,000: $16,666.66 each (2 cents kept).
        let p = prorate(&[2_000_000; 3], LIMIT, FLOOR);
        assert_eq!(p.amounts, vec![1_666_666; 3]);
    }

    fn majors() -> impl Strategy<Value = Vec<u64>> {
        prop::collection::vec(FLOOR..=LIMIT, 0..400)
    }

    proptest! {
        #[test]
        fn never_over_the_limit_unless_the_floor_binds_for_all(prizes in majors()) {
            let p = prorate(&prizes, LIMIT, FLOOR);
            let sum: u64 = p.amounts.iter().sum();
            if p.floor_binds_for_all {
                prop_assert!(prizes.len() as u64 * FLOOR > LIMIT);
                prop_assert!(p.amounts.iter().all(|&a| a == FLOOR));
            } else {
                prop_assert!(sum <= LIMIT);
            }
        }

        #[test]
        fn nobody_below_the_floor_and_nobody_raised(prizes in majors()) {
            let p = prorate(&prizes, LIMIT, FLOOR);
            for (&before, &after) in prizes.iter().zip(&p.amounts) {
                prop_assert!(after >= FLOOR);
                prop_assert!(after <= before);
            }
        }

        #[test]
        fn order_of_prizes_is_preserved(prizes in majors()) {
            let p = prorate(&prizes, LIMIT, FLOOR);
            for i in 0..prizes.len() {
                for j in 0..prizes.len() {
                    if prizes[i] <= prizes[j] {
                        prop_assert!(p.amounts[i] <= p.amounts[j]);
                    }
                }
            }
        }

        #[test]
        fn no_change_when_under_the_limit(prizes in prop::collection::vec(FLOOR..=LIMIT, 0..10)) {
            prop_assume!(prizes.iter().sum::<u64>() <= LIMIT);
            prop_assert_eq!(prorate(&prizes, LIMIT, FLOOR).amounts, prizes);
        }

        #[test]
        fn deterministic_and_independent_of_order(mut prizes in majors()) {
            let a = prorate(&prizes, LIMIT, FLOOR);
            prop_assert_eq!(&a, &prorate(&prizes, LIMIT, FLOOR));
            // Reversing the input reverses the output: no prize's share depends on its place.
            prizes.reverse();
            let mut b = prorate(&prizes, LIMIT, FLOOR).amounts;
            b.reverse();
            prop_assert_eq!(a.amounts, b);
        }

        #[test]
        fn the_limit_is_nearly_used_when_pro_rating(prizes in majors()) {
            // Rounding down loses less than a cent per prize.
            prop_assume!(prizes.iter().sum::<u64>() > LIMIT && (prizes.len() as u64) * FLOOR <= LIMIT);
            let sum: u64 = prorate(&prizes, LIMIT, FLOOR).amounts.iter().sum();
            prop_assert!(sum + prizes.len() as u64 >= LIMIT, "sum {} for {} prizes", sum, prizes.len());
        }
    }
}
