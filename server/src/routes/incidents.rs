//! `GET /api/v1/incidents` (issue 33), and the middleware that notes each request failed
//! inside the server: a database out of reach, a commit of unknown outcome, any other 500.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{get, web};

use crate::auth::http::Require;
use crate::auth::Role;
use crate::error::{ApiError, ApiResult, Failure};
use crate::incidents::{Fault, Incidents};
use crate::state::AppState;

/// The middleware (`actix_web::middleware::from_fn(noted)`).
pub async fn noted(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let incidents = req.app_data::<web::Data<Incidents>>().cloned();
    let res = next.call(req).await?;
    let failure = res
        .response()
        .error()
        .and_then(|e| e.as_error::<ApiError>())
        .map(|e| &e.0);
    if let (Some(incidents), Some(failure)) = (incidents, failure) {
        if let Some(fault) = fault_of(failure) {
            incidents.failed(fault, &failure.said(), crate::db::now_micros());
        }
    }
    Ok(res)
}

/// The failure of the server's own machinery a failed request shows, if it is one.
fn fault_of(failure: &Failure) -> Option<Fault> {
    match failure {
        Failure::Refused { .. } => None,
        f if f.failed_at_commit() => Some(Fault::CommitUnknown),
        f if f.out_of_reach() => Some(Fault::Database),
        Failure::Internal(_) => Some(Fault::Internal),
    }
}

/// The failures open on this instance: for supervisors, inspectors and auditors, and the
/// console's banner.
#[utoipa::path(
    tag = "audit",
    security(("bearer" = [])),
    responses(
        (status = 200, body = keno_api::incidents::Incidents),
        (status = 403, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody)
    )
)]
#[get(
    "/api/v1/incidents",
    wrap = "Require(&[Role::Supervisor, Role::Inspector, Role::Auditor])"
)]
pub async fn open(
    state: web::Data<AppState>,
    incidents: web::Data<Incidents>,
) -> ApiResult<web::Json<keno_api::incidents::Incidents>> {
    let rfc = crate::db::rfc3339;
    let open = incidents
        .open(crate::db::now_micros())
        .into_iter()
        .map(|e| keno_api::incidents::Incident {
            fault: e.fault.as_str().into(),
            words: e.fault.words().into(),
            began_at: rfc(e.began_at),
            last_at: rfc(e.last_at),
            count: e.count,
            detail: e.detail,
        })
        .collect();
    Ok(web::Json(keno_api::incidents::Incidents {
        instance: state.leadership.instance.clone(),
        open,
    }))
}
