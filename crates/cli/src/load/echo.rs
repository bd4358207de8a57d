//! A bare WebSocket echo on loopback: the limit the run's sockets meet on
//! the same machine, with no casino behind them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};

use super::acks::percentile;
use super::io;
use super::terminals::socket_config;
use crate::Failure;

/// A bare WebSocket echo on loopback, the same number of clients each
/// sending one message and awaiting its echo, for the limit to compare with.
pub(super) async fn echo(clients: usize, seconds: f64) -> Result<(f64, f64), Failure> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.map_err(io)?;
    let address = listener.local_addr().map_err(io)?;
    let server = tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let _ = stream.set_nodelay(true);
                if let Ok(ws) = tokio_tungstenite::accept_async_with_config(stream, Some(socket_config())).await {
                    let (mut write, mut read) = ws.split();
                    while let Some(Ok(m)) = read.next().await {
                        if m.is_text() && write.send(m).await.is_err() {
                            break;
                        }
                    }
                }
            });
        }
    });
    let stop = Arc::new(AtomicBool::new(false));
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let (ws, _) =
            tokio_tungstenite::connect_async_with_config(format!("ws://{address}/"), Some(socket_config()), true)
                .await
                .map_err(io)?;
        let stop = stop.clone();
        tasks.push(tokio::spawn(async move {
            let (mut write, mut read) = ws.split();
            let mut latencies = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                let sent = Instant::now();
                if write
                    .send(tokio_tungstenite::tungstenite::Message::text("{\"type\":\"ping\"}"))
                    .await
                    .is_err()
                {
                    break;
                }
                match read.next().await {
                    Some(Ok(_)) => latencies.push(sent.elapsed().as_secs_f64() * 1000.0),
                    _ => break,
                }
            }
            latencies
        }));
    }
    let start = Instant::now();
    tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
    stop.store(true, Ordering::Relaxed);
    let elapsed = start.elapsed().as_secs_f64();
    let mut all = Vec::new();
    for t in tasks {
        if let Ok(l) = t.await {
            all.extend(l);
        }
    }
    server.abort();
    all.sort_by(f64::total_cmp);
    Ok((all.len() as f64 / elapsed, percentile(&all, 0.99)))
}
