//! The journal's records as SQLite stores them: compact, and read back to
//! the very bytes each entry's hash covers.
//!
//! A bet's record is some 500 bytes of JSON, most of it the same words at
//! every bet. A record that moves money is stored as a zstd frame under a
//! dictionary trained on the journal's own records (about 70 bytes a bet
//! on the load benchmark's), and a long one (a round's settlement) even
//! before there is a dictionary. Both its hashes go as 32 bytes rather than
//! 64 hex digits, and the hash before it as nothing: it is the entry
//! before's. What the hash covers does not change: the text, byte for byte.
//!
//! A record that moves no money stays text (a round's opening and closing,
//! the floor's operations, a checkpoint's binding): there are a few a
//! round, and SQL finds them where they lie (a start looks for bindings so).
//! Rows written before any of this (text and hex) read as they always did.
//!
//! The dictionaries are rows of the database itself (`dictionary`), so a
//! journal reads with any later build; each is kept twice, with its SHA-256
//! (`dictionary_copy`), so that one damaged copy loses nothing. A dictionary
//! is written under only once it reads back what it wrote, and never under
//! an id other than 1 to 255 (a record's first byte; 0 is none). The first is trained once the
//! journal holds [`DICTIONARY_AFTER`]`[0]` entries, and one more at each
//! later step, on the newest records then: a casino's first entries are its
//! setting up, not its play. Training runs between groups, after the
//! answers (`Storage::after_group`), never inside a commit.

use std::cell::RefCell;

use foldhash::HashMap;
use rusqlite::types::ValueRef;
use rusqlite::{params, Connection, OptionalExtension};
use sha2::{Digest, Sha256};

use crate::storage_error::StorageError;

/// The journal's lengths (in entries) at which a dictionary is trained.
pub const DICTIONARY_AFTER: [u64; 3] = [4_096, 65_536, 1_048_576];

/// How many of the newest records a dictionary is trained on, and its size.
pub const DICTIONARY_SAMPLES: u64 = 4_096;
pub const DICTIONARY_BYTES: usize = 16 * 1024;

/// A record at least this long is compressed with no dictionary too.
pub const ALONE_FROM: usize = 8 * 1024;

/// zstd's level: its default, about 4 µs a bet's record on this project's machine.
const LEVEL: i32 = 3;

/// No record a journal holds is longer (a round of 10,000 bets settles in
/// about 1.4 MB): a frame that says it is, is damaged, not read. What a
/// frame says bounds what reading it takes.
pub const RECORD_BYTES_MAX: u64 = 64 << 20;

/// The first byte of a compressed record: its dictionary (0: none).
type DictionaryId = u8;

/// How a record is written: as text, or as a compressed blob.
pub enum Stored<'a> {
    Text(&'a str),
    Blob(Vec<u8>),
}

impl rusqlite::ToSql for Stored<'_> {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        Ok(rusqlite::types::ToSqlOutput::Borrowed(match self {
            Stored::Text(text) => ValueRef::Text(text.as_bytes()),
            Stored::Blob(blob) => ValueRef::Blob(blob),
        }))
    }
}

/// Compresses and decompresses the records of one connection's journal.
pub struct Codec {
    /// The newest dictionary, the one records are written under.
    writing: Option<(DictionaryId, zstd::bulk::Compressor<'static>)>,
    alone: Option<zstd::bulk::Compressor<'static>>,
    /// Dictionaries met while reading, loaded once each, and whether a
    /// recorded digest vouches for the bytes loaded.
    reading: RefCell<HashMap<DictionaryId, (zstd::bulk::Decompressor<'static>, bool)>>,
    /// The journal's length at which the next dictionary is trained.
    next_training: Option<u64>,
    /// The records read so far: as text, and compressed under each dictionary (0: none).
    read: RefCell<Read>,
}

/// How the records a connection read were stored (`croupier verify` tells it).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Read {
    pub text: u64,
    pub compressed: std::collections::BTreeMap<u8, u64>,
    /// Dictionaries read from one sound copy: the other is damaged or missing
    /// (the database should be put back from a copy before the second goes).
    pub one_copy_left: std::collections::BTreeSet<u8>,
}

/// What a compressed record read back as, and whether the dictionary it was
/// read under is vouched for by its digest. Where it is not, a record that
/// is not what its hash covers is the dictionary's fault as likely as its
/// own, and is told as the dictionary's: nothing sound is cut for it.
#[derive(Debug)]
pub struct Decoded {
    pub text: String,
    pub unvouched: Option<u8>,
}

impl Codec {
    /// The codec of the journal in `conn`, which writes under its newest
    /// dictionary (a read-only database may have no dictionary table).
    pub fn open(conn: &Connection) -> Result<Codec, StorageError> {
        let mut codec = Codec {
            writing: None,
            alone: None,
            reading: RefCell::new(HashMap::default()),
            next_training: DICTIONARY_AFTER.first().copied(),
            read: RefCell::new(Read::default()),
        };
        if !has_dictionaries(conn)? || !has_table(conn, "dictionary_copy")? {
            return Ok(codec);
        }
        // Written under: the newest dictionary its digest vouches for, that
        // reads back what it writes. Any other is passed over, said once.
        let Some(newest) = newest_id(conn)? else {
            return Ok(codec);
        };
        let ids: Vec<i64> = conn
            .prepare("SELECT id FROM dictionary_copy ORDER BY id DESC")?
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        for id in ids
            .into_iter()
            .filter_map(|id| DictionaryId::try_from(id).ok())
            .filter(|id| *id > 0)
        {
            let sound = match dictionary(conn, 0, id) {
                Ok((bytes, true)) => writer_under(&bytes),
                Ok((_, false)) => Err("no digest of it is recorded".to_string()),
                Err(e) => Err(e.to_string()),
            };
            match sound {
                Ok(compressor) => {
                    if codec.copies_sound(conn, id)? < 2 {
                        tracing::warn!(
                            "dictionary {id} has one sound copy left: put back the database from a copy before the second goes"
                        );
                    }
                    codec.writing = Some((id, compressor));
                    break;
                }
                Err(why) => tracing::warn!("records are not written under dictionary {id}: {why}"),
            }
        }
        // The next is trained after the newest written under, numbered past every one there is.
        let written = codec.writing.as_ref().map_or(0, |(id, _)| usize::from(*id));
        codec.next_training = match DictionaryId::try_from(newest + 1) {
            Ok(_) if newest >= 0 => DICTIONARY_AFTER.get(written).copied(),
            _ => None,
        };
        Ok(codec)
    }

    /// How `text`, the record of an entry that moves money or not, is stored.
    pub fn encode<'a>(&mut self, seq: u64, text: &'a str, moves_money: bool) -> Result<Stored<'a>, StorageError> {
        if !moves_money {
            return Ok(Stored::Text(text));
        }
        let (id, compressor) = match &mut self.writing {
            Some((id, compressor)) => (*id, compressor),
            None if text.len() >= ALONE_FROM => {
                if self.alone.is_none() {
                    self.alone = Some(compressor(None).map_err(|e| unreadable(seq, e))?);
                }
                match &mut self.alone {
                    Some(compressor) => (0, compressor),
                    None => return Ok(Stored::Text(text)),
                }
            }
            None => return Ok(Stored::Text(text)),
        };
        let mut blob = Vec::with_capacity(text.len() / 4 + 16);
        blob.push(id);
        let frame = compressor
            .compress(text.as_bytes())
            .map_err(|e| unreadable(seq, format!("cannot be compressed: {e}")))?;
        blob.extend_from_slice(&frame);
        Ok(Stored::Blob(blob))
    }

    /// The text of the record of entry `seq` as stored in `value`.
    pub fn decode(&self, conn: &Connection, seq: u64, value: ValueRef<'_>) -> Result<Decoded, StorageError> {
        let blob = match value {
            ValueRef::Text(text) => {
                self.read.borrow_mut().text += 1;
                let text = String::from_utf8(text.to_vec())
                    .map_err(|e| unreadable(seq, format!("record is not UTF-8: {e}")))?;
                return Ok(Decoded { text, unvouched: None });
            }
            ValueRef::Blob(blob) => blob,
            _ => return Err(unreadable(seq, "record is neither text nor a compressed record")),
        };
        let Some((&id, frame)) = blob.split_first() else {
            return Err(unreadable(seq, "record is an empty blob"));
        };
        let damaged = |why: String| unreadable(seq, format!("its compressed record is damaged: {why}"));
        let size = match zstd::zstd_safe::get_frame_content_size(frame) {
            Ok(Some(size)) if size <= RECORD_BYTES_MAX => size as usize,
            Ok(Some(size)) => return Err(damaged(format!("it says it is {size} bytes long"))),
            Ok(None) | Err(_) => return Err(damaged("it is not a zstd frame of known length".into())),
        };
        // One frame and nothing after it: no bytes the hash does not cover.
        match zstd::zstd_safe::find_frame_compressed_size(frame) {
            Ok(length) if length == frame.len() => {}
            Ok(length) => return Err(damaged(format!("{} bytes follow its frame", frame.len() - length))),
            Err(_) => return Err(damaged("its frame does not end".into())),
        }
        let mut reading = self.reading.borrow_mut();
        let (decompressor, vouched) = match reading.entry(id) {
            std::collections::hash_map::Entry::Occupied(known) => known.into_mut(),
            std::collections::hash_map::Entry::Vacant(new) => new.insert(if id == 0 {
                (zstd::bulk::Decompressor::new().map_err(|e| unreadable(seq, e))?, true)
            } else {
                let (bytes, vouched) = dictionary(conn, seq, id)?;
                if vouched && self.copies_sound(conn, id)? < 2 {
                    self.read.borrow_mut().one_copy_left.insert(id);
                }
                let decompressor =
                    zstd::bulk::Decompressor::with_dictionary(&bytes).map_err(|e| dictionary_damaged(seq, id, e))?;
                (decompressor, vouched)
            }),
        };
        let unvouched = (!*vouched).then_some(id);
        // Under a dictionary no digest vouches for, a frame that does not read is the dictionary's to answer for.
        let fault = |why: String| match unvouched {
            Some(id) => dictionary_damaged(seq, id, format!("no recorded digest vouches for it, and {why}")),
            None => damaged(why),
        };
        let bytes = decompressor
            .decompress(frame, size)
            .map_err(|e| fault(format!("the record does not decompress under it ({e})")))?;
        let text = String::from_utf8(bytes)
            .map_err(|e| fault(format!("the record decompresses to what is not UTF-8 ({e})")))?;
        *self.read.borrow_mut().compressed.entry(id).or_default() += 1;
        Ok(Decoded { text, unvouched })
    }

    /// How many copies of dictionary `id` are as trained (its digest recorded).
    fn copies_sound(&self, conn: &Connection, id: DictionaryId) -> Result<usize, StorageError> {
        let digest = recorded_digest(conn, id)?;
        Ok(copies(conn, id)?
            .iter()
            .filter(|bytes| digest.as_deref() == Some(hex::encode(Sha256::digest(bytes)).as_str()))
            .count())
    }

    /// How the records read so far were stored.
    pub fn read(&self) -> Read {
        self.read.borrow().clone()
    }

    /// Counts records read through another codec (a segment's file's) as read here.
    pub fn add_read(&self, other: &Read) {
        let mut read = self.read.borrow_mut();
        read.text += other.text;
        for (id, n) in &other.compressed {
            *read.compressed.entry(*id).or_default() += n;
        }
        read.one_copy_left.extend(other.one_copy_left.iter().copied());
    }

    /// Trains the next dictionary on the newest records, where the journal,
    /// `last` entries long, has reached its length: once, between groups.
    /// A failure is told and leaves records as they were written before.
    pub fn train_if_due(&mut self, conn: &Connection, last: u64) {
        let Some(due) = self.next_training else {
            return;
        };
        if last < due {
            return;
        }
        if let Err(e) = create_table(conn) {
            tracing::warn!("no dictionary for the journal's records: {e}");
            return;
        }
        // Numbered past every dictionary there is, written under or not.
        let Some(id) = newest_id(conn)
            .ok()
            .map(|n| n.unwrap_or(0).max(0) + 1)
            .and_then(|n| DictionaryId::try_from(n).ok())
        else {
            self.next_training = None;
            return;
        };
        let written = self.writing.as_ref().map_or(0, |(id, _)| usize::from(*id));
        self.next_training = DICTIONARY_AFTER.get(written + 1).copied();
        match self.train(conn, last, id) {
            Ok(()) => tracing::info!(
                "the journal's records are compressed under dictionary {id} from entry {}",
                last + 1
            ),
            Err(e) => tracing::warn!("no dictionary {id} for the journal's records: {e}; they are written as before"),
        }
    }

    fn train(&mut self, conn: &Connection, last: u64, id: DictionaryId) -> Result<(), StorageError> {
        let mut samples = Vec::new();
        {
            let mut statement = conn.prepare("SELECT seq, record FROM journal WHERE seq > ?1 AND seq <= ?2")?;
            let from = last.saturating_sub(DICTIONARY_SAMPLES) as i64;
            let mut rows = statement.query(params![from, last as i64])?;
            while let Some(row) = rows.next()? {
                let seq = row.get::<_, i64>(0)? as u64;
                let text = self.decode(conn, seq, row.get_ref(1)?)?.text;
                if text.len() < ALONE_FROM {
                    samples.push(text);
                }
            }
        }
        let bytes = zstd::dict::from_samples(&samples, DICTIONARY_BYTES).map_err(|e| unreadable(0, e))?;
        let compressor = writer_under(&bytes).map_err(|why| unreadable(0, why))?;
        create_table(conn)?;
        let sha256 = hex::encode(Sha256::digest(&bytes));
        let tx = conn.unchecked_transaction()?;
        tx.execute(
            "INSERT INTO dictionary (id, after_seq, bytes) VALUES (?1, ?2, ?3)",
            params![i64::from(id), last as i64, bytes],
        )?;
        tx.execute(
            "INSERT INTO dictionary_copy (id, sha256, bytes) VALUES (?1, ?2, ?3)",
            params![i64::from(id), sha256, bytes],
        )?;
        tx.commit()?;
        self.writing = Some((id, compressor));
        Ok(())
    }
}

/// A compressor under dictionary `id`, once it is seen to read back what it
/// writes (a dictionary that is not one would write records none can read).
fn writer_under(bytes: &[u8]) -> Result<zstd::bulk::Compressor<'static>, String> {
    const PROBE: &str = r#"{"type":"commit","transfers":[{"id":"t/1/b/stake","amount":100}],"events":[]}"#;
    let mut compressor = compressor(Some(bytes)).map_err(|e| e.to_string())?;
    let frame = compressor.compress(PROBE.as_bytes()).map_err(|e| e.to_string())?;
    let back = zstd::bulk::Decompressor::with_dictionary(bytes)
        .and_then(|mut d| d.decompress(&frame, PROBE.len()))
        .map_err(|e| e.to_string())?;
    if back != PROBE.as_bytes() {
        return Err("it does not read back what it writes".into());
    }
    Ok(compressor)
}

/// Makes the dictionaries' table, where it is missing.
pub fn create_table(conn: &Connection) -> Result<(), StorageError> {
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS dictionary (
             id INTEGER PRIMARY KEY,
             after_seq BIGINT NOT NULL,
             bytes BLOB NOT NULL
         );
         CREATE TABLE IF NOT EXISTS dictionary_copy (
             id INTEGER PRIMARY KEY,
             sha256 TEXT NOT NULL,
             bytes BLOB NOT NULL
         );",
    )?;
    Ok(())
}

pub(crate) fn has_table(conn: &Connection, name: &str) -> Result<bool, StorageError> {
    Ok(conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1)",
        [name],
        |r| r.get(0),
    )?)
}

/// The highest number any dictionary has, in either table (both must exist).
fn newest_id(conn: &Connection) -> Result<Option<i64>, StorageError> {
    Ok(conn.query_row(
        "SELECT max(id) FROM (SELECT id FROM dictionary UNION SELECT id FROM dictionary_copy)",
        [],
        |r| r.get(0),
    )?)
}

fn has_dictionaries(conn: &Connection) -> Result<bool, StorageError> {
    has_table(conn, "dictionary")
}

/// No dictionary is longer (one is trained to 16 KiB): a row that is, is
/// damaged, and is not read.
pub const DICTIONARY_BYTES_MAX: i64 = 1 << 20;

/// The SHA-256 recorded for dictionary `id` at its training, in lowercase hex.
fn recorded_digest(conn: &Connection, id: DictionaryId) -> Result<Option<String>, StorageError> {
    if !has_table(conn, "dictionary_copy")? {
        return Ok(None);
    }
    let digest: Option<rusqlite::types::Value> = conn
        .query_row(
            "SELECT sha256 FROM dictionary_copy WHERE id = ?1",
            [i64::from(id)],
            |r| r.get(0),
        )
        .optional()?;
    Ok(match digest {
        Some(rusqlite::types::Value::Text(hex)) => Some(hex.to_ascii_lowercase()),
        _ => None,
    })
}

/// Dictionary `id`'s copies that are bytes of a dictionary's length, in
/// the order they are tried.
fn copies(conn: &Connection, id: DictionaryId) -> Result<Vec<Vec<u8>>, StorageError> {
    let mut found = Vec::new();
    for table in ["dictionary", "dictionary_copy"] {
        if !has_table(conn, table)? {
            continue;
        }
        let bytes: Option<rusqlite::types::Value> = conn
            .query_row(
                &format!("SELECT CASE WHEN length(bytes) <= ?2 THEN bytes END FROM {table} WHERE id = ?1"),
                params![i64::from(id), DICTIONARY_BYTES_MAX],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(rusqlite::types::Value::Blob(bytes)) = bytes {
            found.push(bytes);
        }
    }
    Ok(found)
}

/// Dictionary `id`'s bytes, for entry `seq`, and whether its digest vouches
/// for them: the copy whose SHA-256 is the one recorded at training (the
/// other where one is damaged). With no digest recorded (lost), a copy is
/// read unvouched for, and what it reads is checked against the entries'
/// hashes. A dictionary damaged or lost whole is its own error, naming it.
fn dictionary(conn: &Connection, seq: u64, id: DictionaryId) -> Result<(Vec<u8>, bool), StorageError> {
    let copies = copies(conn, id)?;
    let Some(digest) = recorded_digest(conn, id)? else {
        return copies
            .into_iter()
            .next()
            .map(|bytes| (bytes, false))
            .ok_or_else(|| dictionary_damaged(seq, id, "the journal lacks it"));
    };
    copies
        .into_iter()
        .find(|bytes| hex::encode(Sha256::digest(bytes)) == digest)
        .map(|bytes| (bytes, true))
        .ok_or_else(|| {
            dictionary_damaged(
                seq,
                id,
                format!("neither of its copies is the one trained (SHA-256 {digest})"),
            )
        })
}

/// A record that cannot be read for its dictionary: the entries under it
/// are sound, and come back with the dictionary (from a copy of the database).
fn dictionary_damaged(seq: u64, id: DictionaryId, why: impl std::fmt::Display) -> StorageError {
    StorageError::Dictionary {
        seq,
        id,
        why: why.to_string(),
    }
}

/// A compressor under `dictionary`; frames carry their length and not the
/// dictionary's own id (the record's first byte names it).
fn compressor(dictionary: Option<&[u8]>) -> Result<zstd::bulk::Compressor<'static>, StorageError> {
    let mut compressor = match dictionary {
        Some(bytes) => zstd::bulk::Compressor::with_dictionary(LEVEL, bytes),
        None => zstd::bulk::Compressor::new(LEVEL),
    }
    .map_err(|e| unreadable(0, e))?;
    compressor
        .set_parameter(zstd::zstd_safe::CParameter::DictIdFlag(false))
        .map_err(|e| unreadable(0, e))?;
    compressor
        .set_parameter(zstd::zstd_safe::CParameter::ContentSizeFlag(true))
        .map_err(|e| unreadable(0, e))?;
    Ok(compressor)
}

fn unreadable(seq: u64, why: impl std::fmt::Display) -> StorageError {
    StorageError::Unreadable {
        seq,
        why: why.to_string(),
    }
}

/// A hash as stored: 32 bytes, or (rows written before) 64 hex digits.
pub fn hash_from(seq: u64, value: ValueRef<'_>) -> Result<[u8; 32], StorageError> {
    match value {
        ValueRef::Blob(bytes) => {
            <[u8; 32]>::try_from(bytes).map_err(|_| unreadable(seq, format!("hash is {} bytes, not 32", bytes.len())))
        }
        ValueRef::Text(text) => {
            let bytes = hex::decode(text).map_err(|e| unreadable(seq, format!("hash is not hex: {e}")))?;
            <[u8; 32]>::try_from(bytes.as_slice()).map_err(|_| unreadable(seq, "hash is not 32 bytes"))
        }
        _ => Err(unreadable(seq, "hash is neither bytes nor hex")),
    }
}

/// The hash before an entry's, as stored: empty where it is the hash of the
/// entry before (every row written so), else a hash.
pub fn prev_hash_from(seq: u64, value: ValueRef<'_>) -> Result<Option<[u8; 32]>, StorageError> {
    match value {
        ValueRef::Blob([]) => Ok(None),
        other => hash_from(seq, other).map(Some),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn journal() -> Connection {
        let conn = Connection::open_in_memory().expect("memory");
        conn.execute_batch(
            "CREATE TABLE journal (seq INTEGER PRIMARY KEY, at_ms BIGINT, record TEXT, prev_hash TEXT, hash TEXT)",
        )
        .expect("table");
        conn
    }

    fn bet(n: u64) -> String {
        format!(
            r#"{{"type":"commit","transfers":[{{"id":"t1/{r}/p{n}/stake","from":"chips:t1:p{p}","to":"layout:t1","amount":{a},"memo":"bet"}}],"events":[]}}"#,
            r = n / 100,
            p = n % 37,
            a = 100 * (n % 7 + 1)
        )
    }

    #[test]
    fn a_record_reads_back_as_the_very_text_it_was_with_and_without_a_dictionary() {
        let conn = journal();
        let mut codec = Codec::open(&conn).expect("codec");
        let short = bet(1);
        assert!(matches!(
            codec.encode(1, &short, true).expect("encode"),
            Stored::Text(_)
        ));
        let long = (0..200).map(bet).collect::<Vec<_>>().join(",");
        let Stored::Blob(alone) = codec.encode(2, &long, true).expect("encode") else {
            panic!("a long record is compressed with no dictionary");
        };
        assert!(alone.len() * 10 < long.len(), "{} of {}", alone.len(), long.len());
        assert_eq!(
            codec.decode(&conn, 1, ValueRef::Blob(&alone)).expect("decode").text,
            long
        );
        for n in 1..=DICTIONARY_AFTER[0] {
            conn.execute(
                "INSERT INTO journal VALUES (?1, 0, ?2, '', '')",
                params![n as i64, bet(n)],
            )
            .expect("insert");
        }
        codec.train_if_due(&conn, DICTIONARY_AFTER[0] - 1);
        assert!(codec.writing.is_none(), "not before its length");
        codec.train_if_due(&conn, DICTIONARY_AFTER[0]);
        let text = bet(DICTIONARY_AFTER[0] + 1);
        let Stored::Blob(blob) = codec.encode(3, &text, true).expect("encode") else {
            panic!("under a dictionary a bet's record is compressed");
        };
        assert_eq!(blob[0], 1);
        assert!(blob.len() * 3 < text.len(), "{} of {}", blob.len(), text.len());
        assert!(
            matches!(codec.encode(3, &text, false).expect("encode"), Stored::Text(_)),
            "no money: text"
        );
        // Another connection reads it with the dictionary the journal holds.
        let other = Codec::open(&conn).expect("codec");
        assert_eq!(
            other.decode(&conn, 9, ValueRef::Blob(&blob)).expect("decode").text,
            text
        );
        assert_eq!(other.writing.as_ref().map(|(id, _)| *id), Some(1));
        assert_eq!(other.next_training, Some(DICTIONARY_AFTER[1]));
    }

    #[test]
    fn a_damaged_compressed_record_is_refused_naming_its_entry_not_read() {
        let conn = journal();
        let codec = Codec::open(&conn).expect("codec");
        let long = (0..200).map(bet).collect::<Vec<_>>().join(",");
        let mut alone = zstd::bulk::compress(long.as_bytes(), 3).expect("compress");
        alone.insert(0, 0);
        let mut trailing = alone.clone();
        trailing.extend_from_slice(&[0x50, 0x2a, 0x4d, 0x18, 2, 0, 0, 0, 9, 9]);
        let cases: [(Vec<u8>, &str); 5] = [
            (vec![], "empty"),
            (vec![0, 1, 2, 3], "zstd frame"),
            ([&[7u8][..], &alone[1..]].concat(), "dictionary 7"),
            (alone[..alone.len() - 3].to_vec(), "does not end"),
            (trailing, "10 bytes follow its frame"),
        ];
        for (blob, why) in cases {
            let e = codec.decode(&conn, 42, ValueRef::Blob(&blob)).expect_err(why);
            assert!(e.to_string().contains("42") && e.to_string().contains(why), "{e}");
        }
        // A frame claiming a length past any record's is refused before any allocation.
        let mut huge = vec![0u8, 0x28, 0xb5, 0x2f, 0xfd, 0xa0];
        huge.extend_from_slice(&(RECORD_BYTES_MAX as u32 + 1).to_le_bytes());
        huge.extend_from_slice(&[0; 8]);
        let e = codec.decode(&conn, 5, ValueRef::Blob(&huge)).expect_err("huge");
        assert!(e.to_string().contains("says it is"), "{e}");
    }

    /// A journal past its first dictionary's length, as `Storage::after_group` trains it.
    fn trained() -> (Connection, Codec) {
        let conn = journal();
        let mut codec = Codec::open(&conn).expect("codec");
        for n in 1..=DICTIONARY_AFTER[0] {
            conn.execute(
                "INSERT INTO journal VALUES (?1, 0, ?2, '', '')",
                params![n as i64, bet(n)],
            )
            .expect("insert");
        }
        codec.train_if_due(&conn, DICTIONARY_AFTER[0]);
        assert_eq!(codec.writing.as_ref().map(|(id, _)| *id), Some(1));
        (conn, codec)
    }

    #[test]
    fn a_dictionary_damaged_in_one_copy_reads_from_the_other_and_in_both_is_named() {
        let (conn, mut codec) = trained();
        let text = bet(9_999);
        let Stored::Blob(blob) = codec.encode(3, &text, true).expect("encode") else {
            panic!("compressed");
        };
        for table in ["dictionary", "dictionary_copy"] {
            conn.execute(
                &format!("UPDATE {table} SET bytes = zeroblob(length(bytes)) WHERE id = 1"),
                [],
            )
            .expect("damage");
            let fresh = Codec::open(&conn).expect("codec");
            match table {
                "dictionary" => {
                    assert_eq!(
                        fresh.decode(&conn, 7, ValueRef::Blob(&blob)).expect("the copy").text,
                        text
                    );
                    assert!(fresh.read().one_copy_left.contains(&1), "one copy left is told");
                }
                _ => {
                    let e = fresh.decode(&conn, 7, ValueRef::Blob(&blob)).expect_err("both damaged");
                    assert!(matches!(e, StorageError::Dictionary { seq: 7, id: 1, .. }), "{e}");
                    assert!(e.to_string().contains("put back the database"), "{e}");
                    assert!(fresh.writing.is_none(), "written under a damaged dictionary");
                }
            }
        }
    }

    #[test]
    fn a_planted_dictionary_is_never_written_under_unless_it_reads_back() {
        let (conn, _) = trained();
        let written = |codec: &Codec| codec.writing.as_ref().map(|(id, _)| *id);
        // Numbered 0 (no dictionary), past 255, or bytes that are no dictionary,
        // without the copy and digest a trained one has, or with them.
        let mut fake = vec![0x37, 0xa4, 0x30, 0xec];
        fake.extend((0..3_000u32).map(|i| (i * 7 % 251) as u8));
        let digest = hex::encode(Sha256::digest(&fake));
        for (id, copied) in [(0i64, false), (2, false), (2, true), (300, false)] {
            conn.execute("INSERT INTO dictionary VALUES (?1, 0, ?2)", params![id, fake])
                .expect("plant");
            if copied {
                conn.execute(
                    "INSERT INTO dictionary_copy VALUES (?1, ?2, ?3)",
                    params![id, digest, fake],
                )
                .expect("plant");
            }
            let mut codec = Codec::open(&conn).expect("a journal with one opens");
            assert_eq!(written(&codec), Some(1), "dictionary {id}: still the one trained");
            let Stored::Blob(blob) = codec.encode(1, &bet(5), true).expect("encode") else {
                panic!("compressed");
            };
            assert_eq!(blob[0], 1);
            if id == 300 {
                assert_eq!(codec.next_training, None, "no dictionary numbered past 255");
            }
            conn.execute("DELETE FROM dictionary WHERE id = ?1", [id])
                .expect("remove");
            conn.execute("DELETE FROM dictionary_copy WHERE id = ?1", [id])
                .expect("remove");
        }
        // The next trained is numbered past every dictionary there is.
        conn.execute("INSERT INTO dictionary VALUES (5, 0, ?1)", [&fake])
            .expect("plant");
        let mut codec = Codec::open(&conn).expect("opens");
        for n in DICTIONARY_AFTER[0] + 1..=DICTIONARY_AFTER[1] {
            if n % 1_000 == 0 || n > DICTIONARY_AFTER[1] - DICTIONARY_SAMPLES {
                conn.execute(
                    "INSERT INTO journal VALUES (?1, 0, ?2, '', '')",
                    params![n as i64, bet(n)],
                )
                .expect("insert");
            }
        }
        codec.train_if_due(&conn, DICTIONARY_AFTER[1]);
        assert_eq!(written(&codec), Some(6));
    }

    #[test]
    fn a_dictionary_no_digest_vouches_for_answers_for_what_it_cannot_read() {
        let (conn, mut codec) = trained();
        let Stored::Blob(blob) = codec.encode(3, &bet(77), true).expect("encode") else {
            panic!("compressed");
        };
        conn.execute("DELETE FROM dictionary_copy", [])
            .expect("the copy and digest lost");
        let fresh = Codec::open(&conn).expect("codec");
        assert!(
            fresh.writing.is_none(),
            "written under a dictionary no digest vouches for"
        );
        let read = fresh.decode(&conn, 8, ValueRef::Blob(&blob)).expect("it still reads");
        assert_eq!((read.text, read.unvouched), (bet(77), Some(1)));
        conn.execute("UPDATE dictionary SET bytes = zeroblob(length(bytes))", [])
            .expect("damaged");
        let fresh = Codec::open(&conn).expect("codec");
        let e = fresh.decode(&conn, 8, ValueRef::Blob(&blob)).expect_err("not read");
        assert!(matches!(e, StorageError::Dictionary { seq: 8, id: 1, .. }), "{e}");
    }
}
