//! `GET /api/v1/suspension` and `POST /api/v1/suspension/{id}/resume` (issue 33), and the
//! middleware that holds every request to the gate: while the system is suspended, whatever
//! `keno_core::suspension` does not keep open is refused with 503 `suspended` and the reason.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::{get, post, web};
use keno_api::suspension::{ResumeRequest, Standing, Suspension};
use keno_core::suspension::Doing;

use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::error::{ApiResult, Failure};
use crate::state::AppState;
use crate::suspension::gate::Gate;

/// What a request does, as suspension sees it: read by its method, and by its path for the
/// few writes that stay open. Any other write is a change, so a new endpoint is closed while
/// suspended until it is named here.
pub fn doing(method: &Method, path: &str) -> Doing {
    if matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS) {
        return Doing::Read;
    }
    match path {
        "/api/v1/sessions" | "/api/v1/sessions/current/end" => Doing::Session,
        "/api/v1/tickets/quote" => Doing::Quote,
        // The sale looks up its request id first: a sale made before is answered with its
        // ticket, a new one refused (`routes::tickets::sale::sell`).
        "/api/v1/tickets" => Doing::Retry,
        _ if path.starts_with("/api/v1/audit/") => Doing::Audit,
        _ if path.starts_with("/api/v1/suspension/") => Doing::Resume,
        _ => Doing::Change,
    }
}

/// The middleware (`actix_web::middleware::from_fn(held)`).
pub async fn held(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    if let Some(gate) = req.app_data::<web::Data<Gate>>() {
        gate.admit(doing(req.method(), req.path()))?;
    }
    next.call(req).await
}

/// Whether the system is suspended, why, and the last resumptions: open to all, as the board
/// and the ticket check say it too.
#[utoipa::path(
    tag = "audit",
    responses((status = 200, body = Standing))
)]
#[get("/api/v1/suspension")]
pub async fn standing(state: web::Data<AppState>) -> ApiResult<web::Json<Standing>> {
    let standing = crate::store::read(&state.store, crate::suspension::standing).await?;
    Ok(web::Json(standing))
}

/// A supervisor's or an inspector's key turned, with a note, to resume suspension `id`: with
/// both keys turned by two people, normal operation resumes. Resuming a restore accepts what
/// it lost: a checkpoint numbered after the file's last signs the trail as restored.
#[utoipa::path(
    tag = "audit",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "The suspension")),
    request_body = ResumeRequest,
    responses(
        (status = 200, body = Suspension),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_reason`: the note is empty or too long"),
        (status = 409, body = crate::error::ErrorBody, description = "`not_suspended` (resumed already), `already_approved` (this key was turned: the other is needed)"),
        (status = 403, body = crate::error::ErrorBody, description = "not a supervisor or an inspector; `same_person`: the other key was turned by the same person"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody)
    )
)]
#[post(
    "/api/v1/suspension/{id}/resume",
    wrap = "Require(&[Role::Supervisor, Role::Inspector])"
)]
pub async fn resume(
    state: web::Data<AppState>,
    gate: web::Data<Gate>,
    principal: Principal,
    id: web::Path<i64>,
    request: web::Json<ResumeRequest>,
) -> ApiResult<web::Json<Suspension>> {
    let id = id.into_inner();
    let note = crate::reason::reason(&request.into_inner().note)?;
    let (shown, closed) = crate::state::write(&state, None, move |state, conn| {
        let row = crate::suspension::turn_key(conn, id, &principal, &note, |conn, row| {
            accept_restore(state, conn, row)
        })?;
        let closed = crate::suspension::closed(conn)?;
        Ok((crate::suspension::shown(&row), closed))
    })
    .await?;
    file_checkpoints(&state).await;
    gate.tell(&state.events, closed);
    Ok(web::Json(shown))
}

/// A restore resumed: the gap it lost is signed as accepted.
fn accept_restore(
    state: &AppState,
    conn: &mut crate::db::DbConnection,
    row: &crate::suspension::SuspensionRow,
) -> crate::error::DomainResult<()> {
    let Some(lost_to) = row.lost_to else {
        return Ok(());
    };
    let today = crate::audit::anchor::task::today(state);
    let instance = &state.leadership.instance;
    crate::audit::anchor::make::bridge(&state.anchor, conn, lost_to, (&today, instance))
        .map_err(Failure::Internal)?;
    Ok(())
}

/// The checkpoint file caught up with the database after a commit that signed one.
async fn file_checkpoints(state: &web::Data<AppState>) {
    let s = state.clone();
    let filed = web::block(move || -> anyhow::Result<()> {
        let mut conn = s.store.db.conn()?;
        crate::audit::anchor::make::catch_up(&s.anchor, &mut conn)
    })
    .await;
    if let Ok(Err(e)) = filed {
        tracing::warn!(error = %format!("{e:#}"), "checkpoint file");
    }
}
