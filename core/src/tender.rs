//! Tender (rule 6.1): how a sale's total is covered by vouchers and winning receipt tickets.
//!
//! Tenders are applied in the order the player hands them over; whatever they do not cover is
//! paid in cash. A voucher gives what the sale still needs, up to its balance, or exactly the
//! amount the writer names; what is left stays on it. A winning receipt ticket is paid whole
//! (a prize is paid once): what it won beyond what the sale still needs is the player's change
//! (the server returns it as a new voucher). A tender that would cover nothing is refused
//! rather than recorded, so the writer never believes a voucher or ticket was used when it was
//! not.

use thiserror::Error;

use crate::money::Dollars;

/// What is tendered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TenderKind {
    Voucher,
    /// A winning receipt ticket's winnings.
    Ticket,
}

impl TenderKind {
    /// The word stored with a sale's tender.
    pub fn as_str(self) -> &'static str {
        match self {
            TenderKind::Voucher => "voucher",
            TenderKind::Ticket => "ticket",
        }
    }

    /// The kind of a stored word; `None` for a word no server writes.
    pub fn parse(word: &str) -> Option<TenderKind> {
        [TenderKind::Voucher, TenderKind::Ticket]
            .into_iter()
            .find(|k| k.as_str() == word)
    }
}

/// One tender as the server found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offered {
    pub kind: TenderKind,
    /// A voucher's balance; a winning ticket's payable prize.
    pub available_cents: u64,
    /// A voucher tendered for exactly this amount; `None`: what the sale needs, up to the
    /// balance. (Ignored for tickets: a ticket is paid whole.)
    pub amount_cents: Option<u64>,
}

/// What one tender did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Applied {
    /// Of the sale's total.
    pub covered_cents: u64,
    /// A voucher's balance after the sale; 0 for a ticket.
    pub remaining_cents: u64,
    /// A ticket's winnings beyond what it covered: returned to the player.
    pub change_cents: u64,
}

/// How the sale is paid.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Allocation {
    /// One per tender, in order.
    pub applied: Vec<Applied>,
    /// The rest of the total, paid in cash.
    pub cash_cents: u64,
    /// The tickets' winnings beyond the sale, together.
    pub change_cents: u64,
}

impl Allocation {
    pub fn tendered_cents(&self) -> u64 {
        self.applied.iter().map(|a| a.covered_cents).sum()
    }
}

/// A tender refused; `position` counts from 1 in the order tendered.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum TenderError {
    #[error("tender {position} has nothing left on it")]
    Empty { position: usize },
    #[error(
        "tender {position} is not needed: the tenders before it already cover the sale; \
         nothing was spent"
    )]
    NotNeeded { position: usize },
    #[error(
        "tender {position} asks {asked} of a voucher with {balance} left: it cannot be overdrawn"
    )]
    InsufficientBalance {
        position: usize,
        asked: Dollars,
        balance: Dollars,
    },
    #[error(
        "tender {position} asks {asked} of a voucher but the sale needs only {due} more; \
         what is left stays on the voucher"
    )]
    ExceedsSale {
        position: usize,
        asked: Dollars,
        due: Dollars,
    },
    #[error("tender {position} names no amount: a voucher is tendered for at least $0.01")]
    ZeroAmount { position: usize },
}

impl TenderError {
    /// The API's machine code.
    pub fn code(&self) -> &'static str {
        match self {
            TenderError::Empty { .. } => "voucher_empty",
            TenderError::NotNeeded { .. } => "tender_not_needed",
            TenderError::InsufficientBalance { .. } => "insufficient_balance",
            TenderError::ExceedsSale { .. } => "tender_exceeds_sale",
            TenderError::ZeroAmount { .. } => "invalid_amount",
        }
    }

    /// The tender refused, counting from 1.
    pub fn position(&self) -> usize {
        match self {
            TenderError::Empty { position }
            | TenderError::NotNeeded { position }
            | TenderError::InsufficientBalance { position, .. }
            | TenderError::ExceedsSale { position, .. }
            | TenderError::ZeroAmount { position } => *position,
        }
    }
}

/// Covers `total_cents` with `offered`, in order; the rest is cash.
pub fn allocate(total_cents: u64, offered: &[Offered]) -> Result<Allocation, TenderError> {
    let mut due = total_cents;
    let mut out = Allocation::default();
    for (i, o) in offered.iter().enumerate() {
        let position = i + 1;
        if o.available_cents == 0 {
            return Err(TenderError::Empty { position });
        }
        if due == 0 {
            return Err(TenderError::NotNeeded { position });
        }
        let applied = match o.kind {
            TenderKind::Voucher => {
                let amount = match o.amount_cents {
                    Some(0) => return Err(TenderError::ZeroAmount { position }),
                    Some(asked) if asked > o.available_cents => {
                        return Err(TenderError::InsufficientBalance {
                            position,
                            asked: Dollars(asked),
                            balance: Dollars(o.available_cents),
                        })
                    }
                    Some(asked) if asked > due => {
                        return Err(TenderError::ExceedsSale {
                            position,
                            asked: Dollars(asked),
                            due: Dollars(due),
                        })
                    }
                    Some(asked) => asked,
                    None => o.available_cents.min(due),
                };
                Applied {
                    covered_cents: amount,
                    remaining_cents: o.available_cents - amount,
                    change_cents: 0,
                }
            }
            TenderKind::Ticket => {
                let covered = o.available_cents.min(due);
                Applied {
                    covered_cents: covered,
                    remaining_cents: 0,
                    change_cents: o.available_cents - covered,
                }
            }
        };
        due -= applied.covered_cents;
        out.change_cents += applied.change_cents;
        out.applied.push(applied);
    }
    out.cash_cents = due;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn voucher(available: u64, amount: Option<u64>) -> Offered {
        Offered {
            kind: TenderKind::Voucher,
            available_cents: available,
            amount_cents: amount,
        }
    }

    fn ticket(available: u64) -> Offered {
        Offered {
            kind: TenderKind::Ticket,
            available_cents: available,
            amount_cents: None,
        }
    }

    #[test]
    fn a_voucher_pays_in_part_or_in_whole_and_keeps_the_rest() {
        let a = allocate(500, &[voucher(2000, None)]).unwrap();
        assert_eq!(
            a.applied,
            vec![Applied {
                covered_cents: 500,
                remaining_cents: 1500,
                change_cents: 0
            }]
        );
        assert_eq!((a.cash_cents, a.change_cents), (0, 0));
        let a = allocate(500, &[voucher(300, None)]).unwrap();
        assert_eq!((a.applied[0].remaining_cents, a.cash_cents), (0, 200));
        let a = allocate(500, &[voucher(2000, Some(200))]).unwrap();
        assert_eq!((a.applied[0].remaining_cents, a.cash_cents), (1800, 300));
    }

    #[test]
    fn a_ticket_is_paid_whole_and_its_excess_is_change() {
        let a = allocate(500, &[voucher(200, None), ticket(1000)]).unwrap();
        assert_eq!(a.applied[1].covered_cents, 300);
        assert_eq!((a.cash_cents, a.change_cents), (0, 700));
        assert_eq!(a.tendered_cents(), 500);
    }

    #[test]
    fn refusals() {
        assert_eq!(
            allocate(500, &[voucher(400, Some(450))])
                .unwrap_err()
                .code(),
            "insufficient_balance"
        );
        assert_eq!(
            allocate(500, &[voucher(4000, Some(600))])
                .unwrap_err()
                .code(),
            "tender_exceeds_sale"
        );
        let e = allocate(500, &[ticket(900), voucher(100, None)]).unwrap_err();
        assert_eq!((e.code(), e.position()), ("tender_not_needed", 2));
        assert_eq!(
            allocate(500, &[voucher(0, None)]).unwrap_err().code(),
            "voucher_empty"
        );
        assert_eq!(
            allocate(500, &[voucher(10, Some(0))]).unwrap_err().code(),
            "invalid_amount"
        );
    }

    proptest! {
        /// Nothing is created or lost: what the tenders cover plus cash is the total; no voucher
        /// gives more than it has; a ticket gives exactly what it won.
        #[test]
        fn money_is_conserved(
            total in 1u64..1_000_000,
            tenders in proptest::collection::vec((any::<bool>(), 0u64..500_000, proptest::option::of(0u64..500_000)), 0..5),
        ) {
            let offered: Vec<Offered> = tenders
                .iter()
                .map(|&(is_ticket, available, amount)| if is_ticket { ticket(available) } else { voucher(available, amount) })
                .collect();
            if let Ok(a) = allocate(total, &offered) {
                prop_assert_eq!(a.tendered_cents() + a.cash_cents, total);
                for (o, ap) in offered.iter().zip(&a.applied) {
                    prop_assert!(ap.covered_cents > 0);
                    prop_assert_eq!(ap.covered_cents + ap.remaining_cents + ap.change_cents, o.available_cents);
                }
                prop_assert_eq!(a.change_cents, a.applied.iter().map(|x| x.change_cents).sum::<u64>());
            }
        }
    }
}
