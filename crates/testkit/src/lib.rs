//! What croupier's end-to-end tests share: the server as a process of its
//! own ([`Server`]), an HTTP client for it ([`Client`]), a WebSocket client
//! for its table streams ([`Socket`]), a proxy to PostgreSQL that fails on
//! a test's word ([`Proxy`]), and temporary data folders. Each test
//! file used to carry a copy of these, each with its own hand-written
//! protocol code; one copy on the ordinary client libraries is less to trust.

mod client;
pub mod postgres;
mod proxy;
mod server;
mod socket;

pub use client::{Answer, Client};
pub use proxy::Proxy;
pub use server::{Server, ADMIN_PASSWORD};
pub use socket::Socket;

/// A folder of the test's own for a server's data (or the files a test
/// writes), in a temporary folder that also holds the data's keys folder
/// beside it (`DATA-keys`, where a server keeps its secret by default).
/// Both are removed when it is dropped: keep it for as long as the test,
/// and every server started on it, needs it.
pub struct DataDir {
    parent: tempfile::TempDir,
    data: std::path::PathBuf,
}

impl DataDir {
    /// The data folder (made, empty).
    pub fn path(&self) -> &std::path::Path {
        &self.data
    }

    /// The temporary folder the data folder and its keys are in.
    pub fn parent(&self) -> &std::path::Path {
        self.parent.path()
    }

    /// Gives `to` this data's secret, as an operator copies the keys folder
    /// to a second node of a casino on PostgreSQL.
    pub fn copy_keys_to(&self, to: &DataDir) {
        let keys_of = |data: &DataDir| data.parent().join("data-keys");
        std::fs::create_dir_all(keys_of(to)).expect("the keys folder");
        for file in std::fs::read_dir(keys_of(self)).expect("the keys") {
            let file = file.expect("a key file");
            std::fs::copy(file.path(), keys_of(to).join(file.file_name())).expect("copied");
        }
    }
}

/// A journal database's files as they are now (the log beside it included),
/// to put back later as someone with the data directory would.
pub type DatabaseFiles = Vec<(std::path::PathBuf, Option<Vec<u8>>)>;

/// The journal database's files in `data`, as they are now.
pub fn database_files(data: &std::path::Path) -> DatabaseFiles {
    ["", "-wal", "-shm"]
        .iter()
        .map(|suffix| {
            let path = data.join(format!("croupier.db{suffix}"));
            let bytes = std::fs::read(&path).ok();
            (path, bytes)
        })
        .collect()
}

/// Puts back `files` as they were, removing those that were not there.
pub fn put_back(files: &DatabaseFiles) {
    for (path, bytes) in files {
        match bytes {
            Some(bytes) => std::fs::write(path, bytes).expect("put back"),
            None => {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

pub fn data_dir() -> DataDir {
    let parent = tempfile::Builder::new()
        .prefix("croupier-")
        .tempdir()
        .expect("a temporary folder");
    let data = parent.path().join("data");
    std::fs::create_dir(&data).expect("the data folder");
    DataDir { parent, data }
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

/// `BINARY verify --data DATA --format json` with `extra` arguments (`--keys
/// DIR`...): whether it passed, and its report.
pub fn verify(binary: &str, data: &std::path::Path, extra: &[&str]) -> (bool, serde_json::Value) {
    let out = std::process::Command::new(binary)
        .args(["verify", "--format", "json", "--data"])
        .arg(data)
        .args(extra)
        .output()
        .expect("verify runs");
    let report = serde_json::from_slice(&out.stdout)
        .map_err(|e| {
            format!(
                "{e}: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        })
        .expect("verify's report is JSON");
    (out.status.success(), report)
}
