//! Principals, their roles and bearer tokens (`shared/API.md`, "Authentication").
//!
//! A token is 32 bytes from the OS CSPRNG, shown once when the principal is added; only its
//! SHA-256 is stored, so the database cannot be used to act as anyone.
//!
//! How a presented token is matched: its SHA-256 is computed first, and only the digest is
//! looked up (in the cache of recently seen principals, then in the database by the unique
//! `token_hash` column) and compared. A lookup whose timing depends on the digest reveals at
//! most a prefix of the digest of the guess, from which nothing about any token follows (a
//! token is 256 random bits and SHA-256 is preimage resistant). The stored digest is then
//! compared with the presented one once more, in constant time (`subtle`), so that no database
//! collation or cache slip can admit a near miss. The token itself is never compared, stored,
//! logged nor put in an error.
//!
//! Every protected endpoint declares its roles on its route, `wrap = "Require(&[...])"`: the
//! caller is authenticated and its role checked before any of the request (path, query or
//! body) is read, so a stranger learns nothing about an endpoint's input, and a failed token
//! counts against the address (`crate::rate_limit::AuthFailures`).

pub mod principal;

use std::future::{ready, Future, Ready};
use std::pin::Pin;
use std::rc::Rc;

use actix_web::dev::{forward_ready, Service, ServiceRequest, ServiceResponse, Transform};
use actix_web::{get, web, FromRequest, HttpMessage, HttpRequest};
use diesel::prelude::*;
use futures_util::future::LocalBoxFuture;
use getrandom::SysRng;
use rand_core::{Rng, UnwrapErr};
use sha2::{Digest, Sha256};

use crate::db::schema::{principals, terminals};
use crate::db::{now_micros, DbConnection};
use crate::error::{ApiError, Failure};
use crate::rate_limit::FAILURE_PAUSE;
use crate::state::AppState;
use keno_api::Refusal;

pub use keno_api::principals::Me;
use principal::same_secret;
pub use principal::{Principal, Role, ANY_ROLE};

/// How a session's token begins (`crate::staff::sessions`); a legacy token is bare hex.
pub const SESSION_PREFIX: &str = "ks_";

pub fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

fn new_token() -> String {
    let mut bytes = [0u8; 32];
    UnwrapErr(SysRng).fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// Adds a principal and returns its token (shown once). A writer is bound to a site, a terminal
/// and an operator name; the terminal's ticket numbers start at 1.
pub fn add_principal(
    conn: &mut DbConnection,
    role: Role,
    name: &str,
    site: Option<&str>,
    terminal: Option<&str>,
) -> anyhow::Result<(String, String)> {
    if role == Role::Writer && (site.is_none() || terminal.is_none()) {
        anyhow::bail!("a writer is bound to a site and a terminal: give --site and --terminal");
    }
    // Kept as every name is (keno-core's text rule, issue 31).
    let name = &keno_core::clean_text(name, 100)
        .map_err(|e| anyhow::anyhow!("a principal's name (1 to 100 characters of text) {e}"))?;
    let token = new_token();
    let id = new_token()[..16].to_string();
    conn.transaction(|conn| {
        diesel::insert_into(principals::table)
            .values((
                principals::id.eq(&id),
                principals::role.eq(role.as_str()),
                principals::name.eq(name),
                principals::site.eq(site),
                principals::terminal.eq(terminal),
                principals::token_hash.eq(token_hash(&token)),
                principals::created_at.eq(now_micros()),
                principals::disabled.eq(false),
            ))
            .execute(conn)?;
        if let (Some(site), Some(terminal)) = (site, terminal) {
            let exists = terminals::table
                .find((site, terminal))
                .count()
                .get_result::<i64>(conn)?
                > 0;
            if !exists {
                diesel::insert_into(terminals::table)
                    .values((
                        terminals::site.eq(site),
                        terminals::terminal.eq(terminal),
                        terminals::last_ticket_number.eq(0i64),
                    ))
                    .execute(conn)?;
            }
        }
        // The token is a secret: the trail holds its hash, as the table does.
        crate::audit::log::append(
            conn,
            vec![crate::audit::log::Entry::new(
                "principal_added",
                &id,
                serde_json::json!({
                    "role": role.as_str(), "name": name, "site": site, "terminal": terminal,
                    "token_sha256": token_hash(&token),
                }),
            )],
        )
    })?;
    Ok((id, token))
}

/// A principal as stored; its token only as a hash.
#[derive(Queryable, Selectable, Debug)]
#[diesel(table_name = principals)]
pub struct PrincipalRow {
    pub id: String,
    pub role: String,
    pub name: String,
    pub site: Option<String>,
    pub terminal: Option<String>,
    pub token_hash: String,
    pub created_at: i64,
    pub disabled: bool,
}

fn find_by_hash(conn: &mut DbConnection, hash: &str) -> QueryResult<Option<Principal>> {
    let row: Option<PrincipalRow> = principals::table
        .filter(principals::token_hash.eq(hash))
        .filter(principals::disabled.eq(false))
        .select(PrincipalRow::as_select())
        .first(conn)
        .optional()?;
    Ok(row.and_then(|row| {
        if !same_secret(&row.token_hash, hash) {
            return None;
        }
        let PrincipalRow {
            id,
            role,
            name,
            site,
            terminal,
            ..
        } = row;
        Some(Principal {
            id,
            role: Role::parse(&role)?,
            name,
            site,
            terminal,
            session: None,
        })
    }))
}

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
pub(crate) fn bearer_token(req: &HttpRequest) -> Option<String> {
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
        principal_of(state, conn, &token, crate::db::now_micros())
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
