//! Unclaimed Prize Claim Forms (rules 13.1, 14; Diagram E) on the wire: the form a writer
//! records at the counter, and the claim as the API shows it with the tickets that match it.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ClaimReason {
    /// A ticket more than 12 months after its Keno Day (rule 13.1).
    Old,
    /// A lost ticket (rule 14).
    Lost,
    /// A ticket the terminal cannot read (rule 14).
    Mutilated,
}

impl ClaimReason {
    pub fn as_str(self) -> &'static str {
        match self {
            ClaimReason::Old => "old",
            ClaimReason::Lost => "lost",
            ClaimReason::Mutilated => "mutilated",
        }
    }

    /// The reason a word gives, as typed at a terminal.
    pub fn parse(word: &str) -> Option<ClaimReason> {
        [ClaimReason::Old, ClaimReason::Lost, ClaimReason::Mutilated]
            .into_iter()
            .find(|r| r.as_str() == word)
    }
}

/// The form's fields (Diagram E).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ClaimForm {
    pub reason: ClaimReason,
    pub claimant_name: String,
    pub postal_address: String,
    pub phone: String,
    /// Where the ticket was bought (a site or terminal, as the claimant says it).
    pub purchase_place: String,
    /// The date it was bought, YYYY-MM-DD.
    pub purchase_date: String,
    /// About which game.
    pub approx_game: Option<i64>,
    /// How many games the ticket was for.
    pub games: Option<i32>,
    #[serde(default)]
    pub other_details: String,
    /// The serial, if the claimant knows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub serial: Option<String>,
    /// A claim for a voucher rather than a ticket (rules 13.1, 13.3): its code, if the claimant
    /// has it. Not with `serial`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voucher_code: Option<String>,
    /// A lost voucher: the amount it was issued for, with `purchase_date` the Keno Day it was
    /// issued on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voucher_amount_cents: Option<i64>,
    /// The numbers the claimant remembers playing (1 to 80), some or all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numbers: Option<Vec<u8>>,
    /// An amount the claimant remembers: what the ticket cost, or what it won.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount_cents: Option<i64>,
}

/// A voucher a claim may be for (rules 13.1, 13.3).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct VoucherCandidate {
    /// Its code; to a writer, `*` but for the last four digits.
    pub code: String,
    pub site: String,
    pub keno_day: String,
    pub amount_cents: i64,
    /// What is left on it: what a claim would pay.
    pub balance_cents: i64,
    /// active | spent | cashed
    pub status: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Candidate {
    /// The ticket's serial; to a writer, `*` but for the last four digits.
    pub serial: String,
    pub site: String,
    pub terminal: String,
    pub keno_day: String,
    pub first_game: i64,
    pub last_game: i64,
    pub games: i32,
    pub total_cents: i64,
    /// What the ticket is owed now (0 while its games are not all settled).
    pub owed_cents: i64,
    /// Why it is not payable, if it is not (`not_settled`, `no_prize`...).
    pub not_payable: Option<String>,
    /// How it matches what the claimant told, one sentence a fact ("bought at Civic Club (site
    /// 735624)", "5 of the 6 numbers remembered").
    #[serde(default)]
    pub matched: Vec<String>,
}

/// A claim as the API shows it, with the tickets that match it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Claim {
    pub id: i64,
    pub reason: String,
    pub claimant_name: String,
    pub postal_address: String,
    pub phone: String,
    pub purchase_place: String,
    pub purchase_date: String,
    pub approx_game: Option<i64>,
    pub games: Option<i32>,
    pub other_details: String,
    pub serial: Option<String>,
    /// The numbers the claimant remembers playing.
    #[serde(default)]
    pub numbers: Option<Vec<u8>>,
    /// The amount the claimant remembers (what the ticket cost, or what it won).
    #[serde(default)]
    pub amount_cents: Option<i64>,
    /// submitted | approved | rejected | paid
    pub state: String,
    pub recorded_by: String,
    pub recorded_at: String,
    /// The ticket the inspector chose (to a writer, its last four digits only).
    pub ticket_serial: Option<String>,
    pub decided_by: Option<String>,
    pub decided_at: Option<String>,
    pub decision_reason: Option<String>,
    pub paid_cents: Option<i64>,
    pub paid_by: Option<String>,
    pub paid_at: Option<String>,
    pub cheque_reference: Option<String>,
    /// Unpaid tickets that match the form, best first (while the claim is submitted); to a
    /// writer, each serial's last four digits only.
    pub candidates: Vec<Candidate>,
    /// The voucher named on the form, if the claim is for one.
    #[serde(default)]
    pub voucher_code: Option<String>,
    #[serde(default)]
    pub voucher_amount_cents: Option<i64>,
    /// The voucher the inspector approved the claim against (to a writer, its last four digits).
    #[serde(default)]
    pub approved_voucher: Option<String>,
    /// Vouchers with something left that match the form (while the claim is submitted).
    #[serde(default)]
    pub voucher_candidates: Vec<VoucherCandidate>,
}
