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

use chrono::{Local, Months, NaiveDate};
use diesel::prelude::*;
use getrandom::SysRng;
use rand_core::UnwrapErr;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::audit::log::Entry;
use crate::db::schema::{sale_tenders, vouchers};
use crate::db::{rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::state::AppState;
use crate::store::hold::held;
use keno_api::Refusal;

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
    pub source: String,
    pub ticket: Option<String>,
    pub amount_cents: i64,
    pub balance_cents: i64,
    pub status: String,
    pub cashed_cents: i64,
    pub cashed_at: Option<i64>,
    pub cashed_by: Option<String>,
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
            source: &v.source,
            ticket: v.ticket.as_deref(),
            amount_cents: v.amount_cents,
            balance_cents: v.amount_cents,
            status: "active",
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
        Entry::new("voucher_issued", self.code, serde_json::json!(self)).by(self.principal_id)
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

/// The last Keno Day a voucher of Keno Day `keno_day` is usable at a writer terminal: twelve
/// months on (rule 13.1; the 29th of February gives the 28th).
pub fn valid_until(keno_day: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(keno_day, "%Y-%m-%d")
        .ok()?
        .checked_add_months(Months::new(12))
}

/// Whether a voucher of `keno_day` is past its twelve months on Keno Day `today`.
pub fn expired(keno_day: &str, today: &str) -> bool {
    match valid_until(keno_day) {
        Some(last) => last.format("%Y-%m-%d").to_string().as_str() < today,
        None => true,
    }
}

/// The refusal of an expired voucher (rule 13.1).
pub fn claim_required(v: &VoucherRow) -> Failure {
    Failure::refuse(
        Refusal::ClaimRequired,
        format!(
            "voucher {} of Keno Day {} could be used at a writer terminal until Keno Day {} \
             (12 months, rule 13.1): the player may claim it with the Unclaimed Prize Claim Form",
            v.code,
            v.keno_day,
            valid_until(&v.keno_day).map_or_else(String::new, |d| d.to_string())
        ),
    )
}

/// The Keno Day now: the one started most recently.
pub fn today(state: &AppState) -> String {
    state
        .settings
        .hours
        .latest_started_day(Local::now())
        .format("%Y-%m-%d")
        .to_string()
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

/// One sale a voucher paid for.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct VoucherSpend {
    /// The ticket sold.
    pub serial: String,
    pub amount_cents: i64,
    /// The balance left after it.
    pub remaining_cents: i64,
    pub spent_at: String,
}

/// A voucher as the API shows it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
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

/// The voucher with its spends, as of Keno Day `today`.
pub fn view(conn: &mut DbConnection, v: &VoucherRow, today: &str) -> QueryResult<Voucher> {
    let spends: Vec<(String, i64, i64, i64)> = sale_tenders::table
        .filter(sale_tenders::reference.eq(&v.code))
        .filter(sale_tenders::kind.eq("voucher"))
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
        status: v.status.clone(),
        source: v.source.clone(),
        ticket: v.ticket.clone(),
        keno_day: v.keno_day.clone(),
        valid_until: valid_until(&v.keno_day).map_or_else(String::new, |d| d.to_string()),
        expired: expired(&v.keno_day, today),
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

    #[test]
    fn a_voucher_is_usable_for_twelve_months_after_its_keno_day() {
        assert_eq!(
            valid_until("2026-11-23"),
            NaiveDate::from_ymd_opt(2027, 11, 23)
        );
        assert_eq!(
            valid_until("2028-02-29"),
            NaiveDate::from_ymd_opt(2029, 2, 28)
        );
        assert!(!expired("2026-11-23", "2026-11-23"));
        assert!(!expired("2026-11-23", "2027-11-23"));
        assert!(expired("2026-11-23", "2027-11-24"));
        assert!(expired("not a day", "2027-11-24"));
    }
}
