//! `GET/POST /api/v1/staff` and `POST /api/v1/staff/{id}/disable|enable|reset`: managing
//! people (`staff::people`).

use actix_web::{get, post, web, HttpResponse};
use keno_api::staff::{AddStaff, StaffChange, StaffMember, StaffSecret};

use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::error::{ApiResult, DomainResult, Failure};
use crate::staff::people::{self, Actor, Addition, Change, NewSecret};
use crate::state::AppState;

/// Who manages people (each within the duty table, `keno_core::may_manage`).
const STAFF_MANAGERS: &[Role] = &[Role::Supervisor, Role::Administrator];

/// A page of the staff, by staff ID.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
pub struct StaffQuery {
    /// At most this many people (1 to 500, the default).
    pub limit: Option<i64>,
    /// Only staff IDs after this one: the next page, from the last of a full one.
    pub after: Option<String>,
}

/// Everyone who works in the room, by staff ID, a page at a time, and whether they can sign
/// on.
#[utoipa::path(
    tag = "staff",
    security(("bearer" = [])),
    params(StaffQuery),
    responses((status = 200, body = Vec<StaffMember>), (status = 400, body = crate::error::ErrorBody, description = "`invalid_range`: limit is 1 to 500"), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody))
)]
#[get("/api/v1/staff", wrap = "Require(STAFF_MANAGERS)")]
pub async fn list(
    state: web::Data<AppState>,
    query: web::Query<StaffQuery>,
) -> ApiResult<web::Json<Vec<StaffMember>>> {
    let limit = crate::paging::limit(query.limit)?;
    let after = query.into_inner().after.unwrap_or_default();
    Ok(web::Json(
        crate::state::read(&state, move |state, conn| {
            people::list_in(conn, state.settings.staff.idle, (limit, &after))
        })
        .await?,
    ))
}

/// Adds a person: the secret (and a TOTP secret) is shown once in the answer.
#[utoipa::path(
    tag = "staff",
    security(("bearer" = [])),
    request_body = AddStaff,
    responses(
        (status = 201, body = StaffSecret),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_name`, `invalid_secret`, `invalid_staff_id`, `invalid_reason`"),
        (status = 409, body = crate::error::ErrorBody, description = "`staff_active`, `staff_id_taken`"),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody, description = "`forbidden`; `not_your_duty`: a supervisor adds writers, an administrator supervisors, inspectors and auditors (administrators are added at the server's command line)")
    )
)]
#[post("/api/v1/staff", wrap = "Require(STAFF_MANAGERS)")]
pub async fn add(
    state: web::Data<AppState>,
    principal: Principal,
    body: web::Json<AddStaff>,
) -> ApiResult<HttpResponse> {
    let addition = web::block(move || Addition::check(&body))
        .await
        .map_err(|e| Failure::Internal(e.into()))??;
    let by = Actor::of(&principal);
    let added = crate::store::write(&state.store, None, move |conn| {
        people::add_in(conn, &by, addition)
    })
    .await?;
    Ok(HttpResponse::Created().json(added))
}

async fn change(
    state: web::Data<AppState>,
    principal: Principal,
    id: String,
    body: StaffChange,
    make: impl FnOnce(Option<&str>) -> DomainResult<Change> + Send + 'static,
) -> ApiResult<web::Json<Option<StaffSecret>>> {
    let reason = crate::reason::reason(&body.reason)?;
    let secret = body.secret;
    let change = web::block(move || make(secret.as_deref()))
        .await
        .map_err(|e| Failure::Internal(e.into()))??;
    let by = Actor::of(&principal);
    let person = id.clone();
    let done = crate::state::write(&state, None, move |state, conn| {
        people::change_in(Some(&state.principals), conn, &by, &id, change, &reason)
    })
    .await?;
    // Committed: the other instances drop the person's cached sessions too.
    state.events.forget_elsewhere(&person);
    Ok(web::Json(done))
}

/// Disables a person: their sessions end at once, and they cannot sign on.
#[utoipa::path(
    tag = "staff",
    security(("bearer" = [])),
    params(("id" = String, Path, description = "the staff ID")),
    request_body = StaffChange,
    responses((status = 200, body = Option<StaffSecret>, description = "null"), (status = 404, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody, description = "`already_disabled`"), (status = 400, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody, description = "`forbidden`; `not_your_duty`: a supervisor manages writers, an administrator supervisors, inspectors and auditors, no one themselves"))
)]
#[post("/api/v1/staff/{id}/disable", wrap = "Require(STAFF_MANAGERS)")]
pub async fn disable_person(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<String>,
    body: web::Json<StaffChange>,
) -> ApiResult<web::Json<Option<StaffSecret>>> {
    change(state, principal, id.into_inner(), body.into_inner(), |_| {
        Ok(Change::Disable)
    })
    .await
}

/// Enables a disabled person (and clears a lock).
#[utoipa::path(
    tag = "staff",
    security(("bearer" = [])),
    params(("id" = String, Path, description = "the staff ID")),
    request_body = StaffChange,
    responses((status = 200, body = Option<StaffSecret>, description = "null"), (status = 404, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody, description = "`already_enabled`, `staff_active`"), (status = 400, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody, description = "`forbidden`; `not_your_duty`: a supervisor manages writers, an administrator supervisors, inspectors and auditors, no one themselves"))
)]
#[post("/api/v1/staff/{id}/enable", wrap = "Require(STAFF_MANAGERS)")]
pub async fn enable_person(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<String>,
    body: web::Json<StaffChange>,
) -> ApiResult<web::Json<Option<StaffSecret>>> {
    change(state, principal, id.into_inner(), body.into_inner(), |_| {
        Ok(Change::Enable)
    })
    .await
}

/// Sets a new secret (given, or made and shown once; a new TOTP secret for those with one),
/// clears a lock, and ends the person's sessions.
#[utoipa::path(
    tag = "staff",
    security(("bearer" = [])),
    params(("id" = String, Path, description = "the staff ID")),
    request_body = StaffChange,
    responses((status = 200, body = Option<StaffSecret>), (status = 404, body = crate::error::ErrorBody), (status = 400, body = crate::error::ErrorBody, description = "`invalid_secret`, `invalid_reason`"), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody, description = "`forbidden`; `not_your_duty`: a supervisor manages writers, an administrator supervisors, inspectors and auditors, no one themselves"))
)]
#[post("/api/v1/staff/{id}/reset", wrap = "Require(STAFF_MANAGERS)")]
pub async fn reset_secret(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<String>,
    body: web::Json<StaffChange>,
) -> ApiResult<web::Json<Option<StaffSecret>>> {
    let id = id.into_inner();
    let looked_up = id.clone();
    let kind = crate::store::read(&state.store, move |conn| {
        people::secret_kind_of(conn, &looked_up)
    })
    .await?;
    change(state, principal, id, body.into_inner(), move |given| {
        Ok(Change::Reset(NewSecret::make(kind, given)?))
    })
    .await
}
