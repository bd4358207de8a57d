//! The server's writers run by hand: the cage, every table and the
//! committer, each a step a simulation takes when its seed says, all on the
//! simulation's one thread. The code that runs is the server's own (the
//! same messages, epochs, reloads and answers); only the threads and tasks
//! that would run it are gone. A seed then decides every interleaving, and
//! a failing seed replays the failure (in the spirit of TigerBeetle's VOPR).

use std::sync::{mpsc, Arc, Mutex};

use super::archive::Archiver;
use super::cage::{CageMsg, CageWriter, Stopped, GROUP_JOBS_MAX};
use super::clock::Clock;
use super::committer::{self, Committer, Pipeline};
use super::tables::{TableMsg, Tables};
use crate::casino::Casino;

/// Messages a stepped cage's queue holds: nothing drains it while a table
/// sends, so it never makes a sender wait.
const STEPPED_QUEUE_MAX: usize = 16_384;

type CageAndQueue = (CageWriter, mpsc::Receiver<CageMsg>);

pub struct SteppedServer {
    cage: Arc<Mutex<CageAndQueue>>,
    sender: mpsc::SyncSender<CageMsg>,
    tables: Tables,
    committer: committer::Stepped,
}

/// Runs every message waiting for the cage, a group at a time; whether there was any.
fn run_cage(cage: &Mutex<CageAndQueue>) -> Result<bool, Stopped> {
    let mut held = cage.lock().unwrap_or_else(|p| p.into_inner());
    let (writer, queue) = &mut *held;
    let mut ran = false;
    loop {
        let mut group = Vec::new();
        while group.len() < GROUP_JOBS_MAX {
            match queue.try_recv() {
                Ok(message) => group.push(message),
                Err(_) => break,
            }
        }
        if group.is_empty() {
            return Ok(ran);
        }
        ran = true;
        writer.run_group(group)?;
    }
}

/// Starts a server's writers on `casino` without a thread or a task: they
/// run when stepped. `committer` must be [`Committer::stepped`].
pub fn start_stepped(
    casino: Casino<Pipeline>,
    committer: Committer,
    archiver: Archiver,
    clock: Arc<dyn Clock>,
) -> Result<SteppedServer, String> {
    let stepper = committer
        .stepper()
        .cloned()
        .ok_or("a stepped server needs a stepped committer")?;
    let (cage, slots) = casino.into_parts();
    let (sender, queue) = mpsc::sync_channel::<CageMsg>(STEPPED_QUEUE_MAX);
    let tables = Tables::stepped(archiver, clock.clone());
    let directory = cage.directory().clone();
    let writer = CageWriter::new(cage, committer, tables.clone(), sender.clone(), clock);
    let cage = Arc::new(Mutex::new((writer, queue)));
    let driven = cage.clone();
    tables.set_drive(Arc::new(move || {
        if let Err(stopped) = run_cage(&driven) {
            tracing::error!("the stepped cage stopped: {stopped:?}");
        }
    }));
    for slot in slots {
        tables.spawn(slot, 0, directory.clone(), sender.clone());
    }
    Ok(SteppedServer {
        cage,
        sender,
        tables,
        committer: stepper,
    })
}

impl SteppedServer {
    /// The tables, by id.
    pub fn table_ids(&self) -> Vec<String> {
        self.tables.ids()
    }

    /// Queues a message for a table; `Err` if there is no such table (the
    /// message is dropped, and whoever waits on its answer hears so).
    pub fn send_table(&self, table: &str, message: TableMsg) -> Result<(), String> {
        let jobs = self.tables.jobs(table).ok_or_else(|| format!("no table {table:?}"))?;
        jobs.try_send(message)
            .map_err(|_| format!("table {table:?} takes no more messages"))
    }

    /// Queues a message for the cage.
    pub fn send_cage(&self, message: CageMsg) {
        let _ = self.sender.send(message);
    }

    /// Runs one message waiting at `table`; whether there was one.
    pub fn step_table(&self, table: &str) -> bool {
        self.tables.step(table)
    }

    /// Runs every message waiting for the cage; whether there was any.
    pub fn step_cage(&self) -> Result<bool, Stopped> {
        run_cage(&self.cage)
    }

    /// Writes every group the cage handed over, and answers them.
    pub fn step_committer(&self) -> bool {
        self.committer.run_ready()
    }

    /// Which reload the writers' work belongs to now (it grows with each failed write).
    pub fn epoch(&self) -> u64 {
        self.cage.lock().unwrap_or_else(|p| p.into_inner()).0.epoch()
    }
}
