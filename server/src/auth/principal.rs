//! Who is calling: a principal, its role, and the short-lived cache of principals found by
//! token. Nothing here reads a request or the database, so the shared state can hold the cache
//! without depending on the request handling around it.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::error::Failure;
use subtle::ConstantTimeEq;
// The wire's type (keno-api), where the server's modules have always found it.
pub use keno_api::principals::Role;

/// Every role: an endpoint any principal may call (`GET /principals/me`).
pub const ANY_ROLE: &[Role] = Role::ALL;

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
    pub fn require(&self, roles: &[Role]) -> Result<(), Failure> {
        if roles.contains(&self.role) {
            Ok(())
        } else {
            let allowed: Vec<&str> = roles.iter().map(|r| r.as_str()).collect();
            Err(Failure::forbidden(format!(
                "a {} may not do this; it needs the role {}",
                self.role.as_str(),
                allowed.join(" or ")
            )))
        }
    }
}

/// Principals found by token in the last few seconds, so that a busy terminal's requests do
/// not each look it up. A principal disabled in the database stops working within the TTL;
/// unknown tokens are never cached, so a new principal works at once. An entry is kept for a
/// day after it expires, to know the token as one that worked ([`PrincipalCache::known`]).
pub struct PrincipalCache {
    entries: Mutex<HashMap<String, (Principal, Instant)>>,
}

const CACHE_TTL: Duration = Duration::from_secs(10);

/// How long a token that worked is remembered as known: while its address is refused for bad
/// tokens, a known token is still looked up (a terminal keeps working beside a guesser).
const KNOWN_TTL: Duration = Duration::from_secs(24 * 3600);

impl Default for PrincipalCache {
    fn default() -> Self {
        PrincipalCache {
            entries: Mutex::new(HashMap::new()),
        }
    }
}

impl PrincipalCache {
    pub(super) fn get(&self, hash: &str) -> Option<Principal> {
        let entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        // The table is keyed by the digest; the digest found is confirmed in constant time.
        entries
            .get_key_value(hash)
            .filter(|(stored, (_, at))| same_secret(stored, hash) && at.elapsed() < CACHE_TTL)
            .map(|(_, (p, _))| p.clone())
    }

    /// Whether the token of this digest matched a principal in the last [`KNOWN_TTL`].
    pub(super) fn known(&self, hash: &str) -> bool {
        let entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries
            .get_key_value(hash)
            .is_some_and(|(stored, (_, at))| same_secret(stored, hash) && at.elapsed() < KNOWN_TTL)
    }

    pub(super) fn put(&self, hash: String, principal: Principal) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if entries.len() > 10_000 {
            entries.retain(|_, (_, at)| at.elapsed() < KNOWN_TTL);
        }
        entries.insert(hash, (principal, Instant::now()));
    }
}

/// Two digests (or any secrets of public length) equal, compared in constant time.
pub(super) fn same_secret(a: &str, b: &str) -> bool {
    bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}
