//! What each game of a ticket came to, as everyone who reads the ticket is told it: the
//! writer's panel, the player's check page, a reprint. One answer, from the pay's own decision
//! ([`crate::payable`]): a view never offers a prize the pay refuses, nor says "won" of a prize
//! the ticket cannot collect yet.
//!
//! - Rule 8: games cancelled are never played; the cancellation refunded them.
//! - Rule 11.5: a ticket is paid once, after its last game: a game won before then is payable
//!   only after that game.
//! - Rule 13.1: after twelve months, only by an Unclaimed Prize Claim Form.
//! - Rule 17.2: a voided ticket takes no part in a game not yet settled; its prizes are withheld.
//! - General rule 18.2: an invalidated game's wager is refunded, with the ticket's payment.

use crate::game::GameState;
use crate::payable::{PayRefusal, Payable};
use crate::status::TicketStatus;

/// When what a game won (or refunds) reaches the player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collect {
    /// A writer pays it today.
    Now,
    /// Rule 11.5: with the ticket's one payment, once game `n` (its last) is over.
    AfterGame(u64),
    /// Paid already, with the ticket.
    Paid,
    /// Rule 13.1: more than twelve months on, by an Unclaimed Prize Claim Form.
    ByClaim,
    /// Rule 17.2: the ticket was voided; its prizes are withheld.
    Withheld,
}

/// One game of a ticket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameStanding {
    /// Not drawn yet: on sale, closed, or not opened.
    ToCome,
    /// Being drawn, or drawn and not yet settled.
    Drawing,
    /// Settled; nothing won.
    NoPrize,
    /// Settled with a prize.
    Won { prize_cents: u64, collect: Collect },
    /// General rule 18.2: invalidated; the wager comes back with the ticket's payment.
    Invalidated { refund_cents: u64, collect: Collect },
    /// Rule 8: cancelled, never played. The refund is this game's when the cancellation
    /// refunded each game its cost; `None` when it refunded the ticket whole at a discount
    /// (Keno To Go, rule 1(f)) and no one game's share was ever stated.
    Cancelled { refund_cents: Option<u64> },
    /// Rule 17.2: the ticket was voided before this game was settled: it takes no part.
    Excluded,
}

/// One game of the ticket as the server has it: its state (`None`: not opened yet), what the
/// ticket won in it and what its invalidation refunded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TicketGame {
    pub game: u64,
    pub state: Option<GameState>,
    pub prize_cents: u64,
    pub refund_cents: u64,
}

/// What the views read of a ticket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TicketFacts {
    pub status: TicketStatus,
    /// The games it still plays, first to last played, in order.
    pub played: Vec<TicketGame>,
    /// Rule 8: the games cancelled, in order, and what their cancellation refunded.
    pub cancelled: Vec<u64>,
    pub cancel_refund_cents: u64,
    pub game_cost_cents: u64,
    /// [`crate::payable`] of the same ticket today.
    pub payable: Result<Payable, PayRefusal>,
}

/// Every game of the ticket, played then cancelled, with what it came to.
pub fn game_standings(facts: &TicketFacts) -> Vec<(u64, GameStanding)> {
    let collect = collect(&facts.payable);
    let mut out: Vec<(u64, GameStanding)> = facts
        .played
        .iter()
        .map(|g| (g.game, game_standing(g, facts.status, collect)))
        .collect();
    let each = cancelled_refund(facts);
    out.extend(
        facts
            .cancelled
            .iter()
            .map(|&g| (g, GameStanding::Cancelled { refund_cents: each })),
    );
    out
}

fn game_standing(g: &TicketGame, status: TicketStatus, collect: Collect) -> GameStanding {
    match g.state {
        Some(GameState::Settled) if g.prize_cents > 0 => GameStanding::Won {
            prize_cents: g.prize_cents,
            collect,
        },
        Some(GameState::Settled) => GameStanding::NoPrize,
        Some(GameState::Invalidated) => GameStanding::Invalidated {
            refund_cents: g.refund_cents,
            collect,
        },
        // Rule 17.2: a voided ticket plays no game not yet settled.
        _ if status == TicketStatus::Voided => GameStanding::Excluded,
        Some(GameState::Drawing | GameState::Drawn | GameState::Void) => GameStanding::Drawing,
        Some(GameState::Open | GameState::Closed) | None => GameStanding::ToCome,
    }
}

/// Rules 11.5, 13.1, 17.2: when the ticket's wins and refunds are collected, from the pay's
/// own answer. The refusals that leave nothing to collect (cancelled whole, nothing won) have no
/// game that won or refunds; "now" is as true of them as anything.
fn collect(payable: &Result<Payable, PayRefusal>) -> Collect {
    match payable {
        Ok(_) => Collect::Now,
        Err(PayRefusal::AlreadyPaid) => Collect::Paid,
        Err(PayRefusal::NotSettled { last_game, .. }) => Collect::AfterGame(*last_game),
        Err(PayRefusal::ClaimRequired(_)) => Collect::ByClaim,
        Err(PayRefusal::Voided) => Collect::Withheld,
        Err(PayRefusal::Cancelled | PayRefusal::NoPrize | PayRefusal::ChequeOnly { .. }) => {
            Collect::Now
        }
    }
}

/// Rule 8: a cancellation refunds each game its cost, except a whole Keno To Go ticket, which
/// gets back what was paid for it (the free games included): then no game has a share.
fn cancelled_refund(facts: &TicketFacts) -> Option<u64> {
    let games = u64::try_from(facts.cancelled.len()).ok()?;
    (facts.game_cost_cents.checked_mul(games) == Some(facts.cancel_refund_cents))
        .then_some(facts.game_cost_cents)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keno_day::KenoDay;
    use crate::status::PayMethod;

    fn game(game: u64, state: Option<GameState>, prize_cents: u64) -> TicketGame {
        TicketGame {
            game,
            state,
            prize_cents,
            refund_cents: 0,
        }
    }

    fn facts(played: Vec<TicketGame>, payable: Result<Payable, PayRefusal>) -> TicketFacts {
        TicketFacts {
            status: TicketStatus::Active,
            played,
            cancelled: vec![],
            cancel_refund_cents: 0,
            game_cost_cents: 200,
            payable,
        }
    }

    fn payable(total_cents: u64) -> Payable {
        Payable {
            total_cents,
            prizes_cents: total_cents,
            refunds_cents: 0,
            major: false,
            major_cents: 0,
            deadline: KenoDay::new(2027, 11, 24).expect("a day"),
            method: PayMethod::Cash,
        }
    }

    #[test]
    fn rule_11_5_a_game_won_before_the_last_is_payable_after_the_last() {
        let f = facts(
            vec![
                game(7, Some(GameState::Settled), 400),
                game(8, Some(GameState::Drawing), 0),
                game(9, Some(GameState::Open), 0),
            ],
            Err(PayRefusal::NotSettled {
                first_game: 7,
                last_game: 9,
            }),
        );
        assert_eq!(
            game_standings(&f),
            vec![
                (
                    7,
                    GameStanding::Won {
                        prize_cents: 400,
                        collect: Collect::AfterGame(9)
                    }
                ),
                (8, GameStanding::Drawing),
                (9, GameStanding::ToCome),
            ]
        );
    }

    #[test]
    fn a_settled_ticket_collects_now_and_a_paid_one_says_paid() {
        let mut f = facts(
            vec![
                game(7, Some(GameState::Settled), 0),
                game(8, Some(GameState::Settled), 150),
            ],
            Ok(payable(150)),
        );
        let won = |s: &[(u64, GameStanding)]| s[1].1;
        assert_eq!(game_standings(&f)[0].1, GameStanding::NoPrize);
        assert_eq!(
            won(&game_standings(&f)),
            GameStanding::Won {
                prize_cents: 150,
                collect: Collect::Now
            }
        );
        f.status = TicketStatus::Paid;
        f.payable = Err(PayRefusal::AlreadyPaid);
        assert_eq!(
            won(&game_standings(&f)),
            GameStanding::Won {
                prize_cents: 150,
                collect: Collect::Paid
            }
        );
    }

    #[test]
    fn rule_8_cancelled_games_follow_the_played_with_each_games_refund() {
        let mut f = facts(
            vec![game(7, Some(GameState::Settled), 0)],
            Err(PayRefusal::NoPrize),
        );
        f.cancelled = vec![8, 9];
        f.cancel_refund_cents = 400;
        assert_eq!(
            game_standings(&f)[1..],
            [
                (
                    8,
                    GameStanding::Cancelled {
                        refund_cents: Some(200)
                    }
                ),
                (
                    9,
                    GameStanding::Cancelled {
                        refund_cents: Some(200)
                    }
                ),
            ]
        );
        // Rule 1(f): a Keno To Go ticket cancelled whole gets back what was paid, free games
        // and all: no game has a share of it.
        f.cancel_refund_cents = 390;
        assert_eq!(
            game_standings(&f)[1].1,
            GameStanding::Cancelled { refund_cents: None }
        );
    }

    #[test]
    fn rule_18_2_an_invalidated_game_refunds_with_the_payment() {
        let mut f = facts(
            vec![TicketGame {
                refund_cents: 200,
                ..game(7, Some(GameState::Invalidated), 0)
            }],
            Ok(payable(200)),
        );
        assert_eq!(
            game_standings(&f)[0].1,
            GameStanding::Invalidated {
                refund_cents: 200,
                collect: Collect::Now
            }
        );
        f.payable = Err(PayRefusal::ClaimRequired(crate::deadline::ClaimRequired {
            deadline: KenoDay::new(2026, 1, 1).expect("a day"),
        }));
        assert_eq!(
            game_standings(&f)[0].1,
            GameStanding::Invalidated {
                refund_cents: 200,
                collect: Collect::ByClaim
            }
        );
    }

    #[test]
    fn rule_17_2_a_voided_ticket_plays_no_game_not_yet_settled_and_its_prize_is_withheld() {
        let mut f = facts(
            vec![
                game(7, Some(GameState::Settled), 500),
                game(8, Some(GameState::Closed), 0),
            ],
            Err(PayRefusal::Voided),
        );
        f.status = TicketStatus::Voided;
        assert_eq!(
            game_standings(&f),
            vec![
                (
                    7,
                    GameStanding::Won {
                        prize_cents: 500,
                        collect: Collect::Withheld
                    }
                ),
                (8, GameStanding::Excluded),
            ]
        );
    }
}
