//! The gate kept up with the stored suspensions (an app task): read every second, so one that
//! another instance began or resumed holds here too within a second (that instance told the
//! displays). While nothing is suspended it also looks for a game closed and left undrawn past
//! `--undrawn-limit`: the draw mechanism has failed, and the system is suspended (AGCO 21.1.9).

use std::time::{Duration, Instant};

use actix_web::web;

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
        let was: Vec<i64> = gate.closed().map(|c| c.ids.clone()).unwrap_or_default();
        let look = was.is_empty() && started.elapsed() >= undrawn_limit;
        let before = crate::db::now_micros() - undrawn_limit.as_micros() as i64;
        let read = crate::store::read(&state.store, move |conn| {
            let undrawn = match look {
                true => super::undrawn_since(conn, before)?,
                false => None,
            };
            let closed = super::closed(conn)?;
            let now: &[i64] = closed.as_ref().map_or(&[], |c| c.ids.as_slice());
            let mut off_the_record = None;
            for id in was.iter().filter(|id| !now.contains(id)) {
                if !super::ended_on_the_record(conn, *id)? {
                    off_the_record = Some(*id);
                }
            }
            Ok((undrawn, off_the_record, closed))
        });
        match read.await {
            Ok((_, Some(id), _)) => ended_off_the_record(&state, &gate, id).await,
            Ok((Some(game), None, _)) => suspend(&state, &gate, game, undrawn_limit).await,
            Ok((None, None, closed)) => {
                if gate.set(closed) {
                    tracing::info!("suspension changed (read from the database)");
                }
            }
            Err(e) => tracing::warn!(error = %e, "suspension not read"),
        }
    }
}

/// Suspension `id` ended in the database without its keys: suspended again, for the trail.
async fn ended_off_the_record(state: &web::Data<AppState>, gate: &Gate, id: i64) {
    let begun = crate::state::write(state, None, move |s, conn| {
        let new = super::ended_off_the_record(conn, id, &s.leadership.instance)?;
        Ok((new, super::closed(conn)?))
    })
    .await;
    said(state, gate, begun, "a suspension ended off the record");
}

/// Game `game` (its number and when it closed) left undrawn: suspended, and said.
async fn suspend(state: &web::Data<AppState>, gate: &Gate, game: (i64, i64), limit: Duration) {
    let begun = crate::state::write(state, None, move |s, conn| {
        let new = super::undrawn(conn, game, limit.as_secs(), &s.leadership.instance)?;
        Ok((new, super::closed(conn)?))
    })
    .await;
    said(state, gate, begun, "a closed game left undrawn");
}

/// The gate set to what is in force after a suspension began here, and said.
fn said(
    state: &web::Data<AppState>,
    gate: &Gate,
    begun: crate::error::DomainResult<(bool, Option<super::gate::Closed>)>,
    why: &str,
) {
    match begun {
        Ok((new, closed)) => {
            if new {
                tracing::error!("SUSPENDED: {why}");
            }
            gate.tell(&state.events, closed);
        }
        Err(e) => tracing::warn!(error = %e, "suspension not stored"),
    }
}
