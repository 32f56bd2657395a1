//! Settling whole games: prizes, caps, pro-rating and jackpot pools (rules 7, 11, 12, 18).

use keno_core::{
    Draw, GameSettlement, JackpotPools, NumberSet, RuleSet, ScheduleId, SettleError, WayInPlay,
};

/// The draw 1..=20: a way's catch is how many of its numbers are 20 or under.
fn draw() -> Draw {
    Draw::new(&(1..=20).collect::<Vec<u8>>()).unwrap()
}

/// A way of `spots` numbers catching `catch` of them against [`draw`].
fn way(spots: u8, catch: u8, schedule: ScheduleId, amount: u64) -> WayInPlay {
    assert!(catch <= spots);
    let caught = 1..=catch;
    let missed = 41..=40 + (spots - catch);
    let numbers: Vec<u8> = caught.chain(missed).collect();
    WayInPlay {
        numbers: NumberSet::from_numbers(&numbers).unwrap(),
        plays_under: schedule,
        amount_per_way_cents: amount,
    }
}

fn settle(ways: &[WayInPlay]) -> GameSettlement {
    let rules = RuleSet::act_1992();
    rules
        .settle_game(&draw(), ways, &JackpotPools::initial(&rules))
        .unwrap()
}

use ScheduleId::{Jackpot, Special1, Special2, Standard};

#[test]
fn rule_18_prize_is_the_schedule_amount_scaled_by_the_wager() {
    let s = settle(&[
        way(4, 4, Standard, 100),  // $112
        way(4, 4, Standard, 300),  // $336
        way(4, 3, Standard, 50),   // $4 at 50c: $2.00
        way(5, 3, Standard, 30),   // $2 at 30c: $0.60
        way(3, 2, Standard, 10),   // $1 at 10c: $0.10
        way(2, 1, Standard, 100),  // nothing
        way(11, 0, Standard, 100), // 18.1: 11 spots catching none pays $4
    ]);
    let prizes: Vec<u64> = s.ways.iter().map(|w| w.prize_cents).collect();
    assert_eq!(prizes, vec![11_200, 33_600, 200, 60, 10, 0, 400]);
    let catches: Vec<u8> = s.ways.iter().map(|w| w.catch).collect();
    assert_eq!(catches, vec![4, 4, 3, 3, 2, 1, 0]);
    assert_eq!(s.total_prizes_cents, prizes.iter().sum::<u64>());
    assert!(s.prorating.is_none());
}

#[test]
fn rule_18_prizes_are_rounded_down_to_the_cent() {
    // The built-in schedules are whole dollars at a $1 base, so they never round; an operator's
    // schedule with a $3 base does: Special 2, 3 of 3 pays $53 per $3; at $1 that is $17.666...
    let text = keno_core::rules::ACT_1992_TOML.replace(
        "[schedules.special2]\nbase_wager_cents = 100",
        "[schedules.special2]\nbase_wager_cents = 300",
    );
    let rules = RuleSet::from_toml_str(&text).unwrap();
    assert_eq!(rules.prize_table().base_wager_cents(Special2), 300);
    let s = rules
        .settle_game(
            &draw(),
            &[way(3, 3, Special2, 100), way(3, 3, Special2, 200)],
            &JackpotPools::initial(&rules),
        )
        .unwrap();
    assert_eq!(s.ways[0].prize_cents, 1_766);
    assert_eq!(s.ways[1].prize_cents, 3_533);
}

#[test]
fn rule_12_1_no_way_pays_more_than_50000_dollars() {
    // 15 of 15 pays $50,000 per $1; at $3 it would be $150,000.
    let s = settle(&[way(15, 15, Standard, 300)]);
    assert_eq!(s.ways[0].prize_cents, 5_000_000);
    assert!(!s.ways[0].prorated);
}

#[test]
fn rule_12_3_to_12_5_major_prizes_pro_rated_to_50000_dollars() {
    // Two 10-of-10 wins at $2 ($50,000 each) and one 7/7 at $1 ($5,000): $105,000 of majors.
    // Under the limit of $50,000 each gets 50/105 of its prize. Small wins are untouched.
    let s = settle(&[
        way(10, 10, Standard, 200),
        way(10, 10, Standard, 200),
        way(7, 7, Standard, 100),
        way(4, 4, Standard, 100), // $112: not a major prize
        way(9, 7, Standard, 100), // $200 exactly: a major prize (rule 1(h))
    ]);
    let p = s.prorating.as_ref().expect("pro-rated");
    assert_eq!(p.major_prizes, 4);
    assert_eq!(p.before_cents, 5_000_000 + 5_000_000 + 500_000 + 20_000);
    assert!(p.after_cents <= 5_000_000);
    let prizes: Vec<u64> = s.ways.iter().map(|w| w.prize_cents).collect();
    // The $200 prize cannot be reduced (12.4); the rest share $49,800 in proportion.
    // 5,000,000 * 4,980,000 / 10,500,000 = 2,371,428.57 -> 2,371,428
    // 500,000 * 4,980,000 / 10,500,000 = 237,142.85 -> 237,142
    assert_eq!(prizes, vec![2_371_428, 2_371_428, 237_142, 11_200, 20_000]);
    let flags: Vec<bool> = s.ways.iter().map(|w| w.prorated).collect();
    assert_eq!(flags, vec![true, true, true, false, false]);
}

#[test]
fn rule_12_4_prevails_when_the_floor_binds_for_all() {
    // 300 ways each catching 7 of 9 ($200 at $1... at $2 it is $400): 300 major prizes of $400 =
    // $120,000. 300 x $200 = $60,000 > $50,000: every major prize is held at $200.
    let ways = vec![way(9, 7, Standard, 200); 300];
    let s = settle(&ways);
    let p = s.prorating.unwrap();
    assert!(p.floor_binds_for_all);
    assert!(s.ways.iter().all(|w| w.prize_cents == 20_000 && w.prorated));
    assert_eq!(s.total_prizes_cents, 6_000_000);
}

#[test]
fn rule_12_3_prorating_needs_every_way_of_the_game() {
    // The same winning way is pro-rated or not depending on the other tickets in the game.
    let alone = settle(&[way(10, 10, Standard, 200)]);
    assert_eq!(alone.ways[0].prize_cents, 5_000_000);
    let crowded = settle(&[way(10, 10, Standard, 200), way(10, 10, Standard, 100)]);
    assert_eq!(crowded.ways[0].prize_cents, 3_333_333);
    assert_eq!(crowded.ways[1].prize_cents, 1_666_666);
}

#[test]
fn rule_12_6_sole_jackpot_winner_takes_the_pool_with_this_games_contributions() {
    // Carried in: $2,000 (6 spots). This game's 6-spot jackpot wagers: $2 + $5 + $3 = $10;
    // 20% = $2.00 into the pool. The winner at $5 takes $2,002 whatever the others wagered.
    let s = settle(&[
        way(6, 6, Jackpot, 500),
        way(6, 2, Jackpot, 200),
        way(6, 5, Jackpot, 300), // catch 5: $100 per $2 -> $150
    ]);
    assert!(s.ways[0].jackpot);
    assert_eq!(s.ways[0].prize_cents, 200_200);
    assert_eq!(s.ways[2].prize_cents, 15_000);
    assert!(!s.ways[2].jackpot);
    let six = &s.jackpots[0];
    assert_eq!(six.spots, 6);
    assert_eq!(
        (
            six.carried_in_cents,
            six.contributions_cents,
            six.pool_cents
        ),
        (200_000, 200, 200_200)
    );
    assert_eq!(
        (six.winners, six.paid_cents, six.breakage_cents),
        (1, 200_200, 0)
    );
    // Rule 7.2: once won, the next game's pool starts at the guaranteed minimum.
    assert_eq!(six.next_pool_cents, 200_000);
    // The 8-spot pool was not won: it carries over unchanged (no 8-spot wagers this game).
    assert_eq!(s.jackpots[1].next_pool_cents, 2_000_000);
    assert_eq!(s.next_pools().carried(&RuleSet::act_1992(), 8), 2_000_000);
}

#[test]
fn rule_12_6_several_jackpot_winners_share_in_proportion_to_wager() {
    let rules = RuleSet::act_1992();
    let carried = JackpotPools([(8, 3_000_000)].into_iter().collect());
    // Two 8/8 winners at $2 and $4. Contributions: 20% of $6 = $1.20. Pool $30,001.20.
    let ways = [way(8, 8, Jackpot, 200), way(8, 8, Jackpot, 400)];
    let s = rules.settle_game(&draw(), &ways, &carried).unwrap();
    let eight = &s.jackpots[1];
    assert_eq!(eight.pool_cents, 3_000_120);
    assert_eq!(s.ways[0].prize_cents, 1_000_040);
    assert_eq!(s.ways[1].prize_cents, 2_000_080);
    assert_eq!(eight.breakage_cents, 0);
    assert_eq!(eight.next_pool_cents, 2_000_000);
}

#[test]
fn rule_12_1_and_12_3_jackpot_wins_are_outside_both_caps() {
    // A $60,000 pool won alongside $100,000 of other major prizes: the jackpot is paid whole
    // and is not among the major prizes pro-rated.
    let rules = RuleSet::act_1992();
    let carried = JackpotPools([(6, 6_000_000)].into_iter().collect());
    let ways = [
        way(6, 6, Jackpot, 200),
        way(10, 10, Standard, 200),
        way(10, 10, Standard, 200),
    ];
    let s = rules.settle_game(&draw(), &ways, &carried).unwrap();
    assert_eq!(s.ways[0].prize_cents, 6_000_040);
    assert!(!s.ways[0].prorated);
    assert_eq!(s.prorating.as_ref().unwrap().major_prizes, 2);
    assert_eq!(s.ways[1].prize_cents, 2_500_000);
}

#[test]
fn rule_12_7_jackpot_lower_catches_are_pro_rated() {
    // 8-spot jackpot catching 7 pays $1,000 per $2; at $100 that is $50,000 (a major prize).
    let s = settle(&[way(8, 7, Jackpot, 10_000), way(10, 10, Standard, 200)]);
    assert_eq!(s.prorating.as_ref().unwrap().major_prizes, 2);
    assert_eq!(s.ways[0].prize_cents, 2_500_000);
    assert!(s.ways[0].prorated && !s.ways[0].jackpot);
}

#[test]
fn rule_7_3_pool_grows_by_20_percent_rounded_down_per_way() {
    let rules = RuleSet::act_1992();
    // Three $3 ways and a $7 way, no winner: 60 + 60 + 60 + 140 = 320 cents.
    let ways = [
        way(8, 0, Jackpot, 300),
        way(8, 1, Jackpot, 300),
        way(8, 2, Jackpot, 300),
        way(8, 3, Jackpot, 700),
    ];
    let s = rules
        .settle_game(&draw(), &ways, &JackpotPools::initial(&rules))
        .unwrap();
    assert_eq!(s.jackpots[1].contributions_cents, 320);
    assert_eq!(s.jackpots[1].next_pool_cents, 2_000_320);
    assert_eq!(s.total_prizes_cents, 0);
    // A non-jackpot 8-spot way adds nothing to the pool.
    let s = rules
        .settle_game(
            &draw(),
            &[way(8, 0, Special1, 300)],
            &JackpotPools::initial(&rules),
        )
        .unwrap();
    assert_eq!(s.jackpots[1].contributions_cents, 0);
}

#[test]
fn ways_that_cannot_be_settled_under_the_rule_set_are_an_error_not_a_silent_zero() {
    let rules = RuleSet::act_1992();
    let pools = JackpotPools::initial(&rules);
    // A standard 6-spot way must have been sold as Special 1.
    let err = rules
        .settle_game(&draw(), &[way(6, 6, Standard, 100)], &pools)
        .unwrap_err();
    assert_eq!(
        err,
        SettleError::NotPlayable {
            index: 0,
            schedule: Standard,
            spots: 6
        }
    );
    let err = rules
        .settle_game(&draw(), &[way(3, 3, Standard, 0)], &pools)
        .unwrap_err();
    assert_eq!(
        err,
        SettleError::Wager {
            index: 0,
            amount: 0
        }
    );
}

#[test]
fn a_ways_outcome_does_not_depend_on_its_place_in_the_game() {
    // Pro-rating and jackpot sharing see the whole game: shuffling the ways must give every
    // way the same outcome.
    let ways: Vec<WayInPlay> = vec![
        way(10, 10, Standard, 200),
        way(6, 6, Jackpot, 300),
        way(9, 7, Standard, 100),
        way(7, 7, Standard, 100),
        way(6, 6, Jackpot, 200),
        way(4, 2, Standard, 100),
        way(10, 10, Standard, 100),
    ];
    let forward = settle(&ways);
    let mut reversed = ways.clone();
    reversed.reverse();
    let mut backward = settle(&reversed).ways;
    backward.reverse();
    assert_eq!(forward.ways, backward);
    assert!(forward.prorating.is_some());
    assert_eq!(
        forward.ways[1].prize_cents + forward.ways[4].prize_cents,
        forward.jackpots[0].paid_cents
    );
}

#[test]
fn rule_12_1_cap_applies_before_pro_rating() {
    // 15 of 15 at $3 would be $150,000, capped to $50,000; with a 10 of 10 at $2 ($50,000) the
    // majors total $100,000 and each gets half. Pro-rating the uncapped amounts would have given
    // $37,500 and $12,500.
    let s = settle(&[way(15, 15, Standard, 300), way(10, 10, Standard, 200)]);
    assert_eq!(s.ways[0].prize_cents, 2_500_000);
    assert_eq!(s.ways[1].prize_cents, 2_500_000);
    assert_eq!(s.prorating.unwrap().before_cents, 10_000_000);
}

#[test]
fn rule_12_4_exactly_250_major_prizes_are_200_each_within_the_limit() {
    let s = settle(&vec![way(9, 7, Standard, 200); 250]);
    let p = s.prorating.unwrap();
    assert!(!p.floor_binds_for_all);
    assert_eq!(p.after_cents, 5_000_000);
    assert!(s.ways.iter().all(|w| w.prize_cents == 20_000));
}

#[test]
fn schedule_outcome_is_the_settled_prize_of_every_minor_way() {
    let rules = RuleSet::act_1992();
    let ways: Vec<WayInPlay> = (1..=15u8)
        .filter(|s| *s != 6 && *s != 8)
        .flat_map(|s| (0..=s).map(move |c| way(s, c, Standard, 300)))
        .collect();
    let settled = settle(&ways);
    for (w, o) in ways.iter().zip(&settled.ways) {
        let alone = rules.schedule_outcome(&draw(), w).unwrap();
        assert_eq!(alone.catch, o.catch);
        if !o.prorated {
            assert_eq!(alone.prize_cents, o.prize_cents);
        }
    }
    let jackpot = rules
        .schedule_outcome(&draw(), &way(6, 6, Jackpot, 200))
        .unwrap();
    assert!(jackpot.jackpot && jackpot.prize_cents == 0);
}

/// Rule 6.3(e) as decided: a bonus won on a way is part of its prize, so the per-way cap (12.1),
/// the major-prize test (1(h)) and pro-rating (12.3-12.5) all see the sum.
#[test]
fn a_bonus_is_inside_the_per_way_cap_the_major_test_and_pro_rating() {
    let rules = RuleSet::act_1992();
    let pools = JackpotPools::initial(&rules);
    let settle_with = |ways: &[WayInPlay], bonus: u64| {
        rules
            .settle_game_with_bonuses(
                &draw(),
                ways,
                &pools,
                |_, catch| {
                    if catch == 1 {
                        bonus
                    } else {
                        0
                    }
                },
            )
            .unwrap()
    };
    // $3 for 1 of 1 and a $49,999 bonus: $50,002, capped at $50,000 a way (12.1).
    let one = settle_with(&[way(1, 1, Standard, 100)], 4_999_900);
    assert_eq!(one.ways[0].prize_cents, 5_000_000);
    assert!(one.prorating.is_none());
    // $3 and a $198 bonus: $201, a major prize (1(h)) though neither part is one alone.
    let small = settle_with(
        &[way(1, 1, Standard, 100), way(1, 1, Standard, 100)],
        19_800,
    );
    assert_eq!(small.ways[0].prize_cents, 20_100);
    assert!(small.prorating.is_none(), "$402 is within the game's limit");
    // Two ways of $30,003 and one of $30,006: $90,012 of majors over the game's $50,000, shared
    // in proportion to each way's schedule prize plus bonus (12.5), rounded down to the cent.
    let ways = [
        way(1, 1, Standard, 100),
        way(1, 1, Standard, 100),
        way(1, 1, Standard, 200),
        way(1, 0, Standard, 100),
    ];
    let s = settle_with(&ways, 3_000_000);
    let before = [3_000_300u64, 3_000_300, 3_000_600];
    let total: u64 = before.iter().sum();
    let expected: Vec<u64> = before.iter().map(|p| p * 5_000_000 / total).collect();
    let got: Vec<u64> = s.ways[..3].iter().map(|w| w.prize_cents).collect();
    assert_eq!(got, expected);
    assert!(s.ways[..3].iter().all(|w| w.prorated));
    assert_eq!(
        s.ways[3].prize_cents, 0,
        "a way that misses wins no bonus here"
    );
    let p = s.prorating.expect("pro-rated");
    assert_eq!((p.major_prizes, p.before_cents), (3, total));
    assert!(s.total_prizes_cents <= 5_000_000);
    // With no bonus the same ways are minor prizes and nothing is pro-rated.
    assert!(settle(&ways).prorating.is_none());
}
