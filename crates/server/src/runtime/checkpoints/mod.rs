//! Checkpoints of the casino's state (`casino::checkpoint`), so that a start
//! replays only the entries after the last one, not the whole history.
//!
//! The writer is a thread of its own, at low priority (with a second, at
//! ordinary priority, that takes over while it is far behind): it holds a replay of
//! the journal (from the state the server opened on), reads each entry once
//! durable through a read-only connection, replays it (checking it byte for
//! byte, as `croupier verify` does), and every [`CHECKPOINT_EVERY_ENTRIES`]
//! writes the replay's state to `checkpoints/` in the data directory, then has
//! the cage bind it into the journal (`Request::Checkpoint`). No writer waits
//! on it. Its cost is a second copy of the state in memory and a replay of
//! each entry (about 20 µs), at low priority while it keeps pace.
//!
//! A start tries the newest checkpoints first; one that cannot be used (a
//! damaged file, not bound, cut off by a recovery) is skipped with a warning,
//! and with none the journal is replayed from its first entry.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use croupier_ledger::segments::DAY_MS;
use croupier_ledger::{Database, Entry, Opened as OpenedJournal, Storage, StorageError};

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
/// The most entries the writer reads in one snapshot of the journal. It
/// reads them into memory, ends the snapshot, then replays them: SQLite
/// cannot begin its log (WAL) again while a read holds an older snapshot, so
/// a writer behind under load that replayed as it read held one snapshot
/// after another and let the log grow by all that was written meanwhile:
/// 630 MB in 90 s of `bench load --tables 10 --terminals 1000`, beside a 241
/// MB database. Replaying between reads leaves the log times to begin again
/// without slowing the writer (docs/benchmarks.md): a pause after each read
/// capped it at 30,000 entries a second, below what that load writes.
/// A read takes at most a twentieth of the checkpoints' interval (`every`),
/// so that a checkpoint comes due between reads, not many entries late.
pub const READ_ENTRIES: usize = 5_000;
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
    on_final: &mut (dyn FnMut(Arc<RoundRecord>) + Send),
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
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Drop for CheckpointWriter {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        for thread in self.threads.drain(..) {
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
    ///
    /// Two threads take turns with the replay: one at low priority, which
    /// has only the cores the answers leave, and one at ordinary priority,
    /// which has the replay only while it is far behind (a whole interval read
    /// in full reads one after another).
    /// A thread cannot take its priority back once it gave it up (not
    /// without privilege), so the replay moves instead. Under a load that
    /// leaves no core idle, the low thread alone fell behind for good: 1.6
    /// million entries replayed of 3.4 million written in 90 s of `bench load
    /// --tables 10 --terminals 1000`, and a start after it replays the rest
    /// (docs/benchmarks.md).
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
        let (to_low, low) = mpsc::channel::<Box<Replay>>();
        let (to_ordinary, ordinary) = mpsc::channel::<Box<Replay>>();
        let stopping = stop.clone();
        let ordinary = std::thread::Builder::new()
            .name("checkpoints-behind".into())
            .spawn(move || take_turns(None, ordinary, to_low, true, &stopping))
            .map_err(|e| format!("cannot start the checkpoint writer: {e}"))?;
        let stopping = stop.clone();
        let low = std::thread::Builder::new()
            .name("checkpoints".into())
            .spawn(move || {
                super::lower_this_threads_priority();
                let writing = Writing {
                    store,
                    reader,
                    floor,
                    every: every.max(1),
                    read_entries: (every / 20).clamp(1, READ_ENTRIES as u64) as usize,
                    last: from.as_ref().map_or(0, |u| u.through),
                    key: Some(key),
                };
                match Replay::begin(writing, from, &stopping) {
                    Ok(replay) => take_turns(Some(Box::new(replay)), low, to_ordinary, false, &stopping),
                    Err(e) => tracing::error!("checkpoints are no longer written: {e}"),
                }
            })
            .map_err(|e| format!("cannot start the checkpoint writer: {e}"))?;
        Ok(CheckpointWriter {
            stop,
            threads: vec![low, ordinary],
        })
    }
}

/// One thread's turns with the replay: it goes on with it while the
/// replay is as far behind as the thread is for (`far`), then hands it to
/// the other thread and waits for it back. It ends once the writer stops,
/// fails, or the other thread has ended (its sender dropped).
fn take_turns(
    mut held: Option<Box<Replay>>,
    turns: mpsc::Receiver<Box<Replay>>,
    other: mpsc::Sender<Box<Replay>>,
    far: bool,
    stop: &AtomicBool,
) {
    loop {
        let mut replay = match held.take() {
            Some(replay) => replay,
            None => match turns.recv() {
                Ok(replay) => replay,
                Err(_) => return,
            },
        };
        while replay.far_behind() == far {
            if stop.load(Ordering::SeqCst) {
                return;
            }
            if let Err(e) = replay.step(stop) {
                tracing::error!("checkpoints are no longer written: {e}");
                return;
            }
        }
        if far {
            // A read that failed hands back too: the low thread tries again after a poll.
            if !replay.unread {
                tracing::info!("checkpoints: caught up with the journal at entry {}", replay.through);
            }
        } else {
            tracing::info!(
                "checkpoints: read {} entries without catching up with the journal (at entry {}); replaying at ordinary priority until caught up",
                replay.read_in_a_row,
                replay.through
            );
        }
        if other.send(replay).is_err() {
            return;
        }
    }
}

struct Writing {
    store: Store,
    reader: OpenedJournal,
    floor: Floor,
    every: u64,
    /// The most entries one read takes.
    read_entries: usize,
    /// The entry the last checkpoint written (or the opening state) follows.
    last: u64,
    key: Option<[u8; 32]>,
}

/// The writer's replay of the journal and where it stands: what the two
/// threads hand each other.
struct Replay {
    writing: Writing,
    replayer: Replayer<'static>,
    /// The last entry replayed.
    through: u64,
    /// Where the journal is cut into segments (SQLite), a checkpoint is
    /// also taken at each gaming day's end: the state after its last
    /// entry, which seals the day's segment ([`croupier_ledger::segments`]).
    segmented: Option<std::path::PathBuf>,
    /// The gaming day of the entry last replayed, and of the entry that began a new one.
    day: Option<u64>,
    new_day: Option<u64>,
    /// After a cut, a second checkpoint as soon as an entry follows: the
    /// two kept are then both bound in the live database, and one damaged
    /// leaves the other to start from, without the segments.
    second_after: Option<u64>,
    /// Entries read and not yet replayed: a read past a gaming day's end
    /// leaves the next day's for after the day's checkpoint.
    read: VecDeque<Entry>,
    /// How many entries the full reads one after another took (a read that
    /// came back full: more were waiting).
    read_in_a_row: u64,
    /// The last read failed (said once until one succeeds).
    unread: bool,
}

impl Replay {
    /// The replay from the checkpoint the start opened from, once the
    /// entries up to it are checked.
    fn begin(mut writing: Writing, from: Option<Used>, stop: &AtomicBool) -> Result<Replay, String> {
        writing.store.remove_partial();
        // The checkpoint the start opened from, read again: only the very
        // bytes the start found bound (the file may have been changed since).
        let opened = match from.map(|used| (writing.store.read(used.through), used)) {
            Some((Ok(c), used)) if c.digest() == used.digest => Some(c),
            Some((read, used)) => {
                let why = read
                    .err()
                    .unwrap_or_else(|| "it changed since the start read it".into());
                tracing::warn!(
                    "the checkpoint after entry {} cannot be gone on from ({why}): the journal is replayed from its first entry",
                    used.through
                );
                writing.last = 0;
                None
            }
            None => None,
        };
        let (replayer, through) = match &opened {
            Some(c) => (Replayer::resumed(c, None).map_err(|e| e.to_string())?.0, c.through),
            None => (Replayer::new(None).map_err(|e| e.to_string())?, 0),
        };
        drop(opened);
        if through > 0 {
            writing.check_history(through, replayer.casino().ledger().head(), stop)?;
        }
        let segmented = match writing.store.journal() {
            Database::Sqlite(dir) => Some(dir.clone()),
            Database::Postgres(_) => None,
        };
        let read_entries = writing.read_entries;
        Ok(Replay {
            writing,
            replayer,
            through,
            segmented,
            day: None,
            new_day: None,
            second_after: None,
            read: VecDeque::with_capacity(read_entries),
            read_in_a_row: 0,
            unread: false,
        })
    }

    /// The writer is far behind once it has read a whole interval (`every`
    /// entries, 100,000 by default) in full reads one after another: its replay
    /// then moves to ordinary priority until a read finds it caught up
    /// ([`CheckpointWriter::start`]). Writing a checkpoint at low priority leaves
    /// it 50,000-80,000 entries behind at the target load (`bench load --rate
    /// 21500`), which it makes up alone: at half an interval the replay moved
    /// after every checkpoint there. A start from the newest checkpoint replays
    /// some two intervals at most, about 3 s at the default.
    fn far_behind(&self) -> bool {
        self.read_in_a_row >= self.writing.every
    }

    /// Writes the checkpoint that is due, if any, then reads (waiting a poll
    /// first unless behind) and replays what was read.
    fn step(&mut self, stop: &AtomicBool) -> Result<(), String> {
        let day_ended = self.new_day.take();
        let second = self.second_after.is_some_and(|cut| self.through > cut);
        if day_ended.is_some() || second || self.through >= self.writing.last + self.writing.every {
            let bound = self.writing.take(&self.replayer)?;
            if second {
                self.second_after = None;
            }
            if let (Some(dir), true) = (&self.segmented, bound && day_ended.is_some()) {
                if cut_segment(dir, self.through, self.writing.key.as_ref()) {
                    self.second_after = Some(self.through);
                }
            }
            self.day = day_ended.or(self.day);
        }
        if self.read.is_empty() {
            if day_ended.is_none() && self.read_in_a_row == 0 {
                std::thread::sleep(Duration::from_millis(CHECKPOINT_POLL_MS));
            }
            self.read_more(stop);
        }
        while let Some(entry) = self.read.front() {
            let entry_day = entry.at_ms / DAY_MS;
            if self.segmented.is_some() && self.day.is_some_and(|d| entry_day > d) {
                self.new_day = Some(entry_day);
                break;
            }
            let Some(entry) = self.read.pop_front() else { break };
            if let Err(e) = self.replayer.entry(&entry) {
                // The durable journal does not replay: it is not as written.
                let e = e.to_string();
                self.writing.floor.health().history_broken(&e);
                return Err(e);
            }
            self.through = entry.seq;
            self.day = Some(entry_day);
            if stop.load(Ordering::SeqCst) {
                break;
            }
        }
        Ok(())
    }

    /// Reads up to `read_entries` entries after the last replayed, in one
    /// snapshot that ends before any is replayed.
    fn read_more(&mut self, stop: &AtomicBool) {
        let (through, read) = (self.through, &mut self.read);
        let until = through.saturating_add(self.writing.read_entries as u64);
        let mut last = through;
        let result = self.writing.reader.each_between(through, until, &mut |entry| {
            last = entry.seq;
            read.push_back(entry);
            !stop.load(Ordering::SeqCst)
        });
        // A read that failed (a connection to PostgreSQL ended) is tried
        // again on a new connection at the next poll, said once.
        if let Err(e) = result {
            self.read.clear();
            self.read_in_a_row = 0;
            if !self.unread {
                tracing::warn!("checkpoints wait: cannot read the journal ({e}); trying again");
            }
            self.unread = true;
            if let Ok(mut reader) = self.writing.store.journal().open_read_only() {
                if let Some(key) = self.writing.key {
                    reader.seal_with(key);
                }
                self.writing.reader = reader;
            }
            return;
        }
        self.unread = false;
        self.read_in_a_row = if last == until {
            self.read_in_a_row.saturating_add(last - through)
        } else {
            0
        };
    }
}

impl Writing {
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
