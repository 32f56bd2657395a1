//! A ticket sale as a writer terminal sends it (`POST /api/v1/tickets` and `/tickets/quote`):
//! any bytes, read as the server's JSON `SaleRequest`, then checked and priced by keno-core as
//! `server/src/tickets/sale.rs` (`prepare`) does under the built-in ACT rules, the tenders
//! parsed and allocated as `server/src/tickets/tender.rs` does, and the ticket settled.
//! Refusing a request is fine; a panic is not.
//!
//! The request is keno-api's `SaleRequest`, the very type the server reads (the same serde
//! attributes, `deny_unknown_fields` included), and its bet becomes the core's through the same
//! `BetRequest::to_bet`; the tender checks mirror `tender::parse`.

#![no_main]

use std::collections::HashSet;
use std::sync::OnceLock;

use keno_api::tickets::{SaleRequest, Tenders, MAX_TENDERS};
use keno_core::jackpot::JackpotPools;
use keno_core::tender::{allocate, Offered, TenderKind};
use keno_core::{Draw, RuleSet, ScheduleId, Special3Approval, WayInPlay};
use libfuzzer_sys::fuzz_target;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

/// A stand-in for the set-bet catalogue (the server reads it from the database): set 1 is
/// three kings and a group of four, played 1 and 2 at a time; set 2 two groups of five played
/// together. Other ids are not in the catalogue (`unknown_set`).
fn catalogue(set: i64) -> Option<(Vec<Vec<u8>>, Vec<u8>)> {
    match set {
        1 => Some((
            vec![vec![1], vec![2], vec![3], vec![10, 11, 12, 13]],
            vec![1, 2],
        )),
        2 => Some((vec![vec![1, 2, 3, 4, 5], vec![6, 7, 8, 9, 10]], vec![2])),
        _ => None,
    }
}

/// `tender::parse`: each tender a well-formed voucher code (with a positive amount, if any) or
/// ticket serial, none twice. `None` is the server's 400.
fn parse_tenders(tender: Option<&Tenders>) -> Option<Vec<Offered>> {
    let list = tender.map_or(&[][..], Tenders::as_slice);
    if list.len() > MAX_TENDERS {
        return None;
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for t in list {
        let (reference, offered) = match (&t.voucher, &t.ticket, t.amount_cents) {
            (Some(code), None, amount) => {
                if !keno_core::serial::is_voucher_code(code) {
                    return None;
                }
                let amount_cents = match amount {
                    None => None,
                    Some(a) if a > 0 => Some(a as u64),
                    Some(_) => return None,
                };
                (
                    code,
                    Offered {
                        kind: TenderKind::Voucher,
                        // The database's balance; any will do here.
                        available_cents: 2_500,
                        amount_cents,
                    },
                )
            }
            (None, Some(serial), None) => {
                if !keno_core::serial::is_well_formed(serial) {
                    return None;
                }
                (
                    serial,
                    Offered {
                        kind: TenderKind::Ticket,
                        available_cents: 1_200,
                        amount_cents: None,
                    },
                )
            }
            _ => return None,
        };
        if !seen.insert(reference.clone()) {
            return None;
        }
        out.push(offered);
    }
    Some(out)
}

fn rules() -> &'static RuleSet {
    static RULES: OnceLock<RuleSet> = OnceLock::new();
    RULES.get_or_init(RuleSet::act_1992)
}

fuzz_target!(|data: &[u8]| {
    let Ok(request) = serde_json::from_slice::<SaleRequest>(data) else {
        return;
    };
    if request.request_id.is_empty() || request.request_id.len() > 100 {
        return;
    }
    let Some(offered) = parse_tenders(request.tender.as_ref()) else {
        return;
    };
    let Some(bet) = request.bet.to_bet(catalogue) else {
        return;
    };
    let rules = rules();
    let schedule = ScheduleId::from(request.schedule);
    let seed = data
        .iter()
        .fold(0u64, |h, &b| h.rotate_left(5) ^ u64::from(b));
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let Ok(marks) = bet.mark(rules, schedule, &mut rng) else {
        return;
    };
    // The server looks the approval up when the schedule may play Special 3: try both.
    for special3 in [Special3Approval::NotInForce, Special3Approval::InForce] {
        let Ok(plan) = rules.plan_sale(marks.clone(), schedule, special3) else {
            continue;
        };
        let Ok(price) = rules.price(&plan, request.amount_per_way_cents, request.games) else {
            continue;
        };
        // What the ticket row stores, and the receipt's WAYS SPOTS lines.
        let groups: Vec<Vec<u8>> = plan.groups.iter().map(|g| g.to_vec()).collect();
        serde_json::to_string(&groups).expect("numbers serialize");
        serde_json::to_string(&plan.combine).expect("numbers serialize");
        let counts = plan.way_counts();
        assert_eq!(
            counts.iter().map(|c| c.count).sum::<u64>(),
            plan.ways.len() as u64
        );
        assert_eq!(price.ways, plan.ways.len() as u64);
        assert!(price.total_cents <= rules.wagers().max_ticket_total_cents);
        assert!(price.charged_games <= price.games);
        // The ticket is planned again from its stored numbers to settle it.
        let again = rules
            .plan(marks.clone(), schedule)
            .expect("a ticket sold plans again");
        assert_eq!(again, plan);
        // Paid with its tenders, the rest in cash.
        if let Ok(a) = allocate(price.total_cents, &offered) {
            assert_eq!(a.tendered_cents() + a.cash_cents, price.total_cents);
            assert_eq!(a.applied.len(), offered.len());
        }
        // Settled in a game where it catches everything and one where it catches nothing.
        let ways: Vec<WayInPlay> = plan
            .ways
            .iter()
            .map(|w| WayInPlay {
                numbers: w.numbers,
                plays_under: w.plays_under,
                amount_per_way_cents: price.amount_per_way_cents,
            })
            .collect();
        for draw in [
            plan.groups
                .iter()
                .flat_map(|g| g.numbers())
                .chain(1..=80)
                .fold(Vec::new(), |mut v, n| {
                    if v.len() < 20 && !v.contains(&n) {
                        v.push(n);
                    }
                    v
                }),
            (61..=80).collect(),
        ] {
            let draw = Draw::new(&draw).expect("20 distinct numbers");
            let settled = rules
                .settle_game(&draw, &ways, &JackpotPools::initial(rules))
                .expect("a ticket sold settles");
            assert_eq!(settled.ways.len(), ways.len());
            for o in &settled.ways {
                assert!(o.jackpot || o.prize_cents <= rules.caps().per_way_cents);
            }
        }
    }
});
