//! `GET /api/v1/integrity?seed=HEX`: the components of the running software with their
//! digests, for inspectors and auditors (`integrity`).

use actix_web::{get, web};
use keno_api::integrity::Integrity;
use keno_api::Refusal;

use crate::auth::http::Require;
use crate::auth::Role;
use crate::error::{ApiResult, Failure};

#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
pub struct IntegrityQuery {
    /// Key an HMAC-SHA256 of each component with this seed: hex digits, 1 to 64 bytes.
    pub seed: Option<String>,
}

/// The running software's components (the binary's file, the pages compiled in, the
/// migrations, the rule-set file in force) with their SHA-256 and, given a seed, HMAC-SHA256;
/// with the differences from the approved manifest when the server was given one.
#[utoipa::path(
    tag = "audit",
    security(("bearer" = [])),
    params(IntegrityQuery),
    responses(
        (status = 200, body = Integrity),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_request`: the seed is not 1 to 64 bytes in hex"),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[get(
    "/api/v1/integrity",
    wrap = "Require(&[Role::Inspector, Role::Auditor])"
)]
pub async fn integrity(
    service: web::Data<crate::integrity::Integrity>,
    query: web::Query<IntegrityQuery>,
) -> ApiResult<web::Json<Integrity>> {
    let seed = match query.into_inner().seed {
        Some(text) => {
            let bytes = crate::integrity::components::parse_seed(&text)
                .map_err(|e| Failure::refuse(Refusal::InvalidRequest, e))?;
            Some((text, bytes))
        }
        None => None,
    };
    let report =
        web::block(move || service.report(seed.as_ref().map(|(t, b)| (t.as_str(), b.as_slice()))))
            .await
            .map_err(|e| Failure::Internal(anyhow::anyhow!("{e}")))?
            .map_err(Failure::Internal)?;
    Ok(web::Json(report))
}
