//! Voiding the wagers of a player caught cheating (rule 17.2; general rules 17.3, 18.2;
//! INTERPRETATION, "Void wagers of a cheating player").
//!
//! A supervisor names the ticket and says why. Before a game settles, the ticket's ways take no
//! part in it: no prize, no share of pro-rating or of a jackpot pool. After settlement its
//! unpaid prizes are withheld and other players' prizes are not worked out again. The stake is
//! refunded unless the supervisor directs that it be forfeited.

use thiserror::Error;

use crate::status::TicketStatus;

/// Why a ticket's wagers cannot be voided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum VoidRefusal {
    #[error("the ticket is paid: there is nothing left to withhold")]
    AlreadyPaid,
    #[error("the ticket is cancelled")]
    Cancelled,
    #[error("the ticket's wagers are voided already")]
    AlreadyVoided,
}

/// What voiding a ticket returns to the player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Voiding {
    /// The stake not already refunded by a cancellation of some of its games, or nothing when
    /// it is forfeited.
    pub refund_cents: u64,
}

/// Rule 17.2: voiding a ticket of status `status` that cost `total_cents`, of which a
/// cancellation refunded `refunded_cents` already; `forfeit` when the supervisor directs that
/// the stake be forfeited (general rule 18.2).
pub fn void_wagers(
    status: TicketStatus,
    total_cents: u64,
    refunded_cents: u64,
    forfeit: bool,
) -> Result<Voiding, VoidRefusal> {
    match status {
        TicketStatus::Paid => return Err(VoidRefusal::AlreadyPaid),
        TicketStatus::Cancelled => return Err(VoidRefusal::Cancelled),
        TicketStatus::Voided => return Err(VoidRefusal::AlreadyVoided),
        TicketStatus::Active => {}
    }
    let refund_cents = if forfeit {
        0
    } else {
        total_cents.saturating_sub(refunded_cents)
    };
    Ok(Voiding { refund_cents })
}

/// Rule 17.2: whether a ticket voided at `voided_at` (if it was) took part in a game settled at
/// `settled_at`. Voided before the settlement, it did not: no prize, no share. Voided after, it
/// did, and its results stand with its prizes withheld. (Settlement's query of the tickets in
/// play, `server::settlement`, applies the same comparison in SQL.)
pub fn took_part(voided_at: Option<i64>, settled_at: i64) -> bool {
    voided_at.is_none_or(|voided| voided >= settled_at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ticket_voided_before_a_settlement_takes_no_part_in_it() {
        assert!(took_part(None, 100));
        assert!(!took_part(Some(99), 100));
        assert!(took_part(Some(100), 100));
        assert!(took_part(Some(101), 100));
    }

    #[test]
    fn the_stake_left_comes_back_unless_forfeited() {
        let v = void_wagers(TicketStatus::Active, 1_000, 300, false).unwrap();
        assert_eq!(v.refund_cents, 700);
        let v = void_wagers(TicketStatus::Active, 1_000, 300, true).unwrap();
        assert_eq!(v.refund_cents, 0);
    }

    #[test]
    fn only_an_active_ticket_is_voided() {
        for (status, refusal) in [
            (TicketStatus::Paid, VoidRefusal::AlreadyPaid),
            (TicketStatus::Cancelled, VoidRefusal::Cancelled),
            (TicketStatus::Voided, VoidRefusal::AlreadyVoided),
        ] {
            assert_eq!(void_wagers(status, 100, 0, false), Err(refusal));
        }
    }
}
