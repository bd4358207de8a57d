//! A table stream from a test's side, with tungstenite: a terminal or a
//! display board on `/api/tables/{table}/stream`.

use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::Value;
use tungstenite::{HandshakeError, Message, WebSocket};

/// How long a test waits for the next frame before it gives up on the server.
const READ_TIMEOUT: Duration = Duration::from_secs(30);

/// An open table stream.
pub struct Socket {
    ws: WebSocket<TcpStream>,
}

/// The handshake for `table`'s stream at `address`: the socket, or the
/// status of the answer that refused it.
fn handshake(address: &str, table: &str, token: Option<&str>) -> Result<Socket, u16> {
    let tcp = TcpStream::connect(address).expect("connect");
    // A server that stops answering fails the test instead of hanging it.
    tcp.set_read_timeout(Some(READ_TIMEOUT)).expect("timeout");
    let url = format!("ws://{address}/api/tables/{table}/stream");
    let mut request = tungstenite::client::IntoClientRequest::into_client_request(url.as_str()).expect("a request");
    if let Some(token) = token {
        // As the pages send it: the token among the subprotocols, never in the URL.
        let protocols = format!("croupier.v1, croupier-token.{token}");
        request
            .headers_mut()
            .insert("sec-websocket-protocol", protocols.parse().expect("a header"));
    }
    let opened = tungstenite::client(request, tcp);
    if let Err(HandshakeError::Failure(tungstenite::Error::Http(response))) = &opened {
        return Err(response.status().as_u16());
    }
    let (ws, _) = opened.expect("the stream's handshake");
    Ok(Socket { ws })
}

impl Socket {
    /// Opens `table`'s stream at `address`, signed in with `token` (offered as
    /// the subprotocol `croupier-token.TOKEN`, as the pages do) or as a
    /// display board without one. The server must accept it.
    pub fn connect(address: &str, table: &str, token: Option<&str>) -> Socket {
        handshake(address, table, token)
            .map_err(|status| format!("the stream was refused with {status}"))
            .expect("the stream opens")
    }

    /// Asks to open `table`'s stream: the HTTP status of the answer, given
    /// before any upgrade (101 where the stream opened).
    pub fn handshake_status(address: &str, table: &str, token: Option<&str>) -> u16 {
        match handshake(address, table, token) {
            Ok(_) => 101,
            Err(status) => status,
        }
    }

    /// Sends `text` as a text frame.
    pub fn send(&mut self, text: &str) {
        self.try_send(text).expect("send frame");
    }

    /// [`Socket::send`], with an error where the server is gone. (The error is
    /// boxed: tungstenite's is large, and a test only asks whether there was one.)
    pub fn try_send(&mut self, text: &str) -> Result<(), Box<tungstenite::Error>> {
        self.ws.send(Message::text(text)).map_err(Box::new)
    }

    /// The next frame, as JSON.
    pub fn next_frame(&mut self) -> Value {
        self.try_next_frame().expect("a JSON frame")
    }

    /// [`Socket::next_frame`], with an error where the server is gone or the frame is not JSON.
    pub fn try_next_frame(&mut self) -> Result<Value, Box<tungstenite::Error>> {
        loop {
            let payload = match self.ws.read().map_err(Box::new)? {
                Message::Text(text) => text.as_bytes().to_vec(),
                Message::Binary(bytes) => bytes.to_vec(),
                // Pings are answered by tungstenite itself; they carry no event.
                Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => continue,
                Message::Close(_) => return Err(Box::new(tungstenite::Error::ConnectionClosed)),
            };
            return serde_json::from_slice(&payload).map_err(|e| {
                Box::new(tungstenite::Error::Io(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    e,
                )))
            });
        }
    }

    /// Reads until the server closes the socket, passing over its events:
    /// the close frame's code and reason, or what happened instead (no
    /// close frame, or none within `limit`).
    pub fn closed_within(&mut self, limit: Duration) -> Result<(u16, String), String> {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(format!("still open after {limit:?}"));
            }
            self.ws
                .get_mut()
                .set_read_timeout(Some(left))
                .map_err(|e| e.to_string())?;
            match self.ws.read() {
                Ok(Message::Close(Some(frame))) => return Ok((u16::from(frame.code), frame.reason.to_string())),
                Ok(Message::Close(None)) => return Err("closed without a code".into()),
                Ok(_) => continue,
                Err(tungstenite::Error::Io(e))
                    if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) =>
                {
                    return Err(format!("still open after {limit:?}"))
                }
                Err(e) => return Err(format!("ended without a close frame: {e}")),
            }
        }
    }

    /// The next frame that is a reply to a request sent on this socket,
    /// passing over the table's events.
    pub fn next_reply(&mut self) -> Value {
        loop {
            let frame = self.next_frame();
            if frame["type"] == "reply" {
                return frame;
            }
        }
    }
}
