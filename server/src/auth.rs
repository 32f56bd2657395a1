//! Principals, their roles and bearer tokens (`shared/API.md`, "Authentication").
//!
//! A token is 32 bytes from the OS CSPRNG, shown once when the principal is added; only its
//! SHA-256 is stored, so the database cannot be used to act as anyone.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use actix_web::{get, web, FromRequest, HttpRequest};
use diesel::prelude::*;
use getrandom::SysRng;
use rand_core::{Rng, UnwrapErr};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::db::schema::{principals, terminals};
use crate::db::{now_micros, DbConnection};
use crate::error::ApiError;
use crate::state::AppState;

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Writer,
    Supervisor,
    Inspector,
    Auditor,
    Device,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Writer => "writer",
            Role::Supervisor => "supervisor",
            Role::Inspector => "inspector",
            Role::Auditor => "auditor",
            Role::Device => "device",
        }
    }

    fn parse(s: &str) -> Option<Role> {
        [
            Role::Writer,
            Role::Supervisor,
            Role::Inspector,
            Role::Auditor,
            Role::Device,
        ]
        .into_iter()
        .find(|r| r.as_str() == s)
    }
}

/// Who is calling: the principal behind the bearer token.
#[derive(Clone, Debug)]
pub struct Principal {
    pub id: String,
    pub role: Role,
    pub name: String,
    pub site: Option<String>,
    pub terminal: Option<String>,
}

impl Principal {
    /// Refuses the call unless the principal has one of `roles`.
    pub fn require(&self, roles: &[Role]) -> Result<(), ApiError> {
        if roles.contains(&self.role) {
            Ok(())
        } else {
            let allowed: Vec<&str> = roles.iter().map(|r| r.as_str()).collect();
            Err(ApiError::forbidden(format!(
                "a {} may not do this; it needs the role {}",
                self.role.as_str(),
                allowed.join(" or ")
            )))
        }
    }
}

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
    if name.trim().is_empty() {
        anyhow::bail!("a principal needs a name");
    }
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

type PrincipalRow = (String, String, String, Option<String>, Option<String>);

fn find_by_hash(conn: &mut DbConnection, hash: &str) -> QueryResult<Option<Principal>> {
    let row: Option<PrincipalRow> = principals::table
        .filter(principals::token_hash.eq(hash))
        .filter(principals::disabled.eq(false))
        .select((
            principals::id,
            principals::role,
            principals::name,
            principals::site,
            principals::terminal,
        ))
        .first(conn)
        .optional()?;
    Ok(row.and_then(|(id, role, name, site, terminal)| {
        Some(Principal {
            id,
            role: Role::parse(&role)?,
            name,
            site,
            terminal,
        })
    }))
}

/// Who a token belongs to, for a terminal's sign-on screen.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Me {
    /// The principal's id: how faults, corrections and approvals name who made them.
    pub id: String,
    pub role: Role,
    pub name: String,
    pub site: Option<String>,
    pub terminal: Option<String>,
}

/// The principal behind the bearer token.
#[utoipa::path(
    tag = "principals",
    security(("bearer" = [])),
    responses((status = 200, body = Me), (status = 401, body = crate::error::ErrorBody))
)]
#[get("/api/v1/principals/me")]
pub async fn me(principal: Principal) -> web::Json<Me> {
    web::Json(Me {
        id: principal.id,
        role: principal.role,
        name: principal.name,
        site: principal.site,
        terminal: principal.terminal,
    })
}

/// Principals found by token in the last few seconds, so that a busy terminal's requests do
/// not each look it up. A principal disabled in the database stops working within the TTL;
/// unknown tokens are never cached, so a new principal works at once.
pub struct PrincipalCache {
    entries: Mutex<HashMap<String, (Principal, Instant)>>,
}

const CACHE_TTL: Duration = Duration::from_secs(10);

impl Default for PrincipalCache {
    fn default() -> Self {
        PrincipalCache {
            entries: Mutex::new(HashMap::new()),
        }
    }
}

impl PrincipalCache {
    fn get(&self, hash: &str) -> Option<Principal> {
        let entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries
            .get(hash)
            .filter(|(_, at)| at.elapsed() < CACHE_TTL)
            .map(|(p, _)| p.clone())
    }

    fn put(&self, hash: String, principal: Principal) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if entries.len() > 10_000 {
            entries.retain(|_, (_, at)| at.elapsed() < CACHE_TTL);
        }
        entries.insert(hash, (principal, Instant::now()));
    }
}

impl FromRequest for Principal {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Principal, ApiError>>>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let token = req
            .headers()
            .get(actix_web::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(|t| t.trim().to_string());
        let state = req.app_data::<web::Data<AppState>>().cloned();
        Box::pin(async move {
            let token = token.ok_or_else(ApiError::unauthorized)?;
            let state = state.ok_or_else(|| ApiError::Internal(anyhow::anyhow!("no state")))?;
            let hash = token_hash(&token);
            if let Some(p) = state.principals.get(&hash) {
                return Ok(p);
            }
            let lookup = state.clone();
            let found = web::block(move || -> Result<_, ApiError> {
                let mut conn = lookup.db.conn()?;
                Ok(find_by_hash(&mut conn, &hash)?.map(|p| (hash, p)))
            })
            .await??;
            let (hash, principal) = found.ok_or_else(ApiError::unauthorized)?;
            state.principals.put(hash, principal.clone());
            Ok(principal)
        })
    }
}
