//! The gate kept up with the stored suspensions (an app task): read every second, so one that
//! another instance began or resumed holds here too within a second.

use std::sync::Arc;
use std::time::Duration;

use super::gate::Gate;
use crate::store::Store;

pub async fn keep_up(store: Store, gate: Arc<Gate>) {
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        match crate::store::read(&store, |conn| Ok(super::closed(conn)?)).await {
            Ok(closed) => {
                if gate.set(closed) {
                    tracing::info!("suspension changed (read from the database)");
                }
            }
            Err(e) => tracing::warn!(error = %e, "suspension not read"),
        }
    }
}
