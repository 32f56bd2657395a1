//! What the server stores of a ticket's life: its status and how it was paid, as the words of
//! its columns (`tickets.status`, `tickets.pay_method`) and the API.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Where a receipt ticket is in its life.
///
/// A ticket cancelled in part (rule 8.2: the games not yet played of a multi-game ticket) stays
/// `Active`: its played games still win.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TicketStatus {
    /// Sold; not paid, not cancelled whole.
    Active,
    /// Cancelled whole (rule 8): refunded, never paid.
    Cancelled,
    /// Paid once (rule 11.5), by one of [`PayMethod`].
    Paid,
    /// Its wagers voided, a player caught cheating (rule 17.2): it takes no part in a game not
    /// yet settled, and its unpaid prizes are withheld.
    Voided,
}

/// How a winning ticket was paid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PayMethod {
    /// At a terminal, with no major prize (rule 12.2).
    Cash,
    /// At a terminal, with a major prize (rule 12.2).
    Cheque,
    /// As a voucher instead of cash (rule 1(n)(ii)).
    Voucher,
    /// Tendered for a sale (rule 6.1).
    Tender,
    /// By cheque, on an approved Unclaimed Prize Claim Form (rules 13.5, 14).
    ClaimCheque,
    /// At a terminal in parts (rule 12.2): the minor wins in cash, the major prizes by cheque.
    CashAndCheque,
    /// In parts: the minor wins as a voucher (rule 1(n)(ii)), the major prizes by cheque (12.2).
    VoucherAndCheque,
}

/// A ticket status the API does not know.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{0:?} is not a ticket status: active, cancelled, paid or voided")]
pub struct UnknownTicketStatus(pub String);

/// A payment method the API does not know.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error(
    "{0:?} is not a payment method: cash, cheque, voucher, tender, claim_cheque, cash_and_cheque \
     or voucher_and_cheque"
)]
pub struct UnknownPayMethod(pub String);

impl TicketStatus {
    pub const ALL: [TicketStatus; 4] = [
        TicketStatus::Active,
        TicketStatus::Cancelled,
        TicketStatus::Paid,
        TicketStatus::Voided,
    ];

    /// The word stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            TicketStatus::Active => "active",
            TicketStatus::Cancelled => "cancelled",
            TicketStatus::Paid => "paid",
            TicketStatus::Voided => "voided",
        }
    }
}

impl PayMethod {
    pub const ALL: [PayMethod; 7] = [
        PayMethod::Cash,
        PayMethod::Cheque,
        PayMethod::Voucher,
        PayMethod::Tender,
        PayMethod::ClaimCheque,
        PayMethod::CashAndCheque,
        PayMethod::VoucherAndCheque,
    ];

    /// The word stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            PayMethod::Cash => "cash",
            PayMethod::Cheque => "cheque",
            PayMethod::Voucher => "voucher",
            PayMethod::Tender => "tender",
            PayMethod::ClaimCheque => "claim_cheque",
            PayMethod::CashAndCheque => "cash_and_cheque",
            PayMethod::VoucherAndCheque => "voucher_and_cheque",
        }
    }
}

impl FromStr for TicketStatus {
    type Err = UnknownTicketStatus;

    fn from_str(s: &str) -> Result<TicketStatus, UnknownTicketStatus> {
        TicketStatus::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| UnknownTicketStatus(s.into()))
    }
}

impl FromStr for PayMethod {
    type Err = UnknownPayMethod;

    fn from_str(s: &str) -> Result<PayMethod, UnknownPayMethod> {
        PayMethod::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| UnknownPayMethod(s.into()))
    }
}

/// As diesel reads a column through `#[diesel(deserialize_as = String)]`.
impl TryFrom<String> for TicketStatus {
    type Error = UnknownTicketStatus;

    fn try_from(s: String) -> Result<TicketStatus, UnknownTicketStatus> {
        s.parse()
    }
}

/// As diesel reads a column through `#[diesel(deserialize_as = String)]`.
impl TryFrom<String> for PayMethod {
    type Error = UnknownPayMethod;

    fn try_from(s: String) -> Result<PayMethod, UnknownPayMethod> {
        s.parse()
    }
}

impl fmt::Display for TicketStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for PayMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
