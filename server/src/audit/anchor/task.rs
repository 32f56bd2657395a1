//! The leader's checkpoint task (an app task): four times a checkpoint interval (at most once a
//! second), while this instance leads, `make::step` on the Keno Day now. A write is then signed
//! within an interval and a quarter of it.

use std::time::Duration;

use actix_web::web;

use crate::state::AppState;

/// The leader's checkpoints, until the server stops.
pub async fn run(state: web::Data<AppState>, gate: web::Data<crate::suspension::gate::Gate>) {
    let look = (state.anchor.interval / 4).min(Duration::from_secs(1));
    let mut tick = tokio::time::interval(look);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let Some(term) = state.leadership.term() else {
            continue;
        };
        // A restore waiting to be accepted: the next number is the file's already.
        if gate.restoring() {
            continue;
        }
        let s = state.clone();
        let stepped = web::block(move || {
            let today = today(&s);
            let instance = &s.leadership.instance;
            super::make::step((&s.anchor, &s.store.db), &today, instance, term)
        });
        match stepped.await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::warn!(error = %format!("{e:#}"), "audit checkpoint"),
            Err(e) => tracing::warn!(error = %e, "audit checkpoint"),
        }
    }
}

/// The Keno Day checkpoints are made on now: the latest started.
pub fn today(state: &AppState) -> String {
    state
        .settings
        .hours
        .latest_started_day(crate::time::local_now())
        .format("%Y-%m-%d")
        .to_string()
}
