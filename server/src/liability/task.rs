//! The task of the app that keeps the open game's liability book caught up
//! (`--liability-interval`).

use std::sync::Arc;
use std::time::Duration;

use super::Books;
use crate::rule_sets::RuleSets;
use crate::store::Store;

/// Keeps the open game's book caught up every `--liability-interval` (a second by default), so
/// the liability is current before anyone asks and neither a page nor a sale waits for a
/// large catch-up. 0: the book is caught up only when asked.
pub async fn keep_up(
    store: Store,
    rule_sets: RuleSets,
    every: Option<Duration>,
    books: Arc<Books>,
) {
    let Some(every) = every else {
        return;
    };
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let (books, rule_sets) = (books.clone(), rule_sets.clone());
        let caught = crate::store::read(&store, move |conn| books.catch_up(&rule_sets, conn)).await;
        if let Err(e) = caught {
            tracing::warn!("the liability book could not catch up: {e}");
        }
    }
}
