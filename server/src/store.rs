//! The one way a request's work reaches the database: off the async runtime (actix's blocking
//! pool), on a pooled connection, and for writes in the SQLite writer's turn, in one
//! transaction, with the fault harness's pause (`KENO_FAULT_DELAYS`) just before the commit.
//!
//! Holding rows against a concurrent change is in [`hold`]: `FOR UPDATE` / `FOR SHARE` on
//! PostgreSQL, and nothing more on SQLite, where the writer's turn already serialises writers.

use actix_web::web;
use diesel::connection::Connection;

use crate::db::DbConnection;
use crate::error::{DomainResult, Failure};
use crate::state::AppState;

pub mod hold;

/// Runs `work` in one write transaction; `stage` names the fault harness's pause before the
/// commit (`payment`, `sale`, ...).
pub async fn write<T, F>(
    state: &web::Data<AppState>,
    stage: Option<&'static str>,
    work: F,
) -> DomainResult<T>
where
    T: Send + 'static,
    F: FnOnce(&AppState, &mut DbConnection) -> DomainResult<T> + Send + 'static,
{
    let state = state.clone();
    web::block(move || -> DomainResult<T> {
        let mut conn = state.db.conn()?;
        let _turn = state.db.writer_turn();
        conn.transaction(|conn| {
            let done = work(&state, conn)?;
            if let Some(stage) = stage {
                state.faults.pause(stage);
            }
            Ok::<T, Failure>(done)
        })
    })
    .await?
}

/// Runs `work` with a connection of the pool, for reads (no transaction, no writer's turn).
pub async fn read<T, F>(state: &web::Data<AppState>, work: F) -> DomainResult<T>
where
    T: Send + 'static,
    F: FnOnce(&AppState, &mut DbConnection) -> DomainResult<T> + Send + 'static,
{
    let state = state.clone();
    web::block(move || -> DomainResult<T> { work(&state, &mut *state.db.conn()?) }).await?
}
