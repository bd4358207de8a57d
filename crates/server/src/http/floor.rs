//! The floor overview: every table at a glance for the pit.

use axum::extract::State;
use croupier_core::Wheel;

use super::error::{Failure, Json};
use super::state::{AppState, Caller};
use crate::api::bodies::FloorView;
use crate::api::ErrorBody;
use crate::casino::policy::{self, Act};
use crate::casino::reads::{TableAnswer, TableQuery};

/// Every table at a glance: its profile and jurisdiction, its game now
/// (phase, round, betting's deadline), the dealer on duty, its posted
/// limits, its float and today's drop and win (as the day report gives
/// them, each a sum of the ledger's transfers), and what wants the pit:
/// an emergency, game integrity alarms, disputes decided today, slips
/// waiting for the cage, a ball to inspect. For the floor's supervisors,
/// admins and auditors.
#[utoipa::path(get, path = "/api/floor", responses((status = 200, description = "Every table, in id order", body = FloorView), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
pub async fn floor(State(state): State<AppState>, Caller(actor): Caller) -> Result<Json<FloorView>, Failure> {
    policy::require(actor.role, Act::ReadCasinoBooks)?;
    let mut tables: Vec<_> = state
        .floor
        .every_table(TableQuery::Floor)
        .await
        .into_iter()
        .filter_map(|a| match a {
            TableAnswer::Floor(t) => Some(*t),
            _ => None,
        })
        .collect();
    tables.sort_by(|a, b| a.table.cmp(&b.table));
    for t in &mut tables {
        let Some(wheel) = Wheel::parse(&t.wheel) else { continue };
        let monitors = state.integrity.clone();
        let table = t.table.clone();
        // A monitor that cannot be read leaves its count at none, as the
        // table's report leaves its alarms out: the floor does not wait on it.
        match state.floor.archived(move |a| monitors.status(a, &table, wheel)).await {
            Ok(status) => t.alarms_counted(status.alarms.len()),
            Err(e) => tracing::warn!(table = t.table, "game integrity not on the floor: {}", e.message),
        }
    }
    Ok(Json(FloorView {
        day: state.floor.gaming_day().today,
        tables,
    }))
}
