//! A checkpoint: the casino's whole state after one journal entry, so that a
//! start reads it and replays only the entries that follow, not the history.
//!
//! A checkpoint is trusted only once an entry of the journal binds it
//! (`Request::Checkpoint`: its SHA-256 and length), and the journal's chain
//! and seal cover that entry. Its state is what the replay of every entry
//! before it gives, and an audit that replays from the first entry checks
//! that byte for byte: one state always writes the same bytes. Every hash map
//! is written in its keys' order (`croupier_core::canonical`), the ledger's
//! digests sorted.
//!
//! The bytes are CBOR (`ciborium`): self-describing, so the journal's own
//! types (tagged, with fields left out when empty) read back as written, and
//! maps keyed by tuples are allowed.

use std::collections::{BTreeMap, HashMap};

use croupier_ledger::{Ledger, LedgerState, MemoryStorage, Storage};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::directory::{Directory, SharedDirectory};
use super::tournaments::Held;
use super::{Cage, Casino, OpenError, TableSlot};

/// The layout of a checkpoint's bytes; a start refuses one it does not know
/// (2: the ledger keeps a window of each table's rounds). A part a later
/// journal format fills (a table's open play and dealers' shares, format
/// 15) is left out while empty and read with its default, so it keeps the
/// layout: a format-14 casino's checkpoints are the bytes its build wrote.
pub const CHECKPOINT_FORMAT: u32 = 2;

/// A checkpoint as a start is given it: the entry its state follows, and its bytes.
#[derive(Clone, Debug)]
pub struct Checkpoint {
    pub through: u64,
    pub bytes: Vec<u8>,
}

impl Checkpoint {
    /// The SHA-256 of its bytes, in lower-case hex, as the journal binds it.
    pub fn digest(&self) -> String {
        digest_of(&self.bytes)
    }
}

/// A checkpoint as an entry of the journal binds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The entry that binds it.
    pub entry: u64,
    /// The entry its state follows.
    pub through: u64,
    /// Its SHA-256, in lower-case hex, and its length.
    pub digest: String,
    pub bytes: u64,
}

/// The SHA-256 of a checkpoint's bytes, in lower-case hex.
pub fn digest_of(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// What cashiers moved of a player's cash, in or out, on their latest day
/// (`Cage::cash_days`): the key and the day with its amount.
type CashDay<'a> = (&'a (String, bool), &'a (u64, u64));

/// The state as written: borrowed from the casino.
#[derive(Serialize)]
struct Written<'a> {
    format: u32,
    ledger: LedgerState,
    directory: &'a Directory,
    tables: &'a BTreeMap<String, String>,
    currency: &'a Option<String>,
    cash_days: Vec<CashDay<'a>>,
    tournaments: &'a BTreeMap<String, Held>,
    slots: Vec<&'a TableSlot>,
    /// What dealers sold each player at every table on their latest day
    /// (journal format 14); left out while empty, as older journals give.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    dealer_days: Vec<(&'a String, &'a (u64, u64))>,
    /// The cage's own record (journal format 14); left out while empty.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    cage_record: &'a super::cage::record::CageRecord,
}

/// The state as read back.
#[derive(Deserialize)]
struct Read {
    format: u32,
    ledger: LedgerState,
    directory: Directory,
    tables: BTreeMap<String, String>,
    currency: Option<String>,
    cash_days: Vec<((String, bool), (u64, u64))>,
    tournaments: BTreeMap<String, Held>,
    slots: Vec<TableSlot>,
    #[serde(default)]
    dealer_days: Vec<(String, (u64, u64))>,
    #[serde(default)]
    cage_record: super::cage::record::CageRecord,
}

fn unreadable(through: u64, why: impl std::fmt::Display) -> OpenError {
    OpenError::Checkpoint {
        through,
        why: why.to_string(),
    }
}

impl<S: Storage> Casino<S> {
    /// The casino's state after the last entry its ledger wrote, as a checkpoint.
    /// The same state always gives the same bytes.
    pub fn checkpoint(&self) -> Result<Checkpoint, OpenError> {
        let ledger = self.cage.ledger.state();
        let through = ledger.through;
        let directory = self.cage.directory.read();
        let mut cash_days: Vec<_> = self.cage.cash_days.iter().collect();
        cash_days.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let mut dealer_days: Vec<_> = self.cage.dealer_days.iter().collect();
        dealer_days.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let written = Written {
            format: CHECKPOINT_FORMAT,
            ledger,
            directory: &directory,
            tables: &self.cage.tables,
            currency: &self.cage.currency,
            cash_days,
            tournaments: &self.cage.tournaments,
            slots: self.tables.values().collect(),
            dealer_days,
            cage_record: &self.cage.record,
        };
        let mut bytes = Vec::new();
        ciborium::into_writer(&written, &mut bytes)
            .map_err(|e| unreadable(through, format!("cannot be written: {e}")))?;
        Ok(Checkpoint { through, bytes })
    }
}

/// A casino rebuilt from a checkpoint, on a ledger in memory (a replay's),
/// with the ledger's state to open the journal's own ledger on.
pub(super) fn restore(checkpoint: &Checkpoint) -> Result<(Casino<MemoryStorage>, LedgerState), OpenError> {
    let through = checkpoint.through;
    let read: Read = ciborium::from_reader(checkpoint.bytes.as_slice()).map_err(|e| {
        let why = match e {
            ciborium::de::Error::Semantic(_, what) => what,
            ciborium::de::Error::Syntax(at) => format!("its bytes break off or go wrong at byte {at}"),
            ciborium::de::Error::Io(e) => e.to_string(),
            ciborium::de::Error::RecursionLimitExceeded => "it nests too deep".into(),
        };
        unreadable(through, format!("it does not read as a checkpoint ({why})"))
    })?;
    if read.format != CHECKPOINT_FORMAT {
        return Err(unreadable(
            through,
            format!("it is in layout {}; this server reads {CHECKPOINT_FORMAT}", read.format),
        ));
    }
    if read.ledger.through != through {
        return Err(unreadable(
            through,
            format!("it holds the state after entry {}", read.ledger.through),
        ));
    }
    let ledger = Ledger::restore(MemoryStorage::default(), &read.ledger).map_err(|e| unreadable(through, e))?;
    let directory = SharedDirectory::default();
    directory.change(|d| *d = read.directory);
    let cash_days: HashMap<(String, bool), (u64, u64)> = read.cash_days.into_iter().collect();
    let cage = Cage {
        ledger,
        directory,
        tables: read.tables,
        currency: read.currency,
        opened: Vec::new(),
        cash_days,
        dealer_days: read.dealer_days.into_iter().collect(),
        tournaments: read.tournaments,
        record: read.cage_record,
    };
    let tables = read.slots.into_iter().map(|slot| (slot.id.clone(), slot)).collect();
    Ok((
        Casino {
            cage,
            tables,
            keep_finished: false,
        },
        read.ledger,
    ))
}
