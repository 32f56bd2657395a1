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
    /// The session signed on (`crate::staff::sessions`); `None` for a bearer token of
    /// `principal add` (a device's, or a person's, deprecated).
    pub session: Option<String>,
}

impl Principal {
    /// Refuses the call unless the principal has one of `roles`.
    pub fn require(&self, roles: &[Role]) -> Result<(), Failure> {
        if roles.contains(&self.role) {
            Ok(())
        } else {
            let allowed: Vec<&str> = roles.iter().map(|r| r.as_str()).collect();
            let role = self.role.as_str();
            // "an auditor", "an inspector": the article follows the sound of the role's name.
            let article = if role.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            };
            Err(Failure::forbidden(format!(
                "{article} {role} may not do this; it needs the role {}",
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
    entries: Mutex<HashMap<String, Cached>>,
}

struct Cached {
    principal: Principal,
    /// When the database last confirmed it.
    found: Instant,
    /// When a request of this instance last used it.
    used: Instant,
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
    /// The principal of a digest found in the last few seconds. A session's is given only if
    /// this instance saw it used within `idle` (and its use is noted); otherwise the database
    /// decides whether it stands (another instance may have seen it since).
    pub(super) fn get(&self, hash: &str, idle: Duration) -> Option<Principal> {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        // The table is keyed by the digest; the digest found is confirmed in constant time.
        let (stored, entry) = entries.get_key_value(hash)?;
        if !same_secret(stored, hash) || entry.found.elapsed() >= CACHE_TTL {
            return None;
        }
        if entry.principal.session.is_some() && entry.used.elapsed() > idle {
            return None;
        }
        let entry = entries.get_mut(hash)?;
        entry.used = Instant::now();
        Some(entry.principal.clone())
    }

    /// Whether the token of this digest matched a principal in the last [`KNOWN_TTL`].
    pub(super) fn known(&self, hash: &str) -> bool {
        let entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries
            .get_key_value(hash)
            .is_some_and(|(stored, c)| same_secret(stored, hash) && c.found.elapsed() < KNOWN_TTL)
    }

    /// Forgets a token at once (signed off).
    pub fn forget(&self, hash: &str) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries.remove(hash);
    }

    /// Forgets every token of a principal at once (disabled, or its secret reset).
    pub fn forget_principal(&self, id: &str) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries.retain(|_, c| c.principal.id != id);
    }

    /// Forgets every token (the instance may have missed a `forget` while not listening).
    pub fn forget_all(&self) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries.clear();
    }

    pub(super) fn put(&self, hash: String, principal: Principal) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if entries.len() > 10_000 {
            entries.retain(|_, c| c.found.elapsed() < KNOWN_TTL);
        }
        let now = Instant::now();
        entries.insert(
            hash,
            Cached {
                principal,
                found: now,
                used: now,
            },
        );
    }
}

/// Two digests (or any secrets of public length) equal, compared in constant time.
pub(super) fn same_secret(a: &str, b: &str) -> bool {
    bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}
