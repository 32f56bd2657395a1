//! Authentication over HTTP (the HTTP layer): the bearer token of a request matched to its
//! principal (the cache, the database, a session's standing), the `Principal` extractor and the
//! `Require` guard every protected route wears, and `GET /api/v1/principals/me`.

use std::future::{ready, Future, Ready};
use std::pin::Pin;
use std::rc::Rc;

use actix_web::dev::{forward_ready, Service, ServiceRequest, ServiceResponse, Transform};
use actix_web::{get, web, FromRequest, HttpMessage, HttpRequest};
use diesel::prelude::*;
use futures_util::future::LocalBoxFuture;
use keno_api::principals::Me;
use keno_api::Refusal;

use super::{find_by_hash, token_hash, Principal, Role, ANY_ROLE, SESSION_PREFIX};
use crate::error::{ApiError, Failure};
use crate::rate_limit::FAILURE_PAUSE;
use crate::state::AppState;

/// The principal behind the bearer token.
#[utoipa::path(
    tag = "principals",
    security(("bearer" = [])),
    responses((status = 200, body = Me), (status = 401, body = crate::error::ErrorBody))
)]
#[get("/api/v1/principals/me", wrap = "Require(ANY_ROLE)")]
pub async fn me(principal: Principal) -> web::Json<Me> {
    web::Json(Me {
        id: principal.id,
        role: principal.role,
        name: principal.name,
        site: principal.site,
        terminal: principal.terminal,
    })
}

/// The bearer token of a request: `Authorization: Bearer <token>` (the scheme in any case).
pub fn bearer_token(req: &HttpRequest) -> Option<String> {
    let value = req
        .headers()
        .get(actix_web::http::header::AUTHORIZATION)?
        .to_str()
        .ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then(|| token.to_string())
}

/// The principal behind the request's bearer token: 401 without a token or with one that
/// matches no enabled principal (a failure counted against the client's address).
///
/// An address that has failed too often (`--auth-failure-rate`) still has its tokens looked
/// up, so a good one behind the same address as a guesser (a venue's NAT) always gets in; but
/// such lookups are a few at a time in all, each one index probe, and a bad token from it is
/// answered 429 only after [`FAILURE_PAUSE`]: the guesser slows itself, not the venue.
async fn authenticate(req: HttpRequest) -> Result<Principal, ApiError> {
    let token = bearer_token(&req).ok_or_else(Failure::unauthorized)?;
    let state = req
        .app_data::<web::Data<AppState>>()
        .cloned()
        .ok_or_else(|| Failure::Internal(anyhow::anyhow!("no state")))?;
    let hash = token_hash(&token);
    if let Some(p) = state.principals.get(&hash, state.settings.staff.idle) {
        return Ok(p);
    }
    let client = crate::rate_limit::client_key(&req, state.trust_forwarded_for);
    let over = client
        .filter(|_| !state.principals.known(&hash))
        .and_then(|c| state.auth_failures.check(c).err());
    let turn = match over {
        Some(_) => state.auth_failures.suspect_turn().await,
        None => None,
    };
    let found = look_up(&state, token, hash).await?;
    drop(turn);
    match found {
        Some((hash, principal)) => {
            state.principals.put(hash, principal.clone());
            Ok(principal)
        }
        None => {
            if let Some(client) = client {
                if state.auth_failures.fail(client) {
                    tracing::warn!(%client, "bad bearer tokens: this address is refused for a while");
                } else {
                    tracing::info!(%client, "a bearer token that matches no principal");
                }
            }
            if let Some(refusal) = over {
                tokio::time::sleep(FAILURE_PAUSE).await;
                return Err(refusal.into());
            }
            Err(Failure::unauthorized().into())
        }
    }
}

/// The principal a token (not in the cache) belongs to, if any. A session's lookup may end it
/// (idle, the Keno Day over) or note its use, in a write; a token that is no session's is
/// told by one read first, so a bad one never takes the writer's turn.
async fn look_up(
    state: &web::Data<AppState>,
    token: String,
    hash: String,
) -> Result<Option<(String, Principal)>, ApiError> {
    if !token.starts_with(SESSION_PREFIX) {
        drop(token);
        return Ok(crate::store::read(
            &state.store,
            move |conn| -> crate::error::DomainResult<_> {
                Ok(find_by_hash(conn, &hash)?.map(|p| (hash, p)))
            },
        )
        .await?);
    }
    use crate::db::schema::staff_sessions;
    use crate::staff::sessions::{principal_of, Lookup};
    let probe = hash.clone();
    let exists = crate::store::read(
        &state.store,
        move |conn| -> crate::error::DomainResult<bool> {
            let found: i64 = staff_sessions::table
                .filter(staff_sessions::token_hash.eq(&probe))
                .count()
                .get_result(conn)?;
            Ok(found > 0)
        },
    )
    .await?;
    if !exists {
        return Ok(None);
    }
    let lookup = crate::state::write(state, None, move |state, conn| {
        principal_of(
            conn,
            state.settings.staff.idle,
            &token,
            crate::db::now_micros(),
        )
    })
    .await?;
    match lookup {
        Lookup::Unknown => Ok(None),
        Lookup::Ended(end) => Err(Failure::refuse(Refusal::SessionEnded, end.message()).into()),
        Lookup::Standing(p) => Ok(Some((hash, p))),
    }
}

impl FromRequest for Principal {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Principal, ApiError>>>>;

    /// The principal [`Require`] found for the route, or (on a route without it) the token's.
    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        if let Some(p) = req.extensions().get::<Principal>() {
            return Box::pin(ready(Ok(p.clone())));
        }
        Box::pin(authenticate(req.clone()))
    }
}

/// A route's roles, checked before the handler reads anything of the request:
/// `#[post("/api/v1/...", wrap = "Require(&[Role::Supervisor])")]`. 401 without a valid token,
/// 403 for another role; the principal is then what the handler's `Principal` argument gets.
#[derive(Clone, Copy)]
pub struct Require(pub &'static [Role]);

impl<S, B> Transform<S, ServiceRequest> for Require
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error> + 'static,
    B: 'static,
{
    type Response = ServiceResponse<B>;
    type Error = actix_web::Error;
    type Transform = RequireService<S>;
    type InitError = ();
    type Future = Ready<Result<RequireService<S>, ()>>;

    fn new_transform(&self, service: S) -> Self::Future {
        ready(Ok(RequireService {
            service: Rc::new(service),
            roles: self.0,
        }))
    }
}

pub struct RequireService<S> {
    service: Rc<S>,
    roles: &'static [Role],
}

impl<S, B> Service<ServiceRequest> for RequireService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error> + 'static,
    B: 'static,
{
    type Response = ServiceResponse<B>;
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<ServiceResponse<B>, actix_web::Error>>;

    forward_ready!(service);

    fn call(&self, req: ServiceRequest) -> Self::Future {
        let service = self.service.clone();
        let roles = self.roles;
        Box::pin(async move {
            let principal = authenticate(req.request().clone()).await?;
            principal.require(roles).map_err(ApiError)?;
            // A person's bearer token of `principal add` works for one more release.
            let deprecated = principal.session.is_none() && principal.role != Role::Device;
            req.extensions_mut().insert(principal);
            let mut response = service.call(req).await?;
            if deprecated {
                response.headers_mut().insert(
                    actix_web::http::header::HeaderName::from_static("deprecation"),
                    actix_web::http::header::HeaderValue::from_static("true"),
                );
            }
            Ok(response)
        })
    }
}
