//! `GET /api/v1/vouchers/{code}` (`vouchers::lookup`).

use actix_web::{get, web};

use crate::auth::http::Require;
use crate::auth::Role;
use crate::error::ApiResult;
use crate::state::AppState;
use crate::vouchers::{self, check_code, Voucher};

/// A voucher with what is left on it, the sales it paid for and until when it is usable.
#[utoipa::path(
    tag = "vouchers",
    security(("bearer" = [])),
    params(("code" = String, Path, description = "22 digits, the last a check digit")),
    responses(
        (status = 200, body = Voucher),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_voucher_code`: not 22 digits with a good check digit"),
        (status = 404, body = crate::error::ErrorBody),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[get(
    "/api/v1/vouchers/{code}",
    wrap = "Require(&[Role::Writer, Role::Auditor, Role::Supervisor])"
)]
pub async fn get_voucher(
    state: web::Data<AppState>,
    code: web::Path<String>,
) -> ApiResult<web::Json<Voucher>> {
    let code = code.into_inner();
    check_code(&code)?;
    let hours = state.settings.hours;
    let voucher = crate::store::read(&state.store, move |conn| {
        vouchers::lookup::look_up(conn, &code, hours)
    })
    .await?;
    Ok(web::Json(voucher))
}
