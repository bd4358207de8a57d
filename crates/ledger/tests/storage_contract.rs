//! The `Storage` contract, held to every store a casino can choose: SQLite
//! in the data directory, and PostgreSQL (on the throwaway cluster the test
//! command starts; `cargo test` by hand passes over that half). What one
//! store does here, the other must do alike: the casino above them cannot tell them apart.

use croupier_ledger::{
    check_seal, verify, Account, Database, Entry, Ledger, Opened, PgStorage, Record, Storage, StorageError,
    StreamEvent, Transfer,
};

fn transfer(id: &str, from: &str, to: &str, amount: u64) -> Transfer {
    Transfer {
        id: id.into(),
        from: Account::parse(from).expect("account"),
        to: Account::parse(to).expect("account"),
        amount: croupier_ledger::Minor::new(amount),
        memo: String::new(),
    }
}

/// `n` entries after `before` (number and hash), each a cash-in and an event.
fn entries_after(before: (u64, [u8; 32]), n: u64) -> Vec<Entry> {
    let (mut seq, mut prev) = before;
    (0..n)
        .map(|_| {
            seq += 1;
            let body =
                serde_json::value::RawValue::from_string(format!(r#"{{"n":{seq},"word":"ünïcode €"}}"#)).expect("JSON");
            let record = Record::Commit {
                transfers: vec![transfer(&format!("cash-{seq}"), "outside", "wallet:ann", 100)],
                events: vec![StreamEvent::new("table:t1", body)],
            };
            let entry = Entry::new(seq, 1_000 + seq, record, prev);
            prev = entry.hash;
            entry
        })
        .collect()
}

fn head(entries: &[Entry]) -> (u64, [u8; 32]) {
    entries.last().map_or((0, [0; 32]), |e| (e.seq, e.hash))
}

/// The stores under test, each a fresh, empty journal, and how to open it again.
fn databases(test: &str) -> Vec<(Database, Box<dyn std::any::Any>)> {
    let folder = tempfile::tempdir().expect("temporary folder");
    let mut out: Vec<(Database, Box<dyn std::any::Any>)> =
        vec![(Database::Sqlite(folder.path().to_path_buf()), Box::new(folder))];
    if let Some(pg) = croupier_testkit::postgres::database(test) {
        out.push((Database::Postgres(pg.url().to_string()), Box::new(pg)));
    }
    out
}

fn writer(database: &Database) -> Opened {
    database
        .open(&mut || panic!("no other writer holds the lease"))
        .expect("open to write")
}

fn read_back(database: &Database) -> Vec<Entry> {
    database.open_read_only().expect("open to read").load().expect("load")
}

fn same(a: &[Entry], b: &[Entry]) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert_eq!(
            (x.seq, x.at_ms, &x.text, x.prev_hash, x.hash),
            (y.seq, y.at_ms, &y.text, y.prev_hash, y.hash)
        );
        assert_eq!(x.record, y.record);
    }
}

#[test]
fn each_store_reads_back_what_it_took_to_the_byte_in_order_and_from_any_entry() {
    for (database, _kept) in databases("contract_reads_back") {
        let mut storage = writer(&database);
        let first = entries_after((0, [0; 32]), 3);
        storage.append(&first).expect("append three");
        let more = entries_after(head(&first), 2);
        storage.append_owned(more.clone()).expect("append two");
        let all: Vec<Entry> = first.iter().chain(&more).cloned().collect();
        same(&read_back(&database), &all);
        // From an entry on, streamed, and stopped when asked.
        let mut after = Vec::new();
        storage
            .each_after(2, &mut |e| {
                after.push(e);
                after.len() < 2
            })
            .expect("each after");
        same(&after, &all[2..4]);
        assert_eq!(storage.last_at_ms().expect("last"), Some(1_005), "{}", database.shown());
        assert_eq!(storage.last().expect("last"), Some(head(&all)));
        assert_eq!(storage.hash_of(3).expect("hash of 3"), Some(all[2].hash));
        assert_eq!(storage.hash_of(9).expect("hash of 9"), None);
        assert_eq!(storage.last_before(4).expect("before 4"), Some(3));
        assert!(verify(&read_back(&database)).first_problem.is_none());
    }
}

#[test]
fn each_store_keeps_a_group_whole_or_not_at_all() {
    for (database, _kept) in databases("contract_groups") {
        let mut storage = writer(&database);
        let kept = entries_after((0, [0; 32]), 2);
        storage.begin_group().expect("begin");
        storage.append(&kept[..1]).expect("append");
        storage.append(&kept[1..]).expect("append");
        storage.end_group().expect("end");
        // A group aborted keeps none of its appends.
        let dropped = entries_after(head(&kept), 2);
        storage.begin_group().expect("begin");
        storage.append(&dropped).expect("append");
        storage.abort_group().expect("abort");
        same(&read_back(&database), &kept);
        // An append that fails part way (an entry numbered as one kept) writes
        // none of its batch, and the group goes on without it.
        let mut clash = entries_after(head(&kept), 1);
        clash.push(kept[0].clone());
        storage.begin_group().expect("begin");
        assert!(
            storage.append(&clash).is_err(),
            "{}: a number taken twice",
            database.shown()
        );
        let next = entries_after(head(&kept), 1);
        storage.append(&next).expect("the group goes on");
        storage.end_group().expect("end");
        let all: Vec<Entry> = kept.iter().chain(&next).cloned().collect();
        same(&read_back(&database), &all);
    }
}

#[test]
fn each_store_seals_with_every_append_and_a_ledger_opens_on_it() {
    let key = [7u8; 32];
    for (database, _kept) in databases("contract_seals") {
        {
            let mut storage = writer(&database);
            assert_eq!(storage.seal().expect("seal"), None);
            storage.seal_with(key);
            let entries = entries_after((0, [0; 32]), 2);
            storage.append(&entries).expect("append");
            check_seal(
                storage.seal().expect("seal").as_ref(),
                storage.last().expect("last"),
                &key,
            )
            .expect("sealed alone");
            storage.begin_group().expect("begin");
            storage.append(&entries_after(head(&entries), 1)).expect("append");
            storage.end_group().expect("end");
            check_seal(
                storage.seal().expect("seal").as_ref(),
                storage.last().expect("last"),
                &key,
            )
            .expect("sealed in a group");
        }
        // The ledger on top opens where the journal left off, and commits on.
        let mut ledger = Ledger::open(writer(&database)).expect("ledger opens");
        assert_eq!(ledger.balance(&Account::parse("wallet:ann").expect("account")), 300);
        ledger
            .commit(2_000, &[transfer("cash-x", "outside", "wallet:ann", 50)], Vec::new())
            .expect("commit");
        drop(ledger);
        let entries = read_back(&database);
        assert_eq!(entries.len(), 4);
        let report = verify(&entries);
        assert!(report.first_problem.is_none(), "{:?}", report.first_problem);
    }
}

/// Writes a journal as the layout before entries' MACs made it (SQLite's
/// layout 2, PostgreSQL's 1), holding `entries`.
fn journal_before_macs(database: &Database, entries: &[Entry]) {
    match database {
        Database::Sqlite(dir) => {
            let db = rusqlite::Connection::open(dir.join(croupier_ledger::storage::DATABASE_FILE)).expect("db");
            db.execute_batch(
                "PRAGMA journal_mode = WAL;
                 CREATE TABLE journal (seq INTEGER PRIMARY KEY, at_ms BIGINT NOT NULL, record TEXT NOT NULL,
                     prev_hash TEXT NOT NULL, hash TEXT NOT NULL);
                 CREATE TABLE seal (id INTEGER PRIMARY KEY CHECK (id = 1), seq BIGINT NOT NULL, hash TEXT NOT NULL,
                     mac TEXT NOT NULL);
                 PRAGMA user_version = 2;",
            )
            .expect("the layout before");
            for e in entries {
                db.execute(
                    "INSERT INTO journal VALUES (?1, ?2, ?3, ?4, ?5)",
                    rusqlite::params![
                        e.seq as i64,
                        e.at_ms as i64,
                        e.text,
                        hex::encode(e.prev_hash),
                        hex::encode(e.hash)
                    ],
                )
                .expect("a row as written then");
            }
        }
        Database::Postgres(url) => {
            let mut db = postgres::Client::connect(url, postgres::NoTls).expect("the database");
            db.batch_execute(
                "CREATE TABLE journal (seq BIGINT PRIMARY KEY CHECK (seq > 0), at_ms BIGINT NOT NULL,
                     record TEXT NOT NULL, hash BYTEA NOT NULL);
                 CREATE TABLE layout (id INTEGER PRIMARY KEY CHECK (id = 1), version BIGINT NOT NULL);
                 INSERT INTO layout VALUES (1, 1);",
            )
            .expect("the layout before");
            for e in entries {
                db.execute(
                    "INSERT INTO journal VALUES ($1, $2, $3, $4)",
                    &[&(e.seq as i64), &(e.at_ms as i64), &e.text, &&e.hash[..]],
                )
                .expect("a row as written then");
            }
        }
    }
}

/// The database's layout as it stands: SQLite's `user_version`, PostgreSQL's `layout` row.
fn layout_of(database: &Database) -> i64 {
    match database {
        Database::Sqlite(dir) => rusqlite::Connection::open(dir.join(croupier_ledger::storage::DATABASE_FILE))
            .expect("db")
            .query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))
            .expect("layout"),
        Database::Postgres(url) => postgres::Client::connect(url, postgres::NoTls)
            .expect("db")
            .query_one("SELECT version FROM layout", &[])
            .expect("layout")
            .get(0),
    }
}

/// Each entry with the MAC the store keeps beside it.
fn with_macs(database: &Database) -> Vec<(u64, [u8; 32], Option<croupier_ledger::EntryMac>)> {
    let mut read = Vec::new();
    database
        .open_read_only()
        .expect("open to read")
        .each_with_macs(0, u64::MAX, &mut |e, mac| {
            read.push((e.seq, e.hash, mac));
            true
        })
        .expect("read");
    read
}

/// A journal of the layout before MACs reads as it was, its entries with
/// none; a writer of this build adds the column (layout 3 on SQLite, 2 on
/// PostgreSQL, which a build before refuses) and keeps each entry it seals
/// with its MAC under the secret beside it.
#[test]
fn each_store_keeps_each_entrys_mac_beside_it_and_reads_a_journal_from_before_macs() {
    let key = [7u8; 32];
    for (database, _kept) in databases("contract_macs") {
        let before = entries_after((0, [0; 32]), 2);
        journal_before_macs(&database, &before);
        assert_eq!(
            with_macs(&database),
            before.iter().map(|e| (e.seq, e.hash, None)).collect::<Vec<_>>(),
            "{}: read as written, to read only, before a writer of this build opens it",
            database.shown()
        );
        let mut storage = writer(&database);
        if !database.is_postgres() {
            // Opened, nothing written yet: the build before can still open
            // it (to recover a damaged end, which this build cannot for
            // entries no MAC vouches for); the first entry under a MAC moves it on.
            assert_eq!(
                layout_of(&database),
                2,
                "{}: the layout before, until an entry is written",
                database.shown()
            );
        }
        storage.seal_with(key);
        let after = entries_after(head(&before), 2);
        storage.append(&after[..1]).expect("alone");
        storage.begin_group().expect("begin");
        storage.append(&after[1..]).expect("in a group");
        storage.end_group().expect("end");
        drop(storage);
        let read = with_macs(&database);
        let all: Vec<Entry> = before.iter().chain(&after).cloned().collect();
        same(&read_back(&database), &all);
        let entry_key = croupier_ledger::EntryKey::of(&key);
        for (seq, hash, mac) in &read {
            match mac {
                None => assert!(*seq <= 2, "{}: entry {seq} sealed without its MAC", database.shown()),
                Some(mac) => assert!(
                    *seq > 2 && entry_key.vouches(*seq, hash, mac),
                    "{}: entry {seq}",
                    database.shown()
                ),
            }
        }
        let mut check = croupier_ledger::MacCheck::new(&key);
        for (seq, hash, mac) in &read {
            check.check(*seq, hash, mac.as_ref());
        }
        assert_eq!((check.first(), check.vouched(), check.problem()), (Some(3), 4, None));
        let layout = layout_of(&database);
        let expected = match &database {
            Database::Sqlite(_) => croupier_ledger::storage::LAYOUT,
            Database::Postgres(_) => croupier_ledger::pg::PG_LAYOUT,
        };
        assert_eq!(
            (layout, expected),
            (expected, if database.is_postgres() { 2 } else { 3 })
        );
    }
}

#[test]
fn a_store_opened_to_read_writes_nothing() {
    for (database, _kept) in databases("contract_read_only") {
        writer(&database)
            .append(&entries_after((0, [0; 32]), 1))
            .expect("append");
        let mut reader = database.open_read_only().expect("read only");
        assert!(
            reader.append(&entries_after((9, [0; 32]), 1)).is_err(),
            "{}",
            database.shown()
        );
        assert_eq!(read_back(&database).len(), 1);
    }
}

/// Two nodes on one PostgreSQL journal: one writes at a time. A second
/// writer waits for the lease, and takes it the moment the first lets go
/// (its connection ends, as when its node dies).
#[test]
fn one_postgres_writer_at_a_time_and_the_next_takes_over_when_it_goes() {
    let Some(pg) = croupier_testkit::postgres::database("contract_lease") else {
        return;
    };
    let database = Database::Postgres(pg.url().to_string());
    let mut first = writer(&database);
    let entries = entries_after((0, [0; 32]), 2);
    first.append(&entries).expect("append");
    let (waited_tx, waited_rx) = std::sync::mpsc::channel();
    let (opened_tx, opened_rx) = std::sync::mpsc::channel();
    let second = {
        let database = database.clone();
        std::thread::spawn(move || {
            let opened = database.open(&mut || {
                let _ = waited_tx.send(());
                Ok(())
            });
            let _ = opened_tx.send(());
            opened
        })
    };
    waited_rx
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("the second writer is told to wait");
    assert!(
        opened_rx.recv_timeout(std::time::Duration::from_secs(1)).is_err(),
        "the second writer opened while the first holds the lease"
    );
    // The first goes on writing meanwhile; then it goes.
    let more = entries_after(head(&entries), 1);
    first.append(&more).expect("append");
    drop(first);
    opened_rx
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("the second writer takes over");
    let mut second = second.join().expect("thread").expect("opened");
    let Opened::Postgres(pg_storage) = &mut second else {
        panic!("a PostgreSQL store");
    };
    assert!(pg_storage.holds_lease().expect("asked"));
    assert_eq!(second.last().expect("last"), Some(head(&more)));
    // The primary key fences: an entry numbered as one written is refused.
    let refused = second.append(&more);
    assert!(refused.is_err(), "an entry written twice");
    second
        .append(&entries_after(head(&more), 1))
        .expect("goes on from the end");
    assert_eq!(read_back(&database).len(), 4);
}

#[test]
fn a_postgres_url_that_answers_nothing_is_named_without_its_password() {
    let refused = PgStorage::open_read_only("postgres://casino:s3cret@127.0.0.1:1/croupier");
    let Err(StorageError::Unreachable { at, why }) = refused else {
        panic!("an address nothing listens on");
    };
    assert_eq!(at, "postgres://casino@127.0.0.1:1/croupier");
    assert!(!why.contains("s3cret"), "{why}");
    let not_postgres = Database::of(std::path::Path::new("data"), Some("mysql://casino:s3cret@db/x"));
    let message = not_postgres.expect_err("not PostgreSQL");
    assert!(
        message.contains("not a PostgreSQL URL") && !message.contains("s3cret"),
        "{message}"
    );
}

/// Whoever administers the database can drop a table's checks: a row
/// numbered below 1, a hash of no value, are each a reader's error naming
/// what is wrong, never a row passed over or a panic.
#[test]
fn a_postgres_journal_changed_past_its_tables_checks_is_refused_not_passed_over() {
    let Some(pg) = croupier_testkit::postgres::database("contract_tampered") else {
        return;
    };
    let database = Database::Postgres(pg.url().to_string());
    writer(&database)
        .append(&entries_after((0, [0; 32]), 3))
        .expect("append");
    let mut db = postgres::Client::connect(pg.url(), postgres::NoTls).expect("the database");
    // The table refuses such a row while its checks stand.
    assert!(db
        .batch_execute("INSERT INTO journal VALUES (0, 1, '{}', '\\x00')")
        .is_err());
    db.batch_execute(
        "ALTER TABLE journal DROP CONSTRAINT journal_seq_check;
         INSERT INTO journal VALUES (-7, 1, 'anything', '\\x01');",
    )
    .expect("the insider's row");
    let read = database.open_read_only().expect("opens").load();
    assert!(
        matches!(&read, Err(StorageError::Unreadable { why, .. }) if why.contains("numbered -7")),
        "{:?}",
        read.err()
    );
    db.batch_execute(
        "DELETE FROM journal WHERE seq < 1;
         ALTER TABLE journal ALTER COLUMN hash DROP NOT NULL;
         UPDATE journal SET hash = NULL WHERE seq = 2;",
    )
    .expect("a hash of no value");
    let read = database.open_read_only().expect("opens").load();
    assert!(
        matches!(&read, Err(StorageError::Unreadable { seq: 2, why }) if why.contains("column hash")),
        "{:?}",
        read.err()
    );
    let hash = database.open_read_only().expect("opens").hash_of(2);
    assert!(matches!(hash, Err(StorageError::Unreadable { seq: 2, .. })), "{hash:?}");
}
