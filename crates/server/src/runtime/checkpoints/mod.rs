//! Checkpoints of the casino's state (`casino::checkpoint`), so that a start
//! replays only the entries after the last one, not the whole history.
//!
//! The writer is a thread of its own, at low priority: it holds a replay of
//! the journal (from the state the server opened on), reads each entry once
//! durable through a read-only connection, replays it (checking it byte for
//! byte, as `croupier verify` does), and every [`CHECKPOINT_EVERY_ENTRIES`]
//! writes the replay's state to `checkpoints/` in the data directory, then has
//! the cage bind it into the journal (`Request::Checkpoint`). No writer waits
//! on it. Its cost is a second copy of the state in memory and a replay of
//! each entry (about 20 µs) at low priority.
//!
//! A start tries the newest checkpoints first; one that cannot be used (a
//! damaged file, not bound, cut off by a recovery) is skipped with a warning,
//! and with none the journal is replayed from its first entry.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use croupier_ledger::segments::DAY_MS;
use croupier_ledger::{Database, Opened as OpenedJournal, Storage, StorageError};

use crate::api::EventView;
use crate::casino::{Actor, Casino, OpenError, Replayer, Request, RoundRecord};

pub use super::bindings::each_binding;
use super::floor::Floor;

mod store;
pub use store::Store;

/// A checkpoint is written once this many entries follow the last one:
/// a start replays at most about this many (about 20 µs each).
pub const CHECKPOINT_EVERY_ENTRIES: u64 = 100_000;
/// How many checkpoints are kept in the data directory; older ones are removed.
pub const CHECKPOINTS_KEPT: usize = 2;
/// How often the writer reads what became durable.
pub const CHECKPOINT_POLL_MS: u64 = 1_000;
/// The most entries the writer reads in one snapshot of the journal, and
/// how long it pauses before the next when more are waiting (SQLite). SQLite cannot
/// begin its log (WAL) again while a read holds an older snapshot, so a
/// writer behind under load, reading on and on, let the log grow by all that
/// was written meanwhile: 630 MB in 90 s of `bench load --tables 10
/// --terminals 1000`, beside a 241 MB database. The pause spans a pass of
/// the background checkpoint (200 ms) and the writer's copy after it, which
/// is when the log begins again (docs/benchmarks.md).
pub const READ_ENTRIES: u64 = 20_000;
pub const READ_PAUSE_MS: u64 = 300;
/// The folder of the data directory that holds the checkpoints.
pub const CHECKPOINTS_DIR: &str = "checkpoints";

/// A checkpoint an open used: the entry it follows, and the SHA-256 of the
/// bytes the open read and found bound.
#[derive(Clone, Debug)]
pub struct Used {
    pub through: u64,
    pub digest: String,
}

/// A casino opened: the rounds its opening voided, and the checkpoint it
/// opened from (`None`: the whole journal was replayed).
pub type Opened<S> = (Casino<S>, Vec<EventView>, Option<Used>);

/// How many of the newest checkpoints a start tries before it replays the
/// whole journal: each try that fails costs the replay of what follows it.
pub const CHECKPOINTS_TRIED: usize = CHECKPOINTS_KEPT + 1;

/// Opens the casino from the newest checkpoint that can be used, or from the
/// journal's first entry; `storage` gives a fresh read of the journal for each
/// try. Also gives the entry the checkpoint used follows.
pub fn open_newest<S: Storage>(
    store: Option<&Store>,
    storage: &mut dyn FnMut() -> Result<S, String>,
    now_ms: u64,
    on_final: &mut dyn FnMut(Arc<RoundRecord>),
) -> Result<Opened<S>, String> {
    for through in store.map(|s| s.bound(CHECKPOINTS_TRIED)).unwrap_or_default() {
        let Some(store) = store else { break };
        let checkpoint = match store.read(through) {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!("{e}; trying an older checkpoint");
                continue;
            }
        };
        let digest = checkpoint.digest();
        match Casino::open_from(storage()?, now_ms, Some(&mut *on_final), Some(checkpoint)) {
            Ok((casino, recovered)) => {
                tracing::info!("opened the journal from the checkpoint after entry {through}");
                return Ok((casino, recovered, Some(Used { through, digest })));
            }
            Err(e @ OpenError::Checkpoint { .. }) => tracing::warn!("{e}; trying an older checkpoint"),
            Err(e) => return Err(e.to_string()),
        }
    }
    let (casino, recovered) = Casino::open_from(storage()?, now_ms, Some(on_final), None).map_err(|e| e.to_string())?;
    Ok((casino, recovered, None))
}

/// The thread that writes checkpoints; it stops when dropped.
pub struct CheckpointWriter {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for CheckpointWriter {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl CheckpointWriter {
    /// Starts from the checkpoint the server opened from (`from`: the entry
    /// it follows; `None`: the journal's first entry), replaying what follows
    /// it at low priority, and writes a checkpoint every `every` entries: at
    /// once where the start replayed that many. Nothing waits on it: the
    /// start does not write the state it opened on.
    /// `key` is the journal's: it seals the segments' catalogue as it seals the journal.
    pub fn start(
        store: Store,
        floor: Floor,
        from: Option<Used>,
        every: u64,
        key: [u8; 32],
    ) -> Result<CheckpointWriter, String> {
        let mut reader = store
            .journal()
            .open_read_only()
            .map_err(|e| format!("checkpoints: {e}"))?;
        reader.seal_with(key);
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let thread = std::thread::Builder::new()
            .name("checkpoints".into())
            .spawn(move || {
                super::lower_this_threads_priority();
                let mut writer = Writing {
                    store,
                    reader,
                    floor,
                    every: every.max(1),
                    last: from.as_ref().map_or(0, |u| u.through),
                    key: Some(key),
                };
                if let Err(e) = writer.run(from, &stopping) {
                    tracing::error!("checkpoints are no longer written: {e}");
                }
            })
            .map_err(|e| format!("cannot start the checkpoint writer: {e}"))?;
        Ok(CheckpointWriter {
            stop,
            thread: Some(thread),
        })
    }
}

struct Writing {
    store: Store,
    reader: OpenedJournal,
    floor: Floor,
    every: u64,
    /// The entry the last checkpoint written (or the opening state) follows.
    last: u64,
    key: Option<[u8; 32]>,
}

impl Writing {
    fn run(&mut self, from: Option<Used>, stop: &AtomicBool) -> Result<(), String> {
        self.store.remove_partial();
        // The checkpoint the start opened from, read again: only the very
        // bytes the start found bound (the file may have been changed since).
        let opened = match from.map(|used| (self.store.read(used.through), used)) {
            Some((Ok(c), used)) if c.digest() == used.digest => Some(c),
            Some((read, used)) => {
                let why = read
                    .err()
                    .unwrap_or_else(|| "it changed since the start read it".into());
                tracing::warn!(
                    "the checkpoint after entry {} cannot be gone on from ({why}): the journal is replayed from its first entry",
                    used.through
                );
                self.last = 0;
                None
            }
            None => None,
        };
        let (mut replayer, mut through) = match &opened {
            Some(c) => (Replayer::resumed(c, None).map_err(|e| e.to_string())?.0, c.through),
            None => (Replayer::new(None).map_err(|e| e.to_string())?, 0),
        };
        drop(opened);
        if through > 0 {
            self.check_history(through, replayer.casino().ledger().head(), stop)?;
        }
        let mut unread = false;
        // Where the journal is cut into segments (SQLite), a checkpoint is
        // also taken at each gaming day's end: the state after its last
        // entry, which seals the day's segment ([`croupier_ledger::segments`]).
        let segmented = match self.store.journal() {
            Database::Sqlite(dir) => Some(dir.clone()),
            Database::Postgres(_) => None,
        };
        // The gaming day of the entry last replayed, and of the entry that began a new one.
        let mut day: Option<u64> = None;
        let mut new_day: Option<u64> = None;
        // After a cut, a second checkpoint as soon as an entry follows: the
        // two kept are then both bound in the live database, and one damaged
        // leaves the other to start from, without the segments.
        let mut second_after: Option<u64> = None;
        // The last read stopped at READ_ENTRIES with more waiting.
        let mut behind = false;
        while !stop.load(Ordering::SeqCst) {
            let day_ended = new_day.take();
            let second = second_after.is_some_and(|cut| through > cut);
            if day_ended.is_some() || second || through >= self.last + self.every {
                let bound = self.take(&replayer)?;
                if second {
                    second_after = None;
                }
                if let (Some(dir), true) = (&segmented, bound && day_ended.is_some()) {
                    if cut_segment(dir, through, self.key.as_ref()) {
                        second_after = Some(through);
                    }
                }
                day = day_ended.or(day);
            }
            if day_ended.is_none() {
                // PostgreSQL keeps no such log: behind, it reads on at once.
                let pause = match (behind, &segmented) {
                    (false, _) => Some(CHECKPOINT_POLL_MS),
                    (true, Some(_)) => Some(READ_PAUSE_MS),
                    (true, None) => None,
                };
                if let Some(pause) = pause {
                    std::thread::sleep(Duration::from_millis(pause));
                }
            }
            let mut failed = None;
            let until = through.saturating_add(READ_ENTRIES);
            let read = self.reader.each_between(through, until, &mut |entry| {
                let entry_day = entry.at_ms / DAY_MS;
                if segmented.is_some() && day.is_some_and(|d| entry_day > d) {
                    new_day = Some(entry_day);
                    return false;
                }
                match replayer.entry(&entry) {
                    Ok(()) => {
                        through = entry.seq;
                        day = Some(entry_day);
                    }
                    Err(e) => failed = Some(e.to_string()),
                }
                failed.is_none() && !stop.load(Ordering::SeqCst)
            });
            // A read that failed (a connection to PostgreSQL ended) is tried
            // again on a new connection at the next poll, said once.
            if let Err(e) = read {
                if !unread {
                    tracing::warn!("checkpoints wait: cannot read the journal ({e}); trying again");
                }
                unread = true;
                if let Ok(mut reader) = self.store.journal().open_read_only() {
                    if let Some(key) = self.key {
                        reader.seal_with(key);
                    }
                    self.reader = reader;
                }
                continue;
            }
            unread = false;
            behind = through == until;
            if let Some(e) = failed {
                // The durable journal does not replay: it is not as written.
                self.floor.health().history_broken(&e);
                return Err(e);
            }
        }
        Ok(())
    }

    /// The start replayed only what follows its checkpoint: the entries up to
    /// it are checked here, in the background, to chain to it (hashes only,
    /// as they stream). A break is told on `/healthz` (`history`).
    /// Entries the segments hold were checked as they were read into them;
    /// the check goes on from the segments' end (`croupier verify` reads them all).
    fn check_history(&mut self, through: u64, head: [u8; 32], stop: &AtomicBool) -> Result<(), String> {
        let (from, from_hash) = match self.reader.segments_end() {
            Ok(Some((end, hash))) if end <= through => (end, hash),
            Ok(_) => (0, [0; 32]),
            Err(e) => {
                self.floor.health().history_broken(&e.to_string());
                return Ok(());
            }
        };
        let mut chain = croupier_ledger::Verifier::chain_after(from, from_hash);
        let read = self.reader.each_between(from, through, &mut |entry| {
            chain.check(&entry) && !stop.load(Ordering::SeqCst)
        });
        match read {
            // History that cannot be read is as lost as history changed.
            Err(e @ (StorageError::Unreadable { .. } | StorageError::Dictionary { .. })) => {
                self.floor.health().history_broken(&e.to_string());
                return Ok(());
            }
            Err(e) => return Err(e.to_string()),
            Ok(()) => {}
        }
        if stop.load(Ordering::SeqCst) {
            return Ok(());
        }
        let (reached, last) = (chain.through(), chain.head());
        let report = chain.finish();
        let why = match report.first_problem {
            Some((seq, why)) => Some(format!("entry {seq}: {why}")),
            None if reached != through || last != head => Some(format!(
                "the entries up to {through} do not end in the hash the checkpoint after it goes on from"
            )),
            None => None,
        };
        if let Some(why) = why {
            self.floor.health().history_broken(&why);
        }
        Ok(())
    }

    /// Writes the replay's state and has the cage bind it. A write the disk
    /// refuses, or a bind refused (a pause), is tried again at the next poll.
    /// Says whether it was bound.
    fn take(&mut self, replayer: &Replayer<'_>) -> Result<bool, String> {
        let checkpoint = replayer.casino().checkpoint().map_err(|e| e.to_string())?;
        if let Err(e) = self.store.write(&checkpoint) {
            // Tried again once as many entries more have come, not every second.
            tracing::warn!("{e}; tried again after {} more entries", self.every);
            self.last = checkpoint.through;
            return Ok(false);
        }
        let bind = Request::Checkpoint {
            through: checkpoint.through,
            digest: checkpoint.digest(),
            bytes: checkpoint.bytes.len() as u64,
        };
        let floor = self.floor.clone();
        let bound = self
            .floor
            .runtime
            .clone()
            .block_on(async move { floor.execute(Actor::system(), bind).await });
        match bound {
            Ok(_) => {
                tracing::info!(
                    "checkpoint after entry {} written ({} bytes) and bound into the journal",
                    checkpoint.through,
                    checkpoint.bytes.len()
                );
                self.last = checkpoint.through;
                self.store.prune(checkpoint.through, CHECKPOINTS_KEPT);
                Ok(true)
            }
            Err(e) => {
                // Not bound, it is of no use: the next poll writes another.
                tracing::warn!(
                    "the checkpoint after entry {} was not bound: {}",
                    checkpoint.through,
                    e.message
                );
                self.store.remove(checkpoint.through);
                Ok(false)
            }
        }
    }
}

/// Moves the entries up to `through`, a gaming day's last, from the live
/// journal in `dir` into a segment. One that fails stays in the live journal
/// and goes with the next day's segment.
fn cut_segment(dir: &std::path::Path, through: u64, key: Option<&[u8; 32]>) -> bool {
    match croupier_ledger::segments::cut(dir, through, key) {
        Ok(Some(s)) => {
            tracing::info!(
                "entries {} to {} are in the segment {}/{}; they leave the live journal between groups",
                s.first,
                s.last,
                croupier_ledger::segments::SEGMENTS_DIR,
                s.file
            );
            true
        }
        Ok(None) => false,
        Err(e) => {
            tracing::warn!(
                "the gaming day's entries up to {through} stay in the live journal ({e}); they go with the next day's segment"
            );
            false
        }
    }
}
