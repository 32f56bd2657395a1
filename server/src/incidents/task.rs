//! Every two seconds, the episodes begun and ended are written to the trail. While the
//! database is out of reach they wait here (bounded by the kinds of failure), and the write
//! that succeeds once it is back records them.

use std::time::Duration;

use actix_web::web;

use super::{Fault, Incidents};
use crate::state::AppState;

pub async fn run(state: web::Data<AppState>, incidents: web::Data<Incidents>) {
    let mut tick = tokio::time::interval(Duration::from_secs(2));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let to = incidents.to_record(crate::db::now_micros());
        if to.begun.is_empty() && to.ended.is_empty() {
            continue;
        }
        let instance = state.leadership.instance.clone();
        let written = crate::store::write(&state.store, None, move |conn| {
            super::record::record(conn, &instance, &to)?;
            Ok(to)
        })
        .await;
        match written {
            Ok(to) => incidents.recorded(&to),
            // Still failing: the episode goes on, and is recorded once a write succeeds.
            Err(e) => incidents.failed(Fault::Database, &e.said(), crate::db::now_micros()),
        }
    }
}
