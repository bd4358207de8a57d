//! The server's writers. Each table is an actor: one task owns it, runs
//! its requests one at a time, and is the only writer of its state. A table's
//! task runs on the server's runtime beside the sockets, so handing it a bet
//! costs no thread switch; a request that may take long (a spin and its
//! settlement) or waits on the cage steps off the runtime's worker while it
//! runs, so the sockets go on.
//! The cage (users, cash, new tables, the ledger and its journal) is an actor
//! on a thread of its own. A table checks and
//! executes a request by itself and sends the cage only its journal entry;
//! the cage writes the entries of every table into the one hash chain, in the
//! order they arrive, and hands each group to the storage committer. Every answer, a table's read included, goes to the
//! cage after the table's entries and is given once what came before it is
//! durable.
//!
//! A table that has checked a request in full (a bet, a spin and its
//! settlement) goes on without waiting for the cage; a request whose money
//! only the ledger can judge (a buy-in out of a wallet, an id the client
//! chose) waits for the ledger's verdict. If an entry the table counted on
//! is refused after all, or the storage fails, the cage reloads the casino
//! from what is durable and gives each table its state again; until then
//! the work of every table is refused (`epoch` tells old work from new).

use std::collections::BTreeMap;
use std::sync::{mpsc, Arc, Mutex, RwLock};

use croupier_ledger::{Applied, Recorded, Transfer};

use crate::api::{Actor, ApiError, EventView, Request};
use crate::archive::Archiver;
use crate::casino::{checked_entry, Cage, Casino, Commit, Executed, SharedDirectory, TableSlot};
use crate::committer::{Committer, Pipeline, Reply, Spacing};

/// Messages queued for the cage, and for each table, before senders wait.
pub const QUEUE_JOBS_MAX: usize = 65_536;
/// The cage starts a group at most this often. Woken for every message, it
/// slept and woke some 7,000 times a second at 20,000 bets a second, and
/// each table paid a system call to wake it; at this spacing it wakes under
/// 1,000 times. A message at a quiet moment is taken at once. Under load a
/// message waits at most this long more; the journal's writes are spaced
/// wider ([`crate::committer::COMMIT_SPACING_US`]), and an answer waits for
/// its write in any case.
pub const CAGE_SPACING_US: u64 = 1_000;
/// Messages the cage runs together before one hand-over to the committer.
pub const GROUP_JOBS_MAX: usize = 4096;

/// Work for the cage's thread; it returns the answer to give once durable.
pub type CageJob = Box<dyn FnOnce(&mut Cage<Pipeline>) -> Reply + Send>;
/// Work for a table's task; likewise.
pub type TableJob = Box<dyn FnOnce(&mut TableWriter) -> Reply + Send>;

pub enum ToCage {
    Job(CageJob),
    /// A table's entry for a request it has applied already, serialised by
    /// the table; with the answer of the job that wrote it when that was the
    /// job's last entry (one message instead of two for a bet).
    Checked {
        epoch: u64,
        at_ms: u64,
        entry: Recorded,
        answer: Option<Reply>,
    },
    /// A table's entry whose transfers' fates the table waits for.
    Commit {
        epoch: u64,
        at_ms: u64,
        transfers: Vec<Transfer>,
        text: String,
        verdict: mpsc::Sender<Result<Vec<Applied>, ApiError>>,
    },
    /// A table job's answer, given once everything before it is durable.
    Answer {
        epoch: u64,
        reply: Reply,
    },
}

fn stopped() -> ApiError {
    ApiError::new("unavailable", "the casino has stopped")
}

fn stale() -> ApiError {
    ApiError::new(
        "storage",
        "the casino is reloading what is durable after a failure; nothing was changed",
    )
}

/// A table's state as the cage hands it over after a reload.
type Replacement = Arc<Mutex<Option<(TableSlot, u64)>>>;

/// One table's writer: the table, and its way to the cage.
pub struct TableWriter {
    slot: TableSlot,
    epoch: u64,
    directory: SharedDirectory,
    cage: mpsc::SyncSender<ToCage>,
    replacement: Replacement,
    archiver: Archiver,
    /// The running job's last checked entry, held to go to the cage with the job's answer.
    held: Option<(u64, Recorded)>,
}

struct CageLink<'a> {
    cage: &'a mpsc::SyncSender<ToCage>,
    epoch: u64,
    held: &'a mut Option<(u64, Recorded)>,
}

impl CageLink<'_> {
    /// Sends the entry held back, if any, ahead of what comes next.
    fn release(&mut self) -> Result<(), ApiError> {
        match self.held.take() {
            Some((at_ms, entry)) => self
                .cage
                .send(ToCage::Checked {
                    epoch: self.epoch,
                    at_ms,
                    entry,
                    answer: None,
                })
                .map_err(|_| stopped()),
            None => Ok(()),
        }
    }
}

impl Commit for CageLink<'_> {
    fn commit(
        &mut self,
        at_ms: u64,
        transfers: Vec<Transfer>,
        text: String,
        verdict: bool,
    ) -> Result<Vec<Applied>, ApiError> {
        let epoch = self.epoch;
        self.release()?;
        if !verdict {
            *self.held = Some((at_ms, checked_entry(transfers, text)));
            return Ok(Vec::new());
        }
        let (tx, rx) = mpsc::channel();
        let message = ToCage::Commit {
            epoch,
            at_ms,
            transfers,
            text,
            verdict: tx,
        };
        self.cage.send(message).map_err(|_| stopped())?;
        off_worker(|| rx.recv()).map_err(|_| stopped())?
    }
}

/// Runs `f`, which may block or take long, without holding up the other
/// tasks of the runtime's worker it is called on (they move to another
/// thread meanwhile). Outside a multi-thread runtime it just runs `f`.
fn off_worker<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => tokio::task::block_in_place(f),
        _ => f(),
    }
}

/// Gives the calling thread the lowest priority of an ordinary thread, for
/// work that no answer waits on (checkpoints, the recall archive). Lowering
/// one's own priority needs no privilege; if refused, the work runs all the same.
pub fn lower_this_threads_priority() {
    use thread_priority::{
        set_thread_priority_and_policy, thread_native_id, NormalThreadSchedulePolicy, ThreadPriority,
        ThreadSchedulePolicy,
    };
    let _ = set_thread_priority_and_policy(
        thread_native_id(),
        ThreadPriority::Min,
        ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Batch),
    );
}

/// A request that may take long (a spin and its settlement, a void, an
/// annulment, closing the table) or waits on the cage's verdict.
fn long(request: &Request) -> bool {
    !matches!(
        request,
        Request::PlaceBet { .. } | Request::CancelBet { .. } | Request::OpenBetting { .. } | Request::NoMoreBets { .. }
    )
}

impl TableWriter {
    pub fn slot(&self) -> &TableSlot {
        &self.slot
    }

    /// Executes a request at this table (see [`TableSlot::execute`]).
    pub fn execute(&mut self, at_ms: u64, actor: &Actor, request: Request) -> Result<Vec<EventView>, ApiError> {
        self.execute_rendered(at_ms, actor, request).map(|e| e.views)
    }

    /// [`TableWriter::execute`], with each event's text for the streams (see [`TableSlot::execute`]).
    pub fn execute_rendered(&mut self, at_ms: u64, actor: &Actor, request: Request) -> Result<Executed, ApiError> {
        let mut cage = CageLink {
            cage: &self.cage,
            epoch: self.epoch,
            held: &mut self.held,
        };
        let (slot, directory) = (&mut self.slot, &self.directory);
        if long(&request) {
            off_worker(|| slot.execute(directory, at_ms, actor, request, &mut cage))
        } else {
            slot.execute(directory, at_ms, actor, request, &mut cage)
        }
    }
}

#[derive(Clone)]
struct TableHandle {
    jobs: tokio::sync::mpsc::Sender<TableJob>,
    replacement: Replacement,
}

/// The tables' writers, by table id, and the runtime their tasks run on.
#[derive(Clone)]
pub struct Tables {
    map: Arc<RwLock<BTreeMap<String, TableHandle>>>,
    runtime: tokio::runtime::Handle,
    archiver: Archiver,
}

impl Tables {
    /// The queue of a table's writer.
    pub fn jobs(&self, table: &str) -> Option<tokio::sync::mpsc::Sender<TableJob>> {
        self.map
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(table)
            .map(|h| h.jobs.clone())
    }

    pub fn ids(&self) -> Vec<String> {
        self.map
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .keys()
            .cloned()
            .collect()
    }

    /// Starts a table's writer.
    fn spawn(&self, mut slot: TableSlot, epoch: u64, directory: SharedDirectory, cage: mpsc::SyncSender<ToCage>) {
        slot.keep_finished();
        let id = slot.id.clone();
        let (jobs, queue) = tokio::sync::mpsc::channel::<TableJob>(QUEUE_JOBS_MAX);
        let replacement = Replacement::default();
        let writer = TableWriter {
            slot,
            epoch,
            directory,
            cage,
            replacement: replacement.clone(),
            archiver: self.archiver.clone(),
            held: None,
        };
        self.runtime.spawn(table_loop(writer, queue));
        let handle = TableHandle { jobs, replacement };
        self.map.write().unwrap_or_else(|p| p.into_inner()).insert(id, handle);
    }

    /// After a reload: each table takes its durable state before its next job;
    /// a table the disk does not hold stops.
    fn replace_all(
        &self,
        slots: Vec<TableSlot>,
        epoch: u64,
        directory: &SharedDirectory,
        cage: &mpsc::SyncSender<ToCage>,
    ) {
        let mut fresh = Vec::new();
        {
            let mut map = self.map.write().unwrap_or_else(|p| p.into_inner());
            let ids: std::collections::BTreeSet<String> = slots.iter().map(|s| s.id.clone()).collect();
            map.retain(|id, _| ids.contains(id));
            for slot in slots {
                match map.get(&slot.id) {
                    Some(handle) => {
                        *handle.replacement.lock().unwrap_or_else(|p| p.into_inner()) = Some((slot, epoch));
                    }
                    None => fresh.push(slot),
                }
            }
        }
        for slot in fresh {
            self.spawn(slot, epoch, directory.clone(), cage.clone());
        }
    }
}

async fn table_loop(mut writer: TableWriter, mut queue: tokio::sync::mpsc::Receiver<TableJob>) {
    while let Some(job) = queue.recv().await {
        let replaced = writer.replacement.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some((slot, epoch)) = replaced {
            writer.slot = slot;
            writer.slot.keep_finished();
            writer.epoch = epoch;
        }
        let reply = job(&mut writer);
        // Rounds the job finished go to the archive with its answer: once durable.
        let finished = writer.slot.take_finished();
        let reply: Reply = if finished.is_empty() {
            reply
        } else {
            let archiver = writer.archiver.clone();
            Box::new(move |durable| {
                if durable {
                    archiver.send(finished);
                }
                reply(durable);
            })
        };
        let epoch = writer.epoch;
        let answer = match writer.held.take() {
            Some((at_ms, entry)) => ToCage::Checked {
                epoch,
                at_ms,
                entry,
                answer: Some(reply),
            },
            None => ToCage::Answer { epoch, reply },
        };
        // A full queue (the cage far behind) holds the table up, off the worker.
        let undelivered = match writer.cage.try_send(answer) {
            Ok(()) => None,
            Err(mpsc::TrySendError::Full(answer)) => off_worker(|| writer.cage.send(answer).err().map(|e| e.0)),
            Err(mpsc::TrySendError::Disconnected(answer)) => Some(answer),
        };
        match undelivered {
            Some(ToCage::Answer { reply, .. })
            | Some(ToCage::Checked {
                answer: Some(reply), ..
            }) => {
                reply(false);
                return;
            }
            Some(_) => return,
            None => {}
        }
    }
}

/// Starts the writers: the cage's thread, and a task per table on `runtime`
/// (a multi-thread runtime, so that a long request can step off its worker).
pub fn start(
    casino: Casino<Pipeline>,
    committer: Committer,
    runtime: tokio::runtime::Handle,
    archiver: Archiver,
) -> Result<(mpsc::SyncSender<ToCage>, Tables), String> {
    let (cage, slots) = casino.into_parts();
    let (sender, queue) = mpsc::sync_channel::<ToCage>(QUEUE_JOBS_MAX);
    let tables = Tables {
        map: Arc::default(),
        runtime,
        archiver,
    };
    for slot in slots {
        tables.spawn(slot, 0, cage.directory().clone(), sender.clone());
    }
    let (own, routes) = (sender.clone(), tables.clone());
    std::thread::Builder::new()
        .name("cage".into())
        .spawn(move || cage_loop(cage, queue, committer, routes, own))
        .map_err(|e| e.to_string())?;
    Ok((sender, tables))
}

/// The cage's writer: takes whatever is waiting (its own jobs, the tables'
/// entries and answers), runs it as one storage group, and hands the group to
/// the committer, which answers it once durable; meanwhile it runs the next.
fn cage_loop(
    mut cage: Cage<Pipeline>,
    queue: mpsc::Receiver<ToCage>,
    committer: Committer,
    tables: Tables,
    sender: mpsc::SyncSender<ToCage>,
) {
    let mut epoch = 0u64;
    let mut reload = false;
    let mut spacing = Spacing::new(std::time::Duration::from_micros(CAGE_SPACING_US));
    loop {
        // Under load the cage takes what waits once per spacing instead of
        // being woken for each message: a table's send then finds it awake
        // or asleep on a timer, and never pays to wake it.
        spacing.wait();
        let Ok(first) = queue.recv() else { break };
        spacing.begin();
        if committer.failed() || reload {
            // What ran in memory may not be on disk: start again from the disk.
            reload = false;
            epoch += 1;
            match committer.reload().map_err(|e| e.to_string()).and_then(|pipeline| {
                // Rounds that became durable before the failure, and were not archived yet, are now.
                Casino::open_archiving(pipeline, crate::http::now_ms(), &mut |r| tables.archiver.offer(r))
                    .map_err(|e| e.to_string())
            }) {
                Ok((casino, _)) => {
                    let (reopened, slots) = casino.into_parts();
                    cage = reopened;
                    tables.replace_all(slots, epoch, cage.directory(), &sender);
                }
                Err(e) => {
                    // Dropping the jobs unanswered tells their callers the casino has stopped.
                    eprintln!("croupier: storage failed and the journal cannot be reopened: {e}; stopping");
                    return;
                }
            }
        }
        let mut group = vec![first];
        while group.len() < GROUP_JOBS_MAX {
            match queue.try_recv() {
                Ok(message) => group.push(message),
                Err(_) => break,
            }
        }
        let _ = cage.begin_group();
        let mut replies: Vec<Reply> = Vec::with_capacity(group.len());
        for message in group {
            match message {
                ToCage::Job(job) => {
                    replies.push(job(&mut cage));
                    for slot in cage.take_opened() {
                        tables.spawn(slot, epoch, cage.directory().clone(), sender.clone());
                    }
                }
                ToCage::Commit { epoch: e, verdict, .. } if e != epoch => {
                    let _ = verdict.send(Err(stale()));
                }
                ToCage::Commit {
                    at_ms,
                    transfers,
                    text,
                    verdict,
                    ..
                } => {
                    let _ = verdict.send(cage.commit(at_ms, transfers, text, true));
                }
                ToCage::Checked {
                    epoch: e,
                    at_ms,
                    entry,
                    answer,
                } => {
                    if e == epoch {
                        if let Err(e) = cage.write_checked(at_ms, entry) {
                            // The table counted on this entry: its state is not the ledger's.
                            eprintln!("croupier: the ledger refused a table's entry ({e}); reloading from the journal");
                            epoch += 1;
                            reload = true;
                        }
                    }
                    // Answered as an answer on its own would be, after its entry.
                    match answer {
                        Some(reply) if e == epoch => replies.push(reply),
                        Some(reply) => reply(false),
                        None => {}
                    }
                }
                ToCage::Answer { epoch: e, reply } => {
                    if e == epoch {
                        replies.push(reply);
                    } else {
                        reply(false);
                    }
                }
            }
        }
        committer.attach(replies);
        if cage.end_group().is_err() {
            // The committer has stopped: its answers went out as failures.
            eprintln!("croupier: the storage committer has stopped; stopping");
            return;
        }
    }
}
