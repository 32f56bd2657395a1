//! Value going out of the room (issue 31): the one rule every act that hands money or value
//! out asks, whatever its path.
//!
//! Decisions (INTERPRETATION.md, "Where a ticket may be handled"; issue "Running the room"):
//! - A writer hands out, alone, only what the ticket or voucher in hand is worth up to the
//!   payout limit, and only for one sold or issued at the writer's own site; beyond either a
//!   supervisor approves at that moment. The amount is everything the one ticket or voucher
//!   hands out by that act, by any path: paid in cash, in parts, or as a voucher; tendered for
//!   a sale (the ticket's whole value goes out: part as the sale, the rest as change); a
//!   voucher cashed out. So a ticket refused payment above the limit cannot leave as a sale's
//!   change and a cash-out instead.
//! - Supervisors and the other offices are not bound here: the routes decide who may act at
//!   all, and the duty table (`duties`) who may take which part.

use crate::duties::Office;
use crate::payout::{Authority, PayoutTiers};

/// What hands value out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutAct {
    /// A ticket paid: in cash, in parts (cash and cheque), or as a voucher.
    Payment,
    /// A winning ticket tendered for a sale, its value the sale's and the change's.
    Tender,
    /// A voucher's balance paid out in cash.
    CashOut,
    /// Another site's ticket read in detail, or cancelled: no value, the site's rule alone.
    Handling,
}

/// One act of handing value out, as the server reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueOut<'a> {
    pub act: OutAct,
    /// The office of whoever acts.
    pub office: Office,
    /// The site the person acts at (a writer's session's), if any.
    pub at_site: Option<&'a str>,
    /// The site the ticket was sold, or the voucher issued, at.
    pub of_site: &'a str,
    /// What the act hands out for that one ticket or voucher, in cents; `None` before it is
    /// known (the site is judged first, before anything of another site's ticket is read).
    pub amount_cents: Option<u64>,
}

/// Why a supervisor must approve the act at that moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NeedsSupervisor {
    /// The ticket or voucher is another site's.
    OtherSite,
    /// More than a writer hands out alone.
    AboveLimit { limit_cents: u64 },
}

/// Whether `out` may go ahead alone, or needs a supervisor's approval given now.
pub fn value_out(out: ValueOut<'_>, payout: PayoutTiers) -> Result<(), NeedsSupervisor> {
    if out.office != Office::Writer {
        return Ok(());
    }
    if out.at_site != Some(out.of_site) {
        return Err(NeedsSupervisor::OtherSite);
    }
    let above = out
        .amount_cents
        .is_some_and(|cents| payout.authority_for(cents) == Authority::Supervisor);
    if above && out.act != OutAct::Handling {
        return Err(NeedsSupervisor::AboveLimit {
            limit_cents: payout.writer_limit_cents,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMIT: PayoutTiers = PayoutTiers {
        writer_limit_cents: 199_999,
    };

    fn by_writer(act: OutAct, of_site: &str, amount: Option<u64>) -> Result<(), NeedsSupervisor> {
        let out = ValueOut {
            act,
            office: Office::Writer,
            at_site: Some("735624"),
            of_site,
            amount_cents: amount,
        };
        value_out(out, LIMIT)
    }

    #[test]
    fn every_path_out_counts_against_one_limit() {
        for act in [OutAct::Payment, OutAct::Tender, OutAct::CashOut] {
            assert_eq!(by_writer(act, "735624", Some(199_999)), Ok(()), "{act:?}");
            assert_eq!(
                by_writer(act, "735624", Some(396_000)),
                Err(NeedsSupervisor::AboveLimit {
                    limit_cents: 199_999
                }),
                "{act:?}: the side door of a tender's change and its cash-out is shut"
            );
        }
        assert_eq!(by_writer(OutAct::Handling, "735624", Some(396_000)), Ok(()));
    }

    #[test]
    fn another_sites_ticket_or_voucher_needs_a_supervisor_before_its_amount_is_read() {
        for act in [
            OutAct::Payment,
            OutAct::Tender,
            OutAct::CashOut,
            OutAct::Handling,
        ] {
            assert_eq!(
                by_writer(act, "111111", None),
                Err(NeedsSupervisor::OtherSite)
            );
        }
        let supervisor = ValueOut {
            act: OutAct::CashOut,
            office: Office::Supervisor,
            at_site: None,
            of_site: "111111",
            amount_cents: Some(1_000_000),
        };
        assert_eq!(value_out(supervisor, LIMIT), Ok(()));
    }
}
