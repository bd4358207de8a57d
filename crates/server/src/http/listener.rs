//! Taking connections: HTTP/1.1 (with upgrades, for the table streams) on
//! hyper, with a limit on everything a stranger could hold open. Each
//! client (an IP address) may hold so many connections, the server so many
//! in all; a request's headers must arrive within a time, and its body
//! within another. A table stream is a connection too, so the same caps
//! hold for sockets. The process's descriptor limit is raised to its hard
//! limit at start, and the caps are kept below it.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;

/// What the server lets clients hold.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Connections (table streams included) the server holds at once.
    pub connections_max: usize,
    /// Connections one client (an IP address) holds at once. A casino's
    /// terminals behind one address need it as high as their number.
    pub connections_per_client: usize,
    /// How long a client has to send a request's headers, on a new
    /// connection or a kept-alive one.
    pub header_read_timeout: Duration,
    /// Sign-ins one client may try a minute, right or wrong: each costs a
    /// password hash. Terminals behind one address share it.
    pub sign_ins_per_client_per_minute: u32,
    /// How long sessions last, and how many one user holds.
    pub sessions: super::sessions::SessionLimits,
    /// A checkpoint of the casino's state is written once this many entries
    /// follow the last: a start replays at most about this many.
    pub checkpoint_every_entries: u64,
    /// The journal on a PostgreSQL server (`postgres://...`) that several
    /// nodes share, rather than SQLite in the data directory.
    pub database: Option<String>,
    /// On PostgreSQL, how old this node's lease may grow before a standby
    /// takes the casino over (it stops writing at half of it).
    pub lease_timeout_ms: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            connections_max: 16_384,
            connections_per_client: 4_096,
            header_read_timeout: Duration::from_secs(10),
            sign_ins_per_client_per_minute: 600,
            sessions: super::sessions::SessionLimits::default(),
            checkpoint_every_entries: crate::runtime::checkpoints::CHECKPOINT_EVERY_ENTRIES,
            database: None,
            lease_timeout_ms: croupier_ledger::pg::LEASE_TIMEOUT_MS,
        }
    }
}

/// Descriptors kept for the server's own files (the journal, the archive,
/// the sessions, their logs) and a margin, below the process's limit.
const DESCRIPTORS_KEPT: u64 = 256;

impl Limits {
    /// These limits within the process's descriptor limit, raised first to
    /// its hard limit: a connection over it would fail to accept anyway,
    /// and the journal's files would fail beside it.
    pub fn within_descriptors(mut self) -> Limits {
        let allowed = rlimit::increase_nofile_limit(u64::MAX).unwrap_or(1_024);
        let room = allowed.saturating_sub(DESCRIPTORS_KEPT).max(16) as usize;
        if self.connections_max > room {
            tracing::warn!(
                "at most {room} connections: the process may open {allowed} files (raise its limit for more)"
            );
            self.connections_max = room;
        }
        self.connections_per_client = self.connections_per_client.min(self.connections_max);
        self
    }
}

/// The connections held, in all and by client.
#[derive(Default)]
struct Held {
    all: usize,
    by_client: HashMap<IpAddr, usize>,
    /// Where the number held is shown (the server's metrics).
    shown: Option<prometheus_client::metrics::gauge::Gauge>,
}

impl Held {
    fn show(&self) {
        if let Some(gauge) = &self.shown {
            gauge.set(self.all as i64);
        }
    }
}

/// A connection's place among those held, given back when it closes.
struct Place {
    held: Arc<Mutex<Held>>,
    client: IpAddr,
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        held.all -= 1;
        if let Some(n) = held.by_client.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                held.by_client.remove(&self.client);
            }
        }
        held.show();
    }
}

/// A place for a new connection from `client`, if the caps allow one.
fn admit(held: &Arc<Mutex<Held>>, limits: &Limits, client: IpAddr) -> Option<Place> {
    let mut h = held.lock().unwrap_or_else(|p| p.into_inner());
    let mine = h.by_client.get(&client).copied().unwrap_or(0);
    if h.all >= limits.connections_max || mine >= limits.connections_per_client {
        return None;
    }
    h.all += 1;
    *h.by_client.entry(client).or_default() += 1;
    h.show();
    Some(Place {
        held: held.clone(),
        client,
    })
}

/// Serves `router` on `listener` until `stop` resolves, then lets the
/// connections under way finish.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    shown: prometheus_client::metrics::gauge::Gauge,
    stop: impl std::future::Future<Output = ()>,
) {
    let held = Arc::new(Mutex::new(Held {
        shown: Some(shown),
        ..Held::default()
    }));
    let graceful = GracefulShutdown::new();
    let mut http = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new()).http1_only();
    http.http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    tokio::pin!(stop);
    let mut refused_logged = false;
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of descriptors, or the like: wait a moment rather than spin.
                    tracing::warn!("cannot accept a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let Some(place) = admit(&held, &limits, peer.ip()) else {
            if !refused_logged {
                tracing::warn!(client = %peer.ip(), "a connection over the caps was closed");
                refused_logged = true;
            }
            drop(stream);
            continue;
        };
        refused_logged = false;
        // Small messages (a bet, its reply, a settlement) go out at once, not after
        // Nagle's algorithm waits on the peer's delayed acknowledgement (about 40 ms).
        if let Err(e) = stream.set_nodelay(true) {
            tracing::warn!("cannot set TCP_NODELAY: {e}");
        }
        let service = TowerToHyperService::new(router.clone().layer(axum::Extension(ConnectInfo::<SocketAddr>(peer))));
        let (http, watcher) = (http.clone(), graceful.watcher());
        tokio::spawn(async move {
            let _place = place;
            let connection = http.serve_connection_with_upgrades(TokioIo::new(stream), service);
            if let Err(e) = watcher.watch(connection).await {
                tracing::debug!(client = %peer, "connection ended: {e}");
            }
        });
    }
    // New connections are refused from now on, not left waiting unanswered
    // while the requests under way finish: a load balancer sees the node go at once.
    drop(listener);
    graceful.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_holds_its_share_and_the_server_its_total() {
        let held = Arc::new(Mutex::new(Held::default()));
        let limits = Limits {
            connections_max: 3,
            connections_per_client: 2,
            header_read_timeout: Duration::from_secs(1),
            ..Limits::default()
        };
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().expect("ip"), "10.0.0.2".parse().expect("ip"));
        let first = admit(&held, &limits, a).expect("a's first");
        let _second = admit(&held, &limits, a).expect("a's second");
        assert!(admit(&held, &limits, a).is_none(), "a has its share");
        let _third = admit(&held, &limits, b).expect("b's first");
        assert!(admit(&held, &limits, b).is_none(), "the server has its total");
        drop(first);
        assert!(admit(&held, &limits, a).is_some(), "a place given back is taken again");
        assert_eq!(held.lock().expect("held").by_client.len(), 2);
    }
}
