//! `POST /api/v1/tickets/{serial}/pay` (`tickets::pay`).

use actix_web::{post, web};
use keno_api::staff::PayRequest;
use keno_api::tickets::Payment;
use keno_core::MajorPrizesBy;

use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::error::ApiResult;
use crate::request_ids::{self, Act, Once, RequestIdHeader};
use crate::staff::overrides::{AtCounter, OverrideHeader};
use crate::state::AppState;
use crate::tickets;

/// How the payer pays: the major prizes by cheque (the default) or in cash (rule 12.2).
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
pub struct PayOptions {
    /// cheque (default) or cash
    #[param(value_type = Option<String>)]
    pub major_prizes: Option<MajorPrizesBy>,
}

/// Pays what the ticket won, once.
#[utoipa::path(
    tag = "tickets",
    security(("bearer" = [])),
    params(("serial" = String, Path), PayOptions,
           ("X-Keno-Override" = Option<String>, Header, description = "a supervisor's approval (POST /api/v1/overrides): another site's ticket, or above the writer's payout limit"),
           ("X-Keno-Request-Id" = Option<String>, Header, description = "1 to 100 characters chosen by the terminal: a retry under it is answered with the first payment, never paid twice; the same id with another request is refused (`request_id_reused`)")),
    request_body(content = Option<PayRequest>, description = "a hand-pay's claimant and ID: required with a major prize"),
    responses(
        (status = 200, body = Payment),
        (status = 409, body = crate::error::ErrorBody, description = "`no_shift`: the writer has no shift open at this terminal (`--cash-needs-shift`). `already_paid` (saying when, how and by whom), `not_settled`, `no_prize`, `cancelled`, `request_id_reused`"),
        (status = 400, body = crate::error::ErrorBody, description = "`hand_pay_required`: a major prize needs the claimant's name and ID (and a cheque's number); `invalid_request_id`"),
        (status = 403, body = crate::error::ErrorBody, description = "`other_site`, `approval_required`, `invalid_override`: a supervisor's approval is needed"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/tickets/{serial}/pay", wrap = "Require(&[Role::Writer])")]
pub async fn pay(
    state: web::Data<AppState>,
    principal: Principal,
    carried: OverrideHeader,
    request_id: RequestIdHeader,
    serial: web::Path<String>,
    options: web::Query<PayOptions>,
    body: web::Bytes,
) -> ApiResult<web::Json<Payment>> {
    let serial = serial.into_inner();
    let majors = options.major_prizes.unwrap_or_default();
    let request = tickets::hand_pay::body(&body)?;
    let asked = serde_json::json!({ "major_prizes": majors, "body": request });
    let once = Once::new(request_id, &principal.id, Act::Pay, &serial, &asked)?;
    let (limits, hours) = (state.settings.staff.out_limits(), state.settings.hours);
    let payment = request_ids::once(&state.store, once, Some("payment"), move |conn| {
        let counter = AtCounter {
            limits,
            principal: &principal,
            carried: &carried,
        };
        let today = hours.today()?;
        tickets::pay::pay(conn, &serial, (counter, &request), (today, majors))
    })
    .await?;
    Ok(web::Json(payment))
}
