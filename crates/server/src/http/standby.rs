//! What a node answers while it opens: on a journal in PostgreSQL that
//! another node holds, it waits for the casino's lease (then replays the
//! journal). Meanwhile every request on its address, `/healthz` among them,
//! is answered at once with 503 `standby`, so that a load balancer sends
//! the casino's traffic to the node that holds it, rather than to a socket
//! that never answers.

use axum::http::StatusCode;
use axum::Json;

/// The socket a node listens on, shared: the answers of the standby first,
/// then the casino's.
pub struct Standby {
    stop: tokio::sync::oneshot::Sender<()>,
    served: tokio::task::JoinHandle<()>,
}

/// How long the standby's connections have to end once the casino opens.
const STANDBY_ENDS_WITHIN: std::time::Duration = std::time::Duration::from_secs(2);

impl Standby {
    /// Answers on a copy of `listener`'s socket until [`Standby::end`].
    pub fn start(listener: &std::net::TcpListener) -> Result<Standby, String> {
        let socket = listener
            .try_clone()
            .and_then(tokio::net::TcpListener::from_std)
            .map_err(|e| format!("cannot answer while waiting: {e}"))?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let app = axum::Router::new().fallback(|| async {
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(serde_json::json!({
                    "status": "standby",
                    "error": "standby",
                    "message": "this node is not serving the casino: it is waiting for another node to let go of it, or opening it",
                })),
            )
        });
        let served = tokio::spawn(async move {
            let ended = axum::serve(socket, app).with_graceful_shutdown(async {
                let _ = stopped.await;
            });
            if let Err(e) = ended.await {
                tracing::warn!("the standby's answers stopped: {e}");
            }
        });
        Ok(Standby { stop, served })
    }

    /// Stops answering: the casino's router takes the socket over.
    pub async fn end(self) {
        let _ = self.stop.send(());
        if tokio::time::timeout(STANDBY_ENDS_WITHIN, self.served).await.is_err() {
            tracing::warn!("the standby's connections outlived it; the casino serves the new ones");
        }
    }
}
