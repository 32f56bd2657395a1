//! The event stream of `shared/API.md` (`GET /api/v1/events`, Server-Sent Events).
//!
//! Every event is published after the record it announces is committed, so a display never
//! shows a number the database does not hold (rule 10.1). With several server instances on one
//! PostgreSQL database, events go out through the database (`relay.rs`) and reach the clients
//! of every instance.

pub mod bus;
pub mod relay;

pub use bus::Events;

use std::time::Duration;

use actix_web::{get, web, HttpResponse};
use futures_util::stream;
use tokio::sync::broadcast;

use crate::state::AppState;

/// Events as they happen: `game_opened`, `game_closed`, `number_drawn`, `game_drawn`,
/// `game_settled`, `jackpot_changed`. A comment line every 15 seconds keeps proxies open.
#[utoipa::path(
    tag = "events",
    responses((status = 200, description = "An endless text/event-stream", content_type = "text/event-stream"))
)]
#[get("/api/v1/events")]
pub async fn stream_events(state: web::Data<AppState>) -> HttpResponse {
    let receiver = state.events.subscribe();
    let keepalive = tokio::time::interval(Duration::from_secs(15));
    let body = stream::unfold(
        (receiver, keepalive, true),
        |(mut receiver, mut keepalive, first)| async move {
            if first {
                let hello = web::Bytes::from_static(b": connected\n\n");
                return Some((
                    Ok::<_, actix_web::Error>(hello),
                    (receiver, keepalive, false),
                ));
            }
            let bytes = tokio::select! {
                received = receiver.recv() => match received {
                    Ok(event) => web::Bytes::from(event.to_sse()),
                    // A slow client missed events: tell it to read the state again.
                    Err(broadcast::error::RecvError::Lagged(n)) => {
                        web::Bytes::from(format!("event: resync\ndata: {{\"missed\":{n}}}\n\n"))
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
                _ = keepalive.tick() => web::Bytes::from_static(b": keepalive\n\n"),
            };
            Some((Ok(bytes), (receiver, keepalive, false)))
        },
    );
    HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(("Cache-Control", "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(body)
}
