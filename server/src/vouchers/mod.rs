//! Vouchers (issue 8; rules 1(n), 6.1, 13.1, 13.3).
//!
//! A voucher is issued by a writer for a cash deposit (1(n)(i)), in place of paying a winning
//! ticket (1(n)(ii)), or as the change of a sale paid with a winning ticket (`tickets::tender`).
//! Its code is 21 random digits from the OS CSPRNG and a check digit. It is spent by sales
//! (rule 6.1), in part or in whole, and its balance can be paid out in cash once. It is usable
//! at a writer terminal for twelve months after its Keno Day (13.1); after that only the
//! Unclaimed Prize Claim Form pays it, and it is never moved to a return-to-player use (13.3).
//!
//! Every change is recorded in the voucher's row, its spends in `sale_tenders`, and the audit
//! trail in the same transaction: `voucher_issued`, `voucher_spent`, `voucher_cashed`.

pub mod cash;
pub mod issue;
pub mod lookup;

use diesel::prelude::*;
use getrandom::SysRng;
use rand_core::UnwrapErr;
use serde::Serialize;

use crate::audit::log::Entry;
use crate::db::schema::{sale_tenders, vouchers};
use crate::db::{rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::store::hold::held;
use keno_api::Refusal;
use keno_core::{terminal_deadline, KenoDay};
// The wire's types (keno-api), where the server's modules have always found them.
pub use keno_api::vouchers::{Voucher, VoucherSpend};

/// Where a voucher is in its life, as its column (`vouchers.status`) and the API write it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VoucherStatus {
    /// Something is left on it.
    Active,
    /// Sales spent all of it.
    Spent,
    /// Its balance was paid out in cash (once).
    Cashed,
}

/// Where a voucher's value came from (rule 1(n)), as its column (`vouchers.source`) and the
/// API write it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VoucherSource {
    /// A cash deposit (1(n)(i)).
    Deposit,
    /// A winning ticket paid as a voucher (1(n)(ii)).
    Ticket,
    /// A winning ticket's winnings beyond the sale it paid for.
    Change,
}

impl VoucherSource {
    const ALL: [VoucherSource; 3] = [
        VoucherSource::Deposit,
        VoucherSource::Ticket,
        VoucherSource::Change,
    ];

    /// The word stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            VoucherSource::Deposit => "deposit",
            VoucherSource::Ticket => "ticket",
            VoucherSource::Change => "change",
        }
    }
}

/// A voucher source that is not one.
#[derive(Debug, thiserror::Error)]
#[error("{0:?} is not where a voucher comes from: deposit, ticket or change")]
pub struct UnknownVoucherSource(String);

impl TryFrom<String> for VoucherSource {
    type Error = UnknownVoucherSource;

    fn try_from(s: String) -> Result<VoucherSource, UnknownVoucherSource> {
        VoucherSource::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or(UnknownVoucherSource(s))
    }
}

/// A voucher status that is not one.
#[derive(Debug, thiserror::Error)]
#[error("{0:?} is not a voucher status: active, spent or cashed")]
pub struct UnknownVoucherStatus(String);

impl VoucherStatus {
    /// The word stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            VoucherStatus::Active => "active",
            VoucherStatus::Spent => "spent",
            VoucherStatus::Cashed => "cashed",
        }
    }
}

/// As diesel reads the column through `#[diesel(deserialize_as = String)]`: a word that is no
/// status is an internal error, never a default.
impl TryFrom<String> for VoucherStatus {
    type Error = UnknownVoucherStatus;

    fn try_from(s: String) -> Result<VoucherStatus, UnknownVoucherStatus> {
        [
            VoucherStatus::Active,
            VoucherStatus::Spent,
            VoucherStatus::Cashed,
        ]
        .into_iter()
        .find(|v| v.as_str() == s)
        .ok_or(UnknownVoucherStatus(s))
    }
}

impl std::fmt::Display for VoucherStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The largest voucher a deposit makes: $100,000.00. (A guard against a mistyped amount; money
/// sums stay far from overflowing.)
pub const MAX_DEPOSIT_CENTS: i64 = 10_000_000;

#[derive(Queryable, Selectable, Clone, Debug)]
#[diesel(table_name = vouchers)]
pub struct VoucherRow {
    pub code: String,
    pub principal_id: String,
    pub request_id: Option<String>,
    pub site: String,
    pub terminal: String,
    pub writer: String,
    pub issued_at: i64,
    pub keno_day: String,
    #[diesel(deserialize_as = String)]
    pub source: VoucherSource,
    pub ticket: Option<String>,
    pub amount_cents: i64,
    pub balance_cents: i64,
    #[diesel(deserialize_as = String)]
    pub status: VoucherStatus,
    pub cashed_cents: i64,
    pub cashed_at: Option<i64>,
    pub cashed_by: Option<String>,
    /// The digest of the issue's request (`request_ids::digest`); None for change and for
    /// vouchers issued before it was kept.
    pub request_digest: Option<String>,
}

/// A new voucher's row. The audit trail records the issue as these columns, less the balance
/// and status (they change; the issue's balance is its amount).
#[derive(Insertable, Serialize, Debug)]
#[diesel(table_name = vouchers)]
pub struct NewVoucher<'a> {
    pub code: &'a str,
    pub principal_id: &'a str,
    pub request_id: Option<&'a str>,
    pub site: &'a str,
    pub terminal: &'a str,
    pub writer: &'a str,
    pub issued_at: i64,
    pub keno_day: &'a str,
    pub source: &'a str,
    pub ticket: Option<&'a str>,
    pub amount_cents: i64,
    #[serde(skip)]
    pub balance_cents: i64,
    #[serde(skip)]
    pub status: &'a str,
    /// What a retry is matched against, not evidence: not in the trail.
    #[serde(skip)]
    pub request_digest: Option<&'a str>,
}

impl<'a> From<&'a VoucherRow> for NewVoucher<'a> {
    fn from(v: &'a VoucherRow) -> Self {
        NewVoucher {
            code: &v.code,
            principal_id: &v.principal_id,
            request_id: v.request_id.as_deref(),
            site: &v.site,
            terminal: &v.terminal,
            writer: &v.writer,
            issued_at: v.issued_at,
            keno_day: &v.keno_day,
            source: v.source.as_str(),
            ticket: v.ticket.as_deref(),
            amount_cents: v.amount_cents,
            balance_cents: v.amount_cents,
            status: VoucherStatus::Active.as_str(),
            request_digest: v.request_digest.as_deref(),
        }
    }
}

impl NewVoucher<'_> {
    /// Inserts it; returns the trail's entry, to append last in the transaction.
    pub fn insert(&self, conn: &mut DbConnection) -> QueryResult<Entry> {
        diesel::insert_into(vouchers::table)
            .values(self)
            .execute(conn)?;
        Ok(self.entry())
    }

    pub fn entry(&self) -> Entry {
        Entry::new(
            crate::audit::kind::EntryKind::VoucherIssued,
            self.code,
            serde_json::json!(self),
        )
        .by(self.principal_id)
    }
}

/// A new voucher code: 21 random digits from the OS CSPRNG and a Luhn check digit.
pub fn new_code() -> String {
    keno_core::serial::new_voucher_code(&mut UnwrapErr(SysRng))
}

/// Refuses what is not a voucher code before it reaches the database.
pub fn check_code(code: &str) -> DomainResult<()> {
    if keno_core::serial::is_voucher_code(code) {
        Ok(())
    } else {
        Err(Failure::refuse(Refusal::InvalidVoucherCode,
            format!("{code:?} is not a voucher code (22 digits, the last a check digit): check the digits"),
        ))
    }
}

/// Rule 13.1: the last Keno Day voucher `v` is usable at a writer terminal, twelve months after
/// its own (`keno_core::terminal_deadline`: the one rule of prizes and vouchers alike).
pub fn valid_until(v: &VoucherRow) -> DomainResult<KenoDay> {
    let issued = crate::keno_day::stored(&v.keno_day, format_args!("voucher {}", v.code))?;
    Ok(terminal_deadline(issued))
}

/// Rule 13.1: whether a writer terminal may still take voucher `v` on Keno Day `today`; after
/// its twelve months it is refused `claim_required` (the Unclaimed Prize Claim Form pays it).
pub fn at_a_terminal(v: &VoucherRow, today: KenoDay) -> DomainResult<()> {
    keno_core::at_a_terminal(valid_until(v)?, today)
        .map_err(|e| Failure::from(e).about(format_args!("voucher {}", v.code)))
}

pub fn find(conn: &mut DbConnection, code: &str) -> QueryResult<Option<VoucherRow>> {
    vouchers::table
        .find(code)
        .select(VoucherRow::as_select())
        .first(conn)
        .optional()
}

/// The vouchers of `codes`, held until the transaction ends (PostgreSQL: `FOR UPDATE`, taken in
/// code order so that two transactions never wait on each other; SQLite: the writer's turn).
pub fn lock(conn: &mut DbConnection, codes: &[&str]) -> QueryResult<Vec<VoucherRow>> {
    let q = vouchers::table
        .filter(vouchers::code.eq_any(codes))
        .order(vouchers::code);
    held!(
        conn,
        Hold::Update,
        q.select(VoucherRow::as_select()),
        |c, q| q.load(c)
    )
}

/// The voucher with its spends, as of Keno Day `today`.
pub fn view(conn: &mut DbConnection, v: &VoucherRow, today: KenoDay) -> DomainResult<Voucher> {
    let spends: Vec<(String, i64, i64, i64)> = sale_tenders::table
        .filter(sale_tenders::reference.eq(&v.code))
        .filter(sale_tenders::kind.eq(keno_core::tender::TenderKind::Voucher.as_str()))
        .order((sale_tenders::spent_at, sale_tenders::serial))
        .select((
            sale_tenders::serial,
            sale_tenders::covered_cents,
            sale_tenders::remaining_cents,
            sale_tenders::spent_at,
        ))
        .load(conn)?;
    Ok(Voucher {
        code: v.code.clone(),
        amount_cents: v.amount_cents,
        balance_cents: v.balance_cents,
        status: v.status.to_string(),
        source: v.source.as_str().to_string(),
        ticket: v.ticket.clone(),
        keno_day: v.keno_day.clone(),
        valid_until: valid_until(v)?.to_string(),
        expired: at_a_terminal(v, today).is_err(),
        issued_at: rfc3339(v.issued_at),
        site: v.site.clone(),
        terminal: v.terminal.clone(),
        writer: v.writer.clone(),
        spends: spends
            .into_iter()
            .map(|(serial, amount, remaining, at)| VoucherSpend {
                serial,
                amount_cents: amount,
                remaining_cents: remaining,
                spent_at: rfc3339(at),
            })
            .collect(),
        cashed_cents: v.cashed_cents,
        cashed_at: v.cashed_at.map(rfc3339),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn voucher(keno_day: &str) -> VoucherRow {
        VoucherRow {
            code: "1".repeat(22),
            principal_id: String::new(),
            request_id: None,
            site: String::new(),
            terminal: String::new(),
            writer: String::new(),
            issued_at: 0,
            keno_day: keno_day.into(),
            source: VoucherSource::Deposit,
            ticket: None,
            amount_cents: 100,
            balance_cents: 100,
            status: VoucherStatus::Active,
            cashed_cents: 0,
            cashed_at: None,
            cashed_by: None,
            request_digest: None,
        }
    }

    fn day(text: &str) -> KenoDay {
        text.parse().unwrap()
    }

    #[test]
    fn a_voucher_is_usable_for_twelve_months_after_its_keno_day() {
        assert_eq!(
            valid_until(&voucher("2026-11-23")).unwrap(),
            day("2027-11-23")
        );
        assert_eq!(
            valid_until(&voucher("2028-02-29")).unwrap(),
            day("2029-02-28")
        );
        let v = voucher("2026-11-23");
        assert!(at_a_terminal(&v, day("2026-11-23")).is_ok());
        assert!(at_a_terminal(&v, day("2027-11-23")).is_ok());
        let refused = at_a_terminal(&v, day("2027-11-24")).unwrap_err();
        assert_eq!(refused.refusal(), Some(Refusal::ClaimRequired));
        // A stored Keno Day that does not read is an internal error, never "expired".
        let unreadable = at_a_terminal(&voucher("not a day"), day("2027-11-24"));
        assert!(matches!(unreadable, Err(Failure::Internal(_))));
    }
}
