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
//! Every protected endpoint declares its roles on its route, `wrap = "Require(&[...])"`
//! (`http.rs`, the HTTP layer): the caller is authenticated and its role checked before any of
//! the request (path, query or body) is read, so a stranger learns nothing about an endpoint's
//! input, and a failed token counts against the address (`crate::rate_limit::AuthFailures`).

pub mod http;
pub mod principal;

use diesel::prelude::*;
use getrandom::SysRng;
use rand_core::{Rng, UnwrapErr};
use sha2::{Digest, Sha256};

use crate::db::schema::{principals, terminals};
use crate::db::{now_micros, DbConnection};

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
    conn.write_transaction(|conn| {
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
                crate::audit::kind::EntryKind::PrincipalAdded,
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

pub(crate) fn find_by_hash(conn: &mut DbConnection, hash: &str) -> QueryResult<Option<Principal>> {
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

/// A principal's role as stored; one no server writes is an error naming the principal, never
/// read as another role.
pub fn stored_role(text: &str, principal: &str) -> crate::failure::DomainResult<Role> {
    Role::parse(text).ok_or_else(|| {
        crate::failure::Failure::Internal(anyhow::anyhow!(
            "principal {principal}: unknown stored role {text:?}"
        ))
    })
}
