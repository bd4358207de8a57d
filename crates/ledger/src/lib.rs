//! The money and the memory of croupier.
//!
//! Every movement of value is a [`Transfer`] between two accounts with a
//! client-chosen id: resending the same id never moves money twice, and
//! resending it with different contents is refused. Balances of player-side
//! accounts never go negative, and the sum over all accounts is always zero:
//! money that enters from outside is owed to the `outside` account, and the
//! house's result is a signed account of its own.
//!
//! Every batch of transfers and events is one entry of an append-only
//! [`journal`], each entry hashed with the one before it, so that changing
//! a byte of history breaks the chain at that entry. The journal is kept by a
//! [`Storage`]: SQLite in production ([`SqliteStorage`], WAL, synchronous
//! commits), PostgreSQL for several nodes ([`PgStorage`], with a lease), memory
//! in tests ([`MemoryStorage`], which can fail on purpose).

mod account;
pub mod compact;
pub mod database;
mod groups;
mod ids;
pub mod journal;
pub mod macs;
pub mod minor;
pub mod pg;
pub mod seal;
pub mod segments;
mod sqlite_layout;
pub mod storage;
mod storage_error;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use ids::{Seen, TransferIds, WindowState};

use serde::{Deserialize, Serialize};

pub use account::{Account, Owner, TableAccount, TournamentAccount};
pub use croupier_core::Minor;
pub use database::{Database, Opened};
pub use ids::{round_of, Digests, KINDS, ROUNDS_REMEMBERED};
pub use journal::{verify, Entry, Record, Recorded, StreamEvent, Verifier, VerifyReport};
pub use macs::{EntryKey, EntryMac, MacCheck, MacProblem, MAC_BYTES};
pub use pg::{PgCheckpoints, PgStorage};
pub use seal::{check_head, check_seal, Seal, SealProblem};
pub use storage::{MemoryStorage, SqliteStorage, Storage, StorageError};

/// The longest transfer id and account name, in bytes.
pub const ID_MAX_BYTES: usize = 96;
/// The longest memo on a transfer, in bytes.
pub const MEMO_MAX_BYTES: usize = 256;
/// The most transfers one atomic batch may hold: enough to settle a full
/// round (two transfers per bet at most), with room for fills and corrections.
pub const BATCH_MAX: usize = 2 * croupier_core::round::ROUND_BETS_MAX + 1_024;
const _: () = assert!(
    BATCH_MAX >= 2 * croupier_core::round::ROUND_BETS_MAX,
    "a full round must settle in one batch"
);
/// The largest amount one transfer may move, in minor units.
pub const AMOUNT_MAX_MINOR: u64 = 1 << 50;

/// A movement of `amount` from `from` to `to`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transfer {
    pub id: String,
    pub from: Account,
    pub to: Account,
    #[serde(with = "minor")]
    pub amount: Minor,
    pub memo: String,
}

/// A signed amount of minor units as money, as `Minor` shows an unsigned one.
pub fn signed_money(minor: &i128) -> String {
    let sign = if *minor < 0 { "-" } else { "" };
    let abs = minor.unsigned_abs();
    format!("{sign}{}.{:02}", abs / 100, abs % 100)
}

/// Why a transfer is refused. A refusal moves nothing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("transfer id must be 1 to {ID_MAX_BYTES} bytes")]
    BadId,
    #[error("memo is longer than {MEMO_MAX_BYTES} bytes")]
    MemoTooLong,
    #[error("amount must be 1 to {AMOUNT_MAX_MINOR}")]
    BadAmount,
    #[error("a transfer from {0} to itself")]
    SameAccount(Account),
    #[error(
        "a transfer between {from} and {to}: tournament points and money never move into each other (Colorado 2214(1))"
    )]
    PointsAndMoney { from: Account, to: Account },
    #[error("{}", short_of(.account, *.balance, *.amount))]
    InsufficientFunds {
        account: Account,
        balance: i128,
        amount: Minor,
    },
    #[error("transfer id {0} was used before for a different transfer")]
    IdConflict(String),
    #[error("transfer id {0} appears twice in one batch")]
    DuplicateInBatch(String),
    #[error("transfer id {0} was used before")]
    Used(String),
    #[error(
        "transfer id {id} is of a round before the {ROUNDS_REMEMBERED} newest of its table \
         (the oldest remembered is round {oldest}): it may not be made now"
    )]
    Expired { id: String, oldest: u64 },
    /// Only a checker that knows some accounts, not the ledger, refuses so.
    #[error("{0} is not an account this check can judge")]
    Unjudged(Account),
}

/// What became of a transfer that was not refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applied {
    Created,
    /// The same transfer was made before: nothing moved this time.
    AlreadyExisted,
}

#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    #[error("transfer {index} ({id}): {refusal}")]
    Refused { index: usize, id: String, refusal: Refusal },
    #[error("a batch holds at most {BATCH_MAX} transfers")]
    BatchTooLarge,
    #[error("storage: {0}")]
    Storage(#[from] StorageError),
    #[error("the journal is corrupt at entry {seq}: {why}")]
    Corrupt { seq: u64, why: String },
}

/// The checks on a transfer that need no balance: its id, memo, amount and accounts.
/// An account short of a transfer, in its own unit: money, or tournament points.
fn short_of(account: &Account, balance: i128, amount: Minor) -> String {
    if account.is_points() {
        return format!("{} are {balance}, fewer than {}", account.described(), amount.get());
    }
    format!(
        "{} holds {}, less than {amount}",
        account.described(),
        signed_money(&balance)
    )
}

pub fn check_shape(t: &Transfer) -> Result<(), Refusal> {
    if t.id.is_empty() || t.id.len() > ID_MAX_BYTES {
        return Err(Refusal::BadId);
    }
    if t.memo.len() > MEMO_MAX_BYTES {
        return Err(Refusal::MemoTooLong);
    }
    if t.amount.get() == 0 || t.amount.get() > AMOUNT_MAX_MINOR {
        return Err(Refusal::BadAmount);
    }
    if t.from == t.to {
        return Err(Refusal::SameAccount(t.from.clone()));
    }
    if t.from.is_points() != t.to.is_points() {
        return Err(Refusal::PointsAndMoney {
            from: t.from.clone(),
            to: t.to.clone(),
        });
    }
    Ok(())
}

/// 128 bits of a SHA-256: two different ids (or transfers) share one by
/// chance with odds far below any hardware fault's.
fn digest(parts: &[&[u8]]) -> [u8; 16] {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for part in parts {
        // Each part's length first, so that no two lists of parts hash alike.
        h.update((part.len() as u64).to_le_bytes());
        h.update(part);
    }
    let full: [u8; 32] = h.finalize().into();
    let mut short = [0u8; 16];
    short.copy_from_slice(&full[..16]);
    short
}

fn id_digest(id: &str) -> [u8; 16] {
    digest(&[id.as_bytes()])
}

fn content_digest(t: &Transfer) -> [u8; 16] {
    digest(&[
        t.id.as_bytes(),
        t.from.name().as_bytes(),
        t.to.name().as_bytes(),
        &t.amount.get().to_le_bytes(),
        t.memo.as_bytes(),
    ])
}

/// Checks transfers one after another against balances, as a batch moves
/// them: each one's shape, and that no account that holds real value goes
/// below zero. The ledger checks every batch with it against its own
/// balances; a table checks its own batches with it against the balances of
/// its own accounts before it counts on them.
pub struct Funds<'a, F> {
    known: F,
    pending: HashMap<&'a Account, i128>,
}

impl<'a, F: Fn(&Account) -> Option<i128>> Funds<'a, F> {
    /// `known` gives an account's balance, or `None` for an account the
    /// caller cannot judge: a transfer drawing on one is refused as unjudged,
    /// unless the account may go below zero.
    pub fn new(known: F) -> Funds<'a, F> {
        Funds {
            known,
            pending: HashMap::new(),
        }
    }

    /// The balance of `account` with what this batch moved so far.
    fn balance(&mut self, account: &'a Account) -> Option<i128> {
        match self.pending.get(account) {
            Some(b) => Some(*b),
            None => (self.known)(account),
        }
    }

    /// Moves `t` within the batch, or says why it may not move.
    pub fn take(&mut self, t: &'a Transfer) -> Result<(), Refusal> {
        check_shape(t)?;
        let amount = i128::from(t.amount.get());
        let from = self.balance(&t.from);
        match from {
            None if !t.from.may_go_negative() => return Err(Refusal::Unjudged(t.from.clone())),
            Some(balance) if balance < amount && !t.from.may_go_negative() => {
                return Err(Refusal::InsufficientFunds {
                    account: t.from.clone(),
                    balance,
                    amount: t.amount,
                })
            }
            _ => {}
        }
        if let Some(balance) = from {
            self.pending.insert(&t.from, balance - amount);
        }
        if let Some(balance) = self.balance(&t.to) {
            self.pending.insert(&t.to, balance + amount);
        }
        Ok(())
    }

    /// The balances the batch leaves, of every account it touched that the caller knows.
    pub fn into_balances(self) -> HashMap<&'a Account, i128> {
        self.pending
    }
}

/// A batch that passed `Ledger::check_batch`: each transfer's fate, the
/// digests of those it creates, and the balances it leaves.
struct Checked {
    applied: Vec<Applied>,
    /// Each transfer it makes: its id, and the digests of its id and content.
    created: Vec<(String, [u8; 16], [u8; 16])>,
    balances: Vec<(Account, i128)>,
}

/// The ledger: balances and transfers rebuilt from the journal, and new
/// entries appended to it.
pub struct Ledger<S: Storage> {
    storage: S,
    balances: HashMap<Account, i128>,
    /// The transfers a resend may still name (every one, but for the rounds
    /// a table has left behind: see [`ROUNDS_REMEMBERED`]), as the digest of
    /// its id and the digest of its whole content: enough to tell a resend
    /// from a conflict in 32 bytes a transfer.
    transfers: TransferIds,
    head: [u8; 32],
    next_seq: u64,
}

impl<S: Storage> Ledger<S> {
    /// Opens a ledger, reading and checking the whole journal.
    pub fn open(mut storage: S) -> Result<Ledger<S>, LedgerError> {
        let entries = storage.load()?;
        Ledger::open_loaded(storage, &entries)
    }

    /// Opens a ledger on `entries`, which the caller has just loaded from
    /// `storage` (each entry is checked again here).
    pub fn open_loaded(storage: S, entries: &[Entry]) -> Result<Ledger<S>, LedgerError> {
        let mut opening = LedgerOpening::default();
        for e in entries {
            opening.entry(e)?;
        }
        opening.open(storage)
    }
}

/// A ledger opened on its journal one entry at a time, as it streams from
/// the disk: what it holds is the balances and the transfers' digests.
#[derive(Default)]
pub struct LedgerOpening(journal::Verifier);

impl LedgerOpening {
    /// Checks the journal's next entry and takes its transfers.
    pub fn entry(&mut self, e: &Entry) -> Result<(), LedgerError> {
        if self.0.check(e) {
            return Ok(());
        }
        let (report, ..) = std::mem::take(&mut self.0).finish_with_ids();
        sound(
            report
                .first_problem
                .or(Some((e.seq, "the entry does not follow the one before it".into()))),
        )
    }

    /// The ledger on `storage`, whose every entry went through [`LedgerOpening::entry`].
    pub fn open<S: Storage>(self, storage: S) -> Result<Ledger<S>, LedgerError> {
        let through = self.0.through();
        let (report, transfers, head) = self.0.finish_with_ids();
        sound(report.first_problem)?;
        Ok(Ledger {
            storage,
            next_seq: through + 1,
            balances: report.balances,
            transfers,
            head,
        })
    }
}

/// What a ledger holds, for a checkpoint of the casino: the balances and
/// every transfer's digests in a fixed order, so that one state always
/// writes the same bytes, and the journal's head it was taken at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerState {
    /// The number of the entry the state follows (0: none).
    pub through: u64,
    /// That entry's hash: the chain goes on from it.
    pub head: [u8; 32],
    /// Every account's balance, in the accounts' order.
    pub balances: Vec<(Account, i128)>,
    /// The id digest and content digest of every transfer kept for good
    /// (of no table's round), 32 bytes each, in order (one run of bytes: a
    /// list of pairs would write each byte apart).
    #[serde(with = "serde_bytes")]
    pub transfers: Vec<u8>,
    /// Each table's remembered rounds, in the tables' order.
    pub windows: Vec<RoundWindow>,
}

/// A table's remembered rounds in a [`LedgerState`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundWindow {
    pub table: String,
    /// Rounds before this one are expired.
    pub oldest: u64,
    pub rounds: Vec<RoundIds>,
}

/// A remembered round's transfers, as [`LedgerState::transfers`] writes them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundIds {
    pub round: u64,
    #[serde(with = "serde_bytes")]
    pub transfers: Vec<u8>,
}

/// Digests as one run of bytes, 32 a transfer.
fn digest_bytes(pairs: &[Digests]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(pairs.len() * 32);
    for (id, content) in pairs {
        bytes.extend_from_slice(id);
        bytes.extend_from_slice(content);
    }
    bytes
}

/// [`digest_bytes`] read back.
fn digest_pairs(bytes: &[u8], through: u64) -> Result<Vec<Digests>, LedgerError> {
    if !bytes.len().is_multiple_of(32) {
        return Err(LedgerError::Corrupt {
            seq: through,
            why: format!(
                "the checkpoint's transfers are {} bytes, not a whole number of 32",
                bytes.len()
            ),
        });
    }
    Ok(bytes
        .chunks_exact(32)
        .map(|pair| {
            let mut id = [0u8; 16];
            let mut content = [0u8; 16];
            id.copy_from_slice(&pair[..16]);
            content.copy_from_slice(&pair[16..]);
            (id, content)
        })
        .collect())
}

impl LedgerState {
    fn of(balances: &HashMap<Account, i128>, transfers: &TransferIds, head: [u8; 32], through: u64) -> LedgerState {
        let mut balances: Vec<(Account, i128)> = balances.iter().map(|(a, b)| (a.clone(), *b)).collect();
        balances.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let (kept, windows) = transfers.sorted();
        LedgerState {
            through,
            head,
            balances,
            transfers: digest_bytes(&kept),
            windows: windows
                .into_iter()
                .map(|w| RoundWindow {
                    table: w.table,
                    oldest: w.oldest,
                    rounds: w
                        .rounds
                        .into_iter()
                        .map(|(round, pairs)| RoundIds {
                            round,
                            transfers: digest_bytes(&pairs),
                        })
                        .collect(),
                })
                .collect(),
        }
    }

    fn digests(&self) -> Result<TransferIds, LedgerError> {
        let mut windows = Vec::with_capacity(self.windows.len());
        for w in &self.windows {
            let mut rounds = Vec::with_capacity(w.rounds.len());
            for r in &w.rounds {
                rounds.push((r.round, digest_pairs(&r.transfers, self.through)?));
            }
            windows.push(WindowState {
                table: w.table.clone(),
                oldest: w.oldest,
                rounds,
            });
        }
        Ok(TransferIds::from_sorted(
            digest_pairs(&self.transfers, self.through)?,
            windows,
        ))
    }
}

impl journal::Verifier {
    /// A check that goes on from a checkpoint's state: the entries that
    /// follow it must chain from its head, and its report counts them alone
    /// (its balances are every account's).
    pub fn from_state(state: &LedgerState) -> Result<journal::Verifier, LedgerError> {
        Ok(journal::Verifier::resume(
            state.through,
            state.head,
            state.balances.iter().cloned().collect(),
            state.digests()?,
        ))
    }
}

impl LedgerOpening {
    /// A check of the journal's chain alone (numbering and hashes) after
    /// entry `through`, whose hash is `head` (0: from the first entry), for
    /// an opening whose replay writes every entry again: the replay's own
    /// ledger holds the balances and the transfers, once
    /// ([`Ledger::moved_to`]), and [`LedgerOpening::checked`] ends it.
    pub fn chain_after(through: u64, head: [u8; 32]) -> LedgerOpening {
        LedgerOpening(journal::Verifier::chain_after(through, head))
    }

    /// Ends a check: the chain broke nowhere.
    pub fn checked(self) -> Result<(), LedgerError> {
        sound(self.0.finish_with_ids().0.first_problem)
    }
}

/// A check's first problem, if any, as the ledger's error.
fn sound(first_problem: Option<(u64, String)>) -> Result<(), LedgerError> {
    match first_problem {
        Some((seq, why)) => Err(LedgerError::Corrupt { seq, why }),
        None => Ok(()),
    }
}

impl<S: Storage> Ledger<S> {
    /// A ledger on `storage` as a checkpoint left it; `storage` holds the
    /// entries after it (or is a replay's store, which holds none).
    pub fn restore(storage: S, state: &LedgerState) -> Result<Ledger<S>, LedgerError> {
        Ok(Ledger {
            storage,
            balances: state.balances.iter().cloned().collect(),
            transfers: state.digests()?,
            head: state.head,
            next_seq: state.through + 1,
        })
    }

    /// The same ledger on another storage: a replay's ledger, once it has
    /// written the journal again, becomes the journal's own.
    pub fn moved_to<T: Storage>(self, storage: T) -> Ledger<T> {
        Ledger {
            storage,
            balances: self.balances,
            transfers: self.transfers,
            head: self.head,
            next_seq: self.next_seq,
        }
    }

    /// The state, for a checkpoint.
    pub fn state(&self) -> LedgerState {
        LedgerState::of(&self.balances, &self.transfers, self.head, self.next_seq - 1)
    }

    pub fn balance(&self, account: &Account) -> i128 {
        self.balances.get(account).copied().unwrap_or(0)
    }

    pub fn balances(&self) -> &HashMap<Account, i128> {
        &self.balances
    }

    /// Whether a transfer with this id was made (and is remembered: a
    /// round its table left behind is expired, and answers false).
    pub fn has_transfer(&self, id: &str) -> bool {
        matches!(self.transfers.seen(id, &id_digest(id)), Seen::Made(_))
    }

    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// The hash of the last entry (zeros before the first).
    pub fn head(&self) -> [u8; 32] {
        self.head
    }

    pub fn storage(&self) -> &S {
        &self.storage
    }

    /// The storage, for a replay that checks each entry it writes against
    /// the journal and then lets go of it (a journal's whole length held
    /// twice in memory was half of what a start needed).
    pub fn storage_mut(&mut self) -> &mut S {
        &mut self.storage
    }

    /// Group commits: see [`Storage::begin_group`].
    pub fn begin_group(&mut self) -> Result<(), StorageError> {
        self.storage.begin_group()
    }

    pub fn end_group(&mut self) -> Result<(), StorageError> {
        self.storage.end_group()
    }

    /// Checks a batch against the ledger and within itself: each transfer new
    /// (`Created`), the resend of one made before (`AlreadyExisted`, or,
    /// without `resends`, refused as used), or refused; nothing changes.
    fn check_batch(&self, transfers: &[Transfer], resends: bool) -> Result<Checked, LedgerError> {
        if transfers.len() > BATCH_MAX {
            return Err(LedgerError::BatchTooLarge);
        }
        let mut applied = Vec::with_capacity(transfers.len());
        let mut created = Vec::with_capacity(transfers.len());
        let mut funds = Funds::new(|a: &Account| Some(self.balance(a)));
        let mut seen = HashSet::with_capacity(transfers.len());
        for (index, t) in transfers.iter().enumerate() {
            let refused = |refusal| LedgerError::Refused {
                index,
                id: t.id.clone(),
                refusal,
            };
            if !seen.insert(t.id.as_str()) {
                return Err(refused(Refusal::DuplicateInBatch(t.id.clone())));
            }
            check_shape(t).map_err(refused)?;
            let id = id_digest(&t.id);
            match self.transfers.seen(&t.id, &id) {
                Seen::Expired { oldest } => {
                    return Err(refused(Refusal::Expired {
                        id: t.id.clone(),
                        oldest,
                    }))
                }
                Seen::Made(_) if !resends => return Err(refused(Refusal::Used(t.id.clone()))),
                Seen::Made(existing) if existing != content_digest(t) => {
                    return Err(refused(Refusal::IdConflict(t.id.clone())))
                }
                Seen::Made(_) => {
                    applied.push(Applied::AlreadyExisted);
                    continue;
                }
                Seen::New => {}
            }
            funds.take(t).map_err(refused)?;
            applied.push(Applied::Created);
            created.push((t.id.clone(), id, content_digest(t)));
        }
        Ok(Checked {
            applied,
            created,
            balances: funds.into_balances().into_iter().map(|(a, b)| (a.clone(), b)).collect(),
        })
    }

    /// Appends `entry` (if any) and, once it is durable, makes the checked
    /// batch's balances and transfers the ledger's.
    fn write_checked(&mut self, checked: Checked, entry: Option<Entry>) -> Result<Vec<Applied>, LedgerError> {
        if let Some(entry) = entry {
            let head = entry.hash;
            self.storage.append_owned(vec![entry])?;
            self.head = head;
            self.next_seq += 1;
        }
        // Durable: now the state may change. Every transfer takes from one
        // account what it gives another, so the balances a batch changes sum
        // to what they summed to before: checked on every batch, in O(its
        // accounts), since a ledger that lost or made money must stop.
        let before: i128 = checked.balances.iter().map(|(a, _)| self.balance(a)).sum();
        let after: i128 = checked.balances.iter().map(|(_, b)| *b).sum();
        assert_eq!(before, after, "money is not conserved by a batch");
        self.balances.extend(checked.balances);
        for (id, digest, content) in checked.created {
            self.transfers.insert(&id, digest, content);
        }
        self.transfers.close_batch();
        Ok(checked.applied)
    }

    /// Applies a batch of transfers and events all together or not at all:
    /// if any transfer is refused, nothing is written and nothing moves.
    /// Returns once the batch is durable.
    pub fn commit(
        &mut self,
        at_ms: u64,
        transfers: &[Transfer],
        events: Vec<StreamEvent>,
    ) -> Result<Vec<Applied>, LedgerError> {
        if events.len() > BATCH_MAX {
            return Err(LedgerError::BatchTooLarge);
        }
        let checked = self.check_batch(transfers, true)?;
        // The whole batch is one entry: one row to write and one hash to chain.
        let record = Record::Commit {
            transfers: transfers
                .iter()
                .zip(&checked.applied)
                .filter(|(_, a)| **a == Applied::Created)
                .map(|(t, _)| t.clone())
                .collect(),
            events,
        };
        let written = !record.transfers().is_empty() || !record.events().is_empty();
        let entry = written.then(|| Entry::new(self.next_seq, at_ms, record, self.head));
        self.write_checked(checked, entry)
    }

    /// Appends a batch its writer has checked and serialised already (see
    /// [`Recorded`]): all of it or, if any transfer's id was used before or
    /// any transfer breaks its accounts' rules, nothing. Returns once durable.
    pub fn commit_new(&mut self, at_ms: u64, recorded: Recorded) -> Result<(), LedgerError> {
        if recorded.record().events().len() > BATCH_MAX {
            return Err(LedgerError::BatchTooLarge);
        }
        let checked = self.check_batch(recorded.record().transfers(), false)?;
        let entry = Entry::chained(self.next_seq, at_ms, recorded, self.head);
        self.write_checked(checked, Some(entry)).map(|_| ())
    }
}
