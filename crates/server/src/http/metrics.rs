//! Liveness and metrics.

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;

use super::error::Failure;
use super::state::{AppState, Caller};
use crate::api::ErrorBody;
use crate::casino::policy::{self, Act};
use crate::runtime::health::HealthReport;

/// The server's health, for a load balancer or a monitor: 200 while the
/// journal takes writes (`ok`, or `degraded` while the recall archive is
/// behind), 503 while the casino is paused, with why and since when. The
/// disk's free bytes, which move with every bet, are told only on the
/// `--metrics-listen` address ([`healthz_in_full`]): anyone may ask here.
#[utoipa::path(get, path = "/healthz", responses((status = 200, description = "`ok`, or `degraded`: the recall archive is behind (game recall still finds every round); play goes on", body = HealthReport), (status = 503, description = "`paused`: the journal cannot be written (a full disk); the API refuses what needs it until the casino resumes by itself", body = HealthReport)))]
pub async fn healthz(State(state): State<AppState>) -> impl IntoResponse {
    let mut report = state.floor.health().report();
    report.disk_free_bytes = None;
    answer(report)
}

/// [`healthz`] with the data directory's free bytes, on `--metrics-listen` only.
pub async fn healthz_in_full(State(state): State<AppState>) -> impl IntoResponse {
    answer(state.floor.health().report())
}

fn answer(report: HealthReport) -> impl IntoResponse {
    let status = if report.journal.is_some() {
        StatusCode::SERVICE_UNAVAILABLE
    } else {
        StatusCode::OK
    };
    (status, axum::Json(report))
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
