//! Just enough HTTP/1.1 for the bench's JSON calls: a keep-alive
//! connection, a request that must succeed, and a sign-in.

use std::net::SocketAddr;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use super::io;
use crate::Failure;

/// A keep-alive HTTP/1.1 connection with just enough of the protocol for JSON calls.
pub(super) struct Conn {
    address: SocketAddr,
    reader: BufReader<TcpStream>,
}

impl Conn {
    pub(super) async fn open(address: SocketAddr) -> std::io::Result<Conn> {
        Ok(Conn {
            address,
            reader: Conn::connect(address).await?,
        })
    }

    async fn connect(address: SocketAddr) -> std::io::Result<BufReader<TcpStream>> {
        let stream = TcpStream::connect(address).await?;
        stream.set_nodelay(true)?;
        Ok(BufReader::new(stream))
    }

    pub(super) async fn call(
        &mut self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> std::io::Result<(u16, Value)> {
        let (status, bytes) = self.fetch(method, path, token, body).await?;
        Ok((status, serde_json::from_slice(&bytes).unwrap_or(Value::Null)))
    }

    /// A call whose answer is kept as bytes. A connection the server closed
    /// while it sat idle (its keep-alive ended, as HTTP lets it) is opened
    /// again and the request sent once more: every request that moves money
    /// carries its id, so a second sending moves nothing twice.
    pub(super) async fn fetch(
        &mut self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> std::io::Result<(u16, Vec<u8>)> {
        use std::io::ErrorKind::{BrokenPipe, ConnectionAborted, ConnectionReset};
        match self.fetch_once(method, path, token, body).await {
            Ok(Some(answer)) => return Ok(answer),
            Ok(None) => {}
            Err(e) if matches!(e.kind(), BrokenPipe | ConnectionReset | ConnectionAborted) => {}
            Err(e) => return Err(e),
        }
        self.reader = Conn::connect(self.address).await?;
        self.fetch_once(method, path, token, body).await?.ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the server closed a new connection without answering",
            )
        })
    }

    /// One sending; `None` if the connection was closed before any answer.
    async fn fetch_once(
        &mut self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> std::io::Result<Option<(u16, Vec<u8>)>> {
        let body = body.map(Value::to_string).unwrap_or_default();
        let auth = token
            .map(|t| format!("Authorization: Bearer {t}\r\n"))
            .unwrap_or_default();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: bench\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        let stream = self.reader.get_mut();
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(body.as_bytes()).await?;
        let mut line = String::new();
        if self.reader.read_line(&mut line).await? == 0 {
            return Ok(None);
        }
        let status = line.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        let mut length = 0usize;
        loop {
            line.clear();
            self.reader.read_line(&mut line).await?;
            if line == "\r\n" || line.is_empty() {
                break;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().unwrap_or(0);
            }
        }
        let mut buf = vec![0u8; length];
        self.reader.read_exact(&mut buf).await?;
        Ok(Some((status, buf)))
    }
}

pub(super) async fn expect_ok(conn: &mut Conn, token: &str, request: Value) -> Result<Value, Failure> {
    let (status, body) = conn
        .call("POST", "/api/requests", Some(token), Some(&request))
        .await
        .map_err(io)?;
    if status != 200 {
        return Err(anyhow::anyhow!("{request}: {status} {body}").into());
    }
    Ok(body)
}

pub(super) async fn login(address: SocketAddr, user: &str, password: &str) -> Result<(Conn, String), Failure> {
    let mut conn = Conn::open(address).await.map_err(io)?;
    let (status, body) = conn
        .call(
            "POST",
            "/api/login",
            None,
            Some(&json!({"username": user, "password": password})),
        )
        .await
        .map_err(io)?;
    let token = body["token"]
        .as_str()
        .filter(|_| status == 200)
        .ok_or_else(|| io(format!("login {user}: {body}")))?;
    Ok((conn, token.to_string()))
}
