//! The prize schedules in force (rules 18.1-18.4), for the displays' prize boards and anyone
//! checking what a catch pays (`GET /api/v1/schedules`: `routes/schedules.rs`).

use keno_core::{Pay, RuleSet, ScheduleId, Special3Approval};
use serde::Serialize;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema, Debug)]
pub struct CatchPay {
    pub catch: u8,
    /// What the base wager wins; absent for a jackpot catch.
    pub prize_cents: Option<u64>,
    /// The catch wins (a share of) the jackpot pool (rule 12.6).
    pub jackpot: bool,
}

#[derive(Serialize, ToSchema, Debug)]
pub struct SpotsPays {
    pub spots: u8,
    /// The schedule this spot count plays under (a 6- or 8-spot standard ticket plays
    /// Special 1, rule 18.2).
    pub plays_as: String,
    /// Only the catches that win.
    pub pays: Vec<CatchPay>,
}

/// A prize schedule and what each spot count's catches pay under it.
#[derive(Serialize, ToSchema, Debug)]
pub struct PrizeSchedule {
    /// standard | special1 | special2 | special3 | jackpot
    pub schedule: String,
    pub name: String,
    pub rule: String,
    /// The wager the prizes are quoted for.
    pub base_wager_cents: u64,
    pub spots: Vec<SpotsPays>,
}

/// The prize schedules on sale under `rules`: Special 3 only while the regulator's approval of
/// it is in force (`special3`, rule 18.4).
pub fn on_sale(rules: &RuleSet, special3: Special3Approval) -> Vec<PrizeSchedule> {
    let table = rules.prize_table();
    ScheduleId::ALL
        .into_iter()
        .filter(|&s| rules.is_schedule_available(s, special3))
        .map(|s| PrizeSchedule {
            schedule: s.key().into(),
            name: s.to_string(),
            rule: s.rule().into(),
            base_wager_cents: table.base_wager_cents(s),
            spots: rules
                .offered_spots(s)
                .into_iter()
                .filter_map(|spots| {
                    let under = rules.plays_as(s, spots)?;
                    let pays = (0..=spots)
                        .filter_map(|catch| match table.pay(under, spots, catch)? {
                            Pay::Cents(0) => None,
                            Pay::Cents(c) => Some(CatchPay {
                                catch,
                                prize_cents: Some(c),
                                jackpot: false,
                            }),
                            Pay::JackpotPool => Some(CatchPay {
                                catch,
                                prize_cents: None,
                                jackpot: true,
                            }),
                        })
                        .collect();
                    Some(SpotsPays {
                        spots,
                        plays_as: under.key().into(),
                        pays,
                    })
                })
                .collect(),
        })
        .collect()
}
