//! The server's look at itself every `--integrity-interval` (an app task, on every instance):
//! its software against the approved manifest (each instance checks its own binary; each check
//! enters the trail), the triggers that keep the audit trail append-only, and the trail walked
//! since the look before the last (`audit::live`), so every entry is walked at two looks. What differs suspends the system at
//! once, here and, within a second, on the other instances.

use std::collections::VecDeque;

use actix_web::web;
use keno_core::suspension::Cause;

use super::Integrity;
use crate::audit::chains::Head;
use crate::state::AppState;
use crate::suspension::gate::Gate;
use crate::suspension::Found;

pub async fn run(
    state: web::Data<AppState>,
    integrity: web::Data<Integrity>,
    gate: web::Data<Gate>,
) {
    let mut tick = tokio::time::interval(integrity.interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // The first tick is now: the software was checked before serving.
    tick.tick().await;
    let mut walked = match signed_heads(&state).await {
        Ok(heads) => VecDeque::from([heads.clone(), heads]),
        Err(e) => {
            tracing::error!(error = %format!("{e:#}"), "the trail's last checkpoint not read");
            VecDeque::from([Vec::new(), Vec::new()])
        }
    };
    loop {
        tick.tick().await;
        if integrity.approved.is_some() {
            if let Err(e) = check_software(&state, &integrity, &gate).await {
                tracing::error!(error = %format!("{e:#}"), "integrity check");
            }
        }
        match walk_trail(&state, &gate, &walked[0]).await {
            Ok(Some(heads)) => {
                walked.pop_front();
                walked.push_back(heads);
            }
            Ok(None) => {}
            Err(e) => tracing::error!(error = %format!("{e:#}"), "trail check"),
        }
    }
}

/// The heads the last stored checkpoint signs: where the first walk starts.
async fn signed_heads(state: &web::Data<AppState>) -> anyhow::Result<Vec<Head>> {
    let stored = crate::store::read(&state.store, |conn| {
        Ok(crate::audit::anchor::stored_last(conn)?)
    })
    .await?;
    Ok(stored.and_then(|c| c.signed_heads()).unwrap_or_default())
}

/// Walks the trail from `from`; a break suspends the system. The heads reached, if whole.
async fn walk_trail(
    state: &web::Data<AppState>,
    gate: &Gate,
    from: &[Head],
) -> anyhow::Result<Option<Vec<Head>>> {
    let from = from.to_vec();
    // Read, not written: a walk of minutes of sales must not hold SQLite's one writer.
    let walked = crate::store::read(&state.store, move |conn| {
        Ok(match crate::audit::live::guarded(conn)? {
            Ok(()) => crate::audit::live::walk(conn, &from)?,
            Err(said) => Err(said),
        })
    })
    .await?;
    let said = match walked {
        Ok(heads) => return Ok(Some(heads)),
        Err(said) => said,
    };
    let closed = crate::state::write(state, None, move |s, conn| {
        let found = Found {
            cause: Cause::Trail,
            detail: said,
            lost: None,
        };
        let (row, new) = crate::suspension::begin(conn, &found, &s.leadership.instance)?;
        if new {
            tracing::error!(suspension = row.id, detail = %row.detail, "SUSPENDED");
        }
        Ok(crate::suspension::closed(conn)?)
    })
    .await?;
    gate.tell(&state.events, closed);
    Ok(None)
}

async fn check_software(
    state: &web::Data<AppState>,
    integrity: &web::Data<Integrity>,
    gate: &Gate,
) -> anyhow::Result<()> {
    let i = integrity.clone();
    let differences = web::block(move || i.differences())
        .await??
        .unwrap_or_default();
    let (begun, closed) = crate::state::write(state, None, move |s, conn| {
        let begun = super::record(conn, &differences, &s.leadership.instance)?;
        Ok((begun, crate::suspension::closed(conn)?))
    })
    .await?;
    for row in &begun {
        tracing::error!(suspension = row.id, detail = %row.detail, "SUSPENDED");
    }
    gate.tell(&state.events, closed);
    Ok(())
}
