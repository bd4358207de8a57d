//! The cage's own record, for the cashier's page: a gaming day's cash-ins,
//! cash-outs and coupons issued, as the cage made them.

use axum::extract::State;

use super::error::{Failure, Json};
use super::state::{AppState, Caller};
use super::tables::day_number;
use crate::api::bodies::CageTransactions;
use crate::api::ErrorBody;
use crate::casino::policy::{self, Act};

/// Which gaming day's record is read.
#[derive(serde::Deserialize, utoipa::IntoParams)]
pub struct CageDay {
    /// The gaming day, `YYYY-MM-DD`, as the casino counts it; left out: today's.
    day: Option<String>,
}

/// The cage's record of a gaming day, newest first: a cashier's (or a
/// supervisor's) own cash-ins, cash-outs and coupons, an admin's or an
/// auditor's everyone's; with the casino's currency and operator's name for
/// the receipts. The cage keeps its newest 7 days (journal format 14).
#[utoipa::path(get, path = "/api/cage/transactions", params(CageDay), responses((status = 200, description = "The day's transactions, newest first", body = CageTransactions), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, description = "A day the cage keeps no record of", body = ErrorBody)))]
pub async fn transactions(
    State(state): State<AppState>,
    Caller(actor): Caller,
    axum::extract::Query(asked): axum::extract::Query<CageDay>,
) -> Result<Json<CageTransactions>, Failure> {
    policy::require(actor.role, Act::ReadCageRecord)?;
    // By default today's, as the casino counts its gaming day (the cage knows it).
    let day = asked.day.as_deref().map(day_number).transpose()?;
    let by = policy::require(actor.role, Act::ReadWholeCageRecord)
        .is_err()
        .then(|| actor.username.clone());
    Ok(Json(state.floor.cage_record(day, by).await?))
}
