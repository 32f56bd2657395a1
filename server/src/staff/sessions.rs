//! Sign-on, the session behind a token, and sign-off.
//!
//! `POST /api/v1/sessions`: a writer at a registered terminal (the terminal's credential as
//! the bearer token, rule 5.1) with staff ID and PIN; a supervisor, inspector or auditor with
//! staff ID, password and TOTP code. The secret is checked outside any transaction (argon2id
//! takes time); the outcome is then written in one: a failure counts against the person and
//! may lock them (`keno_core::after_failure`), and enters the trail (`sign_on_failed`) and the
//! exceptions; a success ends the person's other sessions (one active session per person)
//! and opens one until the end of the Keno Day (rule 1(d)), which also ends after
//! `--session-idle` without a request (`keno_core::session_standing`).

use actix_web::{get, post, web, HttpRequest, HttpResponse};
use diesel::prelude::*;
use keno_api::staff::{Session, SignOn, SignedOn};
use keno_api::Refusal;
use keno_core::{SecretKind, SessionEnd, SessionFacts};

use super::{secret, secret_kind, StaffRow};
use crate::audit::log::{append, Entry};
use crate::auth::{token_hash, Principal, Require, Role, ANY_ROLE};
use crate::db::schema::{principals, staff_sessions, terminals};
use crate::db::{now_micros, rfc3339, DbConnection};
use crate::error::{ApiResult, DomainResult, Failure};
use crate::state::AppState;

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

/// What a checked secret says, before anything is written.
enum Checked {
    /// No such person (or not one who signs on): nothing to count against.
    Unknown,
    Refused(StaffRow),
    /// Good, with the TOTP step used (none for a PIN).
    Good(StaffRow, Option<u64>),
}

/// Checks `sign_on`'s secret against the stored person (argon2id: call from a blocking
/// thread). Nothing is written.
fn check_secret(
    row: Option<StaffRow>,
    offered: &SignOn,
    now_seconds: u64,
) -> DomainResult<Checked> {
    let given = offered
        .pin
        .as_deref()
        .or(offered.password.as_deref())
        .unwrap_or("");
    let Some(row) = row else {
        secret::verify_nothing(given);
        return Ok(Checked::Unknown);
    };
    let kind = secret_kind(row.role()?);
    let (Some(kind), Some(stored)) = (kind, row.secret_hash.as_deref()) else {
        secret::verify_nothing(given);
        return Ok(Checked::Unknown);
    };
    let (secret, code) = match kind {
        SecretKind::Pin => (offered.pin.as_deref(), Some("")),
        SecretKind::PasswordAndCode => (offered.password.as_deref(), offered.totp.as_deref()),
    };
    let (Some(secret), Some(code)) = (secret, code) else {
        return Err(Failure::refuse(
            Refusal::InvalidRequest,
            match kind {
                SecretKind::Pin => "a writer signs on with staff_id and pin",
                SecretKind::PasswordAndCode => {
                    "sign on with staff_id, password and totp (the code of the moment)"
                }
            },
        ));
    };
    if !secret::verify(secret, stored) {
        return Ok(Checked::Refused(row));
    }
    if kind == SecretKind::Pin {
        return Ok(Checked::Good(row, None));
    }
    let totp = row.totp_secret.as_deref().ok_or_else(|| {
        Failure::Internal(anyhow::anyhow!("staff {}: no TOTP secret stored", row.id))
    })?;
    Ok(match secret::totp_step(totp, code, now_seconds)? {
        // RFC 6238 5.2: a code is accepted once.
        Some(step) if row.totp_last_step.is_none_or(|last| (step as i64) > last) => {
            Checked::Good(row, Some(step))
        }
        _ => Checked::Refused(row),
    })
}

/// A person proved who they are, or the refusal to answer (recorded already).
pub enum Proved {
    Person(StaffRow),
    Refused(Failure),
}

/// Checks a person's secret and records the outcome: a failure counted (and the lock it may
/// bring) and entered in the trail; a success clears the count and spends the TOTP step.
/// `place` is where they are, `address` the client's, for the record.
pub async fn prove(
    state: &web::Data<AppState>,
    given: SignOn,
    place: Option<Place>,
    address: Option<std::net::IpAddr>,
) -> DomainResult<Proved> {
    let staff_id = given.staff_id.trim().to_string();
    let looked_up = staff_id.clone();
    let row = crate::store::read(state, move |_, conn| Ok(super::find(conn, &looked_up)?)).await?;
    if let Some(row) = &row {
        if let Err(refusal) = keno_core::may_sign_on(row.sign_on_facts(), now_micros()) {
            return Ok(Proved::Refused(refused_before(row, refusal)));
        }
    }
    let now_seconds = u64::try_from(now_micros() / 1_000_000).unwrap_or(0);
    let checked = web::block(move || check_secret(row, &given, now_seconds)).await??;
    let lock_out = state.settings.staff.lock_out;
    crate::store::write(state, None, move |_, conn| {
        record(conn, checked, &staff_id, place.as_ref(), address, lock_out)
    })
    .await
}

fn refused_before(row: &StaffRow, refusal: keno_core::SignOnRefusal) -> Failure {
    match refusal {
        keno_core::SignOnRefusal::Locked { until } => Failure::refuse(
            Refusal::StaffLocked,
            format!(
                "staff ID {}: too many failed sign-ons; locked until {} (a supervisor can reset it)",
                row.id,
                rfc3339(until)
            ),
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

/// Writes what a checked sign-on leaves.
fn record(
    conn: &mut DbConnection,
    checked: Checked,
    staff_id: &str,
    place: Option<&Place>,
    address: Option<std::net::IpAddr>,
    lock_out: keno_core::LockOut,
) -> DomainResult<Proved> {
    let now = now_micros();
    let mut payload = serde_json::json!({
        "site": place.map(|p| &p.site), "terminal": place.map(|p| &p.terminal),
        "address": address.map(|a| a.to_string()), "at": now,
    });
    match checked {
        Checked::Good(row, step) => {
            diesel::update(principals::table.find(&row.id))
                .set((
                    principals::failed_signons.eq(0),
                    principals::totp_last_step.eq(step.map(|s| s as i64).or(row.totp_last_step)),
                ))
                .execute(conn)?;
            Ok(Proved::Person(row))
        }
        Checked::Unknown => {
            // Kept short: whatever was typed goes in the trail.
            let subject: String = staff_id.chars().take(16).collect();
            payload["known"] = false.into();
            append(conn, vec![Entry::new("sign_on_failed", subject, payload)])?;
            Ok(Proved::Refused(failed()))
        }
        Checked::Refused(row) => {
            let after = keno_core::after_failure(row.sign_on_facts(), lock_out, now);
            diesel::update(principals::table.find(&row.id))
                .set((
                    principals::failed_signons.eq(after.failures as i32),
                    principals::locked_until.eq(after.locked_until),
                ))
                .execute(conn)?;
            payload["known"] = true.into();
            payload["failures"] = after.failures.into();
            payload["locked_until"] = after.locked_until.into();
            append(conn, vec![Entry::new("sign_on_failed", &row.id, payload)])?;
            Ok(Proved::Refused(match after.locked_until {
                Some(until) if until > now => {
                    refused_before(&row, keno_core::SignOnRefusal::Locked { until })
                }
                _ => failed(),
            }))
        }
    }
}

/// The Keno Day's end that a session opened at `now` lasts to: the end of the Keno Day under
/// way, or, outside the hours of gaming, of the next one.
fn day_end(state: &AppState, now: i64) -> i64 {
    let hours = state.settings.hours;
    let local = crate::game_clock::local(now);
    let ends = hours.hours_of(hours.latest_started_day(local)).ends_at;
    if ends > now {
        return ends;
    }
    let next = hours.next_start(local).date_naive();
    hours.hours_of(next).ends_at
}

/// Opens a session for a person proved: their other sessions end (one per person).
fn open(
    state: &AppState,
    conn: &mut DbConnection,
    row: &StaffRow,
    place: Option<&Place>,
) -> DomainResult<SignedOn> {
    let now = now_micros();
    end_all(conn, &row.id, SessionEnd::Replaced, now)?;
    state.principals.forget_principal(&row.id);
    let token = secret::new_token("ks_");
    let id = secret::new_token("")[..16].to_string();
    let expires_at = day_end(state, now);
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
            "signed_on",
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
        idle_timeout_seconds: state.settings.staff.idle.as_secs(),
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

/// The bearer token of a request, if any.
fn bearer(req: &HttpRequest) -> Option<String> {
    crate::auth::bearer_token(req)
}

/// Signs a person on; a writer at a registered terminal only.
#[utoipa::path(
    tag = "staff",
    security((), ("terminal" = [])),
    request_body = SignOn,
    responses(
        (status = 201, body = SignedOn),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_request`: the secret the role needs is missing"),
        (status = 401, body = crate::error::ErrorBody, description = "`sign_on_failed`; `terminal_not_registered`: a writer signs on at a registered terminal, its credential as the bearer token"),
        (status = 423, body = crate::error::ErrorBody, description = "`staff_locked`: too many failed sign-ons"),
        (status = 429, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/sessions")]
pub async fn sign_on(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Json<SignOn>,
) -> ApiResult<HttpResponse> {
    let address = crate::rate_limit::client_key(&req, state.trust_forwarded_for);
    if let Some(address) = address {
        state.auth_failures.check(address)?;
    }
    let place = place_of(&state, &req, address).await?;
    let body = body.into_inner();
    let proved = prove(&state, body, place.clone(), address).await?;
    let row = match proved {
        Proved::Person(row) => row,
        Proved::Refused(refusal) => {
            if let Some(address) = address {
                state.auth_failures.fail(address);
            }
            return Err(refusal.into());
        }
    };
    if row.role()? == Role::Writer && place.is_none() {
        return Err(Failure::refuse(
            Refusal::TerminalNotRegistered,
            "rule 5.1: a writer signs on at a registered terminal (its credential as the bearer token)",
        )
        .into());
    }
    let person = row.id.clone();
    let signed = crate::store::write(&state, None, move |state, conn| {
        open(state, conn, &row, place.as_ref())
    })
    .await?;
    // The person's other sessions ended (one at a time): dropped at the other instances too.
    state.events.forget_elsewhere(&person);
    Ok(HttpResponse::Created().json(signed))
}

/// The registered terminal whose credential the request carries; none without a bearer token.
async fn place_of(
    state: &web::Data<AppState>,
    req: &HttpRequest,
    address: Option<std::net::IpAddr>,
) -> DomainResult<Option<Place>> {
    let Some(credential) = bearer(req) else {
        return Ok(None);
    };
    let found =
        crate::store::read(state, move |_, conn| Ok(terminal_of(conn, &credential)?)).await?;
    match found {
        Some(place) => Ok(Some(place)),
        None => {
            if let Some(address) = address {
                state.auth_failures.fail(address);
            }
            Err(Failure::refuse(
                Refusal::TerminalNotRegistered,
                "the bearer token is not a registered terminal's credential",
            ))
        }
    }
}

/// What a session token leads to.
pub enum Lookup {
    Unknown,
    /// Over: the end is recorded (if it was not yet) in the same transaction, kept.
    Ended(SessionEnd),
    Standing(Principal),
}

/// The principal of session token `token` at `now`; a session found over is ended in the
/// record if it was not yet.
pub fn principal_of(
    state: &AppState,
    conn: &mut DbConnection,
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
    let idle = state.settings.staff.idle.as_micros() as i64;
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
                "session_ended",
                &session.principal_id,
                serde_json::json!({ "session": session.id, "end": end.as_str(), "at": now }),
            )],
        )?;
    }
    Ok(())
}

/// The caller's session.
#[utoipa::path(
    tag = "staff",
    security(("bearer" = [])),
    responses((status = 200, body = Session), (status = 404, body = crate::error::ErrorBody, description = "a legacy bearer token: no session"), (status = 401, body = crate::error::ErrorBody))
)]
#[get("/api/v1/sessions/current", wrap = "Require(ANY_ROLE)")]
pub async fn current(
    state: web::Data<AppState>,
    principal: Principal,
) -> ApiResult<web::Json<Session>> {
    let id = principal
        .session
        .clone()
        .ok_or_else(|| Failure::not_found("session (a legacy bearer token has none)"))?;
    let idle = state.settings.staff.idle.as_secs();
    let row = crate::store::read(&state, move |_, conn| {
        Ok(staff_sessions::table
            .find(&id)
            .select(SessionRow::as_select())
            .first(conn)?)
    })
    .await?;
    Ok(web::Json(Session {
        id: row.id,
        staff_id: principal.id,
        name: principal.name,
        role: principal.role,
        site: row.site,
        terminal: row.terminal,
        started_at: rfc3339(row.started_at),
        expires_at: rfc3339(row.expires_at),
        idle_timeout_seconds: idle,
    }))
}

/// Signs off: the session's token stops working at once.
#[utoipa::path(
    tag = "staff",
    security(("bearer" = [])),
    responses((status = 204), (status = 404, body = crate::error::ErrorBody, description = "a legacy bearer token: no session"), (status = 401, body = crate::error::ErrorBody))
)]
#[post("/api/v1/sessions/current/end", wrap = "Require(ANY_ROLE)")]
pub async fn sign_off(
    state: web::Data<AppState>,
    req: HttpRequest,
    principal: Principal,
) -> ApiResult<HttpResponse> {
    let id = principal
        .session
        .clone()
        .ok_or_else(|| Failure::not_found("session (a legacy bearer token has none)"))?;
    crate::store::write(&state, None, move |_, conn| {
        let row = staff_sessions::table
            .find(&id)
            .select(SessionRow::as_select())
            .first(conn)?;
        end_one(conn, &row, SessionEnd::SignedOff, now_micros())
    })
    .await?;
    if let Some(token) = bearer(&req) {
        state.principals.forget(&token_hash(&token));
    }
    state.events.forget_elsewhere(&principal.id);
    Ok(HttpResponse::NoContent().finish())
}
