//! The event stream of `shared/API.md` (`GET /api/v1/events`, Server-Sent Events).
//!
//! Every event is published after the record it announces is committed, so a display never
//! shows a number the database does not hold (rule 10.1). With several server instances on one
//! PostgreSQL database, events go out through the database (`relay.rs`) and reach the clients
//! of every instance.

pub mod bus;
pub mod relay;
pub mod slots;

use std::time::Duration;

use actix_web::{get, web, HttpRequest, HttpResponse};
use futures_util::stream;
use tokio::sync::broadcast;

use crate::error::{ApiResult, Failure};
use crate::state::AppState;
use keno_api::Refusal;

/// A display's credential, for a browser's EventSource, which cannot set a header.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
pub struct StreamQuery {
    /// A registered display's credential (`keno-server display add`): its stream is outside
    /// the caps that anonymous streams share, so it is never refused for them. The same may
    /// be sent as `Authorization: Bearer kd_...`. Without either the stream is anonymous.
    pub display: Option<String>,
}

/// Events as they happen: `game_opened`, `game_closed`, `number_drawn`, `game_drawn`,
/// `game_settled`, `jackpot_changed`. A comment line every 5 seconds keeps proxies open.
#[utoipa::path(
    tag = "events",
    params(StreamQuery),
    security((), ("display" = [])),
    responses(
        (status = 200, description = "An endless text/event-stream", content_type = "text/event-stream"),
        (status = 401, body = crate::error::ErrorBody, description = "`unauthorized`: a display credential that matches no registered, enabled display (counted against the address as a bad bearer token is)"),
        (status = 503, body = crate::error::ErrorBody, description = "`too_many_streams`: the anonymous streams are at their cap, in all (`serve --event-streams`, less the registered displays' streams) or from this address (`--event-streams-per-address`); try again after `Retry-After` seconds. Never for a registered display")
    )
)]
#[get("/api/v1/events")]
pub async fn stream_events(
    state: web::Data<AppState>,
    request: HttpRequest,
    query: web::Query<StreamQuery>,
) -> ApiResult<HttpResponse> {
    let slot = match crate::routes::displays::presented(&request, query.into_inner().display) {
        Some(credential) => {
            let display = crate::routes::displays::admit(&state, &request, credential).await?;
            state.streams.take_display(&display.key())
        }
        None => anonymous_slot(&state, &request)?,
    };
    let receiver = state.events.subscribe();
    // Writing it also finds a display gone within two of them, and gives its place back.
    let keepalive = tokio::time::interval(Duration::from_secs(5));
    // The slot lives in the stream's state: it is given back when the stream is dropped.
    let body = stream::unfold(
        (receiver, keepalive, true, slot),
        |(mut receiver, mut keepalive, first, mut slot)| async move {
            if first {
                let hello = web::Bytes::from_static(b": connected\n\n");
                return Some((
                    Ok::<_, actix_web::Error>(hello),
                    (receiver, keepalive, false, slot),
                ));
            }
            let bytes = tokio::select! {
                received = receiver.recv() => match received {
                    Ok(event) => with_those_waiting(event.sse.clone(), &mut receiver),
                    Err(e) => match missed(e) {
                        Some(resync) => resync,
                        None => return None,
                    },
                },
                _ = keepalive.tick() => web::Bytes::from_static(b": keepalive\n\n"),
                // A newer stream of the same display holds its place now, or the server stops.
                _ = slot.ended() => return None,
            };
            Some((Ok(bytes), (receiver, keepalive, false, slot)))
        },
    );
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(("Cache-Control", "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(body))
}

/// An anonymous stream's place, within the caps, from the client's address (behind a trusted
/// proxy, the one it names, as for the other per-address limits).
fn anonymous_slot(state: &AppState, request: &HttpRequest) -> Result<slots::Slot, Failure> {
    let address = crate::rate_limit::client_key(request, state.trust_forwarded_for);
    state.streams.take(address).map_err(|full| {
        let whose = match full {
            slots::Full::Address => "from this address",
            slots::Full::Total => "on this server",
        };
        Failure::too_many(
            Refusal::TooManyStreams,
            format!("too many event streams are open {whose}: try again later"),
            RETRY_STREAM_SECONDS,
        )
    })
}

/// `first` and the events already waiting behind it, in one write: the 20 numbers of a draw
/// revealed at once reach each display as one write rather than 20.
fn with_those_waiting(
    first: web::Bytes,
    receiver: &mut broadcast::Receiver<std::sync::Arc<bus::Event>>,
) -> web::Bytes {
    let mut more = Vec::new();
    while more.len() < 64 {
        match receiver.try_recv() {
            Ok(event) => more.push(event),
            // Lagged or closed: the next `recv` says so.
            Err(_) => break,
        }
    }
    if more.is_empty() {
        return first;
    }
    let mut all = Vec::with_capacity(first.len() + more.iter().map(|e| e.sse.len()).sum::<usize>());
    all.extend_from_slice(&first);
    for event in more {
        all.extend_from_slice(&event.sse);
    }
    all.into()
}

/// A stream's receive error: a slow display missed events (told to read the state again), or
/// the bus is gone (`None`: the stream ends).
fn missed(e: broadcast::error::RecvError) -> Option<web::Bytes> {
    match e {
        broadcast::error::RecvError::Lagged(n) => Some(web::Bytes::from(format!(
            "event: resync\ndata: {{\"missed\":{n}}}\n\n"
        ))),
        broadcast::error::RecvError::Closed => None,
    }
}

/// How long a display refused for the caps waits before it asks again.
const RETRY_STREAM_SECONDS: u64 = 30;
