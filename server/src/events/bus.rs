//! The broadcast of committed changes to this instance's clients, and what this instance sends
//! to the others through the database. It knows nothing of requests or of the shared state, so
//! everything may hold it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use keno_api::events::Event as Published;
use keno_api::EventKind;
use tokio::sync::broadcast;

/// An event as every stream sends it: written once, shared by all (2,000 displays would
/// otherwise each format their own copy of every event).
#[derive(Debug)]
pub struct Event {
    /// `id: ...\nevent: ...\ndata: ...\n\n`
    pub sse: actix_web::web::Bytes,
}

pub struct Events {
    sender: broadcast::Sender<Arc<Event>>,
    next_id: AtomicU64,
    /// Several instances: what this one publishes goes to the database, which sends it back
    /// to every instance, this one included.
    relay: Option<std::sync::mpsc::Sender<Outgoing>>,
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
    pub fn publish(&self, event: &Published) {
        let (kind, data) = (event.kind(), event.data());
        match &self.relay {
            Some(relay) => {
                if let Err(unsent) = relay.send(Outgoing::Event(kind, data)) {
                    if let Outgoing::Event(kind, data) = unsent.0 {
                        self.deliver(kind, data);
                    }
                }
            }
            None => self.deliver(kind, data),
        }
    }

    /// Events relayed through the database (`relay::start`).
    pub fn relayed(relay: std::sync::mpsc::Sender<Outgoing>) -> Events {
        Events {
            relay: Some(relay),
            ..Events::default()
        }
    }

    /// Tells the other instances to look again (`Wake`); nothing with one instance.
    pub fn wake_others(&self, what: Wake) {
        if let Some(relay) = &self.relay {
            let _ = relay.send(Outgoing::Wake(what));
        }
    }

    /// Drops a principal's cached tokens at every other instance (after the change commits).
    pub fn forget_elsewhere(&self, principal_id: &str) {
        if let Some(relay) = &self.relay {
            let _ = relay.send(Outgoing::Forget(principal_id.to_string()));
        }
    }

    /// Hands an event to this instance's clients.
    pub fn deliver(&self, kind: EventKind, data: String) {
        tracing::debug!(%kind, %data, "event");
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let sse = format!("id: {id}\nevent: {kind}\ndata: {data}\n\n");
        let event = Event { sse: sse.into() };
        // No subscriber is not an error: nobody is watching.
        let _ = self.sender.send(Arc::new(event));
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Event>> {
        self.sender.subscribe()
    }
}

/// What the clock and drawer of the leader are asked to look at again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wake {
    Drawer,
    Clock,
}

impl Wake {
    pub fn as_str(self) -> &'static str {
        match self {
            Wake::Drawer => "drawer",
            Wake::Clock => "clock",
        }
    }
}

pub enum Outgoing {
    Event(EventKind, String),
    Wake(Wake),
    /// A principal's cached tokens to drop at once (disabled, signed on elsewhere, secret
    /// reset): the other instances' caches would otherwise keep them for seconds.
    Forget(String),
}
