//! A writer's shift at a terminal's drawer: what cash it should hold, and over/short at the
//! close (Nebraska 316-35-615: writer check-out with over/short).
//!
//! Decisions (issue "Running the room"):
//! - A shift opens with a float (the bank) and closes with the cash counted.
//! - Cash comes in for the cash part of each sale (rule 6.1: the rest is tendered by voucher or
//!   winning ticket) and for each voucher bought with cash; it goes out for a tendered ticket's
//!   change, each cancellation's refund (rule 8), each prize or refund paid in cash (rule 12.2:
//!   cheques and vouchers take no cash from the drawer) and each voucher cashed.
//! - Each movement belongs to the shift in which it happened: the writer's, at that terminal,
//!   between its opening and its close.
//! - Over/short is the count less the expected cash; beyond the tolerance (a setting) a
//!   supervisor signs it off.

/// The cash a drawer took and gave during a shift, in cents, each sum of its kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DrawerMovements {
    pub sales_cash_cents: u64,
    pub voucher_deposits_cents: u64,
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
}
