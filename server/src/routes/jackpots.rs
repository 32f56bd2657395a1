//! `GET /api/v1/jackpots`: the jackpot pools as they stand (`jackpots`).

use actix_web::{get, web};

use crate::error::ApiResult;
use crate::jackpots::{current, Jackpot};
use crate::state::AppState;

/// The jackpot pools as they stand, one per jackpot ticket type.
#[utoipa::path(tag = "jackpots", responses((status = 200, body = [Jackpot])))]
#[get("/api/v1/jackpots")]
pub async fn list(state: web::Data<AppState>) -> ApiResult<web::Json<Vec<Jackpot>>> {
    let rules = state.rules.clone();
    let pools = crate::store::read(&state.store, move |conn| Ok(current(&rules, conn)?)).await?;
    Ok(web::Json(pools))
}
