//! The cage's writer: a thread of its own that owns the cage (users, cash,
//! new tables, the ledger and its journal). It takes whatever is waiting
//! (its own requests, the tables' entries and answers), runs it as one
//! storage group, and hands the group to the committer, which answers it
//! once durable; meanwhile it runs the next. It writes the entries of every
//! table into the one hash chain in the order they arrive.
//!
//! If an entry a table counted on is refused after all, or the storage
//! fails, the cage reloads the casino from what is durable and gives each
//! table its state again; until then the work of every table is refused
//! (`epoch` tells old work from new).

use std::sync::{mpsc, Arc};

pub use super::cage_msg::CageMsg;
use super::clock::Clock;
use super::committer::{Committer, Pipeline, Spacing};
use super::reply::{Answer, Pending};
use super::tables::Tables;
use crate::api::{ApiError, ErrorCode};
use crate::casino::gaming_day::GamingDay;
use crate::casino::{Cage, Commit, Request};

/// Messages queued for the cage before senders wait.
pub const CAGE_QUEUE_MAX: usize = 65_536;
/// The cage starts a group at most this often. Woken for every message, it
/// slept and woke some 7,000 times a second at 20,000 bets a second, and
/// each table paid a system call to wake it; at this spacing it wakes under
/// 1,000 times. A message at a quiet moment is taken at once. Under load a
/// message waits at most this long more; the journal's writes are spaced
/// wider ([`super::committer::COMMIT_SPACING_US`]), and an answer waits for
/// its write in any case.
pub const CAGE_SPACING_US: u64 = 1_000;
/// Messages the cage runs together before one hand-over to the committer.
pub const GROUP_JOBS_MAX: usize = 4096;

fn stale() -> ApiError {
    ApiError::new(
        ErrorCode::Storage,
        "the casino is paused: its journal could not be written, and it is reloading what is durable; \
         nothing was changed, and it resumes by itself once the journal takes writes",
    )
}

/// The cage's writer (see the module's documentation): the cage, and what it
/// needs to hand work on. Its thread runs [`CageWriter::run`]; a simulation
/// steps it by hand with [`CageWriter::run_group`].
pub struct CageWriter {
    cage: Cage<Pipeline>,
    committer: Committer,
    tables: Tables,
    sender: mpsc::SyncSender<CageMsg>,
    clock: Arc<dyn Clock>,
    /// Which reload the tables' work belongs to: work from before the last
    /// reload ran on a state the disk does not hold.
    epoch: u64,
    /// A table's entry was refused, or a reload failed: reload before the next group.
    reload: bool,
    /// When the last reload was tried.
    last_reload: Option<u64>,
    /// The operator's name as the cage holds it, published in the cage's
    /// own order for reads that never queue here (the public table list).
    operator: Arc<arc_swap::ArcSwapOption<String>>,
    /// The casino's gaming day as the cage holds it, published as the operator is.
    gaming_day: Arc<arc_swap::ArcSwap<GamingDay>>,
    /// Where a reload finds the casino's checkpoints.
    checkpoints: Option<super::checkpoints::Store>,
}

/// Why the cage's writer stopped.
#[derive(Debug)]
pub enum Stopped {
    /// The committer has stopped.
    Committer,
}

/// How long a cage whose reload failed waits before it tries again: a reload
/// replays the whole journal, and a disk still failing would have it replay
/// for every message.
pub const RELOAD_RETRY_MS: u64 = 1_000;

/// Answers a group with failures, changing nothing: the casino is reloading.
fn refuse(group: Vec<CageMsg>) {
    let not_now = || Answer::Events(Err(stale()));
    for message in group {
        match message {
            CageMsg::Execute { reply, .. }
            | CageMsg::User { reply, .. }
            | CageMsg::Users { reply, .. }
            | CageMsg::FindPlayers { reply, .. }
            | CageMsg::PlayerAccounts { reply, .. }
            | CageMsg::CageRecord { reply, .. }
            | CageMsg::Tournament { reply, .. }
            | CageMsg::Balances { reply, .. }
            | CageMsg::Balance { reply, .. } => Pending::Answer {
                answer: not_now(),
                to: reply,
            }
            .deliver(false),
            CageMsg::Commit { verdict, .. } => {
                let _ = verdict.send(Err(stale()));
            }
            CageMsg::Checked { answer, .. } => {
                if let Some(pending) = answer {
                    pending.deliver(false);
                }
            }
            CageMsg::Answer { pending, .. } => pending.deliver(false),
        }
    }
}

impl CageWriter {
    /// Reopens the casino from what is durable: every table takes its state
    /// from it again, and work from before is refused from now on.
    fn reopen(&mut self, now_ms: u64) -> Result<(), String> {
        self.last_reload = Some(now_ms);
        self.reload = false;
        self.epoch += 1;
        let archiver = self.tables.archiver().clone();
        let committer = &self.committer;
        let mut pipeline = || committer.reload().map_err(|e| e.to_string());
        // Rounds that became durable before the failure, and were not archived yet, are now.
        let (casino, ..) =
            super::checkpoints::open_newest(self.checkpoints.as_ref(), &mut pipeline, now_ms, &mut |r| {
                archiver.offer(r)
            })?;
        let (fresh, slots) = casino.into_parts();
        self.cage = fresh;
        self.tables
            .replace_all(slots, self.epoch, self.cage.directory(), &self.sender);
        self.publish_casino();
        if let Some(health) = self.committer.health() {
            health.journal_resumed();
        }
        Ok(())
    }

    /// Whether the cage must reload what is durable before it runs anything.
    fn must_reload(&self) -> bool {
        self.committer.failed() || self.reload
    }

    pub(super) fn new(
        cage: Cage<Pipeline>,
        committer: Committer,
        tables: Tables,
        sender: mpsc::SyncSender<CageMsg>,
        clock: Arc<dyn Clock>,
    ) -> CageWriter {
        let operator = Arc::new(arc_swap::ArcSwapOption::empty());
        let gaming_day = Arc::new(arc_swap::ArcSwap::from_pointee(GamingDay::utc()));
        let writer = CageWriter {
            cage,
            committer,
            tables,
            sender,
            clock,
            epoch: 0,
            reload: false,
            last_reload: None,
            operator,
            gaming_day,
            checkpoints: None,
        };
        writer.publish_casino();
        writer
    }

    /// Has a reload open the casino from its newest checkpoint in `store`.
    pub(super) fn reload_from(&mut self, store: Option<super::checkpoints::Store>) {
        self.checkpoints = store;
    }

    /// Where the operator's name is published.
    pub fn operator(&self) -> Arc<arc_swap::ArcSwapOption<String>> {
        self.operator.clone()
    }

    /// Where the casino's gaming day is published.
    pub fn gaming_day(&self) -> Arc<arc_swap::ArcSwap<GamingDay>> {
        self.gaming_day.clone()
    }

    /// Publishes the operator's name and the gaming day, as the directory holds them.
    fn publish_casino(&self) {
        let dir = self.cage.directory().read();
        self.operator.store(dir.operator().map(|n| Arc::new(n.to_string())));
        self.gaming_day.store(Arc::new(dir.gaming_day_rule().clone()));
    }

    /// Which reload the tables' work belongs to now.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The committer the cage hands its groups to.
    pub fn committer(&self) -> &Committer {
        &self.committer
    }

    /// The thread's loop: takes a group at most once per spacing, runs it,
    /// and stops when every sender has gone or the storage cannot go on.
    /// While a failed write holds the casino paused, it tries to reload once
    /// per [`RELOAD_RETRY_MS`] even with nothing to run, so that the casino
    /// resumes by itself once the disk takes writes again.
    pub(super) fn run(mut self, queue: mpsc::Receiver<CageMsg>) {
        let mut spacing = Spacing::new(std::time::Duration::from_micros(CAGE_SPACING_US));
        let retry = std::time::Duration::from_millis(RELOAD_RETRY_MS);
        loop {
            // Under load the cage takes what waits once per spacing instead of
            // being woken for each message: a table's send then finds it awake
            // or asleep on a timer, and never pays to wake it.
            spacing.wait();
            // Woken once per retry at the least: a write that fails after the
            // cage went back to waiting must not wait for a message to be noticed,
            // for the edge sends none while the casino is paused.
            let first = match queue.recv_timeout(retry) {
                Ok(first) => Some(first),
                Err(mpsc::RecvTimeoutError::Timeout) => None,
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            spacing.begin();
            let Some(first) = first else {
                if !self.must_reload() {
                    continue;
                }
                // Nothing came: an empty group only tries the reload.
                if let Err(stopped) = self.run_group(Vec::new()) {
                    tracing::error!("the cage has stopped: {stopped:?}");
                    return;
                }
                continue;
            };
            let mut group = vec![first];
            while group.len() < GROUP_JOBS_MAX {
                match queue.try_recv() {
                    Ok(message) => group.push(message),
                    Err(_) => break,
                }
            }
            if let Err(stopped) = self.run_group(group) {
                // Dropping the jobs unanswered tells their callers the casino has stopped.
                tracing::error!("the cage has stopped: {stopped:?}");
                return;
            }
        }
    }

    /// Runs a group of messages as one storage group and hands it to the
    /// committer; first, after a failure, reloads the casino from what is
    /// durable. A reload that fails (the disk failing again while the
    /// interrupted rounds are voided) stops nothing: the group is refused,
    /// nothing changes, and the next group tries again, at most once per
    /// [`RELOAD_RETRY_MS`].
    pub fn run_group(&mut self, group: Vec<CageMsg>) -> Result<(), Stopped> {
        if self.must_reload() {
            let now = self.clock.now_ms();
            // Tried at most once per RELOAD_RETRY_MS after the last try ended; and a
            // disk still full would fail the reload again, so it waits for room.
            let mut due = self.last_reload.is_none_or(|at| now >= at + RELOAD_RETRY_MS);
            if due && !self.committer.health().is_none_or(|h| h.may_reload()) {
                self.last_reload = Some(now);
                due = false;
            }
            let reopened = if due {
                let reopened = self.reopen(now);
                self.last_reload = Some(self.clock.now_ms());
                reopened
            } else {
                Err("retrying soon".into())
            };
            if let Err(why) = reopened {
                if due {
                    tracing::error!("storage failed and the journal could not be reopened yet: {why}");
                }
                self.reload = true;
                refuse(group);
                return Ok(());
            }
        }
        let epoch = self.epoch;
        let _ = self.cage.begin_group();
        let mut replies: Vec<Pending> = Vec::with_capacity(group.len());
        for message in group {
            match message {
                CageMsg::Execute { actor, request, reply } => {
                    let names = matches!(*request, Request::NameOperator { .. } | Request::SetGamingDay { .. });
                    let answer = Answer::Events(self.cage.execute(self.clock.now_ms(), &actor, *request));
                    if names {
                        self.publish_casino();
                    }
                    replies.push(Pending::Answer { answer, to: reply });
                    for slot in self.cage.take_opened() {
                        self.tables
                            .spawn(slot, epoch, self.cage.directory().clone(), self.sender.clone());
                    }
                }
                CageMsg::User { username, reply } => replies.push(Pending::Answer {
                    answer: Answer::User(self.cage.user(&username)),
                    to: reply,
                }),
                CageMsg::FindPlayers { query, n, reply } => {
                    let (users, more) = self.cage.find_players(&query, n);
                    replies.push(Pending::Answer {
                        answer: Answer::Users(users, more),
                        to: reply,
                    })
                }
                CageMsg::Users {
                    after,
                    n,
                    retired,
                    reply,
                } => {
                    let (users, more) = self.cage.users_after(&after, n, retired);
                    replies.push(Pending::Answer {
                        answer: Answer::Users(users, more),
                        to: reply,
                    })
                }
                CageMsg::Tournament { read, reply } => replies.push(Pending::Answer {
                    answer: Answer::Tournament(self.cage.read_tournament(read)),
                    to: reply,
                }),
                CageMsg::PlayerAccounts { player, reply } => replies.push(Pending::Answer {
                    answer: Answer::PlayerAccounts(self.cage.player_accounts(&player)),
                    to: reply,
                }),
                CageMsg::CageRecord { day, by, reply } => {
                    let today = self.cage.directory().read().gaming_day(self.clock.now_ms());
                    let answer = crate::casino::cage::record::kept_day(day.unwrap_or(today), today).map(|day| {
                        let (entries, more) = self.cage.cage_record(day, by.as_deref());
                        let (currency, operator) = self.cage.currency_and_operator();
                        crate::api::bodies::CageTransactions {
                            day: crate::casino::reads::day_text(day),
                            currency,
                            operator,
                            transactions: entries.iter().map(Into::into).collect(),
                            more,
                            drawer: by.as_deref().map(|by| self.cage.drawer(day, by)),
                        }
                    });
                    replies.push(Pending::Answer {
                        answer: Answer::CageRecord(answer),
                        to: reply,
                    })
                }
                CageMsg::Balances { username, reply } => replies.push(Pending::Answer {
                    answer: Answer::Balances(self.cage.balances_of(&username)),
                    to: reply,
                }),
                CageMsg::Balance { account, reply } => replies.push(Pending::Answer {
                    answer: Answer::Balance(self.cage.ledger().balance(&account)),
                    to: reply,
                }),
                CageMsg::Commit { epoch: e, verdict, .. } if e != self.epoch => {
                    let _ = verdict.send(Err(stale()));
                }
                CageMsg::Commit {
                    at_ms,
                    transfers,
                    event,
                    verdict,
                    claim,
                    ..
                } => {
                    let _ = verdict.send(self.cage.commit(at_ms, transfers, event, true, claim));
                }
                CageMsg::Checked {
                    epoch: e,
                    at_ms,
                    entry,
                    answer,
                } => {
                    if e == self.epoch {
                        if let Err(refused) = self.cage.write_checked(at_ms, entry) {
                            // The table counted on this entry: its state is not the ledger's.
                            tracing::error!(
                                "the ledger refused a table's entry ({refused}); reloading from the journal"
                            );
                            self.epoch += 1;
                            self.reload = true;
                        }
                    }
                    // Answered as an answer on its own would be, after its entry.
                    match answer {
                        Some(pending) if e == self.epoch => replies.push(pending),
                        Some(pending) => pending.deliver(false),
                        None => {}
                    }
                }
                CageMsg::Answer { epoch: e, pending } => {
                    if e == self.epoch {
                        replies.push(pending);
                    } else {
                        pending.deliver(false);
                    }
                }
            }
        }
        self.committer.attach(replies);
        // The committer has stopped if this fails: its answers went out as failures.
        self.cage.end_group().map_err(|_| Stopped::Committer)
    }
}
