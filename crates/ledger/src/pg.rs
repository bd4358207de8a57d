//! The journal on a PostgreSQL server, for a casino of more than one node
//! (`croupier serve --database postgres://...`).
//!
//! The same contract as [`crate::SqliteStorage`]: entries appended in order,
//! durable when `append` (or a group's `end_group`) returns, all of a batch
//! or none, sealed under the journal's key in the same transaction. What
//! each hash covers is the same text; a record is kept as that text (the
//! server compresses long values itself, TOAST), the hash as 32 bytes.
//!
//! **The lease.** A node writes only while it holds the casino's lease: a
//! PostgreSQL advisory lock held by its writing connection. The server lets
//! go of it when that connection ends, so a node that dies (`kill -9`, a
//! power cut, a lost network, found within seconds by TCP keepalives) hands
//! the casino on to the next node waiting for it, and a node that lost its
//! connection cannot write again without taking the lease again. The
//! journal's primary key is a second fence: two writers can never both
//! append an entry of the same number.
//!
//! A holder whose connection stays open but who no longer acts (a process
//! stopped or frozen, a network that drops its packets silently while the
//! database server's side of the connection lives on) would hold the lock
//! for ever. So the holder also renews a row, `lease`, every
//! [`LEASE_RENEW_MS`] with the database server's own `now()`, from a
//! connection of its own that checks the writing connection still holds the
//! lock. A standby that finds the row older than the holder's timeout
//! ([`LEASE_TIMEOUT_MS`] unless `serve --lease-timeout-ms` says otherwise,
//! kept in the row) ends the holder's writing connection on the server
//! (`pg_terminate_backend`) and takes the lock. The holder itself stops
//! writing, and says so, once the database has not confirmed its lease for
//! half that timeout ([`LeaseWatch`]): it gives up well before a standby
//! may take over, and if it wakes after that, its connection is gone.

use std::time::{Duration, Instant};

use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, NoTls, Statement};

use crate::journal::{Entry, Record};
use crate::macs::{EntryMac, MAC_BYTES};
use crate::seal::Seal;
use crate::storage::{SealAndLast, Storage, StorageError};

mod lease;
use lease::LeaseKeeper;
pub use lease::{LeaseWatch, LEASE_RENEW_MS, LEASE_TIMEOUT_MS, LEASE_TIMEOUT_MS_MAX, LEASE_TIMEOUT_MS_MIN};

/// The advisory lock that is the casino's lease ("croupier" in ASCII):
/// one per database, so two casinos may share a PostgreSQL server.
pub const LEASE_KEY: i64 = 0x6372_6f75_7069_6572;

/// The layout of the journal's tables this build writes (the `layout`
/// table): 2, each entry carries its MAC under the secret ([`crate::macs`];
/// rows written before read with none); 1, before. A build of an earlier
/// layout refuses it: it would write entries without their MACs.
pub const PG_LAYOUT: i64 = 2;

/// A process on the database server: its number, and when it began.
pub type Backend = (i32, String);

/// How often a node waiting for the lease asks for it again.
pub const LEASE_POLL_MS: u64 = 500;

/// The longest a statement runs on the database server (a lock waited for,
/// a stalled disk) before the server cancels it and it fails. A read that
/// streams the journal has none: it lasts as long as the replay it feeds.
pub const STATEMENT_TIMEOUT_MS: u64 = 10_000;
/// Data sent and not acknowledged by the database server's host for this
/// long ends the connection (TCP_USER_TIMEOUT): a network cut is found
/// while a statement waits, not after the system's fifteen minutes of retries.
pub const TCP_USER_TIMEOUT_MS: u64 = 5_000;
/// An idle connection is probed after this long, then every
/// [`KEEPALIVE_INTERVAL_MS`], and ended after [`KEEPALIVE_RETRIES`] probes unanswered.
pub const KEEPALIVE_IDLE_MS: u64 = 2_000;
pub const KEEPALIVE_INTERVAL_MS: u64 = 1_000;
pub const KEEPALIVE_RETRIES: u32 = 3;
/// How long connecting (TCP) to the database server may take.
pub const CONNECT_TIMEOUT_MS: u64 = 5_000;

fn said(e: &postgres::Error) -> String {
    crate::storage_error::said(e)
}

/// A connection to `url`, its TCP watched on this side (keepalives, a user
/// timeout, a connect timeout) and on the server's, its statements limited
/// to `statement_timeout_ms`.
fn connect_client(url: &str, shown: &str, name: &str, statement_timeout_ms: u64) -> Result<Client, StorageError> {
    let unreachable = |why: String| StorageError::Unreachable {
        at: shown.to_string(),
        why,
    };
    let mut config: postgres::Config = url.parse().map_err(|e: postgres::Error| unreachable(said(&e)))?;
    config
        .keepalives(true)
        .keepalives_idle(Duration::from_millis(KEEPALIVE_IDLE_MS))
        .keepalives_interval(Duration::from_millis(KEEPALIVE_INTERVAL_MS))
        .keepalives_retries(KEEPALIVE_RETRIES)
        .tcp_user_timeout(Duration::from_millis(TCP_USER_TIMEOUT_MS));
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(Duration::from_millis(CONNECT_TIMEOUT_MS));
    }
    let mut client = config.connect(NoTls).map_err(|e| unreachable(said(&e)))?;
    // A node that dies without closing its connection (a power cut, a
    // lost network) is found by the server within about 11 s, and its lease let go.
    client.batch_execute(&format!(
        "SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 2; SET tcp_keepalives_count = 3;
         SET client_min_messages = warning; SET statement_timeout = {statement_timeout_ms};
         SET application_name = '{name}'"
    ))?;
    Ok(client)
}

pub struct PgStorage {
    client: Client,
    /// Where it is, without a password, for messages.
    shown: String,
    insert: Option<Statement>,
    /// How it seals the journal and keeps groups together ([`crate::groups`]).
    sealer: crate::groups::Sealer,
    holds_lease: bool,
    /// Records read through this connection.
    read: u64,
    /// The lease's renewal, while this is the casino's writer.
    keeper: Option<LeaseKeeper>,
}

/// `url` as it may be shown: any password left out.
pub fn shown_url(url: &str) -> String {
    let Some((scheme, rest)) = url
        .split_once("://")
        .filter(|(scheme, _)| matches!(*scheme, "postgres" | "postgresql"))
    else {
        // Not a URL this reads: nothing of it is repeated, a password may be anywhere in it.
        return "(a connection string, not shown)".into();
    };
    // Everything up to the last '@' is the user and password (a password may
    // hold '/', '?' or '@' itself): only the user is kept. The query is left
    // out whole (its words may be percent-encoded). Showing too little of a
    // URL is harmless; showing a password is not.
    let (user, place) = match rest.rsplit_once('@') {
        Some((who, place)) => (Some(who.split(':').next().unwrap_or_default()), place),
        None => (None, rest),
    };
    let place = place.split('?').next().unwrap_or_default();
    match user {
        Some(user) => format!("{scheme}://{user}@{place}"),
        None => format!("{scheme}://{place}"),
    }
}

impl PgStorage {
    /// Connects to `url` to read the journal only: no lease, no tables made.
    pub fn open_read_only(url: &str) -> Result<PgStorage, StorageError> {
        let mut storage = PgStorage::connect(url, "croupier reader")?;
        storage.client.batch_execute("SET default_transaction_read_only = on")?;
        storage.check_layout()?;
        Ok(storage)
    }

    /// Connects to `url` as the casino's writer: takes the lease first,
    /// waiting for it while another node holds it, then makes the tables a
    /// new database lacks. `waiting` is asked at every try while it waits
    /// (every [`LEASE_POLL_MS`]): its error ends the wait (a node that could
    /// not take the casino over says so while it waits, not at the takeover).
    /// `lease_timeout_ms` is this node's lease timeout once it holds the
    /// lease ([`LEASE_TIMEOUT_MS`]); while it waits, it ends a holder whose
    /// lease is past the holder's own.
    pub fn open_writer(
        url: &str,
        lease_timeout_ms: u64,
        waiting: &mut dyn FnMut() -> Result<(), String>,
    ) -> Result<PgStorage, StorageError> {
        let lease_timeout_ms = lease_timeout_ms.clamp(LEASE_TIMEOUT_MS_MIN, LEASE_TIMEOUT_MS_MAX);
        let connect = || PgStorage::connect(url, "croupier writer");
        // A database that cannot be reached at all is told at once (a wrong
        // address, a wrong password); once reached, a node waits through its
        // restarts, connecting again.
        let mut storage = Some(connect()?);
        let mut failing = false;
        let mut unrenewed = None;
        loop {
            let tried = match storage.as_mut() {
                Some(s) => s.try_lease(),
                None => connect().and_then(|s| storage.insert(s).try_lease()),
            };
            match tried {
                Ok(true) => break,
                Ok(false) => failing = false,
                Err(e) => {
                    if !failing {
                        tracing::warn!("waiting for the casino's lease: {e}; connecting again");
                    }
                    failing = true;
                    storage = None;
                }
            }
            waiting().map_err(StorageError::NotTakenOver)?;
            // Only a node that waits ends a holder past its lease (not one that would not wait).
            let ended = storage
                .as_mut()
                .is_some_and(|s| !failing && s.end_stale_holder(lease_timeout_ms, &mut unrenewed));
            // An ended holder's connection goes within moments: the lease is asked for again soon.
            let poll = if ended { LEASE_POLL_MS / 5 } else { LEASE_POLL_MS };
            std::thread::sleep(Duration::from_millis(poll));
        }
        let Some(mut storage) = storage else {
            return Err(StorageError::NotTakenOver(
                "the lease was taken on no connection".into(),
            ));
        };
        let taken = Instant::now();
        // A synchronous commit: an acknowledged append is on the server's disk.
        storage.client.batch_execute(
            "SET synchronous_commit = on;
             CREATE TABLE IF NOT EXISTS journal (
                 seq BIGINT PRIMARY KEY CHECK (seq > 0),
                 at_ms BIGINT NOT NULL,
                 record TEXT NOT NULL,
                 hash BYTEA NOT NULL,
                 mac BYTEA
             );
             CREATE TABLE IF NOT EXISTS seal (
                 id INTEGER PRIMARY KEY CHECK (id = 1),
                 seq BIGINT NOT NULL,
                 hash TEXT NOT NULL,
                 mac TEXT NOT NULL
             );
             CREATE TABLE IF NOT EXISTS layout (
                 id INTEGER PRIMARY KEY CHECK (id = 1),
                 version BIGINT NOT NULL
             );
             CREATE TABLE IF NOT EXISTS checkpoint (
                 through BIGINT PRIMARY KEY,
                 bytes BYTEA NOT NULL
             );
             CREATE TABLE IF NOT EXISTS lease (
                 id INTEGER PRIMARY KEY CHECK (id = 1),
                 pid INTEGER NOT NULL,
                 started TIMESTAMPTZ NOT NULL,
                 renewed_at TIMESTAMPTZ NOT NULL,
                 timeout_ms BIGINT NOT NULL
             );",
        )?;
        // A journal of an earlier layout gains the column of MACs. Only then:
        // ALTER TABLE waits for every lock on the table, even with IF NOT
        // EXISTS, and a node taking over from a holder cut off silently would
        // wait out its statement timeout behind the old holder's readers,
        // still blocked sending to it (seen in the lease test), and stop.
        let has_macs: bool = storage
            .client
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM information_schema.columns
                   WHERE table_schema = current_schema() AND table_name = 'journal' AND column_name = 'mac')",
                &[],
            )?
            .get(0);
        if !has_macs {
            storage
                .client
                .batch_execute("ALTER TABLE journal ADD COLUMN IF NOT EXISTS mac BYTEA")?;
        }
        storage.hold_lease(url, lease_timeout_ms, taken)?;
        storage.client.execute(
            "INSERT INTO layout (id, version) VALUES (1, $1) ON CONFLICT (id) DO NOTHING",
            &[&PG_LAYOUT],
        )?;
        storage.check_layout()?;
        // A journal of an earlier layout has its column of MACs now (above):
        // its rows read with none, and a build before refuses it from here on.
        storage.client.execute(
            "UPDATE layout SET version = $1 WHERE id = 1 AND version < $1",
            &[&PG_LAYOUT],
        )?;
        storage.insert = Some(
            storage
                .client
                .prepare("INSERT INTO journal (seq, at_ms, record, hash, mac) VALUES ($1, $2, $3, $4, $5)")?,
        );
        Ok(storage)
    }

    fn connect(url: &str, name: &str) -> Result<PgStorage, StorageError> {
        let shown = shown_url(url);
        let client = connect_client(url, &shown, name, STATEMENT_TIMEOUT_MS)?;
        Ok(PgStorage {
            client,
            shown,
            insert: None,
            sealer: crate::groups::Sealer::default(),
            holds_lease: false,
            read: 0,
            keeper: None,
        })
    }

    /// What a COMMIT that failed means: a refusal the server answered
    /// (severity ERROR: the transaction was rolled back) changed nothing;
    /// anything else (the connection lost once the COMMIT was sent, a fatal
    /// error, no answer in time) may have come after the server committed.
    fn commit_failed(&self, e: &postgres::Error) -> StorageError {
        match e.as_db_error() {
            Some(db) if db.parsed_severity() == Some(postgres::error::Severity::Error) => {
                StorageError::NotWritten(format!("{} did not commit: {}", self.shown, said(e)))
            }
            _ => StorageError::OutcomeUnknown(format!(
                "{} was sent the commit and its answer was lost ({}): the entries are in the journal or not, \
                 as the next node to read it finds",
                self.shown,
                said(e)
            )),
        }
    }

    /// Takes the casino's lease if no other node holds it.
    fn try_lease(&mut self) -> Result<bool, StorageError> {
        let taken: bool = self
            .client
            .query_one("SELECT pg_try_advisory_lock($1)", &[&LEASE_KEY])?
            .get(0);
        self.holds_lease = taken;
        Ok(taken)
    }

    /// The process on the database server that this connection is, and
    /// when it began (a process number alone may be given again after a
    /// restart): the lease is held by it, and by nothing else, while this node holds it.
    pub fn backend(&mut self) -> Result<Backend, StorageError> {
        let row = self.client.query_one(
            "SELECT pid, backend_start::text FROM pg_stat_activity WHERE pid = pg_backend_pid()",
            &[],
        )?;
        Ok((column(&row, 0, 0)?, column(&row, 1, 0)?))
    }

    /// The process on the database server that holds the casino's lease, if one does.
    pub fn lease_holder(&mut self) -> Result<Option<Backend>, StorageError> {
        let row = self.client.query_opt(
            "SELECT l.pid, a.backend_start::text FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
              WHERE l.locktype = 'advisory' AND l.granted
                AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                AND ((l.classid::bigint << 32) | l.objid::bigint) = $1",
            &[&LEASE_KEY],
        )?;
        row.map(|r| Ok((column(&r, 0, 0)?, column(&r, 1, 0)?))).transpose()
    }

    /// Whether this connection holds the casino's lease (asked of the server).
    pub fn holds_lease(&mut self) -> Result<bool, StorageError> {
        let held: bool = self
            .client
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()
                   AND granted AND ((classid::bigint << 32) | objid::bigint) = $1)",
                &[&LEASE_KEY],
            )?
            .get(0);
        Ok(held)
    }

    fn check_layout(&mut self) -> Result<(), StorageError> {
        let has: bool = self
            .client
            .query_one("SELECT to_regclass('layout') IS NOT NULL", &[])?
            .get(0);
        if !has {
            return Ok(());
        }
        let version: Option<i64> = self
            .client
            .query_opt("SELECT version FROM layout WHERE id = 1", &[])?
            .map(|r| column(&r, 0, 0))
            .transpose()?;
        match version {
            Some(v) if v > PG_LAYOUT => Err(StorageError::Layout(v)),
            _ => Ok(()),
        }
    }

    /// Where the journal is, without a password.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    fn has_journal(&mut self) -> Result<bool, StorageError> {
        Ok(self
            .client
            .query_one("SELECT to_regclass('journal') IS NOT NULL", &[])?
            .get(0))
    }

    /// The number of the journal's last entry (0: none).
    pub fn last_seq(&mut self) -> Result<u64, StorageError> {
        Ok(self.last()?.map_or(0, |(seq, _)| seq))
    }

    /// The last entry's number and hash, if there is an entry.
    pub fn last(&mut self) -> Result<Option<(u64, [u8; 32])>, StorageError> {
        if !self.has_journal()? {
            return Ok(None);
        }
        let row = self
            .client
            .query_opt("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1", &[])?;
        row.map(|r| {
            let seq = column::<i64>(&r, 0, 0)? as u64;
            Ok((seq, hash_from(seq, column(&r, 1, seq)?)?))
        })
        .transpose()
    }

    /// The hash of entry `seq`, if the journal has it.
    pub fn hash_of(&mut self, seq: u64) -> Result<Option<[u8; 32]>, StorageError> {
        if !self.has_journal()? {
            return Ok(None);
        }
        let row = self
            .client
            .query_opt("SELECT hash FROM journal WHERE seq = $1", &[&(seq as i64)])?;
        row.map(|r| hash_from(seq, column(&r, 0, seq)?)).transpose()
    }

    /// The journal's seal, if it has one.
    pub fn seal(&mut self) -> Result<Option<Seal>, StorageError> {
        let has: bool = self
            .client
            .query_one("SELECT to_regclass('seal') IS NOT NULL", &[])?
            .get(0);
        if !has {
            return Ok(None);
        }
        let row = self
            .client
            .query_opt("SELECT seq, hash, mac FROM seal WHERE id = 1", &[])?;
        row.map(|r| {
            let seq = column::<i64>(&r, 0, 0)? as u64;
            Ok(Seal {
                seq,
                hash: hash_from_hex(seq, column(&r, 1, seq)?)?,
                mac: hash_from_hex(seq, column(&r, 2, seq)?)?,
            })
        })
        .transpose()
    }

    /// The seal and the last entry, read in one snapshot: a node writing
    /// meanwhile moves both together, never one without the other.
    pub fn seal_and_last(&mut self) -> Result<SealAndLast, StorageError> {
        if self.sealer.grouped {
            return Ok((self.seal()?, self.last()?));
        }
        self.client
            .batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")?;
        let read = self.seal().and_then(|seal| Ok((seal, self.last()?)));
        let ended = self
            .client
            .batch_execute(if read.is_ok() { "COMMIT" } else { "ROLLBACK" });
        let read = read?;
        ended?;
        Ok(read)
    }

    /// From now on seals the journal under `key` with every append.
    pub fn seal_with(&mut self, key: [u8; 32]) {
        self.sealer.seal_with(key);
    }

    /// Seals the journal as it stands now (a journal with no seal yet).
    pub fn seal_now(&mut self, key: &[u8; 32]) -> Result<Option<Seal>, StorageError> {
        let Some((seq, hash)) = self.last()? else {
            return Ok(None);
        };
        let seal = Seal::new(key, seq, hash);
        self.write_seal(&seal)?;
        Ok(Some(seal))
    }

    fn write_seal(&mut self, seal: &Seal) -> Result<(), StorageError> {
        self.client.execute(
            "INSERT INTO seal (id, seq, hash, mac) VALUES (1, $1, $2, $3)
             ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, mac = excluded.mac",
            &[&(seal.seq as i64), &hex::encode(seal.hash), &hex::encode(seal.mac)],
        )?;
        Ok(())
    }

    /// How many records this connection read (all are text here).
    pub fn records_read(&self) -> crate::compact::Read {
        crate::compact::Read {
            text: self.read,
            ..Default::default()
        }
    }

    /// The last entry the journal holds before entry `seq`, if any.
    pub fn last_before(&mut self, seq: u64) -> Result<Option<u64>, StorageError> {
        if !self.has_journal()? {
            return Ok(None);
        }
        let before: Option<i64> = self
            .client
            .query_one(
                "SELECT MAX(seq) FROM journal WHERE seq < $1",
                &[&i64::try_from(seq).unwrap_or(i64::MAX)],
            )?
            .get(0);
        Ok(before.map(|s| s as u64))
    }

    /// Whether the entry before entry `seq` is the one whose hash is
    /// `prev_hash`, and its stored text is still what that hash covers.
    fn check_before(&mut self, seq: u64, prev_hash: [u8; 32]) -> Result<(), StorageError> {
        let before = seq - 1;
        let rows = self.client.query(
            "SELECT seq, at_ms, record, hash FROM journal WHERE seq >= $1 AND seq <= $2 ORDER BY seq",
            &[&(before as i64 - 1), &(before as i64)],
        )?;
        let changed = |why: &str| {
            StorageError::NotWritten(format!(
                "entry {before} in {} {why}: the journal was changed under this node, which does not write on it",
                self.shown
            ))
        };
        let hash_of = |row: &postgres::Row| -> Result<[u8; 32], StorageError> {
            let seq = column::<i64>(row, 0, before)? as u64;
            hash_from(seq, column(row, 3, seq)?)
        };
        let (before_it, it) = match rows.as_slice() {
            [it] if before == 1 => ([0; 32], it),
            [earlier, it] => (hash_of(earlier)?, it),
            _ => return Err(changed("or the one before it is missing")),
        };
        let (at_ms, text): (i64, String) = (column(it, 1, before)?, column(it, 2, before)?);
        let hash = hash_of(it)?;
        if hash != prev_hash {
            return Err(changed("is not the entry this node wrote or read"));
        }
        if crate::journal::entry_hash(&before_it, before, at_ms as u64, &text) != hash {
            return Err(changed("is not what its hash covers"));
        }
        Ok(())
    }

    /// Hands each entry after `after` and up to `last`, in order, to `f`
    /// as it arrives from the server, until `f` says false.
    pub fn each_between(
        &mut self,
        after: u64,
        last: u64,
        f: &mut dyn FnMut(Entry) -> bool,
    ) -> Result<(), StorageError> {
        self.each_with_macs(after, last, &mut |entry, _| f(entry))
    }

    /// [`PgStorage::each_between`], each entry with the MAC stored beside
    /// it, if it has one ([`crate::macs`]).
    pub fn each_with_macs(
        &mut self,
        after: u64,
        last: u64,
        f: &mut dyn FnMut(Entry, Option<EntryMac>) -> bool,
    ) -> Result<(), StorageError> {
        self.each_row(after, last, &mut |row| {
            let seq = row.seq;
            let record: Record = serde_json::from_str(&row.text).map_err(|e| StorageError::Unreadable {
                seq,
                why: format!("record is not valid: {e}"),
            })?;
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

    /// Each record's text after `after` and up to `last`, in order, not parsed.
    pub fn each_text(
        &mut self,
        after: u64,
        last: u64,
        f: &mut dyn FnMut(u64, &str) -> bool,
    ) -> Result<(), StorageError> {
        self.each_row(after, last, &mut |row| Ok(f(row.seq, &row.text)))
    }

    /// Each record after `after` whose text holds `needle`, newest first or
    /// oldest first, until `f` says false (a start finds checkpoints' bindings so).
    pub fn each_holding(
        &mut self,
        after: u64,
        needle: &str,
        newest_first: bool,
        f: &mut dyn FnMut(u64, &str) -> bool,
    ) -> Result<(), StorageError> {
        if !self.has_journal()? {
            return Ok(());
        }
        self.unbounded(|s| s.each_holding_now(after, needle, newest_first, f))
    }

    /// Runs `read`, which streams the journal, with no statement timeout: it
    /// lasts as long as whoever consumes it (a replay), and the connection's
    /// own timeouts still find a network cut.
    fn unbounded<T>(&mut self, read: impl FnOnce(&mut Self) -> Result<T, StorageError>) -> Result<T, StorageError> {
        self.client.batch_execute("SET statement_timeout = 0")?;
        let read = read(self);
        let reset = self
            .client
            .batch_execute(&format!("SET statement_timeout = {STATEMENT_TIMEOUT_MS}"));
        let read = read?;
        reset?;
        Ok(read)
    }

    fn each_holding_now(
        &mut self,
        after: u64,
        needle: &str,
        newest_first: bool,
        f: &mut dyn FnMut(u64, &str) -> bool,
    ) -> Result<(), StorageError> {
        let order = if newest_first { "DESC" } else { "ASC" };
        let statement = self.client.prepare(&format!(
            "SELECT seq, record FROM journal WHERE seq > $1 AND strpos(record, $2) > 0 ORDER BY seq {order}"
        ))?;
        let after = i64::try_from(after).unwrap_or(i64::MAX);
        let params: [&(dyn postgres::types::ToSql + Sync); 2] = [&after, &needle];
        let mut rows = self.client.query_raw(&statement, params)?;
        while let Some(row) = rows.next()? {
            let seq = column::<i64>(&row, 0, 0)? as u64;
            if !f(seq, column(&row, 1, seq)?) {
                break;
            }
        }
        Ok(())
    }

    fn each_row(
        &mut self,
        after: u64,
        last: u64,
        f: &mut dyn FnMut(Row) -> Result<bool, StorageError>,
    ) -> Result<(), StorageError> {
        // Whether the table is there, and has the column of MACs (layout 2 on).
        let (has_journal, has_macs): (bool, bool) = {
            let row = self.client.query_one(
                "SELECT to_regclass('journal') IS NOT NULL,
                        EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('journal')
                                 AND attname = 'mac' AND NOT attisdropped)",
                &[],
            )?;
            (row.get(0), row.get(1))
        };
        if !has_journal {
            return Ok(());
        }
        self.unbounded(|s| s.each_row_now(after, last, has_macs, f))
    }

    fn each_row_now(
        &mut self,
        after: u64,
        last: u64,
        has_macs: bool,
        f: &mut dyn FnMut(Row) -> Result<bool, StorageError>,
    ) -> Result<(), StorageError> {
        let mut before = match after {
            0 => [0; 32],
            n => self.hash_of(n)?.ok_or_else(|| StorageError::Unreadable {
                seq: n + 1,
                why: format!("it follows entry {n}, which the journal lacks"),
            })?,
        };
        // Entries are numbered from 1: a row numbered below (the table's check
        // dropped) is no entry, and no reader may pass over it unseen.
        if after == 0 {
            let below: Option<i64> = self
                .client
                .query_one("SELECT max(seq) FROM journal WHERE seq < 1", &[])?
                .try_get(0)
                .map_err(|e| StorageError::Postgres(e.to_string()))?;
            if let Some(seq) = below {
                return Err(StorageError::Unreadable {
                    seq: 0,
                    why: format!("the journal holds a row numbered {seq}: entries are numbered from 1"),
                });
            }
        }
        let statement = self.client.prepare(if has_macs {
            "SELECT seq, at_ms, record, hash, mac FROM journal WHERE seq > $1 AND seq <= $2 ORDER BY seq"
        } else {
            "SELECT seq, at_ms, record, hash, NULL::bytea FROM journal WHERE seq > $1 AND seq <= $2 ORDER BY seq"
        })?;
        let from = i64::try_from(after).unwrap_or(i64::MAX);
        let last = i64::try_from(last).unwrap_or(i64::MAX);
        let params: [&(dyn postgres::types::ToSql + Sync); 2] = [&from, &last];
        let mut rows = self.client.query_raw(&statement, params)?;
        let mut expected = after + 1;
        while let Some(row) = rows.next()? {
            let seq = column::<i64>(&row, 0, expected)? as u64;
            // A missing entry leaves the hash before unknown: the chain's check names it.
            let prev_hash = if seq == expected { before } else { [0xff; 32] };
            let at_ms = column::<i64>(&row, 1, seq)? as u64;
            let text: String = column(&row, 2, seq)?;
            let hash = hash_from(seq, column(&row, 3, seq)?)?;
            let mac = column::<Option<&[u8]>>(&row, 4, seq)?
                .map(|bytes| {
                    EntryMac::try_from(bytes).map_err(|_| StorageError::Unreadable {
                        seq,
                        why: format!("its MAC is {} bytes, not {MAC_BYTES}", bytes.len()),
                    })
                })
                .transpose()?;
            before = hash;
            expected = seq + 1;
            self.read += 1;
            let row = Row {
                seq,
                at_ms,
                text,
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

/// A row of the journal as read: its entry's number, time, text, hashes and MAC.
struct Row {
    seq: u64,
    at_ms: u64,
    text: String,
    prev_hash: [u8; 32],
    hash: [u8; 32],
    mac: Option<EntryMac>,
}

/// The casino's checkpoints, kept in the database its journal is in: every
/// node reads the same ones, so a node that takes the casino over starts
/// from the newest, not from the journal's first entry. What they are, and
/// which may be used (only those the journal binds), is the server's to say;
/// this keeps their bytes by the entry each follows.
pub struct PgCheckpoints {
    client: Client,
}

impl PgCheckpoints {
    pub fn open(url: &str) -> Result<PgCheckpoints, StorageError> {
        let client = connect_client(url, &shown_url(url), "croupier checkpoints", STATEMENT_TIMEOUT_MS)?;
        Ok(PgCheckpoints { client })
    }

    fn has_table(&mut self) -> Result<bool, StorageError> {
        Ok(self
            .client
            .query_one("SELECT to_regclass('checkpoint') IS NOT NULL", &[])?
            .get(0))
    }

    /// Each checkpoint's entry and length, newest first.
    pub fn list(&mut self) -> Result<Vec<(u64, u64)>, StorageError> {
        if !self.has_table()? {
            return Ok(Vec::new());
        }
        let rows = self.client.query(
            "SELECT through, octet_length(bytes)::bigint FROM checkpoint ORDER BY through DESC",
            &[],
        )?;
        let mut listed = Vec::with_capacity(rows.len());
        for r in &rows {
            let (through, length) = (column::<i64>(r, 0, 0)?, column::<i64>(r, 1, 0)?);
            // A checkpoint follows an entry, numbered from 1: another row is none, and is passed over.
            match u64::try_from(through) {
                Ok(through) if through > 0 => listed.push((through, length.max(0) as u64)),
                _ => tracing::warn!(
                    "a checkpoint row numbered {through} is passed over: checkpoints follow entries, numbered from 1"
                ),
            }
        }
        Ok(listed)
    }

    /// The checkpoint after entry `through`, unless it is longer than `most` bytes.
    pub fn read(&mut self, through: u64, most: u64) -> Result<Option<Vec<u8>>, StorageError> {
        if !self.has_table()? {
            return Ok(None);
        }
        let through = i64::try_from(through).unwrap_or(i64::MAX);
        let length: Option<i64> = self
            .client
            .query_opt(
                "SELECT octet_length(bytes)::bigint FROM checkpoint WHERE through = $1",
                &[&through],
            )?
            .map(|r| column(&r, 0, through as u64))
            .transpose()?;
        match length {
            None => Ok(None),
            Some(n) if n as u64 > most => Err(StorageError::Unreadable {
                seq: through as u64,
                why: format!("its checkpoint is {n} bytes, more than the {most} it may be"),
            }),
            Some(_) => Ok(self
                .client
                .query_opt("SELECT bytes FROM checkpoint WHERE through = $1", &[&through])?
                .map(|r| column(&r, 0, through as u64))
                .transpose()?),
        }
    }

    /// Keeps `bytes` as the checkpoint after entry `through`, whole or not at all.
    pub fn write(&mut self, through: u64, bytes: &[u8]) -> Result<(), StorageError> {
        let through = i64::try_from(through).unwrap_or(i64::MAX);
        self.client.execute(
            "INSERT INTO checkpoint (through, bytes) VALUES ($1, $2)
             ON CONFLICT (through) DO UPDATE SET bytes = excluded.bytes",
            &[&through, &bytes],
        )?;
        Ok(())
    }

    pub fn remove(&mut self, through: u64) -> Result<(), StorageError> {
        let through = i64::try_from(through).unwrap_or(i64::MAX);
        self.client
            .execute("DELETE FROM checkpoint WHERE through = $1", &[&through])?;
        Ok(())
    }
}

/// Column `i` of `row`, read for entry `seq`: a value of another type, or
/// none (a column's constraint dropped by whoever administers the database),
/// is that entry's error, never a panic.
fn column<'a, T: postgres::types::FromSql<'a>>(row: &'a postgres::Row, i: usize, seq: u64) -> Result<T, StorageError> {
    row.try_get(i).map_err(|e| StorageError::Unreadable {
        seq,
        why: format!(
            "column {} of its row does not read: {}",
            row.columns().get(i).map_or("?", |c| c.name()),
            crate::storage_error::said(&e)
        ),
    })
}

fn hash_from(seq: u64, bytes: &[u8]) -> Result<[u8; 32], StorageError> {
    <[u8; 32]>::try_from(bytes).map_err(|_| StorageError::Unreadable {
        seq,
        why: format!("its hash is {} bytes, not 32", bytes.len()),
    })
}

fn hash_from_hex(seq: u64, text: &str) -> Result<[u8; 32], StorageError> {
    let bytes = hex::decode(text).map_err(|e| StorageError::Unreadable {
        seq,
        why: format!("the seal's hash is not hex: {e}"),
    })?;
    hash_from(seq, &bytes)
}

impl Storage for PgStorage {
    fn load(&mut self) -> Result<Vec<Entry>, StorageError> {
        let mut entries = Vec::new();
        self.each_between(0, u64::MAX, &mut |e| {
            entries.push(e);
            true
        })?;
        Ok(entries)
    }

    fn each(&mut self, f: &mut dyn FnMut(Entry) -> bool) -> Result<(), StorageError> {
        self.each_between(0, u64::MAX, f)
    }

    fn each_after(&mut self, after: u64, f: &mut dyn FnMut(Entry) -> bool) -> Result<(), StorageError> {
        self.each_between(after, u64::MAX, f)
    }

    fn last_at_ms(&mut self) -> Result<Option<u64>, StorageError> {
        if !self.has_journal()? {
            return Ok(None);
        }
        let row = self
            .client
            .query_opt("SELECT at_ms FROM journal ORDER BY seq DESC LIMIT 1", &[])?;
        row.map(|r| column::<i64>(&r, 0, 0).map(|at| at as u64)).transpose()
    }

    fn append(&mut self, entries: &[Entry]) -> Result<(), StorageError> {
        let Some(insert) = self.insert.clone() else {
            return Err(StorageError::NotWritten(format!(
                "the journal at {} was opened to read only",
                self.shown
            )));
        };
        // Alone, an append is its own transaction; in a group, a savepoint
        // keeps it all-or-nothing within the group's.
        if let Some(doubt) = self.lease_doubt() {
            return Err(doubt);
        }
        let (open, keep, undo) = if self.sealer.grouped {
            (
                "SAVEPOINT journal_append",
                "RELEASE journal_append",
                "ROLLBACK TO journal_append; RELEASE journal_append",
            )
        } else {
            ("BEGIN", "COMMIT", "ROLLBACK")
        };
        self.client.batch_execute(open)?;
        let before = self.sealer.unsealed;
        let mut written = || -> Result<(), StorageError> {
            // The entry before is the one this node wrote or read, and still
            // what its hash covers: a journal cut or changed under this node (by
            // hand, a backup put back) is not written on.
            if let Some(first) = entries.first().filter(|e| e.seq > 1) {
                self.check_before(first.seq, first.prev_hash)?;
            }
            for e in entries {
                let mac = self.sealer.mac(e.seq, &e.hash);
                let mac = mac.as_ref().map(|m| &m[..]);
                self.client.execute(
                    &insert,
                    &[&(e.seq as i64), &(e.at_ms as i64), &e.text, &&e.hash[..], &mac],
                )?;
            }
            if let Some(last) = entries.last() {
                self.sealer.unsealed = Some((last.seq, last.hash));
            }
            if !self.sealer.grouped {
                crate::groups::write_pending_seal(self)?;
            }
            Ok(())
        };
        match written() {
            // Alone, the append's own COMMIT: a lease in doubt commits nothing.
            Ok(()) if !self.sealer.grouped && self.lease_doubt().is_some() => {
                self.sealer.unsealed = before;
                let _ = self.client.batch_execute(undo);
                Err(self
                    .lease_doubt()
                    .unwrap_or_else(|| StorageError::NotWritten("the lease is in doubt".into())))
            }
            Ok(()) => match self.client.batch_execute(keep) {
                Ok(()) => Ok(()),
                Err(e) => {
                    self.sealer.unsealed = before;
                    // A savepoint released commits nothing: only a COMMIT's lost answer is in doubt.
                    Err(if self.sealer.grouped {
                        StorageError::NotWritten(format!("{} did not commit: {}", self.shown, said(&e)))
                    } else {
                        self.commit_failed(&e)
                    })
                }
            },
            Err(e) => {
                self.sealer.unsealed = before;
                let _ = self.client.batch_execute(undo);
                Err(e)
            }
        }
    }

    fn begin_group(&mut self) -> Result<(), StorageError> {
        if let Some(doubt) = self.lease_doubt() {
            return Err(doubt);
        }
        crate::groups::begin_group(self, "BEGIN")
    }

    fn end_group(&mut self) -> Result<(), StorageError> {
        crate::groups::end_group(self)
    }

    fn abort_group(&mut self) -> Result<(), StorageError> {
        crate::groups::abort_group(self)
    }
}

impl crate::groups::Transactions for PgStorage {
    fn sealer(&mut self) -> &mut crate::groups::Sealer {
        &mut self.sealer
    }

    fn run(&mut self, statement: &str) -> Result<(), StorageError> {
        Ok(self.client.batch_execute(statement)?)
    }

    fn write_seal(&mut self, seal: &Seal) -> Result<(), StorageError> {
        PgStorage::write_seal(self, seal)
    }

    /// A lease in doubt commits nothing: the group is rolled back, and
    /// refused as not written (true: no COMMIT was sent).
    fn commit(&mut self) -> Result<(), StorageError> {
        if let Some(doubt) = self.lease_doubt() {
            return Err(doubt);
        }
        self.client.batch_execute("COMMIT").map_err(|e| self.commit_failed(&e))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_url_is_shown_without_its_password() {
        for (url, shown) in [
            (
                "postgres://casino:s3cret@db.local:5432/croupier",
                "postgres://casino@db.local:5432/croupier",
            ),
            ("postgres://db.local/croupier", "postgres://db.local/croupier"),
            (
                "postgresql://casino:s3/c?r@t@db.local/croupier",
                "postgresql://casino@db.local/croupier",
            ),
            (
                "postgres://db.local/croupier?password=s3cret&sslmode=disable",
                "postgres://db.local/croupier",
            ),
            (
                "postgres://db.local/croupier?%70assword=s3cret",
                "postgres://db.local/croupier",
            ),
            ("host=/tmp password=s3cret dbname=x", "(a connection string, not shown)"),
            ("postgres:/casino:s3cret@db.local/x", "(a connection string, not shown)"),
            ("mysql://casino:s3cret@db.local/x", "(a connection string, not shown)"),
        ] {
            assert_eq!(super::shown_url(url), shown, "{url}");
        }
    }
}
