//! The leader's checkpoint task (an app task): once a second, while this instance leads,
//! `make::step` on the Keno Day now.

use std::time::Duration;

use actix_web::web;

use crate::state::AppState;

/// The leader's checkpoints, until the server stops.
pub async fn run(state: web::Data<AppState>) {
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        tick.tick().await;
        let Some(term) = state.leadership.term() else {
            continue;
        };
        let s = state.clone();
        let stepped = web::block(move || {
            let today = s
                .settings
                .hours
                .latest_started_day(crate::time::local_now())
                .format("%Y-%m-%d")
                .to_string();
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
