//! The auditors' tools over HTTP (issue 18), so an auditor needs no shell on the database host:
//! the same work as `keno-server audit ...`, by the same functions, read-only. Each request
//! reads on a connection of the pool, off the async runtime, in one read-only snapshot
//! (`source::snapshot`), so it never holds the sale path; Keno Days are counted from this
//! server's own `--keno-day-start`.

use crate::audit::verify::Verifying;

use actix_web::http::header::ContentDisposition;
use actix_web::{get, web, HttpResponse};
use chrono::NaiveDate;
use keno_api::audit::{DayExceptions, ExportFormat, ExportKind, Verification};
use keno_api::Refusal;
use serde::Deserialize;
use utoipa::IntoParams;

use super::export::{self, Sink};
use super::report::Daily;
use super::source::{self, snapshot, Days, Range, Span, SpanError};
use super::{download, exceptions, verify};
use crate::auth::http::Require;
use crate::auth::Role;
use crate::db::{now_micros, rfc3339};
use crate::error::{ApiResult, ErrorBody, Failure};
use crate::state::AppState;

impl From<SpanError> for Failure {
    fn from(e: SpanError) -> Self {
        let refusal = match e {
            SpanError::NotADay(_) => Refusal::InvalidKenoDay,
            SpanError::NoStart | SpanError::DaysAndGames | SpanError::Backwards => {
                Refusal::InvalidRange
            }
        };
        Failure::refuse(refusal, e.to_string())
    }
}

/// Keno Days as this server counts them.
fn days(state: &AppState) -> Days {
    Days::starting(state.settings.hours.start)
}

/// Verifies the record against its audit trail, as `keno-server audit verify` does: the
/// chain and its signed checkpoints (with this server's public key), every record against its
/// entry, every settled game settled again.
#[utoipa::path(
    tag = "audit",
    security(("bearer" = [])),
    responses(
        (status = 200, body = Verification),
        (status = 409, body = ErrorBody, description = "`verify_running`: a verification is already running on this server"),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)
    )
)]
#[get(
    "/api/v1/audit/verify",
    wrap = "Require(&[Role::Auditor, Role::Inspector])"
)]
pub async fn verification(
    state: web::Data<AppState>,
    verifying: web::Data<Verifying>,
) -> ApiResult<web::Json<Verification>> {
    let running = Verifying::start(verifying.into_inner())?;
    let (report, checked_at) = crate::state::read(&state, move |state, conn| {
        // Held until the verification ends, even when the client has gone meanwhile.
        let _running = running;
        let checked_at = now_micros();
        // The checkpoints against this server's own public key; the checkpoint file is the
        // auditor's to bring to the command (`audit verify --checkpoints`).
        let proof = verify::Proof {
            keys: vec![state.anchor.key.public()],
            file: None,
            read_at: checked_at,
        };
        let report = snapshot(conn, |conn| verify::check(conn, &proof, None, false))?;
        state.store.faults.pause("audit_verify");
        Ok((report, checked_at))
    })
    .await?;
    Ok(web::Json(Verification {
        verified: report.differences.is_empty(),
        differences: report.differences,
        checked: report.checked,
        checked_at: rfc3339(checked_at),
    }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct DayQuery {
    /// The Keno Day (YYYY-MM-DD).
    #[param(required = true)]
    pub day: Option<String>,
}

impl DayQuery {
    fn day(&self) -> Result<NaiveDate, Failure> {
        let text = self.day.as_deref().ok_or_else(|| {
            Failure::refuse(
                Refusal::InvalidKenoDay,
                "give the Keno Day: ?day=YYYY-MM-DD",
            )
        })?;
        Ok(source::parse_day(text)?)
    }
}

/// A Keno Day's exceptions to review, as `keno-server audit exceptions --json` prints them.
#[utoipa::path(
    tag = "audit",
    security(("bearer" = [])),
    params(DayQuery),
    responses(
        (status = 200, body = DayExceptions),
        (status = 400, body = ErrorBody, description = "`invalid_keno_day`: no day, or not YYYY-MM-DD"),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)
    )
)]
#[get(
    "/api/v1/audit/exceptions",
    wrap = "Require(&[Role::Auditor, Role::Inspector, Role::Supervisor])"
)]
pub async fn day_exceptions(
    state: web::Data<AppState>,
    query: web::Query<DayQuery>,
) -> ApiResult<web::Json<DayExceptions>> {
    let day = query.day()?;
    let review = crate::state::read(&state, move |state, conn| {
        Ok(snapshot(conn, |conn| {
            exceptions::review(&days(state), conn, day)
        })?)
    })
    .await?;
    Ok(web::Json(review.wire()))
}

/// A Keno Day's daily report as a PDF (A4), as `keno-server audit report` writes it.
#[utoipa::path(
    tag = "audit",
    security(("bearer" = [])),
    params(DayQuery),
    responses(
        (status = 200, content_type = "application/pdf", description = "The report, as the attachment keno-report-DAY.pdf"),
        (status = 400, body = ErrorBody, description = "`invalid_keno_day`: no day, or not YYYY-MM-DD"),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)
    )
)]
#[get(
    "/api/v1/audit/report.pdf",
    wrap = "Require(&[Role::Auditor, Role::Inspector, Role::Supervisor])"
)]
pub async fn daily_report_pdf(
    state: web::Data<AppState>,
    query: web::Query<DayQuery>,
) -> ApiResult<HttpResponse> {
    let day = query.day()?;
    let pdf = crate::state::read(&state, move |state, conn| {
        let daily = snapshot(conn, |conn| Daily::read(&days(state), conn, day))?;
        Ok(daily.pdf(state.store.db.backend().name(), now_micros()))
    })
    .await?;
    Ok(HttpResponse::Ok()
        .content_type("application/pdf")
        .insert_header(ContentDisposition::attachment(format!(
            "keno-report-{}.pdf",
            source::day_text(day)
        )))
        .body(pdf))
}

/// The kinds of export, by name: each is `GET /api/v1/audit/exports/{kind}`.
#[utoipa::path(
    tag = "audit",
    security(("bearer" = [])),
    responses(
        (status = 200, body = Vec<ExportKind>),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)
    )
)]
#[get(
    "/api/v1/audit/exports",
    wrap = "Require(&[Role::Auditor, Role::Inspector])"
)]
pub async fn export_kinds() -> web::Json<&'static [ExportKind]> {
    web::Json(ExportKind::ALL)
}

/// What an export covers: Keno Days `from` to `to`, or games `from_game` to `to_game`.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ExportQuery {
    /// The first Keno Day (YYYY-MM-DD).
    pub from: Option<String>,
    /// The last Keno Day (default: the first).
    pub to: Option<String>,
    /// The first game number (instead of Keno Days).
    pub from_game: Option<i64>,
    /// The last game number (default: the first).
    pub to_game: Option<i64>,
    /// csv (the default) or json.
    #[param(inline)]
    pub format: Option<ExportFormat>,
}

/// One kind of export of a range of Keno Days or games, as the file `keno-server audit export`
/// writes, sent as it is read.
#[utoipa::path(
    tag = "audit",
    security(("bearer" = [])),
    params(
        ("kind" = ExportKind, Path, description = "One of `GET /api/v1/audit/exports`"),
        ExportQuery
    ),
    responses(
        (status = 200, description = "The file, as an attachment named keno-KIND-RANGE.csv (or .json)", content(
            (String = "text/csv"),
            (Vec<Object> = "application/json")
        )),
        (status = 400, body = ErrorBody, description = "`invalid_keno_day`: a day not YYYY-MM-DD; `invalid_range`: neither days nor games, both, or a range that ends before it starts"),
        (status = 404, body = ErrorBody, description = "`not_found`: no such kind of export"),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)
    )
)]
#[get(
    "/api/v1/audit/exports/{kind}",
    wrap = "Require(&[Role::Auditor, Role::Inspector])"
)]
pub async fn export_file(
    state: web::Data<AppState>,
    kind: web::Path<String>,
    query: web::Query<ExportQuery>,
) -> ApiResult<HttpResponse> {
    let kind = ExportKind::parse(&kind).ok_or_else(|| {
        let kinds: Vec<&str> = ExportKind::ALL.iter().map(|k| k.as_str()).collect();
        Failure::refuse(
            Refusal::NotFound,
            format!("no export {kind:?}: one of {}", kinds.join(", ")),
        )
    })?;
    let q = query.into_inner();
    let span = Span::asked(q.from.as_deref(), q.to.as_deref(), q.from_game, q.to_game)
        .map_err(Failure::from)?;
    let format = q.format.unwrap_or_default();
    let state = state.into_inner();
    let body = download::stream(move |started, out| {
        let days = days(&state);
        snapshot(&mut *state.store.db.conn()?, |conn| {
            let range = Range::resolve(&days, conn, span)?;
            started.now();
            export::write(kind, conn, &days, &range, Sink { out, format })
        })?;
        Ok(())
    })
    .await?;
    let name = format!(
        "keno-{}-{}.{}",
        kind.as_str(),
        span.file_part(),
        format.extension()
    );
    Ok(HttpResponse::Ok()
        .content_type(format.content_type())
        .insert_header(ContentDisposition::attachment(name))
        .streaming(body))
}
