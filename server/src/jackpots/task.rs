//! The announcer of the jackpot pools, a background task of the app: it reads the state's flag
//! a sale or an invalidation sets (`jackpots_changed`).

use actix_web::web;

use crate::state::AppState;

/// Announces the pools at most once a second while jackpot tickets sell: recomputing them on
/// every sale would cost each sale a scan of the game's jackpot tickets.
pub async fn run_announcer(state: web::Data<AppState>) {
    let mut tick = tokio::time::interval(std::time::Duration::from_secs(1));
    loop {
        tick.tick().await;
        if state
            .jackpots_changed
            .swap(false, std::sync::atomic::Ordering::Relaxed)
        {
            let s = state.clone();
            if let Err(e) =
                web::block(move || super::announce(&s.store.db, &s.rules, &s.events)).await
            {
                tracing::warn!(error = %e, "jackpot announcer");
            }
        }
    }
}
