//! `POST /api/v1/vouchers/{code}/cash`: a voucher's balance paid out in cash
//! (`vouchers::cash`).

use actix_web::{post, web};

use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::error::ApiResult;
use crate::request_ids::{self, Act, Once, RequestIdHeader};
use crate::staff::overrides::{AtCounter, OverrideHeader};
use crate::state::AppState;
use crate::vouchers::{self, cash::CashOut, check_code};

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
    let (limits, hours) = (state.settings.staff.out_limits(), state.settings.hours);
    let paid = request_ids::once(&state.store, once, None, move |conn| {
        let today = hours.today()?;
        let counter = AtCounter {
            limits,
            principal: &principal,
            carried: &carried,
        };
        vouchers::cash::cash_out(conn, &code, counter, today)
    })
    .await?;
    Ok(web::Json(paid))
}
