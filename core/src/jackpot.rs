//! Progressive jackpot pools (rules 7.2, 7.3, 12.6).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::rules::RuleSet;

/// The pool of each jackpot type (by spot count), in cents, as carried into a game.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct JackpotPools(pub BTreeMap<u8, u64>);

impl JackpotPools {
    /// Every pool at its guaranteed minimum, as before the first game (rule 7.2).
    pub fn initial(rules: &RuleSet) -> JackpotPools {
        JackpotPools(
            rules
                .jackpot_types()
                .iter()
                .map(|j| (j.spots, j.guaranteed_cents))
                .collect(),
        )
    }

    /// The pool carried in for a type; never below its guaranteed minimum (rule 7.2), so a
    /// rule set that raises the minimum raises the pool.
    pub fn carried(&self, rules: &RuleSet, spots: u8) -> u64 {
        let guaranteed = rules.jackpot_type(spots).map_or(0, |j| j.guaranteed_cents);
        self.0.get(&spots).copied().unwrap_or(0).max(guaranteed)
    }
}

/// What happened to one jackpot pool in a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JackpotOutcome {
    pub spots: u8,
    pub carried_in_cents: u64,
    /// 20% of every amount per way wagered on this type in the game (rule 7.3).
    pub contributions_cents: u64,
    /// What could be won in this game: carried in plus contributions.
    pub pool_cents: u64,
    pub winners: usize,
    pub paid_cents: u64,
    /// Cents left by rounding the winners' shares down (rule 12.6); kept by the house.
    pub breakage_cents: u64,
    /// The pool carried into the next game: the guaranteed minimum once won (7.2), else all of
    /// this game's pool.
    pub next_pool_cents: u64,
}

/// Shares a pool among a game's winning ways in proportion to each way's wager (rule 12.6),
/// rounded down to the cent. A sole winner takes the whole pool whatever its wager.
pub fn share_pool(pool_cents: u64, wagers: &[u64]) -> Vec<u64> {
    let total: u128 = wagers.iter().map(|&w| u128::from(w)).sum();
    if wagers.len() == 1 {
        return vec![pool_cents];
    }
    wagers
        .iter()
        .map(|&w| (u128::from(pool_cents) * u128::from(w) / total) as u64)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_12_6_sole_winner_takes_the_whole_pool() {
        assert_eq!(share_pool(250_000, &[500]), vec![250_000]);
    }

    #[test]
    fn rule_12_6_winners_share_in_proportion_to_wager() {
        // $2 and $4 on winning ways share $3,000: $1,000 and $2,000.
        assert_eq!(share_pool(300_000, &[200, 400]), vec![100_000, 200_000]);
        // Three equal winners of $1,000.00: 33,333 cents each, one cent of breakage.
        assert_eq!(share_pool(100_000, &[200, 200, 200]), vec![33_333; 3]);
    }

    #[test]
    fn rule_7_2_pools_start_at_the_guaranteed_minimum() {
        let rules = RuleSet::act_1992();
        let pools = JackpotPools::initial(&rules);
        assert_eq!(pools.carried(&rules, 6), 200_000);
        assert_eq!(pools.carried(&rules, 8), 2_000_000);
        let low = JackpotPools([(6, 1)].into_iter().collect());
        assert_eq!(low.carried(&rules, 6), 200_000);
    }
}
