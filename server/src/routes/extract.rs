//! The request headers the domain reads, taken from the request: the domain names their types,
//! only this file knows they come from HTTP headers.

use std::future::{ready, Ready};

use actix_web::{FromRequest, HttpRequest};
use keno_api::limits::REQUEST_ID;
use keno_api::staff::OVERRIDE_HEADER;
use keno_api::Refusal;

use crate::error::Failure;
use crate::request_ids::{RequestIdHeader, HEADER};
use crate::staff::overrides::OverrideHeader;

impl FromRequest for OverrideHeader {
    type Error = actix_web::Error;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let carried = req
            .headers()
            .get(OVERRIDE_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty());
        ready(Ok(OverrideHeader(carried)))
    }
}

impl FromRequest for RequestIdHeader {
    type Error = actix_web::Error;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let Some(value) = req.headers().get(HEADER) else {
            return ready(Ok(RequestIdHeader(None)));
        };
        let id = value
            .to_str()
            .ok()
            .filter(|s| !s.is_empty() && s.len() <= REQUEST_ID);
        ready(match id {
            Some(id) => Ok(RequestIdHeader(Some(id.to_string()))),
            None => Err(Failure::refuse(
                Refusal::InvalidRequestId,
                format!("{HEADER} must be 1 to {REQUEST_ID} visible ASCII characters"),
            )
            .into()),
        })
    }
}
