//! Major prizes (rule 1(h)) and bonus wins (rule 6.3(e)).

use keno_core::{is_major_prize, wins_bonus, BetKind, BonusTerms, RuleSet, WayPlayed};

#[test]
fn rule_1_h_a_major_prize_is_200_dollars_or_more() {
    let major = RuleSet::act_1992().caps().major_prize_cents;
    assert_eq!(major, 20_000);
    assert!(!is_major_prize(19_999, major));
    assert!(is_major_prize(20_000, major));
    assert!(is_major_prize(5_000_000, major));
    assert!(!is_major_prize(0, major));
}

fn terms() -> BonusTerms {
    BonusTerms {
        bet_kind: Some(BetKind::QuickPick),
        spots: Some(10),
        min_amount_per_way_cents: 200,
        catch: 0,
    }
}

fn way() -> WayPlayed {
    WayPlayed {
        bet_kind: BetKind::QuickPick,
        spots: 10,
        amount_per_way_cents: 200,
        catch: 0,
    }
}

#[test]
fn rule_6_3_e_a_bonus_is_won_by_its_type_spots_wager_and_catch() {
    assert!(wins_bonus(&terms(), &way()));
    // More than the minimum wager wins too.
    assert!(wins_bonus(
        &terms(),
        &WayPlayed {
            amount_per_way_cents: 1_000,
            ..way()
        }
    ));
    for other in [
        WayPlayed {
            bet_kind: BetKind::Standard,
            ..way()
        },
        WayPlayed { spots: 9, ..way() },
        WayPlayed {
            amount_per_way_cents: 199,
            ..way()
        },
        WayPlayed { catch: 1, ..way() },
    ] {
        assert!(!wins_bonus(&terms(), &other), "{other:?}");
    }
}

#[test]
fn rule_6_3_e_a_bonus_for_any_type_or_any_spots() {
    let any = BonusTerms {
        bet_kind: None,
        spots: None,
        min_amount_per_way_cents: 0,
        catch: 4,
    };
    for kind in [BetKind::Standard, BetKind::Way, BetKind::SetBet] {
        for spots in 4..=15 {
            let w = WayPlayed {
                bet_kind: kind,
                spots,
                amount_per_way_cents: 10,
                catch: 4,
            };
            assert!(wins_bonus(&any, &w));
            assert!(!wins_bonus(&any, &WayPlayed { catch: 3, ..w }));
        }
    }
}
