//! Where checkpoints are kept: a folder of the data directory, or, for a
//! journal on PostgreSQL, a table beside it that every node reads (a node
//! that takes the casino over starts from the newest there). Only those
//! the journal binds are ever read (`Store::bound`).

use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use croupier_ledger::{Database, PgCheckpoints};

use super::{each_binding, CHECKPOINTS_DIR};
use crate::casino::checkpoint::Checkpoint;

/// From this length a checkpoint file with far fewer bytes stored than its
/// length (holes) is passed over unread.
const SPARSE_CHECKED_FROM: u64 = 1 << 20;

/// The checkpoints of a casino: a file each in its data directory, named by
/// the entry its state follows; or, for a journal on PostgreSQL, a row each
/// in the database beside it.
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

    /// Where the journal that binds them is.
    pub fn journal(&self) -> &Database {
        &self.journal
    }

    /// The checkpoints' table, where the journal is on PostgreSQL.
    fn in_database(&self) -> Option<Result<PgCheckpoints, String>> {
        match &self.journal {
            Database::Postgres(url) => Some(PgCheckpoints::open(url).map_err(|e| format!("checkpoints: {e}"))),
            Database::Sqlite(_) => None,
        }
    }

    /// Where they are, for messages.
    fn shown(&self) -> String {
        match &self.journal {
            Database::Postgres(_) => format!("the checkpoint table of {}", self.journal.shown()),
            Database::Sqlite(_) => self.dir.display().to_string(),
        }
    }

    /// Each checkpoint's entry and length, newest first.
    fn lengths(&self) -> Vec<(u64, u64)> {
        match self.in_database() {
            Some(table) => match table.and_then(|mut t| t.list().map_err(|e| e.to_string())) {
                Ok(listed) => listed,
                Err(e) => {
                    tracing::warn!("no checkpoint is listed: {e}");
                    Vec::new()
                }
            },
            None => self
                .list()
                .into_iter()
                .filter_map(|through| {
                    let meta = std::fs::symlink_metadata(self.path(through)).ok()?;
                    meta.is_file().then_some((through, meta.len()))
                })
                .collect(),
        }
    }

    /// The checkpoints a start may try, newest first, at most `most`: only
    /// files the journal binds, of the length it binds. The bindings are
    /// read from the journal's end back (each is an entry soon after its
    /// checkpoint), so a file planted under another name, or cut, or
    /// stuffed, is never read, nor takes the place of a real one.
    pub fn bound(&self, most: usize) -> Vec<u64> {
        if self.in_database().is_none() {
            if let Err(why) = self.own_dir() {
                if std::fs::symlink_metadata(&self.dir).is_ok() {
                    tracing::warn!("no checkpoint is used: {why}");
                }
                return Vec::new();
            }
        }
        let lengths = self.lengths();
        let listed: Vec<u64> = lengths.iter().map(|(through, _)| *through).collect();
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
        // Files a binding names at another length: changed since they were bound.
        let mut other_length = Vec::new();
        let scanned = each_binding(&mut storage, oldest, true, &mut |binding| {
            let (through, bytes) = (binding.through, binding.bytes);
            let length = lengths.iter().find(|(t, _)| *t == through).map(|(_, n)| *n);
            if length == Some(bytes) && !found.contains(&through) {
                found.push(through);
            } else if length.is_some() && !other_length.contains(&through) {
                other_length.push(through);
            }
            found.len() < most
        });
        if let Err(e) = scanned {
            tracing::warn!("no checkpoint is used: cannot read the journal's bindings ({e})");
            return Vec::new();
        }
        let entries = |list: &[u64]| list.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
        let passed: Vec<u64> = listed.iter().copied().filter(|t| !found.contains(t)).take(8).collect();
        let (changed, unbound): (Vec<u64>, Vec<u64>) = passed.into_iter().partition(|t| other_length.contains(t));
        if found.len() < most {
            // A file written as the server stopped, before its binding, is no one's doing.
            if !unbound.is_empty() {
                tracing::info!(
                    "checkpoints in {} that the journal never bound (the server stopped between writing and binding them) are passed over: after entries {}",
                    self.shown(),
                    entries(&unbound)
                );
            }
            if !changed.is_empty() {
                tracing::warn!(
                    "checkpoints in {} that are not the files the journal bound (changed since) are passed over: after entries {}",
                    self.shown(),
                    entries(&changed)
                );
            }
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
        if self.in_database().is_some() {
            return self.lengths().into_iter().map(|(through, _)| through).collect();
        }
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
        if let Some(table) = self.in_database() {
            // None is read that could not be held in this machine's memory.
            let most = memory_bytes().map_or(u64::MAX, |m| m / 2);
            let bytes = table?
                .read(through, most)
                .map_err(|e| format!("cannot read the checkpoint after entry {through}: {e}"))?
                .ok_or_else(|| format!("{} has no checkpoint after entry {through}", self.shown()))?;
            if !bytes.first().is_some_and(|b| (0xa0..=0xbf).contains(b)) {
                return Err(format!(
                    "the checkpoint after entry {through} in {} does not begin as a checkpoint does",
                    self.shown()
                ));
            }
            return Ok(Checkpoint { through, bytes });
        }
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
        if let Some(table) = self.in_database() {
            return table?
                .write(checkpoint.through, &checkpoint.bytes)
                .map_err(|e| format!("cannot write a checkpoint in {}: {e}", self.shown()));
        }
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
        // A row is written whole or not at all: a table has nothing partial.
        if self.in_database().is_some() {
            return;
        }
        for entry in self.entries() {
            if entry.file_name().to_string_lossy().ends_with(".partial") {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }

    /// Removes one checkpoint.
    pub fn remove(&self, through: u64) {
        if let Some(table) = self.in_database() {
            if let Err(e) = table.and_then(|mut t| t.remove(through).map_err(|e| e.to_string())) {
                tracing::warn!("cannot remove the checkpoint after entry {through}: {e}");
            }
            return;
        }
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
        if self.in_database().is_some() {
            return Err(format!(
                "{} is the database's to keep: a recovery works on SQLite",
                self.shown()
            ));
        }
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
