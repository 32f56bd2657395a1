//! The announcer of the jackpot pools, a background task of the app: it reads the state's flag
//! a sale or an invalidation sets (`jackpots_changed`).

use std::sync::{Arc, Mutex};

use actix_web::web;

use super::tally::Tally;
use crate::state::AppState;

/// Announces the pools at most once a second while jackpot tickets sell: recomputing them on
/// every sale would cost each sale a scan of the game's jackpot tickets. Between announcements
/// the task keeps the tickets it has read (`Tally`), so each reads only what changed.
pub async fn run_announcer(state: web::Data<AppState>) {
    let mut tick = tokio::time::interval(std::time::Duration::from_secs(1));
    let tally = Arc::new(Mutex::new(Tally::default()));
    loop {
        tick.tick().await;
        if state
            .jackpots_changed
            .swap(false, std::sync::atomic::Ordering::Relaxed)
        {
            let (s, tally) = (state.clone(), tally.clone());
            let announced = web::block(move || {
                // A look that panicked may have left the tally half caught up: it starts over.
                let mut tally = match tally.lock() {
                    Ok(tally) => tally,
                    Err(poisoned) => {
                        let mut held = poisoned.into_inner();
                        *held = Tally::default();
                        tally.clear_poison();
                        held
                    }
                };
                super::announce_with(&s.store.db, &s.events, |conn| tally.pools(&s.rules, conn))
            })
            .await;
            if let Err(e) = announced {
                tracing::warn!(error = %e, "jackpot announcer");
            }
        }
    }
}
