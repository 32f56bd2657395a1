//! What a way's win is: a major prize (rule 1(h)), a bonus prize (rule 6.3(e)).

use crate::bet::BetKind;

/// Rule 1(h): a win of `major_prize_cents` ($200 in the ACT rules) or more on a single way is a
/// major prize. Measured after the per-way cap of rule 12.1 (settlement passes the capped
/// prize); a major prize is pro-rated (12.3-12.5) and may be paid by cheque (12.2).
pub fn is_major_prize(prize_cents: u64, major_prize_cents: u64) -> bool {
    prize_cents >= major_prize_cents
}

/// What a bonus prize asks of a way (rule 6.3(e): a set prize for a ticket type and/or value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BonusTerms {
    /// Only ways of tickets of this type; any if `None`.
    pub bet_kind: Option<BetKind>,
    /// Only ways of this many spots; any if `None`.
    pub spots: Option<u8>,
    /// Only ways wagering at least this much.
    pub min_amount_per_way_cents: u64,
    /// The catch that wins it: exactly this many of the way's numbers drawn.
    pub catch: u8,
}

/// One way as settled in a game offering a bonus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WayPlayed {
    /// Its ticket's type.
    pub bet_kind: BetKind,
    pub spots: u8,
    pub amount_per_way_cents: u64,
    /// How many of its numbers were drawn.
    pub catch: u8,
}

/// Rule 6.3(e): whether `way` wins the bonus of `terms`, in a game that offers it: its ticket's
/// type, its spots, its wager and its catch all as the bonus asks. The bonus is won whether or
/// not the schedule pays the way anything.
pub fn wins_bonus(terms: &BonusTerms, way: &WayPlayed) -> bool {
    terms.bet_kind.is_none_or(|k| k == way.bet_kind)
        && terms.spots.is_none_or(|s| s == way.spots)
        && way.amount_per_way_cents >= terms.min_amount_per_way_cents
        && way.catch == terms.catch
}

/// Rule 6.3(e) as decided (INTERPRETATION, "Bonus prizes are prizes") with rule 12.1: a way's
/// prize for one catch is its schedule prize plus the bonus prizes it wins, under the per-way
/// cap. Settlement, the live liability and its simulated draws all take a prize from here.
pub fn way_prize(schedule_cents: u64, bonus_cents: u64, per_way_cents: u64) -> u64 {
    schedule_cents
        .saturating_add(bonus_cents)
        .min(per_way_cents)
}

/// A bonus prize a game offers: what a way must be to win it, and how much.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BonusOffer {
    pub terms: BonusTerms,
    pub prize_cents: u64,
}

/// Rule 6.3(e): what the bonus prizes of `offers` add to a way of a ticket of `bet_kind` with
/// `spots` numbers at `amount_per_way_cents`, for each catch (index = catch, 0 to `spots`).
/// Empty when the game offers none.
pub fn bonus_by_catch(
    offers: &[BonusOffer],
    bet_kind: BetKind,
    spots: u8,
    amount_per_way_cents: u64,
) -> Vec<u64> {
    if offers.is_empty() {
        return Vec::new();
    }
    (0..=spots)
        .map(|catch| {
            let played = WayPlayed {
                bet_kind,
                spots,
                amount_per_way_cents,
                catch,
            };
            offers
                .iter()
                .filter(|o| wins_bonus(&o.terms, &played))
                .map(|o| o.prize_cents)
                .sum()
        })
        .collect()
}

/// Rule 13.2 (INTERPRETATION, "The bonus fund"): what the bonus fund pays of the bonus prizes
/// marked as funded by it that a game's ways won (`won_cents`): all of them while its balance
/// allows, else what is left in it; the operator pays the rest. The fund never goes below 0.
pub fn fund_draw(balance_cents: u64, won_cents: u64) -> u64 {
    balance_cents.min(won_cents)
}

#[cfg(test)]
mod fund_tests {
    use super::fund_draw;

    #[test]
    fn the_fund_pays_what_it_holds_and_no_more() {
        assert_eq!(fund_draw(10_000, 2_500), 2_500);
        assert_eq!(fund_draw(1_000, 2_500), 1_000);
        assert_eq!(fund_draw(0, 2_500), 0);
    }
}
