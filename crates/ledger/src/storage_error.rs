//! What a store's failure says. Every store and the files beside it (the
//! compact records, the segments, the sealed groups) answer with it, so it
//! depends on none of them.

use crate::sqlite_layout::LAYOUT;

#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// PostgreSQL's error with what its server said (a lost connection, a refusal).
    #[error("database: {0}")]
    Postgres(String),
    #[error("cannot reach the database at {at}: {why}")]
    Unreachable { at: String, why: String },
    /// A node waiting for the casino's lease that could not take it over.
    #[error("{0}")]
    NotTakenOver(String),
    #[error("entry {seq} cannot be read: {why}")]
    Unreadable { seq: u64, why: String },
    /// A record compressed under a dictionary the journal lacks or holds
    /// damaged: the entries are sound, and read again once it is put back.
    #[error("entry {seq} cannot be read: its dictionary {id} is damaged or missing ({why}); the entries under it may well be sound: put back the database from a copy rather than cut them")]
    Dictionary { seq: u64, id: u8, why: String },
    #[error(
        "the journal's database is of layout {0}, written by a later build; this build reads layouts up to {LAYOUT}"
    )]
    Layout(i64),
    /// Entries that lie in a segment whose file is in none of the folders looked in.
    #[error("entries {first} to {last} lie in the segment {file}, found in none of: {looked_in}; put it back in the data directory's segments folder, or name the folder it was archived to (--segments DIR)")]
    SegmentMissing {
        first: u64,
        last: u64,
        file: String,
        looked_in: String,
    },
    #[error("storage failed on purpose (test)")]
    Injected,
    /// Entries the disk did not take (a full disk): the journal is sound.
    #[error("the journal could not be written: {0}")]
    NotWritten(String),
    /// A commit sent whose answer never came (the connection dropped after
    /// COMMIT was sent, a flush of the disk that failed): the entries may or
    /// may not be durable, and only reading the journal again can tell.
    #[error("the journal's write may or may not have become durable: {0}")]
    OutcomeUnknown(String),
}

impl From<postgres::Error> for StorageError {
    fn from(e: postgres::Error) -> StorageError {
        StorageError::Postgres(said(&e))
    }
}

/// An error with its causes: PostgreSQL's "db error" alone says nothing,
/// the server's own words (or the socket's) are its source.
pub(crate) fn said(e: &dyn std::error::Error) -> String {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    message
}
