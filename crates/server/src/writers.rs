//! The server's writers. Each table is an actor: one thread owns it, runs
//! its requests one at a time, and is the only writer of its state. The cage
//! (users, cash, new tables, the ledger and its journal) is an actor of its
//! own. A table checks and executes a request by itself and sends the cage
//! only its journal entry; the cage writes the entries of every table into
//! the one hash chain, in the order they arrive, and hands each group to the
//! storage committer. Every answer, a table's read included, goes to the
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

use croupier_ledger::{Applied, Transfer};

use crate::api::{Actor, ApiError, EventView, Request};
use crate::casino::{Cage, Casino, Commit, SharedDirectory, TableSlot};
use crate::committer::{Committer, Pipeline, Reply};

/// Messages queued for the cage, and for each table, before senders wait.
pub const QUEUE_JOBS_MAX: usize = 65_536;
/// Messages the cage runs together before one hand-over to the committer.
pub const GROUP_JOBS_MAX: usize = 4096;

/// Work for the cage's thread; it returns the answer to give once durable.
pub type CageJob = Box<dyn FnOnce(&mut Cage<Pipeline>) -> Reply + Send>;
/// Work for a table's thread; likewise.
pub type TableJob = Box<dyn FnOnce(&mut TableWriter) -> Reply + Send>;

pub enum ToCage {
    Job(CageJob),
    /// A table's entry. With `verdict`, the table waits for the transfers'
    /// fates; without, it has applied the request already.
    Commit {
        epoch: u64,
        at_ms: u64,
        transfers: Vec<Transfer>,
        text: String,
        verdict: Option<mpsc::Sender<Result<Vec<Applied>, ApiError>>>,
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
}

struct CageLink<'a> {
    cage: &'a mpsc::SyncSender<ToCage>,
    epoch: u64,
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
        if !verdict {
            let message = ToCage::Commit {
                epoch,
                at_ms,
                transfers,
                text,
                verdict: None,
            };
            self.cage.send(message).map_err(|_| stopped())?;
            return Ok(Vec::new());
        }
        let (tx, rx) = mpsc::channel();
        let message = ToCage::Commit {
            epoch,
            at_ms,
            transfers,
            text,
            verdict: Some(tx),
        };
        self.cage.send(message).map_err(|_| stopped())?;
        rx.recv().map_err(|_| stopped())?
    }
}

impl TableWriter {
    pub fn slot(&self) -> &TableSlot {
        &self.slot
    }

    /// Executes a request at this table (see [`TableSlot::execute`]).
    pub fn execute(&mut self, at_ms: u64, actor: &Actor, request: Request) -> Result<Vec<EventView>, ApiError> {
        let mut cage = CageLink {
            cage: &self.cage,
            epoch: self.epoch,
        };
        self.slot.execute(&self.directory, at_ms, actor, request, &mut cage)
    }
}

#[derive(Clone)]
struct TableHandle {
    jobs: mpsc::SyncSender<TableJob>,
    replacement: Replacement,
}

/// The tables' writers, by table id.
#[derive(Clone, Default)]
pub struct Tables(Arc<RwLock<BTreeMap<String, TableHandle>>>);

impl Tables {
    /// The queue of a table's writer.
    pub fn jobs(&self, table: &str) -> Option<mpsc::SyncSender<TableJob>> {
        self.0
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(table)
            .map(|h| h.jobs.clone())
    }

    pub fn ids(&self) -> Vec<String> {
        self.0
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .keys()
            .cloned()
            .collect()
    }

    /// Starts a table's writer.
    fn spawn(&self, slot: TableSlot, epoch: u64, directory: SharedDirectory, cage: mpsc::SyncSender<ToCage>) {
        let id = slot.id.clone();
        let (jobs, queue) = mpsc::sync_channel::<TableJob>(QUEUE_JOBS_MAX);
        let replacement = Replacement::default();
        let writer = TableWriter {
            slot,
            epoch,
            directory,
            cage,
            replacement: replacement.clone(),
        };
        let spawned = std::thread::Builder::new()
            .name(format!("table-{id}"))
            .spawn(move || table_loop(writer, queue));
        match spawned {
            Ok(_) => {
                let handle = TableHandle { jobs, replacement };
                self.0.write().unwrap_or_else(|p| p.into_inner()).insert(id, handle);
            }
            // Without its writer the table answers nothing: its callers hear that the casino stopped.
            Err(e) => eprintln!("croupier: cannot start the writer of table {id}: {e}"),
        }
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
            let mut map = self.0.write().unwrap_or_else(|p| p.into_inner());
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

fn table_loop(mut writer: TableWriter, queue: mpsc::Receiver<TableJob>) {
    while let Ok(job) = queue.recv() {
        let replaced = writer.replacement.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some((slot, epoch)) = replaced {
            writer.slot = slot;
            writer.epoch = epoch;
        }
        let reply = job(&mut writer);
        let answer = ToCage::Answer {
            epoch: writer.epoch,
            reply,
        };
        if let Err(mpsc::SendError(ToCage::Answer { reply, .. })) = writer.cage.send(answer) {
            reply(false);
            return;
        }
    }
}

/// Starts the writers: the cage's thread and one thread per table.
pub fn start(casino: Casino<Pipeline>, committer: Committer) -> Result<(mpsc::SyncSender<ToCage>, Tables), String> {
    let (cage, slots) = casino.into_parts();
    let (sender, queue) = mpsc::sync_channel::<ToCage>(QUEUE_JOBS_MAX);
    let tables = Tables::default();
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
    while let Ok(first) = queue.recv() {
        if committer.failed() || reload {
            // What ran in memory may not be on disk: start again from the disk.
            reload = false;
            epoch += 1;
            match committer
                .reload()
                .map_err(|e| e.to_string())
                .and_then(|pipeline| Casino::open(pipeline, crate::http::now_ms()).map_err(|e| e.to_string()))
            {
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
                    if let Some(verdict) = verdict {
                        let _ = verdict.send(Err(stale()));
                    }
                }
                ToCage::Commit {
                    at_ms,
                    transfers,
                    text,
                    verdict,
                    ..
                } => {
                    let waits = verdict.is_some();
                    let answer = cage.commit(at_ms, transfers, text, waits);
                    match (verdict, answer) {
                        (Some(verdict), answer) => {
                            let _ = verdict.send(answer);
                        }
                        (None, Ok(_)) => {}
                        (None, Err(e)) => {
                            // The table counted on this entry: its state is not the ledger's.
                            eprintln!("croupier: the ledger refused a table's entry ({e}); reloading from the journal");
                            epoch += 1;
                            reload = true;
                        }
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
