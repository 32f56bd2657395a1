//! The event stream of `shared/API.md` (`GET /api/v1/events`, Server-Sent Events).
//!
//! Every event is published after the record it announces is committed, so a display never
//! shows a number the database does not hold (rule 10.1). With several server instances on one
//! PostgreSQL database, events go out through the database (`relay.rs`) and reach the clients
//! of every instance.

pub mod relay;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use actix_web::{get, web, HttpResponse};
use futures_util::stream;
use serde::Serialize;
use tokio::sync::broadcast;

use crate::state::AppState;

#[derive(Debug)]
pub struct Event {
    pub id: u64,
    pub kind: String,
    pub data: String,
}

impl Event {
    fn to_sse(&self) -> String {
        format!(
            "id: {}\nevent: {}\ndata: {}\n\n",
            self.id, self.kind, self.data
        )
    }
}

pub struct Events {
    sender: broadcast::Sender<Arc<Event>>,
    next_id: AtomicU64,
    /// Several instances: what this one publishes goes to the database, which sends it back
    /// to every instance, this one included.
    relay: Option<std::sync::mpsc::Sender<relay::Outgoing>>,
}

impl Default for Events {
    fn default() -> Self {
        Events {
            sender: broadcast::channel(4096).0,
            next_id: AtomicU64::new(1),
            relay: None,
        }
    }
}

impl Events {
    /// Announces a committed change: `game_opened`, `game_closed`, `number_drawn`,
    /// `game_drawn`, `game_settled` or `jackpot_changed`.
    pub fn publish(&self, kind: &'static str, data: &impl Serialize) {
        let data = serde_json::to_string(data).unwrap_or_else(|_| "null".into());
        match &self.relay {
            Some(relay) => {
                if let Err(unsent) = relay.send(relay::Outgoing::Event(kind.into(), data)) {
                    if let relay::Outgoing::Event(kind, data) = unsent.0 {
                        self.deliver(kind, data);
                    }
                }
            }
            None => self.deliver(kind.into(), data),
        }
    }

    /// Events relayed through the database (`relay::start`).
    pub fn relayed(relay: std::sync::mpsc::Sender<relay::Outgoing>) -> Events {
        Events {
            relay: Some(relay),
            ..Events::default()
        }
    }

    /// Tells the other instances to look again (`relay::Wake`); nothing with one instance.
    pub fn wake_others(&self, what: relay::Wake) {
        if let Some(relay) = &self.relay {
            let _ = relay.send(relay::Outgoing::Wake(what));
        }
    }

    /// Hands an event to this instance's clients.
    pub fn deliver(&self, kind: String, data: String) {
        tracing::debug!(%kind, %data, "event");
        let event = Event {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            kind,
            data,
        };
        // No subscriber is not an error: nobody is watching.
        let _ = self.sender.send(Arc::new(event));
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Event>> {
        self.sender.subscribe()
    }
}

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
