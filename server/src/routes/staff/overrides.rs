//! `POST /api/v1/overrides`: a supervisor, signing on at the writer's counter, approves one
//! action on one ticket (`staff::overrides`).

use actix_web::{post, web, HttpRequest, HttpResponse};
use keno_api::staff::{OverrideAction, OverrideGrant, OverrideRequest};
use keno_api::Refusal;
use keno_core::Part;

use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::error::{ApiResult, Failure};
use crate::staff::guard::SignOnGuard;
use crate::staff::overrides::record;
use crate::staff::sessions::{prove, Place, Proved, Where};
use crate::state::AppState;

/// A supervisor, signing on at the writer's counter, approves one action on one ticket.
#[utoipa::path(
    tag = "staff",
    security(("bearer" = [])),
    request_body = OverrideRequest,
    responses(
        (status = 201, body = OverrideGrant),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_reason`, `invalid_request`"),
        (status = 401, body = crate::error::ErrorBody, description = "`sign_on_failed`: the supervisor's password or code"),
        (status = 403, body = crate::error::ErrorBody, description = "`forbidden`: the person signing is not a supervisor; `same_person`: the supervisor is the writer (by name, under whichever staff ID)"),
        (status = 404, body = crate::error::ErrorBody),
        (status = 423, body = crate::error::ErrorBody, description = "`staff_locked`")
    )
)]
#[post("/api/v1/overrides", wrap = "Require(&[Role::Writer])")]
pub async fn grant(
    state: web::Data<AppState>,
    guard: web::Data<SignOnGuard>,
    req: HttpRequest,
    principal: Principal,
    body: web::Json<OverrideRequest>,
) -> ApiResult<HttpResponse> {
    // Admitted before anything is read, as a sign-on is (the supervisor signs on here).
    let admitted = guard.admit_or_wait().await?;
    let body = body.into_inner();
    let reason = crate::reason::reason(&body.reason)?;
    let serial = body.serial.trim().to_string();
    let looked_up = serial.clone();
    let action = body.action;
    let exists = crate::store::read(&state.store, move |conn| {
        Ok(match action {
            OverrideAction::CashOut => crate::vouchers::find(conn, &looked_up)?.is_some(),
            _ => crate::tickets::find(conn, &looked_up)?.is_some(),
        })
    })
    .await?;
    if !exists {
        return Err(Failure::not_found(match action {
            OverrideAction::CashOut => "voucher",
            _ => "ticket",
        })
        .into());
    }
    // The supervisor's failures count at the writer's terminal, where they were tried.
    let at = match principal.site.clone().zip(principal.terminal.clone()) {
        Some((site, terminal)) => Where::Terminal(Place { site, terminal }),
        None => Where::Address(crate::rate_limit::client_key(
            &req,
            state.trust_forwarded_for,
        )),
    };
    let lock_out = state.settings.staff.lock_out;
    let proved = prove(
        &state.store,
        (&guard, &admitted),
        lock_out,
        body.supervisor,
        at,
    )
    .await?;
    let supervisor = match proved {
        Proved::Person(row) => row,
        Proved::Refused(refusal) => return Err(refusal.into()),
    };
    if supervisor.role()? != Role::Supervisor {
        return Err(Failure::forbidden("only a supervisor approves at the counter").into());
    }
    // Never to oneself, under whichever of one's staff IDs (issue 31).
    keno_core::two_people(
        (Part::WriterAtTheCounter, &principal.name),
        (Part::GrantsTheOverride, &supervisor.name),
    )
    .map_err(|e| Failure::refuse(Refusal::SamePerson, e.to_string()))?;
    let granted = crate::store::write(&state.store, None, move |conn| {
        record(conn, &principal, &supervisor, action, &serial, &reason)
    })
    .await?;
    Ok(HttpResponse::Created().json(granted))
}
