//! Liveness and metrics.

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;

use super::state::AppState;

#[utoipa::path(get, path = "/healthz", responses((status = 200, description = "The server is up", body = String)))]
pub async fn healthz() -> &'static str {
    "ok"
}

#[utoipa::path(get, path = "/metrics", responses((status = 200, description = "Counters and the journal's flush times in the OpenMetrics text format", body = String)))]
pub async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        state.floor.metrics().text(),
    )
}
