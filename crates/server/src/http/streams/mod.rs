//! The table streams: a WebSocket per terminal, console or display board,
//! fed from the table's channels ([`super::channels`]) through waits that keep
//! their place ([`following`]), and taking requests from signed-in
//! terminals ([`socket`]).

mod following;
mod socket;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::State;
use axum::response::Response;
use serde::Deserialize;

pub use super::channels::{subscribe_keys, Channels, STREAM_BUFFER_EVENTS};
pub use socket::{
    parse_request, socket_reply, SocketRequest, SESSION_OVER_CLOSE_CODE, SOCKET_BATCH_MAX,
    SOCKET_REQUESTS_IN_FLIGHT_MAX,
};

use super::error::{Failure, Path, Query};
use super::state::AppState;
use super::BODY_MAX_BYTES;
use crate::api::{ApiError, ErrorBody, ErrorCode, EventView};

/// A table stream's read buffer. tungstenite's default (128 KiB) is zeroed on
/// every read, which cost a fifth of the server's time under load.
pub const SOCKET_READ_BUFFER_BYTES: usize = 4 * 1024;

/// The subprotocol a table stream speaks: a client offers it, with its
/// session token as [`TOKEN_PROTOCOL_PREFIX`]`TOKEN` where it is signed in
/// (a browser's WebSocket sends no other header), and the server takes it.
pub const STREAM_PROTOCOL: &str = "croupier.v1";
/// How a client offers its session token among a stream's subprotocols.
pub const TOKEN_PROTOCOL_PREFIX: &str = "croupier-token.";

#[derive(Deserialize)]
pub struct StreamQuery {
    /// Refused: a token in the URL is written into logs and histories.
    token: Option<String>,
}

/// The session token a stream's client offered among its subprotocols.
fn offered_token(headers: &axum::http::HeaderMap) -> Option<String> {
    headers
        .get_all(axum::http::header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .find_map(|p| p.trim().strip_prefix(TOKEN_PROTOCOL_PREFIX).map(str::to_string))
}

/// A table's events as they happen, each to whom `api::audience` decides.
/// A socket without a token (a number display board) gets what the table
/// shows the room: its phases, results and round totals. A player's socket
/// (its token offered as the subprotocol `croupier-token.TOKEN`, beside
/// `croupier.v1`) gets that and the player's own bets, chips and money;
/// staff get everything.
#[utoipa::path(get, path = "/api/tables/{table}/stream", params(("table" = String, Path, description = "Table id"), ("Sec-WebSocket-Protocol" = Option<String>, Header, description = "`croupier.v1`, and `croupier-token.TOKEN` to be signed in: a player's socket carries that player's own bets")), responses((status = 101, description = "A WebSocket of the table's events as JSON", body = EventView), (status = 400, description = "A token in the URL", body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn stream(
    State(state): State<AppState>,
    Path(table): Path<String>,
    Query(q): Query<StreamQuery>,
    headers: axum::http::HeaderMap,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, Failure> {
    if q.token.is_some() {
        return Err(ApiError::new(
            ErrorCode::BadRequest,
            format!(
                "a session token is not taken in the URL, where logs keep it: offer it as the WebSocket \
                 subprotocol {TOKEN_PROTOCOL_PREFIX}TOKEN, beside {STREAM_PROTOCOL}"
            ),
        )
        .into());
    }
    let ws = ws?.protocols([STREAM_PROTOCOL]);
    // The session's key is worked out once for the socket: each request over it looks it up again.
    let offered = offered_token(&headers);
    if offered.as_deref().is_some_and(|t| state.sessions.must_change(t)) {
        return Err(crate::http::state::must_change_first().into());
    }
    let session = offered.map(|t| state.sessions.key(&t));
    // What says when the session ends is taken with it: a socket whose session
    // ends before it is upgraded is closed as soon as it opens.
    let (viewer, ended) = match &session {
        None => (None, None),
        Some(key) => {
            let (actor, ended) = state
                .sessions
                .follow(key, state.floor.clock().now_ms())
                .ok_or_else(|| {
                    Failure::from(ApiError::new(
                        ErrorCode::Unauthenticated,
                        "the session is unknown or over",
                    ))
                })?;
            (Some(actor), Some(ended))
        }
    };
    // A channel is made for the table's first subscriber: only for a table that exists.
    if !state.floor.has_table(&table) {
        return Err(ApiError::new(ErrorCode::NoTable, format!("no table {table:?}")).into());
    }
    let keys = subscribe_keys(&table, viewer.as_ref());
    Ok(ws
        .max_message_size(BODY_MAX_BYTES)
        // Each read zeroes this much of the buffer first: terminals send small frames.
        .read_buffer_size(SOCKET_READ_BUFFER_BYTES)
        .on_upgrade(move |socket| async move {
            // Subscribed once the socket is there, and let go of when it ends: a
            // channel no socket listens to any more is freed.
            let channels = state.channels.clone();
            let mut subscribed = keys.iter().map(|key| channels.subscribe(key.clone()));
            let first = subscribed.next();
            let second = subscribed.next();
            drop(subscribed);
            if let Some(first) = first {
                socket::forward(state, table, (session, ended), socket, first, second).await;
            }
            for key in &keys {
                channels.release(key);
            }
        }))
}
