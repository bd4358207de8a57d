//! The journal as a contract: a journal of an older format goes on in today's,
//! and a golden journal of every format verifies and replays byte for byte.

mod common;

use croupier_ledger::{verify, MemoryStorage};
use croupier_server::api::Role;
use croupier_server::casino::journal::FORMAT_WITNESS_CONFIRMS;
use croupier_server::casino::{replay, Actor, Casino, Request, JOURNAL_FORMAT};

use common::actors::actor;
use common::world::{fund, inspect_and_open, moves, round_on_17, setup_in_format, World};

/// An adjustment at t1 naming security member `witness` by username (journal format 16).
fn adjust_witnessed_by(witness: &str) -> Request {
    Request::Adjust {
        table: "t1".into(),
        replacement: false,
        description: "levelled the wheel".into(),
        witness: Some(witness.into()),
        witness_licence: None,
        external: false,
    }
}

#[test]
fn a_journal_of_the_older_format_goes_on_in_the_new_one_and_replays_whole() {
    // A journal as a server writing format 1 left it: each bet's money moved on its own.
    let mut w = setup_in_format(MemoryStorage::default(), 1);
    inspect_and_open(&mut w);
    fund(&mut w, "alice", 10_000, 5_000);
    fund(&mut w, "bob", 10_000, 5_000);
    let older = round_on_17(&mut w, 1);
    assert_eq!(
        older,
        moves(&[
            ("t1/1/a1x/lost", "layout:t1", "float:t1", 1_000),
            ("fill/t1/9", "house", "float:t1", 17_500),
            ("t1/1/a1/back", "layout:t1", "chips:t1:alice", 500),
            ("t1/1/a1/won", "float:t1", "chips:t1:alice", 17_500),
            ("t1/1/b1/back", "layout:t1", "chips:t1:bob", 1_000),
            ("t1/1/b1/won", "float:t1", "chips:t1:bob", 1_000),
        ])
    );
    let written = w.casino.ledger().storage().entries.clone();
    assert!(written.iter().all(|e| !e.text.contains("journal_format")));

    // This server opens it, marks where its own format starts, and settles per player.
    let (casino, _) = Casino::open(MemoryStorage::with_entries(written.clone()), w.now).expect("reopen");
    let mut w = World { casino, now: w.now };
    let entries = w.casino.ledger().storage().entries.clone();
    assert_eq!(entries.len(), written.len() + 1);
    // The entry that says so is the last of the old format; those after it keep their bodies as JSON.
    assert!(entries[written.len()]
        .text
        .contains(&format!(r#"{{\"op\":\"journal_format\",\"format\":{JOURNAL_FORMAT}}}"#)));
    assert_eq!(round_on_17(&mut w, 2).len(), 6);
    assert!(w.casino.ledger().storage().entries[written.len() + 1]
        .text
        .contains(r#""body":{"at_ms":"#));
    assert!(
        w.casino
            .ledger()
            .storage()
            .entries
            .last()
            .expect("entry")
            .record
            .transfers()[0]
            .id
            == "t1/2/lost"
    );
    assert_eq!(w.chips("alice"), 5_000 + 2 * 16_500);
    assert_eq!(w.chips("bob"), 5_000 + 2 * 1_000);

    // Both formats replay to the same entries, and a second opening marks nothing more.
    let all = w.casino.ledger().storage().entries.clone();
    assert!(verify(&all).first_problem.is_none());
    // Replay compares each entry it writes with the journal's, byte for byte, and lets go of it.
    let again = replay(&all).expect("the journal replays whole");
    assert!(again.ledger().storage().entries.is_empty());
    assert_eq!(again.ledger().balances(), w.casino.ledger().balances());
    assert_eq!(again.balance("chips:t1:alice"), w.chips("alice"));
    let (reopened, _) = Casino::open(MemoryStorage::with_entries(all.clone()), w.now).expect("reopen");
    assert_eq!(reopened.ledger().storage().entries.len(), all.len());
    // Only a later format known to this server is taken.
    let (mut older, _) = Casino::open_in_format(MemoryStorage::default(), 0, 1).expect("open");
    for format in [1, JOURNAL_FORMAT + 1] {
        let refused = older
            .execute(1, &Actor::system(), Request::JournalFormat { format })
            .expect_err("refused");
        assert_eq!(refused.code, "bad_format", "{format}");
    }
}

/// The golden journal of `format`: a first shift written in it (the staff,
/// a Maryland table inspected and opened, two players funded, two rounds
/// on 17), one entry a line as the journal keeps it.
fn golden_shift(format: u32) -> Vec<croupier_ledger::Entry> {
    let mut w = setup_in_format(MemoryStorage::default(), format);
    if format >= FORMAT_WITNESS_CONFIRMS {
        // Maryland ch.2 B: an adjustment before the inspection, which its
        // security witness confirms from their own account.
        w.ok(&actor("pit", Role::PitSupervisor), adjust_witnessed_by("guard"));
        w.ok(
            &actor("guard", Role::Security),
            Request::WitnessAdjustment {
                table: "t1".into(),
                adjustment: 1,
            },
        );
    }
    inspect_and_open(&mut w);
    fund(&mut w, "alice", 10_000, 5_000);
    fund(&mut w, "bob", 10_000, 5_000);
    round_on_17(&mut w, 1);
    round_on_17(&mut w, 2);
    w.casino.ledger().storage().entries.clone()
}

/// A journal of every format from 3 to today's, written once and kept in
/// `tests/fixtures/golden/`: each must verify and replay byte for byte, so
/// that renaming or retyping a stored field, which would strand every
/// casino's journal of that format, fails here. A new format's journal is
/// written by running this test with CROUPIER_BLESS=1 (never to change an
/// existing one: a changed golden journal is a broken promise to a casino).
#[test]
fn a_golden_journal_of_every_format_verifies_and_replays_byte_for_byte() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/golden");
    let bless = std::env::var_os("CROUPIER_BLESS").is_some();
    for format in 3..=JOURNAL_FORMAT {
        let path = dir.join(format!("format-{format:02}.jsonl"));
        if bless && !path.exists() {
            std::fs::create_dir_all(&dir).expect("the golden folder");
            std::fs::write(&path, common::jsonl::to_lines(&golden_shift(format))).expect("written");
        }
        let kept = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e}; a new format's is written with CROUPIER_BLESS=1",
                path.display()
            )
        });
        let entries = common::jsonl::from_lines(&kept);
        assert!(entries.len() > 20, "format {format}: {} entries", entries.len());
        assert_eq!(verify(&entries).first_problem, None, "format {format} verifies");
        let replayed = replay(&entries).unwrap_or_else(|e| panic!("format {format} replays: {e}"));
        assert_eq!(
            replayed.ledger().next_seq(),
            entries.len() as u64 + 1,
            "format {format}"
        );
        // What the format's journal says of the money is what it said when written.
        // Two rounds on 17: alice's 5.00 straight paid 35 to 1 and her 10.00 on red lost, each
        // time; bob's 10.00 on black won.
        let chips = |p: &str| replayed.balance(&format!("chips:t1:{p}"));
        assert_eq!(
            (chips("alice"), chips("bob")),
            (5_000 + 2 * 16_500, 5_000 + 2 * 1_000),
            "format {format}"
        );
    }
}
