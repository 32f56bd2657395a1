//! Running the room: people and their sign-on, registered terminals, and a supervisor's
//! approval given at the counter.
//!
//! A person (writer, supervisor, inspector, auditor) is a principal of kind `staff`, named by a
//! staff ID and proved by a secret (`keno_core::staff`): a writer signs on with a PIN at a
//! registered terminal (rule 5.1: entries only through a writer terminal), the others with a
//! password and a TOTP code. A sign-on makes a session (`sessions`), bound to the person and,
//! at a terminal, to the terminal and its site: the session's token is the bearer token of
//! every request after it, and the principal it yields is the person at that site and
//! terminal. Devices keep their own credential, a bearer token of `principal add`; the legacy
//! bearer tokens of people keep working for one release, marked deprecated.
//!
//! - [`people`]: list, add, disable, enable, reset a secret (HTTP for supervisors, and the CLI);
//! - [`terminals`]: register a terminal and rotate its credential;
//! - [`sessions`]: sign-on with its lock-out, the session behind a token, sign-off;
//! - [`overrides`]: a supervisor's approval at that moment of one action on one ticket;
//! - [`secret`]: argon2id, TOTP, tokens.

pub mod cli;
pub mod guard;
pub mod overrides;
pub mod people;
pub mod secret;
pub mod sessions;
pub mod terminals;

use std::time::Duration;

use diesel::prelude::*;
use keno_api::Refusal;
use keno_core::{LockOut, PayoutTiers, SecretKind};

use crate::auth::Role;
use crate::db::schema::principals;
use crate::error::{DomainResult, Failure};

/// The settings of sign-on, sessions and payout authority.
#[derive(Clone, Copy, Debug)]
pub struct StaffSettings {
    /// A session ends after this long without a request (`--session-idle`).
    pub idle: Duration,
    /// Failed sign-ons before a lock, and how long it lasts (`--sign-on-failures`,
    /// `--sign-on-lock`).
    pub lock_out: LockOut,
    /// The most a writer pays alone (`--writer-payout-limit`).
    pub payout: PayoutTiers,
    /// Whether a writer's acts at the counter need their shift open (`--cash-needs-shift`).
    pub shift: keno_core::ShiftRule,
}

impl StaffSettings {
    /// What value going out is bound by.
    pub fn out_limits(&self) -> keno_core::OutLimits {
        keno_core::OutLimits {
            payout: self.payout,
            shift: self.shift,
        }
    }
}

impl Default for StaffSettings {
    fn default() -> Self {
        StaffSettings {
            idle: Duration::from_secs(15 * 60),
            lock_out: LockOut {
                max_failures: 5,
                lock_micros: 15 * 60 * 1_000_000,
            },
            payout: PayoutTiers::default(),
            shift: keno_core::ShiftRule::Required,
        }
    }
}

/// What a principal row is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrincipalKind {
    /// A bearer token of `principal add`: a device's credential, or a person's, deprecated.
    Token,
    /// A person who signs on.
    Staff,
}

impl PrincipalKind {
    pub fn as_str(self) -> &'static str {
        match self {
            PrincipalKind::Token => "token",
            PrincipalKind::Staff => "staff",
        }
    }

    pub fn parse(s: &str) -> Option<PrincipalKind> {
        [PrincipalKind::Token, PrincipalKind::Staff]
            .into_iter()
            .find(|k| k.as_str() == s)
    }
}

/// How a person of `role` proves who they are; `None` for a device, which does not sign on.
pub fn secret_kind(role: Role) -> Option<SecretKind> {
    match role {
        Role::Writer => Some(SecretKind::Pin),
        Role::Supervisor | Role::Inspector | Role::Auditor | Role::Administrator => {
            Some(SecretKind::PasswordAndCode)
        }
        Role::Device => None,
    }
}

/// The office of a person of `role` in the duty table; `None` for a device.
/// The name of the person with staff ID (principal) `id`, who took a part in a decision: an ID
/// no longer in the table is an internal failure (principals are never deleted).
pub fn name_of(conn: &mut crate::db::DbConnection, id: &str) -> DomainResult<String> {
    principals::table
        .find(id)
        .select(principals::name)
        .first(conn)
        .optional()?
        .ok_or_else(|| Failure::Internal(anyhow::anyhow!("{id} is no principal")))
}

pub fn office(role: Role) -> Option<keno_core::Office> {
    use keno_core::Office;
    match role {
        Role::Writer => Some(Office::Writer),
        Role::Supervisor => Some(Office::Supervisor),
        Role::Inspector => Some(Office::Inspector),
        Role::Auditor => Some(Office::Auditor),
        Role::Administrator => Some(Office::Administrator),
        Role::Device => None,
    }
}

/// A person as stored (a principal of kind `staff`).
#[derive(Queryable, Selectable, Clone, Debug)]
#[diesel(table_name = principals)]
pub struct StaffRow {
    pub id: String,
    pub role: String,
    pub name: String,
    pub kind: String,
    pub created_at: i64,
    pub disabled: bool,
    pub secret_hash: Option<String>,
    pub totp_secret: Option<String>,
}

impl StaffRow {
    /// The stored role; one the server does not know is an internal error, never a default.
    pub fn role(&self) -> DomainResult<Role> {
        Role::parse(&self.role).ok_or_else(|| {
            Failure::Internal(anyhow::anyhow!(
                "staff {}: unknown stored role {:?}",
                self.id,
                self.role
            ))
        })
    }
}

/// The person of staff ID `id` (not a token principal).
pub fn find(conn: &mut crate::db::DbConnection, id: &str) -> QueryResult<Option<StaffRow>> {
    principals::table
        .find(id)
        .filter(principals::kind.eq(PrincipalKind::Staff.as_str()))
        .select(StaffRow::as_select())
        .first(conn)
        .optional()
}

/// A staff ID, site or terminal as typed: 1 to 16 letters, digits or dashes.
pub fn check_code(what: &str, text: &str, refusal: Refusal) -> DomainResult<String> {
    let text = text.trim();
    let ok = (1..=16).contains(&text.len())
        && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if ok {
        Ok(text.to_string())
    } else {
        Err(Failure::refuse(
            refusal,
            format!("a {what} is 1 to 16 letters, digits or dashes"),
        ))
    }
}
