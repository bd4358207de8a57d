//! What croupier's end-to-end tests share: the server as a process of its
//! own ([`Server`]), an HTTP client for it ([`Client`]), a WebSocket client
//! for its table streams ([`Socket`]), and temporary data folders. Each test
//! file used to carry a copy of these, each with its own hand-written
//! protocol code; one copy on the ordinary client libraries is less to trust.

mod client;
mod server;
mod socket;

pub use client::{Answer, Client};
pub use server::Server;
pub use socket::Socket;

/// An empty folder of the test's own (a server's data folder, or one for the
/// files a test writes), removed when the returned value is dropped: keep it
/// for as long as the test, and every server started on it, needs it.
pub fn data_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("croupier-")
        .tempdir()
        .expect("a temporary folder")
}

/// A loopback port that was free a moment ago. Another process may take it
/// before the caller binds it; the tests accept that small chance for
/// servers that can be told their address up front.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}
