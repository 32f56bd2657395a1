//! Unclaimed Prize Claim Forms (rules 13.1, 13.4, 13.5, 14; Diagram E).
//!
//! A player whose ticket is more than 12 months old, lost or unreadable fills in the form; a
//! writer or supervisor records it (`POST /claims`), and the system lists the tickets that
//! match what the player remembers. An inspector decides: approves, choosing the ticket, or
//! rejects with a reason. An approved claim is paid by cheque (13.5), once: the ticket is
//! marked paid in the same way a terminal marks it, so a claim and a terminal payment of the
//! same ticket cannot both succeed. Each step enters the audit trail.

mod candidates;
mod form;
pub mod unclaimed;
mod voucher;

use actix_web::http::StatusCode;
use actix_web::{get, post, web, HttpResponse};
use diesel::prelude::*;
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

pub use candidates::Candidate;

use crate::approvals::{self, approvable};
use crate::audit::log::append;
use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::db::schema::claims;
use crate::db::{now_micros, per_backend, rfc3339, DbConnection};
use crate::error::{ApiResult, DomainResult, Failure};
use crate::request_ids::{Once, RequestIdHeader};
use crate::state::AppState;
use crate::tickets::pay::{facts, mark_paid, refused};
use keno_api::Refusal;
pub use keno_core::ClaimState;
use keno_core::{Act, Part};
// The wire's types (keno-api), where the server's modules have always found them.
pub use keno_api::claims::{Claim, ClaimForm, VoucherCandidate};

#[derive(Queryable, Selectable, Debug, Clone)]
#[diesel(table_name = claims)]
pub struct ClaimRow {
    pub id: i64,
    pub reason: String,
    pub claimant_name: String,
    pub postal_address: String,
    pub phone: String,
    pub purchase_place: String,
    pub purchase_date: String,
    pub approx_game: Option<i64>,
    pub games: Option<i32>,
    pub other_details: String,
    pub serial: Option<String>,
    #[diesel(deserialize_as = String)]
    pub state: ClaimState,
    pub recorded_by: String,
    pub recorded_at: i64,
    pub ticket_serial: Option<String>,
    pub decided_by: Option<String>,
    pub decided_at: Option<i64>,
    pub decision_reason: Option<String>,
    pub paid_cents: Option<i64>,
    pub paid_by: Option<String>,
    pub paid_at: Option<i64>,
    pub cheque_reference: Option<String>,
    pub voucher_code: Option<String>,
    pub voucher_amount_cents: Option<i64>,
    pub approved_voucher: Option<String>,
}

/// What a writer is shown: the tickets' serials masked ([`load_for`]).
fn for_the_counter(mut claim: Claim) -> Claim {
    for c in &mut claim.candidates {
        c.serial = masked_serial(&c.serial);
    }
    claim.ticket_serial = claim.ticket_serial.as_deref().map(masked_serial);
    for v in &mut claim.voucher_candidates {
        v.code = masked_serial(&v.code);
    }
    claim.approved_voucher = claim.approved_voucher.as_deref().map(masked_serial);
    claim
}

/// The claim as the API shows it, with the tickets that match it.
fn shown(r: ClaimRow, candidates: Vec<Candidate>, vouchers: Vec<VoucherCandidate>) -> Claim {
    Claim {
        id: r.id,
        reason: r.reason,
        claimant_name: r.claimant_name,
        postal_address: r.postal_address,
        phone: r.phone,
        purchase_place: r.purchase_place,
        purchase_date: r.purchase_date,
        approx_game: r.approx_game,
        games: r.games,
        other_details: r.other_details,
        serial: r.serial,
        state: r.state.to_string(),
        recorded_by: r.recorded_by,
        recorded_at: rfc3339(r.recorded_at),
        ticket_serial: r.ticket_serial,
        decided_by: r.decided_by,
        decided_at: r.decided_at.map(rfc3339),
        decision_reason: r.decision_reason,
        paid_cents: r.paid_cents,
        paid_by: r.paid_by,
        paid_at: r.paid_at.map(rfc3339),
        cheque_reference: r.cheque_reference,
        candidates,
        voucher_code: r.voucher_code,
        voucher_amount_cents: r.voucher_amount_cents,
        approved_voucher: r.approved_voucher,
        voucher_candidates: vouchers,
    }
}

/// A field of the form as kept (keno-core's text rule, issue 31), or `invalid_claim`.
fn text(field: &str, value: &str, max: usize) -> DomainResult<String> {
    crate::reason::kept(field, value, max, Refusal::InvalidClaim)
}

/// The form's texts as kept, checked before the transaction.
struct Filed {
    name: String,
    address: String,
    phone: String,
    place: String,
    date: String,
    details: String,
}

impl Filed {
    fn check(f: &ClaimForm) -> DomainResult<Filed> {
        let date = chrono::NaiveDate::parse_from_str(f.purchase_date.trim(), "%Y-%m-%d").map_err(
            |_| {
                Failure::refuse(
                    Refusal::InvalidClaim,
                    "give the date the ticket was bought as YYYY-MM-DD",
                )
            },
        )?;
        if f.games.is_some_and(|g| !(1..=10_000).contains(&g))
            || f.approx_game.is_some_and(|g| g < 1)
        {
            return Err(Failure::refuse(
                Refusal::InvalidClaim,
                "the game and the number of games are positive numbers",
            ));
        }
        // An address and the other details are typed on several lines.
        let lines =
            |what, value, max| crate::reason::kept_lines(what, value, max, Refusal::InvalidClaim);
        let details = match f.other_details.trim() {
            "" => String::new(),
            d => lines("the other details", d, 2000)?,
        };
        Ok(Filed {
            name: text("the claimant's name", &f.claimant_name, 200)?,
            address: lines("a postal address", &f.postal_address, 500)?,
            phone: text("a phone number", &f.phone, 50)?,
            place: text("where the ticket was bought", &f.purchase_place, 200)?,
            date: date.format("%Y-%m-%d").to_string(),
            details,
        })
    }
}

fn find_claim(conn: &mut DbConnection, id: i64) -> DomainResult<ClaimRow> {
    approvals::held(conn, id)
}
approvable! {
    ClaimRow in claims as "claim",
    state: ClaimState = |c| c.state,
    refused: |act| match act {
        Act::Pay => Refusal::ClaimNotApproved,
        _ => Refusal::ClaimDecided,
    },
    subject: |c| c.id.to_string(),
    kind: |act| match act {
        None => "claim_filed",
        Some(Act::Approve) => "claim_approved",
        Some(Act::Pay) => "claim_paid",
        Some(_) => "claim_rejected",
    },
    payload: |c| serde_json::json!({
        "reason": c.reason, "claimant_name": c.claimant_name,
        "postal_address": c.postal_address, "phone": c.phone,
        "purchase_place": c.purchase_place, "purchase_date": c.purchase_date,
        "approx_game": c.approx_game, "games": c.games, "serial": c.serial,
        "state": c.state.as_str(), "ticket_serial": c.ticket_serial,
        "decision_reason": c.decision_reason, "paid_cents": c.paid_cents,
        "cheque_reference": c.cheque_reference, "voucher_code": c.voucher_code,
        "voucher_amount_cents": c.voucher_amount_cents, "approved_voucher": c.approved_voucher,
    }),
}

fn load(conn: &mut DbConnection, id: i64) -> DomainResult<Claim> {
    let row = find_claim(conn, id)?;
    if row.state != ClaimState::Submitted {
        return Ok(shown(row, Vec::new(), Vec::new()));
    }
    // A claim for a voucher lists vouchers; one for a ticket, tickets.
    Ok(match voucher::named(&row) {
        true => {
            let found = voucher::matching(conn, &row)?;
            shown(row, Vec::new(), found)
        }
        false => {
            let found = candidates::matching(conn, &row)?;
            shown(row, found, Vec::new())
        }
    })
}

/// The claim as `principal` may see it. A writer sees only the claims recorded at its own site
/// (a claim holds a player's name, address and phone), and of the tickets no more than the last
/// four digits of each serial: a serial is what a terminal pays, so the matching unpaid
/// tickets' serials go to those who decide and pay claims, not to the counter.
fn load_for(conn: &mut DbConnection, id: i64, principal: &Principal) -> DomainResult<Claim> {
    let claim = load(conn, id)?;
    if principal.role != Role::Writer {
        return Ok(claim);
    }
    // Where it was filed, not the filer's principal's site: a writer signed on with a session
    // has its site from the session (issue 31), and one person may work at several.
    let filed_at: Option<String> = claims::table
        .find(id)
        .select(claims::site)
        .first::<Option<String>>(conn)?;
    if filed_at.is_none() || filed_at != principal.site {
        return Err(Failure::forbidden(
            "a writer sees only the claims recorded at its own site",
        ));
    }
    Ok(for_the_counter(claim))
}

/// `1234567890123456789` as `***************6789`.
fn masked_serial(serial: &str) -> String {
    let keep = serial.len().saturating_sub(4);
    serial
        .char_indices()
        .map(|(i, c)| if i < keep { '*' } else { c })
        .collect()
}

/// Records an Unclaimed Prize Claim Form and lists the tickets it may be for.
#[utoipa::path(
    tag = "claims",
    security(("bearer" = [])),
    request_body = ClaimForm,
    responses(
        (status = 201, body = Claim),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_claim`: a field missing or malformed"),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/claims", wrap = "Require(&[Role::Writer, Role::Supervisor])")]
pub async fn file(
    state: web::Data<AppState>,
    principal: Principal,
    form: web::Json<ClaimForm>,
) -> ApiResult<(web::Json<Claim>, StatusCode)> {
    let f = form.into_inner();
    if principal.role == Role::Writer && principal.site.is_none() {
        return Err(Failure::forbidden(
            "a writer files a claim at a terminal: sign on at one (the claim is its site's)",
        )
        .into());
    }
    let filed = Filed::check(&f)?;
    let (voucher_code, voucher_amount) = voucher::named_on(&f, f.serial.is_some())?;
    let serial = f
        .serial
        .map(|s| {
            s.chars()
                .filter(|c| !c.is_whitespace() && *c != '-')
                .collect::<String>()
        })
        .filter(|s| !s.is_empty());
    let claim = crate::store::write(&state.store, None, move |conn| {
        let row: ClaimRow = per_backend!(conn, |c| diesel::insert_into(claims::table)
            .values((
                claims::reason.eq(f.reason.as_str()),
                claims::claimant_name.eq(&filed.name),
                claims::postal_address.eq(&filed.address),
                claims::phone.eq(&filed.phone),
                claims::purchase_place.eq(&filed.place),
                claims::purchase_date.eq(&filed.date),
                claims::approx_game.eq(f.approx_game),
                claims::games.eq(f.games),
                claims::other_details.eq(&filed.details),
                claims::serial.eq(&serial),
                claims::voucher_code.eq(&voucher_code),
                claims::voucher_amount_cents.eq(voucher_amount),
                claims::state.eq(ClaimState::Submitted.as_str()),
                claims::recorded_by.eq(&principal.id),
                claims::recorded_at.eq(now_micros()),
                claims::site.eq(&principal.site),
            ))
            .returning(ClaimRow::as_returning())
            .get_result(c))?;
        approvals::proposed(conn, &row, &principal.id)?;
        load_for(conn, row.id, &principal)
    })
    .await?;
    Ok((web::Json(claim), StatusCode::CREATED))
}

/// A claim, with the tickets that match it while it waits for a decision.
#[utoipa::path(
    tag = "claims",
    security(("bearer" = [])),
    params(("id" = i64, Path)),
    responses((status = 200, body = Claim), (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody))
)]
#[get(
    "/api/v1/claims/{id}",
    wrap = "Require(&[Role::Writer, Role::Supervisor, Role::Inspector, Role::Auditor])"
)]
pub async fn get_claim(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<i64>,
) -> ApiResult<web::Json<Claim>> {
    let id = id.into_inner();
    let claim =
        crate::store::read(&state.store, move |conn| load_for(conn, id, &principal)).await?;
    Ok(web::Json(claim))
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct ClaimQuery {
    /// submitted | approved | rejected | paid
    pub state: Option<String>,
    /// At most this many claims (1 to 500, the default).
    pub limit: Option<i64>,
    /// Only claims numbered below this one: the next page, from the last claim of a full one.
    pub before: Option<i64>,
}

/// Claims, newest first, a page at a time (`limit`, `before`): an inspector's list of those to
/// decide.
#[utoipa::path(
    tag = "claims",
    security(("bearer" = [])),
    params(ClaimQuery),
    responses((status = 200, body = [Claim]), (status = 400, body = crate::error::ErrorBody, description = "`invalid_range`: limit is 1 to 500"), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody))
)]
#[get(
    "/api/v1/claims",
    wrap = "Require(&[Role::Supervisor, Role::Inspector, Role::Auditor])"
)]
pub async fn list(
    state: web::Data<AppState>,
    query: web::Query<ClaimQuery>,
) -> ApiResult<web::Json<Vec<Claim>>> {
    let query = query.into_inner();
    let (wanted, before) = (query.state, query.before);
    let limit = crate::paging::limit(query.limit)?;
    let claims = crate::store::read(&state.store, move |conn| -> DomainResult<Vec<Claim>> {
        let mut q = claims::table
            .order(claims::id.desc())
            .limit(limit)
            .select(ClaimRow::as_select())
            .into_boxed();
        if let Some(s) = wanted {
            q = q.filter(claims::state.eq(s));
        }
        if let Some(before) = before {
            q = q.filter(claims::id.lt(before));
        }
        let rows: Vec<ClaimRow> = q.load(conn)?;
        Ok(rows
            .into_iter()
            .map(|r| shown(r, Vec::new(), Vec::new()))
            .collect())
    })
    .await?;
    Ok(web::Json(claims))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ClaimApproval {
    /// The ticket the claim is for, chosen from the candidates.
    #[serde(default)]
    pub serial: Option<String>,
    /// Or the voucher it is for (rules 13.1, 13.3), chosen from the voucher candidates.
    #[serde(default)]
    pub voucher: Option<String>,
    pub reason: String,
}

/// What an approval names: a ticket or a voucher, one of them.
pub(super) enum Claimed {
    Ticket(String),
    Voucher(String),
}

impl Claimed {
    fn of(a: &ClaimApproval) -> DomainResult<Claimed> {
        fn trimmed(s: &Option<String>) -> Option<&str> {
            s.as_deref().map(str::trim).filter(|s| !s.is_empty())
        }
        match (trimmed(&a.serial), trimmed(&a.voucher)) {
            (Some(serial), None) => Ok(Claimed::Ticket(serial.to_string())),
            (None, Some(code)) => Ok(Claimed::Voucher(code.to_string())),
            _ => Err(Failure::refuse(
                Refusal::InvalidClaim,
                "approve the claim for one ticket (serial) or one voucher (voucher)",
            )),
        }
    }

    /// The columns the approval sets: (ticket_serial, approved_voucher).
    fn columns(&self) -> (Option<&str>, Option<&str>) {
        match self {
            Claimed::Ticket(s) => (Some(s), None),
            Claimed::Voucher(c) => (None, Some(c)),
        }
    }
}

/// An inspector approves a claim for one ticket (rule 14: payment is at the inspector's
/// discretion).
#[utoipa::path(
    tag = "claims",
    security(("bearer" = [])),
    params(("id" = i64, Path)),
    request_body = ClaimApproval,
    responses(
        (status = 200, body = Claim),
        (status = 409, body = crate::error::ErrorBody, description = "`claim_decided`, `already_paid`, `not_settled`, `no_prize`, `cancelled`, `ticket_claimed` (another claim has it)"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody, description = "`forbidden`; `same_person`: who files a claim, who approves it and who pays it are three people")
    )
)]
#[post("/api/v1/claims/{id}/approve", wrap = "Require(&[Role::Inspector])")]
pub async fn approve(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<i64>,
    body: web::Json<ClaimApproval>,
) -> ApiResult<web::Json<Claim>> {
    let id = id.into_inner();
    let body = body.into_inner();
    let why = crate::reason::reason(&body.reason)?;
    let claimed = Claimed::of(&body)?;
    let claim = crate::store::write(&state.store, None, move |conn| {
        // The claim first: no such claim is a 404 and a decided one `claim_decided`, whatever
        // the ticket named.
        approvals::decide::<ClaimRow, _>(
            conn,
            id,
            Act::Approve,
            &principal.id,
            |conn, row, to| {
                another_person(conn, row, (Part::ApprovedTheClaim, &principal.name))?;
                match &claimed {
                    Claimed::Ticket(serial) => claimable(conn, id, serial)?,
                    Claimed::Voucher(code) => voucher::claimable(conn, id, code)?,
                }
                let (serial, code) = claimed.columns();
                Ok(diesel::update(claims::table.find(id))
                    .filter(claims::state.eq(ClaimState::Submitted.as_str()))
                    .set((
                        claims::state.eq(to.as_str()),
                        claims::ticket_serial.eq(serial),
                        claims::approved_voucher.eq(code),
                        claims::decided_by.eq(&principal.id),
                        claims::decided_at.eq(now_micros()),
                        claims::decision_reason.eq(&why),
                    ))
                    .execute(conn)?)
            },
        )?;
        load(conn, id)
    })
    .await?;
    Ok(web::Json(claim))
}

/// Another claim than `id` is approved (or paid) for what `claimed` names: one ticket or
/// voucher, one claim.
pub(super) fn held_by_another(
    conn: &mut DbConnection,
    id: i64,
    claimed: &Claimed,
) -> QueryResult<bool> {
    let mut others = claims::table
        .filter(claims::state.eq_any([ClaimState::Approved.as_str(), ClaimState::Paid.as_str()]))
        .filter(claims::id.ne(id))
        .select(claims::id)
        .into_boxed();
    others = match claimed {
        Claimed::Ticket(serial) => others.filter(claims::ticket_serial.eq(serial.clone())),
        Claimed::Voucher(code) => others.filter(claims::approved_voucher.eq(code.clone())),
    };
    Ok(!others.limit(1).load::<i64>(conn)?.is_empty())
}

/// The ticket `serial` may be what claim `id` is approved for: it is owed a prize and no other
/// claim has it.
fn claimable(conn: &mut DbConnection, id: i64, serial: &str) -> DomainResult<()> {
    let ticket = crate::tickets::find(conn, serial)?.ok_or_else(|| Failure::not_found("ticket"))?;
    // Rules 11.5, 12.2: what the ticket is owed wherever it is paid; a claim is not held to the
    // twelve months of a terminal (rule 13.1).
    keno_core::owed(&facts(conn, &ticket)?).map_err(|e| refused(serial, e))?;
    if held_by_another(conn, id, &Claimed::Ticket(serial.to_string()))? {
        return Err(Failure::refuse(
            Refusal::TicketClaimed,
            format!("ticket {serial} is already the subject of an approved claim"),
        ));
    }
    Ok(())
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Rejection {
    pub reason: String,
}

/// An inspector rejects a claim, with the reason.
#[utoipa::path(
    tag = "claims",
    security(("bearer" = [])),
    params(("id" = i64, Path)),
    request_body = Rejection,
    responses(
        (status = 200, body = Claim),
        (status = 409, body = crate::error::ErrorBody, description = "`claim_decided`"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/claims/{id}/reject", wrap = "Require(&[Role::Inspector])")]
pub async fn reject(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<i64>,
    body: web::Json<Rejection>,
) -> ApiResult<web::Json<Claim>> {
    let id = id.into_inner();
    let why = crate::reason::reason(&body.reason)?;
    let claim = crate::store::write(&state.store, None, move |conn| {
        approvals::decide::<ClaimRow, _>(conn, id, Act::Reject, &principal.id, |conn, _, to| {
            Ok(diesel::update(claims::table.find(id))
                .filter(claims::state.eq(ClaimState::Submitted.as_str()))
                .set((
                    claims::state.eq(to.as_str()),
                    claims::decided_by.eq(&principal.id),
                    claims::decided_at.eq(now_micros()),
                    claims::decision_reason.eq(&why),
                ))
                .execute(conn)?)
        })?;
        load(conn, id)
    })
    .await?;
    Ok(web::Json(claim))
}

#[derive(Debug, Deserialize, serde::Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChequePayment {
    /// The cheque's number or reference.
    pub cheque_reference: String,
}

/// Pays an approved claim by cheque (rule 13.5), once; the ticket is marked paid.
#[utoipa::path(
    tag = "claims",
    security(("bearer" = [])),
    params(("id" = i64, Path),
           ("X-Keno-Request-Id" = Option<String>, Header, description = "1 to 100 characters: a retry under it is answered with the claim as first paid; the same id with another request is refused (`request_id_reused`)")),
    request_body = ChequePayment,
    responses(
        (status = 200, body = Claim),
        (status = 409, body = crate::error::ErrorBody, description = "`claim_not_approved`, `already_paid` (the ticket was paid meanwhile, at a terminal or by another claim), `request_id_reused`"),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_claim`, `invalid_request_id`"),
        (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody, description = "`forbidden`; `same_person`: who files a claim, who approves it and who pays it are three people")
    )
)]
#[post("/api/v1/claims/{id}/pay", wrap = "Require(&[Role::Supervisor])")]
pub async fn pay(
    state: web::Data<AppState>,
    principal: Principal,
    request_id: RequestIdHeader,
    id: web::Path<i64>,
    body: web::Json<ChequePayment>,
) -> ApiResult<web::Json<Claim>> {
    let id = id.into_inner();
    let cheque = text("the cheque's reference", &body.cheque_reference, 100)?;
    let once = Once::new(
        request_id,
        &principal.id,
        crate::request_ids::Act::ClaimPay,
        &id.to_string(),
        &*body,
    )?;
    let claim = crate::state::once(&state, once, None, move |_, conn| {
        approvals::decide::<ClaimRow, _>(conn, id, Act::Pay, &principal.id, |conn, row, to| {
            another_person(conn, row, (Part::PaysTheClaim, &principal.name))?;
            pay_cheque(conn, row, to, &cheque, &principal.id)
        })?;
        load(conn, id)
    })
    .await?;
    Ok(web::Json(claim))
}

/// Refuses `part` of claim `row` by the person named `who` when they took an earlier part of
/// it (issue 31): who files a claim, who approves it and who pays it are three people, told
/// apart by name whatever staff ID each part was taken under.
fn another_person(
    conn: &mut DbConnection,
    row: &ClaimRow,
    (part, who): (Part, &str),
) -> DomainResult<()> {
    let earlier = [
        (Part::FiledTheClaim, Some(&row.recorded_by)),
        (Part::ApprovedTheClaim, row.decided_by.as_ref()),
    ];
    for (earlier_part, id) in earlier {
        let Some(id) = id else { continue };
        let name = crate::staff::name_of(conn, id)?;
        keno_core::two_people((earlier_part, &name), (part, who))
            .map_err(|e| Failure::refuse(Refusal::SamePerson, e.to_string()))?;
    }
    Ok(())
}

/// Pays approved claim `row` by cheque: the claim and its ticket marked paid together.
fn pay_cheque(
    conn: &mut DbConnection,
    row: &ClaimRow,
    to: ClaimState,
    cheque: &str,
    by: &str,
) -> DomainResult<usize> {
    if let Some(code) = &row.approved_voucher {
        return voucher::pay(conn, row, code, (to, cheque, by));
    }
    let serial = row.ticket_serial.clone().ok_or_else(|| {
        Failure::Internal(anyhow::anyhow!("claim {} approved for no ticket", row.id))
    })?;
    let ticket =
        crate::tickets::find(conn, &serial)?.ok_or_else(|| Failure::not_found("ticket"))?;
    // Rule 13.5: what it is owed, by cheque whatever it won.
    let due = keno_core::owed(&facts(conn, &ticket)?)
        .map_err(|e| refused(&serial, e))?
        .by_claim();
    let changed = diesel::update(claims::table.find(row.id))
        .filter(claims::state.eq(ClaimState::Approved.as_str()))
        .set((
            claims::state.eq(to.as_str()),
            claims::paid_cents.eq(due.total_cents as i64),
            claims::paid_by.eq(by),
            claims::paid_at.eq(now_micros()),
            claims::cheque_reference.eq(cheque),
        ))
        .execute(conn)?;
    // The same guarded update as a terminal's payment.
    let paid = mark_paid(
        conn,
        &ticket,
        due.total_cents,
        due.method,
        by,
        serde_json::json!({ "claim": row.id }),
    )?;
    append(conn, vec![paid])?;
    Ok(changed)
}

/// The claim as a printable Unclaimed Prize Claim Form (Diagram E), PDF.
#[utoipa::path(
    tag = "claims",
    security(("bearer" = [])),
    params(("id" = i64, Path)),
    responses((status = 200, content_type = "application/pdf", description = "The form"), (status = 404, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody))
)]
#[get(
    "/api/v1/claims/{id}/form.pdf",
    wrap = "Require(&[Role::Writer, Role::Supervisor, Role::Inspector, Role::Auditor])"
)]
pub async fn form_pdf(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let claim =
        crate::store::read(&state.store, move |conn| load_for(conn, id, &principal)).await?;
    Ok(HttpResponse::Ok()
        .content_type("application/pdf")
        .body(form::render_form(&claim)))
}
