//! `POST /api/v1/tickets` and `POST /api/v1/tickets/quote`: a sale, and its price alone
//! (`tickets::sale`; the sale commits through the sale writer, `tickets::writer`).

use actix_web::{post, web, HttpResponse};
use keno_core::suspension::Doing;
use keno_core::ScheduleId;

use crate::auth::http::Require;
use crate::auth::{Principal, Role};
use crate::error::{ApiResult, DomainResult, Failure};
use crate::liability::Books;
use crate::staff::overrides::OverrideHeader;
use crate::state::AppState;
use crate::suspension::gate::Gate;
use crate::tickets::sale::{self, Context, Outcome, Quote, SaleRequest, Selling, SoldTicket};
use crate::tickets::tender::{self, SalePayment, TenderRef};
use crate::tickets::writer::SaleWriter;
use crate::tickets::TicketRow;

/// Sells a ticket: 201 with the ticket; 200 with the same ticket for a `request_id` already sold.
#[utoipa::path(
    tag = "tickets",
    security(("bearer" = [])),
    request_body = SaleRequest,
    responses(
        (status = 201, body = SoldTicket, description = "Sold"),
        (status = 200, body = SoldTicket, description = "Already sold under this request_id: nothing sold, nothing spent"),
        (status = 409, body = crate::error::ErrorBody, description = "`no_shift`: the writer has no shift open at this terminal (`--cash-needs-shift`). `game_closed`: no game open for sale. A tender refused: `insufficient_balance`, `voucher_empty`, `claim_required` (a voucher more than 12 months after its Keno Day, rule 13.1), `already_paid`, `not_settled`, `no_prize`, `cancelled`, `cheque_only` (a ticket with a major prize, rule 12.2)"),
        (status = 404, body = crate::error::ErrorBody, description = "A tendered voucher or ticket does not exist"),
        (status = 422, body = crate::error::ErrorBody, description = "Refused under the rules: `invalid_selection`, `below_minimum_wager`, `invalid_wager_increment`, `ticket_total_over_limit`, `schedule_not_offered`, ...; `tender_not_needed`, `tender_exceeds_sale`"),
        (status = 400, body = crate::error::ErrorBody, description = "`invalid_voucher_code`, `invalid_serial`, `invalid_tender`, `duplicate_tender`, `invalid_amount`, ..."), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[post("/api/v1/tickets", wrap = "Require(&[Role::Writer])")]
pub async fn sell(
    state: web::Data<AppState>,
    sales: web::Data<SaleWriter>,
    books: web::Data<Books>,
    gate: web::Data<Gate>,
    principal: Principal,
    carried: OverrideHeader,
    request: web::Json<SaleRequest>,
) -> ApiResult<HttpResponse> {
    let request = request.into_inner();
    let digest = crate::request_ids::checked("sale", &request.request_id, &request)?;
    let (Some(site), Some(terminal)) = (principal.site.clone(), principal.terminal.clone()) else {
        return Err(Failure::forbidden("this writer is not bound to a site and terminal").into());
    };
    let context = match context(&state, &principal, &request).await {
        Ok(Context {
            sold: Some(earlier),
            ..
        }) => return answer(&state, *earlier, &digest).await,
        other => other,
    };
    let prepared = context.and_then(|c| {
        let tenders = tender::parse(request.tender.as_ref())?;
        let p = sale::prepare(selling(&state), (&principal, &request), &c, site, terminal)?;
        Ok(p.into_sale(tenders, digest.clone()))
    });
    let retry = (
        principal.id.clone(),
        request.request_id.clone(),
        digest.clone(),
    );
    // Suspended (issue 33): a sale sent again still gets its ticket; a new one is refused.
    if let Err(suspended) = gate.admit(Doing::Change) {
        return sold_or(&state, retry, suspended).await;
    }
    let (sale, ways) = match prepared {
        Ok(prepared) => prepared,
        // A retry of a sale made before a change (of the rule set, the catalogue or the
        // approval, say) still gets its ticket rather than a refusal.
        Err(refusal) => return sold_or(&state, retry, refusal).await,
    };
    admit_tendered(&state, &principal, &carried, &sale.tenders).await?;
    // The game's liability limits (issue 18): the ways are held in the book until the sale
    // commits or fails, so sales in flight count against the limits too.
    let hold = match crate::liability::hold(&state.store, &books, state.judging(), ways).await {
        Ok(hold) => hold,
        Err(refusal) => return sold_or(&state, retry, refusal).await,
    };
    match sales.commit_open(&sale).await? {
        Some(Outcome::Sold(t, payment)) => {
            if let Some(hold) = hold {
                hold.sold(&t.serial, t.first_game);
            }
            if ScheduleId::from(request.schedule) == ScheduleId::Jackpot {
                // The pool on the displays grows as the game sells (rule 7.3 as
                // interpreted); the announcer sends the new figure within a second.
                state
                    .jackpots_changed
                    .store(true, std::sync::atomic::Ordering::Relaxed);
            }
            let sold = sale::sold_now(&state.rules, &sale, &t, payment)?;
            Ok(HttpResponse::Created().json(sold))
        }
        // How it was paid, as recorded when it was sold: a retry spends nothing.
        Some(Outcome::AlreadySold(t)) => answer(&state, *t, &digest).await,
        // A retry of a sale that committed just before the last close must still get its
        // ticket.
        None => sold_or(&state, retry, sale::no_game_open()).await,
    }
}

/// What a sale reads of the rule set in force and the operator's limits.
fn selling(state: &AppState) -> Selling<'_> {
    Selling {
        rules: &state.rules,
        rule_set_hash: &state.rule_set_hash,
        special3_digest: state.special3_digest.as_deref(),
        limits: state.settings.limits,
    }
}

/// A writer's tendered tickets that need a supervisor's approval have it, spent now
/// (`tender::admit_tendered`).
async fn admit_tendered(
    state: &web::Data<AppState>,
    principal: &Principal,
    carried: &OverrideHeader,
    tenders: &[TenderRef],
) -> DomainResult<()> {
    let serials = tender::tendered_tickets(principal, tenders);
    if serials.is_empty() {
        return Ok(());
    }
    let (principal, carried) = (principal.clone(), carried.clone());
    let (limits, hours) = (state.settings.staff.out_limits(), state.settings.hours);
    crate::store::write(&state.store, None, move |conn| {
        let today = hours.today()?;
        tender::admit_tendered(conn, (limits, today), (&principal, &carried), &serials)
    })
    .await
}

/// 200 with the ticket a writer already sold under this request id, or else `refusal`.
async fn sold_or(
    state: &web::Data<AppState>,
    (writer, request_id, digest): (String, String, String),
    refusal: Failure,
) -> ApiResult<HttpResponse> {
    let s = state.clone();
    let read =
        move |conn: &mut _| sale::sold_before(&s.rule_sets, conn, (&writer, &request_id), &digest);
    let sold = crate::store::read_synced(&state.store, read, Option::is_some).await?;
    match sold {
        Some(t) => Ok(HttpResponse::Ok().json(t)),
        None => Err(refusal.into()),
    }
}

/// 200 with a ticket sold earlier, as the answer to a sale sent again; 409 when the request
/// under its id was another.
async fn answer(
    state: &web::Data<AppState>,
    t: TicketRow,
    digest: &str,
) -> ApiResult<HttpResponse> {
    sale::same_sale(&t, digest)?;
    let s = state.clone();
    let read = move |conn: &mut _| sale::sold_earlier(&s.rule_sets, conn, &t);
    let sold: SoldTicket = crate::store::read_synced(&state.store, read, |_| true).await?;
    Ok(HttpResponse::Ok().json(sold))
}

/// Reads what the sale needs (nothing for most sales: no database call).
async fn context(
    state: &web::Data<AppState>,
    principal: &Principal,
    request: &SaleRequest,
) -> DomainResult<Context> {
    let set = request.bet.set_id();
    let special3 = state.rules.may_play_special3(request.schedule.into());
    if set.is_none() && !special3 {
        return Ok(Context::default());
    }
    let (p, r) = (principal.id.clone(), request.request_id.clone());
    crate::state::read(state, move |s, conn| -> DomainResult<Context> {
        let mut context = sale::context(conn, (&p, &r), set)?;
        if special3 && context.sold.is_none() {
            context.special3 = crate::special3::approval(s.special3_digest.as_deref(), conn)?;
        }
        Ok(context)
    })
    .await
}

/// Prices a sale without selling it, so the terminal shows the price before the writer
/// confirms; refusals are those of a sale (a tender's too). Quick picks are priced, not picked.
#[utoipa::path(
    tag = "tickets",
    security(("bearer" = [])),
    request_body = SaleRequest,
    responses(
        (status = 200, body = Quote),
        (status = 422, body = crate::error::ErrorBody, description = "Refused under the rules, as a sale would be"),
        (status = 400, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody, description = "`other_site`: a tendered ticket of another site (its prize is not shown)")
    )
)]
#[post("/api/v1/tickets/quote", wrap = "Require(&[Role::Writer])")]
pub async fn quote(
    state: web::Data<AppState>,
    principal: Principal,
    request: web::Json<SaleRequest>,
) -> ApiResult<web::Json<Quote>> {
    let tenders = tender::parse(request.tender.as_ref())?;
    let context = context(&state, &principal, &request).await?;
    let t = match context.sold {
        // A quote under the id of a set bet already sold: that ticket's price.
        Some(t) => *t,
        None => {
            let asked = (&principal, &*request);
            sale::prepare(
                selling(&state),
                asked,
                &context,
                String::new(),
                String::new(),
            )?
            .ticket
        }
    };
    let payment = if tenders.is_empty() {
        SalePayment::cash(t.total_cents)
    } else {
        let (total, hours) = (t.total_cents as u64, state.settings.hours);
        crate::store::read(&state.store, move |conn| {
            sale::quoted(conn, &principal, &tenders, (total, hours))
        })
        .await?
    };
    Ok(web::Json(sale::quote(&t, payment)?))
}
