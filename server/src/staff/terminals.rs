//! Registered terminals (rule 5.1: an entry only through a writer terminal). A terminal is
//! registered with its site and number and given its own credential, kept in its config: the
//! bearer token of a writer's sign-on there, and of nothing else. A rotation replaces the
//! credential (the old one stops at once). The trail keeps the credential's digest, as the
//! table does, so `audit verify` finds a credential swapped behind the server's back.

use actix_web::{get, post, web, HttpResponse};
use diesel::prelude::*;
use keno_api::staff::{RegisterTerminal, TerminalCredential, TerminalInfo};
use keno_api::Refusal;

use super::people::Actor;
use super::{check_code, secret};
use crate::audit::log::{append, Entry};
use crate::auth::http::Require;
use crate::auth::{token_hash, Principal, Role};
use crate::db::schema::terminals;
use crate::db::{now_micros, rfc3339, DbConnection};
use crate::error::{ApiResult, DomainResult, Failure};
use crate::state::AppState;

#[derive(Queryable, Selectable, Clone, Debug)]
#[diesel(table_name = terminals)]
pub struct TerminalRow {
    pub site: String,
    pub terminal: String,
    pub last_ticket_number: i64,
    pub credential_hash: Option<String>,
    pub registered_at: Option<i64>,
}

impl From<TerminalRow> for TerminalInfo {
    fn from(t: TerminalRow) -> Self {
        TerminalInfo {
            registered: t.credential_hash.is_some(),
            site: t.site,
            terminal: t.terminal,
            registered_at: t.registered_at.map(rfc3339),
            last_ticket_number: t.last_ticket_number,
        }
    }
}

fn find(conn: &mut DbConnection, site: &str, terminal: &str) -> QueryResult<Option<TerminalRow>> {
    terminals::table
        .find((site, terminal))
        .select(TerminalRow::as_select())
        .first(conn)
        .optional()
}

/// Registers a terminal (or one known only from legacy writer tokens) and answers its
/// credential; `terminal_registered` if it already has one (rotate it instead).
pub fn register_in(
    conn: &mut DbConnection,
    by: &Actor,
    site: &str,
    terminal: &str,
    reason: &str,
) -> DomainResult<TerminalCredential> {
    let site = check_code("site", site, Refusal::InvalidTerminal)?;
    let terminal = check_code("terminal", terminal, Refusal::InvalidTerminal)?;
    let reason = crate::reason::reason(reason)?;
    let credential = secret::new_token("kt_");
    let now = now_micros();
    match find(conn, &site, &terminal)? {
        Some(t) if t.credential_hash.is_some() => {
            return Err(Failure::refuse(
                Refusal::TerminalRegistered,
                format!("terminal {site}/{terminal} is registered: rotate its credential instead"),
            ))
        }
        Some(_) => {
            set_credential(conn, &site, &terminal, &credential, now)?;
        }
        None => {
            diesel::insert_into(terminals::table)
                .values((
                    terminals::site.eq(&site),
                    terminals::terminal.eq(&terminal),
                    terminals::last_ticket_number.eq(0i64),
                    terminals::credential_hash.eq(token_hash(&credential)),
                    terminals::registered_at.eq(now),
                ))
                .execute(conn)?;
        }
    }
    record(
        conn,
        by,
        "terminal_registered",
        &site,
        &terminal,
        &credential,
        now,
        &reason,
    )?;
    Ok(TerminalCredential {
        site,
        terminal,
        credential,
    })
}

/// A new credential for a registered terminal; the old one stops at once.
pub fn rotate_in(
    conn: &mut DbConnection,
    by: &Actor,
    site: &str,
    terminal: &str,
    reason: &str,
) -> DomainResult<TerminalCredential> {
    let reason = crate::reason::reason(reason)?;
    match find(conn, site, terminal)? {
        Some(t) if t.credential_hash.is_some() => {}
        _ => return Err(Failure::not_found("registered terminal")),
    }
    let credential = secret::new_token("kt_");
    let now = now_micros();
    set_credential(conn, site, terminal, &credential, now)?;
    record(
        conn,
        by,
        "terminal_credential_rotated",
        site,
        terminal,
        &credential,
        now,
        &reason,
    )?;
    Ok(TerminalCredential {
        site: site.to_string(),
        terminal: terminal.to_string(),
        credential,
    })
}

fn set_credential(
    conn: &mut DbConnection,
    site: &str,
    terminal: &str,
    credential: &str,
    now: i64,
) -> QueryResult<usize> {
    diesel::update(terminals::table.find((site, terminal)))
        .set((
            terminals::credential_hash.eq(token_hash(credential)),
            terminals::registered_at.eq(now),
        ))
        .execute(conn)
}

#[allow(clippy::too_many_arguments)]
fn record(
    conn: &mut DbConnection,
    by: &Actor,
    kind: &'static str,
    site: &str,
    terminal: &str,
    credential: &str,
    now: i64,
    reason: &str,
) -> QueryResult<()> {
    let payload = serde_json::json!({
        "site": site, "terminal": terminal, "credential_sha256": token_hash(credential),
        "at": now, "by": by.name, "reason": reason,
    });
    append(
        conn,
        vec![by.entry(Entry::new(kind, format!("{site}/{terminal}"), payload))],
    )
}

pub fn list_in(
    conn: &mut DbConnection,
    (limit, after): (i64, &str),
) -> QueryResult<Vec<TerminalInfo>> {
    // `after` is the last terminal's "site/terminal": the rows after it in (site, terminal)
    // order.
    let (site, terminal) = after.split_once('/').unwrap_or((after, ""));
    Ok(terminals::table
        .filter(
            terminals::site.gt(site).or(terminals::site
                .eq(site)
                .and(terminals::terminal.gt(terminal))),
        )
        .order((terminals::site, terminals::terminal))
        .limit(limit)
        .select(TerminalRow::as_select())
        .load(conn)?
        .into_iter()
        .map(TerminalInfo::from)
        .collect())
}

/// A page of the terminals, by site and terminal.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
pub struct TerminalQuery {
    /// At most this many terminals (1 to 500, the default).
    pub limit: Option<i64>,
    /// Only terminals after this one, written `SITE/TERMINAL`: the next page, from the last of
    /// a full one.
    pub after: Option<String>,
}

/// Every terminal, registered or known from legacy writer tokens, by site and terminal, a page
/// at a time.
#[utoipa::path(
    tag = "staff",
    security(("bearer" = [])),
    params(TerminalQuery),
    responses((status = 200, body = Vec<TerminalInfo>), (status = 400, body = crate::error::ErrorBody, description = "`invalid_range`: limit is 1 to 500"), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody))
)]
#[get("/api/v1/terminals", wrap = "Require(&[Role::Supervisor])")]
pub async fn list(
    state: web::Data<AppState>,
    query: web::Query<TerminalQuery>,
) -> ApiResult<web::Json<Vec<TerminalInfo>>> {
    let limit = crate::paging::limit(query.limit)?;
    let after = query.into_inner().after.unwrap_or_default();
    Ok(web::Json(
        crate::store::read(&state.store, move |conn| {
            Ok(list_in(conn, (limit, &after))?)
        })
        .await?,
    ))
}

/// Registers a terminal: its credential is shown once, for the terminal's config.
#[utoipa::path(
    tag = "staff",
    security(("bearer" = [])),
    request_body = RegisterTerminal,
    responses(
        (status = 201, body = TerminalCredential),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_terminal`, `invalid_reason`"),
        (status = 409, body = crate::error::ErrorBody, description = "`terminal_registered`"),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/terminals", wrap = "Require(&[Role::Supervisor])")]
pub async fn register(
    state: web::Data<AppState>,
    principal: Principal,
    body: web::Json<RegisterTerminal>,
) -> ApiResult<HttpResponse> {
    let by = Actor::of(&principal);
    let made = crate::store::write(&state.store, None, move |conn| {
        register_in(conn, &by, &body.site, &body.terminal, &body.reason)
    })
    .await?;
    Ok(HttpResponse::Created().json(made))
}

/// Why a terminal's credential is rotated.
#[derive(serde::Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Rotate {
    pub reason: String,
}

/// Replaces a terminal's credential (lost, or a terminal replaced): the old one stops at once.
#[utoipa::path(
    tag = "staff",
    security(("bearer" = [])),
    params(("site" = String, Path), ("terminal" = String, Path)),
    request_body = Rotate,
    responses((status = 200, body = TerminalCredential), (status = 404, body = crate::error::ErrorBody), (status = 400, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody))
)]
#[post(
    "/api/v1/terminals/{site}/{terminal}/rotate",
    wrap = "Require(&[Role::Supervisor])"
)]
pub async fn rotate(
    state: web::Data<AppState>,
    principal: Principal,
    path: web::Path<(String, String)>,
    body: web::Json<Rotate>,
) -> ApiResult<web::Json<TerminalCredential>> {
    let (site, terminal) = path.into_inner();
    let by = Actor::of(&principal);
    Ok(web::Json(
        crate::store::write(&state.store, None, move |conn| {
            rotate_in(conn, &by, &site, &terminal, &body.reason)
        })
        .await?,
    ))
}
