//! The hash-chained journal.

use foldhash::{HashMap, HashSet, HashSetExt};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::{Account, Transfer};

/// An event of some stream (the casino's requests and what they caused).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamEvent {
    pub stream: String,
    pub body: String,
}

/// What an entry records. The ledger writes one `Commit` per batch: its
/// transfers and events in one entry, under one hash. `Transfer` and `Event`
/// (one per entry) are what journals before that hold; they still read and verify.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    Transfer(Transfer),
    Event(StreamEvent),
    Commit {
        transfers: Vec<Transfer>,
        events: Vec<StreamEvent>,
    },
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
        let text = match &record {
            Record::Commit { transfers, events } => commit_text(transfers, events),
            // serde_json writes fields in declaration order, and a Record of
            // strings and integers always serialises.
            other => serde_json::to_string(other).unwrap_or_default(),
        };
        Recorded { record, text }
    }

    pub fn record(&self) -> &Record {
        &self.record
    }
}

/// What serde_json writes for a `Record::Commit`, byte for byte (a test
/// holds the two together), written directly. A commit's events are JSON
/// texts themselves, so every quote in them is escaped: serde_json's escaping
/// writes the run between two quotes, then the escape, a call each, and took
/// a tenth of the work of placing a bet. Here each byte is copied once into
/// room made for it: each string's escaped length is counted first, so the
/// text is allocated once at its final size and only that room is cleared.
fn commit_text(transfers: &[Transfer], events: &[StreamEvent]) -> String {
    let lengths: Vec<(usize, usize)> = events
        .iter()
        .map(|e| (escaped_len(&e.stream), escaped_len(&e.body)))
        .collect();
    let strings: usize = lengths.iter().map(|(stream, body)| stream + body).sum();
    let mut out = Vec::with_capacity(64 + 160 * transfers.len() + strings + 24 * events.len());
    out.extend_from_slice(b"{\"type\":\"commit\",\"transfers\":");
    // Transfers hold short ids and account names: serde_json writes them.
    if serde_json::to_writer(&mut out, transfers).is_err() {
        unreachable!("a transfer of strings and integers always serialises");
    }
    out.extend_from_slice(b",\"events\":[");
    for (i, (e, &(stream_len, body_len))) in events.iter().zip(&lengths).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"stream\":");
        push_json_string(&mut out, &e.stream, stream_len);
        out.extend_from_slice(b",\"body\":");
        push_json_string(&mut out, &e.body, body_len);
        out.push(b'}');
    }
    out.extend_from_slice(b"]}");
    // Only whole UTF-8 text and ASCII went in.
    String::from_utf8(out).unwrap_or_else(|_| unreachable!("a commit's text is UTF-8"))
}

/// How serde_json escapes each byte of a string: 0 for none, `u` for
/// `\u00XX`, or the letter after the backslash.
const ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = b'u';
        b += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

/// How many bytes `s` takes as a JSON string, quotes included.
fn escaped_len(s: &str) -> usize {
    let grown: usize = s
        .bytes()
        .map(|b| match ESCAPE[usize::from(b)] {
            0 => 0,
            b'u' => 5,
            _ => 1,
        })
        .sum();
    s.len() + grown + 2
}

/// Appends `s` as a JSON string, exactly as serde_json writes it, in
/// `escaped` bytes ([`escaped_len`]). The bytes go through an index into
/// room made first: pushing each one onto `out` stored its length back on
/// every byte (a byte written may alias it), and took a third longer.
fn push_json_string(out: &mut Vec<u8>, s: &str, escaped: usize) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let start = out.len();
    out.resize(start + escaped, 0);
    let room = &mut out[start..];
    room[0] = b'"';
    let mut at = 1;
    for &b in s.as_bytes() {
        match ESCAPE[usize::from(b)] {
            0 => {
                room[at] = b;
                at += 1;
            }
            b'u' => {
                room[at..at + 6].copy_from_slice(&[
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(b >> 4)],
                    HEX[usize::from(b & 0xf)],
                ]);
                at += 6;
            }
            letter => {
                room[at] = b'\\';
                room[at + 1] = letter;
                at += 2;
            }
        }
    }
    room[at] = b'"';
    debug_assert_eq!(at + 1, escaped, "escaped_len counted what push_json_string writes");
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
    let mut report = VerifyReport::default();
    let mut prev = [0u8; 32];
    let mut expected_seq = 1u64;
    let mut ids = HashSet::new();
    for e in entries {
        let problem = |why: String| Some((e.seq, why));
        if e.seq != expected_seq {
            report.first_problem = problem(format!("numbered {} where {expected_seq} was due", e.seq));
            break;
        }
        if e.prev_hash != prev {
            report.first_problem = problem("its previous-hash does not match the entry before it".into());
            break;
        }
        if entry_hash(&prev, e.seq, e.at_ms, &e.text) != e.hash {
            report.first_problem = problem("its contents do not match its hash: history was changed".into());
            break;
        }
        for t in e.record.transfers() {
            if !ids.insert(t.id.clone()) {
                report.first_problem = problem(format!("transfer id {} appears twice", t.id));
                break;
            }
            let from = report.balances.entry(t.from.clone()).or_insert(0);
            *from -= i128::from(t.amount);
            if *from < 0 && !t.from.may_go_negative() {
                report.first_problem = problem(format!("{} went negative", t.from));
                break;
            }
            *report.balances.entry(t.to.clone()).or_insert(0) += i128::from(t.amount);
            report.transfers += 1;
        }
        if report.first_problem.is_some() {
            break;
        }
        report.events += e.record.events().len() as u64;
        report.entries += 1;
        prev = e.hash;
        expected_seq += 1;
    }
    if report.first_problem.is_none() {
        let total: i128 = report.balances.values().sum();
        if total != 0 {
            report.first_problem = Some((expected_seq, format!("the accounts add up to {total}, not 0")));
        }
    }
    report
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
