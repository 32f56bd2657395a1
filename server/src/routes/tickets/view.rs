//! `GET /api/v1/tickets/{serial}` and its public `check` (`tickets::view`).

use actix_web::{get, web};
use keno_api::staff::OverrideAction;
use keno_api::Refusal;

use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::error::{ApiResult, Failure};
use crate::staff::overrides::{admit, OverrideHeader};
use crate::state::AppState;
use crate::tickets::view::{self, TicketCheck, TicketDetail};

/// The ticket with each game's result per way, what it won and what is payable.
#[utoipa::path(
    tag = "tickets",
    security(("bearer" = [])),
    params(("serial" = String, Path),
           ("X-Keno-Override" = Option<String>, Header, description = "a supervisor's approval (POST /api/v1/overrides) for a writer to read another site's ticket")),
    responses((status = 200, body = TicketDetail), (status = 404, body = crate::error::ErrorBody),
               (status = 401, body = crate::error::ErrorBody),
               (status = 403, body = crate::error::ErrorBody, description = "`other_site`, `invalid_override`: a writer reads (and reprints) in detail only tickets of the writer's site"))
)]
#[get(
    "/api/v1/tickets/{serial}",
    wrap = "Require(&[Role::Writer, Role::Auditor, Role::Supervisor, Role::Inspector])"
)]
pub async fn get_ticket(
    state: web::Data<AppState>,
    principal: Principal,
    carried: OverrideHeader,
    serial: web::Path<String>,
) -> ApiResult<web::Json<TicketDetail>> {
    let serial = serial.into_inner();
    let s = state.clone();
    let d = crate::store::read(&state.store, move |conn| {
        view::load((&s.rule_sets, s.settings.hours), conn, &serial)
    })
    .await?;
    // A writer of another site reads it only with a supervisor's approval, spent here.
    let own =
        principal.role != Role::Writer || principal.site.as_deref() == Some(d.ticket.site.as_str());
    if !own {
        let (serial, site) = (d.ticket.serial.clone(), d.ticket.site.clone());
        let limits = state.settings.staff.out_limits();
        crate::store::write(&state.store, None, move |conn| {
            admit(
                limits,
                conn,
                &principal,
                &carried,
                OverrideAction::Check,
                &serial,
                &site,
                None,
            )
        })
        .await?;
    }
    Ok(web::Json(d))
}

/// What a player may see of a ticket: its selections, each game's result and the prize.
#[utoipa::path(
    tag = "tickets",
    params(("serial" = String, Path)),
    responses((status = 200, body = TicketCheck), (status = 404, body = crate::error::ErrorBody),
              (status = 400, body = crate::error::ErrorBody),
              (status = 429, body = crate::error::ErrorBody, description = "`too_many_requests`: too many checks from one address (`--check-rate`)",
                  headers(("Retry-After" = u64, description = "Seconds to wait before trying again"))))
)]
#[get("/api/v1/tickets/{serial}/check")]
pub async fn check(
    state: web::Data<AppState>,
    request: actix_web::HttpRequest,
    serial: web::Path<String>,
) -> ApiResult<web::Json<TicketCheck>> {
    if let Some(client) = crate::rate_limit::client_key(&request, state.trust_forwarded_for) {
        state.check_limit.take(client)?;
    }
    let serial = serial.into_inner();
    if !keno_core::serial::is_well_formed(&serial) {
        return Err(Failure::refuse(
            Refusal::InvalidSerial,
            "that is not a ticket serial number: check the digits",
        )
        .into());
    }
    let s = state.clone();
    let d = crate::store::read(&state.store, move |conn| {
        view::load((&s.rule_sets, s.settings.hours), conn, &serial)
    })
    .await?;
    Ok(web::Json(view::public(d)))
}
