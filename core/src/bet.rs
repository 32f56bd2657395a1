//! What a player bets on: the selection, the ways it makes and the schedule each way plays.
//!
//! A [`Bet`] is the request (as in `shared/API.md`); [`Bet::mark`] makes the terminal's random
//! choices for quick picks and random set bets; [`RuleSet::plan_sale`] checks the marks against
//! the rule set (and Special 3's approval) and lists the ways, each settled as an individual
//! ticket (rule 12.8); [`RuleSet::plan`] plans a ticket already sold again.

use serde::{Deserialize, Serialize};

use crate::board::{NumberSet, Selection, MAX_SPOTS};
use crate::error::{BetError, SelectionError};
use crate::random::{mystery_spots, quick_pick, shaped_pick};
use crate::rules::{RuleSet, Special3Approval};
use crate::schedule::ScheduleId;

/// A bet as a terminal requests it (`shared/API.md`, "Tickets").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Bet {
    /// Rule 6.3(f): the player's own 1 to 15 numbers.
    Standard { spots: Vec<u8> },
    /// Rule 6.3(b): the terminal picks `count` numbers.
    QuickPick { count: u8 },
    /// Rule 6.3(c): the terminal picks how many numbers and which.
    MysteryQuickPick,
    /// Rules 5.5(b), 6.3(g): groups of numbers (a group of one is a king); for each `k` in
    /// `combine`, every union of `k` groups is one way.
    Way {
        groups: Vec<Vec<u8>>,
        combine: Vec<u8>,
    },
    /// Rule 6.3(h): a way ticket from the operator's catalogue, its groups and combinations as
    /// the catalogue lists them (the caller looks the set up). `Fixed` plays those numbers;
    /// `Random` plays fresh numbers in groups of the same sizes, with the same combinations.
    SetBet {
        groups: Vec<Vec<u8>>,
        combine: Vec<u8>,
        mode: SetMode,
    },
}

/// How a set bet plays its catalogue entry (rule 6.3(h)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SetMode {
    /// "the numbers illustrated must be played".
    Fixed,
    /// "the numbers illustrated are changed for a selection chosen by the writer terminal".
    Random,
}

/// The kind of bet, as stored and printed ("BET-STANDARD").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BetKind {
    Standard,
    QuickPick,
    MysteryQuickPick,
    Way,
    /// A way ticket from the catalogue (rule 6.3(h)): priced, limited and settled as a way
    /// ticket of the same groups.
    SetBet,
}

impl BetKind {
    /// Groups and combinations, way prices (rules 5.5(b), 6.2(d)): a way ticket or a set bet.
    pub fn is_way_ticket(self) -> bool {
        matches!(self, BetKind::Way | BetKind::SetBet)
    }
}

/// A bet with its numbers fixed: groups and the combinations played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Marks {
    pub kind: BetKind,
    pub groups: Vec<NumberSet>,
    pub combine: Vec<u8>,
}

impl Bet {
    pub fn kind(&self) -> BetKind {
        match self {
            Bet::Standard { .. } => BetKind::Standard,
            Bet::QuickPick { .. } => BetKind::QuickPick,
            Bet::MysteryQuickPick => BetKind::MysteryQuickPick,
            Bet::Way { .. } => BetKind::Way,
            Bet::SetBet { .. } => BetKind::SetBet,
        }
    }

    /// Fixes the numbers, drawing the terminal's picks for quick picks and random set bets from
    /// `rng`. A mystery quick pick plays a spot count the schedule offers, within the rule set's
    /// range; a random set bet plays groups of the catalogue's sizes.
    pub fn mark<R: rand_core::Rng + ?Sized>(
        &self,
        rules: &RuleSet,
        schedule: ScheduleId,
        rng: &mut R,
    ) -> Result<Marks, BetError> {
        let single = |s: Selection| Marks {
            kind: self.kind(),
            groups: vec![s.set()],
            combine: vec![1],
        };
        match self {
            Bet::Standard { spots } => Ok(single(Selection::new(spots)?)),
            Bet::QuickPick { count } => Ok(single(quick_pick(rng, *count)?)),
            Bet::MysteryQuickPick => {
                let (min, max) = rules.mystery_spots();
                let offered: Vec<u8> = rules
                    .offered_spots(schedule)
                    .into_iter()
                    .filter(|s| (min..=max).contains(s))
                    .filter(|&s| schedule != ScheduleId::Jackpot || rules.jackpot_type(s).is_some())
                    .collect();
                let Some(last) = offered.len().checked_sub(1) else {
                    return Err(BetError::ScheduleNotOffered {
                        schedule,
                        spots: min,
                    });
                };
                let count = offered[mystery_spots(rng, (0, last as u8)) as usize];
                Ok(single(quick_pick(rng, count)?))
            }
            Bet::Way { groups, combine } => {
                let groups = groups
                    .iter()
                    .map(|g| NumberSet::from_numbers(g))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(Marks {
                    kind: BetKind::Way,
                    groups,
                    combine: combine.clone(),
                })
            }
            Bet::SetBet {
                groups,
                combine,
                mode,
            } => {
                let listed = groups
                    .iter()
                    .map(|g| NumberSet::from_numbers(g))
                    .collect::<Result<Vec<_>, _>>()?;
                let groups = match mode {
                    SetMode::Fixed => listed,
                    SetMode::Random => {
                        let sizes: Vec<u8> = listed.iter().map(|g| g.len()).collect();
                        shaped_pick(rng, &sizes)?
                    }
                };
                Ok(Marks {
                    kind: BetKind::SetBet,
                    groups,
                    combine: combine.clone(),
                })
            }
        }
    }
}

/// One way of a ticket: its numbers and the schedule it is settled under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlannedWay {
    pub numbers: NumberSet,
    pub plays_under: ScheduleId,
}

impl PlannedWay {
    pub fn spots(&self) -> u8 {
        self.numbers.len()
    }
}

/// "3/08": how many ways of a spot count a ticket has, for the receipt's WAYS SPOTS table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WayCount {
    pub count: u64,
    pub spots: u8,
}

/// A bet checked against the rule set: its ways, each with the schedule it plays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BetPlan {
    pub kind: BetKind,
    /// The schedule the player entered (the receipt may show another for some ways).
    pub schedule: ScheduleId,
    pub groups: Vec<NumberSet>,
    pub combine: Vec<u8>,
    pub ways: Vec<PlannedWay>,
}

impl BetPlan {
    /// Ways by spot count, fewest spots first ("1/04", "3/08 1/12").
    pub fn way_counts(&self) -> Vec<WayCount> {
        let mut counts = [0u64; MAX_SPOTS as usize + 1];
        for w in &self.ways {
            counts[w.spots() as usize] += 1;
        }
        (1..=MAX_SPOTS)
            .filter(|&s| counts[s as usize] > 0)
            .map(|s| WayCount {
                count: counts[s as usize],
                spots: s,
            })
            .collect()
    }
}

/// The most ways one ticket may have, whatever the rule set's prices allow: it bounds the
/// memory one request can make the server use. (The ACT prices allow at most 99,990: $9,999 at
/// 10 cents a way.)
pub const MAX_WAYS_PER_TICKET: u64 = 100_000;

/// Number of ways `marks` makes, counted before any is built so that a ticket of millions of
/// ways is refused without building them.
fn way_total(groups: usize, combine: &[u8]) -> u128 {
    combine
        .iter()
        .map(|&k| binomial(groups as u128, u128::from(k)))
        .fold(0u128, u128::saturating_add)
}

fn binomial(n: u128, k: u128) -> u128 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    (0..k).fold(1u128, |acc, i| acc.saturating_mul(n - i) / (i + 1))
}

impl RuleSet {
    /// Checks a sale's marks and schedule against the rules and lists the ways (rules 5.5(b),
    /// 12.8, 18): [`RuleSet::plan`], and no way may play Special 3 unless the regulator's
    /// approval is in force (rule 18.4).
    pub fn plan_sale(
        &self,
        marks: Marks,
        schedule: ScheduleId,
        special3: Special3Approval,
    ) -> Result<BetPlan, BetError> {
        if !self.is_schedule_available(schedule, special3) {
            return Err(BetError::ScheduleNotApproved);
        }
        let plan = self.plan(marks, schedule)?;
        let plays_special3 = plan
            .ways
            .iter()
            .any(|w| w.plays_under == ScheduleId::Special3);
        if plays_special3 && special3 != Special3Approval::InForce {
            return Err(BetError::ScheduleNotApproved);
        }
        Ok(plan)
    }

    /// Checks marks and schedule against the rules and lists the ways (rules 5.5(b), 12.8, 18).
    ///
    /// Approval is a condition of sale, not of settlement: a ticket sold while Special 3's
    /// approval was in force plans (and settles) after it is withdrawn. Sales go through
    /// [`RuleSet::plan_sale`].
    pub fn plan(&self, marks: Marks, schedule: ScheduleId) -> Result<BetPlan, BetError> {
        check_groups(&marks)?;
        if !marks.kind.is_way_ticket() && (marks.groups.len() != 1 || marks.combine != [1]) {
            return Err(SelectionError::NotAWayTicket.into());
        }
        let total = way_total(marks.groups.len(), &marks.combine);
        // No amount per way can bring this many ways under the ticket limit (rule 6.2).
        let ways = u64::try_from(total).unwrap_or(u64::MAX);
        let cheapest = self.wagers().way_minimum_cents(ways);
        let limit = self.wagers().max_ticket_total_cents;
        let least_total = total.saturating_mul(u128::from(cheapest));
        if least_total > u128::from(limit) {
            return Err(BetError::TicketTotalOverLimit {
                total: crate::money::Dollars(u64::try_from(least_total).unwrap_or(u64::MAX)),
                max: crate::money::Dollars(limit),
            });
        }
        if ways > MAX_WAYS_PER_TICKET {
            return Err(BetError::TooManyWays {
                ways,
                max: MAX_WAYS_PER_TICKET,
            });
        }

        let mut ways = Vec::with_capacity(total as usize);
        let mut ks = marks.combine.clone();
        ks.sort_unstable();
        for k in ks {
            for_each_combination(marks.groups.len(), k as usize, |chosen| {
                let numbers = chosen
                    .iter()
                    .fold(NumberSet::EMPTY, |acc, &g| acc.union(marks.groups[g]));
                ways.push(numbers);
            });
        }
        let ways = ways
            .into_iter()
            .map(|numbers| {
                let spots = numbers.len();
                if spots > MAX_SPOTS {
                    return Err(SelectionError::WayTooLarge { spots }.into());
                }
                self.way_schedule(schedule, spots)
                    .map(|plays_under| PlannedWay {
                        numbers,
                        plays_under,
                    })
            })
            .collect::<Result<Vec<_>, BetError>>()?;
        Ok(BetPlan {
            kind: marks.kind,
            schedule,
            groups: marks.groups,
            combine: marks.combine,
            ways,
        })
    }

    /// The schedule a way of `spots` entered in `schedule` plays under (rules 6.3(a), 18).
    fn way_schedule(&self, schedule: ScheduleId, spots: u8) -> Result<ScheduleId, BetError> {
        if schedule == ScheduleId::Jackpot && self.jackpot_type(spots).is_none() {
            let allowed = self
                .jackpot_types()
                .iter()
                .map(|j| j.spots.to_string())
                .collect::<Vec<_>>()
                .join(" or ");
            return Err(BetError::NotAJackpotType { spots, allowed });
        }
        self.plays_as(schedule, spots)
            .ok_or(BetError::ScheduleNotOffered { schedule, spots })
    }
}

fn check_groups(marks: &Marks) -> Result<(), SelectionError> {
    if marks.groups.is_empty() {
        return Err(SelectionError::NoGroups);
    }
    let mut all = NumberSet::EMPTY;
    for (i, &g) in marks.groups.iter().enumerate() {
        if g.is_empty() {
            return Err(SelectionError::EmptyGroup { group: i + 1 });
        }
        if let Some(n) = g.numbers().find(|&n| all.contains(n)) {
            return Err(SelectionError::NumberInTwoGroups { number: n });
        }
        all = all.union(g);
    }
    if marks.combine.is_empty() {
        return Err(SelectionError::NoCombine);
    }
    let mut seen = 0u128;
    for &k in &marks.combine {
        if k == 0 || k as usize > marks.groups.len() {
            return Err(SelectionError::CombineOutOfRange {
                k,
                groups: marks.groups.len(),
            });
        }
        if seen & (1 << k) != 0 {
            return Err(SelectionError::CombineRepeated { k });
        }
        seen |= 1 << k;
    }
    Ok(())
}

/// Calls `f` with every `k`-subset of `0..n`, in lexicographic order.
fn for_each_combination(n: usize, k: usize, mut f: impl FnMut(&[usize])) {
    if k > n {
        return;
    }
    let mut idx: Vec<usize> = (0..k).collect();
    loop {
        f(&idx);
        let Some(i) = (0..k).rev().find(|&i| idx[i] != i + n - k) else {
            return;
        };
        idx[i] += 1;
        for j in i + 1..k {
            idx[j] = idx[j - 1] + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> RuleSet {
        RuleSet::act_1992()
    }

    fn way(groups: &[&[u8]], combine: &[u8]) -> Marks {
        Marks {
            kind: BetKind::Way,
            groups: groups
                .iter()
                .map(|g| NumberSet::from_numbers(g).unwrap())
                .collect(),
            combine: combine.to_vec(),
        }
    }

    fn standard(spots: &[u8]) -> Marks {
        Marks {
            kind: BetKind::Standard,
            groups: vec![NumberSet::from_numbers(spots).unwrap()],
            combine: vec![1],
        }
    }

    #[test]
    fn combinations_are_all_k_subsets_in_order() {
        let mut seen = Vec::new();
        for_each_combination(4, 2, |c| seen.push(c.to_vec()));
        assert_eq!(
            seen,
            vec![
                vec![0, 1],
                vec![0, 2],
                vec![0, 3],
                vec![1, 2],
                vec![1, 3],
                vec![2, 3]
            ]
        );
        let mut count = 0;
        for_each_combination(10, 4, |_| count += 1);
        assert_eq!(count, 210);
        assert_eq!(binomial(10, 4), 210);
    }

    #[test]
    fn rule_5_5_b_diagram_c_two_groups_combined_is_one_way_of_four() {
        // Diagram C: "SELECTION(S): 06 45-36 80", "1/04 $3".
        let plan = rules()
            .plan(way(&[&[6, 45], &[36, 80]], &[2]), ScheduleId::Standard)
            .unwrap();
        assert_eq!(plan.ways.len(), 1);
        assert_eq!(plan.ways[0].numbers.to_vec(), vec![6, 36, 45, 80]);
        assert_eq!(plan.way_counts(), vec![WayCount { count: 1, spots: 4 }]);
    }

    #[test]
    fn rule_12_8_each_union_of_k_groups_is_a_way_even_with_equal_spots() {
        // Three groups of 4 played two at a time: "3/08"; and all together: "1/12".
        let plan = rules()
            .plan(
                way(
                    &[&[1, 2, 3, 4], &[11, 12, 13, 14], &[21, 22, 23, 24]],
                    &[3, 2],
                ),
                ScheduleId::Standard,
            )
            .unwrap();
        assert_eq!(
            plan.way_counts(),
            vec![
                WayCount { count: 3, spots: 8 },
                WayCount {
                    count: 1,
                    spots: 12
                }
            ]
        );
        let distinct: std::collections::HashSet<_> = plan.ways.iter().map(|w| w.numbers).collect();
        assert_eq!(distinct.len(), 4);
    }

    #[test]
    fn kings_are_groups_of_one() {
        // Four kings plus a group of 3, every 2 of the 5 groups: C(5,2) = 10 ways.
        let plan = rules()
            .plan(
                way(&[&[1], &[2], &[3], &[4], &[50, 51, 52]], &[2]),
                ScheduleId::Standard,
            )
            .unwrap();
        assert_eq!(
            plan.way_counts(),
            vec![
                WayCount { count: 6, spots: 2 },
                WayCount { count: 4, spots: 4 }
            ]
        );
    }

    #[test]
    fn interpretation_6_and_8_spot_standard_ways_play_special_1() {
        let r = rules();
        for (spots, under) in [
            (5u8, ScheduleId::Standard),
            (6, ScheduleId::Special1),
            (7, ScheduleId::Standard),
            (8, ScheduleId::Special1),
        ] {
            let nums: Vec<u8> = (1..=spots).collect();
            let plan = r.plan(standard(&nums), ScheduleId::Standard).unwrap();
            assert_eq!(plan.ways[0].plays_under, under, "{spots} spots");
        }
    }

    #[test]
    fn rule_18_2_special_1_other_spot_counts_play_the_standard_schedule() {
        let plan = rules()
            .plan(standard(&[1, 2, 3]), ScheduleId::Special1)
            .unwrap();
        assert_eq!(plan.ways[0].plays_under, ScheduleId::Standard);
    }

    #[test]
    fn rule_18_3_special_2_only_for_3_to_6_spots() {
        let r = rules();
        assert_eq!(r.offered_spots(ScheduleId::Special2), vec![3, 4, 5, 6]);
        assert_eq!(
            r.plan(standard(&[1, 2, 3, 4, 5, 6, 7]), ScheduleId::Special2),
            Err(BetError::ScheduleNotOffered {
                schedule: ScheduleId::Special2,
                spots: 7
            })
        );
        let ok = r.plan(standard(&[1, 2, 3]), ScheduleId::Special2).unwrap();
        assert_eq!(ok.ways[0].plays_under, ScheduleId::Special2);
    }

    #[test]
    fn rule_18_4_special_3_is_refused_until_approved() {
        let err = rules()
            .plan_sale(
                standard(&[1, 2, 3]),
                ScheduleId::Special3,
                Special3Approval::InForce,
            )
            .unwrap_err();
        // The built-in rules define no Special 3: even an approval cannot sell it.
        assert_eq!(err, BetError::ScheduleNotApproved);
        assert_eq!(err.rule(), "18.4");

        let text = format!(
            "{}\n[schedules.special3]\nbase_wager_cents = 100\ncolumns = [ {{ spots = 4, pays = {{ 3 = 500, 4 = 15000 }} }} ]\n",
            crate::rules::ACT_1992_TOML
        );
        let promo = RuleSet::from_toml_str(&text).unwrap();
        let four = || standard(&[1, 2, 3, 4]);
        assert_eq!(
            promo.plan_sale(four(), ScheduleId::Special3, Special3Approval::NotInForce),
            Err(BetError::ScheduleNotApproved)
        );
        let plan = promo
            .plan_sale(four(), ScheduleId::Special3, Special3Approval::InForce)
            .unwrap();
        assert_eq!(plan.ways[0].plays_under, ScheduleId::Special3);
        // A ticket already sold plans (and settles) whatever the approval is now.
        assert_eq!(promo.plan(four(), ScheduleId::Special3), Ok(plan));
        // Other schedules never need it.
        assert!(promo
            .plan_sale(four(), ScheduleId::Standard, Special3Approval::NotInForce)
            .is_ok());
        assert!(promo.may_play_special3(ScheduleId::Special3));
        assert!(!promo.may_play_special3(ScheduleId::Standard));
    }

    fn set_bet(groups: &[&[u8]], combine: &[u8], mode: SetMode) -> Bet {
        Bet::SetBet {
            groups: groups.iter().map(|g| g.to_vec()).collect(),
            combine: combine.to_vec(),
            mode,
        }
    }

    #[test]
    fn rule_6_3_h_a_fixed_set_bet_plays_the_catalogue_numbers_as_a_way_ticket() {
        use rand_chacha::ChaCha20Rng;
        use rand_core::SeedableRng;
        let r = rules();
        let groups: &[&[u8]] = &[&[1, 2, 3], &[11, 12, 13], &[21, 22, 23]];
        let marks = set_bet(groups, &[2], SetMode::Fixed)
            .mark(&r, ScheduleId::Standard, &mut ChaCha20Rng::seed_from_u64(1))
            .unwrap();
        assert_eq!(marks.kind, BetKind::SetBet);
        assert_eq!(marks.groups, way(groups, &[2]).groups);
        let set = r
            .plan_sale(marks, ScheduleId::Standard, Special3Approval::NotInForce)
            .unwrap();
        let as_way = r.plan(way(groups, &[2]), ScheduleId::Standard).unwrap();
        assert_eq!(set.ways, as_way.ways);
        assert_eq!(set.way_counts(), vec![WayCount { count: 3, spots: 6 }]);
        // Priced as the way ticket: three ways, $1 minimum each (rule 6.2(d)).
        assert_eq!(r.price(&set, 100, 1), r.price(&as_way, 100, 1));
        assert!(r.price(&set, 50, 1).is_err());
    }

    #[test]
    fn rule_6_3_h_a_random_set_bet_keeps_the_shape_and_changes_the_numbers() {
        use rand_chacha::ChaCha20Rng;
        use rand_core::SeedableRng;
        let r = rules();
        let groups: &[&[u8]] = &[&[1, 2], &[3, 4, 5], &[6]];
        let mut rng = ChaCha20Rng::seed_from_u64(2);
        let mut differ = 0;
        for _ in 0..50 {
            let marks = set_bet(groups, &[1, 3], SetMode::Random)
                .mark(&r, ScheduleId::Standard, &mut rng)
                .unwrap();
            let sizes: Vec<u8> = marks.groups.iter().map(|g| g.len()).collect();
            assert_eq!(sizes, vec![2, 3, 1]);
            assert_eq!(marks.combine, vec![1, 3]);
            if marks.groups != way(groups, &[1]).groups {
                differ += 1;
            }
            let plan = r
                .plan_sale(marks, ScheduleId::Standard, Special3Approval::NotInForce)
                .unwrap();
            assert_eq!(
                plan.way_counts(),
                vec![
                    WayCount { count: 1, spots: 1 },
                    WayCount { count: 1, spots: 2 },
                    WayCount { count: 1, spots: 3 },
                    WayCount { count: 1, spots: 6 }
                ]
            );
        }
        assert!(differ >= 49, "fresh numbers each time");
        // The catalogue's groups are checked as a way ticket's would be.
        let bad = set_bet(&[&[1, 2], &[2, 3]], &[2], SetMode::Fixed)
            .mark(&r, ScheduleId::Standard, &mut rng)
            .unwrap();
        assert_eq!(
            r.plan(bad, ScheduleId::Standard),
            Err(BetError::Selection(SelectionError::NumberInTwoGroups {
                number: 2
            }))
        );
    }

    #[test]
    fn rule_6_3_a_jackpot_ways_must_be_6_or_8_spots() {
        let r = rules();
        let err = r
            .plan(standard(&[1, 2, 3, 4, 5, 6, 7]), ScheduleId::Jackpot)
            .unwrap_err();
        assert_eq!(
            err,
            BetError::NotAJackpotType {
                spots: 7,
                allowed: "6 or 8".into()
            }
        );
        // A jackpot way ticket: groups of 3 combined in pairs give 6-spot jackpot ways.
        let plan = r
            .plan(
                way(&[&[1, 2, 3], &[4, 5, 6], &[7, 8, 9]], &[2]),
                ScheduleId::Jackpot,
            )
            .unwrap();
        assert!(plan
            .ways
            .iter()
            .all(|w| w.plays_under == ScheduleId::Jackpot && w.spots() == 6));
        // ...but not all three together (9 spots).
        assert!(r
            .plan(
                way(&[&[1, 2, 3], &[4, 5, 6], &[7, 8, 9]], &[2, 3]),
                ScheduleId::Jackpot
            )
            .is_err());
    }

    #[test]
    fn rule_5_5_b_way_groups_are_refused_in_words() {
        let r = rules();
        let s = ScheduleId::Standard;
        let sel = |e: SelectionError| Err(BetError::Selection(e));
        assert_eq!(
            r.plan(way(&[&[1, 2], &[2, 3]], &[2]), s),
            sel(SelectionError::NumberInTwoGroups { number: 2 })
        );
        assert_eq!(
            r.plan(way(&[&[1, 2], &[]], &[1]), s),
            sel(SelectionError::EmptyGroup { group: 2 })
        );
        assert_eq!(r.plan(way(&[], &[1]), s), sel(SelectionError::NoGroups));
        assert_eq!(
            r.plan(way(&[&[1], &[2]], &[]), s),
            sel(SelectionError::NoCombine)
        );
        assert_eq!(
            r.plan(way(&[&[1], &[2]], &[3]), s),
            sel(SelectionError::CombineOutOfRange { k: 3, groups: 2 })
        );
        assert_eq!(
            r.plan(way(&[&[1], &[2]], &[0]), s),
            sel(SelectionError::CombineOutOfRange { k: 0, groups: 2 })
        );
        assert_eq!(
            r.plan(way(&[&[1], &[2]], &[1, 1]), s),
            sel(SelectionError::CombineRepeated { k: 1 })
        );
        let big: Vec<u8> = (1..=8).collect();
        let big2: Vec<u8> = (11..=18).collect();
        assert_eq!(
            r.plan(way(&[&big, &big2], &[2]), s),
            sel(SelectionError::WayTooLarge { spots: 16 })
        );
    }

    #[test]
    fn a_way_ticket_too_large_to_price_is_refused_before_its_ways_are_built() {
        // 80 kings, every 7: C(80,7) = 3,176,716,400 ways.
        let kings: Vec<Vec<u8>> = (1..=80).map(|n| vec![n]).collect();
        let refs: Vec<&[u8]> = kings.iter().map(|g| g.as_slice()).collect();
        let err = rules()
            .plan(way(&refs, &[7]), ScheduleId::Standard)
            .unwrap_err();
        assert!(matches!(err, BetError::TicketTotalOverLimit { .. }));
    }

    #[test]
    fn a_single_selection_bet_cannot_carry_groups() {
        let mut marks = way(&[&[1, 2], &[3, 4]], &[2]);
        marks.kind = BetKind::Standard;
        assert_eq!(
            rules().plan(marks, ScheduleId::Standard),
            Err(BetError::Selection(SelectionError::NotAWayTicket))
        );
    }

    #[test]
    fn rule_6_3_c_mystery_quick_picks_play_a_spot_count_the_schedule_offers() {
        use rand_chacha::ChaCha20Rng;
        use rand_core::SeedableRng;
        let r = rules();
        let mut rng = ChaCha20Rng::seed_from_u64(11);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..200 {
            let marks = Bet::MysteryQuickPick
                .mark(&r, ScheduleId::Jackpot, &mut rng)
                .unwrap();
            let spots = marks.groups[0].len();
            seen.insert(spots);
            assert!(r.plan(marks, ScheduleId::Jackpot).is_ok());
        }
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), vec![6, 8]);
        for _ in 0..200 {
            let marks = Bet::MysteryQuickPick
                .mark(&r, ScheduleId::Special2, &mut rng)
                .unwrap();
            assert!((3..=6).contains(&marks.groups[0].len()));
        }
    }

    #[test]
    fn bets_parse_from_the_api_json() {
        let b: Bet = serde_json::from_str(r#"{"type":"standard","spots":[6,45,36,80]}"#).unwrap();
        assert_eq!(
            b,
            Bet::Standard {
                spots: vec![6, 45, 36, 80]
            }
        );
        let b: Bet =
            serde_json::from_str(r#"{"type":"way","groups":[[6,45],[36,80]],"combine":[2]}"#)
                .unwrap();
        assert_eq!(b.kind(), BetKind::Way);
        let b: Bet = serde_json::from_str(r#"{"type":"mystery_quick_pick"}"#).unwrap();
        assert_eq!(b, Bet::MysteryQuickPick);
        let b: Bet = serde_json::from_str(r#"{"type":"quick_pick","count":7}"#).unwrap();
        assert_eq!(b, Bet::QuickPick { count: 7 });
        let b: Bet = serde_json::from_str(
            r#"{"type":"set_bet","groups":[[1],[2]],"combine":[2],"mode":"random"}"#,
        )
        .unwrap();
        assert_eq!(b.kind(), BetKind::SetBet);
        assert!(BetKind::SetBet.is_way_ticket());
        assert!(serde_json::from_str::<Bet>(r#"{"type":"lottery"}"#).is_err());
    }
}
