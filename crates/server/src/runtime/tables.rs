//! The tables' writers. Each table is an actor: one task owns it, runs its
//! messages one at a time, and is the only writer of its state. A table's
//! task runs on the server's runtime beside the sockets, so handing it a bet
//! costs no thread switch; a request that may take long (a spin and its
//! settlement) or waits on the cage steps off the runtime's worker while it
//! runs, so the sockets go on.
//!
//! A table executes a request by itself and sends the cage only its journal
//! entry. A request it has checked in full (a bet, a spin and its
//! settlement) goes on without waiting for the cage; one whose money only
//! the ledger can judge (a buy-in out of a wallet, an id the client chose)
//! waits for the ledger's verdict. Every answer goes to the cage after the
//! table's entries and is given once what came before it is durable.

use std::collections::BTreeMap;
use std::sync::{mpsc, Arc, Mutex, RwLock};

use croupier_ledger::{Applied, Recorded, StreamEvent, Transfer};

use super::archive::Archiver;
use super::cage_msg::CageMsg;
use super::clock::Clock;
use super::reply::{Answer, Pending, ReplyTo};
use crate::api::{ApiError, ErrorCode};
use crate::casino::reads::{self, TableQuery};
use crate::casino::{checked_entry, Actor, Commit, Executed, Request, SharedDirectory, TableSlot};

/// Messages queued for each table before senders wait.
pub const TABLE_QUEUE_MAX: usize = 65_536;

/// What a table's writer is asked to do.
pub enum TableMsg {
    /// Execute a request at the table.
    Execute {
        actor: Actor,
        request: Request,
        reply: ReplyTo,
    },
    /// The RNG draws the table's outcome, only after no more bets, and the
    /// table settles on it in the same job: nothing runs between the two.
    Draw { actor: Actor, reply: ReplyTo },
    /// Calls no more bets in `round` if its betting is still open: the
    /// deadline passed. The check and the call are one job.
    CloseBetting { round: u64, reply: ReplyTo },
    /// A question about the table.
    Read { query: TableQuery, reply: ReplyTo },
}

/// A table's state as the cage hands it over after a reload, with the epoch it starts.
type Replacement = Arc<Mutex<Option<(TableSlot, u64)>>>;

/// One table's writer: the table, and its way to the cage.
pub struct TableWriter {
    slot: TableSlot,
    epoch: u64,
    directory: SharedDirectory,
    cage: mpsc::SyncSender<CageMsg>,
    replacement: Replacement,
    archiver: Archiver,
    clock: Arc<dyn Clock>,
    /// The running job's last checked entry, held to go to the cage with the job's answer.
    held: Option<(u64, Recorded)>,
    /// Stepped by hand (a simulation): runs the cage, which has no thread,
    /// while the table waits for its verdict.
    drive: Option<Drive>,
}

/// Runs a stepped cage's waiting messages.
pub type Drive = Arc<dyn Fn() + Send + Sync>;

fn stopped() -> ApiError {
    ApiError::stopped()
}

/// The table's way to the cage while it runs a job.
struct CageLink<'a> {
    cage: &'a mpsc::SyncSender<CageMsg>,
    epoch: u64,
    held: &'a mut Option<(u64, Recorded)>,
    drive: Option<&'a Drive>,
}

impl CageLink<'_> {
    /// Sends the entry held back, if any, ahead of what comes next.
    fn release(&mut self) -> Result<(), ApiError> {
        match self.held.take() {
            Some((at_ms, entry)) => self
                .cage
                .send(CageMsg::Checked {
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
        event: StreamEvent,
        verdict: bool,
        claim: Option<crate::casino::table::SaleClaim>,
    ) -> Result<Vec<Applied>, ApiError> {
        let epoch = self.epoch;
        self.release()?;
        if !verdict {
            *self.held = Some((at_ms, checked_entry(transfers, event)));
            return Ok(Vec::new());
        }
        let (tx, rx) = mpsc::channel();
        let message = CageMsg::Commit {
            epoch,
            at_ms,
            transfers,
            event,
            verdict: tx,
            claim,
        };
        self.cage.send(message).map_err(|_| stopped())?;
        if let Some(drive) = self.drive {
            drive();
        }
        off_worker(|| rx.recv()).map_err(|_| stopped())?
    }
}

/// Runs `f`, which may block or take long, without holding up the other
/// tasks of the runtime's worker it is called on (they move to another
/// thread meanwhile). Outside a multi-thread runtime it just runs `f`.
pub(super) fn off_worker<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => tokio::task::block_in_place(f),
        _ => f(),
    }
}

/// The words a fresh generator gives `draw`, each kept for the journal.
fn recorded(
    draw: impl FnOnce(&mut croupier_rng::bonus_draws::Recording) -> Result<(), croupier_rng::RngError>,
) -> Result<Vec<u32>, ApiError> {
    let mut rng = croupier_rng::CasinoRng::from_os().map_err(ApiError::internal)?;
    let mut words = croupier_rng::bonus_draws::Recording::new(&mut rng);
    draw(&mut words).map_err(ApiError::internal)?;
    Ok(words.words)
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
    /// Executes a request at this table. At a bonus table the server's RNG
    /// draws the round's bonus numbers as soon as betting closes (Maryland
    /// ch.3 F(16), (18)), and the bonus wheel's symbols as a result comes.
    fn execute(&mut self, actor: &Actor, request: Request) -> Result<Executed, ApiError> {
        let result_comes = matches!(request, Request::Spin { .. } | Request::WheelGame { .. });
        let mut done = Executed::default();
        // A draw that failed when betting closed is drawn before the result.
        if result_comes && self.slot.bonus_draw_due() {
            done.extend(self.draw_bonus()?);
        }
        let request = if result_comes {
            self.with_bonus_words(request)?
        } else {
            request
        };
        done.extend(self.execute_one(actor, request)?);
        if self.slot.bonus_draw_due() {
            match self.draw_bonus() {
                Ok(drawn) => done.extend(drawn),
                // The round waits: its spin draws first (above).
                Err(e) => tracing::error!(table = %self.slot.id, "the bonus draw failed: {}", e.message),
            }
        }
        Ok(done)
    }

    /// The round's bonus numbers, from the RNG, with the words they came from.
    fn draw_bonus(&mut self) -> Result<Executed, ApiError> {
        let Some(bonus) = self.slot.bonus() else {
            return Ok(Executed::default());
        };
        let wheel = self.slot.table.config().wheel;
        let words = recorded(|words| croupier_rng::bonus_draws::draw(words, bonus, wheel).map(drop))?;
        let request = Request::DrawBonus {
            table: self.slot.id.clone(),
            words,
        };
        self.execute_one(&Actor::system(), request)
    }

    /// The words of the bonus wheel's symbol for each Bonus Spin Xtreme
    /// wager of the round, drawn as its result comes.
    fn bonus_words(&self) -> Result<Vec<u32>, ApiError> {
        let wagers = self.slot.bonus_symbols_due();
        let Some(bsx) = self.slot.table.bsx().filter(|_| wagers > 0) else {
            return Ok(Vec::new());
        };
        recorded(|words| croupier_rng::bonus_draws::symbols(words, bsx, wagers).map(drop))
    }

    fn with_bonus_words(&self, request: Request) -> Result<Request, ApiError> {
        Ok(match request {
            Request::Spin { table, spin, .. } => Request::Spin {
                table,
                spin,
                bonus_words: self.bonus_words()?,
            },
            Request::WheelGame {
                table, game, frames, ..
            } => Request::WheelGame {
                table,
                game,
                frames,
                bonus_words: self.bonus_words()?,
            },
            other => other,
        })
    }

    /// Executes one request at this table (see [`TableSlot::execute`]).
    fn execute_one(&mut self, actor: &Actor, request: Request) -> Result<Executed, ApiError> {
        let at_ms = self.clock.now_ms();
        let mut cage = CageLink {
            cage: &self.cage,
            epoch: self.epoch,
            held: &mut self.held,
            drive: self.drive.as_ref(),
        };
        let (slot, directory) = (&mut self.slot, &self.directory);
        if long(&request) {
            off_worker(|| slot.execute(directory, at_ms, actor, request, &mut cage))
        } else {
            slot.execute(directory, at_ms, actor, request, &mut cage)
        }
    }

    fn handle(&mut self, message: TableMsg) -> (Answer, ReplyTo) {
        match message {
            TableMsg::Execute { actor, request, reply } => (Answer::Executed(self.execute(&actor, request)), reply),
            TableMsg::Draw { actor, reply } => (Answer::Executed(self.draw(&actor)), reply),
            TableMsg::CloseBetting { round, reply } => {
                let table = &self.slot.table;
                let betting =
                    table.round() == round && matches!(table.phase(), croupier_core::round::Phase::BettingOpen { .. });
                let closed = if betting {
                    let request = Request::NoMoreBets {
                        table: self.slot.id.clone(),
                    };
                    self.execute(&Actor::system(), request)
                } else {
                    Ok(Executed::default())
                };
                (Answer::Executed(closed), reply)
            }
            TableMsg::Read { query, reply } => {
                let read = reads::read(&self.slot, &self.directory.read(), self.clock.now_ms(), query);
                (Answer::Table(Box::new(read)), reply)
            }
        }
    }

    /// The RNG's outcome for this table, drawn only after no more bets, and the table settled on it.
    fn draw(&mut self, actor: &Actor) -> Result<Executed, ApiError> {
        crate::casino::policy::require(actor.role, crate::casino::policy::Act::Spin)?;
        if self.slot.outcome != crate::api::OutcomeSource::Rng {
            return Err(ApiError::new(
                ErrorCode::NotRng,
                "this table's outcomes do not come from the RNG",
            ));
        }
        if self.slot.bonus_draw_due() {
            let mut done = self.draw_bonus()?;
            done.extend(self.draw(actor)?);
            return Ok(done);
        }
        let mut rng = croupier_rng::CasinoRng::from_os().map_err(ApiError::internal)?;
        let (report, word) = croupier_rng::rng_draw(&mut rng, &self.slot.table)
            .map_err(|e| ApiError::new(ErrorCode::NotSpinning, e.to_string()))?;
        let croupier_core::round::SpinReport::Ball { pocket, .. } = report else {
            return Err(ApiError::internal("the RNG drew a no spin"));
        };
        // The word goes into the journal with the pocket: it gives the pocket again.
        let request = Request::Draw {
            table: self.slot.id.clone(),
            pocket: pocket.label().to_string(),
            word,
            bonus_words: self.bonus_words()?,
        };
        self.execute_one(actor, request)
    }
}

#[derive(Clone)]
struct TableHandle {
    jobs: tokio::sync::mpsc::Sender<TableMsg>,
    replacement: Replacement,
}

/// A table's writer and its queue, waiting to be stepped by hand.
type Parked = (TableWriter, tokio::sync::mpsc::Receiver<TableMsg>);

/// The tables' writers, by table id, and the runtime their tasks run on.
#[derive(Clone)]
pub struct Tables {
    map: Arc<RwLock<BTreeMap<String, TableHandle>>>,
    /// Where the writers run: a task each on the runtime, or parked to be
    /// stepped by hand (a simulation).
    runs: Runs,
    archiver: Archiver,
    clock: Arc<dyn Clock>,
}

#[derive(Clone)]
enum Runs {
    Tasks(tokio::runtime::Handle),
    Stepped {
        parked: Arc<Mutex<BTreeMap<String, Parked>>>,
        drive: Arc<std::sync::OnceLock<Drive>>,
    },
}

impl Tables {
    pub(super) fn new(runtime: tokio::runtime::Handle, archiver: Archiver, clock: Arc<dyn Clock>) -> Tables {
        Tables {
            map: Arc::default(),
            runs: Runs::Tasks(runtime),
            archiver,
            clock,
        }
    }

    /// Tables whose writers run only when [`Tables::step`] says.
    pub(super) fn stepped(archiver: Archiver, clock: Arc<dyn Clock>) -> Tables {
        Tables {
            map: Arc::default(),
            runs: Runs::Stepped {
                parked: Arc::default(),
                drive: Arc::default(),
            },
            archiver,
            clock,
        }
    }

    /// How a stepped table runs the cage while it waits for a verdict.
    pub(super) fn set_drive(&self, run_cage: Drive) {
        if let Runs::Stepped { drive, .. } = &self.runs {
            let _ = drive.set(run_cage);
        }
    }

    /// Runs one message waiting at a stepped table; whether there was one.
    pub fn step(&self, table: &str) -> bool {
        let Runs::Stepped { parked, .. } = &self.runs else {
            return false;
        };
        // The writer leaves the map while it runs: the cage, run meanwhile for
        // a verdict, may add tables to it.
        let taken = parked.lock().unwrap_or_else(|p| p.into_inner()).remove(table);
        let Some((mut writer, mut queue)) = taken else {
            return false;
        };
        let ran = match queue.try_recv() {
            Ok(message) => {
                run_one(&mut writer, message);
                true
            }
            Err(_) => false,
        };
        parked
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(table.to_string())
            .or_insert((writer, queue));
        ran
    }

    pub(super) fn archiver(&self) -> &Archiver {
        &self.archiver
    }

    /// The queue of a table's writer.
    pub fn jobs(&self, table: &str) -> Option<tokio::sync::mpsc::Sender<TableMsg>> {
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
    pub(super) fn spawn(
        &self,
        mut slot: TableSlot,
        epoch: u64,
        directory: SharedDirectory,
        cage: mpsc::SyncSender<CageMsg>,
    ) {
        slot.keep_finished();
        let id = slot.id.clone();
        let (jobs, queue) = tokio::sync::mpsc::channel::<TableMsg>(TABLE_QUEUE_MAX);
        let replacement = Replacement::default();
        let mut writer = TableWriter {
            slot,
            epoch,
            directory,
            cage,
            replacement: replacement.clone(),
            archiver: self.archiver.clone(),
            clock: self.clock.clone(),
            held: None,
            drive: None,
        };
        match &self.runs {
            Runs::Tasks(runtime) => {
                runtime.spawn(table_loop(writer, queue));
            }
            Runs::Stepped { parked, drive } => {
                writer.drive = drive.get().cloned();
                parked
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(id.clone(), (writer, queue));
            }
        }
        let handle = TableHandle { jobs, replacement };
        self.map.write().unwrap_or_else(|p| p.into_inner()).insert(id, handle);
    }

    /// After a reload: each table takes its durable state before its next job;
    /// a table the disk does not hold stops.
    pub(super) fn replace_all(
        &self,
        slots: Vec<TableSlot>,
        epoch: u64,
        directory: &SharedDirectory,
        cage: &mpsc::SyncSender<CageMsg>,
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

async fn table_loop(mut writer: TableWriter, mut queue: tokio::sync::mpsc::Receiver<TableMsg>) {
    while let Some(message) = queue.recv().await {
        if !run_one(&mut writer, message) {
            return;
        }
    }
}

/// Runs one message at a table and hands its entry and answer to the cage;
/// false once the cage has stopped.
fn run_one(writer: &mut TableWriter, message: TableMsg) -> bool {
    let replaced = writer.replacement.lock().unwrap_or_else(|p| p.into_inner()).take();
    if let Some((slot, epoch)) = replaced {
        writer.slot = slot;
        writer.slot.keep_finished();
        writer.epoch = epoch;
    }
    let (answer, to) = writer.handle(message);
    let epoch = writer.epoch;
    // Rounds the job finished go to the archive once durable, ahead of its answer.
    let finished = writer.slot.take_finished();
    if !finished.is_empty() {
        let archive = Pending::Archive {
            rounds: finished,
            archiver: writer.archiver.clone(),
        };
        if send(
            writer,
            CageMsg::Answer {
                epoch,
                pending: archive,
            },
        )
        .is_some()
        {
            return false;
        }
    }
    let pending = Pending::Answer { answer, to };
    let last = match writer.held.take() {
        Some((at_ms, entry)) => CageMsg::Checked {
            epoch,
            at_ms,
            entry,
            answer: Some(pending),
        },
        None => CageMsg::Answer { epoch, pending },
    };
    if let Some(unsent) = send(writer, last) {
        if let CageMsg::Answer { pending, .. }
        | CageMsg::Checked {
            answer: Some(pending), ..
        } = unsent
        {
            pending.deliver(false);
        }
        return false;
    }
    true
}

/// Sends a message to the cage; a full queue (the cage far behind) holds
/// the table up, off the worker. The message comes back if the cage has stopped.
fn send(writer: &TableWriter, message: CageMsg) -> Option<CageMsg> {
    match writer.cage.try_send(message) {
        Ok(()) => None,
        Err(mpsc::TrySendError::Full(message)) => off_worker(|| writer.cage.send(message).err().map(|e| e.0)),
        Err(mpsc::TrySendError::Disconnected(message)) => Some(message),
    }
}
