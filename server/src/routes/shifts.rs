//! `/api/v1/shifts...`: a writer's shift opened, shown and closed, a supervisor's sign-off,
//! the day's shifts and a shift's report (`shifts`).

use actix_web::{get, post, web, HttpResponse};
use keno_api::staff::{CloseShift, OpenShift, Shift, ShiftReport, SignOffShift};
use keno_api::Refusal;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::db::now_micros;
use crate::error::{ApiResult, Failure};
use crate::shifts;
use crate::state::AppState;

/// Opens a shift at the writer's terminal with the float in the drawer.
#[utoipa::path(
    tag = "shifts",
    security(("bearer" = [])),
    request_body = OpenShift,
    responses(
        (status = 201, body = Shift, description = "Open: the drawer holds the float"),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_amount`: the float is below 0 or above $1,000,000.00"),
        (status = 409, body = crate::error::ErrorBody, description = "`shift_open`: a shift is open for this writer or at this terminal"),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/shifts", wrap = "Require(&[Role::Writer])")]
pub async fn open(
    state: web::Data<AppState>,
    principal: Principal,
    request: web::Json<OpenShift>,
) -> ApiResult<HttpResponse> {
    let float = shifts::amount(request.float_cents, "the float")?;
    let hours = state.settings.hours;
    let shift = crate::store::write(&state.store, None, move |conn| {
        shifts::open(conn, &principal, float, hours.today()?)
    })
    .await
    .map_err(|e| {
        // Two opens at once: the indexes keep one shift per writer and per terminal.
        if e.is_duplicate() {
            Failure::refuse(Refusal::ShiftOpen, "a shift was opened meanwhile")
        } else {
            e
        }
    })?;
    Ok(HttpResponse::Created().json(shift))
}

/// The writer's open shift: the cash taken and given so far, and what the drawer should hold.
#[utoipa::path(
    tag = "shifts",
    security(("bearer" = [])),
    responses(
        (status = 200, body = Shift),
        (status = 409, body = crate::error::ErrorBody, description = "`no_shift`: no shift is open for this writer"),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[get("/api/v1/shifts/current", wrap = "Require(&[Role::Writer])")]
pub async fn current(
    state: web::Data<AppState>,
    principal: Principal,
) -> ApiResult<web::Json<Shift>> {
    let shift =
        crate::store::snapshot(&state.store, move |conn| shifts::current(conn, &principal)).await?;
    Ok(web::Json(shift))
}

/// Closes the writer's open shift with the cash counted: the expected cash, the count and the
/// over/short are kept; beyond `--over-short-tolerance` it waits for a supervisor's sign-off.
#[utoipa::path(
    tag = "shifts",
    security(("bearer" = [])),
    request_body = CloseShift,
    responses(
        (status = 200, body = Shift, description = "Closed (`closed`), or `awaiting_sign_off` when over/short beyond the tolerance"),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_amount`: the count is below 0 or above $1,000,000.00"),
        (status = 409, body = crate::error::ErrorBody, description = "`no_shift`: no shift is open for this writer"),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/shifts/current/close", wrap = "Require(&[Role::Writer])")]
pub async fn close(
    state: web::Data<AppState>,
    principal: Principal,
    request: web::Json<CloseShift>,
) -> ApiResult<web::Json<Shift>> {
    let counted = shifts::amount(request.counted_cents, "the count")?;
    let tolerance = state.settings.over_short_tolerance_cents;
    let shift = crate::store::write(&state.store, None, move |conn| {
        shifts::close(conn, &principal, counted, tolerance)
    })
    .await?;
    Ok(web::Json(shift))
}

/// A supervisor signs off a shift closed over or short beyond the tolerance, saying why.
#[utoipa::path(
    tag = "shifts",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "The shift's id")),
    request_body = SignOffShift,
    responses(
        (status = 200, body = Shift, description = "Signed off: `closed`"),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_reason`"),
        (status = 409, body = crate::error::ErrorBody, description = "`shift_not_awaiting_sign_off`: open, closed within the tolerance, or signed off already"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/shifts/{id}/sign-off", wrap = "Require(&[Role::Supervisor])")]
pub async fn sign_off(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<i64>,
    request: web::Json<SignOffShift>,
) -> ApiResult<web::Json<Shift>> {
    let reason = crate::reason::reason(&request.into_inner().reason)?;
    let id = id.into_inner();
    let shift = crate::store::write(&state.store, None, move |conn| {
        shifts::sign_off(conn, id, &principal, &reason)
    })
    .await?;
    Ok(web::Json(shift))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ShiftQuery {
    /// The Keno Day the shifts opened on (YYYY-MM-DD); today's by default.
    pub keno_day: Option<String>,
}

/// The shifts opened on a Keno Day, each with its drawer.
#[utoipa::path(
    tag = "shifts",
    security(("bearer" = [])),
    params(ShiftQuery),
    responses(
        (status = 200, body = Vec<Shift>),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_keno_day`"),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[get(
    "/api/v1/shifts",
    wrap = "Require(&[Role::Supervisor, Role::Inspector, Role::Auditor])"
)]
pub async fn list(
    state: web::Data<AppState>,
    query: web::Query<ShiftQuery>,
) -> ApiResult<web::Json<Vec<Shift>>> {
    let day = match &query.keno_day {
        Some(text) => text.parse::<keno_core::KenoDay>().map_err(|_| {
            Failure::refuse(
                Refusal::InvalidKenoDay,
                format!("{text:?} is not a Keno Day: give YYYY-MM-DD"),
            )
        })?,
        None => state.settings.hours.today()?,
    };
    let day_shifts =
        crate::store::snapshot(&state.store, move |conn| shifts::of_day(conn, day)).await?;
    Ok(web::Json(day_shifts))
}

/// One shift with its drawer (a writer: their own).
#[utoipa::path(
    tag = "shifts",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "The shift's id")),
    responses(
        (status = 200, body = Shift),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[get(
    "/api/v1/shifts/{id}",
    wrap = "Require(&[Role::Writer, Role::Supervisor, Role::Inspector, Role::Auditor])"
)]
pub async fn get_shift(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<i64>,
) -> ApiResult<web::Json<Shift>> {
    let id = id.into_inner();
    let shift =
        crate::store::snapshot(&state.store, move |conn| shifts::one(conn, id, &principal)).await?;
    Ok(web::Json(shift))
}

/// A shift's report: sales by bet type, cancellations, payouts by method, vouchers and the
/// balance (a writer: their own).
#[utoipa::path(
    tag = "shifts",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "The shift's id")),
    responses(
        (status = 200, body = ShiftReport),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[get(
    "/api/v1/shifts/{id}/report",
    wrap = "Require(&[Role::Writer, Role::Supervisor, Role::Inspector, Role::Auditor])"
)]
pub async fn shift_report(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<i64>,
) -> ApiResult<web::Json<ShiftReport>> {
    let id = id.into_inner();
    let report = crate::store::snapshot(&state.store, move |conn| {
        shifts::report_of(conn, id, &principal)
    })
    .await?;
    Ok(web::Json(report))
}

/// The shift's report as a printable PDF (A4).
#[utoipa::path(
    tag = "shifts",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "The shift's id")),
    responses(
        (status = 200, content_type = "application/pdf", description = "The report"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[get(
    "/api/v1/shifts/{id}/report.pdf",
    wrap = "Require(&[Role::Writer, Role::Supervisor, Role::Inspector, Role::Auditor])"
)]
pub async fn report_pdf(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let report = crate::store::snapshot(&state.store, move |conn| {
        shifts::report_of(conn, id, &principal)
    })
    .await?;
    Ok(HttpResponse::Ok()
        .content_type("application/pdf")
        .body(shifts::report_pdf(&report, now_micros())))
}
