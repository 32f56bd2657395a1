//! The set-bet catalogue's endpoints, `/api/v1/set-bets` (`set_bets`).

use actix_web::{get, post, web, HttpResponse};
use keno_api::events::{Event, SetBetsChanged};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::error::{ApiResult, DomainResult, Failure};
use crate::set_bets::{self, NewSet, NewSetBet, SetBet};
use crate::state::AppState;

#[derive(Debug, Deserialize, IntoParams)]
pub struct ListQuery {
    /// Also list retired sets.
    #[serde(default)]
    pub include_retired: bool,
    /// At most this many sets (1 to 500, the default).
    pub limit: Option<i64>,
    /// Only sets numbered above this one: the next page, from the last set of a full one.
    pub after: Option<i64>,
}

/// The catalogue: the sets on sale (with `include_retired`, every set), oldest first, a page
/// at a time.
#[utoipa::path(
    tag = "set_bets",
    params(ListQuery),
    responses((status = 200, body = [SetBet]), (status = 400, body = crate::error::ErrorBody))
)]
#[get("/api/v1/set-bets")]
pub async fn list(
    state: web::Data<AppState>,
    query: web::Query<ListQuery>,
) -> ApiResult<web::Json<Vec<SetBet>>> {
    let all = query.include_retired;
    let limit = crate::paging::limit(query.limit)?;
    let after = query.after.unwrap_or(i64::MIN);
    let rows = crate::store::read(&state.store, move |conn| {
        Ok(set_bets::page(conn, all, (after, limit))?)
    })
    .await?;
    Ok(web::Json(
        rows.into_iter()
            .map(|r| set_bets::set_bet(r, &state.rules))
            .collect::<DomainResult<Vec<_>>>()?,
    ))
}

/// One set of the catalogue, retired or not.
#[utoipa::path(
    tag = "set_bets",
    params(("id" = i64, Path, description = "The set's id")),
    responses((status = 200, body = SetBet), (status = 404, body = crate::error::ErrorBody))
)]
#[get("/api/v1/set-bets/{id}")]
pub async fn get_set(
    state: web::Data<AppState>,
    id: web::Path<i64>,
) -> ApiResult<web::Json<SetBet>> {
    let id = id.into_inner();
    let row = crate::store::read(&state.store, move |conn| Ok(set_bets::find(conn, id)?))
        .await?
        .ok_or_else(|| Failure::not_found("set bet"))?;
    Ok(web::Json(set_bets::set_bet(row, &state.rules)?))
}

/// Adds a set to the catalogue (a supervisor). Its groups and combinations are checked as a way
/// ticket's, and its suggested amount as that way ticket's wager (rule 6.2(d)).
#[utoipa::path(
    tag = "set_bets",
    security(("bearer" = [])),
    request_body = NewSetBet,
    responses(
        (status = 201, body = SetBet),
        (status = 409, body = crate::error::ErrorBody, description = "`set_name_taken`: a set on sale has that name"),
        (status = 422, body = crate::error::ErrorBody, description = "Refused as a way ticket would be: `invalid_selection`, `below_minimum_wager`, `invalid_wager_increment`, `too_many_ways`, ..."),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_name`, `invalid_description`, `invalid_request`"),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/set-bets", wrap = "Require(&[Role::Supervisor])")]
pub async fn create(
    state: web::Data<AppState>,
    principal: Principal,
    request: web::Json<NewSetBet>,
) -> ApiResult<HttpResponse> {
    let set = NewSet::check(&state.rules, request.into_inner())?;
    let row = crate::store::write(&state.store, None, move |conn| {
        set_bets::create(conn, set, &principal.id)
    })
    .await?;
    state
        .events
        .publish(&Event::SetBetsChanged(SetBetsChanged { id: row.id }));
    Ok(HttpResponse::Created().json(set_bets::set_bet(row, &state.rules)?))
}

/// Retires a set (a supervisor): it is no longer sold; tickets already sold from it stand and
/// keep naming it. The body `{"reason": "..."}` is optional (the first API had none).
#[utoipa::path(
    tag = "set_bets",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "The set's id")),
    request_body(content = Option<super::why::ReasonRequest>, description = "Why, recorded"),
    responses(
        (status = 200, body = SetBet),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_reason`: a blank or too long reason; `invalid_request`: a body other than `{\"reason\": \"...\"}`; `too_long`: a body over 256 KiB"),
        (status = 409, body = crate::error::ErrorBody, description = "`already_retired`"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/set-bets/{id}/retire", wrap = "Require(&[Role::Supervisor])")]
pub async fn retire(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<i64>,
    body: web::Bytes,
) -> ApiResult<web::Json<SetBet>> {
    let id = id.into_inner();
    let reason = super::why::optional_reason(&body, |r: super::why::ReasonRequest| r.reason)?;
    let row = crate::store::write(&state.store, None, move |conn| {
        set_bets::retire(conn, id, &principal.id, reason.as_deref())
    })
    .await?;
    state
        .events
        .publish(&Event::SetBetsChanged(SetBetsChanged { id }));
    Ok(web::Json(set_bets::set_bet(row, &state.rules)?))
}
