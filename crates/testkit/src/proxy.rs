//! A TCP proxy between a node and the test's PostgreSQL cluster that fails
//! on a test's word, as networks do: it drops a connection right after
//! passing on a COMMIT (the commit happens, its answer never arrives), or
//! right before a message (nothing of that transaction is committed), or it
//! cuts every connection silently (nothing more passes either way, and
//! nothing is closed: neither side hears a thing, as when packets are
//! dropped). It reads the client's side message by message (the protocol's
//! framing only); the server's side passes as it comes.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};

/// What the proxy does to the next connection that sends a message holding a test's words.
#[derive(Clone)]
enum Armed {
    Nothing,
    /// The COMMIT of the transaction that sent them is passed on, and the
    /// connection dropped before its answer comes back.
    DropAfterCommit(Vec<u8>),
    /// The connection is dropped instead of passing the message on.
    DropBefore(Vec<u8>),
}

struct Shared {
    armed: Mutex<Armed>,
    /// Whether the armed failure happened.
    fired: AtomicBool,
    /// Nothing passes any more, and nothing is closed.
    cut: AtomicBool,
}

impl Shared {
    fn cut(&self) -> bool {
        self.cut.load(Ordering::SeqCst)
    }

    fn armed(&self) -> Armed {
        self.armed.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The armed failure happens now: once.
    fn fire(&self) {
        *self.armed.lock().unwrap_or_else(|p| p.into_inner()) = Armed::Nothing;
        self.fired.store(true, Ordering::SeqCst);
    }
}

/// The proxy, listening on a loopback port of its own until dropped.
pub struct Proxy {
    url: String,
    shared: Arc<Shared>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        // Every connection ends with it, held ones included.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// SSLRequest and GSSENCRequest: the client's first message may be one, and another untyped one follows.
const SSL_REQUEST: u32 = 80_877_103;
const GSSENC_REQUEST: u32 = 80_877_104;

impl Proxy {
    /// A proxy to the server of `url` (`postgres://USER@HOST:PORT/DATABASE`).
    pub fn start(url: &str) -> Proxy {
        let (head, rest) = url.split_once('@').expect("a URL with a user");
        let (upstream, database) = rest.split_once('/').expect("a URL with a database");
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("the proxy's runtime");
        let listener = runtime
            .block_on(TcpListener::bind("127.0.0.1:0"))
            .expect("the proxy listens");
        let address: SocketAddr = listener.local_addr().expect("its address");
        let shared = Arc::new(Shared {
            armed: Mutex::new(Armed::Nothing),
            fired: AtomicBool::new(false),
            cut: AtomicBool::new(false),
        });
        let (accepting, upstream) = (shared.clone(), upstream.to_string());
        runtime.spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let _ = client.set_nodelay(true);
                tokio::spawn(relay(client, upstream.clone(), accepting.clone()));
            }
        });
        Proxy {
            url: format!("{head}@{address}/{database}"),
            shared,
            runtime: Some(runtime),
        }
    }

    /// The database's URL through the proxy.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The next transaction that sends `words` has its COMMIT passed on and
    /// its connection dropped before the answer: committed, unanswered.
    pub fn drop_after_commit(&self, words: &str) {
        *self.shared.armed.lock().unwrap_or_else(|p| p.into_inner()) =
            Armed::DropAfterCommit(words.as_bytes().to_vec());
    }

    /// The next message that holds `words` is not passed on: its connection is dropped instead.
    pub fn drop_before(&self, words: &str) {
        *self.shared.armed.lock().unwrap_or_else(|p| p.into_inner()) = Armed::DropBefore(words.as_bytes().to_vec());
    }

    /// Whether the failure armed has happened.
    pub fn fired(&self) -> bool {
        self.shared.fired.load(Ordering::SeqCst)
    }

    /// From now on nothing passes, either way, on any connection, and
    /// nothing is closed; new connections are taken and held, unanswered.
    pub fn cut(&self) {
        self.shared.cut.store(true, Ordering::SeqCst);
    }
}

/// Keeps what it is given open, passing nothing, until the proxy is dropped.
async fn hold<T>(held: T) {
    std::future::pending::<()>().await;
    drop(held);
}

async fn relay(client: TcpStream, upstream: String, shared: Arc<Shared>) {
    if shared.cut() {
        return hold(client).await;
    }
    let Ok(server) = TcpStream::connect(&upstream).await else {
        return;
    };
    let _ = server.set_nodelay(true);
    let (from_client, to_client) = client.into_split();
    let (from_server, to_server) = server.into_split();
    // Set once the client's connection is given up: the server's answers are read and thrown away.
    let unanswered = Arc::new(AtomicBool::new(false));
    let answers = tokio::spawn(answers(from_server, to_client, shared.clone(), unanswered.clone()));
    requests(from_client, to_server, &shared, &unanswered, answers).await;
}

/// The server's side, to the client, as it comes.
async fn answers(
    mut from_server: OwnedReadHalf,
    mut to_client: OwnedWriteHalf,
    shared: Arc<Shared>,
    unanswered: Arc<AtomicBool>,
) {
    let mut buf = vec![0u8; 16 * 1024];
    // What the server sent since the COMMIT was passed on, thrown away.
    let mut withheld = Vec::new();
    loop {
        let read = from_server.read(&mut buf).await;
        if shared.cut() {
            return hold((from_server, to_client)).await;
        }
        let n = match read {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if unanswered.load(Ordering::SeqCst) {
            // The client may have sent the COMMIT before the end of the answer
            // before it (the protocol pipelines): what comes is withheld until
            // the COMMIT's own completion, so the commit is made. Then the
            // client's connection closes without it, and the server's a moment later.
            withheld.extend_from_slice(&buf[..n]);
            if holds(&withheld, b"COMMIT\0") || holds(&withheld, b"ROLLBACK\0") {
                drop(to_client);
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                return;
            }
            continue;
        }
        if to_client.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}

/// The client's side, to the server, message by message.
async fn requests(
    mut from_client: OwnedReadHalf,
    mut to_server: OwnedWriteHalf,
    shared: &Shared,
    unanswered: &AtomicBool,
    answers: tokio::task::JoinHandle<()>,
) {
    let mut startup = true;
    // The current transaction sent the words armed.
    let mut holding = false;
    loop {
        let message = read_message(&mut from_client, startup).await;
        if shared.cut() {
            return hold((from_client, to_server, answers)).await;
        }
        let Some(message) = message else {
            // The client closed: the server hears of it, as it would.
            return;
        };
        if startup {
            let code = message
                .get(4..8)
                .map_or(0, |c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]));
            startup = code == SSL_REQUEST || code == GSSENC_REQUEST;
        } else {
            match shared.armed() {
                Armed::DropBefore(words) if holds(&message, &words) => {
                    shared.fire();
                    answers.abort();
                    return;
                }
                Armed::DropAfterCommit(words) => {
                    holding |= holds(&message, &words);
                    let commit = message[0] == b'Q' && message[5..].to_ascii_uppercase().starts_with(b"COMMIT");
                    if holding && commit {
                        shared.fire();
                        unanswered.store(true, Ordering::SeqCst);
                        let _ = to_server.write_all(&message).await;
                        // Nothing more from this client reaches the server.
                        let _ = answers.await;
                        return;
                    }
                }
                _ => {}
            }
        }
        if to_server.write_all(&message).await.is_err() {
            return;
        }
    }
}

fn holds(message: &[u8], words: &[u8]) -> bool {
    !words.is_empty() && message.windows(words.len()).any(|w| w == words)
}

/// One message of the client's: untyped (length, then body) while starting
/// up, typed (a byte, length, body) after. `None` at the end of the connection.
async fn read_message(from: &mut OwnedReadHalf, startup: bool) -> Option<Vec<u8>> {
    let mut message = Vec::with_capacity(64);
    if !startup {
        message.push(from.read_u8().await.ok()?);
    }
    let length = from.read_u32().await.ok()?;
    message.extend_from_slice(&length.to_be_bytes());
    let body = usize::try_from(length).ok()?.checked_sub(4)?;
    let start = message.len();
    message.resize(start + body, 0);
    from.read_exact(&mut message[start..]).await.ok()?;
    Some(message)
}
