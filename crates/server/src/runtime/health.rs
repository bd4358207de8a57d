//! What the server says of itself: whether its journal takes writes, whether
//! the recall archive keeps up, and how much room its data directory's disk
//! has left. `/healthz` reads it; the edge refuses what needs the journal
//! while it is paused, and the tables' streams close as a pause begins.
//!
//! A failed write of the journal (a full disk, most often) pauses the casino:
//! the committer reports it here, and the cage reloads what is durable as
//! soon as it can, once a second, which ends the pause. Nothing acknowledged
//! is lost meanwhile, and nothing refused `storage` changed anything (one
//! refused `outcome_unknown` may have been written: a resend tells).
//!
//! On PostgreSQL it also watches the casino's lease ([`Health::watch_lease`]):
//! once the database has not confirmed it for half its timeout, the node has
//! lost it, for good, as soon as anyone asks (`/healthz`, a request) or
//! within [`LEASE_CHECK_EVERY_MS`] if no one does.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use serde::Serialize;

use super::clock::Clock;

/// A trouble the server is in: since when, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Trouble {
    /// When it began, in ms since the Unix epoch.
    pub since_ms: u64,
    pub why: String,
}

/// The recall archive's state, when it is behind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct ArchiveBehind {
    #[serde(flatten)]
    pub trouble: Trouble,
    /// Finished rounds waiting to be archived (game recall finds them meanwhile).
    pub rounds_waiting: u64,
}

/// What `/healthz` answers.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct HealthReport {
    /// `ok`; `degraded` (the recall archive is behind: play goes on); or
    /// `paused` (the journal cannot be written: nothing that needs it is taken).
    pub status: &'static str,
    /// Set while the journal cannot be written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub journal: Option<Trouble>,
    /// Set while the recall archive is behind.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archive: Option<ArchiveBehind>,
    /// Set while the journal's head cannot be kept in the keys folder (its
    /// disk full): `croupier verify --head` would then catch a journal rolled
    /// back only as far as the last head kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<Trouble>,
    /// Set when the journal's entries before the checkpoint the server
    /// opened from do not chain to it (changed since): `croupier verify`
    /// says where. Play goes on from the checkpoint, which the journal binds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<Trouble>,
    /// Room left on the data directory's disk, if it can be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disk_free_bytes: Option<u64>,
    /// The data directory's disk has less room than [`RELOAD_FREE_BYTES_MIN`]:
    /// the journal may refuse its next write.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub disk_low: bool,
}

/// The server's health, shared by the writers and the edge.
#[derive(Clone)]
pub struct Health(Arc<Inner>);

struct Inner {
    clock: Arc<dyn Clock>,
    journal: Mutex<Option<Trouble>>,
    archive: Mutex<Option<ArchiveBehind>>,
    head: Mutex<Option<Trouble>>,
    history: Mutex<Option<Trouble>>,
    /// A reload was held back for want of room since the pause began (said once).
    waiting_for_room: std::sync::atomic::AtomicBool,
    /// True while paused; the tables' streams wait on it.
    paused: tokio::sync::watch::Sender<bool>,
    /// Why this node lost the casino's lease, once it has (PostgreSQL): it
    /// writes nothing more, and the server stops.
    lease_lost: tokio::sync::watch::Sender<Option<String>>,
    stop_on_failed_write: std::sync::atomic::AtomicBool,
    data: OnceLock<PathBuf>,
    /// The lease this node holds on PostgreSQL, as its keeper last confirmed it.
    lease: OnceLock<Arc<croupier_ledger::pg::LeaseWatch>>,
}

/// How often the lease is looked at when no one asks for the server's health.
pub const LEASE_CHECK_EVERY_MS: u64 = 200;

/// A cage reloads after a failed write only once this much can be written
/// to the data directory's disk: a reload replays the journal, and a disk
/// still full would fail it again.
pub const RELOAD_FREE_BYTES_MIN: u64 = 1 << 20;

/// The file a paused server writes [`RELOAD_FREE_BYTES_MIN`] to, and removes,
/// to learn whether the disk takes writes again.
pub const ROOM_PROBE_FILE: &str = "room.probe";

impl Health {
    pub fn new(clock: Arc<dyn Clock>) -> Health {
        Health(Arc::new(Inner {
            clock,
            journal: Mutex::new(None),
            archive: Mutex::new(None),
            head: Mutex::new(None),
            history: Mutex::new(None),
            waiting_for_room: std::sync::atomic::AtomicBool::new(false),
            paused: tokio::sync::watch::Sender::new(false),
            lease_lost: tokio::sync::watch::Sender::new(None),
            stop_on_failed_write: std::sync::atomic::AtomicBool::new(false),
            data: OnceLock::new(),
            lease: OnceLock::new(),
        }))
    }

    /// From now on the casino is this node's only while `lease` is confirmed:
    /// past its fence (half its timeout) the node has lost it. Looked at on
    /// every ask, so that a node waking from a freeze answers no request as
    /// if it still held the casino, and by a thread of its own, so that an
    /// idle node stops too.
    pub fn watch_lease(&self, lease: Arc<croupier_ledger::pg::LeaseWatch>) -> Result<(), String> {
        if self.0.lease.set(lease).is_err() {
            return Ok(());
        }
        let health = self.clone();
        std::thread::Builder::new()
            .name("lease-watch".into())
            .spawn(move || {
                while health.lease_held() {
                    std::thread::sleep(std::time::Duration::from_millis(LEASE_CHECK_EVERY_MS));
                }
            })
            .map(|_| ())
            .map_err(|e| format!("cannot start the lease's watch: {e}"))
    }

    /// Whether this node may still hold the casino as far as its lease goes;
    /// if not, it has lost it from now on.
    fn lease_held(&self) -> bool {
        if self.0.lease_lost.borrow().is_some() {
            return false;
        }
        match self.0.lease.get().and_then(|lease| lease.doubt()) {
            Some(why) => {
                self.lease_lost(&format!("{why}; started again, it waits its turn"));
                false
            }
            None => true,
        }
    }

    /// Watches the room left on `data`'s disk from now on.
    pub fn watch_disk(&self, data: &Path) {
        let _ = self.0.data.set(data.to_path_buf());
    }

    /// The room left on the data directory's disk, if known.
    pub fn disk_free_bytes(&self) -> Option<u64> {
        let data = self.0.data.get()?;
        let stat = rustix::fs::statvfs(data).ok()?;
        Some(stat.f_bavail.saturating_mul(stat.f_frsize))
    }

    /// Whether a reload is worth trying: [`RELOAD_FREE_BYTES_MIN`] can be
    /// written to the data directory's disk and made durable (a written
    /// probe, not the file system's count of free blocks, whose share kept
    /// for root this process may or may not use), or the disk is not known.
    pub fn may_reload(&self) -> bool {
        // A node that lost the lease must not read its way back to writing.
        if self.0.lease_lost.borrow().is_some() {
            return false;
        }
        let Some(data) = self.0.data.get() else { return true };
        let room = probe_room(&data.join(ROOM_PROBE_FILE)).is_ok();
        let free = self.disk_free_bytes();
        if !room && !self.0.waiting_for_room.swap(true, std::sync::atomic::Ordering::Relaxed) {
            tracing::warn!(
                "the casino waits for room to resume: {} bytes free on the data directory's disk, {RELOAD_FREE_BYTES_MIN} needed",
                free.unwrap_or(0)
            );
        }
        room
    }

    /// A trouble beginning now, for `why`.
    fn trouble(&self, why: &str) -> Trouble {
        Trouble {
            since_ms: self.0.clock.now_ms(),
            why: why.to_string(),
        }
    }

    /// Notes a trouble in `slot` unless one is noted already (the first why
    /// is kept); whether this one began it.
    fn begins(&self, slot: &Mutex<Option<Trouble>>, why: &str) -> bool {
        let mut noted = lock(slot);
        let first = noted.is_none();
        if first {
            *noted = Some(self.trouble(why));
        }
        first
    }

    /// From now on a failed write of the journal stops this node for good
    /// (a journal on PostgreSQL: what failed there is a lost connection, or
    /// a journal changed under it, never a disk that frees up; a node that
    /// opens it again checks it against its head).
    pub fn stop_on_failed_write(&self) {
        self.0
            .stop_on_failed_write
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// A write of the journal failed: the casino pauses (once; the first why is kept).
    pub fn journal_failed(&self, why: &str) {
        if self.0.stop_on_failed_write.load(std::sync::atomic::Ordering::Relaxed) {
            self.lease_lost(&format!(
                "a write of the journal failed ({why}); started again, this node checks the journal against its head"
            ));
            return;
        }
        if self.begins(&self.0.journal, why) {
            tracing::error!("the casino is paused: its journal cannot be written ({why})");
            self.0.paused.send_replace(true);
        }
    }

    /// This node lost the casino's lease: it pauses for good (nothing it holds
    /// may be written any more), and the server stops (`lease_losses`).
    pub fn lease_lost(&self, why: &str) {
        if self.0.lease_lost.borrow().is_some() {
            return;
        }
        tracing::error!("{why}. This node writes nothing more, and stops");
        let mut journal = lock(&self.0.journal);
        *journal = Some(self.trouble(why));
        drop(journal);
        self.0.paused.send_replace(true);
        self.0.lease_lost.send_replace(Some(why.to_string()));
    }

    /// Why this node lost the casino's lease, once it has.
    pub fn lease_losses(&self) -> tokio::sync::watch::Receiver<Option<String>> {
        self.0.lease_lost.subscribe()
    }

    /// The casino reloaded what is durable: the pause is over.
    pub fn journal_resumed(&self) {
        if self.0.lease_lost.borrow().is_some() {
            return;
        }
        if let Some(trouble) = lock(&self.0.journal).take() {
            let seconds = self.0.clock.now_ms().saturating_sub(trouble.since_ms) / 1_000;
            tracing::warn!("the casino resumed: its journal takes writes again after {seconds} s");
            self.0
                .waiting_for_room
                .store(false, std::sync::atomic::Ordering::Relaxed);
            self.0.paused.send_replace(false);
        }
    }

    /// Why the casino is paused, while it is. Asked for every API request:
    /// the flag the streams follow answers first, the why only while paused.
    pub fn paused(&self) -> Option<Trouble> {
        if self.0.lease.get().is_some() {
            self.lease_held();
        }
        if !*self.0.paused.borrow() {
            return None;
        }
        lock(&self.0.journal).clone()
    }

    /// True while the casino is paused.
    pub fn pauses(&self) -> tokio::sync::watch::Receiver<bool> {
        self.0.paused.subscribe()
    }

    /// The recall archive could not write: `waiting` rounds wait for it.
    pub fn archive_behind(&self, why: &str, waiting: u64) {
        let mut archive = lock(&self.0.archive);
        match archive.as_mut() {
            Some(behind) => behind.rounds_waiting = waiting,
            None => {
                tracing::error!("the recall archive cannot write ({why}); it keeps {waiting} rounds and tries again");
                *archive = Some(ArchiveBehind {
                    trouble: self.trouble(why),
                    rounds_waiting: waiting,
                });
            }
        }
    }

    /// The recall archive wrote every round it was waiting on.
    pub fn archive_caught_up(&self) {
        if lock(&self.0.archive).take().is_some() {
            tracing::warn!("the recall archive caught up");
        }
    }

    /// The journal's head could not be written to the keys folder.
    pub fn head_not_kept(&self, why: &str) {
        if self.begins(&self.0.head, why) {
            tracing::error!("the journal's head cannot be kept in the keys folder: {why}");
        }
    }

    /// The journal's entries before the checkpoint opened from do not chain to it.
    pub fn history_broken(&self, why: &str) {
        if self.begins(&self.0.history, why) {
            tracing::error!("the journal before the checkpoint the server opened from is not as written: {why}");
        }
    }

    /// The journal's head was written to the keys folder.
    pub fn head_kept(&self) {
        if lock(&self.0.head).take().is_some() {
            tracing::warn!("the journal's head is kept in the keys folder again");
        }
    }

    pub fn report(&self) -> HealthReport {
        let journal = self.paused();
        let archive = lock(&self.0.archive).clone();
        let head = lock(&self.0.head).clone();
        let history = lock(&self.0.history).clone();
        let disk_free_bytes = self.disk_free_bytes();
        let disk_low = disk_free_bytes.is_some_and(|free| free < RELOAD_FREE_BYTES_MIN);
        let status = if journal.is_some() {
            "paused"
        } else if archive.is_some() || head.is_some() || history.is_some() || disk_low {
            "degraded"
        } else {
            "ok"
        };
        HealthReport {
            status,
            journal,
            archive,
            head,
            history,
            disk_free_bytes,
            disk_low,
        }
    }
}

/// Writes [`RELOAD_FREE_BYTES_MIN`] bytes to `path`, flushes them, and removes it.
fn probe_room(path: &Path) -> std::io::Result<()> {
    use std::io::Write;
    let written = (|| {
        let mut file = std::fs::File::create(path)?;
        let block = [0u8; 64 * 1024];
        for _ in 0..RELOAD_FREE_BYTES_MIN / block.len() as u64 {
            file.write_all(&block)?;
        }
        file.sync_all()
    })();
    let _ = std::fs::remove_file(path);
    written
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::SimClock;

    #[test]
    fn a_pause_keeps_its_first_why_and_ends_with_a_resume() {
        let clock = Arc::new(SimClock::at(5_000));
        let health = Health::new(clock.clone());
        let mut pauses = health.pauses();
        assert_eq!(health.report().status, "ok");
        health.journal_failed("database or disk is full");
        clock.advance(2_000);
        health.journal_failed("a later failure");
        let report = health.report();
        assert_eq!(report.status, "paused");
        assert_eq!(
            report.journal,
            Some(Trouble {
                since_ms: 5_000,
                why: "database or disk is full".into()
            })
        );
        assert!(pauses.has_changed().expect("open") && *pauses.borrow_and_update());
        health.archive_behind("disk full", 3);
        health.journal_resumed();
        assert!(!*pauses.borrow_and_update());
        let report = health.report();
        assert_eq!(report.status, "degraded", "the archive is still behind");
        assert_eq!(report.archive.map(|a| a.rounds_waiting), Some(3));
        health.archive_caught_up();
        assert_eq!(health.report().status, "ok");
    }

    #[test]
    fn a_head_not_kept_degrades_until_it_is_kept_again() {
        let health = Health::new(Arc::new(SimClock::at(0)));
        health.head_not_kept("No space left on device");
        let report = health.report();
        assert_eq!(report.status, "degraded");
        assert!(report.head.is_some_and(|t| t.why.contains("No space")));
        health.head_kept();
        assert_eq!(health.report().status, "ok");
    }

    #[test]
    fn the_disk_is_read_once_watched() {
        let health = Health::new(Arc::new(SimClock::at(0)));
        assert_eq!(health.disk_free_bytes(), None);
        assert!(health.may_reload(), "unknown room does not hold a reload back");
        let dir = tempfile::tempdir().expect("dir");
        health.watch_disk(dir.path());
        assert!(health.disk_free_bytes().is_some());
        assert!(health.may_reload(), "room to write the probe");
        assert!(!dir.path().join(ROOM_PROBE_FILE).exists(), "the probe is removed");
    }
}
