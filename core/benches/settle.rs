//! Settling a game of 1,000,000 ways of mixed spot counts and schedules (goal: at most 10 ns
//! per way on one core, catch counting, prize lookup and pro-rating included).
//!
//! `cargo bench -p keno-core --bench settle`; criterion prints the time per game and the
//! throughput in ways per second.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use keno_core::random::{distinct_numbers, draw_numbers, uniform_below};
use keno_core::{JackpotPools, NumberSet, RuleSet, ScheduleId, WayInPlay};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

const WAYS: usize = 1_000_000;

/// A mix like a busy game: mostly standard tickets of every size, some specials and jackpots,
/// amounts from way-ticket cents to whole dollars.
fn mixed_ways(rules: &RuleSet, rng: &mut ChaCha20Rng) -> Vec<WayInPlay> {
    (0..WAYS)
        .map(|_| {
            let (schedule, spots) = match uniform_below(rng, 20) {
                0 => (
                    ScheduleId::Jackpot,
                    if uniform_below(rng, 2) == 0 { 6 } else { 8 },
                ),
                1 => (ScheduleId::Special2, 3 + uniform_below(rng, 4) as u8),
                _ => (ScheduleId::Standard, 1 + uniform_below(rng, 15) as u8),
            };
            let plays_under = rules.plays_as(schedule, spots).unwrap();
            let amount = match schedule {
                ScheduleId::Jackpot => 200 + 100 * u64::from(uniform_below(rng, 4)),
                _ => [10, 20, 50, 100, 100, 200, 300, 500][uniform_below(rng, 8) as usize],
            };
            WayInPlay {
                numbers: NumberSet::from_numbers(&distinct_numbers(rng, spots as usize)).unwrap(),
                plays_under,
                amount_per_way_cents: amount,
            }
        })
        .collect()
}

fn settle(c: &mut Criterion) {
    let rules = RuleSet::act_1992();
    let mut rng = ChaCha20Rng::seed_from_u64(2026);
    let ways = mixed_ways(&rules, &mut rng);
    let pools = JackpotPools::initial(&rules);
    let draws: Vec<_> = (0..64).map(|_| draw_numbers(&mut rng)).collect();

    let mut group = c.benchmark_group("settle_game");
    group.throughput(Throughput::Elements(WAYS as u64));
    group.sample_size(20);
    // Outputs are dropped after each game, as in a server that settles game after game.
    let mut i = 0;
    group.bench_function("1M mixed ways", |b| {
        b.iter(|| {
            i = (i + 1) % draws.len();
            rules.settle_game(&draws[i], &ways, &pools).unwrap()
        })
    });

    // Pro-rating in proportion (12.5) with the $200 floor (12.4): 200 major prizes of $240 to
    // $50,000 among a million ways at 10 cents (which win almost no major prize themselves).
    let draw = &draws[0];
    let drawn = draw.in_order();
    let mut some_majors: Vec<WayInPlay> = ways
        .iter()
        .map(|w| WayInPlay {
            amount_per_way_cents: 10,
            ..*w
        })
        .collect();
    for (k, w) in some_majors.iter_mut().take(200).enumerate() {
        let catch = 7 + (k % 4);
        let mut numbers: Vec<u8> = drawn[..catch].to_vec();
        numbers.extend(
            (1..=80)
                .filter(|n| !draw.set().contains(*n))
                .take(10 - catch),
        );
        *w = WayInPlay {
            numbers: NumberSet::from_numbers(&numbers).unwrap(),
            plays_under: ScheduleId::Standard,
            amount_per_way_cents: 300,
        };
    }
    group.bench_function("1M ways, 200 major prizes pro-rated", |b| {
        b.iter(|| {
            let s = rules.settle_game(draw, &some_majors, &pools).unwrap();
            assert!(!s.prorating.as_ref().unwrap().floor_binds_for_all);
            s
        })
    });

    // Every way a major prize (10 of 10 caught): rule 12.4 holds each at $200.
    let all_majors: Vec<WayInPlay> = (0..WAYS)
        .map(|k| WayInPlay {
            numbers: NumberSet::from_numbers(&drawn[k % 10..k % 10 + 10]).unwrap(),
            plays_under: ScheduleId::Standard,
            amount_per_way_cents: 200 + (k as u64 % 5) * 100,
        })
        .collect();
    group.bench_function("1M ways, all major prizes", |b| {
        b.iter(|| rules.settle_game(draw, &all_majors, &pools).unwrap())
    });
    group.finish();
}

criterion_group!(benches, settle);
criterion_main!(benches);
