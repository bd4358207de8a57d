//! How a store seals the journal as it writes, and keeps a group's appends
//! together: one protocol for SQLite and PostgreSQL, over each one's own
//! client. A group's appends are durable only together, with the seal of
//! the last of them in the same transaction; a group that fails leaves the
//! seal where it was.

use crate::seal::Seal;
use crate::storage_error::StorageError;

/// A store's state in the protocol.
#[derive(Debug, Default)]
pub(crate) struct Sealer {
    /// A group is open.
    pub(crate) grouped: bool,
    /// The key the journal is sealed with as it is written.
    pub(crate) key: Option<[u8; 32]>,
    /// The key each entry's MAC is made under, derived from `key`.
    pub(crate) entry_key: Option<crate::macs::EntryKey>,
    /// The head appended since the seal was last written.
    pub(crate) unsealed: Option<(u64, [u8; 32])>,
    /// The unsealed head when the open group began, for a group undone.
    pub(crate) unsealed_at_group: Option<(u64, [u8; 32])>,
}

impl Sealer {
    /// Seals with `key` from now on: the head with each append, and each entry as it is written.
    pub(crate) fn seal_with(&mut self, key: [u8; 32]) {
        self.key = Some(key);
        self.entry_key = Some(crate::macs::EntryKey::of(&key));
    }

    /// The MAC the entry `seq`, whose hash is `hash`, is stored with (none without a key).
    pub(crate) fn mac(&self, seq: u64, hash: &[u8; 32]) -> Option<crate::macs::EntryMac> {
        self.entry_key.as_ref().map(|k| k.mac(seq, hash))
    }
}

/// What a store does for the protocol.
pub(crate) trait Transactions {
    fn sealer(&mut self) -> &mut Sealer;
    /// Runs one of the protocol's statements (`BEGIN`, `COMMIT`, `ROLLBACK`).
    fn run(&mut self, statement: &str) -> Result<(), StorageError>;
    fn write_seal(&mut self, seal: &Seal) -> Result<(), StorageError>;
    /// Commits the open transaction. A failure says whether the commit may
    /// have happened all the same ([`StorageError::OutcomeUnknown`]) or
    /// certainly did not: the answer a client gets depends on it.
    fn commit(&mut self) -> Result<(), StorageError> {
        self.run("COMMIT").map_err(sqlite_commit_failed)
    }
}

/// What a failed COMMIT of SQLite means. A full disk refuses the log's
/// frames as they are written: no commit frame, nothing changed. An I/O
/// error is told after part of the frames, or all of them, reached the
/// file, as when the flush of a written commit fails (`SQLITE_IOERR_FSYNC`):
/// the log may hold the commit, and a start's recovery of the log would
/// then read it, so its outcome is unknown. Any other refusal (a lock, a
/// constraint) is told before anything is written.
pub(crate) fn sqlite_commit_failed(e: StorageError) -> StorageError {
    match &e {
        StorageError::Sqlite(rusqlite::Error::SqliteFailure(failure, _))
            if failure.code == rusqlite::ErrorCode::SystemIoFailure =>
        {
            StorageError::OutcomeUnknown(format!(
                "the disk failed as the commit was written or flushed ({e}); the entries may be on it"
            ))
        }
        _ => e,
    }
}

/// Writes the seal of what was appended since the last one, if sealing.
pub(crate) fn write_pending_seal(store: &mut impl Transactions) -> Result<(), StorageError> {
    let sealer = store.sealer();
    if let (Some(key), Some((seq, hash))) = (sealer.key, sealer.unsealed) {
        store.write_seal(&Seal::new(&key, seq, hash))?;
        store.sealer().unsealed = None;
    }
    Ok(())
}

/// Opens a group with `begin` unless one is open.
pub(crate) fn begin_group(store: &mut impl Transactions, begin: &str) -> Result<(), StorageError> {
    if !store.sealer().grouped {
        store.run(begin)?;
        let sealer = store.sealer();
        sealer.grouped = true;
        sealer.unsealed_at_group = sealer.unsealed;
    }
    Ok(())
}

/// Commits the open group with its seal, or undoes all of it.
pub(crate) fn end_group(store: &mut impl Transactions) -> Result<(), StorageError> {
    if !store.sealer().grouped {
        return Ok(());
    }
    store.sealer().grouped = false;
    // The group's seal commits with the group's entries.
    let committed = write_pending_seal(store).and_then(|()| store.commit());
    if let Err(e) = committed {
        let _ = store.run("ROLLBACK");
        let sealer = store.sealer();
        sealer.unsealed = sealer.unsealed_at_group;
        return Err(e);
    }
    Ok(())
}

/// Undoes the open group, and the seal's progress with it.
pub(crate) fn abort_group(store: &mut impl Transactions) -> Result<(), StorageError> {
    if !store.sealer().grouped {
        return Ok(());
    }
    let sealer = store.sealer();
    sealer.grouped = false;
    sealer.unsealed = sealer.unsealed_at_group;
    store.run("ROLLBACK")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A store whose COMMIT fails with SQLite's `code`, extended `extended`.
    struct FailingCommit {
        sealer: Sealer,
        failure: (rusqlite::ffi::ErrorCode, i32),
        ran: Vec<String>,
    }

    impl Transactions for FailingCommit {
        fn sealer(&mut self) -> &mut Sealer {
            &mut self.sealer
        }
        fn run(&mut self, statement: &str) -> Result<(), StorageError> {
            self.ran.push(statement.to_string());
            if statement != "COMMIT" {
                return Ok(());
            }
            let (code, extended) = self.failure;
            let mut failure = rusqlite::ffi::Error::new(extended);
            failure.code = code;
            Err(StorageError::Sqlite(rusqlite::Error::SqliteFailure(failure, None)))
        }
        fn write_seal(&mut self, _: &Seal) -> Result<(), StorageError> {
            Ok(())
        }
    }

    fn ended_with(failure: (rusqlite::ffi::ErrorCode, i32)) -> StorageError {
        let mut store = FailingCommit {
            sealer: Sealer::default(),
            failure,
            ran: Vec::new(),
        };
        begin_group(&mut store, "BEGIN").expect("begun");
        let failed = end_group(&mut store).expect_err("the commit fails");
        assert_eq!(store.ran, ["BEGIN", "COMMIT", "ROLLBACK"]);
        failed
    }

    #[test]
    fn a_commit_whose_flush_failed_is_of_unknown_outcome_a_full_disk_changed_nothing() {
        use rusqlite::ffi;
        // The log's frames written and their flush failed: they may be on the disk.
        let fsync = ended_with((ffi::ErrorCode::SystemIoFailure, ffi::SQLITE_IOERR_FSYNC));
        assert!(matches!(fsync, StorageError::OutcomeUnknown(_)), "{fsync}");
        let write = ended_with((ffi::ErrorCode::SystemIoFailure, ffi::SQLITE_IOERR_WRITE));
        assert!(matches!(write, StorageError::OutcomeUnknown(_)), "{write}");
        // A full disk refuses the frames themselves: no commit frame, nothing changed.
        let full = ended_with((ffi::ErrorCode::DiskFull, ffi::SQLITE_FULL));
        assert!(matches!(full, StorageError::Sqlite(_)), "{full}");
        let busy = ended_with((ffi::ErrorCode::DatabaseBusy, ffi::SQLITE_BUSY));
        assert!(matches!(busy, StorageError::Sqlite(_)), "{busy}");
    }
}
