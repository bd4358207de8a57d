//! The storage committer. The casino's writer executes a group of requests
//! in memory and hands the group's journal entries, with the answers waiting
//! on them, to a thread of its own that writes them and flushes them to disk;
//! the writer goes on with the next group meanwhile. A group's answers are
//! given only once it is durable, in the order the groups were executed, and
//! a group with no entries (reads) waits for the ones before it just the same.
//! If a write fails, that group and every group after it are answered with a
//! failure until the writer has reloaded the casino from what is durable.
//! A write whose commit was sent and whose answer was lost is answered
//! `outcome_unknown` (a resend with the same id acts at most once); one
//! refused or taken back before its commit, `storage`: nothing changed.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use croupier_ledger::{Entry, Storage, StorageError};

use super::health::Health;
use super::metrics::FlushTimes;
use super::reply::{Outcome, Pending};

/// Groups handed over and not yet durable before the writer waits.
pub const COMMITTER_QUEUE_GROUPS: usize = 64;
/// Groups a hand-stepped committer's queue holds: nothing drains it while
/// the cage hands groups over, so it is sized for a simulation's run.
pub const STEPPED_QUEUE_GROUPS: usize = 4_096;
/// Groups the committer makes durable with one flush when several are waiting.
pub const GROUPS_PER_FLUSH_MAX: usize = 64;
/// Entries read ahead of the casino when it opens on the journal.
pub const STREAM_ENTRIES_AHEAD: usize = 1_024;
/// A journal's reading is reported every this many entries.
pub const PROGRESS_EVERY_ENTRIES: u64 = 100_000;

/// The server's writes of the journal start at least this far apart. Each
/// write costs the same fixed work whatever it holds (SQLite's transaction
/// and its locks, the log's frame headers, the file system's flush): on a
/// disk that flushes in a tenth of a millisecond, a committer that writes as
/// soon as anything waits spends that on a few bets at a time. Spaced, a
/// write takes what came in meanwhile, so the work per bet falls under load,
/// while a bet at a quiet moment is written at once.
pub const COMMIT_SPACING_US: u64 = 4_000;

/// Keeps the starts of a worker's rounds (a write, a group) at least `every`
/// apart: under load a round takes everything that came in meanwhile instead
/// of each message paying for a round of its own; after a quiet spell the
/// next round starts at once.
pub struct Spacing {
    every: Duration,
    last: Option<Instant>,
}

impl Spacing {
    pub fn new(every: Duration) -> Spacing {
        Spacing { every, last: None }
    }

    /// Sleeps out what is left of `every` since the last round began.
    pub fn wait(&self) {
        if let Some(left) = self.last.and_then(|at| self.every.checked_sub(at.elapsed())) {
            std::thread::sleep(left);
        }
    }

    /// A round begins now.
    pub fn begin(&mut self) {
        self.last = Some(Instant::now());
    }
}

enum Message {
    Group {
        entries: Vec<Entry>,
        replies: Vec<Pending>,
        done: Option<mpsc::Sender<Outcome>>,
    },
    /// Once every group before it is answered: everything durable, and the
    /// committer takes groups again.
    Reload(mpsc::Sender<()>),
    /// Once every group before it is answered: the journal's entries after
    /// the first `after`, one at a time, then its end (or the error that ended it).
    Stream { after: u64, sink: Sink },
}

/// Where a stream of the journal goes: a bounded channel, which the storage
/// fills only as fast as the casino replays; or, for a committer stepped on
/// the reader's own thread, one that takes the whole journal at once.
enum Sink {
    Bounded(mpsc::SyncSender<Result<Entry, StorageError>>),
    Unbounded(mpsc::Sender<Result<Entry, StorageError>>),
}

impl Sink {
    fn send(&self, item: Result<Entry, StorageError>) -> bool {
        match self {
            Sink::Bounded(tx) => tx.send(item).is_ok(),
            Sink::Unbounded(tx) => tx.send(item).is_ok(),
        }
    }
}

/// What ends a flush: a reload, or a stream of the journal.
enum Barrier {
    Reload(mpsc::Sender<()>),
    Stream(u64, Sink),
}

fn stopped() -> StorageError {
    StorageError::NotWritten("the storage committer has stopped".into())
}

/// The casino's storage under the server: appends inside a group are kept
/// until `end_group`, which hands them to the committer with the answers
/// attached by [`Committer::attach`]. Outside a group (opening, a first run)
/// an append returns only once durable, as [`Storage`] asks.
pub struct Pipeline {
    sender: mpsc::SyncSender<Message>,
    /// The time of the last durable entry when the committer started.
    last_at_ms: Option<u64>,
    /// Told how many entries were read, every [`PROGRESS_EVERY_ENTRIES`].
    progress: Option<Box<dyn FnMut(u64) + Send>>,
    buffer: Vec<Entry>,
    grouped: bool,
    outbox: Arc<Mutex<Vec<Pending>>>,
    /// A committer stepped by hand (a simulation), not run by a thread.
    stepped: Option<Stepped>,
}

impl Pipeline {
    /// The time of the last durable entry when the committer started.
    pub fn last_at_ms(&self) -> Option<u64> {
        self.last_at_ms
    }

    /// Has `progress` told how many entries were read as the journal is, every
    /// [`PROGRESS_EVERY_ENTRIES`]: a start on a long history says how far it is.
    pub fn report_progress(&mut self, progress: Box<dyn FnMut(u64) + Send>) {
        self.progress = Some(progress);
    }
}

impl Storage for Pipeline {
    /// The entries durable when this pipeline was made; read once.
    fn load(&mut self) -> Result<Vec<Entry>, StorageError> {
        let mut entries = Vec::new();
        self.each(&mut |e| {
            entries.push(e);
            true
        })?;
        Ok(entries)
    }

    /// The journal as the committer's storage reads it, an entry at a time,
    /// a bounded way ahead of `f`.
    fn each(&mut self, f: &mut dyn FnMut(Entry) -> bool) -> Result<(), StorageError> {
        self.each_after(0, f)
    }

    /// [`Pipeline::each`] from the entry after `after` (a start from a checkpoint).
    fn each_after(&mut self, after: u64, f: &mut dyn FnMut(Entry) -> bool) -> Result<(), StorageError> {
        let (sink, entries) = if self.stepped.is_some() {
            let (tx, rx) = mpsc::channel();
            (Sink::Unbounded(tx), rx)
        } else {
            let (tx, rx) = mpsc::sync_channel(STREAM_ENTRIES_AHEAD);
            (Sink::Bounded(tx), rx)
        };
        self.sender
            .send(Message::Stream { after, sink })
            .map_err(|_| stopped())?;
        if let Some(stepped) = &self.stepped {
            stepped.run_ready();
        }
        let mut read = 0u64;
        for item in entries {
            read += 1;
            if let Some(progress) = self
                .progress
                .as_mut()
                .filter(|_| read.is_multiple_of(PROGRESS_EVERY_ENTRIES))
            {
                progress(read);
            }
            if !f(item?) {
                break;
            }
        }
        Ok(())
    }

    fn append(&mut self, entries: &[Entry]) -> Result<(), StorageError> {
        if self.grouped {
            self.buffer.extend_from_slice(entries);
            return Ok(());
        }
        let (done, durable) = mpsc::channel();
        self.sender
            .send(Message::Group {
                entries: entries.to_vec(),
                replies: Vec::new(),
                done: Some(done),
            })
            .map_err(|_| stopped())?;
        if let Some(stepped) = &self.stepped {
            stepped.run_ready();
        }
        match durable.recv() {
            Ok(Outcome::Durable) => Ok(()),
            Ok(Outcome::NotWritten) => Err(StorageError::NotWritten(
                "the disk did not take it (full?); the journal is sound: free room and try again".into(),
            )),
            Ok(Outcome::Unknown) => Err(StorageError::OutcomeUnknown(
                "the commit was sent and its answer lost; the journal tells whether it was made".into(),
            )),
            Err(_) => Err(stopped()),
        }
    }

    fn append_owned(&mut self, entries: Vec<Entry>) -> Result<(), StorageError> {
        if self.grouped {
            self.buffer.extend(entries);
            return Ok(());
        }
        self.append(&entries)
    }

    fn begin_group(&mut self) -> Result<(), StorageError> {
        self.grouped = true;
        Ok(())
    }

    /// Hands the group over; its answers learn when it is durable.
    fn end_group(&mut self) -> Result<(), StorageError> {
        self.grouped = false;
        let entries = std::mem::take(&mut self.buffer);
        let replies = std::mem::take(&mut *self.outbox.lock().unwrap_or_else(|p| p.into_inner()));
        if entries.is_empty() && replies.is_empty() {
            return Ok(());
        }
        let message = Message::Group {
            entries,
            replies,
            done: None,
        };
        if let Err(mpsc::SendError(Message::Group { replies, .. })) = self.sender.send(message) {
            for reply in replies {
                reply.deliver(false);
            }
            return Err(stopped());
        }
        Ok(())
    }
}

/// The writer's handle on the committer.
pub struct Committer {
    sender: mpsc::SyncSender<Message>,
    outbox: Arc<Mutex<Vec<Pending>>>,
    failed: Arc<AtomicBool>,
    flushes: FlushTimes,
    stepped: Option<Stepped>,
    health: Arc<OnceLock<Health>>,
}

/// The committer's work: what its thread runs, or a simulation steps.
struct Worker {
    storage: Box<dyn Storage + Send>,
    receiver: mpsc::Receiver<Message>,
    failed: Arc<AtomicBool>,
    flushes: FlushTimes,
    spacing: Spacing,
    /// Told when a write fails: the casino pauses.
    health: Arc<OnceLock<Health>>,
}

/// A committer stepped by hand: its work runs when the simulation says, on
/// the simulation's own thread, so that a seed decides every interleaving.
#[derive(Clone)]
pub struct Stepped(Arc<Mutex<Worker>>);

impl Stepped {
    /// Writes every group handed over so far (and answers a reload asked for).
    /// Returns whether there was anything to do.
    pub fn run_ready(&self) -> bool {
        let mut worker = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let mut ran = false;
        while let Ok(first) = worker.receiver.try_recv() {
            worker.handle(first);
            ran = true;
        }
        ran
    }
}

impl Committer {
    /// Starts the committer thread on `storage`; the pipeline holds what it had.
    pub fn start<S: Storage + Send + 'static>(storage: S) -> Result<(Pipeline, Committer), StorageError> {
        Committer::start_spaced(storage, Duration::ZERO)
    }

    /// [`Committer::start`], with writes that start at least `spacing` apart
    /// (see [`COMMIT_SPACING_US`]).
    pub fn start_spaced<S: Storage + Send + 'static>(
        storage: S,
        spacing: Duration,
    ) -> Result<(Pipeline, Committer), StorageError> {
        let (worker, pipeline, committer) = Committer::made(storage, spacing, false)?;
        std::thread::Builder::new()
            .name("commit".into())
            .spawn(move || {
                let mut worker = worker;
                while let Ok(first) = worker.receiver.recv() {
                    worker.handle(first);
                }
            })
            .map_err(|e| StorageError::Unreadable {
                seq: 0,
                why: format!("cannot start the storage committer: {e}"),
            })?;
        Ok((pipeline, committer))
    }

    /// A committer with no thread: its groups are written when
    /// [`Committer::stepper`]'s `run_ready` says, or when something must wait
    /// for them (an append outside a group, a reload). For simulations.
    pub fn stepped<S: Storage + Send + 'static>(storage: S) -> Result<(Pipeline, Committer), StorageError> {
        let (worker, mut pipeline, mut committer) = Committer::made(storage, Duration::ZERO, true)?;
        let stepped = Stepped(Arc::new(Mutex::new(worker)));
        pipeline.stepped = Some(stepped.clone());
        committer.stepped = Some(stepped);
        Ok((pipeline, committer))
    }

    /// The committer's hand-stepped work, if it has no thread.
    pub fn stepper(&self) -> Option<&Stepped> {
        self.stepped.as_ref()
    }

    fn made<S: Storage + Send + 'static>(
        mut storage: S,
        spacing: Duration,
        stepped: bool,
    ) -> Result<(Worker, Pipeline, Committer), StorageError> {
        let last_at_ms = storage.last_at_ms()?;
        let (sender, receiver) = mpsc::sync_channel(if stepped {
            STEPPED_QUEUE_GROUPS
        } else {
            COMMITTER_QUEUE_GROUPS
        });
        let failed = Arc::new(AtomicBool::new(false));
        let flushes = FlushTimes::default();
        let health = Arc::new(OnceLock::new());
        let worker = Worker {
            storage: Box::new(storage),
            receiver,
            failed: failed.clone(),
            flushes: flushes.clone(),
            spacing: Spacing::new(spacing),
            health: health.clone(),
        };
        let committer = Committer {
            sender,
            outbox: Arc::new(Mutex::new(Vec::new())),
            failed,
            flushes,
            stepped: None,
            health,
        };
        let mut pipeline = committer.pipeline();
        pipeline.last_at_ms = last_at_ms;
        Ok((worker, pipeline, committer))
    }

    fn pipeline(&self) -> Pipeline {
        Pipeline {
            sender: self.sender.clone(),
            last_at_ms: None,
            progress: None,
            buffer: Vec::new(),
            grouped: false,
            outbox: self.outbox.clone(),
            stepped: self.stepped.clone(),
        }
    }

    /// These answers go with the group the next `end_group` hands over.
    pub fn attach(&self, replies: Vec<Pending>) {
        self.outbox.lock().unwrap_or_else(|p| p.into_inner()).extend(replies);
    }

    /// Tells `health` of every failed write from now on.
    pub fn report_to(&self, health: Health) {
        let _ = self.health.set(health);
    }

    /// Where failed writes are told, once set.
    pub fn health(&self) -> Option<&Health> {
        self.health.get()
    }

    /// How long the writes have taken so far.
    pub fn flush_times(&self) -> FlushTimes {
        self.flushes.clone()
    }

    /// Whether a group failed to be written since the last reload.
    pub fn failed(&self) -> bool {
        self.failed.load(Ordering::SeqCst)
    }

    /// Waits until every group handed over is answered, then gives a pipeline
    /// on what is durable, to reopen the casino on.
    pub fn reload(&self) -> Result<Pipeline, StorageError> {
        let (tx, rx) = mpsc::channel();
        self.sender.send(Message::Reload(tx)).map_err(|_| stopped())?;
        if let Some(stepped) = &self.stepped {
            stepped.run_ready();
        }
        rx.recv().map_err(|_| stopped())?;
        Ok(self.pipeline())
    }
}

/// A group handed over: its entries, its answers, and who waits outside a group.
type Group = (Vec<Entry>, Vec<Pending>, Option<mpsc::Sender<Outcome>>);

impl Worker {
    /// Takes `first` and whatever else waits (up to a flush's worth of
    /// groups, or up to a reload), writes the groups as one, answers them,
    /// and then the reload.
    fn handle(&mut self, first: Message) {
        // Under load, writes start at most once per `spacing`: what arrives
        // meanwhile joins the next write instead of paying for one of its own.
        self.spacing.wait();
        let mut groups: Vec<Group> = Vec::new();
        let mut barrier = None;
        let mut next = Some(first);
        while let Some(message) = next.take() {
            match message {
                Message::Group { entries, replies, done } => groups.push((entries, replies, done)),
                Message::Reload(tx) => {
                    barrier = Some(Barrier::Reload(tx));
                    break;
                }
                Message::Stream { after, sink } => {
                    barrier = Some(Barrier::Stream(after, sink));
                    break;
                }
            }
            if groups.len() < GROUPS_PER_FLUSH_MAX {
                next = self.receiver.try_recv().ok();
            }
        }
        if !groups.is_empty() {
            // After a failure nothing is written until the writer has reloaded:
            // those groups were executed on a state the disk does not hold.
            let outcome = if self.failed.load(Ordering::SeqCst) {
                Outcome::NotWritten
            } else {
                let began = Instant::now();
                self.spacing.begin();
                let written = write(&mut *self.storage, &groups);
                // Groups of reads only write nothing and flush nothing.
                if groups.iter().any(|(entries, ..)| !entries.is_empty()) {
                    self.flushes.record(began.elapsed());
                }
                if let (Err(e), Some(health)) = (&written, self.health.get()) {
                    health.journal_failed(&e.to_string());
                }
                match written {
                    Ok(()) => Outcome::Durable,
                    Err(StorageError::OutcomeUnknown(_)) => Outcome::Unknown,
                    Err(_) => Outcome::NotWritten,
                }
            };
            let durable = outcome.is_durable();
            if !durable {
                self.failed.store(true, Ordering::SeqCst);
            }
            for (entries, replies, done) in groups {
                // A group that wrote nothing is unchanged whatever became of the commit.
                let outcome = match outcome {
                    Outcome::Unknown if entries.is_empty() => Outcome::NotWritten,
                    outcome => outcome,
                };
                for reply in replies {
                    reply.deliver_as(outcome);
                }
                if let Some(done) = done {
                    let _ = done.send(outcome);
                }
            }
            // Upkeep (the log's catch-up copy) waits for no answer; under
            // load it falls in the spacing before the next write.
            if durable {
                self.storage.after_group();
            }
        }
        match barrier {
            None => {}
            // Everything before it answered: the writer reopens on what is durable.
            Some(Barrier::Reload(tx)) => {
                self.failed.store(false, Ordering::SeqCst);
                let _ = tx.send(());
            }
            Some(Barrier::Stream(after, sink)) => {
                let mut open = true;
                let read = self.storage.each_after(after, &mut |entry| {
                    open = sink.send(Ok(entry));
                    open
                });
                if let (Err(e), true) = (read, open) {
                    sink.send(Err(e));
                }
            }
        }
    }
}

/// Writes the groups' entries and makes them durable together, or none of
/// them: if an append fails (a full disk), the appends before it are taken
/// back, so that every request of the lot, answered as failed, changed nothing.
fn write(storage: &mut dyn Storage, groups: &[Group]) -> Result<(), StorageError> {
    storage.begin_group()?;
    for (entries, ..) in groups {
        if !entries.is_empty() {
            if let Err(e) = storage.append(entries) {
                if let Err(not_back) = storage.abort_group() {
                    tracing::error!("a failed group's appends could not be taken back: {not_back}");
                }
                return Err(e);
            }
        }
    }
    storage.end_group()
}

#[cfg(test)]
mod tests;
