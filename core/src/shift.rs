//! A writer's shift at a terminal's drawer: what cash it should hold, and over/short at the
//! close (Nebraska 316-35-615: writer check-out with over/short).
//!
//! Decisions (issue "Running the room"):
//! - A shift opens with a float (the bank) and closes with the cash counted.
//! - Cash comes in for the cash part of each sale (rule 6.1: the rest is tendered by voucher or
//!   winning ticket) and for each voucher bought with cash; it goes out for each cancellation's
//!   refund (rule 8), each prize or refund paid in cash (rule 12.2: cheques and vouchers take no
//!   cash from the drawer, [`paid_from_drawer`]) and each voucher cashed. A tendered ticket's
//!   change is a voucher of its own (rule 6.1 as the server applies it), not cash: it leaves the
//!   drawer only if that voucher is cashed, as a voucher cash-out.
//! - Each movement belongs to the shift in which it happened: the writer's, at that terminal,
//!   between its opening and its close.
//! - Over/short is the count less the expected cash; beyond the tolerance (a setting) a
//!   supervisor signs it off.

use crate::status::PayMethod;

/// The cash a drawer took and gave during a shift, in cents, each sum of its kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DrawerMovements {
    pub sales_cash_cents: u64,
    pub voucher_deposits_cents: u64,
    /// Change handed over in cash for a winning ticket tendered beyond a sale. The server gives
    /// that change as a voucher (`source = "change"`), so it records none here: the field keeps
    /// the drawer's arithmetic whole for a venue that pays change in cash.
    pub tender_change_cents: u64,
    pub refunds_cents: u64,
    pub prizes_cash_cents: u64,
    pub voucher_cash_outs_cents: u64,
}

impl DrawerMovements {
    pub fn cash_in_cents(&self) -> u64 {
        self.sales_cash_cents + self.voucher_deposits_cents
    }

    pub fn cash_out_cents(&self) -> u64 {
        self.tender_change_cents
            + self.refunds_cents
            + self.prizes_cash_cents
            + self.voucher_cash_outs_cents
    }
}

/// What the records say a drawer's writer did in a shift, as sums, before the arithmetic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DrawerRecords {
    /// The totals of the tickets sold, however paid.
    pub sales_cents: u64,
    /// What vouchers and winning tickets covered of those sales (rule 6.1).
    pub tendered_cents: u64,
    /// Vouchers bought with cash (rule 1(n)(i)).
    pub voucher_deposits_cents: u64,
    /// Cancellations' refunds (rule 8).
    pub refunds_cents: u64,
    /// Payments' cash: whole payments in cash and the cash parts of payments in parts
    /// ([`paid_from_drawer`], rule 12.2).
    pub prizes_cash_cents: u64,
    pub voucher_cash_outs_cents: u64,
}

/// Tenders that cover more than the sales they paid: a record that cannot be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("tenders cover {tendered_cents} cents of sales of {sales_cents} cents")]
pub struct OverTendered {
    pub sales_cents: u64,
    pub tendered_cents: u64,
}

impl DrawerRecords {
    /// The drawer's movements: a sale's cash is its total less what was tendered (rule 6.1);
    /// a tendered ticket's change is a voucher, not cash.
    pub fn movements(&self) -> Result<DrawerMovements, OverTendered> {
        let sales_cash_cents =
            self.sales_cents
                .checked_sub(self.tendered_cents)
                .ok_or(OverTendered {
                    sales_cents: self.sales_cents,
                    tendered_cents: self.tendered_cents,
                })?;
        Ok(DrawerMovements {
            sales_cash_cents,
            voucher_deposits_cents: self.voucher_deposits_cents,
            tender_change_cents: 0,
            refunds_cents: self.refunds_cents,
            prizes_cash_cents: self.prizes_cash_cents,
            voucher_cash_outs_cents: self.voucher_cash_outs_cents,
        })
    }
}

/// The cash the drawer should hold: the float, plus cash in, less cash out. Negative only if
/// the records say more went out than the float and takings held, which the count then shows.
pub fn expected_cash(float_cents: u64, movements: &DrawerMovements) -> i64 {
    let held = i128::from(float_cents) + i128::from(movements.cash_in_cents())
        - i128::from(movements.cash_out_cents());
    i64::try_from(held).unwrap_or(if held < 0 { i64::MIN } else { i64::MAX })
}

/// A shift's balance at its close.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Balance {
    pub expected_cents: i64,
    pub counted_cents: u64,
    /// Counted less expected: positive over, negative short.
    pub over_short_cents: i64,
    /// Beyond the tolerance: a supervisor must sign it off.
    pub needs_sign_off: bool,
}

pub fn balance(
    float_cents: u64,
    movements: &DrawerMovements,
    counted_cents: u64,
    tolerance_cents: u64,
) -> Balance {
    let expected_cents = expected_cash(float_cents, movements);
    let over_short_cents = i64::try_from(counted_cents)
        .unwrap_or(i64::MAX)
        .saturating_sub(expected_cents);
    Balance {
        expected_cents,
        counted_cents,
        over_short_cents,
        needs_sign_off: over_short_cents.unsigned_abs() > tolerance_cents,
    }
}

/// How much of a ticket's payment left the drawer as cash, by the method it was paid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaidFromDrawer {
    /// All of it: paid in cash at the terminal (rule 12.2, no major prize or the major prizes
    /// paid in cash by choice).
    Whole,
    /// Its cash parts only: paid in parts, the minor wins in cash and the major prizes by
    /// cheque (rule 12.2).
    CashParts,
    /// None: by cheque (12.2, 13.5), as a voucher (1(n)(ii)) or tendered for a sale (6.1).
    Nothing,
}

/// The drawer's share of a payment by `method`.
pub fn paid_from_drawer(method: PayMethod) -> PaidFromDrawer {
    match method {
        PayMethod::Cash => PaidFromDrawer::Whole,
        PayMethod::CashAndCheque => PaidFromDrawer::CashParts,
        PayMethod::Cheque
        | PayMethod::Voucher
        | PayMethod::Tender
        | PayMethod::ClaimCheque
        | PayMethod::VoucherAndCheque => PaidFromDrawer::Nothing,
    }
}

/// The methods whose payments leave the drawer as `share`: what the server's sums select on.
pub fn methods_paid(share: PaidFromDrawer) -> impl Iterator<Item = PayMethod> {
    PayMethod::ALL
        .into_iter()
        .filter(move |m| paid_from_drawer(*m) == share)
}

/// The most a float or a count may be: $1,000,000.00. A guard against a mistyped amount (no
/// drawer holds that much), which also keeps every sum far from overflowing.
pub const MAX_DRAWER_CENTS: i64 = 100_000_000;

/// A float or a count that cannot be: below zero, or above [`MAX_DRAWER_CENTS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("an amount of cash in a drawer is 0 to 100000000 cents ($1,000,000.00), not {0}")]
pub struct DrawerAmountError(pub i64);

/// A float or a count as typed, checked.
pub fn drawer_amount(cents: i64) -> Result<u64, DrawerAmountError> {
    if (0..=MAX_DRAWER_CENTS).contains(&cents) {
        Ok(cents as u64)
    } else {
        Err(DrawerAmountError(cents))
    }
}

/// Where a shift stands, from its record: open until closed; closed with an over/short beyond
/// the tolerance it waits for a supervisor's sign-off (the decision is the close's, kept with
/// it, so a later change of the setting changes no shift already closed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShiftState {
    Open,
    AwaitingSignOff,
    Closed,
}

impl ShiftState {
    pub fn of(closed: bool, sign_off_required: bool, signed_off: bool) -> ShiftState {
        match (closed, sign_off_required && !signed_off) {
            (false, _) => ShiftState::Open,
            (true, true) => ShiftState::AwaitingSignOff,
            (true, false) => ShiftState::Closed,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ShiftState::Open => "open",
            ShiftState::AwaitingSignOff => "awaiting_sign_off",
            ShiftState::Closed => "closed",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_plus_takings_less_payouts() {
        let m = DrawerMovements {
            sales_cash_cents: 12_500,
            voucher_deposits_cents: 2_000,
            tender_change_cents: 150,
            refunds_cents: 300,
            prizes_cash_cents: 4_000,
            voucher_cash_outs_cents: 1_000,
        };
        assert_eq!(expected_cash(20_000, &m), 20_000 + 14_500 - 5_450);
        let exact = balance(20_000, &m, 29_050, 0);
        assert_eq!(exact.over_short_cents, 0);
        assert!(!exact.needs_sign_off);
        let short = balance(20_000, &m, 29_000, 25);
        assert_eq!(short.over_short_cents, -50);
        assert!(short.needs_sign_off);
        let over = balance(20_000, &m, 29_060, 25);
        assert_eq!(over.over_short_cents, 10);
        assert!(!over.needs_sign_off);
    }

    #[test]
    fn more_out_than_in_is_negative_not_wrapped() {
        let m = DrawerMovements {
            prizes_cash_cents: 5_000,
            ..DrawerMovements::default()
        };
        assert_eq!(expected_cash(1_000, &m), -4_000);
        assert_eq!(balance(1_000, &m, 0, 0).over_short_cents, 4_000);
    }

    #[test]
    fn only_cash_leaves_the_drawer() {
        use PaidFromDrawer::*;
        let share: Vec<(PayMethod, PaidFromDrawer)> = PayMethod::ALL
            .into_iter()
            .map(|m| (m, paid_from_drawer(m)))
            .collect();
        assert_eq!(
            share,
            [
                (PayMethod::Cash, Whole),
                (PayMethod::Cheque, Nothing),
                (PayMethod::Voucher, Nothing),
                (PayMethod::Tender, Nothing),
                (PayMethod::ClaimCheque, Nothing),
                (PayMethod::CashAndCheque, CashParts),
                (PayMethod::VoucherAndCheque, Nothing),
            ]
        );
        assert_eq!(methods_paid(Whole).collect::<Vec<_>>(), [PayMethod::Cash]);
        assert_eq!(
            methods_paid(CashParts).collect::<Vec<_>>(),
            [PayMethod::CashAndCheque]
        );
    }

    #[test]
    fn amounts_are_checked_and_states_follow_the_record() {
        assert_eq!(drawer_amount(0), Ok(0));
        assert_eq!(drawer_amount(MAX_DRAWER_CENTS), Ok(100_000_000));
        assert_eq!(drawer_amount(-1), Err(DrawerAmountError(-1)));
        assert!(drawer_amount(MAX_DRAWER_CENTS + 1).is_err());
        assert_eq!(ShiftState::of(false, false, false), ShiftState::Open);
        assert_eq!(ShiftState::of(true, false, false), ShiftState::Closed);
        assert_eq!(
            ShiftState::of(true, true, false),
            ShiftState::AwaitingSignOff
        );
        assert_eq!(ShiftState::of(true, true, true), ShiftState::Closed);
        assert_eq!(ShiftState::AwaitingSignOff.as_str(), "awaiting_sign_off");
    }

    #[test]
    fn sales_bring_in_what_was_not_tendered() {
        let r = DrawerRecords {
            sales_cents: 1_700,
            tendered_cents: 300,
            voucher_deposits_cents: 2_000,
            refunds_cents: 400,
            prizes_cash_cents: 300,
            voucher_cash_outs_cents: 2_000,
        };
        let m = r.movements().unwrap();
        assert_eq!(
            (m.sales_cash_cents, m.tender_change_cents, m.cash_in_cents()),
            (1_400, 0, 3_400)
        );
        assert_eq!(expected_cash(10_000, &m), 10_000 + 3_400 - 2_700);
        let over = DrawerRecords {
            sales_cents: 100,
            tendered_cents: 200,
            ..DrawerRecords::default()
        };
        assert_eq!(
            over.movements(),
            Err(OverTendered {
                sales_cents: 100,
                tendered_cents: 200
            })
        );
    }
}
