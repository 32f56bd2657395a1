//! The player displays, served by the server itself with no build step: the venue board at `/`
//! (and `/display`) and the ticket check at `/check`. Plain HTML, CSS and JavaScript compiled
//! into the binary (`crate::assets`); everything they show comes from the public API and its event stream.

use actix_web::{web, HttpResponse};

fn page(content_type: &'static str, body: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(content_type)
        // A screen left running for days picks up a new server's page at its next load.
        .insert_header(("Cache-Control", "no-cache"))
        .body(body)
}

/// One of the displays' files (`crate::assets::DISPLAY`).
fn asset(name: &str) -> HttpResponse {
    match crate::assets::find(crate::assets::DISPLAY, name) {
        Some(a) => page(a.content_type, a.body),
        None => HttpResponse::NotFound().finish(),
    }
}

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(|| async { asset("board.html") }))
        .route("/display", web::get().to(|| async { asset("board.html") }))
        .route("/check", web::get().to(|| async { asset("check.html") }))
        .route(
            "/display/board.js",
            web::get().to(|| async { asset("board.js") }),
        )
        .route(
            "/display/check.js",
            web::get().to(|| async { asset("check.js") }),
        )
        .route(
            "/display/display.css",
            web::get().to(|| async { asset("display.css") }),
        );
}
