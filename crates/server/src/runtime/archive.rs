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
//! Each record is kept with its MAC under a key from the server's secret
//! (over its table, its number and its bytes), checked whenever it is read:
//! someone who can write `recall.db` but not the keys folder cannot have a
//! changed round, or another's, served. An archive written before records
//! carried a MAC is written again from the journal at the next start.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{mpsc, Arc, Mutex};

use hmac::{Hmac, Mac};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension};
use sha2::Sha256;

use crate::casino::RoundRecord;

/// The archive's file inside a data directory.
pub const ARCHIVE_FILE: &str = "recall.db";

/// Finished rounds and their players, in SQL that PostgreSQL runs too.
pub struct Archive {
    conn: Mutex<Connection>,
    /// The key records are kept under; none for an archive no one else can
    /// write (in memory) or one only read to compare with the journal.
    key: Option<[u8; 32]>,
    /// Each table's newest archived round: rounds up to it are all there.
    newest: Mutex<HashMap<String, u64>>,
    /// A write failed: nothing more is archived until the next start, which
    /// writes the missing rounds again from the journal.
    failed: std::sync::atomic::AtomicBool,
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
            failed: Default::default(),
        })
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
        }
    }

    /// Whether `round` of `table` is archived already.
    pub fn holds(&self, table: &str, round: u64) -> bool {
        self.newest().get(table).is_some_and(|&n| round <= n)
    }

    /// Archives `rounds` (each table's in order) in one transaction, leaving
    /// out those it holds already; returns how many it wrote.
    pub fn save(&self, rounds: &[Arc<RoundRecord>]) -> Result<usize, String> {
        if self.failed.load(std::sync::atomic::Ordering::Relaxed) {
            return Err("recall archive: stopped after a failed write; the next start fills it in".into());
        }
        let fresh: Vec<&RoundRecord> = {
            let newest = self.newest();
            rounds
                .iter()
                .filter(|r| newest.get(&r.table).is_none_or(|&n| r.round > n))
                .map(Arc::as_ref)
                .collect()
        };
        if fresh.is_empty() {
            return Ok(0);
        }
        let written = self.write(&fresh);
        match written {
            Ok(()) => {
                let mut newest = self.newest();
                for r in &fresh {
                    let n = newest.entry(r.table.clone()).or_insert(r.round);
                    *n = (*n).max(r.round);
                }
                Ok(fresh.len())
            }
            Err(e) => {
                self.failed.store(true, std::sync::atomic::Ordering::Relaxed);
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

    /// One archived round.
    pub fn round(&self, table: &str, round: u64) -> Result<Option<RoundRecord>, String> {
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

    /// The newest `n` archived rounds `player` bet in, over every table, newest first.
    pub fn player(&self, player: &str, n: usize) -> Result<Vec<RoundRecord>, String> {
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

/// Batches of finished rounds the archiver's queue holds. A batch is what
/// one job finished (a round, most often); the archive writes what waits in
/// one transaction, so the queue fills only if the archive's disk stops.
pub const ARCHIVE_QUEUE_BATCHES: usize = 4_096;

/// The thread that archives rounds off the writers' path: a table hands it
/// each finished round once the round's entries are durable.
#[derive(Clone)]
pub struct Archiver {
    archive: Arc<Archive>,
    queue: mpsc::SyncSender<Vec<Arc<RoundRecord>>>,
}

impl Archiver {
    pub fn start(archive: Arc<Archive>) -> Result<Archiver, String> {
        let (queue, rounds) = mpsc::sync_channel::<Vec<Arc<RoundRecord>>>(ARCHIVE_QUEUE_BATCHES);
        let own = archive.clone();
        std::thread::Builder::new()
            .name("archive".into())
            .spawn(move || {
                // No answer waits on the archive: the bets come first.
                super::lower_this_threads_priority();
                while let Ok(mut batch) = rounds.recv() {
                    while let Ok(more) = rounds.try_recv() {
                        batch.extend(more);
                    }
                    if let Err(e) = own.save(&batch) {
                        tracing::error!("{e}");
                    }
                }
            })
            .map_err(|e| format!("cannot start the recall archive's thread: {e}"))?;
        Ok(Archiver { archive, queue })
    }

    pub fn archive(&self) -> &Arc<Archive> {
        &self.archive
    }

    /// Archives `rounds`, durable already, in the background. A writer never
    /// waits for the archive: if its queue is full, the archive stops as after
    /// a failed write (the rounds of a table are archived in order, with no
    /// gap), and the next start fills it in from the journal.
    pub fn send(&self, rounds: Vec<Arc<RoundRecord>>) {
        if rounds.is_empty() {
            return;
        }
        if let Err(mpsc::TrySendError::Full(_)) = self.queue.try_send(rounds) {
            self.archive
                .stop("its queue is full: the archive's disk has not kept up");
        }
    }

    /// For a casino opening on its journal: archives a finished round unless it is already.
    pub fn offer(&self, round: Arc<RoundRecord>) {
        if !self.archive.holds(&round.table, round.round) {
            self.send(vec![round]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::casino::BetRecord;

    fn round(table: &str, n: u64, at: u64, players: &[&str]) -> Arc<RoundRecord> {
        Arc::new(RoundRecord {
            id: format!("{table}/{n}"),
            table: table.into(),
            round: n,
            opened_at_ms: at,
            pocket: Some("17".into()),
            no_spins: Vec::new(),
            bets: players
                .iter()
                .enumerate()
                .map(|(i, p)| BetRecord {
                    bet_id: format!("{p}-{n}-{i}"),
                    player: (*p).into(),
                    spot: "red".into(),
                    kind: "red".into(),
                    stake: 100,
                    result: Some("won".into()),
                    returned: Some(200),
                    symbol: None,
                })
                .collect(),
            settled: true,
            chips_before: players.iter().map(|p| ((*p).to_string(), 1_000)).collect(),
            chips_after: players.iter().map(|p| ((*p).to_string(), 1_100)).collect(),
            tournament: None,
            bonus_targets: Vec::new(),
            bonus_lucky: Vec::new(),
        })
    }

    const KEY: [u8; 32] = [4; 32];

    fn empty_dir() -> tempfile::TempDir {
        tempfile::tempdir().expect("a temporary folder")
    }

    #[test]
    fn archived_rounds_come_back_whole_by_id_and_by_player_newest_first() {
        let archive = Archive::in_memory().expect("archive");
        let rounds = vec![
            round("t1", 1, 100, &["p1", "p2", "p1"]),
            round("t2", 1, 150, &["p1"]),
            round("t1", 2, 200, &["p2"]),
            round("t1", 3, 300, &["p1"]),
        ];
        assert_eq!(archive.save(&rounds), Ok(4));
        assert_eq!(archive.round("t1", 1).expect("read").as_ref(), Some(&*rounds[0]));
        assert_eq!(archive.round("t1", 9).expect("read"), None);
        let ids = |v: Vec<RoundRecord>| v.into_iter().map(|r| r.id).collect::<Vec<_>>();
        assert_eq!(ids(archive.player("p1", 10).expect("read")), ["t1/3", "t2/1", "t1/1"]);
        assert_eq!(ids(archive.player("p1", 2).expect("read")), ["t1/3", "t2/1"]);
        assert_eq!(ids(archive.player("p2", 10).expect("read")), ["t1/2", "t1/1"]);
        assert!(archive.player("p9", 10).expect("read").is_empty());
    }

    #[test]
    fn a_round_archived_already_is_not_written_again_and_a_reopened_archive_knows_its_newest() {
        let tmp = empty_dir();
        let dir = tmp.path();
        {
            let archive = Archive::open(dir, KEY).expect("archive");
            assert_eq!(
                archive.save(&[round("t1", 1, 1, &["p1"]), round("t1", 2, 2, &["p1"])]),
                Ok(2)
            );
            assert!(archive.holds("t1", 2) && !archive.holds("t1", 3) && !archive.holds("t2", 1));
        }
        let archive = Archive::open(dir, KEY).expect("reopen");
        assert!(archive.holds("t1", 1) && archive.holds("t1", 2));
        // A replay offers every round again: only the new one is written.
        let mut changed = round("t1", 2, 2, &["p2"]);
        Arc::make_mut(&mut changed).pocket = Some("0".into());
        assert_eq!(archive.save(&[changed, round("t1", 3, 3, &["p2"])]), Ok(1));
        assert_eq!(
            archive.round("t1", 2).expect("read").and_then(|r| r.pocket),
            Some("17".into())
        );
        let mut all = Vec::new();
        archive.each(|r| all.push(r.expect("readable").id)).expect("each");
        assert_eq!(all, ["t1/1", "t1/2", "t1/3"]);
        drop(archive);
        let read_only = Archive::open_read_only(dir).expect("open").expect("there");
        assert_eq!(read_only.player("p2", 5).expect("read").len(), 1);
        assert!(Archive::open_read_only(&dir.join("none")).expect("no file").is_none());
    }

    #[test]
    fn after_a_failed_write_nothing_more_is_archived_until_the_next_start() {
        let tmp = empty_dir();
        let dir = tmp.path();
        Archive::open(dir, KEY)
            .expect("create")
            .save(&[round("t1", 1, 1, &["p1"])])
            .expect("save");
        // A read-only connection cannot write: the write fails, and so does every one after it.
        let archive = Archive::open_read_only(dir).expect("open").expect("there");
        assert!(archive.save(&[round("t1", 2, 2, &["p1"])]).is_err());
        assert!(!archive.holds("t1", 2));
        let later = archive.save(&[round("t1", 3, 3, &["p1"])]).expect_err("stopped");
        assert!(later.contains("next start"), "{later}");
    }

    #[test]
    fn a_round_changed_in_the_file_is_not_served_nor_another_players() {
        let tmp = empty_dir();
        let dir = tmp.path();
        let archive = Archive::open(dir, KEY).expect("archive");
        archive
            .save(&[round("t1", 1, 1, &["p1"]), round("t1", 2, 2, &["p2"])])
            .expect("save");
        let db = Connection::open(dir.join(ARCHIVE_FILE)).expect("the file");
        // The pocket changed in round 1; round 2 listed as p1's too.
        db.execute(
            "UPDATE recall_rounds SET record = replace(record, '\"17\"', '\"0\"') WHERE round = 1",
            [],
        )
        .expect("changed");
        db.execute(
            "INSERT INTO recall_players (player, opened_at_ms, table_id, round) VALUES ('p1', 2, 't1', 2)",
            [],
        )
        .expect("listed");
        let refused = archive.round("t1", 1).expect_err("not served");
        assert!(refused.contains("changed after it was archived"), "{refused}");
        assert!(archive.player("p1", 5).is_err());
        assert_eq!(archive.round("t1", 2).expect("untouched").map(|r| r.round), Some(2));
        // A round listed as p1's that p1 did not bet in is not p1's.
        db.execute("DELETE FROM recall_rounds WHERE round = 1", [])
            .expect("gone");
        assert!(archive.player("p1", 5).expect("read").is_empty());
        // Under another key nothing reads; rows kept without a MAC are dropped for the journal.
        drop(archive);
        let other = Archive::open(dir, [5; 32]).expect("open");
        assert!(other.round("t1", 2).is_err());
        db.execute("UPDATE recall_rounds SET mac = NULL", []).expect("unkept");
        let reopened = Archive::open(dir, KEY).expect("open");
        assert!(!reopened.holds("t1", 2));
        assert_eq!(reopened.round("t1", 2).expect("read"), None);
    }
}
