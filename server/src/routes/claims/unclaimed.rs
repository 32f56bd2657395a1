//! `POST/GET /api/v1/unclaimed/movements`: prizes unclaimed for 12 months moved to a
//! return-to-player use, and the report of the moves (`claims::unclaimed`).

use actix_web::http::StatusCode;
use actix_web::{get, post, web};
use serde::Deserialize;
use utoipa::ToSchema;

use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::claims::unclaimed::{self, Movement};
use crate::error::ApiResult;
use crate::state::AppState;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MoveRequest {
    /// `jackpot_6`, `jackpot_8` (a jackpot pool of the rules in force) or `bonus_fund`.
    pub destination: String,
    /// The decision's reason or reference (e.g. the Authority's approval).
    pub reason: String,
}

/// Moves every prize unclaimed 12 months after its win to a return-to-player use.
#[utoipa::path(
    tag = "claims",
    security(("bearer" = [])),
    request_body = MoveRequest,
    responses(
        (status = 201, body = Movement),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_destination`, `invalid_reason`"),
        (status = 409, body = crate::error::ErrorBody, description = "`nothing_to_move`"),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/unclaimed/movements", wrap = "Require(&[Role::Supervisor])")]
pub async fn move_unclaimed(
    state: web::Data<AppState>,
    principal: Principal,
    body: web::Json<MoveRequest>,
) -> ApiResult<(web::Json<Movement>, StatusCode)> {
    let body = body.into_inner();
    let why = crate::reason::reason(&body.reason)?;
    let spots = unclaimed::destination(&state.rules, &body.destination)?;
    let destination = body.destination.clone();
    let hours = state.settings.hours;
    let moved = crate::store::write(&state.store, None, move |conn| {
        let to = (destination.as_str(), spots);
        unclaimed::move_unclaimed(conn, hours, to, &why, &principal.id)
    })
    .await?;
    if spots.is_some() {
        state
            .jackpots_changed
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }
    Ok((web::Json(moved), StatusCode::CREATED))
}

/// A page of the movements of unclaimed prizes.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
pub struct MovementQuery {
    /// At most this many movements (1 to 500, the default).
    pub limit: Option<i64>,
    /// Only movements numbered above this one: the next page, from the last of a full one.
    pub after: Option<i64>,
}

/// The movements of unclaimed prizes, oldest first, a page at a time, with what has since been
/// recovered by claim: the report of rule 13.2's movements.
#[utoipa::path(
    tag = "claims",
    security(("bearer" = [])),
    params(MovementQuery),
    responses((status = 200, body = [Movement]), (status = 400, body = crate::error::ErrorBody, description = "`invalid_range`: limit is 1 to 500"), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody))
)]
#[get(
    "/api/v1/unclaimed/movements",
    wrap = "Require(&[Role::Supervisor, Role::Inspector, Role::Auditor])"
)]
pub async fn movements(
    state: web::Data<AppState>,
    query: web::Query<MovementQuery>,
) -> ApiResult<web::Json<Vec<Movement>>> {
    let limit = crate::paging::limit(query.limit)?;
    let after = query.after.unwrap_or(i64::MIN);
    let all = crate::store::read(&state.store, move |conn| {
        unclaimed::movements(conn, (limit, after))
    })
    .await?;
    Ok(web::Json(all))
}
