//! A journal written before the table server was reshaped (journal formats 1
//! and 2, event bodies as JSON strings holding the API's event views) still
//! opens, verifies and replays.

mod common;

use croupier_ledger::{verify, Entry, MemoryStorage};
use croupier_server::casino::{replay, Casino};

/// The fixture: one entry a line, as the server before the reshaping wrote
/// them: a table server's three tables, every kind of request and event,
/// format 1 to begin with, then format 2 after a restart that voided the
/// rounds under way.
fn old_journal() -> Vec<Entry> {
    common::jsonl::from_lines(include_str!("fixtures/journal-formats-1-and-2.jsonl"))
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
