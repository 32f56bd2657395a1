//! `POST /api/v1/vouchers/{code}/cash`: pays a voucher's balance out in cash, once.
//!
//! The voucher's row is held (PostgreSQL: `FOR UPDATE`; SQLite: the writer's turn), so a
//! cash-out and a sale spending the same voucher at once are one before the other: the sale
//! finds nothing left, or the cash-out pays what the sale left.

use actix_web::{post, web};
use diesel::prelude::*;

use super::{at_a_terminal, check_code, lock, view, VoucherRow, VoucherStatus};
use crate::audit::log::Entry;
use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::db::schema::vouchers;
use crate::db::{now_micros, rfc3339, DbConnection};
use crate::error::{ApiResult, DomainResult, Failure};
use crate::request_ids::{Act, Once, RequestIdHeader};
use crate::staff::overrides::{admit, Approval, OverrideHeader};
use crate::state::AppState;
use keno_api::staff::OverrideAction;
use keno_api::Refusal;
use keno_core::PayMethod;
// The wire's type (keno-api), where the server's modules have always found it.
pub use keno_api::vouchers::CashOut;

/// Pays the voucher's balance in cash; the voucher then has nothing left.
#[utoipa::path(
    tag = "vouchers",
    security(("bearer" = [])),
    params(("code" = String, Path, description = "22 digits, the last a check digit"),
           ("X-Keno-Request-Id" = Option<String>, Header, description = "1 to 100 characters chosen by the terminal: a retry under it is answered with the first cash-out; the same id with another request is refused (`request_id_reused`)")),
    responses(
        (status = 200, body = CashOut),
        (status = 409, body = crate::error::ErrorBody, description = "`no_shift`: the writer has no shift open at this terminal (`--cash-needs-shift`). `already_cashed`, `voucher_empty` (all spent), `claim_required` (more than 12 months after its Keno Day, rule 13.1), `request_id_reused`"),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_voucher_code`, `invalid_request_id`"),
        (status = 404, body = crate::error::ErrorBody),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody, description = "`other_site`: another site's voucher, or `approval_required`: more than the writer's payout limit; a supervisor's grant for `cash_out` (POST /api/v1/overrides) in `X-Keno-Override`")
    )
)]
#[post("/api/v1/vouchers/{code}/cash", wrap = "Require(&[Role::Writer])")]
pub async fn cash_out(
    state: web::Data<AppState>,
    principal: Principal,
    carried: OverrideHeader,
    request_id: RequestIdHeader,
    code: web::Path<String>,
) -> ApiResult<web::Json<CashOut>> {
    let code = code.into_inner();
    check_code(&code)?;
    let once = Once::new(request_id, &principal.id, Act::CashOut, &code, &())?;
    let paid = crate::state::once(
        &state,
        once,
        None,
        move |state, conn| -> DomainResult<CashOut> {
            let today = state.settings.hours.today()?;
            let v = lock(conn, &[code.as_str()])?
                .pop()
                .ok_or_else(|| Failure::not_found("voucher"))?;
            has_balance(&v)?;
            // Rule 13.1: at a terminal for twelve months only; then by claim.
            at_a_terminal(&v, today)?;
            // Issue 31: the one rule of value going out, as for a ticket's payment: another
            // site's voucher, or more than the writer's payout limit, needs a supervisor now.
            let approval = admit(
                state.settings.staff.out_limits(),
                conn,
                &principal,
                &carried,
                OverrideAction::CashOut,
                &v.code,
                &v.site,
                Some(v.balance_cents as u64),
            )?;
            let row = pay_out(conn, v, (&principal.id, approval.as_ref()))?;
            Ok(CashOut {
                paid_cents: row.cashed_cents,
                method: PayMethod::Cash.to_string(),
                voucher: view(conn, &row, today)?,
            })
        },
    )
    .await?;
    Ok(web::Json(paid))
}

/// Pays out what is left on voucher `v` (held by [`lock`]), once: a cash-out at a terminal, or
/// the cheque of a claim approved against it (rule 13.5). The update is guarded by the balance
/// read, so two payments of one voucher cannot both succeed.
pub fn pay_out(
    conn: &mut DbConnection,
    mut v: VoucherRow,
    (by, approval): (&str, Option<&Approval>),
) -> DomainResult<VoucherRow> {
    has_balance(&v)?;
    let code = v.code.clone();
    let now = now_micros();
    let paid = v.balance_cents;
    let changed = diesel::update(vouchers::table.find(&code))
        .filter(vouchers::status.eq(VoucherStatus::Active.as_str()))
        .filter(vouchers::balance_cents.eq(paid))
        .set((
            vouchers::balance_cents.eq(0),
            vouchers::cashed_cents.eq(paid),
            vouchers::cashed_at.eq(now),
            vouchers::cashed_by.eq(by),
            vouchers::status.eq(VoucherStatus::Cashed.as_str()),
        ))
        .execute(conn)?;
    if changed != 1 {
        return Err(Failure::refuse(
            Refusal::VoucherChanged,
            "the voucher changed meanwhile: look it up again",
        ));
    }
    crate::audit::log::append(
        conn,
        vec![Entry::new(
            "voucher_cashed",
            &code,
            serde_json::json!({
                "cashed_cents": paid, "cashed_at": now,
                "approved_by": approval.map(|a| a.supervisor_id.clone()),
            }),
        )
        .by(by)],
    )?;
    v.balance_cents = 0;
    v.cashed_cents = paid;
    v.cashed_at = Some(now);
    v.cashed_by = Some(by.to_string());
    v.status = VoucherStatus::Cashed;
    Ok(v)
}

/// Something is left on voucher `v` to pay out: not paid out already, not all spent.
fn has_balance(v: &VoucherRow) -> DomainResult<()> {
    let code = &v.code;
    if v.status == VoucherStatus::Cashed {
        return Err(Failure::refuse(
            Refusal::AlreadyCashed,
            format!(
                "voucher {code} was paid out already: {} at {}",
                keno_core::Dollars(v.cashed_cents as u64),
                v.cashed_at.map(rfc3339).unwrap_or_default()
            ),
        ));
    }
    if v.balance_cents == 0 {
        return Err(Failure::refuse(
            Refusal::VoucherEmpty,
            format!("voucher {code} has been spent: nothing is left on it"),
        ));
    }
    Ok(())
}
