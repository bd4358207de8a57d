//! What a node answers while it opens: on a journal in PostgreSQL that
//! another node holds, it waits for the casino's lease (then replays the
//! journal). Meanwhile every request on its addresses, `/healthz` and
//! `/metrics` among them, is answered at once with 503 `standby`, so that a
//! load balancer sends the casino's traffic to the node that holds it,
//! rather than to a socket that never answers. The standby is served as the
//! casino is (`listener::serve`): the same caps on connections, per client
//! and in all, and the same time to send a request's headers, so that a
//! stranger cannot hold its descriptors until the takeover.

use axum::http::{header, HeaderValue, StatusCode};
use axum::Json;
use tower_http::set_header::SetResponseHeaderLayer;

use super::listener::{self, Limits};

/// The socket a node listens on, shared: the answers of the standby first,
/// then the casino's.
pub struct Standby {
    stop: tokio::sync::oneshot::Sender<()>,
    served: tokio::task::JoinHandle<()>,
}

/// How long the standby's requests under way have to end once the casino
/// opens; an idle connection is closed at once, a request's headers not
/// sent by then are cut off by the header timeout.
const STANDBY_ENDS_WITHIN: std::time::Duration = std::time::Duration::from_secs(2);

impl Standby {
    /// Answers on a copy of `listener`'s socket, within `limits`, until [`Standby::end`].
    pub fn start(listener: &std::net::TcpListener, limits: &Limits) -> Result<Standby, String> {
        let socket = listener
            .try_clone()
            .and_then(tokio::net::TcpListener::from_std)
            .map_err(|e| format!("cannot answer while waiting: {e}"))?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let app = axum::Router::new()
            .fallback(|| async {
                (
                    StatusCode::SERVICE_UNAVAILABLE,
                    [(header::CACHE_CONTROL, "no-store")],
                    Json(serde_json::json!({
                        "status": "standby",
                        "error": "standby",
                        "message": "this node is not serving the casino: it is waiting for another node to let go of it, or opening it",
                    })),
                )
            })
            .layer(SetResponseHeaderLayer::overriding(
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ))
            .layer(SetResponseHeaderLayer::overriding(
                header::X_FRAME_OPTIONS,
                HeaderValue::from_static("DENY"),
            ));
        let limits = limits.clone();
        let served = tokio::spawn(async move {
            let held = prometheus_client::metrics::gauge::Gauge::default();
            listener::serve(socket, app, limits, held, async {
                let _ = stopped.await;
            })
            .await;
        });
        Ok(Standby { stop, served })
    }

    /// Stops answering: the casino's router takes the socket over.
    pub async fn end(self) {
        let _ = self.stop.send(());
        let mut served = self.served;
        if tokio::time::timeout(STANDBY_ENDS_WITHIN, &mut served).await.is_err() {
            served.abort();
            tracing::warn!("the standby's requests under way were cut off: the casino serves from now on");
        }
    }
}
