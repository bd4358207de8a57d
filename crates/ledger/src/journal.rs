//! The hash-chained journal.

use foldhash::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

use crate::{Account, Transfer};

/// An event of some stream (the casino's requests and what they caused).
/// Its body is JSON of the stream's own, stored as it is: journals before
/// bodies were stored so held each body as a JSON string of that JSON, which
/// still reads ([`StreamEvent::body_text`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StreamEvent {
    pub stream: String,
    pub body: Box<RawValue>,
}

impl StreamEvent {
    pub fn new(stream: impl Into<String>, body: Box<RawValue>) -> StreamEvent {
        StreamEvent {
            stream: stream.into(),
            body,
        }
    }

    /// The body's JSON: the stored value, or the text of a body stored as a
    /// JSON string (as journals before raw bodies hold them).
    pub fn body_text(&self) -> Result<std::borrow::Cow<'_, str>, serde_json::Error> {
        let raw = self.body.get();
        if raw.starts_with('"') {
            serde_json::from_str::<String>(raw).map(std::borrow::Cow::Owned)
        } else {
            Ok(std::borrow::Cow::Borrowed(raw))
        }
    }

    /// Whether the body is stored as a JSON string (journals before raw bodies).
    pub fn body_is_text(&self) -> bool {
        self.body.get().starts_with('"')
    }
}

/// Two events are the same when their streams and their bodies' stored
/// bytes are: the bytes are what the journal's hash covers.
impl PartialEq for StreamEvent {
    fn eq(&self, other: &StreamEvent) -> bool {
        self.stream == other.stream && self.body.get() == other.body.get()
    }
}

impl Eq for StreamEvent {}

/// What an entry records. The ledger writes one `Commit` per batch: its
/// transfers and events in one entry, under one hash. `Transfer` and `Event`
/// (one per entry) are what journals before that hold; they still read and verify.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    Transfer(Transfer),
    Event(StreamEvent),
    Commit {
        transfers: Vec<Transfer>,
        events: Vec<StreamEvent>,
    },
}

/// A record's fields as any kind of record writes them. serde reads an
/// internally tagged enum through a buffer of its own, which a raw JSON
/// body cannot come through; this is read straight from the text instead.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordFields {
    #[serde(rename = "type")]
    kind: RecordKind,
    id: Option<String>,
    from: Option<Account>,
    to: Option<Account>,
    #[serde(default, with = "crate::minor::option")]
    amount: Option<crate::Minor>,
    memo: Option<String>,
    stream: Option<String>,
    body: Option<Box<RawValue>>,
    transfers: Option<Vec<Transfer>>,
    events: Option<Vec<StreamEvent>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum RecordKind {
    Transfer,
    Event,
    Commit,
}

impl<'de> Deserialize<'de> for Record {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Record, D::Error> {
        use serde::de::Error;
        let f = RecordFields::deserialize(deserializer)?;
        let missing = |field: &'static str| D::Error::missing_field(field);
        Ok(match f.kind {
            RecordKind::Transfer => Record::Transfer(Transfer {
                id: f.id.ok_or_else(|| missing("id"))?,
                from: f.from.ok_or_else(|| missing("from"))?,
                to: f.to.ok_or_else(|| missing("to"))?,
                amount: f.amount.ok_or_else(|| missing("amount"))?,
                memo: f.memo.ok_or_else(|| missing("memo"))?,
            }),
            RecordKind::Event => Record::Event(StreamEvent {
                stream: f.stream.ok_or_else(|| missing("stream"))?,
                body: f.body.ok_or_else(|| missing("body"))?,
            }),
            RecordKind::Commit => Record::Commit {
                transfers: f.transfers.ok_or_else(|| missing("transfers"))?,
                events: f.events.ok_or_else(|| missing("events"))?,
            },
        })
    }
}

impl Record {
    /// The transfers this entry made, in order.
    pub fn transfers(&self) -> &[Transfer] {
        match self {
            Record::Transfer(t) => std::slice::from_ref(t),
            Record::Event(_) => &[],
            Record::Commit { transfers, .. } => transfers,
        }
    }

    /// The events this entry recorded, in order.
    pub fn events(&self) -> &[StreamEvent] {
        match self {
            Record::Transfer(_) => &[],
            Record::Event(e) => std::slice::from_ref(e),
            Record::Commit { events, .. } => events,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub seq: u64,
    pub at_ms: u64,
    pub record: Record,
    /// The record exactly as stored; the hash covers these bytes, so any
    /// change to them, even one that parses the same, breaks the chain.
    pub text: String,
    pub prev_hash: [u8; 32],
    pub hash: [u8; 32],
}

/// An entry's hash: SHA-256 over the previous entry's hash, then
/// `"{seq}\n{at_ms}\n"`, then the stored text, fed in pieces so that a
/// round's settlement (hundreds of kilobytes) is never copied to be hashed.
pub fn entry_hash(prev_hash: &[u8; 32], seq: u64, at_ms: u64, text: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(prev_hash);
    // Decimal as `format!` writes it, without making a string to hold it.
    let mut digits = itoa::Buffer::new();
    h.update(digits.format(seq).as_bytes());
    h.update(b"\n");
    h.update(digits.format(at_ms).as_bytes());
    h.update(b"\n");
    h.update(text.as_bytes());
    h.finalize().into()
}

/// A record with the text it is stored as, made together so that they
/// always agree. A writer can serialise its record before its place in the
/// chain is known, away from the thread that chains the entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    record: Record,
    text: String,
}

impl Recorded {
    pub fn new(record: Record) -> Recorded {
        // serde_json writes fields in declaration order and a body as its
        // stored bytes; a record of strings, integers and JSON always serialises.
        let text = serde_json::to_string(&record).unwrap_or_default();
        Recorded { record, text }
    }

    pub fn record(&self) -> &Record {
        &self.record
    }
}

impl Entry {
    pub fn new(seq: u64, at_ms: u64, record: Record, prev_hash: [u8; 32]) -> Entry {
        Entry::chained(seq, at_ms, Recorded::new(record), prev_hash)
    }

    /// The entry numbered `seq` after the one whose hash is `prev_hash`.
    pub fn chained(seq: u64, at_ms: u64, recorded: Recorded, prev_hash: [u8; 32]) -> Entry {
        let Recorded { record, text } = recorded;
        let hash = entry_hash(&prev_hash, seq, at_ms, &text);
        Entry {
            seq,
            at_ms,
            record,
            text,
            prev_hash,
            hash,
        }
    }
}

/// What `verify` found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifyReport {
    pub entries: u64,
    pub transfers: u64,
    pub events: u64,
    /// Balances recomputed from every transfer.
    pub balances: HashMap<Account, i128>,
    /// The first entry where the chain, the numbering or a balance rule broke.
    pub first_problem: Option<(u64, String)>,
}

/// Walks the journal from the start: each entry must follow the one before
/// it in number and in hash, each transfer must keep its accounts within
/// their rules, and the total must stay zero.
pub fn verify(entries: &[Entry]) -> VerifyReport {
    let mut verifier = Verifier::default();
    for e in entries {
        if !verifier.check(e) {
            break;
        }
    }
    verifier.finish()
}

/// [`verify`] one entry at a time, for a journal read as it streams by:
/// what it holds is the balances and each transfer's digests (32 bytes a
/// transfer, which a ledger opened on the journal keeps), not the entries.
#[derive(Default)]
pub struct Verifier {
    report: VerifyReport,
    prev: [u8; 32],
    checked: u64,
    ids: crate::ids::TransferIds,
    /// Checks only the chain: numbering and hashes, not the transfers (a
    /// replay that writes every entry again checks those itself).
    chain_only: bool,
}

impl Verifier {
    /// A check of the chain alone, going on after entry `through`, whose hash
    /// is `head` (0 and zeros: from the first entry).
    pub fn chain_after(through: u64, head: [u8; 32]) -> Verifier {
        Verifier {
            prev: head,
            checked: through,
            chain_only: true,
            ..Verifier::default()
        }
    }

    /// A verifier that goes on after entry `through`, whose hash is `head`,
    /// with the balances and transfers a checkpoint holds at that entry.
    pub(crate) fn resume(
        through: u64,
        head: [u8; 32],
        balances: HashMap<Account, i128>,
        ids: crate::ids::TransferIds,
    ) -> Verifier {
        Verifier {
            report: VerifyReport {
                balances,
                ..VerifyReport::default()
            },
            prev: head,
            checked: through,
            ids,
            chain_only: false,
        }
    }

    /// Checks the next entry; false once a problem is found (what follows is not checked).
    pub fn check(&mut self, e: &Entry) -> bool {
        if self.report.first_problem.is_some() {
            return false;
        }
        let expected_seq = self.checked + 1;
        let report = &mut self.report;
        let problem = |why: String| Some((e.seq, why));
        if e.seq != expected_seq {
            report.first_problem = problem(format!("numbered {} where {expected_seq} was due", e.seq));
            return false;
        }
        if e.prev_hash != self.prev {
            report.first_problem = problem("its previous-hash does not match the entry before it".into());
            return false;
        }
        if entry_hash(&self.prev, e.seq, e.at_ms, &e.text) != e.hash {
            report.first_problem = problem("its contents do not match its hash: history was changed".into());
            return false;
        }
        for t in e.record.transfers().iter().filter(|_| !self.chain_only) {
            let id = crate::id_digest(&t.id);
            match self.ids.seen(&t.id, &id) {
                crate::ids::Seen::New => {}
                crate::ids::Seen::Made(_) => {
                    report.first_problem = problem(format!("transfer id {} appears twice", t.id));
                    return false;
                }
                crate::ids::Seen::Expired { oldest } => {
                    report.first_problem = problem(format!(
                        "transfer id {} is of a round its table had left behind (the oldest remembered was {oldest})",
                        t.id
                    ));
                    return false;
                }
            }
            self.ids.insert(&t.id, id, crate::content_digest(t));
            let from = report.balances.entry(t.from.clone()).or_insert(0);
            *from -= i128::from(t.amount.get());
            if *from < 0 && !t.from.may_go_negative() {
                report.first_problem = problem(format!("{} went negative", t.from));
                return false;
            }
            *report.balances.entry(t.to.clone()).or_insert(0) += i128::from(t.amount.get());
            report.transfers += 1;
        }
        if !self.chain_only {
            self.ids.close_batch();
        }
        report.events += e.record.events().len() as u64;
        report.entries += 1;
        self.prev = e.hash;
        self.checked += 1;
        true
    }

    /// The report over every entry checked; the total must be zero.
    pub fn finish(self) -> VerifyReport {
        self.finish_with_ids().0
    }

    /// The number of the last entry checked (or the checkpoint's it resumed at).
    pub fn through(&self) -> u64 {
        self.checked
    }

    /// The hash of the last entry checked.
    pub fn head(&self) -> [u8; 32] {
        self.prev
    }

    /// [`Verifier::finish`], with every transfer's digests and the last entry's hash.
    pub(crate) fn finish_with_ids(mut self) -> (VerifyReport, crate::ids::TransferIds, [u8; 32]) {
        if self.report.first_problem.is_none() {
            let total: i128 = self.report.balances.values().sum();
            if total != 0 {
                self.report.first_problem = Some((self.checked + 1, format!("the accounts add up to {total}, not 0")));
            }
        }
        (self.report, self.ids, self.prev)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The chain's hash is the one its documentation defines, as every
        /// stored journal was hashed: SHA-256 over the previous hash, then
        /// `"{seq}\n{at_ms}\n"` as `format!` writes it, then the text.
        #[test]
        fn an_entry_hash_is_sha256_over_the_previous_hash_the_numbers_and_the_text(
            prev in any::<[u8; 32]>(),
            seq in prop_oneof![Just(0u64), Just(u64::MAX), any::<u64>()],
            at_ms in prop_oneof![Just(0u64), Just(u64::MAX), any::<u64>()],
            text in ".*",
        ) {
            let mut whole = prev.to_vec();
            whole.extend_from_slice(format!("{seq}\n{at_ms}\n").as_bytes());
            whole.extend_from_slice(text.as_bytes());
            let expected: [u8; 32] = Sha256::digest(&whole).into();
            prop_assert_eq!(entry_hash(&prev, seq, at_ms, &text), expected);
        }
    }
}
