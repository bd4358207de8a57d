//! What signed-in staff and players read of the tables: the list, the round
//! under way with its bets, and for staff a table's operations log and report.

use axum::extract::State;

use super::error::{Failure, Json, Path, Query};
use super::state::{AppState, Caller};
use crate::api::bodies::{SlipList, TableBets, TableList, TableLog, TableReport};
use crate::api::{ApiError, ErrorBody};
use crate::casino::policy::{self, Act};
use crate::casino::reads::{TableAnswer, TableQuery};

fn unexpected() -> Failure {
    ApiError::internal("a table answered another question").into()
}

/// Which tables the list shows.
#[derive(serde::Deserialize, utoipa::IntoParams)]
pub struct WhichTables {
    /// `true`: the retired tables only; left out: the others.
    #[serde(default)]
    retired: bool,
}

#[utoipa::path(get, path = "/api/tables", params(WhichTables), responses((status = 200, description = "Every table not retired (or, asked, every retired one): profile, wheel, phase, last numbers; the seated players' colours to staff, a player's own seat to a player", body = TableList), (status = 401, body = ErrorBody)))]
pub async fn tables(
    State(state): State<AppState>,
    Caller(viewer): Caller,
    Query(which): Query<WhichTables>,
) -> Json<TableList> {
    let tables = state
        .floor
        .every_table(TableQuery::Summary { viewer })
        .await
        .into_iter()
        .filter_map(|a| match a {
            TableAnswer::Summary(s) if s.retired == which.retired => Some(s),
            _ => None,
        })
        .collect();
    Json(TableList { tables })
}

/// The table's operations log, newest first: inspections and adjustments
/// with date, time, who and licence (Colorado 2212(5), Maryland ch.2 E),
/// opening and closing, no spins, emergencies, annulments, disputes.
#[utoipa::path(get, path = "/api/tables/{table}/log", params(("table" = String, Path, description = "Table id")), responses((status = 200, description = "The operations log, newest first", body = TableLog), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn log(
    State(state): State<AppState>,
    Caller(actor): Caller,
    Path(table): Path<String>,
) -> Result<Json<TableLog>, Failure> {
    policy::require(actor.role, Act::ReadTableBooks)?;
    match state.floor.read_table(&table, TableQuery::Log).await? {
        TableAnswer::Log(log) => Ok(Json(log)),
        _ => Err(unexpected()),
    }
}

/// The bets of the round under way: staff see every bet, a player their own.
#[utoipa::path(get, path = "/api/tables/{table}/bets", params(("table" = String, Path, description = "Table id")), responses((status = 200, description = "The round under way and its bets", body = TableBets), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn bets(
    State(state): State<AppState>,
    Caller(viewer): Caller,
    Path(table): Path<String>,
) -> Result<Json<TableBets>, Failure> {
    match state.floor.read_table(&table, TableQuery::Bets { viewer }).await? {
        TableAnswer::Bets(mut bets) => {
            bets.wheel = state.floor.wheel_status(&table);
            Ok(Json(bets))
        }
        _ => Err(unexpected()),
    }
}

/// Which gaming day's books a report shows.
#[derive(serde::Deserialize, utoipa::IntoParams)]
pub struct ReportDay {
    /// The gaming day, `YYYY-MM-DD`; left out: today's.
    day: Option<String>,
}

/// A gaming day `YYYY-MM-DD` as days since 1970, or the refusal naming it.
pub(super) fn day_number(text: &str) -> Result<u64, ApiError> {
    let refused = |why: String| ApiError::new(crate::api::ErrorCode::BadRequest, format!("day: {why}"));
    let date = croupier_profiles::tournament::parse_day(text).map_err(refused)?;
    let epoch = crate::casino::tournaments::day_of(0).to_julian_day();
    u64::try_from(date.to_julian_day() - epoch).map_err(|_| refused(format!("{text:?} is before 1970-01-01")))
}

/// A table's figures for the pit: the books of its gaming day (drop, fills,
/// credits, win, hold), its accounts and the recent rounds' totals.
#[utoipa::path(get, path = "/api/tables/{table}/report", params(("table" = String, Path, description = "Table id"), ReportDay), responses((status = 200, description = "The gaming day's books (every figure the ledger's transfers that day), float, drop, tips, coupons and the last rounds' staked, returned and house result", body = TableReport), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn report(
    State(state): State<AppState>,
    Caller(actor): Caller,
    Path(table): Path<String>,
    axum::extract::Query(asked): axum::extract::Query<ReportDay>,
) -> Result<Json<TableReport>, Failure> {
    policy::require(actor.role, Act::ReadTableBooks)?;
    let day = asked.day.as_deref().map(day_number).transpose()?;
    match state.floor.read_table(&table, TableQuery::Report { day }).await? {
        TableAnswer::Report(mut report) => {
            super::integrity::add_to_report(&state, &mut report).await;
            Ok(Json(report))
        }
        TableAnswer::Refused(refused) => Err(refused.into()),
        _ => Err(unexpected()),
    }
}

/// Every table's fill and credit slips waiting for the cage's signature,
/// oldest first (journal format 15): the cashier's page signs them.
#[utoipa::path(get, path = "/api/slips", responses((status = 200, description = "The open slips at every table", body = SlipList), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
pub async fn slips(State(state): State<AppState>, Caller(actor): Caller) -> Result<Json<SlipList>, Failure> {
    policy::require(actor.role, Act::ReadSlips)?;
    let mut slips: Vec<_> = state
        .floor
        .every_table(TableQuery::OpenSlips)
        .await
        .into_iter()
        .flat_map(|a| match a {
            TableAnswer::Slips(s) => s,
            _ => Vec::new(),
        })
        .collect();
    slips.sort_by_key(|s| (s.requested_at_ms, s.table.clone(), s.id.clone()));
    Ok(Json(SlipList { slips }))
}
