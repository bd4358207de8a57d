//! Liveness and metrics.

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;

use super::error::Failure;
use super::state::{AppState, Caller};
use crate::api::ErrorBody;
use crate::casino::policy::{self, Act};

#[utoipa::path(get, path = "/healthz", responses((status = 200, description = "The server is up", body = String)))]
pub async fn healthz() -> &'static str {
    "ok"
}

#[utoipa::path(get, path = "/metrics", responses((status = 200, description = "Counters and the journal's flush times in the OpenMetrics text format, for an admin or an auditor (or anyone on the --metrics-listen address)", body = String), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
pub async fn metrics(State(state): State<AppState>, Caller(actor): Caller) -> Result<impl IntoResponse, Failure> {
    policy::require(actor.role, Act::ReadMetrics)?;
    Ok(open_metrics(State(state)).await)
}

/// The metrics with no session asked: only on the address given to
/// `--metrics-listen`, for a scraper on the casino's own network.
pub async fn open_metrics(State(state): State<AppState>) -> impl IntoResponse {
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        state.floor.metrics().text(),
    )
}
