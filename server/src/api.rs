//! The HTTP API of `shared/API.md` and its OpenAPI document (`schemas/openapi.json`).

use actix_web::{web, HttpRequest, HttpResponse};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{Content, Ref, RefOr, Response, ResponseBuilder};
use utoipa::{Modify, OpenApi};

use crate::limits_doc::RequestLimits;

use crate::error::{ApiError, Failure};
use crate::events;
use keno_api::Refusal;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Keno central server",
        description = "The contract of shared/API.md: games, tickets, vouchers, jackpots and events; set bets and Special 3 approvals. Money is integer cents in fields named *_cents; times are RFC 3339 in UTC; errors are {\"error\": code, \"message\": text}.",
        version = "1"
    ),
    paths(
        crate::routes::games::current,
        crate::routes::games::by_number,
        crate::routes::games::list,
        crate::routes::games::close_current,
        crate::routes::ball_draw::balls::post_ball,
        crate::routes::ball_draw::faults::report_fault,
        crate::routes::ball_draw::corrections::request_correction,
        crate::routes::ball_draw::corrections::approve,
        crate::routes::ball_draw::corrections::reject,
        crate::routes::ball_draw::record::draw_record,
        crate::routes::ball_draw::devices::list,
        crate::routes::ball_draw::devices::get_device,
        crate::routes::ball_draw::devices::return_to_service,
        crate::routes::suspension::standing,
        crate::routes::incidents::open,
        crate::routes::integrity::integrity,
        crate::routes::suspension::resume,
        crate::routes::invalidation::invalidate,
        crate::routes::invalidation::preview,
        crate::routes::game_summary::summary,
        crate::routes::tickets::sale::sell,
        crate::routes::tickets::sale::quote,
        crate::auth::http::me,
        crate::routes::tickets::view::get_ticket,
        crate::routes::tickets::view::check,
        crate::routes::tickets::story::story,
        crate::routes::tickets::recent::recent,
        crate::routes::tickets::void::void,
        crate::routes::tickets::cancel::cancel,
        crate::routes::tickets::pay::pay,
        crate::routes::vouchers::issue::issue,
        crate::routes::vouchers::lookup::get_voucher,
        crate::routes::vouchers::cash::cash_out,
        crate::routes::jackpots::list,
        crate::routes::bonus::create,
        crate::routes::bonus::approve,
        crate::routes::bonus::withdraw,
        crate::routes::bonus::list,
        crate::routes::bonus_fund::show,
        crate::routes::claims::file,
        crate::routes::claims::get_claim,
        crate::routes::claims::list,
        crate::routes::claims::approve,
        crate::routes::claims::reject,
        crate::routes::claims::pay,
        crate::routes::claims::form_pdf,
        crate::routes::claims::unclaimed::move_unclaimed,
        crate::routes::claims::unclaimed::movements,
        crate::routes::schedules::list,
        crate::routes::set_bets::list,
        crate::routes::set_bets::get_set,
        crate::routes::set_bets::create,
        crate::routes::set_bets::retire,
        crate::routes::special3::list,
        crate::routes::special3::record,
        crate::routes::special3::withdraw,
        crate::routes::closures::schedule,
        crate::routes::closures::current,
        crate::routes::closures::withdraw,
        crate::routes::liability::current,
        crate::draw_monitor::endpoint::current,
        crate::routes::staff::sessions::sign_on,
        crate::routes::staff::sessions::current,
        crate::routes::staff::sessions::sign_off,
        crate::routes::staff::people::list,
        crate::routes::staff::people::add,
        crate::routes::staff::people::disable_person,
        crate::routes::staff::people::enable_person,
        crate::routes::staff::people::reset_secret,
        crate::routes::staff::terminals::list,
        crate::routes::staff::terminals::register,
        crate::routes::staff::terminals::rotate,
        crate::routes::staff::overrides::grant,
        crate::routes::displays::list,
        crate::routes::displays::register,
        crate::routes::displays::rotate,
        crate::routes::displays::disable,
        crate::routes::shifts::open,
        crate::routes::shifts::current,
        crate::routes::shifts::close,
        crate::routes::shifts::sign_off,
        crate::routes::shifts::list,
        crate::routes::shifts::get_shift,
        crate::routes::shifts::shift_report,
        crate::routes::shifts::report_pdf,
        crate::audit::endpoints::verification,
        crate::audit::endpoints::day_exceptions,
        crate::audit::endpoints::daily_report_pdf,
        crate::audit::endpoints::export_kinds,
        crate::audit::endpoints::export_file,
        events::stream_events,
    ),
    modifiers(&BearerAuth, &UnreadableRequests, &RequestLimits)
)]
pub struct ApiDoc;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
        // A registered terminal's credential: a writer signs on with it (rule 5.1), and it
        // is the bearer token of nothing else.
        components.add_security_scheme(
            "terminal",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("a registered terminal's credential (`keno-server terminal add`): a writer signs on with it"))
                    .build(),
            ),
        );
        // A registered display's credential: its event stream comes before anonymous ones,
        // and it is the bearer token of nothing else.
        components.add_security_scheme(
            "display",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("a registered display's credential (`keno-server display add`), for `GET /api/v1/events` only; also as the query's `display`, for a browser's EventSource"))
                    .build(),
            ),
        );
        // Every endpoint behind a token answers a client address that has presented too many
        // bad ones with 429 (`auth::authenticate`, `--auth-failure-rate`).
        for item in openapi.paths.paths.values_mut() {
            for op in [&mut item.get, &mut item.post].into_iter().flatten() {
                if op.security.as_ref().is_some_and(|s| !s.is_empty()) {
                    op.responses
                        .responses
                        .entry("429".into())
                        .or_insert_with(too_many_auth_failures);
                }
            }
        }
    }
}

fn too_many_auth_failures() -> RefOr<Response> {
    ResponseBuilder::new()
        .description(
            "`too_many_auth_failures`: too many bad bearer tokens from this address \
             (`--auth-failure-rate`, `--auth-failure-burst`)",
        )
        .header(
            "Retry-After",
            utoipa::openapi::HeaderBuilder::new()
                .schema(
                    utoipa::openapi::ObjectBuilder::new()
                        .schema_type(utoipa::openapi::Type::Integer),
                )
                .description(Some("Seconds to wait before trying again"))
                .build(),
        )
        .content(
            "application/json",
            Content::new(Some(Ref::from_schema_name("ErrorBody"))),
        )
        .build()
        .into()
}

/// Every operation that reads a path, a query or a body answers 400 `invalid_request` when it
/// cannot be read (the extractors' error handlers in `routes`): say so where the operation's own
/// annotation does not.
struct UnreadableRequests;

const INVALID_REQUEST: &str =
    "`invalid_request`: the path, the query or the body could not be read (not a number, an \
     unknown field, not JSON...); `too_long`: a text or a list of the body over its limit \
     (its `maxLength` or `maxItems`), or a body over 256 KiB";

impl Modify for UnreadableRequests {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::{ContentBuilder, Ref, RefOr, ResponseBuilder};
        for item in openapi.paths.paths.values_mut() {
            let operations = [
                &mut item.get,
                &mut item.put,
                &mut item.post,
                &mut item.delete,
                &mut item.patch,
            ];
            for op in operations.into_iter().flatten() {
                let reads = op.parameters.as_ref().is_some_and(|p| !p.is_empty())
                    || op.request_body.is_some();
                if !reads {
                    continue;
                }
                match op.responses.responses.get_mut("400") {
                    Some(RefOr::T(response)) => {
                        if !response.description.contains("`invalid_request`") {
                            if !response.description.is_empty() {
                                response.description.push_str("; ");
                            }
                            response.description.push_str(INVALID_REQUEST);
                        }
                    }
                    Some(RefOr::Ref(_)) => {}
                    None => {
                        let response = ResponseBuilder::new()
                            .description(INVALID_REQUEST)
                            .content(
                                "application/json",
                                ContentBuilder::new()
                                    .schema(Some(Ref::from_schema_name("ErrorBody")))
                                    .build(),
                            )
                            .build();
                        op.responses
                            .responses
                            .insert("400".into(), RefOr::T(response));
                    }
                }
            }
        }
    }
}

/// The document as checked in at `schemas/openapi.json`.
pub fn openapi_json() -> String {
    let mut json = ApiDoc::openapi()
        .to_pretty_json()
        .expect("the OpenAPI document serializes");
    json.push('\n');
    json
}

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.app_data(
        web::JsonConfig::default()
            .limit(keno_api::limits::MAX_BODY_BYTES)
            .error_handler(|e, _| unreadable("the request body", e)),
    )
    .app_data(web::PathConfig::default().error_handler(|e, _| unreadable("the path", e)))
    .app_data(web::QueryConfig::default().error_handler(|e, _| unreadable("the query", e)))
    // Routes match in the order they are registered: these keep it. The sales come first:
    // each route before a request's own is tried in turn, a pattern by a regular expression,
    // and the eighteen game and draw routes ahead of the sale were a tenth of the HTTP
    // workers' time at 2,000 sales a second (issue 37). No other route's pattern matches a
    // ticket's or a voucher's path.
    .configure(ticket_and_voucher_routes)
    .configure(game_and_draw_routes)
    .configure(prize_and_claim_routes)
    .configure(catalogue_routes)
    .configure(crate::routes::staff::routes)
    .configure(crate::routes::displays::configure)
    .configure(shift_routes)
    .configure(crate::routes::audit::routes)
    .service(crate::routes::suspension::standing)
    .service(crate::routes::incidents::open)
    .service(crate::routes::integrity::integrity)
    .service(crate::routes::suspension::resume)
    .service(events::stream_events)
    .configure(crate::display::routes)
    .configure(crate::console::routes)
    .route(
        "/api/v1/openapi.json",
        web::get().to(|| async {
            HttpResponse::Ok()
                .content_type("application/json")
                .body(openapi_json())
        }),
    )
    .default_service(web::to(not_found));
}

/// The answer of every extractor that cannot read `what` (a path, a query or a body).
fn unreadable(what: &str, e: impl std::fmt::Display) -> actix_web::Error {
    Failure::refuse(Refusal::InvalidRequest, format!("{what} is not valid: {e}")).into()
}

fn game_and_draw_routes(cfg: &mut web::ServiceConfig) {
    // `current` before `{number}`.
    cfg.service(crate::routes::games::current)
        .service(crate::routes::liability::current)
        .service(crate::routes::games::close_current)
        .service(crate::routes::games::by_number)
        .service(crate::routes::ball_draw::balls::post_ball)
        .service(crate::routes::ball_draw::faults::report_fault)
        .service(crate::routes::ball_draw::corrections::request_correction)
        .service(crate::routes::ball_draw::corrections::approve)
        .service(crate::routes::ball_draw::corrections::reject)
        .service(crate::routes::ball_draw::record::draw_record)
        .service(crate::routes::ball_draw::devices::list)
        .service(crate::routes::ball_draw::devices::get_device)
        .service(crate::routes::ball_draw::devices::return_to_service)
        .service(crate::draw_monitor::endpoint::current)
        .service(crate::routes::invalidation::invalidate)
        .service(crate::routes::invalidation::preview)
        .service(crate::routes::game_summary::summary)
        .service(crate::routes::games::list);
}

fn ticket_and_voucher_routes(cfg: &mut web::ServiceConfig) {
    cfg.service(crate::routes::tickets::sale::quote)
        .service(crate::routes::tickets::sale::sell)
        .service(crate::auth::http::me)
        .service(crate::routes::tickets::view::check)
        .service(crate::routes::tickets::void::void)
        .service(crate::routes::tickets::view::get_ticket)
        .service(crate::routes::tickets::story::story)
        .service(crate::routes::tickets::recent::recent)
        .service(crate::routes::tickets::cancel::cancel)
        .service(crate::routes::tickets::pay::pay)
        .service(crate::routes::vouchers::issue::issue)
        .service(crate::routes::vouchers::cash::cash_out)
        .service(crate::routes::vouchers::lookup::get_voucher);
}

fn prize_and_claim_routes(cfg: &mut web::ServiceConfig) {
    cfg.service(crate::routes::jackpots::list)
        .service(crate::routes::bonus::create)
        .service(crate::routes::bonus::approve)
        .service(crate::routes::bonus::withdraw)
        .service(crate::routes::bonus::list)
        .service(crate::routes::bonus_fund::show)
        .service(crate::routes::claims::file)
        .service(crate::routes::claims::list)
        .service(crate::routes::claims::form_pdf)
        .service(crate::routes::claims::get_claim)
        .service(crate::routes::claims::approve)
        .service(crate::routes::claims::reject)
        .service(crate::routes::claims::pay)
        .service(crate::routes::claims::unclaimed::move_unclaimed)
        .service(crate::routes::claims::unclaimed::movements);
}

/// The prize schedules, the set-bet catalogue, the approvals of Special 3 and early closures
/// of Keno (rule 16.2).
fn catalogue_routes(cfg: &mut web::ServiceConfig) {
    cfg.service(crate::routes::schedules::list)
        .service(crate::routes::set_bets::list)
        .service(crate::routes::set_bets::create)
        .service(crate::routes::set_bets::get_set)
        .service(crate::routes::set_bets::retire)
        .service(crate::routes::special3::list)
        .service(crate::routes::special3::record)
        .service(crate::routes::special3::withdraw)
        .service(crate::routes::closures::schedule)
        .service(crate::routes::closures::current)
        .service(crate::routes::closures::withdraw);
}

/// Writers' shifts and their drawers (issue 17): `current` before `{id}`.
fn shift_routes(cfg: &mut web::ServiceConfig) {
    cfg.service(crate::routes::shifts::current)
        .service(crate::routes::shifts::close)
        .service(crate::routes::shifts::open)
        .service(crate::routes::shifts::list)
        .service(crate::routes::shifts::sign_off)
        .service(crate::routes::shifts::shift_report)
        .service(crate::routes::shifts::report_pdf)
        .service(crate::routes::shifts::get_shift);
}

async fn not_found(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    Err(Failure::refuse(
        Refusal::NotFound,
        format!("no such endpoint: {} {}", req.method(), req.path()),
    )
    .into())
}
