//! The golden checkpoint: the state after the golden journal of format 16,
//! as a checkpoint's bytes, written once and kept in
//! `tests/fixtures/golden/checkpoint-16.cbor`. A casino's checkpoint is
//! bound into its journal by its SHA-256, and an audit's replay writes it
//! again: so a field of the casino's state renamed, retyped, moved or put
//! in another order strands every casino that took one, and fails here.
//! Like the golden journals it is written by running this test with
//! CROUPIER_BLESS=1, and never changed once kept.

mod common;

use croupier_ledger::{verify, MemoryStorage};
use croupier_server::casino::checkpoint::Checkpoint;
use croupier_server::casino::{replay, Actor, Casino, Request};

/// The journal format whose golden journal the checkpoint follows.
const FORMAT: u32 = 16;

fn golden(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/golden")
        .join(name)
}

#[test]
fn the_golden_checkpoint_is_written_again_byte_for_byte_and_a_start_takes_it() {
    let journal = std::fs::read_to_string(golden(&format!("format-{FORMAT:02}.jsonl"))).expect("the golden journal");
    let entries = common::jsonl::from_lines(&journal);
    let replayed = replay(&entries).expect("the golden journal replays");
    let taken = replayed.checkpoint().expect("a checkpoint");
    assert_eq!(taken.through, entries.len() as u64, "the state after the last entry");

    let path = golden(&format!("checkpoint-{FORMAT:02}.cbor"));
    if std::env::var_os("CROUPIER_BLESS").is_some() && !path.exists() {
        std::fs::write(&path, &taken.bytes).expect("written");
    }
    let kept =
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}; it is written with CROUPIER_BLESS=1", path.display()));
    assert!(
        taken.bytes == kept,
        "the state after the format-{FORMAT} golden journal is no longer written as it was: \
         {} bytes now, {} kept (SHA-256 {} now, {} kept)",
        taken.bytes.len(),
        kept.len(),
        taken.digest(),
        Checkpoint {
            through: taken.through,
            bytes: kept.clone()
        }
        .digest()
    );

    // A start from the kept bytes, once the journal binds them, is the
    // casino the whole journal gives.
    let kept = Checkpoint {
        through: taken.through,
        bytes: kept,
    };
    let now = entries.last().map_or(0, |e| e.at_ms) + 10;
    let (mut bound, _) = Casino::open_from(MemoryStorage::with_entries(entries.clone()), now, None, None)
        .expect("the golden journal opens");
    bound
        .execute(
            now,
            &Actor::system(),
            Request::Checkpoint {
                through: kept.through,
                digest: kept.digest(),
                bytes: kept.bytes.len() as u64,
            },
        )
        .expect("the checkpoint bound");
    let journal = bound.ledger().storage().entries.clone();
    assert_eq!(
        verify(&journal).first_problem,
        None,
        "the journal with its binding verifies"
    );
    let (opened, _) = Casino::open_from(MemoryStorage::with_entries(journal.clone()), now + 10, None, Some(kept))
        .expect("a start takes the golden checkpoint");
    assert_eq!(opened.ledger().next_seq(), journal.len() as u64 + 1);
    assert_eq!(
        opened.checkpoint().expect("a checkpoint").bytes,
        bound.checkpoint().expect("a checkpoint").bytes,
        "the start from the checkpoint is the casino the whole journal gives"
    );
    // Two rounds on 17, as the golden journal says.
    let chips = |p: &str| opened.balance(&format!("chips:t1:{p}"));
    assert_eq!((chips("alice"), chips("bob")), (5_000 + 2 * 16_500, 5_000 + 2 * 1_000));
}
