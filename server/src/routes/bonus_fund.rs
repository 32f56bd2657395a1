//! `GET /api/v1/bonus-fund`: the bonus fund's balance and movements (`bonus_fund`, rule 13.2).

use actix_web::{get, web};

use crate::auth::http::Require;
use crate::auth::Role;
use crate::bonus_fund::{history, BonusFund};
use crate::error::{ApiResult, DomainResult};
use crate::state::AppState;

/// The bonus fund: its balance and every movement (rule 13.2).
#[utoipa::path(
    tag = "claims",
    security(("bearer" = [])),
    responses((status = 200, body = BonusFund), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody))
)]
#[get(
    "/api/v1/bonus-fund",
    wrap = "Require(&[Role::Supervisor, Role::Inspector, Role::Auditor])"
)]
pub async fn show(state: web::Data<AppState>) -> ApiResult<web::Json<BonusFund>> {
    let fund = crate::store::read(&state.store, |conn| -> DomainResult<_> {
        Ok(history(conn)?)
    })
    .await?;
    Ok(web::Json(fund))
}
