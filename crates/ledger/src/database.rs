//! Where a casino's journal is: SQLite in its data directory (the
//! default, one node), or a PostgreSQL server shared by several nodes.
//! [`Opened`] is either store with what a server and `croupier verify` ask
//! of it beyond the [`Storage`] contract: the seal, the head, a search for
//! the records a start looks for.

use std::path::{Path, PathBuf};

use crate::journal::Entry;
use crate::pg::PgStorage;
use crate::seal::Seal;
use crate::storage::{SealAndLast, SqliteStorage, Storage, StorageError};

/// Each call goes to the store that is open.
macro_rules! on_either {
    ($self:ident, $s:ident => $call:expr) => {
        match $self {
            Opened::Sqlite($s) => $call,
            Opened::Postgres($s) => $call,
        }
    };
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Database {
    /// `croupier.db` in this data directory.
    Sqlite(PathBuf),
    /// A PostgreSQL server, by its URL or key=value words.
    Postgres(String),
}

impl Database {
    /// The journal of a server whose data directory is `data`: there, or at
    /// `url` when one is given (`postgres://` or `postgresql://`).
    pub fn of(data: &Path, url: Option<&str>) -> Result<Database, String> {
        match url {
            None => Ok(Database::Sqlite(data.to_path_buf())),
            Some(u) if u.starts_with("postgres://") || u.starts_with("postgresql://") => {
                Ok(Database::Postgres(u.to_string()))
            }
            Some(_) => Err(
                "--database is not a PostgreSQL URL: it must begin postgres:// or postgresql:// \
                 (postgres://USER@HOST/DATABASE; what was given is not repeated, as it may hold a password); \
                 leave it out for SQLite in the data directory"
                    .into(),
            ),
        }
    }

    /// Opens it to write, as the casino's one writer. On PostgreSQL this
    /// takes the lease, waiting while another node holds it (`waiting` is
    /// asked at each try, and its error ends the wait).
    pub fn open(&self, waiting: &mut dyn FnMut() -> Result<(), String>) -> Result<Opened, StorageError> {
        self.open_leased(crate::pg::LEASE_TIMEOUT_MS, waiting)
    }

    /// [`Database::open`], holding the lease on PostgreSQL with the timeout
    /// `lease_timeout_ms` ([`crate::pg::LEASE_TIMEOUT_MS`]).
    pub fn open_leased(
        &self,
        lease_timeout_ms: u64,
        waiting: &mut dyn FnMut() -> Result<(), String>,
    ) -> Result<Opened, StorageError> {
        match self {
            Database::Sqlite(dir) => SqliteStorage::open(dir).map(Opened::Sqlite),
            Database::Postgres(url) => PgStorage::open_writer(url, lease_timeout_ms, waiting).map(Opened::Postgres),
        }
    }

    /// Opens it to read only: no lease, nothing written.
    pub fn open_read_only(&self) -> Result<Opened, StorageError> {
        match self {
            Database::Sqlite(dir) => SqliteStorage::open_read_only(dir).map(Opened::Sqlite),
            Database::Postgres(url) => PgStorage::open_read_only(url).map(Opened::Postgres),
        }
    }

    /// Where it is, as it may be shown (no password).
    pub fn shown(&self) -> String {
        match self {
            Database::Sqlite(dir) => dir.join(crate::storage::DATABASE_FILE).display().to_string(),
            Database::Postgres(url) => crate::pg::shown_url(url),
        }
    }

    pub fn is_postgres(&self) -> bool {
        matches!(self, Database::Postgres(_))
    }
}

/// A journal's store, open.
pub enum Opened {
    Sqlite(SqliteStorage),
    Postgres(PgStorage),
}

impl Opened {
    pub fn seal(&mut self) -> Result<Option<Seal>, StorageError> {
        on_either!(self, s => s.seal())
    }

    /// The seal and the last entry, read in one snapshot (a node may be writing).
    pub fn seal_and_last(&mut self) -> Result<SealAndLast, StorageError> {
        on_either!(self, s => s.seal_and_last())
    }

    /// On PostgreSQL: the database server's process that holds the casino's
    /// lease, if one does (`None` on SQLite, where a lock on the data directory does it).
    pub fn lease_holder(&mut self) -> Result<Option<crate::pg::Backend>, StorageError> {
        match self {
            Opened::Sqlite(_) => Ok(None),
            Opened::Postgres(s) => s.lease_holder(),
        }
    }

    /// On PostgreSQL, opened to write: what this node knows of the lease it holds.
    pub fn lease_watch(&self) -> Option<std::sync::Arc<crate::pg::LeaseWatch>> {
        match self {
            Opened::Sqlite(_) => None,
            Opened::Postgres(s) => s.lease_watch(),
        }
    }

    pub fn last(&mut self) -> Result<Option<(u64, [u8; 32])>, StorageError> {
        on_either!(self, s => s.last())
    }

    pub fn hash_of(&mut self, seq: u64) -> Result<Option<[u8; 32]>, StorageError> {
        on_either!(self, s => s.hash_of(seq))
    }

    pub fn seal_with(&mut self, key: [u8; 32]) {
        on_either!(self, s => s.seal_with(key))
    }

    pub fn seal_now(&mut self, key: &[u8; 32]) -> Result<Option<Seal>, StorageError> {
        on_either!(self, s => s.seal_now(key))
    }

    /// The entries after `after` and up to `last`, in order, until `f` says false.
    pub fn each_between(
        &mut self,
        after: u64,
        last: u64,
        f: &mut dyn FnMut(Entry) -> bool,
    ) -> Result<(), StorageError> {
        on_either!(self, s => s.each_between(after, last, f))
    }

    /// [`Opened::each_between`], each entry with the MAC stored beside it, if any.
    pub fn each_with_macs(
        &mut self,
        after: u64,
        last: u64,
        f: &mut dyn FnMut(Entry, Option<crate::macs::EntryMac>) -> bool,
    ) -> Result<(), StorageError> {
        on_either!(self, s => s.each_with_macs(after, last, f))
    }

    /// Each record's text after `after` and up to `last`, in order, not parsed.
    pub fn each_text(
        &mut self,
        after: u64,
        last: u64,
        f: &mut dyn FnMut(u64, &str) -> bool,
    ) -> Result<(), StorageError> {
        on_either!(self, s => s.each_text(after, last, f))
    }

    /// Each record after `after` that moves no money and whose text holds
    /// `needle`, newest first or oldest first, until `f` says false.
    pub fn each_holding(
        &mut self,
        after: u64,
        needle: &str,
        newest_first: bool,
        f: &mut dyn FnMut(u64, &str) -> bool,
    ) -> Result<(), StorageError> {
        on_either!(self, s => s.each_holding(after, needle, newest_first, f))
    }

    pub fn last_before(&mut self, seq: u64) -> Result<Option<u64>, StorageError> {
        on_either!(self, s => s.last_before(seq))
    }

    /// Entries neither the segments nor the live rows hold (SQLite; see
    /// [`SqliteStorage::missing_before_live`]): PostgreSQL keeps one table.
    pub fn missing_before_live(&mut self) -> Result<Option<(u64, u64)>, StorageError> {
        match self {
            Opened::Sqlite(s) => s.missing_before_live(),
            Opened::Postgres(_) => Ok(None),
        }
    }

    /// The last entry the journal's segments hold and its hash: PostgreSQL
    /// keeps its journal in one table, without segments.
    pub fn segments_end(&mut self) -> Result<Option<(u64, [u8; 32])>, StorageError> {
        match self {
            Opened::Sqlite(s) => s.segments_end(),
            Opened::Postgres(_) => Ok(None),
        }
    }

    /// How the records read so far were stored.
    pub fn records_read(&self) -> crate::compact::Read {
        on_either!(self, s => s.records_read())
    }

    /// The SQLite store, for what only it has (its compact records' counts, a recovery's cut).
    pub fn sqlite(&mut self) -> Option<&mut SqliteStorage> {
        match self {
            Opened::Sqlite(s) => Some(s),
            Opened::Postgres(_) => None,
        }
    }
}

impl Storage for Opened {
    fn load(&mut self) -> Result<Vec<Entry>, StorageError> {
        on_either!(self, s => s.load())
    }

    fn append(&mut self, entries: &[Entry]) -> Result<(), StorageError> {
        on_either!(self, s => s.append(entries))
    }

    fn each(&mut self, f: &mut dyn FnMut(Entry) -> bool) -> Result<(), StorageError> {
        on_either!(self, s => s.each(f))
    }

    fn each_after(&mut self, after: u64, f: &mut dyn FnMut(Entry) -> bool) -> Result<(), StorageError> {
        on_either!(self, s => s.each_after(after, f))
    }

    fn last_at_ms(&mut self) -> Result<Option<u64>, StorageError> {
        on_either!(self, s => s.last_at_ms())
    }

    fn append_owned(&mut self, entries: Vec<Entry>) -> Result<(), StorageError> {
        on_either!(self, s => s.append_owned(entries))
    }

    fn begin_group(&mut self) -> Result<(), StorageError> {
        on_either!(self, s => s.begin_group())
    }

    fn end_group(&mut self) -> Result<(), StorageError> {
        on_either!(self, s => s.end_group())
    }

    fn abort_group(&mut self) -> Result<(), StorageError> {
        on_either!(self, s => s.abort_group())
    }

    fn after_group(&mut self) {
        on_either!(self, s => s.after_group())
    }
}
