//! Vouchers (rule 1(n)) on the wire: the request that issues one and the voucher as the API
//! shows it, with its spends and its cash-out.

use serde::{Deserialize, Serialize};

/// A voucher to issue: `amount_cents` for a cash deposit, or `ticket` for a winning ticket paid
/// as a voucher.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct IssueRequest {
    /// Unique per voucher, chosen by the terminal; a retry with the same id issues nothing twice.
    pub request_id: String,
    /// A cash deposit for future gaming (rule 1(n)(i)): 1 cent to $100,000.00.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount_cents: Option<i64>,
    /// The serial of a winning ticket to pay as this voucher instead of in cash (rule 1(n)(ii)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticket: Option<String>,
    /// For a ticket with a major prize (paid by cheque beside the voucher): the claimant and
    /// ID of the hand-pay, and the cheque's number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hand_pay: Option<crate::staff::HandPay>,
}

/// One sale a voucher paid for.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct VoucherSpend {
    /// The ticket sold.
    pub serial: String,
    pub amount_cents: i64,
    /// The balance left after it.
    pub remaining_cents: i64,
    pub spent_at: String,
}

/// A voucher as the API shows it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Voucher {
    /// 22 digits, the last a check digit: unguessable (21 random digits).
    pub code: String,
    pub amount_cents: i64,
    /// What is left: the amount less what sales spent and what was cashed out.
    pub balance_cents: i64,
    /// active | spent (nothing left) | cashed (its balance paid out in cash)
    pub status: String,
    /// deposit (a cash deposit, rule 1(n)(i)) | ticket (a winning ticket paid as a voucher,
    /// 1(n)(ii)) | change (a winning ticket's winnings beyond the sale it paid for)
    pub source: String,
    /// `ticket`: the winning ticket it paid; `change`: the ticket sold.
    pub ticket: Option<String>,
    /// The Keno Day it was issued.
    pub keno_day: String,
    /// The last Keno Day it can be used or cashed at a writer terminal (rule 13.1).
    pub valid_until: String,
    /// Past `valid_until`: only an Unclaimed Prize Claim Form pays it now (`claim_required`).
    pub expired: bool,
    pub issued_at: String,
    pub site: String,
    pub terminal: String,
    /// The operator (keno writer) who issued it.
    pub writer: String,
    /// The sales it paid for, oldest first.
    pub spends: Vec<VoucherSpend>,
    /// Paid out in cash (once).
    pub cashed_cents: i64,
    pub cashed_at: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CashOut {
    /// The balance paid out.
    pub paid_cents: i64,
    /// cash
    pub method: String,
    /// The voucher now: nothing left, status `cashed`.
    pub voucher: Voucher,
}
