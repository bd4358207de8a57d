//! Everything that runs: the clock, the writers (a task per table, a
//! thread for the cage), the committer, the recall archive, the automated
//! wheels, and the [`Floor`] the edge talks to. Nothing here knows HTTP.
//!
//! | who | runs on | owns | receives | hands work to |
//! |---|---|---|---|---|
//! | a table's writer ([`tables`]) | a task on the async runtime, stepping off its worker for long jobs | the table: its round, colours, recall, the balances of its own accounts | [`tables::TableMsg`]: requests, draws, deadline closings, reads | the cage: its entries and answers ([`cage::CageMsg`]) |
//! | the cage ([`cage`]) | thread `cage` | the ledger, the directory of users, the list of tables | [`cage::CageMsg`]: its own requests and reads; the tables' entries, verdicts and answers | the committer: each group's entries and answers |
//! | the committer ([`committer`]) | thread `commit` | the journal's storage | groups of entries, with the answers waiting on them | the answers' callers, once durable ([`reply::Pending`]) |
//! | the checkpointer | thread `checkpoint`, low priority | a second SQLite connection | nothing: a timer | nobody (the committer catches up after it) |
//! | the checkpoint writer ([`checkpoints`]) | thread `checkpoints`, low priority | a replay of the journal, a read-only SQLite connection, `checkpoints/` | nothing: a timer | the cage: each checkpoint to bind into the journal |
//! | the archiver ([`archive`]) | thread `archive`, low priority | `recall.db`, and the rounds its disk refused | finished rounds, once durable, through a bounded queue; a timer while rounds wait | nobody |
//! | the head keeper ([`keys`]) | thread `journal-head`, low priority | a read-only SQLite connection; the head file beside the secret | nothing: a timer (a last copy at the stop) | nobody |
//! | a wheel's follower ([`floor::wheel`]) | thread `wheel-T` per wheel table | the connection to the wheel | the wheel's games | the floor: no more bets, the spin, the next round |
//! | a deadline ([`floor`]) | a task per round that opens betting, ended early when its betting closes or the next round opens (at most one a table) | nothing | a timer | the table: no more bets, if still betting |
//!
//! A failed write of the journal pauses the casino ([`health`]): the
//! committer reports it, the edge refuses what needs the journal, and the
//! cage, woken once a second, reloads what is durable as soon as the disk
//! has room, which ends the pause.
//!
//! Time comes from one [`Clock`]; randomness (the RNG's draws, salts,
//! tokens) is drawn here, never in the casino.

pub mod archive;
pub mod bindings;
pub mod cage;
pub mod cage_msg;
pub mod checkpoints;
pub mod clock;
pub mod committer;
pub mod floor;
pub mod health;
pub mod integrity;
pub mod journal_checks;
pub mod keys;
pub mod metrics;
pub mod passwords;
pub mod reply;
pub mod setup;
pub mod stepped;
pub mod tables;
pub mod waiting;

use std::collections::HashMap;
use std::sync::{mpsc, Arc, Mutex};

pub use clock::{Clock, SimClock, WallClock};
pub use floor::Floor;
pub use reply::{Answer, BetAnswer, Pending, Publish, ReplyTo, Unseen};

use archive::{Archive, Archiver};
use cage::{CageMsg, CAGE_QUEUE_MAX};
use committer::{Committer, Pipeline};
use metrics::Metrics;
use passwords::Hashing;
use tables::Tables;

use crate::casino::Casino;

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

/// What the writers need besides the casino.
pub struct Parts {
    pub committer: Committer,
    pub archive: Arc<Archive>,
    pub archiver: Archiver,
    pub clock: Arc<dyn Clock>,
    /// Where durable events are shown.
    pub shown: Arc<dyn Publish>,
    /// The async runtime the tables' tasks run on: a multi-thread one, so
    /// that a long request can step off its worker.
    pub runtime: tokio::runtime::Handle,
    /// Where the casino's checkpoints are, for a reload after a pause (none: it replays the journal).
    pub checkpoints: Option<checkpoints::Store>,
}

/// Starts the writers (the cage's thread, a task per table) and gives the floor.
pub fn start(casino: Casino<Pipeline>, parts: Parts) -> Result<Floor, String> {
    let Parts {
        committer,
        archive,
        archiver,
        clock,
        shown,
        runtime,
        checkpoints,
    } = parts;
    let (cage, slots) = casino.into_parts();
    let (sender, queue) = mpsc::sync_channel::<CageMsg>(CAGE_QUEUE_MAX);
    let tables = Tables::new(runtime.clone(), archiver, clock.clone());
    for slot in slots {
        tables.spawn(slot, 0, cage.directory().clone(), sender.clone());
    }
    let metrics = Arc::new(Metrics::new(&committer.flush_times()));
    let health = health::Health::new(clock.clone());
    committer.report_to(health.clone());
    archive.report_to(health.clone());
    let mut writer = cage::CageWriter::new(cage, committer, tables.clone(), sender.clone(), clock.clone());
    writer.reload_from(checkpoints);
    let operator = writer.operator();
    let gaming_day = writer.gaming_day();
    std::thread::Builder::new()
        .name("cage".into())
        .spawn(move || writer.run(queue))
        .map_err(|e| e.to_string())?;
    Ok(Floor {
        clock,
        cage: sender,
        tables,
        shown,
        metrics,
        wheels: Arc::new(Mutex::new(HashMap::new())),
        deadlines: Arc::new(Mutex::new(HashMap::new())),
        hashing: Hashing::new(std::thread::available_parallelism().map_or(2, |n| n.get())),
        archive,
        runtime,
        operator,
        gaming_day,
        health,
    })
}
