//! `GET` and `POST /api/v1/special3/approvals` and
//! `POST /api/v1/special3/approvals/{id}/withdraw`: the regulator's approval of Special 3
//! (`special3`, rule 18.4).

use actix_web::{get, post, web, HttpResponse};
use keno_api::events::{Event, SchedulesChanged};

use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::db::now_micros;
use crate::error::ApiResult;
use crate::special3::{self, Approval, RecordApproval, Special3Status, WithdrawApproval};
use crate::state::AppState;

/// Special 3 under the rule set in force, and every approval recorded, newest first.
#[utoipa::path(
    tag = "special3",
    security(("bearer" = [])),
    responses((status = 200, body = Special3Status),
              (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody))
)]
#[get(
    "/api/v1/special3/approvals",
    wrap = "Require(&[Role::Supervisor, Role::Inspector, Role::Auditor])"
)]
pub async fn list(state: web::Data<AppState>) -> ApiResult<web::Json<Special3Status>> {
    let s = state.clone();
    let status = crate::store::read(&state.store, move |conn| {
        special3::status(conn, s.special3_digest.as_deref())
    })
    .await?;
    Ok(web::Json(status))
}

/// Records the regulator's approval of the Special 3 table in force (an inspector).
#[utoipa::path(
    tag = "special3",
    security(("bearer" = [])),
    request_body = RecordApproval,
    responses(
        (status = 201, body = Approval, description = "Recorded: Special 3 sells while it is in force"),
        (status = 409, body = crate::error::ErrorBody, description = "`special3_not_defined`: the rule set in force has no Special 3 table to approve"),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_approval`: a field missing, too long, or a time in the wrong order"),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/special3/approvals", wrap = "Require(&[Role::Inspector])")]
pub async fn record(
    state: web::Data<AppState>,
    principal: Principal,
    request: web::Json<RecordApproval>,
) -> ApiResult<HttpResponse> {
    let checked = special3::check(
        request.into_inner(),
        state.special3_digest.as_deref(),
        now_micros(),
    )?;
    let s = state.clone();
    let row = crate::store::write(&state.store, None, move |conn| {
        special3::insert(conn, &checked, &s.rule_set_hash, &principal.id)
    })
    .await?;
    state
        .events
        .publish(&Event::SchedulesChanged(SchedulesChanged {
            special3: true,
        }));
    let digest = state.special3_digest.as_deref();
    Ok(HttpResponse::Created().json(Approval::new(row, digest, now_micros())))
}

/// Withdraws an approval of Special 3 (a supervisor or an inspector): with none left in force,
/// Special 3 is no longer sold. Tickets already sold stand.
#[utoipa::path(
    tag = "special3",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "The approval's id")),
    request_body = WithdrawApproval,
    responses(
        (status = 200, body = Approval),
        (status = 409, body = crate::error::ErrorBody, description = "`already_withdrawn`"),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_reason`"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post(
    "/api/v1/special3/approvals/{id}/withdraw",
    wrap = "Require(&[Role::Supervisor, Role::Inspector])"
)]
pub async fn withdraw(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<i64>,
    request: web::Json<WithdrawApproval>,
) -> ApiResult<web::Json<Approval>> {
    let reason = crate::reason::reason(&request.into_inner().reason)?;
    let id = id.into_inner();
    let row = crate::store::write(&state.store, None, move |conn| {
        special3::withdraw(conn, id, &principal.id, &reason)
    })
    .await?;
    state
        .events
        .publish(&Event::SchedulesChanged(SchedulesChanged {
            special3: true,
        }));
    let digest = state.special3_digest.as_deref();
    Ok(web::Json(Approval::new(row, digest, now_micros())))
}
