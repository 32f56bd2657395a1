//! Managing people: list, add, disable, enable, reset a secret. Over HTTP a supervisor manages
//! writers and an administrator supervisors, inspectors and auditors (the duty table,
//! `keno_core::may_manage`, asked by every path here); the venue's first administrator and
//! supervisor are added at the server with `keno-server staff add`, which may manage anyone.
//!
//! Each change enters the audit trail with who made it and why (`staff_added`,
//! `staff_disabled`, `staff_enabled`, `staff_secret_reset`), and the day's exceptions. The
//! trail holds the SHA-256 of the stored argon2id hash and of the TOTP secret, never the
//! secrets: `audit verify` finds a secret swapped in the table behind the server's back.
//! One active staff ID per person name and role (a unique index); a disabled person's
//! sessions end at once.

use std::time::Duration;

use diesel::prelude::*;
use keno_api::staff::{AddStaff, StaffMember, StaffSecret};
use keno_api::Refusal;
use keno_core::{Manager, Office, SecretKind, SessionEnd, StaffAct};
use sha2::{Digest, Sha256};

use super::{check_code, secret, secret_kind, sessions, PrincipalKind, StaffRow};
use crate::audit::log::{append, Entry};
use crate::auth::principal::PrincipalCache;
use crate::auth::{Principal, Role};
use crate::db::schema::{principals, sign_on_failures, staff_sessions};
use crate::db::{now_micros, rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};

/// Who makes a change: a supervisor or administrator signed on, or the operator at the
/// server's command line.
#[derive(Clone, Debug)]
pub struct Actor {
    pub id: Option<String>,
    pub name: String,
    /// The office of the person signed on; none for the command line.
    office: Option<Office>,
}

impl Actor {
    pub fn of(p: &Principal) -> Actor {
        Actor {
            id: Some(p.id.clone()),
            name: p.name.clone(),
            office: super::office(p.role),
        }
    }

    /// The operator of the command line, by the login it runs under.
    pub fn cli() -> Actor {
        let name = match std::env::var("USER") {
            Ok(user) if !user.trim().is_empty() => {
                format!("the operator at the server's command line (login {user})")
            }
            // A service or a container may run with no login named.
            _ => "the operator at the server's command line (no login named)".to_string(),
        };
        Actor {
            id: None,
            name,
            office: None,
        }
    }

    /// Refuses `act` on a person of `role` named `name` unless the duty table gives it to this
    /// actor (`keno_core::may_manage`; every path that changes a person asks here).
    fn may(&self, act: StaffAct, role: Role, name: &str) -> DomainResult<()> {
        let target = super::office(role).ok_or_else(|| {
            Failure::refuse(
                Refusal::InvalidRequest,
                "a device is not a person: it keeps its own credential",
            )
        })?;
        let by = match (&self.id, self.office) {
            (None, _) => Manager::CommandLine,
            (Some(_), Some(office)) => Manager::Person {
                office,
                name: &self.name,
            },
            (Some(_), None) => {
                return Err(Failure::refuse(
                    Refusal::NotYourDuty,
                    "a device manages no one",
                ))
            }
        };
        keno_core::may_manage(by, act, target, name)
            .map_err(|e| Failure::refuse(Refusal::NotYourDuty, e.to_string()))
    }

    pub fn entry(&self, entry: Entry) -> Entry {
        match &self.id {
            Some(id) => entry.by(id),
            None => entry,
        }
    }
}

/// The digest of a stored secret the trail keeps (of the argon2id hash, or the TOTP secret).
pub fn digest(stored: &str) -> String {
    hex::encode(Sha256::digest(stored.as_bytes()))
}

/// A secret ready to store: its hash made outside any transaction (argon2id takes time), and
/// the secrets to show once.
pub struct NewSecret {
    pub hash: String,
    pub shown: Option<String>,
    pub totp_secret: Option<String>,
}

impl NewSecret {
    /// The given secret, checked (`invalid_secret`), or one made; a TOTP secret for those who
    /// sign on with a code.
    pub fn make(kind: SecretKind, given: Option<&str>) -> DomainResult<NewSecret> {
        let (secret, shown) = match given {
            Some(s) => {
                keno_core::check_secret(kind, s)
                    .map_err(|e| Failure::refuse(Refusal::InvalidSecret, e.to_string()))?;
                (s.to_string(), None)
            }
            None => {
                let made = match kind {
                    SecretKind::Pin => secret::new_pin(),
                    SecretKind::PasswordAndCode => secret::new_password(),
                };
                (made.clone(), Some(made))
            }
        };
        Ok(NewSecret {
            hash: secret::hash(&secret)?,
            shown,
            totp_secret: (kind == SecretKind::PasswordAndCode).then(secret::new_totp_secret),
        })
    }

    fn shown(self, staff_id: &str, name: &str, role: Role) -> DomainResult<StaffSecret> {
        let account = format!("{name} ({staff_id})");
        let totp_uri = match &self.totp_secret {
            Some(s) => Some(secret::totp_uri(s, &account)?),
            None => None,
        };
        Ok(StaffSecret {
            staff_id: staff_id.to_string(),
            name: name.to_string(),
            role,
            secret: self.shown,
            totp_secret: self.totp_secret,
            totp_uri,
        })
    }

    /// The trail's record of the secret set.
    fn payload(&self) -> serde_json::Value {
        serde_json::json!({
            "secret_sha256": digest(&self.hash),
            "totp_sha256": self.totp_secret.as_deref().map(digest),
        })
    }
}

/// A person's name as kept: 1 to 100 characters, no control or invisible character, NFC
/// (issue 31: two staff IDs of one person must not differ by what cannot be seen).
fn check_name(name: &str) -> DomainResult<String> {
    crate::reason::kept("a name", name, 100, Refusal::InvalidName)
}

/// A person to add, checked, with the secret made: all before the transaction.
pub struct Addition {
    name: String,
    role: Role,
    staff_id: Option<String>,
    reason: String,
    secret: NewSecret,
}

impl Addition {
    pub fn check(req: &AddStaff) -> DomainResult<Addition> {
        let kind = secret_kind(req.role).ok_or_else(|| {
            Failure::refuse(
                Refusal::InvalidRequest,
                "a device does not sign on: it keeps its own credential (`principal add --role device`)",
            )
        })?;
        let staff_id = match &req.staff_id {
            Some(id) => Some(check_code("staff ID", id, Refusal::InvalidStaffId)?),
            None => None,
        };
        Ok(Addition {
            name: check_name(&req.name)?,
            role: req.role,
            staff_id,
            reason: crate::reason::reason(&req.reason)?,
            secret: NewSecret::make(kind, req.secret.as_deref())?,
        })
    }
}

/// A new staff ID: six digits, easy to key at a counter.
fn new_staff_id(conn: &mut DbConnection) -> DomainResult<String> {
    for _ in 0..20 {
        let id = secret::new_pin();
        let taken: i64 = principals::table.find(&id).count().get_result(conn)?;
        if taken == 0 {
            return Ok(id);
        }
    }
    Err(Failure::Internal(anyhow::anyhow!("no free staff ID found")))
}

/// Adds the person; `staff_active` if the name already has an active ID in the role.
pub fn add_in(
    conn: &mut DbConnection,
    by: &Actor,
    addition: Addition,
) -> DomainResult<StaffSecret> {
    by.may(StaffAct::Add, addition.role, &addition.name)?;
    let active: i64 = principals::table
        .filter(principals::kind.eq(PrincipalKind::Staff.as_str()))
        .filter(principals::name.eq(&addition.name))
        .filter(principals::role.eq(addition.role.as_str()))
        .filter(principals::disabled.eq(false))
        .count()
        .get_result(conn)?;
    if active > 0 {
        return Err(Failure::refuse(
            Refusal::StaffActive,
            format!(
                "{} already has an active {} staff ID: one per person and role",
                addition.name, addition.role
            ),
        ));
    }
    let id = match addition.staff_id {
        Some(id) => id,
        None => new_staff_id(conn)?,
    };
    let now = now_micros();
    let inserted = diesel::insert_into(principals::table)
        .values((
            principals::id.eq(&id),
            principals::role.eq(addition.role.as_str()),
            principals::name.eq(&addition.name),
            // A person holds no bearer token: this is the digest of one made and thrown away.
            principals::token_hash.eq(crate::auth::token_hash(&secret::new_token("x_"))),
            principals::created_at.eq(now),
            principals::disabled.eq(false),
            principals::kind.eq(PrincipalKind::Staff.as_str()),
            principals::secret_hash.eq(&addition.secret.hash),
            principals::totp_secret.eq(&addition.secret.totp_secret),
        ))
        .execute(conn);
    match inserted {
        Err(diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::UniqueViolation,
            _,
        )) => {
            return Err(Failure::refuse(
                Refusal::StaffIdTaken,
                format!("staff ID {id} is taken (or the person became active meanwhile)"),
            ))
        }
        other => other?,
    };
    let mut payload = addition.secret.payload();
    payload["name"] = addition.name.clone().into();
    payload["role"] = addition.role.as_str().into();
    payload["created_at"] = now.into();
    payload["by"] = by.name.clone().into();
    payload["reason"] = addition.reason.into();
    append(
        conn,
        vec![by.entry(Entry::new(
            crate::audit::kind::EntryKind::StaffAdded,
            &id,
            payload,
        ))],
    )?;
    addition.secret.shown(&id, &addition.name, addition.role)
}

/// A change to a person.
pub enum Change {
    Disable,
    Enable,
    Reset(NewSecret),
}

/// Makes `change` to staff ID `id`; a reset answers the new secret. A person whose sessions
/// end is dropped from `principals`, the server's cache (none at the command line).
pub fn change_in(
    principals: Option<&PrincipalCache>,
    conn: &mut DbConnection,
    by: &Actor,
    id: &str,
    change: Change,
    reason: &str,
) -> DomainResult<Option<StaffSecret>> {
    let row = super::find(conn, id)?.ok_or_else(|| Failure::not_found("staff ID"))?;
    let role = row.role()?;
    let act = match &change {
        Change::Disable => StaffAct::Disable,
        Change::Enable => StaffAct::Enable,
        Change::Reset(_) => StaffAct::ResetSecret,
    };
    by.may(act, role, &row.name)?;
    let now = now_micros();
    let (kind, ended, shown) = match change {
        Change::Disable => (disable(conn, &row)?, Some(SessionEnd::Disabled), None),
        Change::Enable => (enable(conn, &row)?, None, None),
        Change::Reset(secret) => {
            let payload = reset(conn, &row, &secret)?;
            let shown = secret.shown(&row.id, &row.name, role)?;
            (
                (crate::audit::kind::EntryKind::StaffSecretReset, payload),
                Some(SessionEnd::SecretReset),
                Some(shown),
            )
        }
    };
    if let Some(end) = ended {
        sessions::end_all(conn, &row.id, end, now)?;
        if let Some(principals) = principals {
            principals.forget_principal(&row.id);
        }
    }
    let (kind, mut payload) = kind;
    payload["at"] = now.into();
    payload["by"] = by.name.clone().into();
    payload["reason"] = reason.into();
    append(conn, vec![by.entry(Entry::new(kind, &row.id, payload))])?;
    Ok(shown)
}

type Recorded = (crate::audit::kind::EntryKind, serde_json::Value);

fn disable(conn: &mut DbConnection, row: &StaffRow) -> DomainResult<Recorded> {
    if row.disabled {
        return Err(Failure::refuse(
            Refusal::AlreadyDisabled,
            format!("staff ID {} is already disabled", row.id),
        ));
    }
    diesel::update(principals::table.find(&row.id))
        .set(principals::disabled.eq(true))
        .execute(conn)?;
    Ok((
        crate::audit::kind::EntryKind::StaffDisabled,
        serde_json::json!({}),
    ))
}

/// Enables a disabled person, or clears the locks of an enabled one (its help says both): a
/// person locked out at the counter is let back in by the same command.
fn enable(conn: &mut DbConnection, row: &StaffRow) -> DomainResult<Recorded> {
    let now = now_micros();
    if !row.disabled {
        let locked = locked_until(conn, &row.id, now)?;
        if locked.is_none() {
            return Err(Failure::refuse(
                Refusal::AlreadyEnabled,
                format!("staff ID {} is already enabled and not locked", row.id),
            ));
        }
        clear_locks(conn, &row.id)?;
        return Ok((
            crate::audit::kind::EntryKind::StaffEnabled,
            serde_json::json!({ "locks_cleared": true }),
        ));
    }
    let updated = diesel::update(principals::table.find(&row.id))
        .set(principals::disabled.eq(false))
        .execute(conn);
    match updated {
        Err(diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::UniqueViolation,
            _,
        )) => Err(Failure::refuse(
            Refusal::StaffActive,
            format!(
                "{} has another active {} staff ID: disable it first",
                row.name, row.role
            ),
        )),
        other => {
            other?;
            let cleared = clear_locks(conn, &row.id)? > 0;
            Ok((
                crate::audit::kind::EntryKind::StaffEnabled,
                serde_json::json!({ "locks_cleared": cleared }),
            ))
        }
    }
}

/// The latest lock of a person standing at `now`, wherever it was made.
pub fn locked_until(conn: &mut DbConnection, id: &str, now: i64) -> QueryResult<Option<i64>> {
    sign_on_failures::table
        .filter(sign_on_failures::principal_id.eq(id))
        .filter(sign_on_failures::locked_until.gt(now))
        .select(diesel::dsl::max(sign_on_failures::locked_until))
        .first::<Option<i64>>(conn)
}

/// Clears a person's failed sign-ons and locks everywhere.
fn clear_locks(conn: &mut DbConnection, id: &str) -> QueryResult<usize> {
    diesel::delete(sign_on_failures::table.filter(sign_on_failures::principal_id.eq(id)))
        .execute(conn)
}

fn reset(
    conn: &mut DbConnection,
    row: &StaffRow,
    secret: &NewSecret,
) -> DomainResult<serde_json::Value> {
    diesel::update(principals::table.find(&row.id))
        .set((
            principals::secret_hash.eq(&secret.hash),
            principals::totp_secret.eq(&secret.totp_secret),
            principals::totp_last_step.eq(None::<i64>),
        ))
        .execute(conn)?;
    clear_locks(conn, &row.id)?;
    Ok(secret.payload())
}

/// Every person, with the sessions standing now (those used within `idle`).
pub fn list_in(
    conn: &mut DbConnection,
    idle: Duration,
    (limit, after): (i64, &str),
) -> DomainResult<Vec<StaffMember>> {
    let rows: Vec<StaffRow> = principals::table
        .filter(principals::kind.eq(PrincipalKind::Staff.as_str()))
        .filter(principals::id.gt(after))
        .order(principals::id)
        .limit(limit)
        .select(StaffRow::as_select())
        .load(conn)?;
    let now = now_micros();
    let idle = idle.as_micros() as i64;
    let open: Vec<String> = staff_sessions::table
        .filter(staff_sessions::ended_at.is_null())
        .filter(staff_sessions::expires_at.gt(now))
        .filter(staff_sessions::last_seen_at.ge(now - idle))
        .select(staff_sessions::principal_id)
        .load(conn)?;
    let locks: Vec<(String, Option<i64>)> = sign_on_failures::table
        .filter(sign_on_failures::locked_until.gt(now))
        .select((
            sign_on_failures::principal_id,
            sign_on_failures::locked_until,
        ))
        .load(conn)?;
    let lock_of = |id: &str| {
        locks
            .iter()
            .filter(|(p, _)| p == id)
            .filter_map(|(_, until)| *until)
            .max()
    };
    rows.into_iter()
        .map(|row| {
            Ok(StaffMember {
                locked_until: lock_of(&row.id).map(rfc3339),
                role: row.role()?,
                open_sessions: open.iter().filter(|p| **p == row.id).count() as u32,
                staff_id: row.id,
                name: row.name,
                disabled: row.disabled,
                created_at: rfc3339(row.created_at),
            })
        })
        .collect()
}

/// The kind of secret staff ID `id` signs on with: what a reset makes anew.
pub fn secret_kind_of(conn: &mut DbConnection, id: &str) -> DomainResult<SecretKind> {
    let role = super::find(conn, id)?
        .ok_or_else(|| Failure::not_found("staff ID"))?
        .role()?;
    secret_kind(role)
        .ok_or_else(|| Failure::Internal(anyhow::anyhow!("staff {role} without a secret")))
}
