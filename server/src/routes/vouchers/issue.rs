//! `POST /api/v1/vouchers`: a writer issues a voucher for a deposit or a winning ticket
//! (`vouchers::issue`).

use actix_web::{post, web, HttpResponse};

use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::error::{ApiResult, Failure};
use crate::staff::overrides::{AtCounter, OverrideHeader};
use crate::state::AppState;
use crate::vouchers::issue::{Counter, IssueRequest, What};
use crate::vouchers::{self, Voucher};

/// Issues a voucher: 201 with it; 200 with the same voucher for a `request_id` already used.
#[utoipa::path(
    tag = "vouchers",
    security(("bearer" = [])),
    request_body = IssueRequest,
    responses(
        (status = 201, body = Voucher, description = "Issued"),
        (status = 200, body = Voucher, description = "Already issued under this request_id: nothing issued"),
        (status = 409, body = crate::error::ErrorBody, description = "`no_shift`: the writer has no shift open at this terminal (`--cash-needs-shift`). For a ticket: `already_paid`, `cancelled`, `not_settled`, `no_prize`, `cheque_only` (a major prize, rule 12.2)"),
        (status = 404, body = crate::error::ErrorBody, description = "No such ticket"),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_amount`, `invalid_serial`, `invalid_request`, `invalid_request_id`"),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/vouchers", wrap = "Require(&[Role::Writer])")]
pub async fn issue(
    state: web::Data<AppState>,
    principal: Principal,
    carried: OverrideHeader,
    request: web::Json<IssueRequest>,
) -> ApiResult<HttpResponse> {
    let request = request.into_inner();
    let digest = crate::request_ids::checked("voucher", &request.request_id, &request)?;
    if principal.site.is_none() || principal.terminal.is_none() {
        return Err(Failure::forbidden("this writer is not bound to a site and terminal").into());
    }
    let what = What::of(request.amount_cents, request.ticket.clone())?;
    let today = state.settings.hours.today()?;
    // A copy of the same request committed meanwhile (PostgreSQL): the next attempt finds it.
    let mut attempt = 0;
    let (created, row) = loop {
        attempt += 1;
        let (p, w) = (principal.clone(), what.clone());
        let r = (request.request_id.clone(), digest.clone());
        let (c, h) = (carried.clone(), request.hand_pay.clone());
        let limits = state.settings.staff.out_limits();
        let result = crate::store::write(&state.store, None, move |conn| {
            let at = AtCounter {
                limits,
                principal: &p,
                carried: &c,
            };
            let counter = Counter {
                at,
                hand_pay: h.as_ref(),
            };
            vouchers::issue::issue(conn, &counter, (&r.0, &r.1), &w, today)
        })
        .await;
        match result {
            Err(e) if attempt < 3 && e.is_duplicate() => {}
            // Refused, perhaps because a copy of this request paid the ticket and committed
            // after this attempt looked for it: once more, which finds that copy's voucher (or
            // is refused again, for good).
            Err(Failure::Refused { .. }) if attempt < 2 => {}
            other => break other?,
        }
    };
    let voucher =
        crate::store::read(&state.store, move |conn| vouchers::view(conn, &row, today)).await?;
    Ok(if created {
        HttpResponse::Created().json(voucher)
    } else {
        HttpResponse::Ok().json(voucher)
    })
}
