//! The player displays, served by the server itself with no build step: the venue board at `/`
//! (and `/display`) and the ticket check at `/check`. Plain HTML, CSS and JavaScript compiled
//! into the binary; everything they show comes from the public API and its event stream.

use actix_web::{web, HttpResponse};

const BOARD_HTML: &str = include_str!("board.html");
const BOARD_JS: &str = include_str!("board.js");
const CHECK_HTML: &str = include_str!("check.html");
const CHECK_JS: &str = include_str!("check.js");
const CSS: &str = include_str!("display.css");

fn page(content_type: &'static str, body: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(content_type)
        // A screen left running for days picks up a new server's page at its next load.
        .insert_header(("Cache-Control", "no-cache"))
        .body(body)
}

pub fn routes(cfg: &mut web::ServiceConfig) {
    let html = "text/html; charset=utf-8";
    cfg.route(
        "/",
        web::get().to(move || async move { page(html, BOARD_HTML) }),
    )
    .route(
        "/display",
        web::get().to(move || async move { page(html, BOARD_HTML) }),
    )
    .route(
        "/check",
        web::get().to(move || async move { page(html, CHECK_HTML) }),
    )
    .route(
        "/display/board.js",
        web::get().to(|| async { page("text/javascript; charset=utf-8", BOARD_JS) }),
    )
    .route(
        "/display/check.js",
        web::get().to(|| async { page("text/javascript; charset=utf-8", CHECK_JS) }),
    )
    .route(
        "/display/display.css",
        web::get().to(|| async { page("text/css; charset=utf-8", CSS) }),
    );
}
