//! The announcer of the jackpot pools, a background task of the app: it reads the state's flag
//! a sale or an invalidation sets (`jackpots_changed`).

use actix_web::web;

use super::tally::Tally;
use crate::state::AppState;

/// Announces the pools at most once a second while jackpot tickets sell: recomputing them on
/// every sale would cost each sale a scan of the game's jackpot tickets. Between announcements
/// the task keeps the tickets it has read (`Tally`), so each reads only what changed.
pub async fn run_announcer(state: web::Data<AppState>) {
    let mut tick = tokio::time::interval(std::time::Duration::from_secs(1));
    let mut tally = Tally::default();
    loop {
        tick.tick().await;
        if state
            .jackpots_changed
            .swap(false, std::sync::atomic::Ordering::Relaxed)
        {
            let (s, mut looking) = (state.clone(), std::mem::take(&mut tally));
            let announced = web::block(move || {
                super::announce_with(&s.store.db, &s.events, |conn| looking.pools(&s.rules, conn));
                looking
            })
            .await;
            // A look that failed on its way (a panic) may have left the tally half caught up:
            // it starts over from the whole read.
            match announced {
                Ok(looked) => tally = looked,
                Err(e) => tracing::warn!(error = %e, "jackpot announcer"),
            }
        }
    }
}
