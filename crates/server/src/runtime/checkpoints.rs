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

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use croupier_ledger::{SqliteStorage, Storage};

use crate::api::EventView;
use crate::casino::checkpoint::Checkpoint;
use crate::casino::{Actor, Casino, OpenError, Replayer, Request, RoundRecord};

use super::floor::Floor;

/// A checkpoint is written once this many entries follow the last one:
/// a start replays at most about this many (about 20 µs each).
pub const CHECKPOINT_EVERY_ENTRIES: u64 = 100_000;
/// How many checkpoints are kept in the data directory; older ones are removed.
pub const CHECKPOINTS_KEPT: usize = 2;
/// How often the writer reads what became durable.
pub const CHECKPOINT_POLL_MS: u64 = 1_000;
/// The folder of the data directory that holds the checkpoints.
pub const CHECKPOINTS_DIR: &str = "checkpoints";

/// The checkpoints of a data directory: one file each, named by the entry
/// its state follows.
#[derive(Clone, Debug)]
pub struct Store {
    dir: PathBuf,
}

impl Store {
    pub fn of(data: &Path) -> Store {
        Store {
            dir: data.join(CHECKPOINTS_DIR),
        }
    }

    fn path(&self, through: u64) -> PathBuf {
        self.dir.join(format!("{through:020}.ckpt"))
    }

    /// The entries the checkpoints follow, newest first.
    pub fn list(&self) -> Vec<u64> {
        let Ok(read) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut found: Vec<u64> = read
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                name.strip_suffix(".ckpt")?.parse().ok()
            })
            .collect();
        found.sort_unstable_by(|a, b| b.cmp(a));
        found
    }

    pub fn read(&self, through: u64) -> Result<Checkpoint, String> {
        let path = self.path(through);
        let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Ok(Checkpoint { through, bytes })
    }

    /// Writes a checkpoint whole, or not at all: to a file of its own, made
    /// durable, then renamed into place.
    pub fn write(&self, checkpoint: &Checkpoint) -> Result<(), String> {
        use std::io::Write;
        let cannot = |e: std::io::Error| format!("cannot write a checkpoint in {}: {e}", self.dir.display());
        std::fs::create_dir_all(&self.dir).map_err(cannot)?;
        let path = self.path(checkpoint.through);
        let partial = path.with_extension("partial");
        let written = std::fs::File::create(&partial).and_then(|mut file| {
            file.write_all(&checkpoint.bytes)?;
            file.sync_all()
        });
        if let Err(e) = written {
            let _ = std::fs::remove_file(&partial);
            return Err(cannot(e));
        }
        std::fs::rename(&partial, &path).map_err(cannot)?;
        std::fs::File::open(&self.dir)
            .and_then(|d| d.sync_all())
            .map_err(cannot)
    }

    /// Removes one checkpoint.
    pub fn remove(&self, through: u64) {
        if let Err(e) = std::fs::remove_file(self.path(through)) {
            tracing::warn!("cannot remove the checkpoint after entry {through}: {e}");
        }
    }

    /// Removes all but the newest `keep` checkpoints.
    pub fn prune(&self, keep: usize) {
        for through in self.list().into_iter().skip(keep) {
            self.remove(through);
        }
    }

    /// Moves the checkpoints of states after entry `seq` into `to` (a
    /// recovery cut the journal there, and keeps what it cut in `to`).
    pub fn move_after(&self, seq: u64, to: &Path) -> Result<usize, String> {
        let mut moved = 0;
        for through in self.list().into_iter().filter(|t| *t > seq) {
            let path = self.path(through);
            std::fs::create_dir_all(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
            let name = path.file_name().map(std::ffi::OsStr::to_os_string).unwrap_or_default();
            std::fs::rename(&path, to.join(name)).map_err(|e| format!("cannot move {}: {e}", path.display()))?;
            moved += 1;
        }
        Ok(moved)
    }
}

/// A casino opened: the rounds its opening voided, and the entry the
/// checkpoint it opened from follows (`None`: the whole journal was replayed).
pub type Opened<S> = (Casino<S>, Vec<EventView>, Option<u64>);

/// Opens the casino from the newest checkpoint that can be used, or from the
/// journal's first entry; `storage` gives a fresh read of the journal for each
/// try. Also gives the entry the checkpoint used follows.
pub fn open_newest<S: Storage>(
    store: Option<&Store>,
    storage: &mut dyn FnMut() -> Result<S, String>,
    now_ms: u64,
    on_final: &mut dyn FnMut(Arc<RoundRecord>),
) -> Result<Opened<S>, String> {
    for through in store.map(Store::list).unwrap_or_default() {
        let Some(store) = store else { break };
        let checkpoint = match store.read(through) {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!("{e}; trying an older checkpoint");
                continue;
            }
        };
        match Casino::open_from(storage()?, now_ms, Some(&mut *on_final), Some(checkpoint)) {
            Ok((casino, recovered)) => {
                tracing::info!("opened the journal from the checkpoint after entry {through}");
                return Ok((casino, recovered, Some(through)));
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
    pub fn start(data: &Path, floor: Floor, from: Option<u64>, every: u64) -> Result<CheckpointWriter, String> {
        let reader = SqliteStorage::open_read_only(data).map_err(|e| format!("checkpoints: {e}"))?;
        let store = Store::of(data);
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
                    last: from.unwrap_or(0),
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
    reader: SqliteStorage,
    floor: Floor,
    every: u64,
    /// The entry the last checkpoint written (or the opening state) follows.
    last: u64,
}

impl Writing {
    fn run(&mut self, from: Option<u64>, stop: &AtomicBool) -> Result<(), String> {
        let opened = from.map(|through| self.store.read(through)).transpose()?;
        let (mut replayer, mut through) = match &opened {
            Some(c) => (Replayer::resumed(c, None).map_err(|e| e.to_string())?.0, c.through),
            None => (Replayer::new(None).map_err(|e| e.to_string())?, 0),
        };
        drop(opened);
        while !stop.load(Ordering::SeqCst) {
            if through >= self.last + self.every {
                self.take(&replayer)?;
            }
            std::thread::sleep(Duration::from_millis(CHECKPOINT_POLL_MS));
            let mut failed = None;
            self.reader
                .each_between(through, u64::MAX, &mut |entry| {
                    match replayer.entry(&entry) {
                        Ok(()) => through = entry.seq,
                        Err(e) => failed = Some(e.to_string()),
                    }
                    failed.is_none() && !stop.load(Ordering::SeqCst)
                })
                .map_err(|e| e.to_string())?;
            if let Some(e) = failed {
                return Err(e);
            }
        }
        Ok(())
    }

    /// Writes the replay's state and has the cage bind it. A write the disk
    /// refuses, or a bind refused (a pause), is tried again at the next poll.
    fn take(&mut self, replayer: &Replayer<'_>) -> Result<(), String> {
        let checkpoint = replayer.casino().checkpoint().map_err(|e| e.to_string())?;
        if let Err(e) = self.store.write(&checkpoint) {
            tracing::warn!("{e}");
            return Ok(());
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
                self.store.prune(CHECKPOINTS_KEPT);
            }
            Err(e) => {
                // Not bound, it is of no use: the next poll writes another.
                tracing::warn!(
                    "the checkpoint after entry {} was not bound: {}",
                    checkpoint.through,
                    e.message
                );
                self.store.remove(checkpoint.through);
            }
        }
        Ok(())
    }
}
