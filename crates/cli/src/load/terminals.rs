//! The terminals: each listens to its table's stream and bets until the run
//! stops, over that WebSocket or as HTTP requests.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::json;
use tokio::net::TcpStream;
use tokio::task::JoinHandle;

use super::acks::{Ack, Acks, Refused};
use super::http::Conn;
use super::rounds::{note_round, Settlements};
use super::{io, Via};
use crate::Failure;

/// Every socket of the run, the echo's included, reads through a small buffer:
/// tungstenite zeroes its read buffer (128 KiB by default) on every read.
pub(super) fn socket_config() -> tokio_tungstenite::tungstenite::protocol::WebSocketConfig {
    tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default().read_buffer_size(4 * 1024)
}

pub(super) type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;

/// The spots a terminal's bets go on, in turn.
const SPOTS: [&str; 8] = ["red", "black", "17", "0-00", "dozen2", "odd", "1-2-3", "25-26-28-29"];

/// Connects every terminal to its table's stream. Over WebSockets each
/// terminal keeps its socket to bet on; over HTTP a task per terminal
/// listens, noting when each round's result and settlement reach it.
pub(super) async fn listen(
    via: Via,
    address: SocketAddr,
    terminals: &[(usize, Conn, String)],
    tables: &[String],
    settled_at: &Settlements,
) -> Result<(Vec<JoinHandle<()>>, Vec<Socket>), Failure> {
    let mut listeners = Vec::new();
    let mut sockets = Vec::new();
    for (i, _, token) in terminals {
        let table = tables[*i % tables.len()].clone();
        let mut request = tokio_tungstenite::tungstenite::client::IntoClientRequest::into_client_request(format!(
            "ws://{address}/api/tables/{table}/stream"
        ))
        .map_err(io)?;
        let protocols = format!("croupier.v1, croupier-token.{token}").parse().map_err(io)?;
        request.headers_mut().insert("sec-websocket-protocol", protocols);
        let (ws, _) = tokio_tungstenite::connect_async_with_config(request, Some(socket_config()), true)
            .await
            .map_err(io)?;
        if via == Via::Websocket {
            sockets.push(ws);
            continue;
        }
        let settled_at = settled_at.clone();
        listeners.push(tokio::spawn(async move {
            let (_, mut read) = ws.split();
            while let Some(Ok(message)) = read.next().await {
                if let Ok(text) = message.to_text() {
                    note_round(text, &table, &settled_at);
                }
            }
        }));
    }
    Ok((listeners, sockets))
}

/// A reply on a table stream, as much of it as a terminal reads.
#[derive(serde::Deserialize)]
struct SocketReply<'a> {
    #[serde(rename = "ref", borrow)]
    reference: &'a str,
    #[serde(default, borrow)]
    error: Option<&'a str>,
}

/// A terminal at its table, betting until the run stops: over its table
/// stream, where requests go out on the socket and their replies come back
/// on it among the table's events, or as HTTP requests.
pub(super) struct Terminal {
    pub(super) i: usize,
    pub(super) count: usize,
    pub(super) table: String,
    pub(super) interval: Option<Duration>,
    pub(super) stop: Arc<AtomicBool>,
    pub(super) accepted: Arc<AtomicU64>,
    pub(super) refused: Arc<Refused>,
    pub(super) latencies: Acks,
    pub(super) start: Instant,
    pub(super) settled_at: Settlements,
}

/// How long a terminal waits for its last replies once the run stops.
const DRAIN_SECONDS: f64 = 5.0;

impl Terminal {
    pub(super) async fn over_socket(self, ws: Socket) {
        use tokio_tungstenite::tungstenite::Message;
        let (mut write, mut read) = ws.split();
        let mut pending: HashMap<u64, Instant> = HashMap::new();
        let mut mine = Vec::new();
        let mut n = 0u64;
        // When the next bet goes: on the schedule (open loop), or once the last one is answered.
        let mut next = Some(
            Instant::now()
                + self
                    .interval
                    .map_or(Duration::ZERO, |every| every.mul_f64(self.i as f64 / self.count as f64)),
        );
        let mut stopped_at: Option<Instant> = None;
        // One timer for the terminal, moved only when the next bet's time
        // changes: a timer made afresh on every pass (every message read) was
        // registered and dropped each time, a twentieth of the generator's work.
        let timer = tokio::time::sleep_until(next.unwrap_or_else(Instant::now).into());
        tokio::pin!(timer);
        loop {
            if stopped_at.is_none() && self.stop.load(Ordering::Relaxed) {
                stopped_at = Some(Instant::now());
                next = None;
            }
            if let Some(at) = stopped_at {
                if pending.is_empty() || at.elapsed().as_secs_f64() > DRAIN_SECONDS {
                    break;
                }
            }
            let wake = tokio::time::Instant::from(next.unwrap_or_else(|| Instant::now() + Duration::from_millis(100)));
            if timer.deadline() != wake {
                timer.as_mut().reset(wake);
            }
            tokio::select! {
                _ = &mut timer => {
                    let Some(due) = next else { continue };
                    n += 1;
                    if write.send(Message::text(self.bet(n))).await.is_err() {
                        break;
                    }
                    pending.insert(n, due);
                    next = self.interval.map(|every| due + every);
                }
                message = read.next() => {
                    let Some(Ok(message)) = message else { break };
                    let Ok(text) = message.to_text() else { continue };
                    if !text.starts_with("{\"type\":\"reply\"") {
                        note_round(text, &self.table, &self.settled_at);
                    } else if let Some(ok) = self.answered(text, &mut pending, &mut mine) {
                        if self.interval.is_none() && stopped_at.is_none() {
                            // Betting is closed between rounds: a closed-loop terminal waits a little.
                            next = Some(Instant::now() + if ok { Duration::ZERO } else { Duration::from_millis(20) });
                        }
                    }
                }
            }
        }
        if let Ok(mut l) = self.latencies.lock() {
            l.extend(mine);
        }
    }

    /// Bet `n` as the socket carries it.
    fn bet(&self, n: u64) -> String {
        // Table ids and spots need no JSON escaping: the generator spends its time on the socket.
        format!(
            r#"{{"ref":"{n}","request":{{"op":"place_bet","table":"{}","bet_id":"p{}-{n}","spot":"{}","stake":100}}}}"#,
            self.table,
            self.i,
            SPOTS[(n as usize + self.i) % SPOTS.len()]
        )
    }

    /// Counts the reply `text` to one of the bets `pending`: whether it was
    /// accepted, or `None` where the reply answers none of them.
    fn answered(&self, text: &str, pending: &mut HashMap<u64, Instant>, mine: &mut Vec<Ack>) -> Option<bool> {
        let reply = serde_json::from_str::<SocketReply>(text).ok()?;
        let reference = reply.reference.parse::<u64>().unwrap_or(0);
        let due = pending.remove(&reference)?;
        let ok = reply.error.is_none();
        if ok {
            self.accepted.fetch_add(1, Ordering::Relaxed);
            mine.push(Ack::of(self.start, due));
        } else {
            self.refused.count(reply.error);
        }
        Some(ok)
    }

    /// Bets as HTTP requests on `conn`, signed in with `token`.
    pub(super) async fn over_http(self, mut conn: Conn, token: String) {
        let Terminal {
            i,
            count,
            table,
            interval,
            stop,
            accepted,
            refused,
            start,
            ..
        } = self;
        let mut n = 0u64;
        let mut mine = Vec::new();
        let mut due = interval.map(|every| Instant::now() + every.mul_f64(i as f64 / count as f64));
        while !stop.load(Ordering::Relaxed) {
            n += 1;
            let bet = json!({"op": "place_bet", "table": table, "bet_id": format!("p{i}-{n}"), "spot": SPOTS[(n as usize + i) % SPOTS.len()], "stake": 100});
            if let Some(at) = due {
                tokio::time::sleep_until(at.into()).await;
            }
            let sent = due.unwrap_or_else(Instant::now);
            let answer = conn.call("POST", "/api/requests", Some(&token), Some(&bet)).await;
            if let (Some(at), Some(every)) = (due.as_mut(), interval) {
                *at += every;
            }
            match answer {
                Ok((200, _)) => {
                    accepted.fetch_add(1, Ordering::Relaxed);
                    mine.push(Ack::of(start, sent));
                }
                Ok((_, body)) => {
                    refused.count(body["error"].as_str());
                    // Betting is closed between rounds: a closed-loop terminal waits a little.
                    if interval.is_none() {
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                }
                Err(_) => break,
            }
        }
        if let Ok(mut l) = self.latencies.lock() {
            l.extend(mine);
        }
    }
}
