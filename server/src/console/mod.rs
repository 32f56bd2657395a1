//! The back-office console (issue 18) at `/console`: for supervisors, inspectors and auditors,
//! signed on with their staff credentials. Plain HTML, CSS and JavaScript compiled into the
//! binary, as the player displays are: no build step, no CDN. The pages hold no rules and no
//! data of their own: every view reads the public API and every action is a call to it, so a
//! page shows only what its person may see and the server refuses what they may not do.

use actix_web::{web, HttpResponse};

const HTML: &str = include_str!("console.html");

/// The assets under `/console/`: the core (sign-on, calls, live refresh, the page frame) and
/// one script per group of pages.
const ASSETS: &[(&str, &str, &str)] = &[
    (
        "console.css",
        "text/css; charset=utf-8",
        include_str!("console.css"),
    ),
    ("console.js", JS, include_str!("console.js")),
    ("room.js", JS, include_str!("room.js")),
    ("office.js", JS, include_str!("office.js")),
    ("records.js", JS, include_str!("records.js")),
];
const JS: &str = "text/javascript; charset=utf-8";

fn page(content_type: &'static str, body: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(content_type)
        // A console left open picks up a new server's pages at its next load.
        .insert_header(("Cache-Control", "no-cache"))
        // The console is only ever its own frame: no other site can wrap it to trick a click.
        .insert_header(("X-Frame-Options", "DENY"))
        .insert_header((
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' blob: data:; frame-ancestors 'none'",
        ))
        .body(body)
}

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route(
        "/console",
        web::get().to(|| async { page("text/html; charset=utf-8", HTML) }),
    )
    .route(
        "/console/{asset}",
        web::get().to(|asset: web::Path<String>| async move {
            match ASSETS.iter().find(|(name, _, _)| *name == asset.as_str()) {
                Some((_, content_type, body)) => page(content_type, body),
                None => HttpResponse::NotFound().finish(),
            }
        }),
    );
}
