//! A voucher's amount, balance, spends and validity (`GET /api/v1/vouchers/{code}`).

use super::{find, view, Voucher};
use crate::db::DbConnection;
use crate::error::{DomainResult, Failure};
use crate::keno_day::KenoHours;

/// Voucher `code` with what is left on it, the sales it paid for and until when it is usable,
/// as of the Keno Day now (`hours`).
pub fn look_up(conn: &mut DbConnection, code: &str, hours: KenoHours) -> DomainResult<Voucher> {
    let v = find(conn, code)?.ok_or_else(|| Failure::not_found("voucher"))?;
    view(conn, &v, hours.today()?)
}
