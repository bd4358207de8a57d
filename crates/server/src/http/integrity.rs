//! Game integrity monitoring for the pit: a table's running tests of its
//! results (the runtime's [`Integrity`](crate::runtime::integrity::Integrity)),
//! and their alarms in the table's report.

use axum::extract::State;
use croupier_core::Wheel;

use super::error::{Failure, Json, Path};
use super::state::{AppState, Caller};
use crate::api::bodies::TableReport;
use crate::api::integrity::TableIntegrity;
use crate::api::{ApiError, ErrorBody, ErrorCode};
use crate::casino::policy::{self, Act};
use crate::casino::reads::{TableAnswer, TableQuery};

/// The wheel `table` is played on.
async fn wheel_of(state: &AppState, table: &str) -> Result<Wheel, ApiError> {
    match state.floor.read_table(table, TableQuery::Layout).await? {
        TableAnswer::Layout(layout) => Wheel::parse(&layout.wheel)
            .ok_or_else(|| ApiError::internal(format!("table {table}: no wheel is named {:?}", layout.wheel))),
        _ => Err(ApiError::internal("a table answered another question")),
    }
}

/// The table's game integrity monitor: its pockets' and distances' counts,
/// each test's reading now, every look taken and the alarms raised.
#[utoipa::path(get, path = "/api/tables/{table}/integrity", params(("table" = String, Path, description = "Table id")), responses((status = 200, description = "The running tests of the table's results (chi-square on pockets, the hottest pocket, quarter-wheel sectors, the dealer signature), their looks and alarms", body = TableIntegrity), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn integrity(
    State(state): State<AppState>,
    Caller(actor): Caller,
    Path(table): Path<String>,
) -> Result<Json<TableIntegrity>, Failure> {
    policy::require(actor.role, Act::ReadTableBooks)?;
    let wheel = wheel_of(&state, &table).await?;
    let monitors = state.integrity.clone();
    let found = state.floor.archived(move |a| monitors.read(a, &table, wheel)).await?;
    Ok(Json(found))
}

/// Adds the monitor's alarms to a table's report. A monitor that cannot be
/// read (its archive refused) leaves the report without them, and says so
/// in the server's log: the books do not wait on the monitor.
pub async fn add_to_report(state: &AppState, report: &mut TableReport) {
    let table = report.table.clone();
    let wheel = match wheel_of(state, &table).await {
        Ok(wheel) => wheel,
        Err(e) => return tracing::warn!(table, "game integrity not in the report: {}", e.message),
    };
    let monitors = state.integrity.clone();
    let read = table.clone();
    match state.floor.archived(move |a| monitors.status(a, &read, wheel)).await {
        Ok(status) => report.integrity = Some(status),
        Err(e) if e.code == ErrorCode::NoTable => {}
        Err(e) => tracing::warn!(table, "game integrity not in the report: {}", e.message),
    }
}
