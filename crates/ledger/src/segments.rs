//! Journal segments: the entries of a gaming day that is over, moved out of
//! the live database into a file of their own, so that the journal a server
//! writes to holds about a day however long the casino's history.
//!
//! When the server's checkpoint writer has a checkpoint taken at a gaming
//! day's end bound into the journal, it copies the entries after the last
//! segment up to that checkpoint into `segments/DAY.db` in the data
//! directory (a SQLite file of the journal's layout, with the dictionaries
//! its records are compressed under, each entry with its MAC), flushes it,
//! and only then notes it in the live database's catalogue (`segment`). The
//! writer then deletes those rows from the live database a few thousand at
//! a time between groups ([`crate::SqliteStorage`]'s `after_group`); SQLite
//! reuses the pages.
//!
//! Readers go on reading the whole journal: an entry a segment holds is read
//! from its file, in the data directory's `segments` folder or in a folder an
//! operator archived it to and names (`verify --segments DIR`). The chain runs
//! on across files: a segment's first row keeps the hash before it, and the
//! entry after a segment is checked against the segment's last. A start reads
//! only the live database (it opens from a checkpoint after the segments).

use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, OpenFlags, OptionalExtension};

use crate::compact::has_table;
use crate::sqlite_layout::{DATABASE_FILE, LAYOUT};
use crate::storage_error::StorageError;

/// The data directory's folder of segments.
pub const SEGMENTS_DIR: &str = "segments";

/// A gaming day is a UTC day (docs/rules.md, colour chips past the gaming day).
pub const DAY_MS: u64 = 86_400_000;

/// How many rows the writer deletes from the live database at once, between
/// groups: some milliseconds of its time.
pub const PRUNE_ROWS: i64 = 2_000;

/// A segment as the live database's catalogue notes it: the entries it
/// holds, the hashes at its ends, and its file's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub first: u64,
    pub last: u64,
    /// The hash of the entry before its first (zeros before entry 1).
    pub prev_hash: [u8; 32],
    pub first_hash: [u8; 32],
    pub last_hash: [u8; 32],
    /// Its file's name in a segments folder: the gaming day of its last entry.
    pub file: String,
    /// The row sealed under the journal's key ([`mac_of`]): the catalogue is
    /// in the data directory, and only the secret vouches for it.
    pub mac: [u8; 32],
}

/// The MAC of a catalogue row under `key` (zeros without one).
pub fn mac_of(key: Option<&[u8; 32]>, s: &Segment) -> [u8; 32] {
    use hmac::Mac;
    let Some(key) = key else { return [0; 32] };
    let Ok(mut mac) = hmac::Hmac::<sha2::Sha256>::new_from_slice(key) else {
        unreachable!("HMAC takes any key length");
    };
    mac.update(b"croupier journal segment\n");
    mac.update(format!("{}\n{}\n{}\n", s.first, s.last, s.file).as_bytes());
    mac.update(&s.prev_hash);
    mac.update(&s.first_hash);
    mac.update(&s.last_hash);
    mac.finalize().into_bytes().into()
}

/// The gaming day of a time, as a file is named: `2026-11-26`.
pub fn day_name(at_ms: u64) -> String {
    let seconds = i64::try_from(at_ms / 1_000).unwrap_or(i64::MAX);
    match time::OffsetDateTime::from_unix_timestamp(seconds) {
        Ok(at) => {
            let date = at.date();
            format!("{:04}-{:02}-{:02}", date.year(), u8::from(date.month()), date.day())
        }
        Err(_) => format!("day-{}", at_ms / DAY_MS),
    }
}

const COLUMNS: &str = "first, last, prev_hash, first_hash, last_hash, file, mac";

/// Makes a table of segments named `table` where it is missing: the live
/// database's catalogue (`segment`), or a segment file's note of itself (`segment_of`).
fn create_table(conn: &Connection, table: &str) -> Result<(), StorageError> {
    conn.execute_batch(&format!(
        "CREATE TABLE IF NOT EXISTS {table} (
             first INTEGER PRIMARY KEY,
             last BIGINT NOT NULL,
             prev_hash BLOB NOT NULL,
             first_hash BLOB NOT NULL,
             last_hash BLOB NOT NULL,
             file TEXT NOT NULL,
             mac BLOB NOT NULL
         );"
    ))?;
    Ok(())
}

/// Makes the catalogue where it is missing (a writer's database).
pub(crate) fn create_catalogue(conn: &Connection) -> Result<(), StorageError> {
    create_table(conn, "segment")
}

fn hash_column(seq: u64, row: &rusqlite::Row<'_>, i: usize) -> Result<[u8; 32], StorageError> {
    crate::compact::hash_from(seq, row.get_ref(i)?)
}

/// The rows of `table`; the catalogue's (`from_one`) must follow one another from entry 1.
fn read_rows(conn: &Connection, table: &str, from_one: bool) -> Result<Vec<Segment>, StorageError> {
    if !has_table(conn, table)? {
        return Ok(Vec::new());
    }
    let mut statement = conn.prepare_cached(&format!("SELECT {COLUMNS} FROM {table} ORDER BY first"))?;
    let mut rows = statement.query([])?;
    let mut found: Vec<Segment> = Vec::new();
    while let Some(row) = rows.next()? {
        let first = row.get::<_, i64>(0)?;
        let last = row.get::<_, i64>(1)?;
        let (Ok(first), Ok(last)) = (u64::try_from(first), u64::try_from(last)) else {
            return Err(catalogue_broken(format!("a segment is numbered {first} to {last}")));
        };
        let expected = found.last().map_or(1, |s| s.last + 1);
        if (from_one && first != expected) || last < first || first == 0 {
            return Err(catalogue_broken(format!(
                "a segment holds entries {first} to {last}, where the one before leaves off at {}",
                expected - 1
            )));
        }
        let file: String = row.get(5)?;
        // A name, never a path: a segment is read from the folders looked in, nowhere else.
        if file.is_empty() || file.starts_with('.') || file.contains(['/', '\\']) {
            return Err(catalogue_broken(format!(
                "a segment's file is named {file:?}, which is not a plain file name"
            )));
        }
        found.push(Segment {
            first,
            last,
            prev_hash: hash_column(first, row, 2)?,
            first_hash: hash_column(first, row, 3)?,
            last_hash: hash_column(last, row, 4)?,
            file,
            mac: hash_column(first, row, 6)?,
        });
    }
    Ok(found)
}

fn catalogue_broken(why: String) -> StorageError {
    StorageError::Unreadable {
        seq: 0,
        why: format!("the journal's catalogue of segments is damaged: {why}"),
    }
}

/// The segments the live database in `conn` catalogues, oldest first. They
/// follow one another from entry 1; a catalogue that does not is refused,
/// and so is a row `key` (the journal's) did not seal, where one is given.
pub fn catalogue(conn: &Connection, key: Option<&[u8; 32]>) -> Result<Vec<Segment>, StorageError> {
    let rows = read_rows(conn, "segment", true)?;
    if let Some(s) = rows.iter().find(|s| key.is_some() && mac_of(key, s) != s.mac) {
        return Err(StorageError::Unreadable {
            seq: s.first,
            why: format!(
                "the journal's catalogue names a segment for entries {} to {} ({}) that the secret did not seal: \
                 it was planted or changed in the data directory",
                s.first, s.last, s.file
            ),
        });
    }
    Ok(rows)
}

/// Opens the file of `segment`, looking in `folders` in turn, and checks
/// that it is that segment (its own note of what it holds matches).
/// A file of that name that is not the segment is passed over for the next
/// folder's, and named if no folder has the segment.
pub(crate) fn open_file(segment: &Segment, folders: &[PathBuf]) -> Result<(Connection, PathBuf), StorageError> {
    let mut wrong = None;
    for folder in folders {
        let path = folder.join(&segment.file);
        if !path.is_file() {
            continue;
        }
        let opened = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(StorageError::from)
            .and_then(|conn| Ok((read_rows(&conn, "segment_of", false)?, conn)));
        match opened {
            Ok((held, conn)) if held.as_slice() == std::slice::from_ref(segment) => return Ok((conn, path)),
            Ok(_) => {
                wrong.get_or_insert_with(|| {
                    format!(
                        "{} is not the segment the journal names for entries {} to {} (its own note says otherwise)",
                        path.display(),
                        segment.first,
                        segment.last
                    )
                });
            }
            Err(e) => {
                wrong.get_or_insert_with(|| format!("{} cannot be read as a segment: {e}", path.display()));
            }
        }
    }
    if let Some(why) = wrong {
        return Err(StorageError::Unreadable {
            seq: segment.first,
            why,
        });
    }
    let looked_in: Vec<String> = folders.iter().map(|f| f.display().to_string()).collect();
    Err(StorageError::SegmentMissing {
        first: segment.first,
        last: segment.last,
        file: segment.file.clone(),
        looked_in: looked_in.join(", "),
    })
}

/// Copies the entries after the last segment up to `through` out of the
/// journal in data directory `dir` into a new segment file, and notes it in
/// the catalogue once the file is durable (the rows leave the live database
/// later, between the writer's groups). `None`: nothing to copy.
pub fn cut(dir: &Path, through: u64, key: Option<&[u8; 32]>) -> Result<Option<Segment>, StorageError> {
    let live = Connection::open(dir.join(DATABASE_FILE))?;
    create_catalogue(&live)?;
    let segments = catalogue(&live, key)?;
    let (first, prev_hash) = segments.last().map_or((1, [0; 32]), |s| (s.last + 1, s.last_hash));
    if through < first {
        return Ok(None);
    }
    let row = |seq: u64| -> Result<(u64, [u8; 32]), StorageError> {
        live.query_row("SELECT at_ms, hash FROM journal WHERE seq = ?1", [seq as i64], |r| {
            Ok((
                r.get::<_, i64>(0)? as u64,
                crate::compact::hash_from(seq, r.get_ref(1)?),
            ))
        })
        .optional()?
        .map(|(at, hash)| Ok::<_, StorageError>((at, hash?)))
        .transpose()?
        .ok_or_else(|| StorageError::Unreadable {
            seq,
            why: "the live journal lacks it, so no segment can end or begin there".into(),
        })
    };
    let (_, first_hash) = row(first)?;
    let (last_at, last_hash) = row(through)?;
    let day = day_name(last_at);
    let taken = |name: &str| segments.iter().any(|s| s.file == name);
    let file = if taken(&format!("{day}.db")) {
        format!("{day}-from-{first}.db")
    } else {
        format!("{day}.db")
    };
    let mut segment = Segment {
        first,
        last: through,
        prev_hash,
        first_hash,
        last_hash,
        file,
        mac: [0; 32],
    };
    segment.mac = mac_of(key, &segment);
    let folder = dir.join(SEGMENTS_DIR);
    std::fs::create_dir_all(&folder).map_err(|e| not_written(&folder, e))?;
    let partial = folder.join(format!("{}.partial", segment.file));
    if partial.exists() {
        std::fs::remove_file(&partial).map_err(|e| not_written(&partial, e))?;
    }
    if let Err(e) = write_file(&partial, &dir.join(DATABASE_FILE), &segment) {
        // A file half written (a full disk) takes no room until the next try.
        let _ = std::fs::remove_file(&partial);
        return Err(e);
    }
    let done = folder.join(&segment.file);
    if let Err(e) = std::fs::rename(&partial, &done) {
        let _ = std::fs::remove_file(&partial);
        return Err(not_written(&done, e));
    }
    std::fs::File::open(&folder)
        .and_then(|f| f.sync_all())
        .map_err(|e| not_written(&folder, e))?;
    insert(&live, "segment", &segment)?;
    Ok(Some(segment))
}

fn not_written(path: &Path, e: std::io::Error) -> StorageError {
    StorageError::NotWritten(format!("{}: {e}", path.display()))
}

fn insert(conn: &Connection, table: &str, s: &Segment) -> Result<(), StorageError> {
    conn.execute(
        &format!("INSERT INTO {table} ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"),
        params![
            s.first as i64,
            s.last as i64,
            &s.prev_hash[..],
            &s.first_hash[..],
            &s.last_hash[..],
            s.file,
            &s.mac[..]
        ],
    )?;
    Ok(())
}

/// Writes the segment's file at `path` from the live database at `live`,
/// in one transaction flushed to disk, and checks that it holds every entry.
fn write_file(path: &Path, live: &Path, s: &Segment) -> Result<(), StorageError> {
    let live = live.to_str().ok_or_else(|| StorageError::Unreadable {
        seq: s.first,
        why: format!("{} is not a path SQLite can take", live.display()),
    })?;
    let conn = Connection::open(path)?;
    conn.execute_batch(
        "PRAGMA page_size = 16384;
         PRAGMA journal_mode = DELETE;
         PRAGMA synchronous = FULL;
         CREATE TABLE journal (
             seq INTEGER PRIMARY KEY,
             at_ms BIGINT NOT NULL,
             record TEXT NOT NULL,
             prev_hash TEXT NOT NULL,
             hash TEXT NOT NULL,
             mac BLOB
         );",
    )?;
    crate::compact::create_table(&conn)?;
    // What the file holds, in its own words: checked against the catalogue when it is read.
    create_table(&conn, "segment_of")?;
    conn.pragma_update(None, "user_version", LAYOUT)?;
    conn.execute("ATTACH DATABASE ?1 AS live", [live])?;
    conn.execute_batch("BEGIN IMMEDIATE")?;
    let copied = (|| -> Result<u64, StorageError> {
        // The first row keeps the hash before it: the entry it follows is in
        // another file. Each row keeps its MAC: a segment's entries stay vouched for.
        let rows = conn.execute(
            "INSERT INTO main.journal (seq, at_ms, record, prev_hash, hash, mac)
             SELECT seq, at_ms, record, CASE WHEN seq = ?1 THEN ?3 ELSE prev_hash END, hash, mac
             FROM live.journal WHERE seq >= ?1 AND seq <= ?2 ORDER BY seq",
            params![s.first as i64, s.last as i64, &s.prev_hash[..]],
        )?;
        conn.execute_batch(
            "INSERT INTO main.dictionary SELECT * FROM live.dictionary;
             INSERT INTO main.dictionary_copy SELECT * FROM live.dictionary_copy;",
        )?;
        insert(&conn, "main.segment_of", s)?;
        Ok(rows as u64)
    })();
    match copied {
        Ok(rows) if rows == s.last - s.first + 1 => conn.execute_batch("COMMIT")?,
        Ok(rows) => {
            conn.execute_batch("ROLLBACK")?;
            return Err(StorageError::Unreadable {
                seq: s.first,
                why: format!(
                    "the live journal holds {rows} of the {} entries from {} to {}: no segment is made",
                    s.last - s.first + 1,
                    s.first,
                    s.last
                ),
            });
        }
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            return Err(e);
        }
    }
    conn.execute_batch("DETACH DATABASE live")?;
    Ok(())
}

/// Deletes from the live database in `conn` up to [`PRUNE_ROWS`] rows that
/// a catalogued segment holds, never its last row, and only once the
/// segment's file (looked for in `folders`) holds the very same entries,
/// hash for hash: the live rows are the last copy until then. Returns how many went.
pub(crate) fn prune(conn: &Connection, key: Option<&[u8; 32]>, folders: &[PathBuf]) -> Result<usize, StorageError> {
    let segments = catalogue(conn, key)?;
    let Some(end) = segments.last().map(|s| s.last) else {
        return Ok(0);
    };
    let bounds: (Option<i64>, Option<i64>) = conn.query_row("SELECT min(seq), max(seq) FROM journal", [], |r| {
        Ok((r.get(0)?, r.get(1)?))
    })?;
    let (Some(low), Some(high)) = bounds else {
        return Ok(0);
    };
    let low = low as u64;
    let Some(segment) = segments.iter().find(|s| s.first <= low && low <= s.last) else {
        return Ok(0);
    };
    // This segment's rows only, never the live journal's last.
    let until = segment
        .last
        .min(end)
        .min(low + PRUNE_ROWS as u64 - 1)
        .min((high as u64).saturating_sub(1));
    if until < low {
        return Ok(0);
    }
    let hashes = |c: &Connection| -> Result<Vec<(i64, Vec<u8>)>, StorageError> {
        let mut statement = c.prepare("SELECT seq, hash FROM journal WHERE seq >= ?1 AND seq <= ?2 ORDER BY seq")?;
        let rows = statement.query_map(params![low as i64, until as i64], |r| {
            let hash = match r.get_ref(1)? {
                rusqlite::types::ValueRef::Blob(b) => b.to_vec(),
                other => hex::decode(other.as_bytes().unwrap_or_default()).unwrap_or_default(),
            };
            Ok((r.get::<_, i64>(0)?, hash))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    };
    let (file, _) = open_file(segment, folders)?;
    let (live, kept) = (hashes(conn)?, hashes(&file)?);
    if live != kept {
        return Err(StorageError::Unreadable {
            seq: low,
            why: format!(
                "the segment {} does not hold entries {low} to {until} as the live journal does: they stay in the live journal",
                segment.file
            ),
        });
    }
    let deleted = conn.execute(
        "DELETE FROM journal WHERE seq >= ?1 AND seq <= ?2",
        params![low as i64, until as i64],
    )?;
    Ok(deleted)
}
