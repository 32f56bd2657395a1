//! `POST /api/v1/keno/closures`, `GET /api/v1/keno/closure` and
//! `POST /api/v1/keno/closures/{id}/withdraw`: early closure of Keno (`closures`, rule 16.2).

use actix_web::{get, post, web, HttpResponse};
use keno_api::closures::{Closure, ClosureInForce, ScheduleClosure, WithdrawClosure};
use keno_api::Refusal;

use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::closures::{check, notice_today, record, withdrawn};
use crate::db::now_micros;
use crate::error::{ApiResult, Failure};
use crate::state::AppState;

/// Schedules the early closure of today's Keno Day (a supervisor, rule 16.2).
#[utoipa::path(
    tag = "keno",
    security(("bearer" = [])),
    request_body = ScheduleClosure,
    responses(
        (status = 201, body = Closure, description = "Scheduled: every display and counter shows KENO CLOSES AT hh:mm from now, and no game opens at or after it"),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_closure`: no inspector's notification recorded, less than the notice period ahead, or not before today's normal end of gaming (rule 16.2); `invalid_reason`"),
        (status = 409, body = crate::error::ErrorBody, description = "`closure_scheduled`: today already has a closure in force"),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/keno/closures", wrap = "Require(&[Role::Supervisor])")]
pub async fn schedule(
    state: web::Data<AppState>,
    principal: Principal,
    request: web::Json<ScheduleClosure>,
) -> ApiResult<HttpResponse> {
    let now = now_micros();
    let notice = (&state.settings.hours, state.settings.closure_notice);
    let checked = check(notice, &request, now)?;
    let row = crate::store::write(&state.store, None, move |conn| {
        record(conn, &checked, &principal.id, now)
    })
    .await
    .map_err(|e| {
        // Two schedules at once: the index keeps one per Keno Day.
        if e.is_duplicate() {
            Failure::refuse(
                Refusal::ClosureScheduled,
                "today already has a closure in force",
            )
        } else {
            e
        }
    })?;
    state.events.publish(&row.event());
    state.wake_clock();
    Ok(HttpResponse::Created().json(row.view(now_micros())))
}

/// The closure in force today (rule 16.2): what the displays and counters show as
/// "KENO CLOSES AT hh:mm"; `null` when Keno runs its normal hours.
#[utoipa::path(
    tag = "keno",
    responses((status = 200, body = ClosureInForce))
)]
#[get("/api/v1/keno/closure")]
pub async fn current(state: web::Data<AppState>) -> ApiResult<web::Json<ClosureInForce>> {
    let hours = state.settings.hours;
    let closure = crate::store::read(&state.store, move |conn| {
        notice_today(&hours, conn, now_micros())
    })
    .await?;
    Ok(web::Json(ClosureInForce { closure }))
}

/// Withdraws a scheduled closure before it takes effect (a supervisor): Keno runs its normal
/// hours, and the notice is taken down.
#[utoipa::path(
    tag = "keno",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "The closure's id")),
    request_body = WithdrawClosure,
    responses(
        (status = 200, body = Closure),
        (status = 409, body = crate::error::ErrorBody, description = "`closure_not_open`: it has taken effect or was withdrawn"),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_reason`"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post(
    "/api/v1/keno/closures/{id}/withdraw",
    wrap = "Require(&[Role::Supervisor])"
)]
pub async fn withdraw(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<i64>,
    request: web::Json<WithdrawClosure>,
) -> ApiResult<web::Json<Closure>> {
    let reason = crate::reason::reason(&request.into_inner().reason)?;
    let id = id.into_inner();
    let row = crate::store::write(&state.store, None, move |conn| {
        withdrawn(conn, id, &principal.id, &reason)
    })
    .await?;
    state.events.publish(&row.event());
    state.wake_clock();
    Ok(web::Json(row.view(now_micros())))
}
