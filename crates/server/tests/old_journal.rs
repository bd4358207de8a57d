//! A journal written before the table server was reshaped (journal formats 1
//! and 2, event bodies as JSON strings holding the API's event views) still
//! opens, verifies and replays.

use croupier_ledger::{verify, Entry, MemoryStorage, Record};
use croupier_server::casino::{replay, Casino};

/// The fixture: one entry a line, as the server before the reshaping wrote
/// them: a table server's three tables, every kind of request and event,
/// format 1 to begin with, then format 2 after a restart that voided the
/// rounds under way.
fn old_journal() -> Vec<Entry> {
    include_str!("fixtures/journal-formats-1-and-2.jsonl")
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("a line of JSON");
            let text = v["text"].as_str().expect("text").to_string();
            let hash = |key: &str| -> [u8; 32] {
                hex::decode(v[key].as_str().expect("hash"))
                    .expect("hex")
                    .try_into()
                    .expect("32 bytes")
            };
            Entry {
                seq: v["seq"].as_u64().expect("seq"),
                at_ms: v["at_ms"].as_u64().expect("at_ms"),
                record: serde_json::from_str::<Record>(&text).expect("a record"),
                text,
                prev_hash: hash("prev_hash"),
                hash: hash("hash"),
            }
        })
        .collect()
}

#[test]
fn a_journal_written_before_the_reshaping_verifies_replays_and_opens() {
    let entries = old_journal();
    assert!(entries.len() > 500);
    assert_eq!(verify(&entries).first_problem, None);
    let replayed = replay(&entries).expect("the old journal replays whole");
    // The replay compares every entry it writes with the journal's, byte for byte.
    assert_eq!(replayed.ledger().next_seq(), entries.len() as u64 + 1);
    let last = entries.last().expect("entries").at_ms;
    let (casino, recovered) = Casino::open(MemoryStorage::with_entries(entries.clone()), last + 1).expect("opens");
    // The rounds under way when it was written are void now, their bets returned.
    assert!(!recovered.is_empty());
    let reopened = casino.ledger().storage().entries.clone();
    assert_eq!(reopened[..entries.len()], entries[..], "opening only appends");
    assert_eq!(verify(&reopened).first_problem, None);
    let again = replay(&reopened).expect("the journal with its recovery replays");
    assert_eq!(again.ledger().balances(), casino.ledger().balances());
}
