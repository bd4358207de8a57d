//! A table stream's socket: it sends the table's events as they happen, and
//! takes the requests a signed-in terminal sends on it,
//! `{"ref": ..., "request": {...}}`, answered by
//! `{"type": "reply", "ref": ..., "ok": ...}` once durable. A bet goes
//! straight to its table's writer, whose durable answer comes back through
//! the socket's own queue; any other request runs as a task of its own.
//! The socket writes every message already waiting before one flush.

use std::collections::HashMap;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::{broadcast, mpsc};

use super::following::{waiting, Following};
use crate::api::{ApiError, ClientRequest, ErrorCode, PlaceBet};
use crate::casino::Executed;
use crate::http::sessions::{SessionEnd, SessionKey};
use crate::http::state::AppState;
use crate::runtime::BetAnswer;

/// Requests a socket may have in flight before it is told to wait.
pub const SOCKET_REQUESTS_IN_FLIGHT_MAX: usize = 256;

/// Messages written to a socket with one flush: whatever else is already
/// waiting (a reply and its event, a round's settlements) goes out together.
pub const SOCKET_BATCH_MAX: usize = 64;

/// The close code of a socket whose session ended (signed out, locked, its
/// password set): one of the codes RFC 6455 leaves to applications.
pub const SESSION_OVER_CLOSE_CODE: u16 = 4001;

/// The close code of a socket closed as the casino pauses (RFC 6455's "try
/// again later"): the client reconnects once it resumes, and reloads then
/// what the table holds, which is what is durable.
pub const PAUSED_CLOSE_CODE: u16 = 1013;

/// A request sent over a table stream: `ref` is the client's, echoed in the reply.
#[derive(Deserialize)]
pub struct SocketRequest {
    #[serde(rename = "ref")]
    pub reference: String,
    pub request: ClientRequest,
}

/// A bet sent over a table stream, read as a bet directly, without the
/// buffering a request tagged by its `op` costs; it takes exactly what
/// [`SocketRequest`] takes for a bet.
#[derive(Deserialize)]
pub struct SocketBet {
    #[serde(rename = "ref")]
    pub reference: String,
    pub request: PlaceBet,
}

/// Reads a socket's text: a bet directly if it is one (its `op` given),
/// else the general way, which decides.
pub fn parse_request(text: &str) -> Result<SocketRequest, serde_json::Error> {
    match serde_json::from_str::<SocketBet>(text) {
        Ok(SocketBet {
            reference,
            request: mut bet,
        }) if bet.op.is_some() => {
            // Read as the general request reads it: the tag is the request's, not the bet's.
            bet.op = None;
            Ok(SocketRequest {
                reference,
                request: ClientRequest::PlaceBet(bet),
            })
        }
        _ => serde_json::from_str(text),
    }
}

/// The answer to a socket request, once durable (or refused): `ok`, or the
/// refusal's code and sentence. The events it caused go out on the streams,
/// this socket's included, as every other request's do.
pub fn socket_reply(reference: &str, result: Result<(), ApiError>) -> String {
    /// `type` comes first, so a client can tell a reply from an event by its first bytes.
    #[derive(serde::Serialize)]
    struct Reply<'a> {
        #[serde(rename = "type")]
        kind: &'static str,
        #[serde(rename = "ref")]
        reference: &'a str,
        ok: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<ErrorCode>,
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    }
    let (ok, error, message) = match result {
        Ok(()) => (true, None, None),
        Err(e) => (false, Some(e.code), Some(e.message)),
    };
    serde_json::to_string(&Reply {
        kind: "reply",
        reference,
        ok,
        error,
        message,
    })
    .unwrap_or_default()
}

/// A request of this socket's in flight.
struct InFlight {
    reference: String,
    /// A bet, whose events the socket shows when its answer comes; any other
    /// request showed its own before answering.
    bet: bool,
}

/// The socket's requests in flight, by the tag each answer comes back with.
struct Requests {
    next: u64,
    waiting: HashMap<u64, InFlight>,
    answers: mpsc::Sender<BetAnswer>,
}

/// Waits until the socket's session is over; forever for a socket opened without one.
async fn session_over(ended: &mut Option<SessionEnd>) {
    match ended {
        Some(ended) => ended.over().await,
        None => std::future::pending().await,
    }
}

/// Resolves once the casino is paused.
async fn casino_paused(pauses: &mut tokio::sync::watch::Receiver<bool>) {
    if pauses.wait_for(|paused| *paused).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// Whether the socket's session is over already.
fn is_over(ended: &Option<SessionEnd>) -> bool {
    ended.as_ref().is_some_and(SessionEnd::is_over)
}

/// A socket signed in with `session` (`ended` says when that ends) sends
/// its table's events and takes its requests until the client leaves or
/// the session ends: then the socket is closed with
/// [`SESSION_OVER_CLOSE_CODE`], and sends nothing more.
pub async fn forward(
    state: AppState,
    table: String,
    (session, mut ended): (Option<SessionKey>, Option<SessionEnd>),
    mut socket: WebSocket,
    first: broadcast::Receiver<Utf8Bytes>,
    second: Option<broadcast::Receiver<Utf8Bytes>>,
) {
    use futures_util::SinkExt;
    let (answers, mut answered) = mpsc::channel::<BetAnswer>(SOCKET_REQUESTS_IN_FLIGHT_MAX);
    let mut requests = Requests {
        next: 0,
        waiting: HashMap::new(),
        answers,
    };
    let mut first = Following::new(first);
    let mut second = second.map(Following::new);
    let mut pauses = state.floor.health().pauses();
    loop {
        // An event's text is shared by every socket that sends it, not copied.
        let outgoing: Utf8Bytes = tokio::select! {
            () = session_over(&mut ended) => break,
            () = casino_paused(&mut pauses) => {
                // What the socket showed may hold work the disk did not take.
                let paused = CloseFrame {
                    code: PAUSED_CLOSE_CODE,
                    reason: Utf8Bytes::from_static("the casino is paused: its journal cannot be written"),
                };
                let _ = socket.send(Message::Close(Some(paused))).await;
                return;
            }
            text = std::future::poll_fn(|cx| first.poll_event(cx)) => match text {
                Some(text) => text,
                None => break,
            },
            text = std::future::poll_fn(|cx| match second.as_mut() {
                Some(own) => own.poll_event(cx),
                None => std::task::Poll::Pending,
            }) => match text {
                Some(text) => text,
                None => break,
            },
            Some(answer) = answered.recv() => Utf8Bytes::from(reply_to(&state, &mut requests, answer)),
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Text(text))) => {
                    let Some(reply) = take_request(&state, &table, session.as_ref(), &text, &mut requests) else {
                        continue;
                    };
                    Utf8Bytes::from(reply)
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                Some(Ok(_)) => continue,
            },
        };
        // A session that ended while the socket waited sends nothing more.
        if is_over(&ended) || socket.feed(Message::Text(outgoing)).await.is_err() {
            break;
        }
        // Each channel stays in order; a write per message would cost a system call each.
        let mut batched = 1;
        while batched < SOCKET_BATCH_MAX {
            let mut next = waiting(&mut first).await;
            if next.is_none() {
                if let Some(own) = second.as_mut() {
                    next = waiting(own).await;
                }
            }
            let next = next.or_else(|| {
                answered
                    .try_recv()
                    .ok()
                    .map(|answer| Utf8Bytes::from(reply_to(&state, &mut requests, answer)))
            });
            let Some(text) = next else { break };
            if is_over(&ended) {
                break;
            }
            if socket.feed(Message::Text(text)).await.is_err() {
                return;
            }
            batched += 1;
        }
        if socket.flush().await.is_err() {
            return;
        }
    }
    if is_over(&ended) {
        tracing::info!(table, "a table stream's session is over: closing its socket");
        let over = CloseFrame {
            code: SESSION_OVER_CLOSE_CODE,
            reason: Utf8Bytes::from_static("the session is over"),
        };
        let _ = socket.send(Message::Close(Some(over))).await;
    }
}

/// The reply to send for a request's answer; a bet's events are shown first.
fn reply_to(state: &AppState, requests: &mut Requests, answer: BetAnswer) -> String {
    let Some(InFlight { reference, bet }) = requests.waiting.remove(&answer.tag) else {
        return String::new();
    };
    let result = if bet {
        state.floor.shown(answer.result).map(|_| ())
    } else {
        answer.result.map(|_| ())
    };
    socket_reply(&reference, result)
}

/// Starts a request that came over a socket; returns a reply to send at once
/// when it cannot start (not signed in, not a request, too many in flight).
fn take_request(
    state: &AppState,
    table: &str,
    session: Option<&SessionKey>,
    text: &str,
    requests: &mut Requests,
) -> Option<String> {
    let parsed = parse_request(text);
    // Only a request that does not parse needs a second look for its ref.
    let reference = match &parsed {
        Ok(r) => r.reference.clone(),
        Err(_) => serde_json::from_str::<Value>(text)
            .ok()
            .and_then(|v| v.get("ref").and_then(Value::as_str).map(str::to_string))
            .unwrap_or_default(),
    };
    // The session is looked up for every request: signing out stops the socket's requests too.
    let now = state.floor.clock().now_ms();
    let Some(actor) = session.and_then(|key| state.sessions.get_by_key(key, now)) else {
        let e = ApiError::new(
            ErrorCode::Unauthenticated,
            "open the stream with a current session's token (the subprotocol croupier-token.TOKEN) to send requests",
        );
        return Some(socket_reply(&reference, Err(e)));
    };
    let request = match parsed {
        Ok(r) => r.request,
        Err(e) => {
            let e = ApiError::new(
                ErrorCode::BadRequest,
                format!("expected {{\"ref\": ..., \"request\": {{\"op\": ...}}}}: {e}"),
            );
            return Some(socket_reply(&reference, Err(e)));
        }
    };
    // A table's stream takes the requests of that table alone. The cage's
    // (users, passwords, cash, coupons, new tables) go over HTTP, where
    // their sessions' effects and the guessing throttle are.
    match request.table() {
        Some(t) if t == table => {}
        Some(other) => {
            let e = ApiError::new(
                ErrorCode::BadRequest,
                format!(
                    "this stream is table {table}'s: send requests for table {other} on its own stream or over HTTP"
                ),
            );
            return Some(socket_reply(&reference, Err(e)));
        }
        None => {
            let e = ApiError::new(
                ErrorCode::BadRequest,
                format!("this stream takes table {table}'s requests; send this one to POST /api/requests"),
            );
            return Some(socket_reply(&reference, Err(e)));
        }
    }
    if requests.waiting.len() >= SOCKET_REQUESTS_IN_FLIGHT_MAX {
        let e = ApiError::new(
            ErrorCode::Busy,
            format!("at most {SOCKET_REQUESTS_IN_FLIGHT_MAX} requests in flight per socket; wait for replies"),
        );
        return Some(socket_reply(&reference, Err(e)));
    }
    let tag = requests.next;
    requests.next += 1;
    let bet = matches!(request, ClientRequest::PlaceBet(_));
    match request {
        ClientRequest::PlaceBet(place) => {
            if let Err(e) = state.floor.bet_from_socket(actor, place, requests.answers.clone(), tag) {
                return Some(socket_reply(&reference, Err(e)));
            }
        }
        other => {
            let (floor, answers) = (state.floor.clone(), requests.answers.clone());
            tokio::spawn(async move {
                let result = floor.submit(actor, other).await.map(|_| Executed::default());
                let _ = answers.send(BetAnswer { tag, result }).await;
            });
        }
    }
    requests.waiting.insert(tag, InFlight { reference, bet });
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bet_read_directly_is_the_bet_the_general_way_reads() {
        let texts = [
            r#"{"ref":"1","request":{"op":"place_bet","table":"t1","bet_id":"a","spot":"red","stake":100}}"#,
            r#"{"request":{"stake":100,"spot":"17","bet_id":"b","table":"t1","op":"place_bet"},"ref":"2"}"#,
            r#"{"ref":"3","request":{"op":"place_bet","table":"t1","bet_id":"c","spot":"red","stake":100,"zero_choice":"prison","coupon":500}}"#,
            r#"{"ref":"4","request":{"op":"place_bet","table":"t1","bet_id":"d","spot":"red","stake":100,"zero_choice":null,"coupon":null}}"#,
            r#"{"ref":"5","extra":1,"request":{"op":"place_bet","table":"t1","bet_id":"e","spot":"red","stake":100}}"#,
            r#"{"ref":"6","request":{"op":"place_bet","table":"t1","bet_id":"f","spot":"red","stake":100,"colour":"red"}}"#,
            r#"{"ref":"7","request":{"op":"place_bet","table":"t1","bet_id":"g","spot":"red","stake":-1}}"#,
            r#"{"ref":"8","request":{"op":"place_bet","table":"t1","bet_id":"h","spot":"red"}}"#,
            r#"{"ref":"9","request":{"op":"cancel_bet","table":"t1","bet_id":"a"}}"#,
            r#"{"ref":"10","request":{"op":"place_bet","table":"t1","bet_id":"i","spot":"red","stake":100,"stake":200}}"#,
            r#"{"ref":"11","request":{"table":"t1","bet_id":"j","spot":"red","stake":100}}"#,
        ];
        let mut direct = 0;
        for text in texts {
            let general = serde_json::from_str::<SocketRequest>(text);
            match serde_json::from_str::<SocketBet>(text) {
                Ok(bet) if bet.request.op.is_some() => {
                    direct += 1;
                    let read = parse_request(text).unwrap_or_else(|e| panic!("{text}: {e}"));
                    let general = general.unwrap_or_else(|e| panic!("{text}: read directly, refused generally: {e}"));
                    assert_eq!(
                        (read.reference, read.request),
                        (general.reference, general.request),
                        "{text}"
                    );
                }
                // Whatever the direct way refuses goes the general way, which decides.
                _ => assert!(
                    general.is_err() || !matches!(general.as_ref().map(|r| &r.request), Ok(ClientRequest::PlaceBet(_))),
                    "{text}: a bet the direct way refused"
                ),
            }
        }
        assert_eq!(direct, 5, "the five well-formed bets are read directly");
    }
}
