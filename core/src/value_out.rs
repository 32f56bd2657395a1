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
//! - A writer takes or hands out money or value at the counter (a sale, a refund, a payment,
//!   a voucher issued or cashed) only with their shift open at that terminal, so every cent is
//!   in a drawer whose count closes the shift (`drawer_for`; `--cash-needs-shift`, on by
//!   default). No approval replaces it: the writer opens a shift.
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
    /// A ticket cancelled and its price refunded (rule 8): the site's rule and the drawer, no
    /// limit (the refund is what the ticket took in).
    Refund,
    /// Another site's ticket read in detail: no value, the site's rule alone.
    Handling,
}

/// Whether a writer's acts at the counter need their shift open (`--cash-needs-shift`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShiftRule {
    /// On by default: every cent a writer takes or hands out is in a drawer.
    Required,
    /// Off: a venue that keeps no drawers per writer.
    NotRequired,
}

/// The acting writer's shift at the terminal they act at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShiftAt {
    Open,
    NoneOpen,
}

/// What value going out is bound by: the payout limit and the drawer rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutLimits {
    pub payout: PayoutTiers,
    pub shift: ShiftRule,
}

/// A writer's act at the counter with no shift open at the terminal: refused, whoever approves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoShift;

/// Why an act of value going out does not go ahead alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Withheld {
    /// Refused: no approval changes it.
    NoShift,
    /// A supervisor's approval given now lets it go ahead.
    NeedsSupervisor(NeedsSupervisor),
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
    /// The acting writer's shift at their terminal (others keep no drawer).
    pub shift: ShiftAt,
}

/// Why a supervisor must approve the act at that moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NeedsSupervisor {
    /// The ticket or voucher is another site's.
    OtherSite,
    /// More than a writer hands out alone.
    AboveLimit { limit_cents: u64 },
}

/// Whether `office` may take money or value in, or hand it out, at the counter: a writer only
/// with their shift open at the terminal. Every such act asks it: a sale and a voucher bought
/// here; the acts out through [`value_out`].
pub fn drawer_for(office: Office, rule: ShiftRule, shift: ShiftAt) -> Result<(), NoShift> {
    match (office, rule, shift) {
        (Office::Writer, ShiftRule::Required, ShiftAt::NoneOpen) => Err(NoShift),
        _ => Ok(()),
    }
}

/// Whether `out` may go ahead alone, needs a supervisor's approval given now, or is refused.
pub fn value_out(out: ValueOut<'_>, limits: OutLimits) -> Result<(), Withheld> {
    if out.office != Office::Writer {
        return Ok(());
    }
    if out.act != OutAct::Handling {
        drawer_for(out.office, limits.shift, out.shift).map_err(|NoShift| Withheld::NoShift)?;
    }
    if out.at_site != Some(out.of_site) {
        return Err(Withheld::NeedsSupervisor(NeedsSupervisor::OtherSite));
    }
    let payout = limits.payout;
    let above = out
        .amount_cents
        .is_some_and(|cents| payout.authority_for(cents) == Authority::Supervisor);
    let limited = !matches!(out.act, OutAct::Handling | OutAct::Refund);
    if above && limited {
        return Err(Withheld::NeedsSupervisor(NeedsSupervisor::AboveLimit {
            limit_cents: payout.writer_limit_cents,
        }));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMIT: OutLimits = OutLimits {
        payout: PayoutTiers {
            writer_limit_cents: 199_999,
        },
        shift: ShiftRule::Required,
    };
    const ABOVE: Withheld = Withheld::NeedsSupervisor(NeedsSupervisor::AboveLimit {
        limit_cents: 199_999,
    });
    const OTHER_SITE: Withheld = Withheld::NeedsSupervisor(NeedsSupervisor::OtherSite);

    fn by_writer(act: OutAct, of_site: &str, amount: Option<u64>) -> Result<(), Withheld> {
        let out = ValueOut {
            act,
            office: Office::Writer,
            at_site: Some("735624"),
            of_site,
            amount_cents: amount,
            shift: ShiftAt::Open,
        };
        value_out(out, LIMIT)
    }

    #[test]
    fn every_path_out_counts_against_one_limit() {
        for act in [OutAct::Payment, OutAct::Tender, OutAct::CashOut] {
            assert_eq!(by_writer(act, "735624", Some(199_999)), Ok(()), "{act:?}");
            assert_eq!(
                by_writer(act, "735624", Some(396_000)),
                Err(ABOVE),
                "{act:?}: the side door of a tender's change and its cash-out is shut"
            );
        }
        assert_eq!(by_writer(OutAct::Handling, "735624", Some(396_000)), Ok(()));
        assert_eq!(by_writer(OutAct::Refund, "735624", Some(396_000)), Ok(()));
    }

    #[test]
    fn a_writer_without_a_shift_hands_nothing_out_whoever_approves() {
        let out = |act, shift| ValueOut {
            act,
            office: Office::Writer,
            at_site: Some("735624"),
            of_site: "111111",
            amount_cents: Some(396_000),
            shift,
        };
        for act in [
            OutAct::Payment,
            OutAct::Tender,
            OutAct::CashOut,
            OutAct::Refund,
        ] {
            assert_eq!(
                value_out(out(act, ShiftAt::NoneOpen), LIMIT),
                Err(Withheld::NoShift),
                "{act:?}: refused before the site or the limit is asked"
            );
            let off = OutLimits {
                shift: ShiftRule::NotRequired,
                ..LIMIT
            };
            assert_eq!(value_out(out(act, ShiftAt::NoneOpen), off), Err(OTHER_SITE));
        }
        assert_eq!(
            value_out(out(OutAct::Handling, ShiftAt::NoneOpen), LIMIT),
            Err(OTHER_SITE),
            "reading a ticket moves no cash"
        );
    }

    #[test]
    fn only_a_writers_acts_need_a_drawer() {
        let (required, none) = (ShiftRule::Required, ShiftAt::NoneOpen);
        assert_eq!(drawer_for(Office::Writer, required, none), Err(NoShift));
        assert_eq!(drawer_for(Office::Writer, required, ShiftAt::Open), Ok(()));
        assert_eq!(
            drawer_for(Office::Writer, ShiftRule::NotRequired, none),
            Ok(())
        );
        assert_eq!(drawer_for(Office::Supervisor, required, none), Ok(()));
    }

    #[test]
    fn another_sites_ticket_or_voucher_needs_a_supervisor_before_its_amount_is_read() {
        for act in [
            OutAct::Payment,
            OutAct::Tender,
            OutAct::CashOut,
            OutAct::Refund,
            OutAct::Handling,
        ] {
            assert_eq!(by_writer(act, "111111", None), Err(OTHER_SITE));
        }
        let supervisor = ValueOut {
            act: OutAct::CashOut,
            office: Office::Supervisor,
            at_site: None,
            of_site: "111111",
            amount_cents: Some(1_000_000),
            shift: ShiftAt::NoneOpen,
        };
        assert_eq!(value_out(supervisor, LIMIT), Ok(()));
    }
}
