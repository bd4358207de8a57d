//! The recall archive: every finished round's record, so that game recall
//! finds any round by its id and a player's last rounds however long ago
//! they played, while each table keeps only its newest rounds in memory
//! ([`RECALL_ROUNDS_MAX`](crate::casino::RECALL_ROUNDS_MAX)). The archiver
//! is a thread of its own behind a bounded queue.
//!
//! The archive is derived: every record in it is rebuilt by replaying the
//! journal, which opening the casino does anyway. So it lives in a file of
//! its own (`recall.db`) whose writes never hold up the journal's, and
//! commits without waiting for the disk; what a power cut takes from it, the
//! next start writes again. A round is archived only once the entries that
//! finished it are durable, and the rounds of a table are archived in order:
//! the archive holds, for each table, every finished round up to its newest.
//! `croupier verify` checks each archived record against the replay.
//!
//! A write that fails (a full disk) loses nothing and stops nothing: the
//! rounds it held wait in memory, game recall finds them there, and the
//! archiver writes them again once a second until the disk takes them.
//! Only past [`ARCHIVE_WAITING_ROUNDS_MAX`] waiting rounds, or a full queue,
//! does the archive stop until the next start, which fills it in from the
//! journal; `/healthz` says so meanwhile.
//!
//! Each record is kept with its MAC under a key from the server's secret
//! (over its table, its number and its bytes), checked whenever it is read:
//! someone who can write `recall.db` but not the keys folder cannot have a
//! changed round, or another's, served. An archive written before records
//! carried a MAC is written again from the journal at the next start.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use hmac::{Hmac, Mac};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension};
use sha2::Sha256;

use super::health::Health;
use crate::casino::RoundRecord;

/// Finished rounds the archive keeps in memory while its disk refuses them;
/// past this it stops, and the next start fills it in from the journal.
pub const ARCHIVE_WAITING_ROUNDS_MAX: usize = 100_000;

/// How often the archiver tries again to write the rounds waiting.
pub const ARCHIVE_RETRY_MS: u64 = 1_000;

/// The archive's file inside a data directory.
pub const ARCHIVE_FILE: &str = "recall.db";

/// Finished rounds and their players, in SQL that PostgreSQL runs too.
pub struct Archive {
    conn: Mutex<Connection>,
    /// The key records are kept under; none for an archive no one else can
    /// write (in memory) or one only read to compare with the journal.
    key: Option<[u8; 32]>,
    /// Each table's newest round archived or waiting: rounds up to it are
    /// all there, or waiting in `waiting`.
    newest: Mutex<HashMap<String, u64>>,
    /// Rounds a failed write left, each table's in order: written before
    /// anything newer, and read from here meanwhile.
    waiting: Mutex<Vec<Arc<RoundRecord>>>,
    /// Too much waited: nothing more is archived until the next start,
    /// which writes the missing rounds again from the journal.
    failed: std::sync::atomic::AtomicBool,
    /// Told when the archive falls behind and when it catches up.
    health: OnceLock<Health>,
}

fn sql(what: &str) -> impl Fn(rusqlite::Error) -> String + '_ {
    move |e| format!("recall archive: {what}: {e}")
}

impl Archive {
    /// Opens the archive in `dir`, creating it on a first run; its records
    /// are kept under `key`. Records kept without one are dropped, for the
    /// journal to write again.
    pub fn open(dir: &Path, key: [u8; 32]) -> Result<Archive, String> {
        let path = dir.join(ARCHIVE_FILE);
        let conn = Connection::open(&path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        let unkept: i64 = Archive::make_tables(&conn)?
            .query_row("SELECT COUNT(*) FROM recall_rounds WHERE mac IS NULL", [], |r| r.get(0))
            .map_err(sql("read"))?;
        if unkept > 0 {
            conn.execute_batch("DELETE FROM recall_rounds; DELETE FROM recall_players;")
                .map_err(sql("clear"))?;
            tracing::info!("recall archive: {unkept} rounds archived without a MAC are written again from the journal");
        }
        Archive::with(conn, Some(key))
    }

    /// An archive in memory, for tests.
    pub fn in_memory() -> Result<Archive, String> {
        let conn = Connection::open_in_memory().map_err(sql("open"))?;
        Archive::make_tables(&conn)?;
        Archive::with(conn, None)
    }

    /// Opens the archive in `dir` for reading only; `None` if there is none.
    pub fn open_read_only(dir: &Path) -> Result<Option<Archive>, String> {
        let path = dir.join(ARCHIVE_FILE);
        if !path.is_file() {
            return Ok(None);
        }
        let conn = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        Archive::with(conn, None).map(Some)
    }

    fn make_tables(conn: &Connection) -> Result<&Connection, String> {
        // Derived from the journal: a commit need not wait for the disk.
        conn.execute_batch(
            "PRAGMA journal_mode = WAL;
             PRAGMA synchronous = NORMAL;
             CREATE TABLE IF NOT EXISTS recall_rounds (
                 table_id TEXT NOT NULL,
                 round BIGINT NOT NULL,
                 opened_at_ms BIGINT NOT NULL,
                 record TEXT NOT NULL,
                 mac TEXT,
                 PRIMARY KEY (table_id, round)
             );
             CREATE TABLE IF NOT EXISTS recall_players (
                 player TEXT NOT NULL,
                 opened_at_ms BIGINT NOT NULL,
                 table_id TEXT NOT NULL,
                 round BIGINT NOT NULL,
                 PRIMARY KEY (player, opened_at_ms, table_id, round)
             );",
        )
        .map_err(sql("create its tables"))?;
        // An archive made before records carried a MAC gains the column.
        let has_mac: bool = conn
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM pragma_table_info('recall_rounds') WHERE name = 'mac')",
                [],
                |r| r.get(0),
            )
            .map_err(sql("read"))?;
        if !has_mac {
            conn.execute_batch("ALTER TABLE recall_rounds ADD COLUMN mac TEXT")
                .map_err(sql("add the MAC column"))?;
        }
        Ok(conn)
    }

    fn with(conn: Connection, key: Option<[u8; 32]>) -> Result<Archive, String> {
        let newest = {
            let mut statement = conn
                .prepare("SELECT table_id, MAX(round) FROM recall_rounds GROUP BY table_id")
                .map_err(sql("read"))?;
            let rows = statement
                .query_map([], |row| Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)?)))
                .map_err(sql("read"))?;
            rows.map(|r| r.map(|(t, n)| (t, n as u64)))
                .collect::<Result<HashMap<_, _>, _>>()
                .map_err(sql("read"))?
        };
        Ok(Archive {
            conn: Mutex::new(conn),
            key,
            newest: Mutex::new(newest),
            waiting: Mutex::new(Vec::new()),
            failed: Default::default(),
            health: OnceLock::new(),
        })
    }

    /// Tells `health` when the archive falls behind and when it catches up.
    pub fn report_to(&self, health: Health) {
        let _ = self.health.set(health);
    }

    fn waiting(&self) -> std::sync::MutexGuard<'_, Vec<Arc<RoundRecord>>> {
        self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// How many finished rounds wait for the archive's disk.
    pub fn rounds_waiting(&self) -> usize {
        self.waiting().len()
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn newest(&self) -> std::sync::MutexGuard<'_, HashMap<String, u64>> {
        self.newest.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Archives nothing more until the next start, which fills it in from the journal.
    pub fn stop(&self, why: &str) {
        if !self.failed.swap(true, std::sync::atomic::Ordering::Relaxed) {
            tracing::error!("recall archive stopped: {why}; the next start fills it in from the journal");
            if let Some(health) = self.health.get() {
                health.archive_behind(&format!("stopped: {why}; a restart fills it in from the journal"), 0);
            }
        }
    }

    /// Whether `round` of `table` is archived already, or waits to be.
    pub fn holds(&self, table: &str, round: u64) -> bool {
        self.newest().get(table).is_some_and(|&n| round <= n)
    }

    /// Archives `rounds` (each table's in order) in one transaction with
    /// those still waiting, leaving out those it holds already; returns how
    /// many it wrote. If the write fails, they all wait for the next try
    /// (`save(&[])` tries again). One caller at a time (the archiver's
    /// thread): recall reads the rounds waiting meanwhile, never held up by
    /// the write.
    pub fn save(&self, rounds: &[Arc<RoundRecord>]) -> Result<usize, String> {
        if self.failed.load(std::sync::atomic::Ordering::Relaxed) {
            return Err("recall archive: stopped; the next start fills it in".into());
        }
        let mut waiting = self.waiting();
        {
            let mut newest = self.newest();
            for r in rounds {
                if newest.get(&r.table).is_none_or(|&n| r.round > n) {
                    newest.insert(r.table.clone(), r.round);
                    waiting.push(r.clone());
                }
            }
        }
        if waiting.is_empty() {
            return Ok(0);
        }
        if waiting.len() > ARCHIVE_WAITING_ROUNDS_MAX {
            waiting.clear();
            drop(waiting);
            let why = format!("more than {ARCHIVE_WAITING_ROUNDS_MAX} rounds waited for its disk");
            self.stop(&why);
            return Err(format!("recall archive: {why}"));
        }
        let held: Vec<Arc<RoundRecord>> = waiting.clone();
        drop(waiting);
        let all: Vec<&RoundRecord> = held.iter().map(Arc::as_ref).collect();
        match self.write(&all) {
            Ok(()) => {
                // What came in meanwhile (nothing: one caller) stays waiting.
                self.waiting().drain(..held.len());
                if let Some(health) = self.health.get() {
                    health.archive_caught_up();
                }
                Ok(held.len())
            }
            Err(e) => {
                match self.health.get() {
                    Some(health) => health.archive_behind(&e, held.len() as u64),
                    None => tracing::error!("{e}"),
                }
                Err(e)
            }
        }
    }

    fn write(&self, rounds: &[&RoundRecord]) -> Result<(), String> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(sql("begin"))?;
        {
            let mut round_row = tx
                .prepare_cached(
                    "INSERT INTO recall_rounds (table_id, round, opened_at_ms, record, mac) VALUES (?1, ?2, ?3, ?4, ?5)
                     ON CONFLICT DO NOTHING",
                )
                .map_err(sql("write"))?;
            let mut player_row = tx
                .prepare_cached(
                    "INSERT INTO recall_players (player, opened_at_ms, table_id, round) VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT DO NOTHING",
                )
                .map_err(sql("write"))?;
            for r in rounds {
                let record = serde_json::to_string(r).map_err(|e| format!("recall archive: {e}"))?;
                let mac = self
                    .key
                    .map(|k| hex::encode(record_mac(&k, &r.table, r.round, &record)));
                round_row
                    .execute(params![r.table, r.round as i64, r.opened_at_ms as i64, record, mac])
                    .map_err(sql("write"))?;
                let players: std::collections::BTreeSet<&str> = r.bets.iter().map(|b| b.player.as_str()).collect();
                for p in players {
                    player_row
                        .execute(params![p, r.opened_at_ms as i64, r.table, r.round as i64])
                        .map_err(sql("write"))?;
                }
            }
        }
        tx.commit().map_err(sql("commit"))
    }

    /// One archived round (or one waiting to be).
    pub fn round(&self, table: &str, round: u64) -> Result<Option<RoundRecord>, String> {
        let waits = self
            .waiting()
            .iter()
            .find(|r| r.table == table && r.round == round)
            .cloned();
        if let Some(r) = waits {
            return Ok(Some((*r).clone()));
        }
        let row = self
            .conn()
            .query_row(
                "SELECT table_id, round, record, mac FROM recall_rounds WHERE table_id = ?1 AND round = ?2",
                params![table, round as i64],
                record_row,
            )
            .optional()
            .map_err(sql("read"))?;
        row.map(|r| self.parse_row(r)).transpose()
    }

    /// The newest `n` archived rounds of `table` before round `before`
    /// (those waiting to be included), newest first.
    pub fn table(&self, table: &str, before: u64, n: usize) -> Result<Vec<RoundRecord>, String> {
        let mut rounds: Vec<RoundRecord> = self
            .waiting()
            .iter()
            .filter(|r| r.table == table && r.round < before)
            .map(|r| (**r).clone())
            .collect();
        {
            let conn = self.conn();
            let mut statement = conn
                .prepare_cached(
                    "SELECT table_id, round, record, mac FROM recall_rounds
                     WHERE table_id = ?1 AND round < ?2 ORDER BY round DESC LIMIT ?3",
                )
                .map_err(sql("read"))?;
            let rows = statement
                .query_map(params![table, before.min(i64::MAX as u64) as i64, n as i64], record_row)
                .map_err(sql("read"))?;
            for row in rows {
                rounds.push(row.map_err(sql("read")).and_then(|r| self.parse_row(r))?);
            }
        }
        rounds.sort_by_key(|r| std::cmp::Reverse(r.round));
        rounds.dedup_by(|a, b| a.round == b.round);
        rounds.truncate(n);
        Ok(rounds)
    }

    /// The oldest `n` archived rounds of `table` after round `after` (from
    /// its first if `None`; those waiting to be included), oldest first: the
    /// game integrity monitor reads a table's results in order with it.
    pub fn after(&self, table: &str, after: Option<u64>, n: usize) -> Result<Vec<RoundRecord>, String> {
        let mut rounds: Vec<RoundRecord> = self
            .waiting()
            .iter()
            .filter(|r| r.table == table && after.is_none_or(|a| r.round > a))
            .map(|r| (**r).clone())
            .collect();
        {
            let conn = self.conn();
            let mut statement = conn
                .prepare_cached(
                    "SELECT table_id, round, record, mac FROM recall_rounds
                     WHERE table_id = ?1 AND round > ?2 ORDER BY round LIMIT ?3",
                )
                .map_err(sql("read"))?;
            let rows = statement
                .query_map(
                    params![table, after.map_or(-1, |a| a.min(i64::MAX as u64) as i64), n as i64],
                    record_row,
                )
                .map_err(sql("read"))?;
            for row in rows {
                rounds.push(row.map_err(sql("read")).and_then(|r| self.parse_row(r))?);
            }
        }
        rounds.sort_by_key(|r| r.round);
        rounds.dedup_by(|a, b| a.round == b.round);
        rounds.truncate(n);
        Ok(rounds)
    }

    /// The newest `n` archived rounds `player` bet in (those waiting to be
    /// included), over every table, newest first.
    pub fn player(&self, player: &str, n: usize) -> Result<Vec<RoundRecord>, String> {
        let waits: Vec<RoundRecord> = self
            .waiting()
            .iter()
            .filter(|r| r.bets.iter().any(|b| b.player == player))
            .map(|r| (**r).clone())
            .collect();
        let mut rounds = self.player_archived(player, n)?;
        if !waits.is_empty() {
            rounds.extend(waits);
            rounds.sort_by(|a, b| {
                b.opened_at_ms
                    .cmp(&a.opened_at_ms)
                    .then_with(|| a.table.cmp(&b.table))
                    .then_with(|| b.round.cmp(&a.round))
            });
            rounds.dedup_by(|a, b| a.table == b.table && a.round == b.round);
            rounds.truncate(n);
        }
        Ok(rounds)
    }

    fn player_archived(&self, player: &str, n: usize) -> Result<Vec<RoundRecord>, String> {
        let conn = self.conn();
        let mut statement = conn
            .prepare_cached(
                "SELECT r.table_id, r.round, r.record, r.mac FROM recall_players p
                 JOIN recall_rounds r ON r.table_id = p.table_id AND r.round = p.round
                 WHERE p.player = ?1 ORDER BY p.opened_at_ms DESC, p.table_id, p.round DESC LIMIT ?2",
            )
            .map_err(sql("read"))?;
        let rows = statement
            .query_map(params![player, n as i64], record_row)
            .map_err(sql("read"))?;
        let rounds: Vec<RoundRecord> = rows
            .map(|row| row.map_err(sql("read")).and_then(|r| self.parse_row(r)))
            .collect::<Result<_, _>>()?;
        // The index is not kept under the key: a round is the player's only if they bet in it.
        Ok(rounds
            .into_iter()
            .filter(|r| r.bets.iter().any(|b| b.player == player))
            .collect())
    }

    /// Every archived round, each table's in order, for `verify`.
    pub fn each(&self, mut f: impl FnMut(Result<RoundRecord, String>)) -> Result<(), String> {
        let conn = self.conn();
        let mut statement = conn
            .prepare("SELECT table_id, round, record, mac FROM recall_rounds ORDER BY table_id, round")
            .map_err(sql("read"))?;
        let rows = statement.query_map([], record_row).map_err(sql("read"))?;
        for row in rows {
            f(row.map_err(sql("read")).and_then(|r| self.parse_row(r)));
        }
        Ok(())
    }

    /// A record read back: under a key, only as it was archived.
    fn parse_row(&self, (table, round, text, mac): Row) -> Result<RoundRecord, String> {
        let round = round as u64;
        if let Some(key) = &self.key {
            let kept = mac
                .and_then(|m| hex::decode(m).ok())
                .is_some_and(|m| record_mac_matches(key, &table, round, &text, &m));
            if !kept {
                tracing::error!("recall archive: round {table}/{round} was changed after it was archived");
                return Err(format!(
                    "recall archive: round {table}/{round} was changed after it was archived, and is not shown; `croupier verify` reports on the archive"
                ));
            }
        }
        serde_json::from_str(&text).map_err(|e| format!("recall archive: round {table}/{round} is unreadable: {e}"))
    }
}

/// A row of `table_id, round, record, mac`.
type Row = (String, i64, String, Option<String>);

fn record_row(row: &rusqlite::Row) -> rusqlite::Result<Row> {
    Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
}

fn record_hmac(key: &[u8; 32], table: &str, round: u64, record: &str) -> Hmac<Sha256> {
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(key) else {
        unreachable!("HMAC takes any key length");
    };
    mac.update(table.as_bytes());
    mac.update(format!("\n{round}\n").as_bytes());
    mac.update(record.as_bytes());
    mac
}

/// The MAC an archived record is kept with: over its table, its number and its bytes.
fn record_mac(key: &[u8; 32], table: &str, round: u64, record: &str) -> [u8; 32] {
    record_hmac(key, table, round, record).finalize().into_bytes().into()
}

fn record_mac_matches(key: &[u8; 32], table: &str, round: u64, record: &str, mac: &[u8]) -> bool {
    record_hmac(key, table, round, record).verify_slice(mac).is_ok()
}

mod archiver;
#[cfg(test)]
mod tests;

pub use archiver::{Archiver, ARCHIVE_QUEUE_BATCHES};
