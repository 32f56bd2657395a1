//! Events across server instances, through PostgreSQL's LISTEN/NOTIFY.
//!
//! An instance sends what it publishes with `pg_notify` from a thread of its own (in the order
//! published) and listens on another session; what it hears, its own events included, goes to
//! its clients. NOTIFY is delivered to every listening session of the database, in commit order.
//! The same channel carries wake-ups: a supervisor's close or a device's ball at one instance
//! wakes the leader's drawer at another.

use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::Duration;

use actix_web::web;
use diesel::prelude::*;
use diesel::sql_types::Text;

use keno_api::events::Event;
use keno_api::EventKind;

use crate::state::AppState;

const EVENTS: &str = "keno_events";
const WAKE: &str = "keno_wake";
/// A wake-up that drops a principal's cached tokens: `forget:<principal id>`.
const FORGET: &str = "forget:";
/// PostgreSQL refuses a payload of 8000 bytes or more.
const MAX_PAYLOAD: usize = 7900;

pub use super::bus::Outgoing;

/// Starts the sender and the listener of this instance.
pub fn start(url: String, outgoing: mpsc::Receiver<Outgoing>, state: web::Data<AppState>) {
    let name = state.leadership.instance.clone();
    let (send_url, send_state) = (url.clone(), state.clone());
    std::thread::Builder::new()
        .name("event-sender".into())
        .spawn(move || send(&send_url, &format!("{name}-send"), outgoing, &send_state))
        .expect("a thread for the event sender");
    std::thread::Builder::new()
        .name("event-listener".into())
        .spawn(move || listen(&url, &state))
        .expect("a thread for the event listener");
}

fn send(url: &str, name: &str, outgoing: mpsc::Receiver<Outgoing>, state: &AppState) {
    let mut conn: Option<diesel::PgConnection> = None;
    for message in outgoing {
        let (channel, payload) = match &message {
            Outgoing::Event(kind, data) if kind.as_str().len() + data.len() + 1 > MAX_PAYLOAD => {
                // Too large for NOTIFY: this instance's clients get it, the others re-read.
                tracing::warn!(%kind, bytes = data.len(), "event too large to relay");
                state.events.deliver(*kind, data.clone());
                let resync = serde_json::json!({ "reason": "event too large", "kind": kind });
                (EVENTS, format!("resync\n{resync}"))
            }
            Outgoing::Event(kind, data) => (EVENTS, format!("{kind}\n{data}")),
            Outgoing::Wake(what) => (WAKE, what.as_str().to_string()),
            Outgoing::Forget(id) => (WAKE, format!("{FORGET}{id}")),
        };
        let mut sent = false;
        for attempt in 0..3 {
            if conn.is_none() {
                conn = crate::db::connect_pg(url, name)
                    .map_err(|e| tracing::warn!(error = %format!("{e:#}"), "event sender"))
                    .ok();
            }
            if let Some(c) = conn.as_mut() {
                match diesel::sql_query("SELECT pg_notify($1, $2)")
                    .bind::<Text, _>(channel)
                    .bind::<Text, _>(&payload)
                    .execute(c)
                {
                    Ok(_) => {
                        sent = true;
                        break;
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, attempt, "event sender");
                        conn = None;
                    }
                }
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        if !sent {
            // The database is out of reach: at least this instance's clients hear it.
            tracing::error!("an event could not be relayed to the other instances");
            if let Outgoing::Event(kind, data) = message {
                state.events.deliver(kind, data);
            }
        }
    }
}

fn listen(url: &str, state: &web::Data<AppState>) {
    let name = format!("{}-listen", state.leadership.instance);
    let mut first = true;
    loop {
        let mut conn = match crate::db::connect_pg(url, &name).and_then(|mut c| {
            diesel::sql_query(format!("LISTEN {EVENTS}")).execute(&mut c)?;
            diesel::sql_query(format!("LISTEN {WAKE}")).execute(&mut c)?;
            Ok(c)
        }) {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(error = %format!("{e:#}"), "event listener");
                std::thread::sleep(Duration::from_secs(1));
                continue;
            }
        };
        // A person disabled at another instance while this one was not listening (starting,
        // or reconnecting) was never heard of here: every cached token is looked up afresh.
        state.principals.forget_all();
        if !first {
            // Events may have gone by while this instance was not listening.
            let resync = Event::Resync(keno_api::events::Resync {
                reason: "event relay reconnected".into(),
            });
            state.events.deliver(resync.kind(), resync.data());
        }
        first = false;
        'polling: loop {
            // Each call reads what has arrived without waiting (PQconsumeInput).
            for received in conn.notifications_iter() {
                match received {
                    Ok(n) if n.channel == WAKE => match n.payload.as_str() {
                        "drawer" => state.drawer_wake.notify_one(),
                        "clock" => state.clock_wake.notify_one(),
                        other => {
                            if let Some(id) = other.strip_prefix(FORGET) {
                                state.principals.forget_principal(id);
                            }
                        }
                    },
                    Ok(n) => {
                        let Some((kind, data)) = n.payload.split_once('\n') else {
                            continue;
                        };
                        // An event this build does not know is not this instance's to relay.
                        let Some(kind) = EventKind::parse(kind) else {
                            tracing::warn!(%kind, "unknown event relayed");
                            continue;
                        };
                        if kind == EventKind::GameClosed {
                            note_closed(state, data);
                        }
                        state.events.deliver(kind, data.to_string());
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "event listener: reconnecting");
                        break 'polling;
                    }
                }
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// A close announced by any instance need not be announced again by the leader (`clock.rs`),
/// and the leader draws it now.
fn note_closed(state: &AppState, data: &str) {
    let game = serde_json::from_str::<serde_json::Value>(data)
        .ok()
        .and_then(|v| v.get("game").and_then(|g| g.as_i64()));
    if let Some(game) = game {
        state.announced_close.fetch_max(game, Ordering::Relaxed);
    }
    state.drawer_wake.notify_one();
}
