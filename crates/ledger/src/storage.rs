//! Where the journal lives.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rusqlite::{params, Connection, OpenFlags, OptionalExtension};

use crate::compact::{self, Codec};
use crate::journal::{Entry, Record};
use crate::macs::{EntryMac, MAC_BYTES};
use crate::seal::Seal;
use crate::segments::{self, Segment};

pub use crate::sqlite_layout::{DATABASE_FILE, LAYOUT};
pub use crate::storage_error::StorageError;

/// A journal's seal and its last entry (number and hash), read together.
pub type SealAndLast = (Option<Seal>, Option<(u64, [u8; 32])>);

/// An append-only store of journal entries. `append` is atomic and durable
/// when it returns: all of the batch or none of it.
pub trait Storage {
    fn load(&mut self) -> Result<Vec<Entry>, StorageError>;
    fn append(&mut self, entries: &[Entry]) -> Result<(), StorageError>;

    /// Hands each entry, in order, to `f` until it says false: a store on
    /// disk reads them one at a time, so that opening a journal of any length
    /// holds one entry at once, not the journal.
    fn each(&mut self, f: &mut dyn FnMut(Entry) -> bool) -> Result<(), StorageError> {
        for entry in self.load()? {
            if !f(entry) {
                break;
            }
        }
        Ok(())
    }

    /// [`Storage::each`] from the entry after `after` on: a start from a
    /// checkpoint reads only what follows it.
    fn each_after(&mut self, after: u64, f: &mut dyn FnMut(Entry) -> bool) -> Result<(), StorageError> {
        self.each(&mut |entry| entry.seq <= after || f(entry))
    }

    /// The time of the last entry, if any.
    fn last_at_ms(&mut self) -> Result<Option<u64>, StorageError> {
        Ok(self.load()?.last().map(|e| e.at_ms))
    }

    /// `append`, for a caller that has no more use for the entries: a store
    /// that keeps them in memory takes them without copying.
    fn append_owned(&mut self, entries: Vec<Entry>) -> Result<(), StorageError> {
        self.append(&entries)
    }

    /// Starts a group: appends until `end_group` are atomic one by one but
    /// durable only together, when `end_group` returns Ok. A caller that
    /// gets an error from `end_group` must reload its state from storage.
    fn begin_group(&mut self) -> Result<(), StorageError> {
        Ok(())
    }

    fn end_group(&mut self) -> Result<(), StorageError> {
        Ok(())
    }

    /// Ends a group keeping none of its appends: after an append failed (a
    /// full disk), the group's other requests are refused as well, and each
    /// refusal must be true. A store whose appends are durable one by one
    /// cannot take them back, and says so.
    fn abort_group(&mut self) -> Result<(), StorageError> {
        Err(StorageError::Unreadable {
            seq: 0,
            why: "this store cannot take a group's appends back".into(),
        })
    }

    /// Upkeep that no answer waits for, run by the writer once the answers
    /// of the group `end_group` made durable have gone out. A failure here
    /// loses nothing (the group is durable already); the storage reports it.
    fn after_group(&mut self) {}
}

/// Entries in memory, for deterministic tests. `fail_every` makes every
/// n-th append fail before writing anything.
#[derive(Clone, Debug, Default)]
pub struct MemoryStorage {
    pub entries: Vec<Entry>,
    pub fail_every: Option<u64>,
    appends: u64,
    /// How many entries it held when the open group began.
    group_from: Option<usize>,
}

impl MemoryStorage {
    /// A store holding a journal already written (a restart, in tests).
    pub fn with_entries(entries: Vec<Entry>) -> MemoryStorage {
        MemoryStorage {
            entries,
            ..MemoryStorage::default()
        }
    }

    pub fn failing_every(n: u64) -> MemoryStorage {
        MemoryStorage {
            fail_every: Some(n),
            ..MemoryStorage::default()
        }
    }
}

impl Storage for MemoryStorage {
    fn load(&mut self) -> Result<Vec<Entry>, StorageError> {
        Ok(self.entries.clone())
    }

    fn append(&mut self, entries: &[Entry]) -> Result<(), StorageError> {
        self.appends += 1;
        if self.fail_every.is_some_and(|n| self.appends.is_multiple_of(n)) {
            return Err(StorageError::Injected);
        }
        self.entries.extend_from_slice(entries);
        Ok(())
    }

    fn begin_group(&mut self) -> Result<(), StorageError> {
        self.group_from.get_or_insert(self.entries.len());
        Ok(())
    }

    fn end_group(&mut self) -> Result<(), StorageError> {
        self.group_from = None;
        Ok(())
    }

    fn abort_group(&mut self) -> Result<(), StorageError> {
        if let Some(from) = self.group_from.take() {
            self.entries.truncate(from);
        }
        Ok(())
    }
}

/// The journal in SQLite: one table, written in WAL mode with synchronous
/// commits, so an acknowledged append survives `kill -9` and power loss.
/// Its rows are compact ([`crate::compact`]): what is read back is the
/// text each hash covers.
/// The SQL is plain enough to run on PostgreSQL unchanged.
pub struct SqliteStorage {
    conn: Connection,
    /// How it seals the journal and keeps groups together ([`crate::groups`]).
    sealer: crate::groups::Sealer,
    /// With checkpoints in the background: how many the thread has done,
    /// and how many of them this connection has caught up after (in `after_group`).
    checkpoints: Option<(Arc<AtomicU64>, u64)>,
    /// How records are stored, and the newest entry appended (for training).
    codec: Codec,
    last_appended: u64,
    /// Where the files of the journal's segments are looked for, in turn.
    folders: Vec<PathBuf>,
    /// When the writer last deleted rows a segment holds (at most every `PRUNE_EVERY`).
    pruned_at: Option<Instant>,
    /// Why the rows a segment holds last could not leave the live journal:
    /// told once, not every pass, and its end once.
    prune_failing: Option<String>,
    segments_read: std::cell::RefCell<Vec<PathBuf>>,
    /// The journal's key, which seals the catalogue of segments too: with
    /// it, a catalogue row it did not seal is refused (`seal_with`).
    segment_key: Option<[u8; 32]>,
    /// Whether the journal's table has the column of entries' MACs (layout 3
    /// on): a database or a segment of an earlier layout is read without it.
    has_macs: bool,
    /// The database's layout (`user_version`) as it stands: below [`LAYOUT`]
    /// until the first entry with a MAC is appended.
    layout: i64,
}

/// How often the writer deletes rows a segment holds, between groups.
const PRUNE_EVERY: Duration = Duration::from_millis(100);

/// With checkpoints in the background, the writer checkpoints only past this
/// many WAL pages (about 200 MiB of 16 KiB pages): a safety net, not the normal path.
pub const WAL_FALLBACK_CHECKPOINT_PAGES: i64 = 12_500;

/// A background checkpoint passes over the log again while the writer added
/// at least this many pages (256 KiB) during its last pass, at most
/// `CHECKPOINT_PASSES_MAX` times.
pub const CHECKPOINT_CLOSE_PAGES: i64 = 16;
pub const CHECKPOINT_PASSES_MAX: u32 = 4;

impl SqliteStorage {
    pub fn open(dir: &Path) -> Result<SqliteStorage, StorageError> {
        std::fs::create_dir_all(dir).map_err(|e| StorageError::Unreadable {
            seq: 0,
            why: format!("cannot create {}: {e}", dir.display()),
        })?;
        let conn = Connection::open(dir.join(DATABASE_FILE))?;
        // A new database has 16 KiB pages: a flush writes each page of the
        // log with two system calls (its frame's header, then the page), and
        // a group of bets fills a few large pages instead of many small ones.
        // A database made before keeps its pages (SQLite ignores the pragma then).
        // `INTEGER PRIMARY KEY` makes `seq` the row's own key (64 bits in
        // SQLite), so an append writes one B-tree and no separate index: a
        // fifth fewer pages to the log per commit. A database made with
        // `BIGINT PRIMARY KEY` (and an index), as before, works unchanged.
        // PostgreSQL will spell the column `BIGINT PRIMARY KEY`; the
        // statements that read and write the table stay the same.
        conn.execute_batch(
            "PRAGMA page_size = 16384;
             PRAGMA journal_mode = WAL;
             PRAGMA synchronous = FULL;
             CREATE TABLE IF NOT EXISTS journal (
                 seq INTEGER PRIMARY KEY,
                 at_ms BIGINT NOT NULL,
                 record TEXT NOT NULL,
                 prev_hash TEXT NOT NULL,
                 hash TEXT NOT NULL,
                 mac BLOB
             );
             CREATE TABLE IF NOT EXISTS seal (
                 id INTEGER PRIMARY KEY CHECK (id = 1),
                 seq BIGINT NOT NULL,
                 hash TEXT NOT NULL,
                 mac TEXT NOT NULL
             );",
        )?;
        // A journal of an earlier layout gains the column of MACs: adding a
        // column changes only the schema, its rows read with none.
        if !has_macs(&conn)? {
            conn.execute_batch("ALTER TABLE journal ADD COLUMN mac BLOB")?;
        }
        compact::create_table(&conn)?;
        segments::create_catalogue(&conn)?;
        let mut storage = SqliteStorage::on(conn)?;
        storage.folders = vec![dir.join(segments::SEGMENTS_DIR)];
        Ok(storage)
    }

    fn on(conn: Connection) -> Result<SqliteStorage, StorageError> {
        // A journal of a later layout is not this build's to read or write
        // (an older build, made before the layout was numbered, cannot read
        // compressed records either: it refuses them, as an invalid column).
        let layout: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if layout > LAYOUT {
            return Err(StorageError::Layout(layout));
        }
        // A journal an earlier build wrote, with no entry under a MAC yet,
        // stays of the layout before until this build appends its first
        // entry (`append`): until then the build that wrote it can still
        // open it, to recover a damaged end, say, which this build cannot
        // do for entries no MAC vouches for. A new journal is of this layout
        // at once, and so is one holding an entry with a MAC.
        let layout = if layout < LAYOUT && !conn.is_readonly(rusqlite::DatabaseName::Main)? {
            let unmarked: bool = conn.query_row(
                "SELECT EXISTS (SELECT 1 FROM journal) AND NOT EXISTS (SELECT 1 FROM journal WHERE mac IS NOT NULL)",
                [],
                |r| r.get(0),
            )?;
            let to = if unmarked { LAYOUT - 1 } else { LAYOUT };
            if to > layout {
                conn.pragma_update(None, "user_version", to)?;
            }
            layout.max(to)
        } else {
            layout
        };
        let codec = Codec::open(&conn)?;
        let has_macs = has_macs(&conn)?;
        Ok(SqliteStorage {
            has_macs,
            layout,
            conn,
            sealer: crate::groups::Sealer::default(),
            checkpoints: None,
            codec,
            last_appended: 0,
            folders: Vec::new(),
            pruned_at: None,
            prune_failing: None,
            segments_read: std::cell::RefCell::default(),
            segment_key: None,
        })
    }

    /// Looks for the files of the journal's segments in `folder` too (after
    /// the data directory's own): one an operator archived them to.
    pub fn read_segments_from(&mut self, folder: PathBuf) {
        self.folders.push(folder);
    }

    /// Whether the live database holds a row numbered `seq`, whatever is in it.
    pub fn live_holds(&self, seq: u64) -> Result<bool, StorageError> {
        Ok(self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM journal WHERE seq = ?1)",
            [i64::try_from(seq).unwrap_or(i64::MAX)],
            |r| r.get(0),
        )?)
    }

    /// The journal's segments, oldest first ([`crate::segments`]).
    pub fn segments(&self) -> Result<Vec<Segment>, StorageError> {
        segments::catalogue(&self.conn, self.segment_key.as_ref())
    }

    /// The last entry the segments hold and its hash (`None`: no segment).
    pub fn segments_end(&self) -> Result<Option<(u64, [u8; 32])>, StorageError> {
        Ok(self.segments()?.last().map(|s| (s.last, s.last_hash)))
    }

    /// Moves WAL checkpoints off this connection: a thread with a connection
    /// of its own copies the log into the database every `every` with a PASSIVE
    /// checkpoint, which never waits for the writer nor makes it wait. After
    /// each, this connection copies the few pages written meanwhile in its
    /// next `after_group`, so the log is then copied whole and starts again from its
    /// beginning: it stays the size of one interval's writes and is
    /// overwritten in place, which flushes faster than a file that grows. This
    /// connection checkpoints by itself only if the log grows past
    /// `WAL_FALLBACK_CHECKPOINT_PAGES` (should the thread ever stop).
    /// The thread first runs `on_start` (a server lowers the thread's priority
    /// there, so that copying the log waits for the cores the answers need).
    pub fn checkpoint_in_background(
        &mut self,
        dir: &Path,
        every: std::time::Duration,
        on_start: fn(),
    ) -> Result<(), StorageError> {
        self.conn
            .pragma_update(None, "wal_autocheckpoint", WAL_FALLBACK_CHECKPOINT_PAGES)?;
        let checkpointer = Connection::open(dir.join(DATABASE_FILE))?;
        let done = Arc::new(AtomicU64::new(0));
        self.checkpoints = Some((done.clone(), 0));
        std::thread::Builder::new()
            .name("checkpoint".into())
            .spawn(move || {
                on_start();
                // A failure (a full disk) is told once, and its end once: not at every pass.
                let mut failing = false;
                loop {
                    std::thread::sleep(every);
                    // Each pass copies what the writer wrote during the one before;
                    // a few leave the writer only a handful of pages to copy.
                    let mut log_before = 0i64;
                    let mut passes = 0;
                    let caught_up = loop {
                        let pass =
                            checkpointer.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |row| row.get::<_, i64>(1));
                        passes += 1;
                        match pass {
                            Ok(log) if log - log_before < CHECKPOINT_CLOSE_PAGES || passes == CHECKPOINT_PASSES_MAX => {
                                break true
                            }
                            Ok(log) => log_before = log,
                            Err(e) => {
                                if !failing {
                                    tracing::warn!("background checkpoint failed: {e}; trying again every pass");
                                }
                                failing = true;
                                break false;
                            }
                        }
                    };
                    if caught_up {
                        if failing {
                            tracing::info!("background checkpoint works again");
                        }
                        failing = false;
                        done.fetch_add(1, Ordering::Release);
                    }
                }
            })
            .map_err(|e| StorageError::Unreadable {
                seq: 0,
                why: format!("cannot start the checkpoint thread: {e}"),
            })?;
        Ok(())
    }

    /// Opens an existing database without writing to it (for `croupier verify`).
    pub fn open_read_only(dir: &Path) -> Result<SqliteStorage, StorageError> {
        let conn = Connection::open_with_flags(dir.join(DATABASE_FILE), OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        let mut storage = SqliteStorage::on(conn)?;
        storage.folders = vec![dir.join(segments::SEGMENTS_DIR)];
        Ok(storage)
    }

    /// A segment's file, opened to be read.
    fn segment(&self, segment: &Segment) -> Result<SqliteStorage, StorageError> {
        let (conn, path) = segments::open_file(segment, &self.folders)?;
        let mut read = self.segments_read.borrow_mut();
        if !read.contains(&path) {
            read.push(path);
        }
        SqliteStorage::on(conn)
    }

    /// The segments' files read through this connection so far, where they lay.
    pub fn segments_read(&self) -> Vec<PathBuf> {
        self.segments_read.borrow().clone()
    }

    /// How the records read through this connection so far were stored.
    pub fn records_read(&self) -> compact::Read {
        self.codec.read()
    }

    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// The number of the journal's last entry (0: none).
    pub fn last_seq(&self) -> Result<u64, StorageError> {
        Ok(self.last()?.map_or(0, |(seq, _)| seq))
    }

    /// The segment the journal ends in, where no live row follows the
    /// segments (a recovery cut back to their end): `None` otherwise.
    fn ending_segment(&self, live_last: Option<u64>) -> Result<Option<Segment>, StorageError> {
        let segments = self.segments()?;
        Ok(segments
            .last()
            .filter(|s| live_last.is_none_or(|live| live <= s.last))
            .cloned())
    }

    /// The journal's seal, if it has one (a journal written before seals, or
    /// a database with no journal yet, has none).
    pub fn seal(&self) -> Result<Option<Seal>, StorageError> {
        read_seal(&self.conn)
    }

    /// Entries neither the segments nor the live rows hold, between the two:
    /// `Some((first, last))` where the live rows begin past the entry after
    /// the segments' end. A cut catalogues a day before it deletes the day's
    /// rows, so this is never so unless a catalogue row was removed (the
    /// catalogue seals each row, not how many there are) or rows were lost.
    /// A start refuses such a journal.
    pub fn missing_before_live(&self) -> Result<Option<(u64, u64)>, StorageError> {
        // The live rows first: a prune between the two reads only lowers what they miss.
        let first: Option<i64> = self.conn.query_row("SELECT MIN(seq) FROM journal", [], |r| r.get(0))?;
        let Some(first) = first.map(|seq| seq as u64) else {
            return Ok(None);
        };
        let end = self.segments_end()?.map_or(0, |(end, _)| end);
        Ok((first > end + 1).then_some((end + 1, first - 1)))
    }

    /// The seal and the last entry, read in one snapshot.
    pub fn seal_and_last(&self) -> Result<SealAndLast, StorageError> {
        if self.sealer.grouped || !self.conn.is_autocommit() {
            return Ok((self.seal()?, self.last()?));
        }
        self.conn.execute_batch("BEGIN DEFERRED")?;
        let read = self.seal().and_then(|seal| Ok((seal, self.last()?)));
        let ended = self
            .conn
            .execute_batch(if read.is_ok() { "COMMIT" } else { "ROLLBACK" });
        let read = read?;
        ended?;
        Ok(read)
    }

    /// The last entry's number and hash, if there is an entry.
    /// Where no live row follows the segments, the last entry is the last
    /// segment's, as the catalogue names it (a read checks its file against it).
    pub fn last(&self) -> Result<Option<(u64, [u8; 32])>, StorageError> {
        let row = self
            .conn
            .query_row("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1", [], |r| {
                let seq = r.get::<_, i64>(0)? as u64;
                Ok((seq, compact::hash_from(seq, r.get_ref(1)?)))
            })
            .optional()?;
        let live = row.map(|(seq, hash)| Ok::<_, StorageError>((seq, hash?))).transpose()?;
        match self.ending_segment(live.map(|(seq, _)| seq))? {
            Some(segment) => Ok(Some((segment.last, segment.last_hash))),
            None => Ok(live),
        }
    }

    /// The last entry's number and hash as stored (hex), read even where
    /// the hash is damaged: a recovery notes what it cut.
    pub fn last_as_stored(&self) -> Result<Option<(u64, String)>, StorageError> {
        let row = self
            .conn
            .query_row("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1", [], |r| {
                let hash = match r.get_ref(1)? {
                    rusqlite::types::ValueRef::Blob(bytes) => hex::encode(bytes),
                    other => String::from_utf8_lossy(other.as_bytes().unwrap_or_default()).into_owned(),
                };
                Ok((r.get::<_, i64>(0)?, hash))
            })
            .optional()?;
        let live = row.map(|(seq, hash)| (seq as u64, hash));
        match self.ending_segment(live.as_ref().map(|(seq, _)| *seq))? {
            Some(segment) => Ok(Some((segment.last, hex::encode(segment.last_hash)))),
            None => Ok(live),
        }
    }

    /// The hash of entry `seq`, if the journal has it.
    pub fn hash_of(&self, seq: u64) -> Result<Option<[u8; 32]>, StorageError> {
        if let Some(hash) = hash_at(&self.conn, seq)? {
            return Ok(Some(hash));
        }
        // Moved to a segment: its ends are in the catalogue, the rest in its file.
        let Some(segment) = self.segments()?.into_iter().find(|s| s.first <= seq && seq <= s.last) else {
            return Ok(None);
        };
        match seq {
            _ if seq == segment.first => Ok(Some(segment.first_hash)),
            _ if seq == segment.last => Ok(Some(segment.last_hash)),
            _ => hash_at(&self.segment(&segment)?.conn, seq),
        }
    }

    /// From now on seals the journal under `key` with every append, in
    /// the append's transaction (a group's, inside one).
    pub fn seal_with(&mut self, key: [u8; 32]) {
        self.sealer.seal_with(key);
        self.segment_key = Some(key);
    }

    /// Seals the journal as it stands now (a journal written before seals).
    pub fn seal_now(&mut self, key: &[u8; 32]) -> Result<Option<Seal>, StorageError> {
        let Some((seq, hash)) = self.last()? else {
            return Ok(None);
        };
        let seal = Seal::new(key, seq, hash);
        write_seal(&self.conn, &seal)?;
        Ok(Some(seal))
    }

    /// Copies the whole database, as it stands, into a new file at `to`
    /// (SQLite's `VACUUM INTO`): the copy is consistent and complete,
    /// whatever the log holds. An existing file at `to` is refused.
    pub fn copy_into(&self, to: &Path) -> Result<(), StorageError> {
        if to.exists() {
            return Err(StorageError::Unreadable {
                seq: 0,
                why: format!("{} exists already; nothing was copied over it", to.display()),
            });
        }
        let to = to.to_str().ok_or_else(|| StorageError::Unreadable {
            seq: 0,
            why: format!("{} is not a path SQLite can take", to.display()),
        })?;
        self.conn.execute("VACUUM INTO ?1", [to])?;
        Ok(())
    }

    /// Removes every entry after `seq` and seals the journal at `seq` under
    /// `key`, in one transaction: the journal's recovery cuts a damaged end
    /// off this way, and nothing else does. Returns how many entries went.
    pub fn cut_after(&mut self, seq: u64, key: &[u8; 32]) -> Result<u64, StorageError> {
        if let Some((end, _)) = self.segments_end()? {
            if seq < end {
                return Err(StorageError::Unreadable {
                    seq,
                    why: format!(
                        "it lies in a segment (the segments hold entries 1 to {end}), and a recovery cuts only the entries after them"
                    ),
                });
            }
        }
        // The entry kept may be the segments' last, its row gone from the live database.
        let hash = self.hash_of(seq)?;
        let tx = self.conn.transaction()?;
        let cut = tx.execute("DELETE FROM journal WHERE seq > ?1", [seq as i64])? as u64;
        match hash {
            Some(hash) => write_seal(&tx, &Seal::new(key, seq, hash))?,
            None if seq == 0 => {
                tx.execute("DELETE FROM seal", [])?;
            }
            None => {
                return Err(StorageError::Unreadable {
                    seq,
                    why: "the journal has no such entry to keep".into(),
                })
            }
        }
        tx.commit()?;
        self.sealer.unsealed = None;
        Ok(cut)
    }

    /// The entries numbered up to `last`, in order: a recovery reads the
    /// part it keeps, whatever is wrong after it.
    pub fn load_through(&self, last: u64) -> Result<Vec<Entry>, StorageError> {
        let mut entries = Vec::new();
        self.each_through(last, &mut |e| {
            entries.push(e);
            true
        })?;
        Ok(entries)
    }

    /// Hands each entry up to `last`, in order, to `f` as it is read, until
    /// `f` says false: a journal of any length is walked in the memory of one
    /// entry. An entry that does not read ends it with its error.
    pub fn each_through(&self, last: u64, f: &mut dyn FnMut(Entry) -> bool) -> Result<(), StorageError> {
        self.each_between(0, last, f)
    }

    /// [`SqliteStorage::each_through`] for the entries after `after` and up to `last`.
    pub fn each_between(&self, after: u64, last: u64, f: &mut dyn FnMut(Entry) -> bool) -> Result<(), StorageError> {
        self.each_with_macs(after, last, &mut |entry, _| f(entry))
    }

    /// [`SqliteStorage::each_between`], each entry with the MAC stored beside
    /// it, if it has one ([`crate::macs`]).
    pub fn each_with_macs(
        &self,
        after: u64,
        last: u64,
        f: &mut dyn FnMut(Entry, Option<EntryMac>) -> bool,
    ) -> Result<(), StorageError> {
        self.each_stored(after, last, &mut |row| {
            let seq = row.seq;
            let record: Record = serde_json::from_str(&row.text).map_err(|e| StorageError::Unreadable {
                seq,
                why: format!("record is not valid: {e}"),
            })?;
            // Where a start looks for what moves no money (a checkpoint's binding), in text.
            if row.compressed && record.transfers().is_empty() {
                return Err(StorageError::Unreadable {
                    seq,
                    why: "it moves no money but is stored compressed: such records are stored as text".into(),
                });
            }
            Ok(f(
                Entry {
                    seq,
                    at_ms: row.at_ms,
                    record,
                    text: row.text,
                    prev_hash: row.prev_hash,
                    hash: row.hash,
                },
                row.mac,
            ))
        })
    }

    /// Each record's text after `after` and up to `last`, in order, not
    /// parsed, until `f` says false (`bench history` counts bets so).
    pub fn each_text(&self, after: u64, last: u64, f: &mut dyn FnMut(u64, &str) -> bool) -> Result<(), StorageError> {
        self.each_stored(after, last, &mut |row| Ok(f(row.seq, &row.text)))
    }

    /// The last entry the journal holds before entry `seq`, if any.
    pub fn last_before(&self, seq: u64) -> Result<Option<u64>, StorageError> {
        let before: Option<i64> = self.conn.query_row(
            "SELECT MAX(seq) FROM journal WHERE seq < ?1",
            [i64::try_from(seq).unwrap_or(i64::MAX)],
            |row| row.get(0),
        )?;
        if let Some(before) = before {
            return Ok(Some(before as u64));
        }
        // Before the live rows: the segments hold every entry from 1 to their end.
        let end = self.segments_end()?.map_or(0, |(end, _)| end);
        Ok((seq > 1).then(|| (seq - 1).min(end)).filter(|before| *before >= 1))
    }

    /// Each record after `after` kept as text (one that moves no money)
    /// whose text holds `needle`, newest first or oldest first, until `f`
    /// says false: a start finds checkpoints' bindings so, without reading
    /// the bets around them.
    pub fn each_holding(
        &self,
        after: u64,
        needle: &str,
        newest_first: bool,
        f: &mut dyn FnMut(u64, &str) -> bool,
    ) -> Result<(), StorageError> {
        let order = if newest_first { "DESC" } else { "ASC" };
        let mut statement = self.conn.prepare(&format!(
            "SELECT seq, record FROM journal WHERE seq > ?1 AND typeof(record) = 'text' AND instr(record, ?2) > 0 ORDER BY seq {order}"
        ))?;
        let after = i64::try_from(after).unwrap_or(i64::MAX);
        let mut rows = statement.query(params![after, needle])?;
        while let Some(row) = rows.next()? {
            let seq = row.get::<_, i64>(0)? as u64;
            let text: String = row.get(1)?;
            if !f(seq, &text) {
                break;
            }
        }
        Ok(())
    }

    /// Each row after `after` and up to `last` as its entry's number, time,
    /// text, whether it was compressed, and hashes, the hash before read from the row before where the
    /// row leaves it out.
    /// Entries a segment holds are read from its file: the catalogue and
    /// the live rows are read in one snapshot, so that rows the writer
    /// deletes meanwhile are read from the segment they went to.
    fn each_stored(
        &self,
        after: u64,
        last: u64,
        f: &mut dyn FnMut(Row) -> Result<bool, StorageError>,
    ) -> Result<(), StorageError> {
        let snapshot = !self.sealer.grouped && self.conn.is_autocommit();
        if snapshot {
            self.conn.execute_batch("BEGIN DEFERRED")?;
        }
        let read = self.each_stored_in_snapshot(after, last, f);
        if !snapshot {
            return read;
        }
        let ended = self
            .conn
            .execute_batch(if read.is_ok() { "COMMIT" } else { "ROLLBACK" });
        read?;
        Ok(ended?)
    }

    fn each_stored_in_snapshot(
        &self,
        after: u64,
        last: u64,
        f: &mut dyn FnMut(Row) -> Result<bool, StorageError>,
    ) -> Result<(), StorageError> {
        let segments = self.segments()?;
        let end = segments.last().map_or(0, |s| s.last);
        // Rows a segment holds that the writer has not deleted yet must be
        // the very entries the segment holds: a segment catalogued over them
        // is never read in their place.
        let mut overlap = self
            .conn
            .prepare("SELECT seq, hash FROM journal WHERE seq > ?1 AND seq <= ?2 ORDER BY seq")?;
        let mut live = overlap.query(params![i64::try_from(after).unwrap_or(i64::MAX), end as i64])?;
        let mut next_live = live_hash(live.next()?)?;
        let mut before = None;
        let mut from = after;
        for segment in segments.iter().filter(|s| s.last > after) {
            if segment.first > last {
                return Ok(());
            }
            let until = last.min(segment.last);
            let mut more = true;
            let mut reached = from;
            let file = self.segment(segment).map_err(|e| in_segment(segment, e))?;
            let read = file.each_row(from, until, &mut before, &mut |row| {
                check_ends(segment, &row)?;
                while let Some((seq, hash)) = next_live {
                    if seq > row.seq {
                        break;
                    }
                    if seq == row.seq && hash != row.hash {
                        return Err(StorageError::Unreadable {
                            seq,
                            why: format!(
                                "the live journal and the segment {} hold different entries under this number",
                                segment.file
                            ),
                        });
                    }
                    next_live = live_hash(live.next()?)?;
                }
                reached = row.seq;
                more = f(row)?;
                Ok(more)
            });
            self.codec.add_read(&file.records_read());
            read.map_err(|e| in_segment(segment, e))?;
            if !more {
                return Ok(());
            }
            if reached != until {
                return Err(in_segment(
                    segment,
                    StorageError::Unreadable {
                        seq: reached + 1,
                        why: format!("the segment ends at entry {reached}, short of {until}"),
                    },
                ));
            }
            if last <= segment.last {
                return Ok(());
            }
            from = segment.last;
        }
        self.each_row(from.max(end), last, &mut before, f)
    }

    /// [`SqliteStorage::each_stored`] on this file's rows alone; `before` is
    /// the entry read last (in the file before, at the first row).
    fn each_row(
        &self,
        after: u64,
        last: u64,
        before: &mut Option<(u64, [u8; 32])>,
        f: &mut dyn FnMut(Row) -> Result<bool, StorageError>,
    ) -> Result<(), StorageError> {
        let mut stmt = self.conn.prepare_cached(if self.has_macs {
            "SELECT seq, at_ms, record, prev_hash, hash, mac FROM journal WHERE seq > ?1 AND seq <= ?2 ORDER BY seq"
        } else {
            "SELECT seq, at_ms, record, prev_hash, hash, NULL FROM journal WHERE seq > ?1 AND seq <= ?2 ORDER BY seq"
        })?;
        let from = i64::try_from(after).unwrap_or(i64::MAX);
        let last = i64::try_from(last).unwrap_or(i64::MAX);
        let mut rows = stmt.query([from, last])?;
        while let Some(row) = rows.next()? {
            let seq = row.get::<_, i64>(0)? as u64;
            let at_ms = row.get::<_, i64>(1)? as u64;
            let stored = row.get_ref(2)?;
            let compressed = matches!(stored, rusqlite::types::ValueRef::Blob(_));
            let decoded = self.codec.decode(&self.conn, seq, stored)?;
            let text = decoded.text;
            let hash = compact::hash_from(seq, row.get_ref(4)?)?;
            let mac = mac_from(seq, row.get_ref(5)?)?;
            let prev_hash = match compact::prev_hash_from(seq, row.get_ref(3)?)? {
                Some(prev) => prev,
                None => match *before {
                    Some((n, hash)) if n + 1 == seq => hash,
                    _ if seq <= 1 => [0; 32],
                    _ => self.hash_of(seq - 1)?.ok_or_else(|| StorageError::Unreadable {
                        seq,
                        why: format!("it follows entry {}, which the journal lacks", seq - 1),
                    })?,
                },
            };
            if let Some(id) = decoded.unvouched {
                if crate::journal::entry_hash(&prev_hash, seq, at_ms, &text) != hash {
                    return Err(StorageError::Dictionary {
                        seq,
                        id,
                        why: "no recorded digest vouches for it, and the record read under it is not what the entry's hash covers"
                            .into(),
                    });
                }
            }
            *before = Some((seq, hash));
            let row = Row {
                seq,
                at_ms,
                text,
                compressed,
                prev_hash,
                hash,
                mac,
            };
            if !f(row)? {
                break;
            }
        }
        Ok(())
    }
}

/// The number and hash of a live row, if there is one.
fn live_hash(row: Option<&rusqlite::Row<'_>>) -> Result<Option<(u64, [u8; 32])>, StorageError> {
    row.map(|r| {
        let seq = r.get::<_, i64>(0)? as u64;
        Ok((seq, compact::hash_from(seq, r.get_ref(1)?)?))
    })
    .transpose()
}

/// A segment's first and last rows must be what the catalogue names: the
/// catalogue's ends are what the rows around the segment are checked against.
fn check_ends(segment: &Segment, row: &Row) -> Result<(), StorageError> {
    let differs = |what: &str| StorageError::Unreadable {
        seq: row.seq,
        why: format!("its {what} is not the one the journal's catalogue names for the segment"),
    };
    if row.seq == segment.first && (row.hash != segment.first_hash || row.prev_hash != segment.prev_hash) {
        return Err(differs("hash"));
    }
    if row.seq == segment.last && row.hash != segment.last_hash {
        return Err(differs("hash"));
    }
    Ok(())
}

/// An error reading a segment's file, naming the file where the error does not.
fn in_segment(segment: &Segment, e: StorageError) -> StorageError {
    match e {
        StorageError::Sqlite(_) | StorageError::Layout(_) => StorageError::Unreadable {
            seq: segment.first,
            why: format!(
                "the segment {} (entries {} to {}): {e}",
                segment.file, segment.first, segment.last
            ),
        },
        StorageError::Unreadable { seq, why } if !why.contains(&segment.file) => StorageError::Unreadable {
            seq,
            why: format!("in the segment {}: {why}", segment.file),
        },
        other => other,
    }
}

/// A row of the journal as read: its entry's number, time, text, whether it
/// was stored compressed, its hashes and its MAC.
struct Row {
    seq: u64,
    at_ms: u64,
    text: String,
    compressed: bool,
    prev_hash: [u8; 32],
    hash: [u8; 32],
    mac: Option<EntryMac>,
}

/// Whether the journal's table in `conn` has the column of entries' MACs.
fn has_macs(conn: &Connection) -> Result<bool, StorageError> {
    Ok(conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM pragma_table_info('journal') WHERE name = 'mac')",
        [],
        |r| r.get(0),
    )?)
}

/// An entry's MAC as stored: none, or [`MAC_BYTES`] bytes.
fn mac_from(seq: u64, stored: rusqlite::types::ValueRef<'_>) -> Result<Option<EntryMac>, StorageError> {
    match stored {
        rusqlite::types::ValueRef::Null => Ok(None),
        rusqlite::types::ValueRef::Blob(bytes) => {
            EntryMac::try_from(bytes)
                .map(Some)
                .map_err(|_| StorageError::Unreadable {
                    seq,
                    why: format!("its MAC is {} bytes, not {MAC_BYTES}", bytes.len()),
                })
        }
        _ => Err(StorageError::Unreadable {
            seq,
            why: "its MAC is not stored as bytes".into(),
        }),
    }
}

/// The seal in `conn`'s database: none where the table or its row is missing.
pub fn read_seal(conn: &Connection) -> Result<Option<Seal>, StorageError> {
    let has_table: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'seal')",
        [],
        |r| r.get(0),
    )?;
    if !has_table {
        return Ok(None);
    }
    let row = conn
        .query_row("SELECT seq, hash, mac FROM seal WHERE id = 1", [], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?))
        })
        .optional()?;
    row.map(|(seq, hash, mac)| {
        let seq = seq as u64;
        Ok(Seal {
            seq,
            hash: hash_from_hex(seq, &hash)?,
            mac: hash_from_hex(seq, &mac)?,
        })
    })
    .transpose()
}

fn write_seal(conn: &Connection, seal: &Seal) -> Result<(), StorageError> {
    conn.prepare_cached(
        "INSERT INTO seal (id, seq, hash, mac) VALUES (1, ?1, ?2, ?3)
         ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, mac = excluded.mac",
    )?
    .execute(params![
        seal.seq as i64,
        HashHex::new(&seal.hash).as_str(),
        HashHex::new(&seal.mac).as_str()
    ])?;
    Ok(())
}

/// A hash as the journal stores it: lowercase hex, as `hex::encode` writes
/// it, through `hex::encode_to_slice` (`hex::encode` goes character by
/// character through an iterator, and every entry writes two hashes), on
/// the stack: SQLite copies the text it is given.
struct HashHex([u8; 64]);

impl HashHex {
    fn new(hash: &[u8; 32]) -> HashHex {
        let mut out = [0u8; 64];
        // 64 bytes hold 32 bytes' hex exactly.
        if hex::encode_to_slice(hash, &mut out).is_err() {
            unreachable!("64 bytes hold a 32-byte hash's hex");
        }
        HashHex(out)
    }

    fn as_str(&self) -> &str {
        // Hex digits are ASCII.
        std::str::from_utf8(&self.0).unwrap_or_else(|_| unreachable!("hex digits are ASCII"))
    }
}

/// The hash of entry `seq` in `conn`'s journal, if it has the entry.
fn hash_at(conn: &Connection, seq: u64) -> Result<Option<[u8; 32]>, StorageError> {
    conn.query_row("SELECT hash FROM journal WHERE seq = ?1", [seq as i64], |r| {
        Ok(compact::hash_from(seq, r.get_ref(0)?))
    })
    .optional()?
    .transpose()
}

fn hash_from_hex(seq: u64, text: &str) -> Result<[u8; 32], StorageError> {
    let bytes = hex::decode(text).map_err(|e| StorageError::Unreadable {
        seq,
        why: format!("hash is not hex: {e}"),
    })?;
    <[u8; 32]>::try_from(bytes.as_slice()).map_err(|_| StorageError::Unreadable {
        seq,
        why: "hash is not 32 bytes".into(),
    })
}

impl crate::groups::Transactions for SqliteStorage {
    fn sealer(&mut self) -> &mut crate::groups::Sealer {
        &mut self.sealer
    }

    fn run(&mut self, statement: &str) -> Result<(), StorageError> {
        Ok(self.conn.execute_batch(statement)?)
    }

    fn write_seal(&mut self, seal: &Seal) -> Result<(), StorageError> {
        write_seal(&self.conn, seal)
    }
}

impl Storage for SqliteStorage {
    fn load(&mut self) -> Result<Vec<Entry>, StorageError> {
        self.load_through(u64::MAX)
    }

    fn each(&mut self, f: &mut dyn FnMut(Entry) -> bool) -> Result<(), StorageError> {
        self.each_through(u64::MAX, f)
    }

    fn each_after(&mut self, after: u64, f: &mut dyn FnMut(Entry) -> bool) -> Result<(), StorageError> {
        self.each_between(after, u64::MAX, f)
    }

    fn last_at_ms(&mut self) -> Result<Option<u64>, StorageError> {
        let row: Option<(i64, i64)> = self
            .conn
            .query_row("SELECT seq, at_ms FROM journal ORDER BY seq DESC LIMIT 1", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()?;
        match self.ending_segment(row.map(|(seq, _)| seq as u64))? {
            Some(segment) => {
                let file = self.segment(&segment)?;
                let at: Option<i64> = file
                    .conn
                    .query_row("SELECT at_ms FROM journal WHERE seq = ?1", [segment.last as i64], |r| {
                        r.get(0)
                    })
                    .optional()?;
                Ok(at.map(|a| a as u64))
            }
            None => Ok(row.map(|(_, at)| at as u64)),
        }
    }

    fn append(&mut self, entries: &[Entry]) -> Result<(), StorageError> {
        let codec = &mut self.codec;
        // Each row's MAC is made as it is written: a copy of the keyed HMAC, a few hundred bytes.
        let entry_key = self.sealer.entry_key.clone();
        let mut insert_all = |conn: &Connection| -> Result<(), StorageError> {
            let mut insert = conn.prepare_cached(
                "INSERT INTO journal (seq, at_ms, record, prev_hash, hash, mac) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            for e in entries {
                let moves_money = !e.record.transfers().is_empty();
                let record = codec.encode(e.seq, &e.text, moves_money)?;
                let mac = entry_key.as_ref().map(|k| k.mac(e.seq, &e.hash));
                // The hash before is the row before's: stored as nothing.
                insert.execute(params![
                    e.seq as i64,
                    e.at_ms as i64,
                    record,
                    &[] as &[u8],
                    &e.hash[..],
                    mac.as_ref().map(|m| &m[..])
                ])?;
            }
            Ok(())
        };
        // The first entry under a MAC marks the database as of this layout,
        // before it is written: an earlier build, which would append entries
        // without MACs after it, refuses the database from then on.
        if self.layout < LAYOUT && entry_key.is_some() && !entries.is_empty() {
            self.conn.pragma_update(None, "user_version", LAYOUT)?;
            self.layout = LAYOUT;
        }
        let head = entries.last().map(|e| (e.seq, e.hash));
        if let Some((seq, _)) = head {
            self.last_appended = seq;
        }
        // One statement is all-or-nothing by itself (SQLite undoes a failed
        // statement and nothing else), and most requests write one entry. A
        // sealed append outside a group writes its seal too, in one savepoint.
        let sealed_alone = self.sealer.key.is_some() && !self.sealer.grouped;
        if entries.len() == 1 && !sealed_alone {
            insert_all(&self.conn)?;
            self.sealer.unsealed = head.or(self.sealer.unsealed);
            return Ok(());
        }
        // Inside a group a savepoint keeps this append all-or-nothing; alone,
        // the savepoint is the transaction and its release is the commit.
        // Kept prepared, as the insert is: a batch's text would be parsed again at every append.
        self.conn.prepare_cached("SAVEPOINT journal_append")?.execute([])?;
        let before = self.sealer.unsealed;
        let written = insert_all(&self.conn).and_then(|()| {
            self.sealer.unsealed = head.or(self.sealer.unsealed);
            if sealed_alone {
                crate::groups::write_pending_seal(self)?;
            }
            Ok(())
        });
        match written {
            Ok(()) => {
                self.conn.prepare_cached("RELEASE journal_append")?.execute([])?;
                Ok(())
            }
            Err(e) => {
                self.sealer.unsealed = before;
                self.conn
                    .execute_batch("ROLLBACK TO journal_append; RELEASE journal_append")?;
                Err(e)
            }
        }
    }

    fn begin_group(&mut self) -> Result<(), StorageError> {
        crate::groups::begin_group(self, "BEGIN IMMEDIATE")
    }

    fn end_group(&mut self) -> Result<(), StorageError> {
        crate::groups::end_group(self)
    }

    fn abort_group(&mut self) -> Result<(), StorageError> {
        crate::groups::abort_group(self)
    }

    /// After a background checkpoint, copies the few pages written meanwhile,
    /// so that the log is copied whole and the next commit starts it again
    /// from its beginning. Between groups only. The copy flushes the log and
    /// the database file, up to some 15 ms under load on this project's
    /// machine, so it runs after the answers, not before.
    fn after_group(&mut self) {
        if self.sealer.grouped {
            return;
        }
        self.codec.train_if_due(&self.conn, self.last_appended);
        if self.pruned_at.is_none_or(|at| at.elapsed() >= PRUNE_EVERY) {
            self.pruned_at = Some(Instant::now());
            match segments::prune(&self.conn, self.segment_key.as_ref(), &self.folders) {
                Err(e) => {
                    let why = e.to_string();
                    if self.prune_failing.as_ref() != Some(&why) {
                        tracing::warn!(
                            "rows a segment holds cannot leave the live journal: {why}; they stay there, tried again every {} ms",
                            PRUNE_EVERY.as_millis()
                        );
                        self.prune_failing = Some(why);
                    }
                }
                Ok(_) => {
                    if self.prune_failing.take().is_some() {
                        tracing::info!("rows a segment holds leave the live journal again");
                    }
                }
            }
        }
        if let Some((done, caught_up)) = &mut self.checkpoints {
            let now = done.load(Ordering::Acquire);
            if now != *caught_up {
                *caught_up = now;
                if let Err(e) = self.conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
                    tracing::warn!("checkpoint after the background one failed: {e}");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_seals_hash_is_stored_as_hex_encode_writes_it() {
        let mut hash = [0u8; 32];
        for round in 0..=255u8 {
            for (i, b) in hash.iter_mut().enumerate() {
                *b = round.wrapping_mul(31).wrapping_add((i as u8).wrapping_mul(97));
            }
            assert_eq!(super::HashHex::new(&hash).as_str(), hex::encode(hash));
            assert_eq!(
                super::hash_from_hex(0, super::HashHex::new(&hash).as_str()).expect("reads back"),
                hash
            );
        }
    }

    #[test]
    fn an_aborted_group_keeps_none_of_its_appends_nor_moves_the_seal() {
        use crate::journal::{Entry, Record, StreamEvent};
        use crate::seal::Seal;
        use crate::Storage;
        let key = [7u8; 32];
        let dir = tempfile::tempdir().expect("dir");
        let mut storage = super::SqliteStorage::open(dir.path()).expect("open");
        storage.seal_with(key);
        let entry = |seq: u64, prev: [u8; 32]| {
            let body = serde_json::value::RawValue::from_string(seq.to_string()).expect("JSON");
            Entry::new(seq, seq, Record::Event(StreamEvent::new("test", body)), prev)
        };
        let first = entry(1, [0; 32]);
        storage.append(std::slice::from_ref(&first)).expect("alone");
        storage.begin_group().expect("begin");
        let (second, third) = (entry(2, first.hash), entry(3, [9; 32]));
        storage.append(std::slice::from_ref(&second)).expect("in a group");
        storage
            .append(&[third.clone(), entry(4, third.hash)])
            .expect("in a group");
        storage.abort_group().expect("taken back");
        assert_eq!(
            storage.load().expect("load").len(),
            1,
            "only the entry before the group"
        );
        assert_eq!(storage.seal().expect("seal"), Some(Seal::new(&key, 1, first.hash)));
        // The next group writes as if the aborted one had never been.
        storage.begin_group().expect("begin");
        storage.append(std::slice::from_ref(&second)).expect("again");
        storage.end_group().expect("end");
        assert_eq!(storage.load().expect("load").len(), 2);
        assert_eq!(storage.seal().expect("seal"), Some(Seal::new(&key, 2, second.hash)));
    }

    #[test]
    fn a_sealed_journal_is_sealed_with_each_append_alone_or_in_a_group() {
        use crate::journal::{Entry, Record, StreamEvent};
        use crate::seal::{check_seal, Seal, SealProblem};
        use crate::Storage;
        let key = [5u8; 32];
        let dir = tempfile::tempdir().expect("dir");
        let mut storage = super::SqliteStorage::open(dir.path()).expect("open");
        assert_eq!(storage.seal().expect("seal"), None);
        storage.seal_with(key);
        let mut prev = [0u8; 32];
        let mut entry = |seq: u64| {
            let body = serde_json::value::RawValue::from_string(seq.to_string()).expect("JSON");
            let e = Entry::new(seq, seq, Record::Event(StreamEvent::new("test", body)), prev);
            prev = e.hash;
            e
        };
        let first = entry(1);
        storage.append(std::slice::from_ref(&first)).expect("alone");
        assert_eq!(storage.seal().expect("seal"), Some(Seal::new(&key, 1, first.hash)));
        storage.begin_group().expect("begin");
        let (second, third) = (entry(2), entry(3));
        storage.append(std::slice::from_ref(&second)).expect("in a group");
        storage.append(std::slice::from_ref(&third)).expect("in a group");
        // Until the group is durable, the seal stays where it was.
        assert_eq!(storage.seal().expect("seal").map(|s| s.seq), Some(1));
        storage.end_group().expect("end");
        let seal = storage.seal().expect("seal");
        assert_eq!(seal, Some(Seal::new(&key, 3, third.hash)));
        assert_eq!(check_seal(seal.as_ref(), storage.last().expect("last"), &key), Ok(()));
        // A row added by hand lies past the seal.
        let fourth = entry(4);
        storage
            .connection()
            .execute(
                "INSERT INTO journal (seq, at_ms, record, prev_hash, hash) VALUES (4, 4, ?1, ?2, ?3)",
                rusqlite::params![fourth.text, hex::encode(fourth.prev_hash), hex::encode(fourth.hash)],
            )
            .expect("forged");
        assert_eq!(
            check_seal(seal.as_ref(), storage.last().expect("last"), &key),
            Err(SealProblem::Unsealed {
                from: 4,
                last: 4,
                sealed: 3
            })
        );
    }
}
