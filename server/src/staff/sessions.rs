//! Sign-on, the session behind a token, and sign-off.
//!
//! `POST /api/v1/sessions`: a writer at a registered terminal (the terminal's credential as
//! the bearer token, rule 5.1) with staff ID and PIN; a supervisor, inspector or auditor with
//! staff ID, password and TOTP code. A try is counted against the person at its place (the
//! terminal, or the address) before the secret is checked (`keno_core::reserve_try`); the
//! check (argon2id) takes one of the guard's few turns (`guard.rs`), outside any transaction;
//! the outcome is then written in one: a failure may lock the person there
//! (`keno_core::after_failed_try`), and enters the trail (`sign_on_failed`) and the
//! exceptions; a success ends the person's other sessions (one active session per person)
//! and opens one until the end of the Keno Day (rule 1(d)), which also ends after
//! `--session-idle` without a request (`keno_core::session_standing`).

use std::time::Duration;

use diesel::prelude::*;
use keno_api::staff::{Session, SignOn, SignedOn};
use keno_api::Refusal;
use keno_core::{FailureCount, LockOut, SecretKind, SessionEnd, SessionFacts};

use super::guard::{Admitted, SignOnGuard};
use super::{secret, secret_kind, StaffRow};
use crate::audit::log::{append, Entry};
use crate::auth::principal::PrincipalCache;
use crate::auth::{token_hash, Principal};
use crate::db::schema::{principals, sign_on_failures, staff_sessions, terminals};
use crate::db::{now_micros, rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::keno_day::KenoHours;
use crate::store::hold::held;
use crate::store::Store;

/// A session as stored.
#[derive(Queryable, Selectable, Clone, Debug)]
#[diesel(table_name = staff_sessions)]
pub struct SessionRow {
    pub id: String,
    pub principal_id: String,
    pub site: Option<String>,
    pub terminal: Option<String>,
    pub started_at: i64,
    pub last_seen_at: i64,
    pub expires_at: i64,
    pub ended_at: Option<i64>,
    pub end_reason: Option<String>,
}

impl SessionRow {
    fn facts(&self) -> DomainResult<SessionFacts> {
        let ended = match &self.end_reason {
            None => None,
            Some(text) => Some(SessionEnd::parse(text).ok_or_else(|| {
                Failure::Internal(anyhow::anyhow!(
                    "session {}: unknown stored end {text:?}",
                    self.id
                ))
            })?),
        };
        Ok(SessionFacts {
            last_seen_at: self.last_seen_at,
            expires_at: self.expires_at,
            ended,
        })
    }
}

/// Where a sign-on is made: the registered terminal whose credential the request carries.
#[derive(Clone, Debug)]
pub struct Place {
    pub site: String,
    pub terminal: String,
}

/// The terminal of a credential (`kt_...`), if registered.
pub fn terminal_of(conn: &mut DbConnection, credential: &str) -> QueryResult<Option<Place>> {
    Ok(terminals::table
        .filter(terminals::credential_hash.eq(token_hash(credential)))
        .select((terminals::site, terminals::terminal))
        .first::<(String, String)>(conn)
        .optional()?
        .map(|(site, terminal)| Place { site, terminal }))
}

/// Where a sign-on is tried: at a registered terminal, whose credential it carries, or from an
/// address without one. A person's failures are counted per place (`keno_core::FailureCount`).
#[derive(Clone, Debug)]
pub enum Where {
    Terminal(Place),
    Address(Option<std::net::IpAddr>),
}

impl Where {
    /// The place's key in `sign_on_failures`.
    fn key(&self) -> String {
        match self {
            Where::Terminal(p) => format!("terminal:{}/{}", p.site, p.terminal),
            Where::Address(Some(a)) => format!("address:{a}"),
            Where::Address(None) => "address:unknown".into(),
        }
    }

    pub fn terminal(&self) -> Option<&Place> {
        match self {
            Where::Terminal(p) => Some(p),
            Where::Address(_) => None,
        }
    }
}

/// What a checked secret says, before anything is written: good, with the TOTP step used
/// (none for a PIN), or not.
enum Checked {
    Refused,
    Good(Option<u64>),
}

/// The secret a sign-on offers, by its shape alone: a PIN, or a password with a code. Read
/// before anyone is looked up, so a malformed request says nothing of the staff ID.
fn offered_kind(offered: &SignOn) -> DomainResult<SecretKind> {
    match (&offered.pin, &offered.password, &offered.totp) {
        (Some(_), None, None) => Ok(SecretKind::Pin),
        (None, Some(_), Some(_)) => Ok(SecretKind::PasswordAndCode),
        _ => Err(Failure::refuse(
            Refusal::InvalidRequest,
            "sign on with staff_id and pin (a writer), or staff_id, password and totp (the code of the moment)",
        )),
    }
}

/// The person, if they exist and sign on the way offered at this place (rule 5.1: a writer
/// with a PIN at a registered terminal only); anyone else is an unknown ID, answered alike.
fn signs_on_here(
    row: Option<StaffRow>,
    kind: SecretKind,
    at: &Where,
) -> DomainResult<Option<StaffRow>> {
    let Some(row) = row else { return Ok(None) };
    let Some(stored_kind) = secret_kind(row.role()?) else {
        return Ok(None);
    };
    let here = row.secret_hash.is_some()
        && stored_kind == kind
        && (kind != SecretKind::Pin || at.terminal().is_some());
    Ok(here.then_some(row))
}

/// Checks the offered secret against the stored person (argon2id: call from a blocking
/// thread, holding a turn). Nothing is written.
fn check_secret(row: &StaffRow, offered: &SignOn, now_seconds: u64) -> DomainResult<Checked> {
    let given = offered
        .pin
        .as_deref()
        .or(offered.password.as_deref())
        .unwrap_or("");
    let stored = row
        .secret_hash
        .as_deref()
        .ok_or_else(|| Failure::Internal(anyhow::anyhow!("staff {}: no secret stored", row.id)))?;
    if !secret::verify(given, stored) {
        return Ok(Checked::Refused);
    }
    let Some(code) = offered.totp.as_deref() else {
        return Ok(Checked::Good(None));
    };
    let totp = row.totp_secret.as_deref().ok_or_else(|| {
        Failure::Internal(anyhow::anyhow!("staff {}: no TOTP secret stored", row.id))
    })?;
    Ok(match secret::totp_step(totp, code, now_seconds)? {
        Some(step) => Checked::Good(Some(step)),
        None => Checked::Refused,
    })
}

/// A person proved who they are, or the refusal to answer (recorded already).
pub enum Proved {
    Person(StaffRow),
    Refused(Failure),
}

/// Checks a person's secret and records the outcome (issue 31). The try is counted against
/// the person at this place before the secret is checked, and judged on the count it made; the
/// check takes one of the guard's turns; a failure may lock the person there and enters the
/// trail; a success clears the count there and spends the TOTP step, once. `lock_out` is the
/// staff settings' (`--sign-on-failures`, `--sign-on-lock`).
pub async fn prove(
    store: &Store,
    (guard, admitted): (&SignOnGuard, &Admitted<'_>),
    lock_out: LockOut,
    given: SignOn,
    at: Where,
) -> DomainResult<Proved> {
    let kind = offered_kind(&given)?;
    let staff_id = given.staff_id.trim().to_string();
    let looked_up = staff_id.clone();
    let row = crate::store::read(store, move |conn| Ok(super::find(conn, &looked_up)?)).await?;
    let Some(row) = signs_on_here(row, kind, &at)? else {
        return prove_unknown((guard, admitted), &staff_id, given, &at).await;
    };
    let (person, place) = (row.id.clone(), at.key());
    let now = now_micros();
    let reserved = crate::store::write(store, None, move |conn| {
        reserve(conn, &person, &place, lock_out, now)
    })
    .await?;
    let attempt = match reserved {
        Ok(attempt) => attempt,
        Err(refusal) => return Ok(Proved::Refused(refused_before(&row.id, refusal))),
    };
    // Taken after the try is counted, so tries refused unchecked never wait for a turn.
    let turn = guard.turn(admitted).await?;
    let now_seconds = u64::try_from(now_micros() / 1_000_000).unwrap_or(0);
    let started = std::time::Instant::now();
    let (checked, row) = blocking(move || {
        let checked = check_secret(&row, &given, now_seconds);
        (checked, row)
    })
    .await?;
    guard.checked(started.elapsed());
    drop(turn);
    let checked = checked?;
    crate::store::write(store, None, move |conn| {
        record(conn, checked, &row, (attempt, &at), lock_out)
    })
    .await
}

/// Runs argon2 (or its stand-in) on a blocking thread, not on the workers that answer requests.
async fn blocking<T, F>(work: F) -> DomainResult<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| Failure::Internal(anyhow::anyhow!("blocking task failed: {e}")))
}

/// A try for a staff ID that does not exist (or does not sign on so there): counted and
/// locked as a person's would be, and checked against nothing for as long as a real check
/// takes, in a turn like any other.
async fn prove_unknown(
    (guard, admitted): (&SignOnGuard, &Admitted<'_>),
    staff_id: &str,
    given: SignOn,
    at: &Where,
) -> DomainResult<Proved> {
    // Kept short: whatever was typed is counted under it.
    let subject: String = staff_id.chars().take(16).collect();
    let place = at.key();
    let now = now_micros();
    let attempt = match guard.reserve_unknown(&subject, &place, now) {
        Ok(attempt) => attempt,
        Err(refusal) => return Ok(Proved::Refused(refused_before(&subject, refusal))),
    };
    let turn = guard.turn(admitted).await?;
    // As long as a check takes here, waited rather than hashed (`guard.rs`): the answer comes
    // as late as a real one, and the cores stay the sales'.
    match guard.check_time() {
        Some(took) => tokio::time::sleep(took).await,
        None => {
            let started = std::time::Instant::now();
            blocking(move || {
                let offered = given.pin.as_deref().or(given.password.as_deref());
                secret::verify_nothing(offered.unwrap_or(""))
            })
            .await?;
            guard.checked(started.elapsed());
        }
    }
    drop(turn);
    Ok(Proved::Refused(
        match guard.unknown_failed(&subject, &place, attempt, now) {
            Some(until) => refused_before(&subject, keno_core::SignOnRefusal::Locked { until }),
            None => failed(),
        },
    ))
}

/// Takes a try from the person's allowance at `place` (`keno_core::reserve_try`), the person's
/// row held so that tries at once are counted one after the other.
fn reserve(
    conn: &mut DbConnection,
    person: &str,
    place: &str,
    lock_out: keno_core::LockOut,
    now: i64,
) -> DomainResult<Result<u32, keno_core::SignOnRefusal>> {
    let disabled: bool = held!(
        conn,
        Hold::Update,
        principals::table.find(person).select(principals::disabled),
        |c, q| q.first(c)
    )?;
    let found = stored_count(conn, person, place)?;
    let stored = found.unwrap_or_default();
    let reserved = keno_core::reserve_try(disabled, stored, lock_out, now);
    if reserved.store != stored {
        store_count(conn, (person, place), reserved.store, found.is_some())?;
    }
    Ok(reserved.outcome)
}

/// A person's count at a place as stored, if any.
fn stored_count(
    conn: &mut DbConnection,
    person: &str,
    place: &str,
) -> DomainResult<Option<FailureCount>> {
    let found: Option<(i32, Option<i64>)> = sign_on_failures::table
        .find((person, place))
        .select((sign_on_failures::failures, sign_on_failures::locked_until))
        .first(conn)
        .optional()?;
    found
        .map(|(failures, locked_until)| {
            let failures = u32::try_from(failures).map_err(|_| {
                Failure::Internal(anyhow::anyhow!("{person} at {place}: {failures} failures"))
            })?;
            Ok(FailureCount {
                failures,
                locked_until,
            })
        })
        .transpose()
}

/// Stores a person's count at a place.
fn store_count(
    conn: &mut DbConnection,
    (person, place): (&str, &str),
    count: FailureCount,
    exists: bool,
) -> QueryResult<()> {
    let failures = i32::try_from(count.failures).unwrap_or(i32::MAX);
    if exists {
        diesel::update(sign_on_failures::table.find((person, place)))
            .set((
                sign_on_failures::failures.eq(failures),
                sign_on_failures::locked_until.eq(count.locked_until),
            ))
            .execute(conn)?;
    } else {
        diesel::insert_into(sign_on_failures::table)
            .values((
                sign_on_failures::principal_id.eq(person),
                sign_on_failures::place.eq(place),
                sign_on_failures::failures.eq(failures),
                sign_on_failures::locked_until.eq(count.locked_until),
            ))
            .execute(conn)?;
    }
    Ok(())
}

fn refused_before(staff_id: &str, refusal: keno_core::SignOnRefusal) -> Failure {
    match refusal {
        keno_core::SignOnRefusal::Locked { until } => Failure::refuse(
            Refusal::StaffLocked,
            format!(
                "staff ID {staff_id}: too many failed sign-ons here; locked here until {} (a supervisor can clear it)",
                rfc3339(until)
            ),
        ),
        keno_core::SignOnRefusal::AllUnderWay => Failure::too_many(
            Refusal::TooManyRequests,
            format!("staff ID {staff_id}: as many sign-ons as are allowed in a row are being checked here now; try again in a moment"),
            1,
        ),
        keno_core::SignOnRefusal::Disabled => failed(),
    }
}

fn failed() -> Failure {
    Failure::refuse(
        Refusal::SignOnFailed,
        "sign-on refused: check the staff ID and secret (and the code of the moment)",
    )
}

/// Writes what a checked try of a known person leaves.
fn record(
    conn: &mut DbConnection,
    checked: Checked,
    row: &StaffRow,
    (attempt, at): (u32, &Where),
    lock_out: keno_core::LockOut,
) -> DomainResult<Proved> {
    let now = now_micros();
    // Held as the try was reserved: the count read below is no other try's half-written one.
    let _: String = held!(
        conn,
        Hold::Update,
        principals::table.find(&row.id).select(principals::id),
        |c, q| q.first(c)
    )?;
    if let Checked::Good(step) = checked {
        // RFC 6238 5.2: a code is accepted once, also by tries at the same moment: the step is
        // spent only if no other try spent it or a later one.
        let spent = match step {
            None => true,
            Some(step) => spend_step(conn, &row.id, step as i64)?,
        };
        if spent {
            diesel::delete(sign_on_failures::table.find((&row.id, at.key()))).execute(conn)?;
            return Ok(Proved::Person(row.clone()));
        }
    }
    let stored = stored_count(conn, &row.id, &at.key())?;
    let lock = keno_core::after_failed_try(attempt, stored, lock_out, now);
    if let Some(lock) = lock {
        store_count(conn, (&row.id, &at.key()), lock, true)?;
    }
    let locked_until = lock.and_then(|l| l.locked_until);
    let address = match at {
        Where::Address(a) => a.map(|a| a.to_string()),
        Where::Terminal(_) => None,
    };
    let payload = serde_json::json!({
        "site": at.terminal().map(|p| &p.site), "terminal": at.terminal().map(|p| &p.terminal),
        "address": address, "at": now, "known": true, "failures": attempt,
        "locked_until": locked_until,
    });
    append(
        conn,
        vec![Entry::new(
            crate::audit::kind::EntryKind::SignOnFailed,
            &row.id,
            payload,
        )],
    )?;
    Ok(Proved::Refused(match locked_until {
        Some(until) => refused_before(&row.id, keno_core::SignOnRefusal::Locked { until }),
        None => failed(),
    }))
}

/// Spends TOTP step `step` of a person: false if it, or a later one, was spent already.
fn spend_step(conn: &mut DbConnection, person: &str, step: i64) -> QueryResult<bool> {
    let changed = diesel::update(
        principals::table.find(person).filter(
            principals::totp_last_step
                .is_null()
                .or(principals::totp_last_step.lt(step)),
        ),
    )
    .set(principals::totp_last_step.eq(step))
    .execute(conn)?;
    Ok(changed == 1)
}

/// The Keno Day's end that a session opened at `now` lasts to: the end of the Keno Day under
/// way, or, outside the hours of gaming, of the next one.
fn day_end(hours: KenoHours, now: i64) -> i64 {
    let local = crate::time::local(now);
    let ends = hours.hours_of(hours.latest_started_day(local)).ends_at;
    if ends > now {
        return ends;
    }
    let next = hours.next_start(local).date_naive();
    hours.hours_of(next).ends_at
}

/// Opens a session for a person proved: their other sessions end (one per person), and are
/// dropped from `principals`. It lasts to the end of the Keno Day of `hours`, and ends after
/// `idle` without a request.
pub fn open(
    conn: &mut DbConnection,
    (principals, hours, idle): (&PrincipalCache, KenoHours, Duration),
    row: &StaffRow,
    place: Option<&Place>,
) -> DomainResult<SignedOn> {
    let now = now_micros();
    end_all(conn, &row.id, SessionEnd::Replaced, now)?;
    principals.forget_principal(&row.id);
    let token = secret::new_token("ks_");
    let id = secret::new_token("")[..16].to_string();
    let expires_at = day_end(hours, now);
    diesel::insert_into(staff_sessions::table)
        .values((
            staff_sessions::id.eq(&id),
            staff_sessions::token_hash.eq(token_hash(&token)),
            staff_sessions::principal_id.eq(&row.id),
            staff_sessions::site.eq(place.map(|p| &p.site)),
            staff_sessions::terminal.eq(place.map(|p| &p.terminal)),
            staff_sessions::started_at.eq(now),
            staff_sessions::last_seen_at.eq(now),
            staff_sessions::expires_at.eq(expires_at),
        ))
        .execute(conn)?;
    let role = row.role()?;
    append(
        conn,
        vec![Entry::new(
            crate::audit::kind::EntryKind::SignedOn,
            &row.id,
            serde_json::json!({
                "session": id, "role": role.as_str(), "site": place.map(|p| &p.site),
                "terminal": place.map(|p| &p.terminal), "started_at": now, "expires_at": expires_at,
            }),
        )
        .by(&row.id)],
    )?;
    let session = Session {
        id,
        staff_id: row.id.clone(),
        name: row.name.clone(),
        role,
        site: place.map(|p| p.site.clone()),
        terminal: place.map(|p| p.terminal.clone()),
        started_at: rfc3339(now),
        expires_at: rfc3339(expires_at),
        idle_timeout_seconds: idle.as_secs(),
    };
    Ok(SignedOn { token, session })
}

/// Ends every open session of a person, as `end`.
pub fn end_all(
    conn: &mut DbConnection,
    principal_id: &str,
    end: SessionEnd,
    now: i64,
) -> QueryResult<usize> {
    diesel::update(
        staff_sessions::table
            .filter(staff_sessions::principal_id.eq(principal_id))
            .filter(staff_sessions::ended_at.is_null()),
    )
    .set((
        staff_sessions::ended_at.eq(now),
        staff_sessions::end_reason.eq(end.as_str()),
    ))
    .execute(conn)
}

/// What a session token leads to.
pub enum Lookup {
    Unknown,
    /// Over: the end is recorded (if it was not yet) in the same transaction, kept.
    Ended(SessionEnd),
    Standing(Principal),
}

/// The principal of session token `token` at `now`, the session ending after `idle` without a
/// request; a session found over is ended in the record if it was not yet.
pub fn principal_of(
    conn: &mut DbConnection,
    idle: Duration,
    token: &str,
    now: i64,
) -> DomainResult<Lookup> {
    let found: Option<(SessionRow, StaffRow)> = staff_sessions::table
        .inner_join(principals::table)
        .filter(staff_sessions::token_hash.eq(token_hash(token)))
        .select((SessionRow::as_select(), StaffRow::as_select()))
        .first(conn)
        .optional()?;
    let Some((session, person)) = found else {
        return Ok(Lookup::Unknown);
    };
    let idle = idle.as_micros() as i64;
    let standing = if person.disabled {
        Err(SessionEnd::Disabled)
    } else {
        keno_core::session_standing(session.facts()?, idle, now)
    };
    if let Err(end) = standing {
        if session.ended_at.is_none() {
            end_one(conn, &session, end, now)?;
        }
        return Ok(Lookup::Ended(end));
    }
    // The last use, kept to within a few seconds (a write per lookup, not per request).
    if now - session.last_seen_at > 5_000_000 {
        diesel::update(staff_sessions::table.find(&session.id))
            .set(staff_sessions::last_seen_at.eq(now))
            .execute(conn)?;
    }
    Ok(Lookup::Standing(Principal {
        role: person.role()?,
        id: person.id,
        name: person.name,
        site: session.site,
        terminal: session.terminal,
        session: Some(session.id),
    }))
}

fn end_one(
    conn: &mut DbConnection,
    session: &SessionRow,
    end: SessionEnd,
    now: i64,
) -> DomainResult<()> {
    let changed = diesel::update(staff_sessions::table.find(&session.id))
        .filter(staff_sessions::ended_at.is_null())
        .set((
            staff_sessions::ended_at.eq(now),
            staff_sessions::end_reason.eq(end.as_str()),
        ))
        .execute(conn)?;
    if changed == 1 {
        append(
            conn,
            vec![Entry::new(
                crate::audit::kind::EntryKind::SessionEnded,
                &session.principal_id,
                serde_json::json!({ "session": session.id, "end": end.as_str(), "at": now }),
            )],
        )?;
    }
    Ok(())
}

/// The session of a principal signed on; none behind a legacy bearer token.
pub fn session_id(principal: &Principal) -> DomainResult<String> {
    principal
        .session
        .clone()
        .ok_or_else(|| Failure::not_found("session (a legacy bearer token has none)"))
}

/// Session `id` of `principal` as the API shows it, ending after `idle` without a request.
pub fn shown(
    conn: &mut DbConnection,
    principal: Principal,
    id: &str,
    idle: Duration,
) -> DomainResult<Session> {
    let row = staff_sessions::table
        .find(id)
        .select(SessionRow::as_select())
        .first(conn)?;
    Ok(Session {
        id: row.id,
        staff_id: principal.id,
        name: principal.name,
        role: principal.role,
        site: row.site,
        terminal: row.terminal,
        started_at: rfc3339(row.started_at),
        expires_at: rfc3339(row.expires_at),
        idle_timeout_seconds: idle.as_secs(),
    })
}

/// Signs session `id` off at `now`: its token stops working at once.
pub fn sign_off(conn: &mut DbConnection, id: &str, now: i64) -> DomainResult<()> {
    let row = staff_sessions::table
        .find(id)
        .select(SessionRow::as_select())
        .first(conn)?;
    end_one(conn, &row, SessionEnd::SignedOff, now)
}
