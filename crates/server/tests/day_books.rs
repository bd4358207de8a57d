//! The tables' books by gaming day and by dealer, and the checkpoints that keep
//! them: what each journal format adds, and that an older format's checkpoint
//! keeps its bytes.

mod common;

use croupier_core::Minor;
use croupier_ledger::{MemoryStorage, Storage};
use croupier_server::api::Role;
use croupier_server::casino::table::books::DealerBooks;
use croupier_server::casino::{replay, Casino, Request, JOURNAL_FORMAT};

use common::actors::{actor, admin};
use common::table_requests::{ball, bet, maryland_dealer_table};
use common::world::{fund, inspect_and_open, round_on_17, setup, setup_in_format, World};

/// Every text key of the maps in a checkpoint's CBOR, however deep.
fn keys_of(value: &ciborium::Value, keys: &mut std::collections::BTreeSet<String>) {
    match value {
        ciborium::Value::Map(pairs) => {
            for (k, v) in pairs {
                if let ciborium::Value::Text(k) = k {
                    keys.insert(k.clone());
                }
                keys_of(k, keys);
                keys_of(v, keys);
            }
        }
        ciborium::Value::Array(items) => items.iter().for_each(|v| keys_of(v, keys)),
        ciborium::Value::Tag(_, v) => keys_of(v, keys),
        _ => {}
    }
}

/// A checkpoint's layout and its maps' keys.
fn checkpoint_keys<S: Storage>(casino: &Casino<S>) -> (u32, std::collections::BTreeSet<String>) {
    let taken = casino.checkpoint().expect("a checkpoint");
    let value: ciborium::Value = ciborium::from_reader(taken.bytes.as_slice()).expect("CBOR");
    let layout = match &value {
        ciborium::Value::Map(pairs) => pairs
            .iter()
            .find(|(k, _)| k.as_text() == Some("format"))
            .and_then(|(_, v)| v.as_integer())
            .and_then(|n| u32::try_from(n).ok())
            .expect("a layout"),
        other => panic!("not a map: {other:?}"),
    };
    let mut keys = std::collections::BTreeSet::new();
    keys_of(&value, &mut keys);
    (layout, keys)
}

/// What the day report keeps from journal format 15, as a checkpoint names it.
const DAY_REPORT_KEYS: [&str; 4] = ["open_ms", "dealers", "on_duty", "open_since_ms"];

/// A casino upgrading from a format-14 build had every bound checkpoint
/// mismatch its replay (a false tamper report from `croupier verify`, and
/// full replays at each start): the day report's open play and dealers'
/// shares were counted and written in format 14 too, in a new layout. They
/// count from format 15, and until then the state is the bytes a format-14
/// build wrote, in layout 2.
#[test]
fn a_format_14_casinos_checkpoint_keeps_its_bytes_until_format_15_fills_the_books() {
    let mut w = setup_in_format(MemoryStorage::default(), 14);
    inspect_and_open(&mut w);
    fund(&mut w, "alice", 10_000, 5_000);
    fund(&mut w, "bob", 10_000, 5_000);
    round_on_17(&mut w, 1);
    let day = w.now / 86_400_000;
    let older = w.casino.table("t1").expect("t1").books_of(day);
    assert_eq!((older.rounds, older.open_ms, older.dealers.len()), (1, 0, 0));
    let (layout, keys) = checkpoint_keys(&w.casino);
    assert_eq!(layout, 2);
    assert!(keys.contains("books_by_day"), "the day's books are in it: {keys:?}");
    for key in DAY_REPORT_KEYS {
        assert!(!keys.contains(key), "{key} in a format-14 checkpoint");
    }
    // In format 14 the day's figures all go to no dealer.
    let shares = older.shares();
    assert_eq!(shares.keys().collect::<Vec<_>>(), ["-"]);
    assert_eq!((shares["-"].rounds, shares["-"].win()), (1, older.win()));

    // The upgrade: the new build's start moves the journal on to format 15.
    let written = w.casino.ledger().storage().entries.clone();
    let (casino, _) = Casino::open(MemoryStorage::with_entries(written), w.now).expect("reopen");
    let mut w = World { casino, now: w.now };
    assert_eq!(w.casino.journal_format(), JOURNAL_FORMAT);
    let (_, keys) = checkpoint_keys(&w.casino);
    for key in DAY_REPORT_KEYS {
        assert!(!keys.contains(key), "{key} before a format-15 entry at the table");
    }

    // Another dealer takes over the open table and deals a round: theirs is
    // that round's share, the day's earlier figures stay under `-`.
    w.ok(
        &admin(),
        Request::CreateUser {
            username: "dealer2".into(),
            role: Role::Dealer,
            password_hash: "test-hash".into(),
            licence: None,
        },
    );
    let first = w.now + 10;
    let dealer2 = actor("dealer2", Role::Dealer);
    w.ok(&dealer2, Request::OpenBetting { table: "t1".into() });
    let took_over = w.now;
    w.ok(&actor("alice", Role::Player), bet("t1", "a2", "red", 1_000));
    w.ok(&actor("bob", Role::Player), bet("t1", "b2", "black", 2_000));
    w.ok(&dealer2, Request::NoMoreBets { table: "t1".into() });
    w.ok(
        &dealer2,
        Request::Spin {
            bonus_words: Vec::new(),
            table: "t1".into(),
            spin: ball("17"),
        },
    );
    let books = w.casino.table("t1").expect("t1").books_of(day);
    assert_eq!(books.rounds, 2);
    // Open play from the table's first entry after the upgrade to its last.
    assert_eq!(books.open_ms, w.now - first);
    let shares = books.shares();
    assert_eq!(shares.keys().collect::<Vec<_>>(), ["-", "dealer2"]);
    // alice's red loses 1,000 into the float, bob's black is paid 2,000 out
    // of it. The upgrade went on to format 16: dealer2's shift runs from
    // their opening of betting to their spin, and its open play with it.
    assert_eq!(
        shares["dealer2"],
        DealerBooks {
            float_in: 1_000,
            float_out: 2_000,
            rounds: 1,
            open_ms: w.now - took_over,
            from_ms: Some(took_over),
            to_ms: Some(w.now),
            ..DealerBooks::default()
        }
    );
    assert_eq!(shares.values().map(|s| s.open_ms).sum::<u64>(), books.open_ms);
    assert_eq!(shares["-"], older.shares()["-"]);
    assert_eq!(shares.values().map(|s| s.win()).sum::<i128>(), books.win());
    let (layout, keys) = checkpoint_keys(&w.casino);
    assert_eq!(layout, 2);
    for key in DAY_REPORT_KEYS {
        assert!(keys.contains(key), "{key} once format 15 fills it");
    }
    // The journal replayed: the same state, byte for byte.
    let entries = w.casino.ledger().storage().entries.clone();
    let again = replay(&entries).expect("the journal replays whole");
    assert_eq!(
        again.checkpoint().expect("a checkpoint").bytes,
        w.casino.checkpoint().expect("a checkpoint").bytes
    );
}

/// What a dealer's shift keeps from journal format 16, as a checkpoint
/// names it (its open play and tips have names the day's books use too).
const SHIFT_KEYS: [&str; 2] = ["from_ms", "to_ms"];

// Issue 58: the shift report needs each dealer's open play, tips and the
// ends of their shift. A format-15 casino's checkpoints keep their bytes;
// from format 16 each share keeps them, and the shares' open play and tips
// sum to the day's.
#[test]
fn a_dealers_share_keeps_their_shift_from_format_16_and_a_format_15_checkpoint_its_bytes() {
    let mut w = setup_in_format(MemoryStorage::default(), 15);
    inspect_and_open(&mut w);
    fund(&mut w, "alice", 10_000, 5_000);
    fund(&mut w, "bob", 10_000, 5_000);
    round_on_17(&mut w, 1);
    let day = w.now / 86_400_000;
    let older = w.casino.table("t1").expect("t1").books_of(day);
    assert_eq!(older.dealers["dealer"].from_ms, None);
    assert_eq!(older.dealers["dealer"].open_ms, 0);
    let (_, keys) = checkpoint_keys(&w.casino);
    for key in SHIFT_KEYS {
        assert!(!keys.contains(key), "{key} in a format-15 checkpoint");
    }

    let written = w.casino.ledger().storage().entries.clone();
    let (casino, _) = Casino::open(MemoryStorage::with_entries(written), w.now).expect("reopen");
    let mut w = World { casino, now: w.now };
    assert_eq!(w.casino.journal_format(), 16);
    let upgraded = w.now;
    round_on_17(&mut w, 2);
    w.ok(
        &actor("alice", Role::Player),
        Request::Tip {
            id: "tip-1".into(),
            table: "t1".into(),
            amount: Minor::new(200),
        },
    );
    let books = w.casino.table("t1").expect("t1").books_of(day);
    let shares = books.shares();
    let dealer = &shares["dealer"];
    // The first entry after the upgrade is the dealer's opening of betting;
    // their last, alice's tip, while they were still on duty.
    assert_eq!((dealer.from_ms, dealer.to_ms), (Some(upgraded + 10), Some(w.now)));
    assert_eq!((dealer.tips, books.tips), (200, 200));
    assert_eq!(dealer.rounds, 2);
    // Open play before the upgrade went to no share, and is the rest's.
    assert_eq!(shares.values().map(|s| s.open_ms).sum::<u64>(), books.open_ms);
    assert_eq!(dealer.open_ms, w.now - upgraded);
    let (_, keys) = checkpoint_keys(&w.casino);
    for key in SHIFT_KEYS {
        assert!(keys.contains(key), "{key} once format 16 fills it");
    }
    let entries = w.casino.ledger().storage().entries.clone();
    let again = replay(&entries).expect("the journal replays whole");
    assert_eq!(
        again.checkpoint().expect("a checkpoint").bytes,
        w.casino.checkpoint().expect("a checkpoint").bytes
    );
}

// A first run posts its tables' limits on the UTC day; an admin then sets
// the casino's gaming day to Denver's from 06:00, where it is still the
// day before. The tables' books must follow the ledger's float across the
// days that come: a quiet entry opens no day's books (format 15), and a
// kept day is shown.
#[test]
fn a_gaming_day_set_back_leaves_no_quiet_day_ahead_of_the_books() {
    let mut w = setup(MemoryStorage::default());
    // 2026-11-18 08:26 UTC: 01:26 in Denver, where the gaming day from 06:00 is still the 17th.
    w.now = 1_795_000_000_000;
    let sign = common::signage(&maryland_dealer_table("t1"), JOURNAL_FORMAT).expect("Maryland's sign");
    w.ok(&actor("pit", Role::PitSupervisor), sign);
    w.ok(
        &admin(),
        Request::SetGamingDay {
            time_zone: "America/Denver".into(),
            starts_at: "06:00".into(),
        },
    );
    inspect_and_open(&mut w);
    fund(&mut w, "alice", 10_000, 5_000);
    fund(&mut w, "bob", 10_000, 5_000);
    round_on_17(&mut w, 1);
    let slot = w.casino.table("t1").expect("t1");
    let float = slot.own_balance(croupier_ledger::TableAccount::Float);
    let shift = slot
        .book_days()
        .find(|d| slot.books_of(*d).rounds == 1)
        .expect("the shift's day");
    assert!(
        slot.book_days().all(|d| d <= shift),
        "no day's books ahead of the shift's"
    );
    // The next day, nothing moved yet: it opens with the float as it stands.
    assert_eq!(
        slot.books_of(shift + 1).float_open,
        float,
        "the float carried into the next day"
    );
    assert_eq!(
        slot.books_of(shift).float_close(),
        float,
        "the shift's day closes on the ledger's float"
    );
}
