//! `POST /api/v1/tickets/{serial}/cancel` (`tickets::cancel`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use actix_web::{post, web};

use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::error::ApiResult;
use crate::request_ids::{self, Act, Once, RequestIdHeader};
use crate::staff::overrides::{AtCounter, OverrideHeader};
use crate::state::AppState;
use crate::tickets;
use crate::tickets::cancel::Cancellation;

/// Cancels what rule 8 allows and returns the refund.
#[utoipa::path(
    tag = "tickets",
    security(("bearer" = [])),
    params(("serial" = String, Path),
           ("X-Keno-Override" = Option<String>, Header, description = "a supervisor's approval (POST /api/v1/overrides)"),
           ("X-Keno-Request-Id" = Option<String>, Header, description = "1 to 100 characters chosen by the terminal: a retry under it is answered with the first cancellation; the same id with another request is refused (`request_id_reused`)")),
    responses(
        (status = 200, body = Cancellation),
        (status = 409, body = crate::error::ErrorBody, description = "`no_shift`: the writer has no shift open at this terminal (`--cash-needs-shift`). `cancel_not_allowed` (with the rule), `already_paid`, `already_cancelled`, `request_id_reused`"),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_request_id`"),
        (status = 403, body = crate::error::ErrorBody, description = "`other_site`, `invalid_override`: another site's ticket needs a supervisor's approval"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/tickets/{serial}/cancel", wrap = "Require(&[Role::Writer])")]
pub async fn cancel(
    state: web::Data<AppState>,
    principal: Principal,
    carried: OverrideHeader,
    request_id: RequestIdHeader,
    serial: web::Path<String>,
) -> ApiResult<web::Json<Cancellation>> {
    let serial = serial.into_inner();
    let once = Once::new(request_id, &principal.id, Act::Cancel, &serial, &())?;
    let (limits, hours) = (state.settings.staff.out_limits(), state.settings.hours);
    let s = state.clone();
    let jackpot = Arc::new(AtomicBool::new(false));
    let cancelled_jackpot = jackpot.clone();
    let result = request_ids::once(&state.store, once, None, move |conn| {
        let counter = AtCounter {
            limits,
            principal: &principal,
            carried: &carried,
        };
        let done = tickets::cancel::cancel(conn, &serial, counter, (&s.rule_sets, hours))?;
        cancelled_jackpot.store(done.jackpot, Ordering::Relaxed);
        Ok(done.cancellation)
    })
    .await?;
    if jackpot.load(Ordering::Relaxed) {
        // The pools on the displays shrink; the announcer sends the new figure. Only now that
        // the cancel is committed: an announcer looking before would find the ticket still in.
        state.jackpots_changed.store(true, Ordering::Relaxed);
    }
    Ok(web::Json(result))
}
