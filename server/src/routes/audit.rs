//! The auditors' tools over HTTP (`/api/v1/audit/...`): their handlers are
//! `audit/endpoints.rs`, registered here.

use actix_web::web;

use crate::audit::endpoints;

/// The auditors' tools over HTTP (`endpoints`).
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(endpoints::verification)
        .service(endpoints::day_exceptions)
        .service(endpoints::daily_report_pdf)
        .service(endpoints::export_kinds)
        .service(endpoints::export_file);
}
