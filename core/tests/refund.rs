//! The refund of one invalidated game of a ticket (rule 17.3, general rule 18.2): the games'
//! refunds add up to exactly what the ticket was charged.

use keno_core::game_refund;
use proptest::prelude::*;

fn refunds(total: u64, games: u32) -> Vec<u64> {
    (0..games).map(|i| game_refund(total, games, i)).collect()
}

#[test]
fn an_even_total_is_shared_evenly() {
    assert_eq!(refunds(1_000, 5), vec![200; 5]);
    assert_eq!(refunds(300, 1), vec![300]);
}

#[test]
fn the_last_game_takes_the_cents_left_over() {
    // $10.00 over 3 games: $3.33, $3.33, $3.34 (it was $3.33 each: $9.99 refunded of $10.00).
    assert_eq!(refunds(1_000, 3), vec![333, 333, 334]);
    assert_eq!(refunds(1_006, 4), vec![251, 251, 251, 253]);
    assert_eq!(refunds(2, 3), vec![0, 0, 2]);
}

#[test]
fn a_keno_to_go_discount_is_shared_by_every_game() {
    // 51 games at $1.00, charged for 50 (rule 6.2(a)): $0.98 a game, the last $1.00.
    let r = refunds(5_000, 51);
    assert_eq!(r[..50], vec![98; 50][..]);
    assert_eq!(r[50], 100);
    assert_eq!(r.iter().sum::<u64>(), 5_000);
    // 100 games at $3.00, charged for 98 (6.2(b)): $2.94 each.
    assert_eq!(refunds(29_400, 100), vec![294; 100]);
}

#[test]
fn no_games_is_one_game_and_a_game_beyond_the_ticket_refunds_nothing() {
    assert_eq!(game_refund(500, 0, 0), 500);
    assert_eq!(game_refund(500, 0, 1), 0);
    assert_eq!(game_refund(500, 2, 2), 0);
    assert_eq!(game_refund(500, 2, u32::MAX), 0);
}

#[test]
fn the_split_adds_up_for_every_small_ticket() {
    for total in 0..=2_000u64 {
        for games in 1..=120u32 {
            let r = refunds(total, games);
            assert_eq!(r.iter().sum::<u64>(), total, "{total} over {games}");
            // No game gets less than the even share rounded down, nor more than the share plus
            // what is left over.
            let share = total / u64::from(games);
            assert!(r
                .iter()
                .all(|&g| g >= share && g < share + u64::from(games)));
        }
    }
}

proptest! {
    #[test]
    fn the_games_refunds_add_up_to_the_total(total in 0u64..=u64::MAX / 2, games in 1u32..=2_000) {
        let r = refunds(total, games);
        prop_assert_eq!(r.iter().sum::<u64>(), total);
        let share = total / u64::from(games);
        prop_assert!(r[..r.len() - 1].iter().all(|&g| g == share));
    }

    #[test]
    fn any_games_invalidated_refund_at_most_the_total(
        total in 0u64..1_000_000,
        games in 1u32..1_000,
        picks in proptest::collection::btree_set(0u32..1_000, 0..20),
    ) {
        let part: u64 = picks.iter().filter(|&&i| i < games).map(|&i| game_refund(total, games, i)).sum();
        prop_assert!(part <= total);
    }
}
