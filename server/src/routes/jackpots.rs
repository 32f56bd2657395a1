//! `GET /api/v1/jackpots`: the jackpot pools as they stand (`jackpots`).

use actix_web::{get, web};

use crate::error::{ApiResult, DomainResult};
use crate::jackpots::{current, Jackpot};
use crate::single_flight::{SingleFlight, Unread};
use crate::state::AppState;

/// The readings of the pools: public, and each reads every jackpot ticket of the games not yet
/// settled (the open game's, mostly), so however many ask at once the server reads them once
/// at a time, each answer from a reading begun after its request.
pub type PoolReadings = SingleFlight<Vec<Jackpot>>;

/// The jackpot pools as they stand, one per jackpot ticket type.
#[utoipa::path(tag = "jackpots", responses((status = 200, body = [Jackpot])))]
#[get("/api/v1/jackpots")]
pub async fn list(
    state: web::Data<AppState>,
    readings: web::Data<PoolReadings>,
) -> ApiResult<web::Json<Vec<Jackpot>>> {
    let (rules, store) = (state.rules.clone(), state.store.clone());
    let read = || async move {
        tracing::trace!("the jackpot pools read whole");
        crate::store::read(&store, move |conn| -> DomainResult<_> {
            Ok(current(&rules, conn)?)
        })
        .await
    };
    let pools = match readings.read(read).await {
        Ok(pools) => pools,
        Err(Unread::Failed(e)) => return Err(e.into()),
        // The reading this request waited for failed: the database out of reach, say.
        Err(Unread::Shared) => return Err(crate::error::Failure::unavailable().into()),
    };
    Ok(web::Json(pools.to_vec()))
}
