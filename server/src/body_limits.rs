//! Every request body held to `keno_api::limits` before a handler reads it: a JSON body with a
//! text or a list over its field's limit is refused (400 `too_long`, naming the field) and
//! nothing is done, so no stored text is longer than the limits the OpenAPI document states.
//! A body that is not JSON passes on to its handler, which refuses it as it always has.

use actix_web::body::MessageBody;
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::web;
use keno_api::limits::{first_over, MAX_BODY_BYTES};
use keno_api::Refusal;

use crate::error::Failure;

/// The middleware (`actix_web::middleware::from_fn(bounded)`).
pub async fn bounded(
    mut req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    if matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        return next.call(req).await;
    }
    let body = req.extract::<web::Bytes>().await.map_err(|_| {
        Failure::refuse(
            Refusal::TooLong,
            format!(
                "the request body is larger than {} KiB",
                MAX_BODY_BYTES / 1024
            ),
        )
    })?;
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(&body) {
        if let Some(over) = first_over(&value) {
            return Err(Failure::refuse(Refusal::TooLong, over).into());
        }
    }
    req.set_payload(Payload::from(body));
    next.call(req).await
}
