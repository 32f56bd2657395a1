//! What a ticket costs (rules 6.2, 7.1).

use serde::{Deserialize, Serialize};

use crate::bet::BetPlan;
use crate::error::BetError;
use crate::money::Dollars;
use crate::rules::RuleSet;
use crate::schedule::ScheduleId;

/// The price of a planned bet over its games.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Price {
    pub amount_per_way_cents: u64,
    pub ways: u64,
    /// One game's wager: amount per way times ways.
    pub game_cost_cents: u64,
    pub games: u32,
    /// Games charged after the multi-game discount (6.2(a),(b)).
    pub charged_games: u32,
    pub total_cents: u64,
}

impl RuleSet {
    /// Prices a plan at `amount_per_way_cents` for `games` consecutive games, or says which
    /// rule refuses it.
    pub fn price(
        &self,
        plan: &BetPlan,
        amount_per_way_cents: u64,
        games: u32,
    ) -> Result<Price, BetError> {
        let ways = plan.ways.len() as u64;
        let amount = amount_per_way_cents;
        if plan.kind.is_way_ticket() {
            self.check_way_amount(amount, ways)?;
        } else if plan.schedule != ScheduleId::Jackpot {
            self.check_single_amount(amount)?;
        }
        if plan.schedule == ScheduleId::Jackpot {
            for way in &plan.ways {
                self.check_jackpot_amount(amount, way.spots())?;
            }
        }

        let g = self.games();
        if games == 0 {
            return Err(BetError::NoGames);
        }
        if games > g.max_per_ticket {
            return Err(BetError::TooManyGames {
                games,
                max: g.max_per_ticket,
            });
        }
        let charged_games = g.charged_games(games);
        let game_cost = u128::from(amount) * u128::from(ways);
        let total = game_cost * u128::from(charged_games);
        let max = self.wagers().max_ticket_total_cents;
        // Rule 6.2: the limit is on the amount charged for the whole receipt ticket.
        if total > u128::from(max) {
            return Err(BetError::TicketTotalOverLimit {
                total: Dollars(u64::try_from(total).unwrap_or(u64::MAX)),
                max: Dollars(max),
            });
        }
        Ok(Price {
            amount_per_way_cents: amount,
            ways,
            game_cost_cents: game_cost as u64,
            games,
            charged_games,
            total_cents: total as u64,
        })
    }

    /// Rule 6.2: a non-way ticket's game wager is at least $1.00, in whole dollars.
    fn check_single_amount(&self, amount: u64) -> Result<(), BetError> {
        let w = self.wagers();
        if amount < w.min_cents {
            return Err(BetError::BelowMinimumWager {
                amount: Dollars(amount),
                min: Dollars(w.min_cents),
            });
        }
        if !amount.is_multiple_of(w.step_cents) {
            return Err(BetError::NotWholeDollars {
                amount: Dollars(amount),
                step: Dollars(w.step_cents),
            });
        }
        Ok(())
    }

    /// Rule 6.2(d): the way minimum by number of ways, then 10-cent steps to $1.00 and whole
    /// dollars above.
    fn check_way_amount(&self, amount: u64, ways: u64) -> Result<(), BetError> {
        let w = self.wagers();
        let min = w.way_minimum_cents(ways);
        if amount < min {
            return Err(BetError::BelowWayMinimum {
                amount: Dollars(amount),
                ways,
                min: Dollars(min),
            });
        }
        let on_ladder = if amount <= w.way_fine_step_up_to_cents {
            (amount - min).is_multiple_of(w.way_fine_step_cents)
        } else {
            let base = w.way_fine_step_up_to_cents.max(min);
            (amount - base).is_multiple_of(w.way_coarse_step_cents)
        };
        if !on_ladder {
            return Err(BetError::WayIncrement {
                amount: Dollars(amount),
                fine_step: Dollars(w.way_fine_step_cents),
                fine_limit: Dollars(w.way_fine_step_up_to_cents),
                coarse_step: Dollars(w.way_coarse_step_cents),
            });
        }
        Ok(())
    }

    /// Rules 6.2(c), 7.1: at least $2.00 per jackpot way, in $1 increments above it.
    fn check_jackpot_amount(&self, amount: u64, spots: u8) -> Result<(), BetError> {
        let j = self
            .jackpot_type(spots)
            .expect("a planned jackpot way is of a jackpot type");
        if amount < j.min_wager_cents {
            return Err(BetError::BelowJackpotMinimum {
                amount: Dollars(amount),
                min: Dollars(j.min_wager_cents),
            });
        }
        if !(amount - j.min_wager_cents).is_multiple_of(j.step_cents) {
            return Err(BetError::JackpotIncrement {
                amount: Dollars(amount),
                min: Dollars(j.min_wager_cents),
                step: Dollars(j.step_cents),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bet::{BetKind, Marks};
    use crate::board::NumberSet;

    fn rules() -> RuleSet {
        RuleSet::act_1992()
    }

    fn plan(kind: BetKind, groups: &[Vec<u8>], combine: &[u8], schedule: ScheduleId) -> BetPlan {
        rules()
            .plan(
                Marks {
                    kind,
                    groups: groups
                        .iter()
                        .map(|g| NumberSet::from_numbers(g).unwrap())
                        .collect(),
                    combine: combine.to_vec(),
                },
                schedule,
            )
            .unwrap()
    }

    fn standard(spots: &[u8]) -> BetPlan {
        plan(
            BetKind::Standard,
            &[spots.to_vec()],
            &[1],
            ScheduleId::Standard,
        )
    }

    /// A way ticket of `n` kings played one at a time: `n` ways of 1 spot.
    fn kings(n: u8) -> BetPlan {
        let groups: Vec<Vec<u8>> = (1..=n).map(|k| vec![k]).collect();
        plan(BetKind::Way, &groups, &[1], ScheduleId::Standard)
    }

    #[test]
    fn rule_6_2_single_ticket_minimum_is_one_dollar_in_whole_dollars() {
        let r = rules();
        let p = standard(&[1, 2, 3, 4]);
        let price = r.price(&p, 300, 1).unwrap();
        assert_eq!(
            (price.game_cost_cents, price.total_cents, price.ways),
            (300, 300, 1)
        );
        let e = r.price(&p, 50, 1).unwrap_err();
        assert!(matches!(e, BetError::BelowMinimumWager { .. }));
        assert_eq!((e.code(), e.rule()), ("below_minimum_wager", "6.2"));
        let e = r.price(&p, 150, 1).unwrap_err();
        assert!(matches!(e, BetError::NotWholeDollars { .. }));
        assert_eq!((e.code(), e.rule()), ("invalid_wager_increment", "6.2"));
    }

    #[test]
    fn rule_6_2_c_and_7_1_jackpot_minimum_two_dollars_then_whole_dollars() {
        let r = rules();
        let p = plan(
            BetKind::Standard,
            &[vec![1, 2, 3, 4, 5, 6]],
            &[1],
            ScheduleId::Jackpot,
        );
        assert_eq!(r.price(&p, 200, 1).unwrap().total_cents, 200);
        assert_eq!(r.price(&p, 300, 1).unwrap().total_cents, 300);
        let e = r.price(&p, 100, 1).unwrap_err();
        assert!(matches!(e, BetError::BelowJackpotMinimum { .. }));
        assert_eq!(e.rule(), "6.2(c)");
        let e = r.price(&p, 250, 1).unwrap_err();
        assert!(matches!(e, BetError::JackpotIncrement { .. }));
        assert_eq!(e.rule(), "7.1");
    }

    #[test]
    fn rule_6_2_d_way_minimums_by_number_of_ways() {
        let r = rules();
        for (ways, min) in [
            (1u8, 100u64),
            (3, 100),
            (4, 50),
            (19, 50),
            (20, 20),
            (49, 20),
            (50, 10),
            (80, 10),
        ] {
            let p = kings(ways);
            assert!(r.price(&p, min, 1).is_ok(), "{ways} ways at {min}");
            let e = r.price(&p, min - 10, 1).unwrap_err();
            assert_eq!(
                e,
                BetError::BelowWayMinimum {
                    amount: Dollars(min - 10),
                    ways: ways as u64,
                    min: Dollars(min)
                },
                "{ways} ways"
            );
            assert_eq!(e.rule(), "6.2(d)");
        }
    }

    #[test]
    fn rule_6_2_d_ten_cent_steps_to_a_dollar_then_whole_dollars() {
        let r = rules();
        let p = kings(50);
        for ok in [10, 20, 90, 100, 200, 700] {
            assert!(r.price(&p, ok, 1).is_ok(), "{ok}");
        }
        for bad in [15, 95, 110, 150, 250] {
            let e = r.price(&p, bad, 1).unwrap_err();
            assert!(matches!(e, BetError::WayIncrement { .. }), "{bad}: {e}");
        }
        // 4-19 ways start at 50 cents: 60 is a step up, 55 is not.
        let p = kings(4);
        assert!(r.price(&p, 60, 1).is_ok());
        assert!(r.price(&p, 55, 1).is_err());
        // Game cost of a way ticket need not be whole dollars: 5 ways at 70 cents.
        assert_eq!(r.price(&kings(5), 70, 1).unwrap().game_cost_cents, 350);
    }

    #[test]
    fn rule_6_2_d_one_to_three_ways_are_whole_dollars_from_one_dollar() {
        let r = rules();
        let p = kings(3);
        assert!(r.price(&p, 200, 1).is_ok());
        assert!(matches!(
            r.price(&p, 150, 1),
            Err(BetError::WayIncrement { .. })
        ));
        assert!(matches!(
            r.price(&p, 90, 1),
            Err(BetError::BelowWayMinimum { .. })
        ));
    }

    #[test]
    fn jackpot_way_tickets_meet_both_the_way_and_the_jackpot_rules() {
        // Three groups of 3 in pairs: 3 jackpot ways of 6 spots.
        let r = rules();
        let p = plan(
            BetKind::Way,
            &[vec![1, 2, 3], vec![4, 5, 6], vec![7, 8, 9]],
            &[2],
            ScheduleId::Jackpot,
        );
        assert_eq!(r.price(&p, 200, 1).unwrap().game_cost_cents, 600);
        assert!(matches!(
            r.price(&p, 100, 1),
            Err(BetError::BelowJackpotMinimum { .. })
        ));
        assert!(matches!(
            r.price(&p, 250, 1),
            Err(BetError::WayIncrement { .. })
        ));
    }

    #[test]
    fn rule_6_2_a_b_multi_game_discounts() {
        let r = rules();
        let p = standard(&[1, 2, 3]);
        let total = |games| r.price(&p, 100, games).unwrap();
        assert_eq!(total(49).total_cents, 4_900);
        assert_eq!(total(50).total_cents, 4_900);
        assert_eq!(total(50).charged_games, 49);
        assert_eq!(total(99).total_cents, 9_800);
        assert_eq!(total(100).total_cents, 9_800);
        assert_eq!(total(1000).total_cents, 99_800);
    }

    #[test]
    fn games_per_ticket_are_one_to_the_rule_set_maximum() {
        let r = rules();
        let p = standard(&[1, 2, 3]);
        assert_eq!(r.price(&p, 100, 0), Err(BetError::NoGames));
        assert_eq!(
            r.price(&p, 100, 1001),
            Err(BetError::TooManyGames {
                games: 1001,
                max: 1000
            })
        );
    }

    #[test]
    fn rule_6_2_ticket_total_at_most_9999_dollars() {
        let r = rules();
        let p = standard(&[1, 2, 3]);
        // $9,999 for one game is the limit itself.
        assert_eq!(r.price(&p, 999_900, 1).unwrap().total_cents, 999_900);
        assert!(matches!(
            r.price(&p, 1_000_000, 1),
            Err(BetError::TicketTotalOverLimit { .. })
        ));
        // $101 x 100 games = $101 x 98 charged = $9,898: allowed; $103 x 98 = $10,094: not.
        assert_eq!(r.price(&p, 10_100, 100).unwrap().total_cents, 989_800);
        let e = r.price(&p, 10_300, 100).unwrap_err();
        assert_eq!(
            e,
            BetError::TicketTotalOverLimit {
                total: Dollars(1_009_400),
                max: Dollars(999_900)
            }
        );
        assert_eq!(e.code(), "ticket_total_over_limit");
    }
}
