//! `POST /api/v1/sessions` (sign-on), `GET /api/v1/sessions/current` and
//! `POST /api/v1/sessions/current/end` (sign-off): `staff::sessions`.

use actix_web::{get, post, web, HttpRequest, HttpResponse};
use keno_api::staff::{Session, SignOn, SignedOn};
use keno_api::Refusal;

use crate::auth::http::{bearer_token, Require};
use crate::auth::{token_hash, Principal, ANY_ROLE};
use crate::db::now_micros;
use crate::error::{ApiResult, DomainResult, Failure};
use crate::staff::guard::SignOnGuard;
use crate::staff::sessions::{self, prove, terminal_of, Proved, Where};
use crate::state::AppState;

/// Signs a person on; a writer at a registered terminal only.
#[utoipa::path(
    tag = "staff",
    security((), ("terminal" = [])),
    request_body = SignOn,
    responses(
        (status = 201, body = SignedOn),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_request`: neither a PIN, nor a password with a code"),
        (status = 401, body = crate::error::ErrorBody, description = "`sign_on_failed`; `terminal_not_registered`: a writer signs on at a registered terminal, its credential as the bearer token (refused before the PIN is looked at)"),
        (status = 423, body = crate::error::ErrorBody, description = "`staff_locked`: too many failed sign-ons of this staff ID at this terminal, or from this address"),
        (status = 429, body = crate::error::ErrorBody, description = "`too_many_auth_failures`: too many tries from this address without a terminal's credential; `too_many_requests`: too many sign-ons at once")
    )
)]
#[post("/api/v1/sessions")]
pub async fn sign_on(
    state: web::Data<AppState>,
    guard: web::Data<SignOnGuard>,
    req: HttpRequest,
    body: web::Json<SignOn>,
) -> ApiResult<HttpResponse> {
    // Admitted before anything is read: a flood of sign-ons is refused (429, after a second).
    let admitted = guard.admit_or_wait().await?;
    let address = crate::rate_limit::client_key(&req, state.trust_forwarded_for);
    let body = body.into_inner();
    let at = where_from(&state, &req, address, &body).await?;
    let lock_out = state.settings.staff.lock_out;
    let proved = prove(
        &state.store,
        (&guard, &admitted),
        lock_out,
        body,
        at.clone(),
    )
    .await?;
    drop(admitted);
    let row = match proved {
        Proved::Person(row) => row,
        Proved::Refused(refusal) => return Err(refusal.into()),
    };
    if let Where::Address(Some(address)) = &at {
        // The try was taken from the address's allowance before the check: a person who
        // proved who they are gives it back, so a venue's own sign-ons never use it up.
        state.auth_failures.give_back(*address);
    }
    let person = row.id.clone();
    let place = at.terminal().cloned();
    let signed = crate::state::write(&state, None, move |state, conn| {
        let session = (
            &state.principals,
            state.settings.hours,
            state.settings.staff.idle,
        );
        sessions::open(conn, session, &row, place.as_ref())
    })
    .await?;
    // The person's other sessions ended (one at a time): dropped at the other instances too.
    state.events.forget_elsewhere(&person);
    Ok(HttpResponse::Created().json(signed))
}

/// Where a sign-on is tried (issue 31). With a bearer token: the registered terminal whose
/// credential it is, or 401 (a bad credential counts against the address). Without one: a
/// PIN is refused at once, whatever it is (rule 5.1: a writer signs on at a registered
/// terminal, and no PIN is checked elsewhere), and a password's try is taken from the
/// address's allowance before anything is checked. A registered terminal's tries never use
/// the address's allowance, so no one behind a venue's address blocks its counters.
async fn where_from(
    state: &web::Data<AppState>,
    req: &HttpRequest,
    address: Option<std::net::IpAddr>,
    body: &SignOn,
) -> DomainResult<Where> {
    if let Some(credential) = bearer_token(req) {
        // Over its failures, an address still has its credentials looked up (a few at a time
        // in all): a registered terminal behind a guesser's address signs on all the same.
        let over = address.and_then(|a| state.auth_failures.check(a).err());
        let _turn = match over {
            Some(_) => state.auth_failures.suspect_turn().await,
            None => None,
        };
        let found = crate::store::read(&state.store, move |conn| {
            Ok(terminal_of(conn, &credential)?)
        })
        .await?;
        return match found {
            Some(place) => Ok(Where::Terminal(place)),
            None => {
                if let Some(address) = address {
                    state.auth_failures.fail(address);
                }
                Err(over.unwrap_or_else(|| {
                    Failure::refuse(
                        Refusal::TerminalNotRegistered,
                        "the bearer token is not a registered terminal's credential",
                    )
                }))
            }
        };
    }
    if body.pin.is_some() {
        return Err(Failure::refuse(
            Refusal::TerminalNotRegistered,
            "rule 5.1: a writer signs on at a registered terminal (its credential as the bearer token)",
        ));
    }
    if let Some(address) = address {
        state.auth_failures.take(address)?;
    }
    Ok(Where::Address(address))
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
    let id = sessions::session_id(&principal)?;
    let idle = state.settings.staff.idle;
    let session = crate::store::read(&state.store, move |conn| {
        sessions::shown(conn, principal, &id, idle)
    })
    .await?;
    Ok(web::Json(session))
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
    let id = sessions::session_id(&principal)?;
    crate::store::write(&state.store, None, move |conn| {
        sessions::sign_off(conn, &id, now_micros())
    })
    .await?;
    if let Some(token) = bearer_token(&req) {
        state.principals.forget(&token_hash(&token));
    }
    state.events.forget_elsewhere(&principal.id);
    Ok(HttpResponse::NoContent().finish())
}
