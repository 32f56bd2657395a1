//! `/api/v1/claims...`: Unclaimed Prize Claim Forms filed, listed, decided, paid by cheque and
//! printed (`claims`).

pub mod unclaimed;

use actix_web::http::StatusCode;
use actix_web::{get, post, web, HttpResponse};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::claims::{self, Claim, ClaimApproval, ClaimForm, Claimed, Filing};
use crate::error::ApiResult;
use crate::request_ids::{self, Once, RequestIdHeader};
use crate::state::AppState;

/// Records an Unclaimed Prize Claim Form and lists the tickets it may be for.
#[utoipa::path(
    tag = "claims",
    security(("bearer" = [])),
    request_body = ClaimForm,
    responses(
        (status = 201, body = Claim),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_claim`: a field missing or malformed"),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/claims", wrap = "Require(&[Role::Writer, Role::Supervisor])")]
pub async fn file(
    state: web::Data<AppState>,
    principal: Principal,
    form: web::Json<ClaimForm>,
) -> ApiResult<(web::Json<Claim>, StatusCode)> {
    let filing = Filing::check(&principal, form.into_inner())?;
    let claim = crate::store::write(&state.store, None, move |conn| {
        claims::file(conn, &principal, &filing)
    })
    .await?;
    Ok((web::Json(claim), StatusCode::CREATED))
}

/// A claim, with the tickets that match it while it waits for a decision.
#[utoipa::path(
    tag = "claims",
    security(("bearer" = [])),
    params(("id" = i64, Path)),
    responses((status = 200, body = Claim), (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody))
)]
#[get(
    "/api/v1/claims/{id}",
    wrap = "Require(&[Role::Writer, Role::Supervisor, Role::Inspector, Role::Auditor])"
)]
pub async fn get_claim(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<i64>,
) -> ApiResult<web::Json<Claim>> {
    let id = id.into_inner();
    let claim = crate::store::read(&state.store, move |conn| {
        claims::load_for(conn, id, &principal)
    })
    .await?;
    Ok(web::Json(claim))
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct ClaimQuery {
    /// submitted | approved | rejected | paid
    pub state: Option<String>,
    /// At most this many claims (1 to 500, the default).
    pub limit: Option<i64>,
    /// Only claims numbered below this one: the next page, from the last claim of a full one.
    pub before: Option<i64>,
}

/// Claims, newest first, a page at a time (`limit`, `before`): an inspector's list of those to
/// decide.
#[utoipa::path(
    tag = "claims",
    security(("bearer" = [])),
    params(ClaimQuery),
    responses((status = 200, body = [Claim]), (status = 400, body = crate::error::ErrorBody, description = "`invalid_range`: limit is 1 to 500"), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody))
)]
#[get(
    "/api/v1/claims",
    wrap = "Require(&[Role::Supervisor, Role::Inspector, Role::Auditor])"
)]
pub async fn list(
    state: web::Data<AppState>,
    query: web::Query<ClaimQuery>,
) -> ApiResult<web::Json<Vec<Claim>>> {
    let query = query.into_inner();
    let (wanted, before) = (query.state, query.before);
    let limit = crate::paging::limit(query.limit)?;
    let found = crate::store::read(&state.store, move |conn| {
        claims::list(conn, wanted, (limit, before))
    })
    .await?;
    Ok(web::Json(found))
}

/// An inspector approves a claim for one ticket (rule 14: payment is at the inspector's
/// discretion).
#[utoipa::path(
    tag = "claims",
    security(("bearer" = [])),
    params(("id" = i64, Path)),
    request_body = ClaimApproval,
    responses(
        (status = 200, body = Claim),
        (status = 409, body = crate::error::ErrorBody, description = "`claim_decided`, `already_paid`, `not_settled`, `no_prize`, `cancelled`, `ticket_claimed` (another claim has it)"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody, description = "`forbidden`; `same_person`: who files a claim, who approves it and who pays it are three people")
    )
)]
#[post("/api/v1/claims/{id}/approve", wrap = "Require(&[Role::Inspector])")]
pub async fn approve(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<i64>,
    body: web::Json<ClaimApproval>,
) -> ApiResult<web::Json<Claim>> {
    let id = id.into_inner();
    let body = body.into_inner();
    let why = crate::reason::reason(&body.reason)?;
    let claimed = Claimed::of(&body)?;
    let claim = crate::store::write(&state.store, None, move |conn| {
        claims::approve(conn, id, &principal, &claimed, &why)
    })
    .await?;
    Ok(web::Json(claim))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Rejection {
    pub reason: String,
}

/// An inspector rejects a claim, with the reason.
#[utoipa::path(
    tag = "claims",
    security(("bearer" = [])),
    params(("id" = i64, Path)),
    request_body = Rejection,
    responses(
        (status = 200, body = Claim),
        (status = 409, body = crate::error::ErrorBody, description = "`claim_decided`"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/claims/{id}/reject", wrap = "Require(&[Role::Inspector])")]
pub async fn reject(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<i64>,
    body: web::Json<Rejection>,
) -> ApiResult<web::Json<Claim>> {
    let id = id.into_inner();
    let why = crate::reason::reason(&body.reason)?;
    let claim = crate::store::write(&state.store, None, move |conn| {
        claims::reject(conn, id, &principal, &why)
    })
    .await?;
    Ok(web::Json(claim))
}

#[derive(Debug, Deserialize, serde::Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChequePayment {
    /// The cheque's number or reference.
    pub cheque_reference: String,
}

/// Pays an approved claim by cheque (rule 13.5), once; the ticket is marked paid.
#[utoipa::path(
    tag = "claims",
    security(("bearer" = [])),
    params(("id" = i64, Path),
           ("X-Keno-Request-Id" = Option<String>, Header, description = "1 to 100 characters: a retry under it is answered with the claim as first paid; the same id with another request is refused (`request_id_reused`)")),
    request_body = ChequePayment,
    responses(
        (status = 200, body = Claim),
        (status = 409, body = crate::error::ErrorBody, description = "`claim_not_approved`, `already_paid` (the ticket was paid meanwhile, at a terminal or by another claim), `request_id_reused`"),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_claim`, `invalid_request_id`"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody, description = "`forbidden`; `same_person`: who files a claim, who approves it and who pays it are three people")
    )
)]
#[post("/api/v1/claims/{id}/pay", wrap = "Require(&[Role::Supervisor])")]
pub async fn pay(
    state: web::Data<AppState>,
    principal: Principal,
    request_id: RequestIdHeader,
    id: web::Path<i64>,
    body: web::Json<ChequePayment>,
) -> ApiResult<web::Json<Claim>> {
    let id = id.into_inner();
    let cheque = claims::cheque(&body.cheque_reference)?;
    let once = Once::new(
        request_id,
        &principal.id,
        request_ids::Act::ClaimPay,
        &id.to_string(),
        &*body,
    )?;
    let claim = request_ids::once(&state.store, once, None, move |conn| {
        claims::pay(conn, id, &principal, &cheque)
    })
    .await?;
    Ok(web::Json(claim))
}

/// The claim as a printable Unclaimed Prize Claim Form (Diagram E), PDF.
#[utoipa::path(
    tag = "claims",
    security(("bearer" = [])),
    params(("id" = i64, Path)),
    responses((status = 200, content_type = "application/pdf", description = "The form"), (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody))
)]
#[get(
    "/api/v1/claims/{id}/form.pdf",
    wrap = "Require(&[Role::Writer, Role::Supervisor, Role::Inspector, Role::Auditor])"
)]
pub async fn form_pdf(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let claim = crate::store::read(&state.store, move |conn| {
        claims::load_for(conn, id, &principal)
    })
    .await?;
    Ok(HttpResponse::Ok()
        .content_type("application/pdf")
        .body(claims::form_pdf(&claim)))
}
