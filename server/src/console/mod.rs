//! The back-office console (issue 18) at `/console`: for supervisors, inspectors and auditors,
//! signed on with their staff credentials. Plain HTML, CSS and JavaScript compiled into the
//! binary (`crate::assets`), as the player displays are: no build step, no CDN. The pages hold no rules and no
//! data of their own: every view reads the public API and every action is a call to it, so a
//! page shows only what its person may see and the server refuses what they may not do.

use actix_web::{web, HttpResponse};

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

/// One of the console's files (`crate::assets::CONSOLE`), or 404.
fn asset(name: &str) -> HttpResponse {
    match crate::assets::find(crate::assets::CONSOLE, name) {
        Some(a) => page(a.content_type, a.body),
        None => HttpResponse::NotFound().finish(),
    }
}

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route(
        "/console",
        web::get().to(|| async { asset("console.html") }),
    )
    .route(
        "/console/{asset}",
        web::get().to(|name: web::Path<String>| async move { asset(&name) }),
    );
}
