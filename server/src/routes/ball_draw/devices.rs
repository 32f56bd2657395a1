//! `GET /api/v1/devices`, `/api/v1/devices/{id}` and `POST /api/v1/devices/{id}/return`: ball
//! devices in and out of service (`ball_draw::devices`, rule 10.4).

use actix_web::{get, post, web};
use keno_api::events::Event;

use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::ball_draw::devices::{self, Device, ReturnRequest};
use crate::error::{ApiResult, Failure};
use crate::state::AppState;

/// Every ball device and whether it is in service.
#[utoipa::path(
    tag = "draw",
    security(("bearer" = [])),
    responses((status = 200, body = [Device]), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody))
)]
#[get(
    "/api/v1/devices",
    wrap = "Require(&[Role::Supervisor, Role::Inspector, Role::Auditor])"
)]
pub async fn list(state: web::Data<AppState>) -> ApiResult<web::Json<Vec<Device>>> {
    let all = crate::store::read(&state.store, devices::all).await?;
    Ok(web::Json(all))
}

/// One ball device: a device may read its own state (to wait until it is returned).
#[utoipa::path(
    tag = "draw",
    security(("bearer" = [])),
    params(("id" = String, Path, description = "The device's principal id")),
    responses((status = 200, body = Device), (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody))
)]
#[get(
    "/api/v1/devices/{id}",
    wrap = "Require(&[Role::Supervisor, Role::Inspector, Role::Auditor, Role::Device])"
)]
pub async fn get_device(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<String>,
) -> ApiResult<web::Json<Device>> {
    let id = id.into_inner();
    if principal.role == Role::Device && principal.id != id {
        return Err(Failure::forbidden("a device may read only its own state").into());
    }
    let found = crate::store::read(&state.store, move |conn| devices::device(conn, &id)).await?;
    Ok(web::Json(found))
}

/// A supervisor's or an inspector's approval to return a device to service; the device is back
/// once both have approved every open hold on it.
#[utoipa::path(
    tag = "draw",
    security(("bearer" = [])),
    params(("id" = String, Path, description = "The device's principal id")),
    request_body = ReturnRequest,
    responses(
        (status = 200, body = Device),
        (status = 409, body = crate::error::ErrorBody, description = "`device_in_service` (no open hold), `already_approved` (this role has approved: the other must)"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post(
    "/api/v1/devices/{id}/return",
    wrap = "Require(&[Role::Supervisor, Role::Inspector])"
)]
pub async fn return_to_service(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<String>,
    request: web::Json<ReturnRequest>,
) -> ApiResult<web::Json<Device>> {
    let id = id.into_inner();
    let request = request.into_inner();
    let note = crate::ball_draw::reason(&request.note)?;
    let fault = request.fault;
    let (device, returned) = crate::store::write(&state.store, None, move |conn| {
        devices::approve_return(conn, &id, &principal, &note, fault)
    })
    .await?;
    if returned {
        state
            .events
            .publish(&Event::DeviceReturned(keno_api::events::DeviceReturned {
                device: device.id.clone(),
                name: device.name.clone(),
            }));
    }
    Ok(web::Json(device))
}
