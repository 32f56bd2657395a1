//! The gate kept up with the stored suspensions (an app task): read every second, so one that
//! another instance began or resumed holds here too within a second (that instance told the
//! displays). While nothing is suspended it also looks for a game closed and left undrawn past
//! `--undrawn-limit`: the draw mechanism has failed, and the system is suspended (AGCO 21.1.9).

use std::time::{Duration, Instant};

use actix_web::web;
use keno_api::events::{Event, SuspensionChanged};

use super::gate::Gate;
use crate::state::AppState;

pub async fn keep_up(state: web::Data<AppState>, gate: web::Data<Gate>, undrawn_limit: Duration) {
    let started = Instant::now();
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        // A game closed before a restart is the drawer's to draw first: looked for once this
        // process has run the limit itself.
        let look = gate.closed().is_none() && started.elapsed() >= undrawn_limit;
        let before = crate::db::now_micros() - undrawn_limit.as_micros() as i64;
        let read = crate::store::read(&state.store, move |conn| {
            let undrawn = match look {
                true => super::undrawn_since(conn, before)?,
                false => None,
            };
            Ok((undrawn, super::closed(conn)?))
        });
        match read.await {
            Ok((Some(game), _)) => suspend(&state, &gate, game, undrawn_limit).await,
            Ok((None, closed)) => {
                if gate.set(closed) {
                    tracing::info!("suspension changed (read from the database)");
                }
            }
            Err(e) => tracing::warn!(error = %e, "suspension not read"),
        }
    }
}

/// Game `game` (its number and when it closed) left undrawn: suspended, and said.
async fn suspend(state: &web::Data<AppState>, gate: &Gate, game: (i64, i64), limit: Duration) {
    let begun = crate::state::write(state, None, move |s, conn| {
        let new = super::undrawn(conn, game, limit.as_secs(), &s.leadership.instance)?;
        Ok((new, super::closed(conn)?))
    })
    .await;
    match begun {
        Ok((new, closed)) => {
            gate.set(closed.clone());
            if new {
                tracing::error!(game = game.0, "SUSPENDED: a closed game left undrawn");
                state
                    .events
                    .publish(&Event::SuspensionChanged(SuspensionChanged {
                        suspended: true,
                        message: closed.map(|c| c.message.clone()).unwrap_or_default(),
                    }));
            }
        }
        Err(e) => tracing::warn!(error = %e, "suspension not stored"),
    }
}
