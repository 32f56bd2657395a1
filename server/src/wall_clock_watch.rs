//! The wall clock looked at every second, on every instance (an app task): game time is
//! compared with it (`time::look`); a step is logged and recorded in the trail (`clock_step`,
//! among the day's exceptions); game time takes the wall clock's reading again only when no
//! game is open.

use std::time::Duration;

use actix_web::web;
use keno_core::Observed;

use crate::audit::log::Entry;
use crate::error::DomainResult;
use crate::state::AppState;
use crate::time::{look, wall, ClockStep};

/// Looks at the wall clock every second for as long as the server runs, and reports a step.
pub async fn watch(state: web::Data<AppState>) {
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let open = crate::store::read(&state.store, |conn| {
            Ok(crate::games::open_game(conn)?.is_some())
        })
        .await;
        // Without the database game time keeps its course; the next look decides.
        let Ok(open) = open else { continue };
        let step = match look(open) {
            Observed::Stepped { by, apart } => (by, apart, false),
            Observed::Adopted { by } => (by, 0, true),
            Observed::Agrees | Observed::StillApart { .. } => continue,
        };
        if let Err(e) = report(&state, step).await {
            tracing::error!(error = %format!("{e:#}"), "a step of the wall clock not recorded");
        }
    }
}

/// A step logged and recorded in the trail.
async fn report(
    state: &web::Data<AppState>,
    (by, apart, adopted): (i64, i64, bool),
) -> DomainResult<()> {
    let step = ClockStep {
        instance: state.leadership.instance.clone(),
        by_micros: by,
        apart_micros: apart,
        adopted,
        wall: wall(),
    };
    if adopted {
        tracing::warn!(
            by_seconds = by / 1_000_000,
            "no game is open: game time takes the wall clock's reading"
        );
    } else {
        tracing::warn!(
            by_seconds = by / 1_000_000,
            "the wall clock stepped while a game is open: game time keeps its course"
        );
    }
    let instance = step.instance.clone();
    let payload =
        serde_json::to_value(&step).map_err(|e| crate::error::Failure::Internal(e.into()))?;
    crate::store::write(&state.store, None, move |conn| {
        crate::audit::log::append(
            conn,
            vec![Entry::new(
                crate::audit::kind::EntryKind::ClockStep,
                &instance,
                payload,
            )],
        )?;
        Ok(())
    })
    .await
}
