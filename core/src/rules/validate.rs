//! Turns a [`RuleSetFile`] into a [`RuleSet`], or into the list of what is wrong with it.
//!
//! Every problem is collected so an operator fixes a file in one pass. A schedule that pays
//! more for fewer catches is allowed (18.1 itself pays 11-15 spots for catching none).

use super::file::{ColumnFile, RuleSetFile, ScheduleFile};
use super::{Caps, GameRules, JackpotType, RuleSet, WagerRules};
use crate::board::MAX_SPOTS;
use crate::schedule::{Pay, PrizeTable, ScheduleId};

/// The largest amount a rule set may name: $10,000,000,000. It keeps every product of an
/// amount and a count of draws (C(80,20) < 2^62) exact in a `u128` (theory.rs, settle.rs).
const MAX_CENTS: i64 = 1_000_000_000_000;

struct Problems(Vec<String>);

impl Problems {
    fn add(&mut self, problem: impl Into<String>) {
        // Links are followed from every schedule and spot count, so a bad one is met often.
        let problem = problem.into();
        if !self.0.contains(&problem) {
            self.0.push(problem);
        }
    }

    /// Checks an amount in cents is positive and returns it as a `u64` (0 when it is not).
    fn positive(&mut self, what: &str, value: i64) -> u64 {
        if value <= 0 {
            self.add(format!("{what} must be more than zero, not {value}"));
            0
        } else if value > MAX_CENTS {
            self.add(format!(
                "{what} is {value}, above the most a rule set may name ({MAX_CENTS})"
            ));
            0
        } else {
            value as u64
        }
    }

    fn not_negative(&mut self, what: &str, value: i64) -> u64 {
        if value < 0 {
            self.add(format!("{what} must not be negative, not {value}"));
            0
        } else if value > MAX_CENTS {
            self.add(format!(
                "{what} is {value}, above the most a rule set may name ({MAX_CENTS})"
            ));
            0
        } else {
            value as u64
        }
    }

    fn spots(&mut self, what: &str, value: i64) -> Option<u8> {
        if (1..=MAX_SPOTS as i64).contains(&value) {
            Some(value as u8)
        } else {
            self.add(format!(
                "{what}: {value} spots is not a spot count; a selection has 1 to {MAX_SPOTS} spots (rule 1(l))"
            ));
            None
        }
    }

    fn count(&mut self, what: &str, value: i64) -> u32 {
        match u32::try_from(value) {
            Ok(v) if v > 0 => v,
            _ => {
                self.add(format!(
                    "{what} must be a whole number above zero, not {value}"
                ));
                0
            }
        }
    }
}

pub(super) fn validate(file: RuleSetFile) -> Result<RuleSet, Vec<String>> {
    let mut p = Problems(Vec::new());
    if file.name.trim().is_empty() {
        p.add("name must not be empty");
    }
    let wagers = wagers(&file, &mut p);
    let games = games(&file, &mut p);
    let caps = caps(&file, &mut p);
    let mystery_spots = mystery(&file, &mut p);
    let jackpots = jackpots(&file, &mut p);
    let (table, plays_as) = schedules(&file, &jackpots, &mut p);

    if !p.0.is_empty() {
        return Err(p.0);
    }
    Ok(RuleSet {
        source: file,
        table,
        plays_as,
        wagers,
        games,
        caps,
        mystery_spots,
        jackpots,
    })
}

fn wagers(file: &RuleSetFile, p: &mut Problems) -> WagerRules {
    let w = &file.wagers;
    let min_cents = p.positive("wagers.min_cents", w.min_cents);
    let step_cents = p.positive("wagers.step_cents", w.step_cents);
    let max_ticket_total_cents =
        p.positive("wagers.max_ticket_total_cents", w.max_ticket_total_cents);
    let mut way_minimums = Vec::new();
    for (i, m) in w.way_minimums.iter().enumerate() {
        let what = format!("wagers.way_minimums[{i}]");
        let from = p.count(&format!("{what}.from_ways"), m.from_ways) as u64;
        let min = p.positive(&format!("{what}.min_cents"), m.min_cents);
        if let Some(&(prev, prev_min)) = way_minimums.last() {
            if from <= prev {
                p.add(format!(
                    "{what}: from_ways must rise from one entry to the next ({from} after {prev})"
                ));
            }
            if min > prev_min {
                p.add(format!("{what}: a ticket of more ways cannot need more per way ({min} after {prev_min}) (rule 6.2(d))"));
            }
        } else if from != 1 {
            p.add(format!(
                "{what}: the first way minimum must be from 1 way, not {from} (rule 6.2(d))"
            ));
        }
        way_minimums.push((from, min));
    }
    if way_minimums.is_empty() {
        p.add("wagers.way_minimums must list at least the minimum from 1 way (rule 6.2(d))");
        way_minimums.push((1, min_cents.max(1)));
    }
    WagerRules {
        min_cents,
        step_cents,
        max_ticket_total_cents,
        way_minimums,
        way_fine_step_cents: p.positive("wagers.way_fine_step_cents", w.way_fine_step_cents),
        way_fine_step_up_to_cents: p.positive(
            "wagers.way_fine_step_up_to_cents",
            w.way_fine_step_up_to_cents,
        ),
        way_coarse_step_cents: p.positive("wagers.way_coarse_step_cents", w.way_coarse_step_cents),
    }
}

fn games(file: &RuleSetFile, p: &mut Problems) -> GameRules {
    let g = &file.games;
    let max_per_ticket = p.count("games.max_per_ticket", g.max_per_ticket);
    let keno_to_go_from = p.count("games.keno_to_go_from", g.keno_to_go_from);
    let mut discounts: Vec<(u32, u32)> = Vec::new();
    for (i, d) in g.discounts.iter().enumerate() {
        let what = format!("games.discounts[{i}]");
        let from = p.count(&format!("{what}.from_games"), d.from_games);
        let free = p.count(&format!("{what}.free_games"), d.free_games);
        if free >= from && from > 0 {
            p.add(format!(
                "{what}: {free} free games of {from} would charge nothing (rule 6.2(a),(b))"
            ));
        }
        if let Some(&(prev, _)) = discounts.last() {
            if from <= prev {
                p.add(format!(
                    "{what}: from_games must rise from one entry to the next ({from} after {prev})"
                ));
            }
        }
        discounts.push((from, free));
    }
    GameRules {
        max_per_ticket,
        keno_to_go_from,
        discounts,
    }
}

fn caps(file: &RuleSetFile, p: &mut Problems) -> Caps {
    let c = &file.caps;
    let caps = Caps {
        per_way_cents: p.positive("caps.per_way_cents", c.per_way_cents),
        game_major_prizes_cents: p
            .positive("caps.game_major_prizes_cents", c.game_major_prizes_cents),
        major_prize_cents: p.positive("caps.major_prize_cents", c.major_prize_cents),
    };
    if caps.game_major_prizes_cents < caps.major_prize_cents {
        p.add("caps.game_major_prizes_cents must be at least caps.major_prize_cents (rules 12.3, 12.4)");
    }
    caps
}

fn mystery(file: &RuleSetFile, p: &mut Problems) -> (u8, u8) {
    let q = &file.quick_pick;
    let min = p.spots("quick_pick.mystery_min_spots", q.mystery_min_spots);
    let max = p.spots("quick_pick.mystery_max_spots", q.mystery_max_spots);
    match (min, max) {
        (Some(min), Some(max)) if min <= max => (min, max),
        (Some(min), Some(max)) => {
            p.add(format!(
                "quick_pick: mystery_min_spots {min} is above mystery_max_spots {max}"
            ));
            (1, 1)
        }
        _ => (1, 1),
    }
}

fn jackpots(file: &RuleSetFile, p: &mut Problems) -> Vec<JackpotType> {
    let mut out: Vec<JackpotType> = Vec::new();
    for (i, j) in file.jackpots.iter().enumerate() {
        let what = format!("jackpots[{i}]");
        let Some(spots) = p.spots(&what, j.spots) else {
            continue;
        };
        if out.iter().any(|o| o.spots == spots) {
            p.add(format!("{what}: a second jackpot type of {spots} spots; each spot count has one pool (rule 7.2)"));
        }
        let bp = j.contribution_basis_points;
        if !(0..=10_000).contains(&bp) {
            p.add(format!(
                "{what}.contribution_basis_points must be 0 to 10000 (100%), not {bp} (rule 7.3)"
            ));
        }
        out.push(JackpotType {
            spots,
            guaranteed_cents: p.positive(&format!("{what}.guaranteed_cents"), j.guaranteed_cents),
            contribution_basis_points: bp.clamp(0, 10_000) as u64,
            min_wager_cents: p.positive(&format!("{what}.min_wager_cents"), j.min_wager_cents),
            step_cents: p.positive(&format!("{what}.step_cents"), j.step_cents),
        });
    }
    out
}

fn special3_approved(file: &RuleSetFile) -> bool {
    file.schedules
        .special3
        .as_ref()
        .is_some_and(|s| s.approved == Some(true))
}

type PlaysAs = [[Option<ScheduleId>; MAX_SPOTS as usize + 1]; 5];

fn schedules(
    file: &RuleSetFile,
    jackpots: &[JackpotType],
    p: &mut Problems,
) -> (PrizeTable, PlaysAs) {
    let mut table = PrizeTable::empty();
    for id in ScheduleId::ALL {
        let Some(schedule) = file.schedules.get(id) else {
            continue;
        };
        let what = format!("schedules.{}", id.key());
        table.set_base(
            id,
            p.positive(
                &format!("{what}.base_wager_cents"),
                schedule.base_wager_cents,
            ),
        );
        if schedule.approved.is_some() && id != ScheduleId::Special3 {
            p.add(format!(
                "{what}.approved: only Special 3 needs the regulator's approval (rule 18.4)"
            ));
        }
        let reference = schedule.approval_reference.as_deref().unwrap_or("").trim();
        if id == ScheduleId::Special3 && schedule.approved == Some(true) && reference.is_empty() {
            p.add(format!("{what}: approved = true needs the approval_reference of the regulator's approval, for the auditors (rule 18.4)"));
        }
        check_links(id, schedule, special3_approved(file), &what, p);
        let mut seen = [false; MAX_SPOTS as usize + 1];
        for column in &schedule.columns {
            let Some(spots) = p.spots(&what, column.spots) else {
                continue;
            };
            if std::mem::replace(&mut seen[spots as usize], true) {
                p.add(format!("{what}: two columns for {spots} spots"));
            }
            if let Some(pays) = column_pays(id, column, spots, jackpots, &what, p) {
                table.set_column(id, spots, &pays);
            }
        }
        if id == ScheduleId::Jackpot {
            for j in jackpots {
                if !seen[j.spots as usize] {
                    p.add(format!(
                        "{what}: no column for the {}-spot jackpot type (rule 7.2)",
                        j.spots
                    ));
                }
            }
        }
    }
    let plays_as = plays_as(file, &table, p);
    (table, plays_as)
}

/// What each schedule's spots play as, once `same_as` links are followed (rule 18.1: the
/// standard schedule covers 1 to 15 spots).
fn plays_as(file: &RuleSetFile, table: &PrizeTable, p: &mut Problems) -> PlaysAs {
    let mut plays_as: PlaysAs = [[None; MAX_SPOTS as usize + 1]; 5];
    for id in ScheduleId::ALL {
        for spots in 1..=MAX_SPOTS {
            plays_as[id.index()][spots as usize] = resolve(file, table, id, spots, p);
        }
    }
    for id in ScheduleId::ALL {
        let columns = file.schedules.get(id).map_or(&[][..], |s| &s.columns[..]);
        for c in columns {
            let (Some(target), Ok(spots @ 1..=MAX_SPOTS)) = (c.same_as, u8::try_from(c.spots))
            else {
                continue;
            };
            if plays_as[id.index()][spots as usize].is_none() {
                p.add(format!(
                    "schedules.{}, {spots} spots: plays as {} which has no prizes for {spots} spots",
                    id.key(),
                    target.key()
                ));
            }
        }
    }
    for spots in 1..=MAX_SPOTS {
        if plays_as[ScheduleId::Standard.index()][spots as usize].is_none() {
            p.add(format!("schedules.standard: no prizes for {spots} spots; the standard schedule covers 1 to 15 spots (rule 18.1)"));
        }
    }
    plays_as
}

fn check_links(
    id: ScheduleId,
    schedule: &ScheduleFile,
    special3_approved: bool,
    what: &str,
    p: &mut Problems,
) {
    let links = schedule
        .columns
        .iter()
        .filter_map(|c| c.same_as)
        .chain(schedule.other_spots_as);
    for target in links {
        if id == ScheduleId::Jackpot {
            p.add(format!("{what}: the jackpot schedule cannot play as another schedule; each jackpot type has its own column (rule 7)"));
        } else if target == ScheduleId::Jackpot {
            p.add(format!("{what}: no spot count can play as the jackpot schedule; a jackpot entry is its own ticket type (rule 6.3(a))"));
        } else if target == id {
            p.add(format!("{what}: a schedule cannot play as itself"));
        } else if target == ScheduleId::Special3 && !special3_approved {
            p.add(format!(
                "{what}: cannot play as Special 3, which is not approved (rule 18.4)"
            ));
        }
    }
}

/// The cells of one column, or `None` (with problems recorded) if it is not a table.
fn column_pays(
    id: ScheduleId,
    column: &ColumnFile,
    spots: u8,
    jackpots: &[JackpotType],
    what: &str,
    p: &mut Problems,
) -> Option<Vec<(u8, Pay)>> {
    let what = format!("{what}, {spots} spots");
    let pays = match (&column.pays, column.same_as) {
        (Some(_), Some(_)) => {
            p.add(format!("{what}: give either pays or same_as, not both"));
            return None;
        }
        (None, None) => {
            p.add(format!(
                "{what}: give the prizes (pays) or the schedule it plays as (same_as)"
            ));
            return None;
        }
        (None, Some(_)) => return None,
        (Some(pays), None) => pays,
    };
    let jackpot = if id == ScheduleId::Jackpot {
        let j = jackpots.iter().find(|j| j.spots == spots);
        if j.is_none() {
            p.add(format!("{what}: the jackpot schedule has a column but [[jackpots]] has no {spots}-spot type (rule 7.2)"));
        }
        j
    } else {
        None
    };
    let mut cells = Vec::with_capacity(pays.len() + 1);
    for (catch, &prize) in pays {
        let catch = catch.0;
        if !(0..=spots as i64).contains(&catch) {
            p.add(format!(
                "{what}: a catch of {catch} is impossible with {spots} spots"
            ));
            continue;
        }
        if jackpot.is_some() && catch == spots as i64 {
            p.add(format!("{what}: leave out catch {catch}; the all-catch of a jackpot type wins the pool (rule 7)"));
            continue;
        }
        let cents = p.not_negative(&format!("{what}, catch {catch}: the prize"), prize);
        cells.push((catch as u8, Pay::Cents(cents)));
    }
    if jackpot.is_some() {
        cells.push((spots, Pay::JackpotPool));
    }
    Some(cells)
}

/// Follows `same_as` and `other_spots_as` to the schedule whose column settles the way.
fn resolve(
    file: &RuleSetFile,
    table: &PrizeTable,
    start: ScheduleId,
    spots: u8,
    p: &mut Problems,
) -> Option<ScheduleId> {
    let mut id = start;
    // Five schedules: a longer chain must have gone round a loop.
    for _ in 0..ScheduleId::ALL.len() {
        let schedule = file.schedules.get(id)?;
        let column = schedule.columns.iter().find(|c| c.spots == spots as i64);
        let next = match column {
            Some(c) if c.pays.is_some() => {
                return table.is_playable(id, spots).then_some(id);
            }
            Some(c) => c.same_as,
            None => schedule.other_spots_as,
        };
        match next {
            Some(ScheduleId::Jackpot) | None => return None,
            Some(next) => {
                if file.schedules.get(next).is_none() {
                    p.add(format!(
                        "schedules.{}, {spots} spots: plays as {} which is not defined",
                        id.key(),
                        next.key()
                    ));
                    return None;
                }
                id = next;
            }
        }
    }
    p.add(format!(
        "schedules.{}, {spots} spots: same_as/other_spots_as go round in a loop",
        start.key()
    ));
    None
}
