//! A rule-set file as an operator writes it (`keno-server rules check FILE`, `serve --rules`):
//! any bytes, read as UTF-8 TOML by `RuleSet::from_toml_str`. Refusing a file is fine; a panic
//! is not. A file that loads is then used as the server uses a loaded rule set: written back
//! (the server stores it as TOML and reloads it by hash to settle old games; `rules show
//! --json`), its theoretical return reported (`rules return`), and bets of every offered
//! schedule and spot count marked, planned, priced and settled under it.

#![no_main]

use keno_core::jackpot::JackpotPools;
use keno_core::theory::Fraction;
use keno_core::{
    Bet, BetPlan, Dollars, Draw, RuleSet, ScheduleId, SetMode, Special3Approval, WayInPlay,
    WayOutcome,
};
use libfuzzer_sys::fuzz_target;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(rules) = RuleSet::from_toml_str(text) else {
        return;
    };
    round_trips(&rules);
    let _ = rules.return_report(true);
    // What `rules check` prints.
    for j in rules.jackpot_types() {
        let share = Fraction {
            numerator: j.contribution_basis_points.into(),
            denominator: 10_000,
        };
        let _ = format!("{} {}", Dollars(j.guaranteed_cents), share.percent(2));
    }
    // A seed from the input, so the quick picks differ from one input to the next but a
    // crash replays.
    let seed = data
        .iter()
        .fold(0u64, |h, &b| h.rotate_left(5) ^ u64::from(b));
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let draws = [
        Draw::new(&(1..=20).collect::<Vec<u8>>()).unwrap(),
        Draw::new(&(61..=80).collect::<Vec<u8>>()).unwrap(),
    ];
    // Every ticket sold below, in one game: pro-rating and jackpot sharing need them together.
    let mut game: Vec<WayInPlay> = Vec::new();
    for schedule in ScheduleId::ALL {
        let _ = rules.may_play_special3(schedule);
        for special3 in [Special3Approval::NotInForce, Special3Approval::InForce] {
            let _ = rules.is_schedule_available(schedule, special3);
        }
        let spots = rules.offered_spots(schedule);
        let mut bets: Vec<Bet> = spots
            .iter()
            .map(|&n| Bet::Standard {
                spots: (1..=n).collect(),
            })
            .collect();
        bets.extend(spots.iter().map(|&n| Bet::QuickPick { count: n }));
        bets.push(Bet::MysteryQuickPick);
        // Kings one at a time and in pairs; a set bet of the same shape, fresh numbers.
        let kings: Vec<Vec<u8>> = (1..=4).map(|k| vec![k]).collect();
        bets.push(Bet::Way {
            groups: kings.clone(),
            combine: vec![1, 2],
        });
        bets.push(Bet::SetBet {
            groups: kings,
            combine: vec![1, 2],
            mode: SetMode::Random,
        });
        // Many ways: 20 kings, 1 to 3 at a time (1,350 ways), refused or planned.
        bets.push(Bet::Way {
            groups: (1..=20).map(|k| vec![k]).collect(),
            combine: vec![1, 2, 3],
        });
        for bet in &bets {
            sell_and_settle(&rules, bet, schedule, &mut rng, &draws, &mut game);
        }
    }
    for draw in &draws {
        let settled = rules
            .settle_game(draw, &game, &JackpotPools::initial(&rules))
            .expect("tickets sold settle together");
        assert_eq!(settled.ways.len(), game.len());
        for j in &settled.jackpots {
            // Rule 12.6: the winners share the pool, down to the cent.
            assert_eq!(
                j.paid_cents + j.breakage_cents,
                if j.winners > 0 { j.pool_cents } else { 0 }
            );
            assert!(j.next_pool_cents >= rules.jackpot_type(j.spots).unwrap().guaranteed_cents);
        }
        if let Some(p) = &settled.prorating {
            assert!(p.after_cents <= p.before_cents, "{p:?}");
        }
    }
    let g = rules.games();
    for games in [1, g.keno_to_go_from, g.max_per_ticket]
        .into_iter()
        .chain(g.discounts.iter().map(|d| d.0))
    {
        if (1..=g.max_per_ticket).contains(&games) {
            let charged = g.charged_games(games);
            assert!(
                (1..=games).contains(&charged),
                "{games} games charge {charged}"
            );
        }
    }
});

/// The stored copy loads as the same rule set (the server reloads a game's rule set by hash).
fn round_trips(rules: &RuleSet) {
    let toml = rules.to_toml_string();
    let again = RuleSet::from_toml_str(&toml)
        .unwrap_or_else(|e| panic!("written back, the rule set does not load: {e}\n{toml}"));
    assert_eq!(
        &again, rules,
        "TOML round trip changed the rule set\n{toml}"
    );
    let json = rules.to_json_string();
    let again = RuleSet::from_json_str(&json)
        .unwrap_or_else(|e| panic!("written as JSON, the rule set does not load: {e}\n{json}"));
    assert_eq!(
        &again, rules,
        "JSON round trip changed the rule set\n{json}"
    );
}

/// Amounts per way worth trying under `rules` for a plan: each minimum the rules name, a step
/// above it, and amounts no rule allows.
fn amounts(rules: &RuleSet, plan: &BetPlan) -> Vec<u64> {
    let w = rules.wagers();
    let ways = plan.ways.len() as u64;
    let mut out = vec![
        0,
        1,
        w.min_cents,
        w.min_cents.saturating_add(w.step_cents),
        w.way_minimum_cents(ways),
        w.way_minimum_cents(ways)
            .saturating_add(w.way_fine_step_cents),
        w.way_fine_step_up_to_cents
            .saturating_add(w.way_coarse_step_cents),
        w.max_ticket_total_cents,
        u64::MAX,
    ];
    for j in rules.jackpot_types() {
        out.push(j.min_wager_cents);
        out.push(j.min_wager_cents.saturating_add(j.step_cents));
    }
    out
}

fn sell_and_settle(
    rules: &RuleSet,
    bet: &Bet,
    schedule: ScheduleId,
    rng: &mut ChaCha8Rng,
    draws: &[Draw],
    game: &mut Vec<WayInPlay>,
) {
    let Ok(marks) = bet.mark(rules, schedule, rng) else {
        return;
    };
    for special3 in [Special3Approval::NotInForce, Special3Approval::InForce] {
        let Ok(plan) = rules.plan_sale(marks.clone(), schedule, special3) else {
            continue;
        };
        // A ticket sold is planned again from its stored groups to settle it.
        let again = rules
            .plan(marks.clone(), schedule)
            .expect("a sold ticket plans again");
        assert_eq!(again, plan);
        for way in &plan.ways {
            assert_eq!(rules.plays_as(schedule, way.spots()), Some(way.plays_under));
        }
        let counted: u64 = plan.way_counts().iter().map(|c| c.count).sum();
        assert_eq!(counted, plan.ways.len() as u64);
        let g = rules.games();
        let mut settled = false;
        for amount in amounts(rules, &plan) {
            for games in [0, 1, g.keno_to_go_from, g.max_per_ticket, u32::MAX] {
                let Ok(price) = rules.price(&plan, amount, games) else {
                    continue;
                };
                assert!(price.total_cents <= rules.wagers().max_ticket_total_cents);
                assert_eq!(price.ways, plan.ways.len() as u64);
                if games == 1 && !settled {
                    let ways = settle(rules, &plan, amount, draws);
                    if game.len() + ways.len() <= 5_000 {
                        game.extend(ways);
                    }
                    settled = true;
                }
            }
        }
    }
}

/// Settles the ticket's ways alone in a game, as the server settles each game a ticket plays.
fn settle(rules: &RuleSet, plan: &BetPlan, amount: u64, draws: &[Draw]) -> Vec<WayInPlay> {
    let ways: Vec<WayInPlay> = plan
        .ways
        .iter()
        .map(|w| WayInPlay {
            numbers: w.numbers,
            plays_under: w.plays_under,
            amount_per_way_cents: amount,
        })
        .collect();
    let caps = rules.caps();
    for draw in draws {
        let settled = rules
            .settle_game(draw, &ways, &JackpotPools::initial(rules))
            .expect("a priced ticket settles");
        assert_eq!(settled.ways.len(), ways.len());
        for (way, outcome) in ways.iter().zip(&settled.ways) {
            if !outcome.jackpot {
                // Rule 12.1: no way pays more than the cap, jackpot wins excepted.
                assert!(outcome.prize_cents <= caps.per_way_cents, "{outcome:?}");
            }
            let alone: WayOutcome = rules
                .schedule_outcome(draw, way)
                .expect("a priced way settles");
            assert_eq!(alone.catch, outcome.catch);
            assert_eq!(alone.jackpot, outcome.jackpot);
            // Pro-rating (12.3) only lowers a schedule prize.
            if !outcome.jackpot {
                assert!(outcome.prize_cents <= alone.prize_cents);
            }
        }
        let _ = settled.next_pools();
    }
    ways
}
