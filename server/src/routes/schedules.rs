//! `GET /api/v1/schedules`: the prize schedules on sale (`schedules`).

use actix_web::{get, web};
use keno_core::Special3Approval;

use crate::error::ApiResult;
use crate::schedules::PrizeSchedule;
use crate::state::AppState;

/// The prize schedules on sale under the rule set in force: Special 3 only while the
/// regulator's approval of it is in force (rule 18.4).
#[utoipa::path(tag = "games", responses((status = 200, body = [PrizeSchedule])))]
#[get("/api/v1/schedules")]
pub async fn list(state: web::Data<AppState>) -> ApiResult<web::Json<Vec<PrizeSchedule>>> {
    let special3 = if state.special3_digest.is_some() {
        let s = state.clone();
        crate::store::read(&state.store, move |conn| {
            Ok(crate::special3::approval(
                s.special3_digest.as_deref(),
                conn,
            )?)
        })
        .await?
    } else {
        Special3Approval::NotInForce
    };
    let schedules = crate::schedules::on_sale(&state.rules, special3);
    Ok(web::Json(schedules))
}
