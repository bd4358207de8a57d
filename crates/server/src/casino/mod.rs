//! The casino: pure and single-threaded. Requests in, events out, every
//! change made durable in the ledger before it is applied. No clock (every
//! request carries its time), no threads, no randomness: the runtime feeds
//! it, and replay gives the same casino back.
//!
//! Two kinds of part: the [`Cage`] (users, logins, cash, new tables, the
//! ledger and its journal) and a [`TableSlot`] per table. A [`Casino`] runs
//! both on one thread (replay, recovery, the tests); the server splits it
//! and runs each table on a writer of its own.

pub mod actor;
pub mod cage;
pub mod checkpoint;
pub mod day_report;
pub mod directory;
pub mod floor;
mod from_client;
pub mod gaming_day;
pub mod journal;
mod layout;
mod plan;
pub mod policy;
pub mod reads;
pub mod recall;
pub mod request;
mod settlement;
mod stored;
pub mod table;
pub mod tournaments;
pub mod users;
pub mod views;

use std::collections::BTreeMap;
use std::sync::Arc;

use croupier_core::round::Phase;
use croupier_ledger::{Account, Ledger, LedgerError, MemoryStorage, Storage};

pub use actor::Actor;
pub use cage::{Cage, RECOVERY_REASON_MAX, RESERVED_TABLE_IDS, TABLES_MAX};
pub use directory::{Directory, SharedDirectory};
pub use from_client::FromClient;
pub use journal::{JournalEvent, JOURNAL_FORMAT, STREAM};
pub use recall::{BetRecord, RoundRecord, RECALL_BETS_KEPT, RECALL_ROUNDS_MAX};
pub use request::{Request, Spin, StoredCorrection, StoredVerbalBet};
pub use table::{bet_id_max_bytes, checked_entry, Commit, Executed, TableSlot};
pub use users::User;

use crate::api::{ApiError, ErrorCode, EventView};

pub(crate) fn err(code: ErrorCode, message: impl Into<String>) -> ApiError {
    ApiError::new(code, message)
}

/// A casino in one piece: the cage and every table, run by one thread.
/// Replay, recovery and the tests use it; the server splits it ([`Casino::into_parts`])
/// and gives each table a writer of its own.
pub struct Casino<S: Storage> {
    cage: Cage<S>,
    tables: BTreeMap<String, TableSlot>,
    /// Whether every table keeps its finished rounds ([`TableSlot::keep_finished`]).
    keep_finished: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("{0}")]
    Ledger(#[from] LedgerError),
    #[error("journal entry {seq}: {why}")]
    Replay { seq: u64, why: String },
    /// A checkpoint that cannot be used: the journal is replayed without it.
    #[error("the checkpoint after entry {through} cannot be used: {why}")]
    Checkpoint { through: u64, why: String },
}

/// Rebuilds a casino from a journal by executing every journaled request
/// again against a ledger in memory: each request must be accepted and
/// write its entry again, byte for byte: every transfer, every settlement,
/// every event. `croupier verify` uses it.
pub fn replay(entries: &[croupier_ledger::Entry]) -> Result<Casino<MemoryStorage>, OpenError> {
    replay_with(entries, None)
}

/// [`replay`], giving `on_final` every round whose record became final
/// (the next round at its table opened), in the order they did: the recall
/// archive is filled and checked with them.
pub fn replay_archiving(
    entries: &[croupier_ledger::Entry],
    on_final: &mut (dyn FnMut(Arc<RoundRecord>) + Send),
) -> Result<Casino<MemoryStorage>, OpenError> {
    replay_with(entries, Some(on_final))
}

fn replay_with(
    entries: &[croupier_ledger::Entry],
    on_final: Option<&mut (dyn FnMut(Arc<RoundRecord>) + Send)>,
) -> Result<Casino<MemoryStorage>, OpenError> {
    let mut replayer = Replayer::new(on_final)?;
    for entry in entries {
        replayer.entry(entry)?;
    }
    Ok(replayer.finish())
}

/// A checkpoint as an open expects the journal to bind it.
struct Expected {
    through: u64,
    digest: String,
    bytes: u64,
}

/// Whether the journal binds checkpoint `c`: an entry after it names its
/// digest and length. One that names another digest is history changed.
fn bound(c: &Expected, bindings: &[checkpoint::Binding]) -> Result<(), OpenError> {
    let digest = &c.digest;
    let mut named = bindings.iter().filter(|b| b.through == c.through).peekable();
    if named.peek().is_none() {
        return Err(OpenError::Checkpoint {
            through: c.through,
            why: "no entry of the journal binds it".into(),
        });
    }
    match named.find(|b| b.digest != *digest || b.bytes != c.bytes) {
        Some(b) => Err(OpenError::Checkpoint {
            through: c.through,
            why: format!(
                "entry {} binds {} bytes with SHA-256 {}, and it is {} bytes with {digest}",
                b.entry, b.bytes, b.digest, c.bytes
            ),
        }),
        None => Ok(()),
    }
}

/// A replay one entry at a time, for a journal read as it streams by
/// (`croupier verify`): it holds the casino's state, not the journal. Each
/// entry it writes is compared with the journal's and let go of.
pub struct Replayer<'a> {
    shadow: Casino<MemoryStorage>,
    on_final: Option<&'a mut (dyn FnMut(Arc<RoundRecord>) + Send)>,
    entries: u64,
    /// Each checkpoint the replayed entries bind.
    bindings: Vec<checkpoint::Binding>,
}

impl<'a> Replayer<'a> {
    /// A replay from the journal's first entry; `on_final` is given each
    /// round whose record becomes final, as [`replay_archiving`] does.
    pub fn new(on_final: Option<&'a mut (dyn FnMut(Arc<RoundRecord>) + Send)>) -> Result<Replayer<'a>, OpenError> {
        let mut shadow = Casino::new(Ledger::open(MemoryStorage::default())?);
        shadow.cage.directory.change(|d| d.set_replaying(true));
        shadow.keep_finished = on_final.is_some();
        Ok(Replayer {
            shadow,
            on_final,
            entries: 0,
            bindings: Vec::new(),
        })
    }

    /// A replay that goes on from a checkpoint, with the checkpoint's ledger
    /// state (the balances, the transfers' digests and the chain's head at it).
    pub fn resumed(
        from: &checkpoint::Checkpoint,
        on_final: Option<&'a mut (dyn FnMut(Arc<RoundRecord>) + Send)>,
    ) -> Result<(Replayer<'a>, croupier_ledger::LedgerState), OpenError> {
        let (mut shadow, ledger) = checkpoint::restore(from)?;
        shadow.cage.directory.change(|d| d.set_replaying(true));
        if on_final.is_some() {
            shadow.keep_finished = true;
            shadow.tables.values_mut().for_each(TableSlot::keep_finished);
        }
        let replayer = Replayer {
            shadow,
            on_final,
            entries: 0,
            bindings: Vec::new(),
        };
        Ok((replayer, ledger))
    }

    /// The checkpoints the entries replayed so far bind.
    pub fn bindings(&self) -> &[checkpoint::Binding] {
        &self.bindings
    }

    /// The casino as the entries replayed so far left it.
    pub fn casino(&self) -> &Casino<MemoryStorage> {
        &self.shadow
    }

    /// Executes the next entry's requests again: they must write that entry back, byte for byte.
    pub fn entry(&mut self, entry: &croupier_ledger::Entry) -> Result<(), OpenError> {
        let failed = |why: String| OpenError::Replay { seq: entry.seq, why };
        let shadow = &mut self.shadow;
        for event in entry.record.events() {
            if event.stream != STREAM {
                continue;
            }
            let head = journal::read_head(event).map_err(|e| failed(format!("unreadable request: {e}")))?;
            if let Request::Checkpoint { through, digest, bytes } = &head.request {
                self.bindings.push(checkpoint::Binding {
                    entry: entry.seq,
                    through: *through,
                    digest: digest.clone(),
                    bytes: *bytes,
                });
            }
            shadow
                .run(head.at_ms, &head.actor, head.request.clone())
                .map_err(|e| failed(format!("the request is refused on replay: {e}")))?;
            if let (Some(on_final), Some(slot)) = (
                self.on_final.as_mut(),
                head.request.table().and_then(|t| shadow.tables.get_mut(t)),
            ) {
                slot.take_finished().into_iter().for_each(&mut **on_final);
            }
        }
        self.entries += 1;
        let written = std::mem::take(&mut shadow.cage.ledger.storage_mut().entries);
        match written.as_slice() {
            [again] if again == entry => Ok(()),
            [] => Err(failed("replaying the request writes no entry".into())),
            [_] => Err(failed(
                "replaying the request does not give this entry back: a settlement, transfer or event differs".into(),
            )),
            [..] => Err(failed(format!(
                "replaying the request writes {} entries where the journal has one",
                written.len()
            ))),
        }
    }

    /// The casino the journal's entries rebuilt, taking requests as a live one does.
    pub fn finish(self) -> Casino<MemoryStorage> {
        self.shadow.cage.directory.change(|d| d.set_replaying(false));
        self.shadow
    }
}

impl<S: Storage> Casino<S> {
    fn new(ledger: Ledger<S>) -> Casino<S> {
        Casino {
            cage: Cage::new(ledger),
            tables: BTreeMap::new(),
            keep_finished: false,
        }
    }

    /// Opens a casino on its storage: replays the journal, checks that every
    /// request gives the same entry again, and voids any round interrupted
    /// before its result (`now_ms` is the time of that).
    pub fn open(storage: S, now_ms: u64) -> Result<(Casino<S>, Vec<EventView>), OpenError> {
        Casino::open_with(storage, now_ms, None, JOURNAL_FORMAT, None)
    }

    /// [`Casino::open`] as a server that writes journal `format` would, so
    /// that tests can make a journal as an older server left it (format 1:
    /// nothing marks it). A journal already in a later format stays in it.
    pub fn open_in_format(storage: S, now_ms: u64, format: u32) -> Result<(Casino<S>, Vec<EventView>), OpenError> {
        Casino::open_with(storage, now_ms, None, format, None)
    }

    /// [`Casino::open`], giving `on_final` every finished round of the journal
    /// as [`replay_archiving`] does; the casino's tables keep theirs from then on.
    pub fn open_archiving(
        storage: S,
        now_ms: u64,
        on_final: &mut (dyn FnMut(Arc<RoundRecord>) + Send),
    ) -> Result<(Casino<S>, Vec<EventView>), OpenError> {
        Casino::open_with(storage, now_ms, Some(on_final), JOURNAL_FORMAT, None)
    }

    /// [`Casino::open_archiving`] from a checkpoint: its state is taken, and
    /// only the entries after it are replayed. The journal must bind the
    /// checkpoint (its digest and length) in an entry after it, or the open
    /// fails with [`OpenError::Checkpoint`] and the caller opens without it.
    pub fn open_from(
        storage: S,
        now_ms: u64,
        on_final: Option<&mut (dyn FnMut(Arc<RoundRecord>) + Send)>,
        from: Option<checkpoint::Checkpoint>,
    ) -> Result<(Casino<S>, Vec<EventView>), OpenError> {
        Casino::open_with(storage, now_ms, on_final, JOURNAL_FORMAT, from)
    }

    fn open_with(
        mut storage: S,
        now_ms: u64,
        on_final: Option<&mut (dyn FnMut(Arc<RoundRecord>) + Send)>,
        format: u32,
        from: Option<checkpoint::Checkpoint>,
    ) -> Result<(Casino<S>, Vec<EventView>), OpenError> {
        // One pass as the journal streams from the disk: each entry is checked
        // in the chain and its requests replayed, writing it again byte for
        // byte; the journal is never held whole, and the replay's ledger becomes
        // the journal's (the balances and transfers held once). From a
        // checkpoint, the pass begins after it, on its state (its bytes let go
        // of once read); the rounds it finishes are handed on only once the
        // journal is found to bind it.
        let expected = from.as_ref().map(|c| Expected {
            through: c.through,
            digest: c.digest(),
            bytes: c.bytes.len() as u64,
        });
        let mut on_final = on_final;
        let wanted = on_final.is_some();
        let holding = expected.is_some();
        let mut held: Vec<Arc<RoundRecord>> = Vec::new();
        let mut route = |r: Arc<RoundRecord>| match on_final.as_mut() {
            Some(_) if holding => held.push(r),
            Some(f) => f(r),
            None => {}
        };
        let replay_to: Option<&mut (dyn FnMut(Arc<RoundRecord>) + Send)> = if wanted { Some(&mut route) } else { None };
        let (mut opening, mut replayer, after) = match from {
            Some(c) => {
                let (replayer, ledger) = Replayer::resumed(&c, replay_to)?;
                let opening = croupier_ledger::LedgerOpening::chain_after(ledger.through, ledger.head);
                (opening, replayer, c.through)
            }
            None => (
                croupier_ledger::LedgerOpening::chain_after(0, [0; 32]),
                Replayer::new(replay_to)?,
                0,
            ),
        };
        let mut failed = None;
        storage
            .each_after(after, &mut |entry| {
                let step = opening
                    .entry(&entry)
                    .map_err(OpenError::from)
                    .and_then(|()| replayer.entry(&entry));
                step.map_err(|e| failed = Some(e)).is_ok()
            })
            .map_err(LedgerError::from)?;
        if let Some(e) = failed {
            return Err(match (&expected, e) {
                // A checkpoint cut off by a recovery no longer follows the chain.
                (Some(c), OpenError::Ledger(LedgerError::Corrupt { seq, why })) if seq == c.through + 1 => {
                    OpenError::Checkpoint {
                        through: c.through,
                        why: format!("the entry after it does not follow it: {why}"),
                    }
                }
                (_, e) => e,
            });
        }
        if let Some(c) = &expected {
            bound(c, replayer.bindings())?;
        }
        opening.checked()?;
        let shadow = replayer.finish();
        let ledger = shadow.cage.ledger.moved_to(storage);
        if let Some(on_final) = on_final {
            held.into_iter().for_each(on_final);
        }
        let mut casino = Casino {
            cage: Cage {
                ledger,
                directory: shadow.cage.directory,
                tables: shadow.cage.tables,
                currency: shadow.cage.currency,
                opened: Vec::new(),
                cash_days: shadow.cage.cash_days,
                dealer_days: shadow.cage.dealer_days,
                tournaments: shadow.cage.tournaments,
                record: shadow.cage.record,
            },
            tables: shadow.tables,
            keep_finished: shadow.keep_finished,
        };
        // What this server writes from here on is in its own format.
        if casino.cage.directory.read().journal_format() < format {
            casino
                .execute(now_ms, &Actor::system(), Request::JournalFormat { format })
                .map_err(|e| OpenError::Replay {
                    seq: 0,
                    why: format!("going on in journal format {format}: {e}"),
                })?;
        }
        // A round without a recorded result is void and its bets go back
        // (a recorded result was committed with its settlement, all at once).
        let mut recovered = Vec::new();
        let interrupted: Vec<String> = casino
            .tables
            .values()
            .filter(|s| matches!(s.table.phase(), Phase::BettingOpen { .. } | Phase::NoMoreBets))
            .map(|s| s.id.clone())
            .collect();
        for table in interrupted {
            let views = casino
                .execute(
                    now_ms,
                    &Actor::system(),
                    Request::VoidRound {
                        table,
                        reason: "the server stopped before the result; the round is void".into(),
                    },
                )
                .map_err(|e| OpenError::Replay {
                    seq: 0,
                    why: format!("voiding an interrupted round: {e}"),
                })?;
            recovered.extend(views);
        }
        Ok((casino, recovered))
    }

    /// The cage and the tables, for a server that runs each table on a writer of its own.
    pub fn into_parts(self) -> (Cage<S>, Vec<TableSlot>) {
        (self.cage, self.tables.into_values().collect())
    }

    pub fn ledger(&self) -> &Ledger<S> {
        &self.cage.ledger
    }

    /// The format the journal goes on in (see [`JOURNAL_FORMAT`]).
    pub fn journal_format(&self) -> u32 {
        self.cage.directory.read().journal_format()
    }

    /// Requests executed between these two are durable together at `end_group`.
    pub fn begin_group(&mut self) -> Result<(), croupier_ledger::StorageError> {
        self.cage.begin_group()
    }

    pub fn end_group(&mut self) -> Result<(), croupier_ledger::StorageError> {
        self.cage.end_group()
    }

    pub fn user(&self, username: &str) -> Option<User> {
        self.cage.user(username)
    }

    pub fn users(&self) -> Vec<User> {
        self.cage.directory.read().users().cloned().collect()
    }

    /// The cage's own record of gaming day `day`, newest first (see [`Cage::cage_record`]).
    pub fn cage_record(&self, day: u64, by: Option<&str>) -> (Vec<cage::record::CageEntry>, bool) {
        self.cage.cage_record(day, by)
    }

    /// Every tournament's money, reconciled against the ledger.
    pub fn tournament_books(&self) -> Vec<tournaments::TournamentBooks> {
        self.cage.tournament_books()
    }

    /// A tournament, or the list of them, as the reader may see it.
    pub fn read_tournament(
        &self,
        read: tournaments::TournamentRead,
    ) -> Result<tournaments::TournamentAnswer, ApiError> {
        self.cage.read_tournament(read)
    }

    pub fn tables(&self) -> impl Iterator<Item = &TableSlot> {
        self.tables.values()
    }

    pub fn table(&self, id: &str) -> Option<&TableSlot> {
        self.tables.get(id)
    }

    /// The balance of an account, by its name (0 for a name that is no account).
    pub fn balance(&self, account: &str) -> i128 {
        Account::parse(account)
            .map(|a| self.cage.ledger.balance(&a))
            .unwrap_or(0)
    }

    /// The last `n` rounds of a table, newest first.
    pub fn recall_table(&self, table: &str, n: usize) -> Vec<&RoundRecord> {
        self.tables.get(table).map(|s| s.recall(n)).unwrap_or_default()
    }

    /// The last `n` rounds a player bet in, newest first, over every table.
    pub fn recall_player(&self, player: &str, n: usize) -> Vec<&RoundRecord> {
        recall::newest(self.tables.values().map(|s| s.recall_player(player, n)), n)
    }

    pub fn round(&self, id: &str) -> Option<&RoundRecord> {
        let (table, _) = id.rsplit_once('/')?;
        self.tables.get(table)?.round(id)
    }

    /// Executes a request: checks it, makes its money and journal entry
    /// durable in one batch, and only then changes the state.
    pub fn execute(&mut self, at_ms: u64, actor: &Actor, request: Request) -> Result<Vec<EventView>, ApiError> {
        // What the tables alone know of a player retired or made staff: asked
        // before, as the server's floor asks its tables (never on replay,
        // which writes again what was written).
        let dir = self.cage.directory.read();
        if let Some(player) = cage::user_edits::holdings_asked(&dir, &request) {
            policy::require(actor.role, request.act(actor))?;
            let held: Vec<_> = self.tables.values().map(|t| t.held_by(&dir, at_ms, &player)).collect();
            cage::user_edits::refuse_held(&player, &held)?;
        }
        self.run(at_ms, actor, request)
    }

    /// [`Casino::execute`] as replay runs it: the request alone decides.
    fn run(&mut self, at_ms: u64, actor: &Actor, request: Request) -> Result<Vec<EventView>, ApiError> {
        match request.table().map(str::to_string) {
            Some(table) => {
                let slot = self
                    .tables
                    .get_mut(&table)
                    .ok_or_else(|| err(ErrorCode::NoTable, format!("no table {table:?}")))?;
                let directory = self.cage.directory.clone();
                slot.execute(&directory, at_ms, actor, request, &mut self.cage)
                    .map(|e| e.views)
            }
            None => {
                let views = self.cage.execute(at_ms, actor, request)?;
                for mut slot in self.cage.take_opened() {
                    if self.keep_finished {
                        slot.keep_finished();
                    }
                    self.tables.insert(slot.id.clone(), slot);
                }
                Ok(views)
            }
        }
    }
}
