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

use std::os::unix::fs::OpenOptionsExt;

use croupier_ledger::{Database, Opened as OpenedJournal, Storage, StorageError};

use crate::api::EventView;
use crate::casino::checkpoint::Checkpoint;
use crate::casino::{Actor, Casino, OpenError, Replayer, Request, RoundRecord};

pub use super::bindings::each_binding;
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

/// From this length a checkpoint file with far fewer bytes stored than its
/// length (holes) is passed over unread.
const SPARSE_CHECKED_FROM: u64 = 1 << 20;

/// The checkpoints of a data directory: one file each, named by the entry
/// its state follows.
#[derive(Clone, Debug)]
pub struct Store {
    /// Where the journal that binds them is.
    journal: Database,
    dir: PathBuf,
}

impl Store {
    pub fn of(data: &Path) -> Store {
        Store::bound_by(data, Database::Sqlite(data.to_path_buf()))
    }

    /// The checkpoints in `data`, of the journal in `journal` (a node's own
    /// folder, of a journal on PostgreSQL that nodes share).
    pub fn bound_by(data: &Path, journal: Database) -> Store {
        Store {
            journal,
            dir: data.join(CHECKPOINTS_DIR),
        }
    }

    /// The checkpoints a start may try, newest first, at most `most`: only
    /// files the journal binds, of the length it binds. The bindings are
    /// read from the journal's end back (each is an entry soon after its
    /// checkpoint), so a file planted under another name, or cut, or
    /// stuffed, is never read, nor takes the place of a real one.
    pub fn bound(&self, most: usize) -> Vec<u64> {
        if let Err(why) = self.own_dir() {
            if std::fs::symlink_metadata(&self.dir).is_ok() {
                tracing::warn!("no checkpoint is used: {why}");
            }
            return Vec::new();
        }
        let listed = self.list();
        let Some(oldest) = listed.last().copied() else {
            return Vec::new();
        };
        let mut storage = match self.journal.open_read_only() {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!("no checkpoint is used: cannot read the journal's bindings ({e})");
                return Vec::new();
            }
        };
        let mut found = Vec::new();
        let scanned = each_binding(&mut storage, oldest, true, &mut |binding| {
            let (through, bytes) = (binding.through, binding.bytes);
            let length = std::fs::symlink_metadata(self.path(through))
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len());
            if length == Some(bytes) && !found.contains(&through) {
                found.push(through);
            }
            found.len() < most
        });
        if let Err(e) = scanned {
            tracing::warn!("no checkpoint is used: cannot read the journal's bindings ({e})");
            return Vec::new();
        }
        let unbound: Vec<u64> = listed.iter().copied().filter(|t| !found.contains(t)).take(8).collect();
        if !unbound.is_empty() && found.len() < most {
            tracing::warn!("checkpoint files the journal does not bind as they are are passed over: {unbound:?}");
        }
        found.sort_unstable_by(|a, b| b.cmp(a));
        found
    }

    fn path(&self, through: u64) -> PathBuf {
        self.dir.join(format!("{through:020}.ckpt"))
    }

    /// The folder, refused unless it is a folder of its own: a link would
    /// have checkpoints written, read and removed wherever it points.
    fn own_dir(&self) -> Result<&Path, String> {
        match std::fs::symlink_metadata(&self.dir) {
            Ok(m) if m.is_dir() => Ok(&self.dir),
            Ok(_) => Err(format!("{} is not a folder (a link, or a file)", self.dir.display())),
            Err(e) => Err(format!("cannot read {}: {e}", self.dir.display())),
        }
    }

    /// What the folder holds (nothing, where it is no folder of its own).
    fn entries(&self) -> Vec<std::fs::DirEntry> {
        self.own_dir()
            .and_then(|d| std::fs::read_dir(d).map_err(|e| e.to_string()))
            .map(|read| read.filter_map(|e| e.ok()).collect())
            .unwrap_or_default()
    }

    /// The entries the checkpoints follow, newest first: regular files only
    /// (a link, a pipe or a device is no checkpoint).
    pub fn list(&self) -> Vec<u64> {
        let mut found: Vec<u64> = self
            .entries()
            .into_iter()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .filter_map(|e| {
                // Only the names this store gives: 20 digits, then `.ckpt`.
                let name = e.file_name().into_string().ok()?;
                let digits = name.strip_suffix(".ckpt")?;
                (digits.len() == 20 && digits.bytes().all(|b| b.is_ascii_digit()))
                    .then(|| digits.parse().ok())
                    .flatten()
            })
            .collect();
        found.sort_unstable_by(|a, b| b.cmp(a));
        found
    }

    pub fn read(&self, through: u64) -> Result<Checkpoint, String> {
        self.own_dir()?;
        let path = self.path(through);
        let cannot = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
        // Opened without following a link, and read only as a regular file.
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc_no_follow())
            .open(&path)
            .map_err(cannot)?;
        let meta = file.metadata().map_err(cannot)?;
        if !meta.is_file() {
            return Err(format!("{} is not a regular file", path.display()));
        }
        // A checkpoint begins as a map; a file that does not (one of zeros,
        // left sparse and huge) is not read further, and none is read that
        // could not be held in this machine's memory.
        let mut first = [0u8; 1];
        std::io::Read::read_exact(&mut file, &mut first).map_err(cannot)?;
        if !(0xa0..=0xbf).contains(&first[0]) {
            return Err(format!("{} does not begin as a checkpoint does", path.display()));
        }
        // A checkpoint is written whole: a file mostly of holes (sparse) is
        // none, and would cost its length in memory and time to judge. (A
        // small one may be stored inline, in no block: it is cheap to read.)
        let stored = std::os::unix::fs::MetadataExt::blocks(&meta).saturating_mul(512);
        if meta.len() > SPARSE_CHECKED_FROM && stored < meta.len() / 8 {
            return Err(format!(
                "{} is {} bytes with holes in it (sparse): a checkpoint is written whole",
                path.display(),
                meta.len()
            ));
        }
        if let Some(most) = memory_bytes().map(|m| m / 2) {
            if meta.len() > most {
                return Err(format!(
                    "{} is {} bytes, more than half this machine's memory",
                    path.display(),
                    meta.len()
                ));
            }
        }
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        bytes.push(first[0]);
        std::io::Read::read_to_end(&mut file, &mut bytes).map_err(cannot)?;
        Ok(Checkpoint { through, bytes })
    }

    /// Writes a checkpoint whole, or not at all: to a file of its own, made
    /// durable, then renamed into place.
    pub fn write(&self, checkpoint: &Checkpoint) -> Result<(), String> {
        use std::io::Write;
        let cannot = |e: std::io::Error| format!("cannot write a checkpoint in {}: {e}", self.dir.display());
        if std::fs::symlink_metadata(&self.dir).is_err() {
            std::fs::create_dir(&self.dir).map_err(cannot)?;
        }
        self.own_dir()?;
        let path = self.path(checkpoint.through);
        let partial = path.with_extension("partial");
        // A file of its own, made here: whatever was left under the name
        // (a link to another file, most of all) is removed, never written through.
        match std::fs::remove_file(&partial) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(cannot(e)),
            _ => {}
        }
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&partial)
            .and_then(|mut file| {
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

    /// Removes what an interrupted write left (`*.partial`): links are removed, not followed.
    pub fn remove_partial(&self) {
        for entry in self.entries() {
            if entry.file_name().to_string_lossy().ends_with(".partial") {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }

    /// Removes one checkpoint.
    pub fn remove(&self, through: u64) {
        if let Err(e) = std::fs::remove_file(self.path(through)) {
            tracing::warn!("cannot remove the checkpoint after entry {through}: {e}");
        }
    }

    /// Keeps the newest `keep` checkpoints the journal binds, the one after
    /// entry `newest` (just written and bound) among them; every other file
    /// is removed: older ones, and files the journal does not bind (named
    /// after entries it has not reached, or planted), never kept over real ones.
    pub fn prune(&self, newest: u64, keep: usize) {
        let bound = self.bound(keep);
        if !bound.contains(&newest) {
            // Its binding is not read back yet: remove nothing on a guess.
            return;
        }
        for through in self.list().into_iter().filter(|t| !bound.contains(t)) {
            if through > newest {
                tracing::warn!("removing checkpoints/{through:020}.ckpt: the journal has not reached entry {through}");
            }
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

/// The machine's memory, in bytes, where the system says (`MemTotal`).
fn memory_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// `O_NOFOLLOW` (and `O_NONBLOCK`, so that a pipe put in a checkpoint's
/// place does not hold the start): the flags a checkpoint is opened with.
fn libc_no_follow() -> i32 {
    libc::O_NOFOLLOW | libc::O_NONBLOCK
}

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
    pub fn start(store: Store, floor: Floor, from: Option<Used>, every: u64) -> Result<CheckpointWriter, String> {
        let reader = store
            .journal
            .open_read_only()
            .map_err(|e| format!("checkpoints: {e}"))?;
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
    fn check_history(&mut self, through: u64, head: [u8; 32], stop: &AtomicBool) -> Result<(), String> {
        let mut chain = croupier_ledger::Verifier::chain_after(0, [0; 32]);
        let read = self.reader.each_between(0, through, &mut |entry| {
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
    fn take(&mut self, replayer: &Replayer<'_>) -> Result<(), String> {
        let checkpoint = replayer.casino().checkpoint().map_err(|e| e.to_string())?;
        if let Err(e) = self.store.write(&checkpoint) {
            // Tried again once as many entries more have come, not every second.
            tracing::warn!("{e}; tried again after {} more entries", self.every);
            self.last = checkpoint.through;
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
                self.store.prune(checkpoint.through, CHECKPOINTS_KEPT);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A file that begins as a checkpoint does but is mostly holes is passed
    /// over unread: judging it would take its length in memory.
    #[test]
    fn a_file_of_holes_is_no_checkpoint() {
        let data = tempfile::tempdir().expect("a folder");
        let store = Store::of(data.path());
        std::fs::create_dir(data.path().join(CHECKPOINTS_DIR)).expect("the checkpoints folder");
        let holes = store.path(7);
        std::fs::write(&holes, [0xa0u8]).expect("a byte");
        std::fs::OpenOptions::new()
            .write(true)
            .open(&holes)
            .and_then(|f| f.set_len(1 << 32))
            .expect("holes");
        let why = store.read(7).expect_err("holes");
        assert!(why.contains("holes"), "{why}");
        // A whole file of the same beginning is read.
        std::fs::write(store.path(8), vec![0xa0u8; 2 << 20]).expect("a whole file");
        assert_eq!(store.read(8).expect("read").bytes.len(), 2 << 20);
    }
}
