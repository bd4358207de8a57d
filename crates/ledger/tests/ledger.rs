//! The ledger: double entry, idempotency, atomic batches, durability and tampering.

use croupier_ledger::{
    verify, Account, Applied, Ledger, LedgerError, MemoryStorage, Refusal, SqliteStorage, Storage, Transfer,
};
use proptest::prelude::*;

fn account(name: &str) -> Account {
    Account::parse(name).expect("account")
}

fn t(id: &str, from: &str, to: &str, amount: u64) -> Transfer {
    Transfer {
        id: id.into(),
        from: account(from),
        to: account(to),
        amount: croupier_ledger::Minor::new(amount),
        memo: String::new(),
    }
}

/// A stream event's body: JSON, stored as it is.
fn body(json: &str) -> Box<serde_json::value::RawValue> {
    serde_json::value::RawValue::from_string(json.to_string()).expect("JSON")
}

/// A fresh folder of its own, removed when the test ends.
fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary folder")
}

#[test]
fn accounts_are_named_strictly() {
    for ok in [
        "wallet:alice",
        "chips:t1:alice",
        "float:t1",
        "drop:t1",
        "tips:t1",
        "house",
        "outside",
        "coupons:t1",
        "layout:t-1_a.b",
        "entry-fees:winter",
        "prize-pool:winter",
        "vouchers:winter",
    ] {
        assert!(Account::parse(ok).is_ok(), "{ok}");
        assert_eq!(Account::parse(ok).map(|a| a.name()), Ok(ok.to_string()));
    }
    assert_eq!(
        Account::parse("prize-pool:winter").map(|a| a.tournament().map(str::to_string)),
        Ok(Some("winter".to_string()))
    );
    for bad in [
        "",
        "wallet:",
        "wallet:a b",
        "purse:alice",
        "chips:t1",
        "house:x",
        "wallet:a:b",
        "chips:t1:alice:x",
        "chips::alice",
        "prize-pool",
        "prize-pool:a:b",
        "layout",
        "float:",
        ":house",
        "house:",
    ] {
        assert!(Account::parse(bad).is_err(), "{bad}");
    }
    // A name too long for an id is no account, whatever its form.
    let long = format!("wallet:{}", "a".repeat(croupier_ledger::ID_MAX_BYTES));
    assert!(Account::parse(&long).is_err());
    assert!(Account::parse(&long[..croupier_ledger::ID_MAX_BYTES]).is_ok());
}

#[test]
fn double_entry_and_idempotency() {
    let mut ledger = Ledger::open(MemoryStorage::default()).expect("open");
    // Cash in at the cashier (Colorado 2202: the drop box): money arrives from outside.
    let cash_in = t("c1", "outside", "wallet:alice", 10_000);
    assert_eq!(
        ledger
            .commit(1, std::slice::from_ref(&cash_in), Vec::new())
            .expect("commit"),
        [Applied::Created]
    );
    // Resending the same transfer moves nothing.
    assert_eq!(
        ledger.commit(2, &[cash_in], Vec::new()).expect("commit"),
        [Applied::AlreadyExisted]
    );
    assert_eq!(ledger.balance(&account("wallet:alice")), 10_000);
    // Resending the id with different contents is refused.
    let err = ledger
        .commit(3, &[t("c1", "outside", "wallet:alice", 20_000)], Vec::new())
        .expect_err("conflict");
    assert!(matches!(
        err,
        LedgerError::Refused {
            refusal: Refusal::IdConflict(_),
            ..
        }
    ));
    // A wallet cannot go negative.
    let err = ledger
        .commit(4, &[t("b1", "wallet:alice", "chips:t1:alice", 10_001)], Vec::new())
        .expect_err("funds");
    assert!(matches!(
        err,
        LedgerError::Refused {
            refusal: Refusal::InsufficientFunds { .. },
            ..
        }
    ));
    // The sum over all accounts is zero.
    assert_eq!(ledger.balances().values().sum::<i128>(), 0);
    assert_eq!(ledger.balance(&account("outside")), -10_000);
}

// Colorado 2214(1): tournament chips are points with no cash value, never
// redeemed, never bought with or mixed with cash chips.
#[test]
fn tournament_points_and_money_never_move_into_each_other() {
    let mut ledger = Ledger::open(MemoryStorage::default()).expect("open");
    // The table's bank issues points, and may go below zero as the house may.
    ledger
        .commit(1, &[t("p1", "points-bank:tt", "points:tt:ann", 10_000)], Vec::new())
        .expect("points issued");
    ledger
        .commit(2, &[t("p2", "points:tt:ann", "points-layout:tt", 500)], Vec::new())
        .expect("points staked");
    assert_eq!(ledger.balance(&account("points-bank:tt")), -10_000);
    for (id, from, to) in [
        ("x1", "points:tt:ann", "wallet:ann"),
        ("x2", "house", "points:tt:ann"),
        ("x3", "points-layout:tt", "float:tt"),
        ("x4", "chips:tt:ann", "points-layout:tt"),
        ("x5", "points-bank:tt", "house"),
    ] {
        let err = ledger.commit(3, &[t(id, from, to, 1)], Vec::new()).expect_err(id);
        assert!(
            matches!(
                err,
                LedgerError::Refused {
                    refusal: Refusal::PointsAndMoney { .. },
                    ..
                }
            ),
            "{id}: {err}"
        );
    }
    // A player's points do not go below zero.
    let err = ledger
        .commit(4, &[t("p3", "points:tt:ann", "points-layout:tt", 9_501)], Vec::new())
        .expect_err("points");
    assert!(err.to_string().contains("tournament points"), "{err}");
    assert_eq!(ledger.balances().values().sum::<i128>(), 0);
}

#[test]
fn a_batch_is_all_or_nothing() {
    let mut ledger = Ledger::open(MemoryStorage::default()).expect("open");
    ledger
        .commit(1, &[t("c1", "outside", "wallet:bob", 500)], Vec::new())
        .expect("cash in");
    let batch = [
        t("buy", "wallet:bob", "chips:t1:bob", 500),
        t("bet", "chips:t1:bob", "house", 600),
    ];
    assert!(ledger.commit(2, &batch, Vec::new()).is_err());
    assert_eq!(ledger.balance(&account("wallet:bob")), 500, "nothing half-applied");
    assert!(!ledger.has_transfer("buy"));
    let next = ledger.next_seq();
    assert_eq!(ledger.storage().entries.len() as u64, next - 1);
    // A failing storage leaves the ledger unchanged too.
    let mut flaky = Ledger::open(MemoryStorage::failing_every(2)).expect("open");
    flaky
        .commit(1, &[t("c1", "outside", "wallet:bob", 500)], Vec::new())
        .expect("first append");
    assert!(flaky
        .commit(2, &[t("c2", "outside", "wallet:bob", 500)], Vec::new())
        .is_err());
    assert_eq!(flaky.balance(&account("wallet:bob")), 500);
    assert!(!flaky.has_transfer("c2"));
    flaky
        .commit(3, &[t("c2", "outside", "wallet:bob", 500)], Vec::new())
        .expect("retry lands");
    assert_eq!(flaky.balance(&account("wallet:bob")), 1000);
}

#[test]
fn sqlite_survives_reopening_and_detects_tampering() {
    let dir_folder = temp_dir();
    let dir = dir_folder.path().to_path_buf();
    {
        let mut ledger = Ledger::open(SqliteStorage::open(&dir).expect("db")).expect("open");
        ledger
            .commit(
                1,
                &[
                    t("c1", "outside", "wallet:carol", 5_000),
                    t("b1", "wallet:carol", "chips:t1:carol", 2_000),
                ],
                vec![croupier_ledger::StreamEvent::new("table:t1", body(r#"{"round":1}"#))],
            )
            .expect("commit");
    }
    let mut reopened = Ledger::open(SqliteStorage::open(&dir).expect("db")).expect("reopen");
    assert_eq!(reopened.balance(&account("chips:t1:carol")), 2_000);
    assert_eq!(
        reopened
            .commit(2, &[t("c1", "outside", "wallet:carol", 5_000)], Vec::new())
            .expect("again"),
        [Applied::AlreadyExisted]
    );
    let mut storage = SqliteStorage::open_read_only(&dir).expect("read only");
    let entries = storage.load().expect("load");
    assert_eq!(verify(&entries).first_problem, None);
    assert_eq!(verify(&entries).events, 1);
    drop(reopened);
    drop(storage);

    // The batch is one entry; change one byte of it: a space inside the stored record.
    assert_eq!(verify(&entries).entries, 1);
    assert_eq!(verify(&entries).transfers, 2);
    let raw = SqliteStorage::open(&dir).expect("db");
    raw.connection()
        .execute(
            "UPDATE journal SET record = replace(record, '\"amount\":2000', '\"amount\": 2000') WHERE seq = 1",
            [],
        )
        .expect("tamper");
    drop(raw);
    let entries = SqliteStorage::open_read_only(&dir).expect("db").load().expect("load");
    let report = verify(&entries);
    assert_eq!(report.first_problem.as_ref().map(|p| p.0), Some(1), "{report:?}");
    assert!(matches!(
        Ledger::open(SqliteStorage::open(&dir).expect("db")),
        Err(LedgerError::Corrupt { seq: 1, .. })
    ));
}

/// The one number a query about the journal's database gives.
fn one_number(storage: &SqliteStorage, sql: &str) -> i64 {
    storage.connection().query_row(sql, [], |r| r.get(0)).expect(sql)
}

/// How many indexes the journal table has beside its own key.
fn journal_indexes(storage: &SqliteStorage) -> i64 {
    one_number(storage, "SELECT count(*) FROM pragma_index_list('journal')")
}

fn page_size(storage: &SqliteStorage) -> i64 {
    one_number(storage, "PRAGMA page_size")
}

#[test]
fn a_new_journal_has_16_kib_pages_and_one_made_with_4_kib_pages_keeps_them() {
    // A flush writes each page of the log with two system calls: bigger pages, fewer calls.
    let dir_folder = temp_dir();
    let dir = dir_folder.path().to_path_buf();
    let mut ledger = Ledger::open(SqliteStorage::open(&dir).expect("db")).expect("open");
    ledger
        .commit(1, &[t("p1", "outside", "wallet:dora", 700)], Vec::new())
        .expect("commit");
    drop(ledger);
    assert_eq!(page_size(&SqliteStorage::open(&dir).expect("db")), 16384);

    // A database made before, with SQLite's default pages, opens and grows as it is.
    let older_folder = temp_dir();
    let older = older_folder.path().to_path_buf();
    std::fs::create_dir_all(&older).expect("dir");
    rusqlite::Connection::open(older.join(croupier_ledger::storage::DATABASE_FILE))
        .expect("older db")
        .execute_batch(
            "PRAGMA page_size = 4096; PRAGMA journal_mode = WAL;
             CREATE TABLE journal (seq INTEGER PRIMARY KEY, at_ms BIGINT NOT NULL, record TEXT NOT NULL,
                 prev_hash TEXT NOT NULL, hash TEXT NOT NULL);",
        )
        .expect("older table");
    let mut ledger = Ledger::open(SqliteStorage::open(&older).expect("db")).expect("open");
    for n in 0..50 {
        ledger
            .commit(n, &[t(&format!("q{n}"), "outside", "wallet:dora", 10)], Vec::new())
            .expect("commit");
    }
    drop(ledger);
    let mut storage = SqliteStorage::open_read_only(&older).expect("db");
    assert_eq!(page_size(&storage), 4096);
    let entries = storage.load().expect("load");
    assert_eq!((entries.len(), verify(&entries).first_problem), (50, None));
}

#[test]
fn the_journal_is_keyed_by_its_sequence_alone_and_an_older_table_with_an_index_still_works() {
    let dir_folder = temp_dir();
    let dir = dir_folder.path().to_path_buf();
    let storage = SqliteStorage::open(&dir).expect("db");
    assert_eq!(
        journal_indexes(&storage),
        0,
        "seq is the row's key: an append writes no index"
    );
    // A journal table as made before, its primary key a separate index.
    storage
        .connection()
        .execute_batch(
            "DROP TABLE journal;
             CREATE TABLE journal (seq BIGINT PRIMARY KEY, at_ms BIGINT NOT NULL, record TEXT NOT NULL,
                 prev_hash TEXT NOT NULL, hash TEXT NOT NULL);",
        )
        .expect("older table");
    drop(storage);
    let mut ledger = Ledger::open(SqliteStorage::open(&dir).expect("db")).expect("open");
    ledger
        .commit(1, &[t("c1", "outside", "wallet:dora", 700)], Vec::new())
        .expect("commit");
    let mut older = SqliteStorage::open(&dir).expect("db");
    assert_eq!(journal_indexes(&older), 1, "opening leaves the older table as it is");
    assert_eq!(older.load().expect("load").len(), 1);
    drop(ledger);
    let mut reopened = Ledger::open(older).expect("reopen");
    assert_eq!(reopened.balance(&account("wallet:dora")), 700);
    reopened
        .commit(2, &[t("c2", "outside", "wallet:dora", 300)], Vec::new())
        .expect("commit after reopening");
    let entries = SqliteStorage::open_read_only(&dir).expect("db").load().expect("load");
    assert_eq!((entries.len(), verify(&entries).first_problem), (2, None));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Random transfers, some refused, some resent: the total stays zero,
    /// no player-side account goes negative, and replaying the journal gives
    /// the same balances.
    #[test]
    fn money_is_conserved(ops in prop::collection::vec((0usize..6, 0usize..6, 1u64..5_000, 0u8..4), 1..200)) {
        let names = ["outside", "wallet:a", "wallet:b", "chips:t1:a", "house", "tips:t1"];
        let mut ledger = Ledger::open(MemoryStorage::default()).expect("open");
        for (i, (from, to, amount, resend)) in ops.into_iter().enumerate() {
            let id = if resend == 0 && i > 0 { format!("x{}", i - 1) } else { format!("x{i}") };
            let _ = ledger.commit(i as u64, &[t(&id, names[from], names[to], amount)], Vec::new());
            prop_assert_eq!(ledger.balances().values().sum::<i128>(), 0);
            for (account, balance) in ledger.balances() {
                prop_assert!(*balance >= 0 || account.may_go_negative(), "{account} {balance}");
            }
        }
        let report = verify(&ledger.storage().entries);
        prop_assert_eq!(report.first_problem, None);
        for (account, balance) in ledger.balances() {
            prop_assert_eq!(report.balances.get(account).copied().unwrap_or(0), *balance);
        }
    }
}

#[test]
fn a_group_is_durable_only_when_it_ends() {
    let dir_folder = temp_dir();
    let dir = dir_folder.path().to_path_buf();
    {
        let mut ledger = Ledger::open(SqliteStorage::open(&dir).expect("db")).expect("open");
        ledger.begin_group().expect("begin");
        ledger
            .commit(1, &[t("g1", "outside", "wallet:dora", 100)], Vec::new())
            .expect("first");
        ledger
            .commit(2, &[t("g2", "outside", "wallet:dora", 200)], Vec::new())
            .expect("second");
        // A refused transfer inside the group leaves the rest of the group intact.
        assert!(ledger
            .commit(3, &[t("g3", "wallet:dora", "house", 1_000)], Vec::new())
            .is_err());
        // The process dies before the group ends.
    }
    let mut ledger = Ledger::open(SqliteStorage::open(&dir).expect("db")).expect("reopen");
    assert_eq!(
        ledger.balance(&account("wallet:dora")),
        0,
        "an unfinished group is not durable"
    );
    ledger.begin_group().expect("begin");
    ledger
        .commit(1, &[t("g1", "outside", "wallet:dora", 100)], Vec::new())
        .expect("first");
    ledger
        .commit(2, &[t("g2", "outside", "wallet:dora", 200)], Vec::new())
        .expect("second");
    ledger.end_group().expect("end");
    drop(ledger);
    let ledger = Ledger::open(SqliteStorage::open(&dir).expect("db")).expect("reopen");
    assert_eq!(ledger.balance(&account("wallet:dora")), 300);
}

#[test]
fn a_journal_of_one_entry_per_transfer_still_opens() {
    // Journals written before batches became one entry hold a transfer or an event per entry.
    use croupier_ledger::{Entry, Record, StreamEvent};
    let records = [
        Record::Transfer(t("c1", "outside", "wallet:dan", 900)),
        Record::Transfer(t("b1", "wallet:dan", "chips:t1:dan", 400)),
        Record::Event(StreamEvent {
            stream: "table:t1".into(),
            body: body("{}"),
        }),
    ];
    let mut entries: Vec<Entry> = Vec::new();
    for (i, record) in records.into_iter().enumerate() {
        let prev = entries.last().map(|e| e.hash).unwrap_or([0; 32]);
        entries.push(Entry::new(i as u64 + 1, 1, record, prev));
    }
    assert!(
        entries[2].text.starts_with(r#"{"type":"event","stream":"#),
        "{}",
        entries[2].text
    );
    let report = verify(&entries);
    assert_eq!((report.first_problem, report.transfers, report.events), (None, 2, 1));
    let mut ledger = Ledger::open(MemoryStorage::with_entries(entries)).expect("open");
    assert_eq!(ledger.balance(&account("chips:t1:dan")), 400);
    assert_eq!(
        ledger
            .commit(2, &[t("b1", "wallet:dan", "chips:t1:dan", 400)], Vec::new())
            .expect("resend"),
        [Applied::AlreadyExisted]
    );
    // New batches are one entry each, after the old ones.
    ledger
        .commit(3, &[t("b2", "wallet:dan", "chips:t1:dan", 100)], Vec::new())
        .expect("commit");
    assert_eq!(ledger.storage().entries.len(), 4);
    assert_eq!(verify(&ledger.storage().entries).first_problem, None);
}

/// An id is remembered by a digest of it and of its whole transfer: a
/// resend that differs only in its memo is a conflict, not a resend, also
/// after the ledger is reopened from its journal.
#[test]
fn a_resend_differing_only_in_its_memo_is_refused_before_and_after_reopening() {
    let mut ledger = Ledger::open(MemoryStorage::default()).expect("open");
    let cash_in = t("c1", "outside", "wallet:alice", 500);
    ledger
        .commit(1, std::slice::from_ref(&cash_in), Vec::new())
        .expect("commit");
    let mut other_memo = cash_in.clone();
    other_memo.memo = "again".into();
    let refused = |ledger: &mut Ledger<MemoryStorage>| {
        matches!(
            ledger.commit(2, std::slice::from_ref(&other_memo), Vec::new()),
            Err(LedgerError::Refused {
                refusal: Refusal::IdConflict(_),
                ..
            })
        )
    };
    assert!(refused(&mut ledger));
    let storage = ledger.storage().clone();
    let mut reopened = Ledger::open(storage).expect("reopen");
    assert!(reopened.has_transfer("c1"));
    assert!(!reopened.has_transfer("c2"));
    assert!(refused(&mut reopened));
    assert_eq!(
        reopened.commit(3, &[cash_in], Vec::new()).expect("resend"),
        [Applied::AlreadyExisted]
    );
    assert_eq!(reopened.balance(&account("wallet:alice")), 500);
}

/// A batch its writer checked and serialised itself: written whole and
/// chained like any other, or, if one transfer's id was used before, one id
/// comes twice, or an account would go below zero, refused with nothing written.
#[test]
fn a_checked_batch_is_written_whole_or_refused_whole() {
    use croupier_ledger::{Record, Recorded, StreamEvent};
    let batch = |transfers: Vec<Transfer>| {
        Recorded::new(Record::Commit {
            transfers,
            events: vec![StreamEvent {
                stream: "casino".into(),
                body: body("{}"),
            }],
        })
    };
    let mut ledger = Ledger::open(MemoryStorage::default()).expect("open");
    ledger
        .commit_new(1, batch(vec![t("c1", "outside", "wallet:alice", 1_000)]))
        .expect("written");
    for (why, transfers) in [
        (
            "used before",
            vec![
                t("b1", "wallet:alice", "chips:t1:alice", 10),
                t("c1", "outside", "wallet:alice", 1_000),
            ],
        ),
        (
            "twice in the batch",
            vec![
                t("b1", "wallet:alice", "chips:t1:alice", 10),
                t("b1", "wallet:alice", "chips:t1:alice", 10),
            ],
        ),
        (
            "below zero",
            vec![
                t("b1", "wallet:alice", "chips:t1:alice", 600),
                t("b2", "wallet:alice", "chips:t1:alice", 600),
            ],
        ),
    ] {
        assert!(ledger.commit_new(2, batch(transfers)).is_err(), "{why}");
        assert_eq!(ledger.balance(&account("wallet:alice")), 1_000, "{why}");
        assert!(!ledger.has_transfer("b1"), "{why}");
        assert_eq!(ledger.next_seq(), 2, "{why}: nothing written");
    }
    ledger
        .commit_new(2, batch(vec![t("b1", "wallet:alice", "chips:t1:alice", 600)]))
        .expect("written");
    assert_eq!(ledger.balance(&account("chips:t1:alice")), 600);
    let entries = ledger.storage().clone().load().expect("entries");
    let report = verify(&entries);
    assert_eq!(report.first_problem, None);
    assert_eq!(report.balances, *ledger.balances());
}

/// With checkpoints in the background, a writer that never pauses still
/// sees its log copied whole and started again from the beginning: the log
/// stays near one interval's writes instead of growing with all of them,
/// and every entry is there after reopening.
#[test]
fn the_log_starts_again_under_a_writer_that_never_pauses() {
    use croupier_ledger::{Entry, Record, StreamEvent};
    let dir_folder = temp_dir();
    let dir = dir_folder.path().to_path_buf();
    let mut storage = SqliteStorage::open(&dir).expect("db");
    storage
        .checkpoint_in_background(&dir, std::time::Duration::from_millis(5), || {})
        .expect("checkpoints");
    let text = body(&serde_json::to_string(&"x".repeat(4_000)).expect("JSON"));
    let (mut prev, mut seq, mut written) = ([0u8; 32], 0u64, 0usize);
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_millis(1_500) {
        storage.begin_group().expect("begin");
        for _ in 0..4 {
            seq += 1;
            let record = Record::Event(StreamEvent {
                stream: "test".into(),
                body: text.clone(),
            });
            let entry = Entry::new(seq, 1, record, prev);
            prev = entry.hash;
            written += entry.text.len();
            storage.append(&[entry]).expect("append");
        }
        storage.end_group().expect("commit");
        storage.after_group();
    }
    let log = std::fs::metadata(dir.join("croupier.db-wal")).expect("log").len() as usize;
    assert!(
        log < written / 4,
        "the log holds {log} bytes after {written} were written in {seq} entries"
    );
    drop(storage);
    let entries = SqliteStorage::open(&dir).expect("reopen").load().expect("load");
    assert_eq!(entries.len() as u64, seq);
    assert_eq!(verify(&entries).first_problem, None);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Journals written before bodies were stored as JSON hold each body as a
    /// JSON string: read and written again, an entry of theirs must be the
    /// same bytes, or those journals would not replay to what they hold.
    /// Strings of any characters, control characters, quotes and backslashes included.
    #[test]
    fn an_entry_with_bodies_stored_as_strings_is_written_back_to_the_byte(
        bodies in proptest::collection::vec(any::<String>(), 0..4),
        stream in any::<String>(),
        memo in "[ -~]{0,8}",
        amounts in proptest::collection::vec(1u64..1_000_000, 0..3),
        quoted in proptest::collection::vec("[\"\\\\a-z{}:,\u{0}-\u{1f}\u{7f}é€😀]{0,40}", 0..3),
    ) {
        #[derive(serde::Serialize)]
        #[serde(tag = "type", rename_all = "snake_case")]
        enum OldRecord {
            Commit { transfers: Vec<Transfer>, events: Vec<OldEvent> },
        }
        #[derive(serde::Serialize)]
        struct OldEvent {
            stream: String,
            body: String,
        }
        let transfers: Vec<Transfer> = amounts
            .iter()
            .enumerate()
            .map(|(i, &amount)| Transfer { memo: memo.clone(), ..t(&format!("t/{i}"), "house", "wallet:p1", amount) })
            .collect();
        let events = bodies
            .iter()
            .chain(&quoted)
            .map(|body| OldEvent { stream: stream.clone(), body: body.clone() })
            .collect();
        let old = serde_json::to_string(&OldRecord::Commit { transfers, events }).expect("json");
        let record: croupier_ledger::Record = serde_json::from_str(&old).expect("reads");
        for (e, text) in record.events().iter().zip(bodies.iter().chain(&quoted)) {
            prop_assert!(e.body_is_text());
            let read = e.body_text().expect("a string").into_owned();
            prop_assert_eq!(&read, text);
        }
        let written = croupier_ledger::Entry::new(1, 2, record, [0; 32]).text;
        prop_assert_eq!(written, old);
    }
}

/// A refusal for too little money says both amounts as money, not one in
/// cents and the other in units.
#[test]
fn too_little_money_is_said_in_money() {
    let mut ledger = Ledger::open(MemoryStorage::default()).expect("open");
    ledger
        .commit(1, &[t("c1", "outside", "wallet:ann", 72_300)], Vec::new())
        .expect("cash in");
    let refused = ledger
        .commit(2, &[t("b1", "wallet:ann", "chips:t1:ann", 100_000)], Vec::new())
        .expect_err("too little");
    assert!(
        refused
            .to_string()
            .contains("ann's wallet holds 723.00, less than 1000.00"),
        "{refused}"
    );
}

/// The idempotency window: a table's transfers are remembered for its
/// newest rounds, and an id of a round it left behind is refused as expired,
/// never made again: by the ledger, by a ledger opened on the journal, by
/// one restored from its state, and by a check of the journal.
#[test]
fn a_round_a_table_left_behind_is_expired_and_stays_so() {
    use croupier_ledger::{Entry, Record, ROUNDS_REMEMBERED};
    let mut ledger = Ledger::open(MemoryStorage::default()).expect("open");
    let cash = t("cashin/1/2", "outside", "wallet:alice", 1_000_000);
    ledger.commit(1, std::slice::from_ref(&cash), Vec::new()).expect("cash");
    let stake = |round: u64| t(&format!("t1/{round}/b1/stake"), "wallet:alice", "chips:t1:alice", 10);
    let last = ROUNDS_REMEMBERED + 3;
    for round in 1..=last {
        ledger.commit(1 + round, &[stake(round)], Vec::new()).expect("stake");
    }
    let expired = |ledger: &mut Ledger<MemoryStorage>, id_round: u64| {
        let before = (ledger.next_seq(), ledger.balance(&account("wallet:alice")));
        let refused = ledger.commit(99, &[stake(id_round)], Vec::new());
        assert_eq!((ledger.next_seq(), ledger.balance(&account("wallet:alice"))), before);
        match refused {
            Err(LedgerError::Refused {
                refusal: Refusal::Expired { oldest, .. },
                ..
            }) => oldest,
            other => panic!("round {id_round}: {other:?}"),
        }
    };
    let oldest = last - ROUNDS_REMEMBERED + 1;
    let judge = |ledger: &mut Ledger<MemoryStorage>| {
        for round in 1..oldest {
            assert_eq!(expired(ledger, round), oldest);
            assert!(!ledger.has_transfer(&stake(round).id));
        }
        // The newest rounds, and an id a client chose, are resends still.
        for round in oldest..=last {
            assert_eq!(
                ledger.commit(99, &[stake(round)], Vec::new()).expect("resend"),
                [Applied::AlreadyExisted]
            );
        }
        assert_eq!(
            ledger
                .commit(99, std::slice::from_ref(&cash), Vec::new())
                .expect("resend"),
            [Applied::AlreadyExisted]
        );
        // A round never made before, but older than the window, is refused too.
        let mut other = stake(1);
        other.id = "t1/1/b9/stake".into();
        assert!(matches!(
            ledger.commit(99, &[other], Vec::new()),
            Err(LedgerError::Refused {
                refusal: Refusal::Expired { .. },
                ..
            })
        ));
    };
    judge(&mut ledger);
    let state = ledger.state();
    assert_eq!(state.windows.len(), 1);
    assert_eq!(state.windows[0].rounds.len() as u64, ROUNDS_REMEMBERED);
    assert_eq!(state.transfers.len(), 32, "only the cash-in is kept for good");

    let mut storage = ledger.storage().clone();
    let entries = storage.load().expect("load");
    let mut reopened = Ledger::open(storage.clone()).expect("reopen");
    assert_eq!(reopened.state(), state);
    judge(&mut reopened);
    let mut restored = Ledger::restore(storage, &state).expect("restore");
    assert_eq!(restored.state(), state);
    judge(&mut restored);
    assert_eq!(verify(&entries).first_problem, None);

    // A journal that made an expired id anyway fails its check there.
    let head = entries.last().expect("entries").hash;
    let mut forged = entries.clone();
    forged.push(Entry::new(
        forged.len() as u64 + 1,
        99,
        Record::Commit {
            transfers: vec![stake(1)],
            events: Vec::new(),
        },
        head,
    ));
    let (seq, why) = verify(&forged).first_problem.expect("a problem");
    assert_eq!(seq, forged.len() as u64);
    assert!(why.contains("t1/1/b1/stake") && why.contains("left behind"), "{why}");
}

/// A bet's entry much as the casino writes one: a stake and the request's event.
fn bet_entry(seq: u64, prev: [u8; 32]) -> croupier_ledger::Entry {
    let (table, player) = (format!("t{}", seq % 4), format!("p{}", seq % 200));
    let stake = t(
        &format!("{table}/{}/{player}-{seq}/stake", seq / 500 + 1),
        "outside",
        &format!("layout:{table}"),
        100 * (seq % 5 + 1),
    );
    let event = body(&format!(
        r#"{{"at_ms":{},"actor":{{"username":"{player}","role":"player"}},"request":{{"op":"place_bet","table":"{table}","bet_id":"{player}-{seq}","spot":"{}","stake":{}}}}}"#,
        1_795_780_342_816 + seq * 3,
        seq % 37,
        stake.amount
    ));
    let record = croupier_ledger::Record::Commit {
        transfers: vec![stake],
        events: vec![croupier_ledger::StreamEvent::new("casino", event)],
    };
    croupier_ledger::Entry::new(seq, 1_795_780_342_816 + seq * 3, record, prev)
}

#[test]
fn a_journal_of_bets_is_stored_compact_and_reads_back_to_the_byte() {
    let dir = temp_dir();
    let mut storage = SqliteStorage::open(dir.path()).expect("open");
    let after = croupier_ledger::compact::DICTIONARY_AFTER[0];
    let (mut prev, mut texts) = ([0u8; 32], Vec::new());
    for seq in 1..=after + 2_000 {
        let entry = bet_entry(seq, prev);
        prev = entry.hash;
        texts.push(entry.text.clone());
        storage.append(&[entry]).expect("append");
        storage.after_group();
    }
    // A record that moves no money stays text, where SQL finds it.
    let event = croupier_ledger::Record::Commit {
        transfers: Vec::new(),
        events: vec![croupier_ledger::StreamEvent::new("casino", body(r#"{"checkpoint":1}"#))],
    };
    let last = croupier_ledger::Entry::new(after + 2_001, 9, event, prev);
    texts.push(last.text.clone());
    storage.append(&[last]).expect("append");
    let count = |sql: &str| one_number(&storage, sql);
    assert_eq!(count("SELECT after_seq FROM dictionary WHERE id = 1"), after as i64);
    assert_eq!(
        count("SELECT count(*) FROM journal WHERE typeof(record) = 'blob'"),
        2_000
    );
    assert_eq!(
        count("SELECT count(*) FROM journal WHERE instr(record, '\"checkpoint\"') > 0"),
        1
    );
    let compact =
        count("SELECT sum(length(record) + length(prev_hash) + length(hash)) / count(*) FROM journal WHERE seq > 4096");
    let text = texts[after as usize..].iter().map(String::len).sum::<usize>() as i64 / 2_001;
    assert!(
        compact * 3 < text + 128,
        "a bet's row takes {compact} bytes, its text {text} and hashes 128"
    );
    drop(storage);

    let entries = SqliteStorage::open_read_only(dir.path())
        .expect("read only")
        .load()
        .expect("load");
    assert_eq!(entries.iter().map(|e| e.text.clone()).collect::<Vec<_>>(), texts);
    assert_eq!(verify(&entries).first_problem, None);
    let mut reopened = Ledger::open(SqliteStorage::open(dir.path()).expect("db")).expect("reopen");
    assert_eq!(
        reopened
            .commit(1, &[t("t1/1/p1-1/stake", "outside", "layout:t1", 200)], Vec::new())
            .expect("again"),
        [Applied::AlreadyExisted]
    );
    drop(reopened);

    // One byte changed in a compressed record, then a row taken out: each is
    // found, at its entry.
    let raw = SqliteStorage::open(dir.path()).expect("db");
    let blob: Vec<u8> = raw
        .connection()
        .query_row("SELECT record FROM journal WHERE seq = 5000", [], |r| r.get(0))
        .expect("row");
    let mut changed = blob.clone();
    let middle = changed.len() / 2;
    changed[middle] ^= 0x20;
    raw.connection()
        .execute("UPDATE journal SET record = ?1 WHERE seq = 5000", [&changed])
        .expect("tamper");
    let found = match SqliteStorage::open_read_only(dir.path()).expect("db").load() {
        Err(croupier_ledger::StorageError::Unreadable { seq, .. }) => Some(seq),
        Err(e) => panic!("{e}"),
        Ok(entries) => verify(&entries).first_problem.map(|p| p.0),
    };
    assert_eq!(found, Some(5000));
    raw.connection()
        .execute("UPDATE journal SET record = ?1 WHERE seq = 5000", [&blob])
        .expect("mend");
    // The dictionary's digest lost and its bytes changed: what it reads is not
    // what the hashes cover, and it is the dictionary that is named, not an entry to cut.
    let dictionary: Vec<u8> = raw
        .connection()
        .query_row("SELECT bytes FROM dictionary WHERE id = 1", [], |r| r.get(0))
        .expect("dictionary");
    let mut changed = dictionary.clone();
    let half = changed.len() / 2;
    changed[half..].fill(b'x');
    raw.connection()
        .execute("DELETE FROM dictionary_copy", [])
        .expect("lost");
    raw.connection()
        .execute("UPDATE dictionary SET bytes = ?1 WHERE id = 1", [&changed])
        .expect("changed");
    match SqliteStorage::open_read_only(dir.path()).expect("db").load() {
        Err(croupier_ledger::StorageError::Dictionary { seq, id: 1, .. }) => assert_eq!(seq, after + 1),
        other => panic!("{:?}", other.map(|e| e.len())),
    }
    raw.connection()
        .execute("UPDATE dictionary SET bytes = ?1 WHERE id = 1", [&dictionary])
        .expect("put back");
    raw.connection()
        .execute("DELETE FROM journal WHERE seq = 5500", [])
        .expect("take out");
    let e = SqliteStorage::open_read_only(dir.path())
        .expect("db")
        .load()
        .expect_err("a row is missing");
    assert!(
        e.to_string().contains("entry 5501") && e.to_string().contains("5500"),
        "{e}"
    );
}

#[test]
fn a_database_of_a_later_layout_is_refused_and_an_older_one_moves_on() {
    let dir = temp_dir();
    drop(SqliteStorage::open(dir.path()).expect("open"));
    let layout = |storage: &SqliteStorage| one_number(storage, "PRAGMA user_version");
    let storage = SqliteStorage::open_read_only(dir.path()).expect("read only");
    assert_eq!(layout(&storage), croupier_ledger::storage::LAYOUT);
    storage
        .connection()
        .pragma_update(None, "user_version", 0)
        .expect_err("read only");
    drop(storage);
    let raw = rusqlite::Connection::open(dir.path().join("croupier.db")).expect("raw");
    raw.pragma_update(None, "user_version", croupier_ledger::storage::LAYOUT + 1)
        .expect("later");
    for opened in [
        SqliteStorage::open(dir.path()),
        SqliteStorage::open_read_only(dir.path()),
    ] {
        let e = opened.err().expect("refused");
        assert!(e.to_string().contains("written by a later build"), "{e}");
    }
    raw.pragma_update(None, "user_version", 0).expect("older");
    let storage = SqliteStorage::open(dir.path()).expect("an older layout opens");
    assert_eq!(layout(&storage), croupier_ledger::storage::LAYOUT);
}
