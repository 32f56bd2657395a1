//! `POST /api/v1/tickets/{serial}/void`: a supervisor voids a cheat's wagers (`tickets::void`).

use actix_web::{post, web};
use keno_api::Refusal;

use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::error::ApiResult;
use crate::state::AppState;
use crate::tickets;
use crate::tickets::void::{TicketVoid, VoidRequest};

/// Voids the ticket's wagers (rule 17.2).
#[utoipa::path(
    tag = "tickets",
    security(("bearer" = [])),
    params(("serial" = String, Path)),
    request_body = VoidRequest,
    responses(
        (status = 200, body = TicketVoid),
        (status = 409, body = crate::error::ErrorBody, description = "`already_paid`, `cancelled`, `voided` (already)"),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_reason`"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/tickets/{serial}/void", wrap = "Require(&[Role::Supervisor])")]
pub async fn void(
    state: web::Data<AppState>,
    principal: Principal,
    serial: web::Path<String>,
    request: web::Json<VoidRequest>,
) -> ApiResult<web::Json<TicketVoid>> {
    let serial = serial.into_inner();
    let request = request.into_inner();
    let reason = crate::reason::reason(&request.reason)?;
    let person = crate::reason::kept_optional(
        "the person's description",
        request.excluded_person.as_deref(),
        500,
        Refusal::InvalidReason,
    )?;
    let forfeit = request.forfeit;
    let row = crate::store::write(&state.store, None, move |conn| {
        tickets::void::void(conn, &serial, (&reason, person, forfeit), &principal.id)
    })
    .await?;
    // A voided jackpot ticket leaves the pools (rule 17.2): the announcer looks again (for a
    // ticket of another schedule it finds the same figures).
    state
        .jackpots_changed
        .store(true, std::sync::atomic::Ordering::Relaxed);
    Ok(web::Json(TicketVoid::from(row)))
}
