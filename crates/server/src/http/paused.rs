//! While the casino is paused (a write of its journal failed, a full disk
//! most often), the API refuses what needs the journal or the tables' live
//! state, saying why and since when: that state may hold work the disk did
//! not take, until the casino has reloaded what is durable. Sessions are
//! kept in the same data directory, so signing in and out and `/api/me` are
//! refused too. The pages, `/healthz`, `/metrics`, the API's description and
//! the shipped profiles stay open. The casino resumes by itself (`runtime::health`).

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::Failure;
use super::state::AppState;
use crate::api::{ApiError, ErrorCode};
use crate::runtime::health::Trouble;

/// How long a client refused for a pause is asked to wait before trying again.
pub const PAUSED_RETRY_AFTER_S: u64 = 2;

/// The refusal of anything that needs the journal while the casino is paused.
pub fn paused(trouble: &Trouble) -> ApiError {
    paused_for_good(trouble, false)
}

/// [`paused`], for a node that will not resume (it lost the casino's lease) when `for_good`.
pub fn paused_for_good(trouble: &Trouble, for_good: bool) -> ApiError {
    let since = time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(trouble.since_ms) * 1_000_000)
        .map(|t| format!("{:02}:{:02}:{:02} UTC", t.hour(), t.minute(), t.second()))
        .unwrap_or_else(|_| format!("{} ms", trouble.since_ms));
    ApiError::wait(
        ErrorCode::Paused,
        if for_good {
            format!(
                "this node stopped serving the casino at {since}: {}. Nothing acknowledged is lost and nothing \
                 refused `storage` or `paused` changed anything (a request answered `outcome_unknown` may have: \
                 send it again with the same id); send your requests to the node that holds the casino",
                trouble.why
            )
        } else {
            format!(
                "the casino is paused since {since}: its journal cannot be written ({}). Nothing acknowledged is \
                 lost and nothing refused `storage` or `paused` changed anything (a request answered \
                 `outcome_unknown` may have: send it again with the same id); it resumes by itself within seconds \
                 of the disk taking writes again (see /healthz)",
                trouble.why
            )
        },
        PAUSED_RETRY_AFTER_S,
    )
}

/// Whether `path` is answered while the casino is paused.
pub fn open_while_paused(path: &str) -> bool {
    !path.starts_with("/api/") || matches!(path, "/api/openapi.json" | "/api/public/profiles")
}

/// The layer that refuses the API while the casino is paused.
pub async fn guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if let Some(trouble) = state.floor.health().paused() {
        if !open_while_paused(request.uri().path()) {
            let for_good = state.floor.health().lease_losses().borrow().is_some();
            return Failure(paused_for_good(&trouble, for_good)).into_response();
        }
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pause_closes_the_api_but_the_pages_and_signing_in() {
        for open in [
            "/",
            "/terminal",
            "/static/common.js",
            "/healthz",
            "/metrics",
            "/api/openapi.json",
        ] {
            assert!(open_while_paused(open), "{open}");
        }
        for shut in [
            "/api/requests",
            "/api/tables",
            "/api/tables/t1/stream",
            "/api/tables/t1/draw",
            "/api/rounds/t1/3",
            "/api/public/tables",
            "/api/users",
            "/api/login",
            "/api/me",
        ] {
            assert!(!open_while_paused(shut), "{shut}");
        }
        let said = paused(&Trouble {
            since_ms: 1_795_749_580_000,
            why: "database or disk is full".into(),
        });
        assert_eq!(said.code, ErrorCode::Paused);
        assert!(said.message.contains("since 03:19:40 UTC"), "{}", said.message);
        assert!(said.message.contains("database or disk is full"), "{}", said.message);
        assert_eq!(said.retry_after_s, Some(PAUSED_RETRY_AFTER_S));
    }
}
