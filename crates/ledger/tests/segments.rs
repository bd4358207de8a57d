//! Journal segments: a gaming day's entries moved out of the live database
//! into a file of their own read back as they were, from where they lie;
//! one missing, moved, changed or swapped is named, never read as another.

use std::path::Path;
use std::time::Duration;

use croupier_ledger::segments::{self, DAY_MS, SEGMENTS_DIR};
use croupier_ledger::{verify, Account, Entry, Record, SqliteStorage, Storage, StorageError, StreamEvent, Transfer};

/// `per_day` entries on each of `days` gaming days, each a cash-in and an event.
fn days_of_entries(days: u64, per_day: u64) -> Vec<Entry> {
    let mut prev = [0; 32];
    let mut out = Vec::new();
    for day in 0..days {
        for i in 0..per_day {
            let seq = out.len() as u64 + 1;
            let body = serde_json::value::RawValue::from_string(format!(r#"{{"n":{seq}}}"#)).expect("JSON");
            let record = Record::Commit {
                transfers: vec![Transfer {
                    id: format!("cash-{seq}"),
                    from: Account::parse("outside").expect("account"),
                    to: Account::parse("wallet:ann").expect("account"),
                    amount: croupier_ledger::Minor::new(100),
                    memo: String::new(),
                }],
                events: vec![StreamEvent::new("table:t1", body)],
            };
            // Gaming day 20,000 is 2024-10-04 (UTC).
            let entry = Entry::new(seq, (20_000 + day) * DAY_MS + 60_000 * i, record, prev);
            prev = entry.hash;
            out.push(entry);
        }
    }
    out
}

/// The journal's key, as a server's secret gives it.
const KEY: [u8; 32] = [9; 32];

fn same(read: &[Entry], written: &[Entry]) {
    assert_eq!(read.len(), written.len());
    for (x, y) in read.iter().zip(written) {
        assert_eq!(
            (x.seq, x.at_ms, &x.text, x.prev_hash, x.hash),
            (y.seq, y.at_ms, &y.text, y.prev_hash, y.hash)
        );
    }
}

fn all(storage: &SqliteStorage) -> Result<Vec<Entry>, StorageError> {
    let mut read = Vec::new();
    storage.each_between(0, u64::MAX, &mut |e| {
        read.push(e);
        true
    })?;
    Ok(read)
}

fn live_rows(dir: &Path) -> (i64, i64) {
    let conn = rusqlite::Connection::open(dir.join(croupier_ledger::storage::DATABASE_FILE)).expect("live");
    conn.query_row("SELECT min(seq), count(*) FROM journal", [], |r| {
        Ok((r.get(0)?, r.get(1)?))
    })
    .expect("rows")
}

/// The writer's upkeep between groups until the rows the segments hold are gone.
fn prune(storage: &mut SqliteStorage, dir: &Path) {
    let end = storage.segments_end().expect("catalogue").map_or(0, |(end, _)| end);
    for _ in 0..50 {
        if live_rows(dir).0 as u64 > end {
            return;
        }
        storage.after_group();
        std::thread::sleep(Duration::from_millis(110));
    }
    panic!("the rows the segments hold never left the live journal");
}

/// A journal of three gaming days, the first two moved into segments.
fn two_days_cut(dir: &Path) -> (SqliteStorage, Vec<Entry>) {
    let entries = days_of_entries(3, 40);
    let mut storage = SqliteStorage::open(dir).expect("open");
    storage.seal_with(KEY);
    storage.append(&entries).expect("append");
    let first = segments::cut(dir, 40, Some(&KEY)).expect("cut").expect("a segment");
    let second = segments::cut(dir, 80, Some(&KEY)).expect("cut").expect("a segment");
    assert_eq!((first.first, first.last, first.file.as_str()), (1, 40, "2024-10-04.db"));
    assert_eq!(
        (second.first, second.last, second.file.as_str()),
        (41, 80, "2024-10-05.db")
    );
    assert_eq!(
        segments::cut(dir, 80, Some(&KEY)).expect("cut"),
        None,
        "nothing is cut twice"
    );
    (storage, entries)
}

#[test]
fn a_gaming_days_entries_move_to_a_segment_and_read_back_as_they_were() {
    let folder = tempfile::tempdir().expect("folder");
    let dir = folder.path();
    let (mut storage, entries) = two_days_cut(dir);
    // Catalogued, and still in the live database too (a crash before the
    // writer deletes them): each entry is read once.
    same(&all(&storage).expect("read"), &entries);
    prune(&mut storage, dir);
    assert_eq!(live_rows(dir), (81, 40), "the live journal holds the last day alone");
    assert!(dir.join(SEGMENTS_DIR).join("2024-10-04.db").is_file());
    let read = all(&storage).expect("read");
    same(&read, &entries);
    assert!(
        verify(&read).first_problem.is_none(),
        "the chain runs on across the files"
    );
    // Each row keeps its MAC in its segment: the secret vouches for every entry.
    let mut macs = croupier_ledger::MacCheck::new(&KEY);
    storage
        .each_with_macs(0, u64::MAX, &mut |e, mac| {
            macs.check(e.seq, &e.hash, mac.as_ref());
            true
        })
        .expect("read");
    assert_eq!((macs.vouched(), macs.first(), macs.problem()), (120, Some(1), None));
    // From any entry, in a segment or across the edge of one.
    let mut from_mid = Vec::new();
    storage
        .each_between(30, 90, &mut |e| {
            from_mid.push(e);
            true
        })
        .expect("read");
    same(&from_mid, &entries[30..90]);
    for seq in [1, 2, 40, 41, 63, 80, 81, 120] {
        assert_eq!(
            storage.hash_of(seq).expect("hash"),
            Some(entries[seq as usize - 1].hash),
            "entry {seq}"
        );
    }
    assert_eq!(storage.last_before(81).expect("before"), Some(80));
    assert_eq!(storage.last().expect("last").map(|(s, _)| s), Some(120));
    // A recovery cuts only after the segments.
    let refused = storage.cut_after(50, &[7; 32]).expect_err("refused");
    assert!(refused.to_string().contains("lies in a segment"), "{refused}");
    // Opened again, to read only, as `croupier verify` opens it.
    let reader = SqliteStorage::open_read_only(dir).expect("open");
    same(&all(&reader).expect("read"), &entries);
}

#[test]
fn a_segment_archived_elsewhere_is_named_and_read_where_it_lies() {
    let folder = tempfile::tempdir().expect("folder");
    let dir = folder.path().join("data");
    let (mut storage, entries) = two_days_cut(&dir);
    prune(&mut storage, &dir);
    let archive = folder.path().join("archive");
    std::fs::create_dir_all(&archive).expect("archive");
    std::fs::rename(
        dir.join(SEGMENTS_DIR).join("2024-10-04.db"),
        archive.join("2024-10-04.db"),
    )
    .expect("moved");
    let mut reader = SqliteStorage::open_read_only(&dir).expect("open");
    match all(&reader) {
        Err(StorageError::SegmentMissing { first, last, file, .. }) => {
            assert_eq!((first, last, file.as_str()), (1, 40, "2024-10-04.db"))
        }
        other => panic!("expected the missing segment named, got {:?}", other.map(|e| e.len())),
    }
    // What a start reads needs no segment; the first entry's hash is in the catalogue.
    let mut after = Vec::new();
    reader
        .each_between(80, u64::MAX, &mut |e| {
            after.push(e);
            true
        })
        .expect("the live part reads");
    same(&after, &entries[80..]);
    assert_eq!(reader.hash_of(1).expect("hash"), Some(entries[0].hash));
    reader.read_segments_from(archive);
    same(&all(&reader).expect("read where it lies"), &entries);
}

#[test]
fn a_segment_changed_or_swapped_is_caught() {
    let folder = tempfile::tempdir().expect("folder");
    let dir = folder.path();
    let (mut storage, entries) = two_days_cut(dir);
    prune(&mut storage, dir);
    let seg = |name: &str| dir.join(SEGMENTS_DIR).join(name);
    // One record changed in its file: the chain breaks there.
    let changed = rusqlite::Connection::open(seg("2024-10-05.db")).expect("segment");
    let n = changed
        .execute(
            "UPDATE journal SET record = replace(record, '\"n\":50', '\"n\":51') WHERE seq = 50",
            [],
        )
        .expect("changed");
    assert_eq!(n, 1);
    drop(changed);
    let read = all(&storage).expect("read");
    assert_eq!(read.len(), entries.len());
    assert_eq!(verify(&read).first_problem.map(|(seq, _)| seq), Some(50));
    // The first day's file put where the second's is looked for: refused by name.
    std::fs::copy(seg("2024-10-04.db"), seg("2024-10-05.db")).expect("swapped");
    let refused = all(&storage).expect_err("refused");
    assert!(
        refused
            .to_string()
            .contains("is not the segment the journal names for entries 41 to 80"),
        "{refused}"
    );
}

#[test]
fn a_segment_left_half_written_is_made_again() {
    let folder = tempfile::tempdir().expect("folder");
    let dir = folder.path();
    let entries = days_of_entries(2, 10);
    let mut storage = SqliteStorage::open(dir).expect("open");
    storage.append(&entries).expect("append");
    std::fs::create_dir_all(dir.join(SEGMENTS_DIR)).expect("folder");
    std::fs::write(dir.join(SEGMENTS_DIR).join("2024-10-04.db.partial"), b"half a file").expect("planted");
    let segment = segments::cut(dir, 10, None).expect("cut").expect("a segment");
    assert_eq!(segment.file, "2024-10-04.db");
    assert!(!dir.join(SEGMENTS_DIR).join("2024-10-04.db.partial").exists());
    prune(&mut storage, dir);
    same(&all(&storage).expect("read"), &entries);
}

/// An insider's forgery: entry 100 changed and the chain made again from
/// it, written as a segment and catalogued over the live rows (and, in a
/// second try, with those rows deleted too). Neither reads as the journal.
#[test]
fn a_forged_segment_catalogued_over_the_live_rows_is_refused() {
    let key = KEY;
    let folder = tempfile::tempdir().expect("folder");
    let dir = folder.path().join("data");
    let entries = days_of_entries(3, 40);
    let mut storage = SqliteStorage::open(&dir).expect("open");
    storage.seal_with(key);
    storage.append(&entries).expect("append");
    segments::cut(&dir, 40, Some(&key)).expect("cut").expect("a segment");
    prune(&mut storage, &dir);
    // The forgery, made with the product's own writer in a folder of the
    // insider's, who has the data directory but not the secret.
    let mut forged = entries.clone();
    let mut prev = forged[98].hash;
    for (i, e) in forged.iter_mut().enumerate().skip(99) {
        let mut text = e.text.clone();
        if i == 99 {
            text = text.replace("\"amount\":100", "\"amount\":100000");
            assert_ne!(text, e.text, "the forgery changes the amount");
        }
        *e = Entry::new(e.seq, e.at_ms, serde_json::from_str(&text).expect("record"), prev);
        prev = e.hash;
    }
    let workshop = folder.path().join("workshop");
    SqliteStorage::open(&workshop)
        .expect("open")
        .append(&forged)
        .expect("append");
    segments::cut(&workshop, 40, None).expect("cut");
    let planted = segments::cut(&workshop, 120, None).expect("cut").expect("a segment");
    std::fs::copy(
        workshop.join(SEGMENTS_DIR).join(&planted.file),
        dir.join(SEGMENTS_DIR).join("planted.db"),
    )
    .expect("planted");
    let planted_copy = rusqlite::Connection::open(dir.join(SEGMENTS_DIR).join("planted.db")).expect("planted");
    planted_copy
        .execute("UPDATE segment_of SET file = 'planted.db'", [])
        .expect("renamed");
    drop(planted_copy);
    let live = rusqlite::Connection::open(dir.join(croupier_ledger::storage::DATABASE_FILE)).expect("live");
    live.execute(
        "INSERT INTO segment (first, last, prev_hash, first_hash, last_hash, file, mac) VALUES (41, 120, ?1, ?2, ?3, 'planted.db', ?4)",
        rusqlite::params![&planted.prev_hash[..], &planted.first_hash[..], &planted.last_hash[..], &planted.mac[..]],
    )
    .expect("catalogued");
    // With the secret (a server, `verify` with its keys): the row is not sealed.
    let refused = all(&storage).expect_err("a catalogue row the secret did not seal");
    assert!(
        refused.to_string().contains("that the secret did not seal"),
        "{refused}"
    );
    // Without it, the live rows the segment claims are not its rows.
    let unkeyed = SqliteStorage::open_read_only(&dir).expect("open");
    let refused = all(&unkeyed).expect_err("a segment over live rows that differ");
    assert!(refused.to_string().contains("hold different entries"), "{refused}");
    // Nor does the writer delete the live rows for it.
    storage.after_group();
    assert_eq!(live_rows(&dir), (41, 80), "the live rows stay");
    // The live rows deleted as well: the journal now ends in the forged
    // segment, and the seal, made with the secret, is not of its end.
    live.execute("DELETE FROM journal WHERE seq > 40", []).expect("deleted");
    let read = all(&unkeyed).expect("the forged chain reads without the secret");
    assert!(
        verify(&read).first_problem.is_none(),
        "it chains: only the secret can tell"
    );
    let last = unkeyed.last().expect("last");
    assert_eq!(last.map(|(seq, _)| seq), Some(120));
    assert!(
        croupier_ledger::check_seal(unkeyed.seal().expect("seal").as_ref(), last, &key).is_err(),
        "the seal is of the real entry 120"
    );
}

#[test]
fn a_segments_catalogue_changed_to_match_a_forged_day_is_refused_by_the_secret() {
    let folder = tempfile::tempdir().expect("folder");
    let dir = folder.path();
    let (mut storage, _) = two_days_cut(dir);
    prune(&mut storage, dir);
    // The insider re-chains the day and writes its new end into the catalogue.
    let live = rusqlite::Connection::open(dir.join(croupier_ledger::storage::DATABASE_FILE)).expect("live");
    live.execute("UPDATE segment SET last_hash = zeroblob(32) WHERE first = 41", [])
        .expect("changed");
    let refused = all(&storage).expect_err("refused");
    assert!(
        refused.to_string().contains("that the secret did not seal"),
        "{refused}"
    );
    // A file named by a path is refused whatever the secret.
    live.execute("UPDATE segment SET file = '../elsewhere.db' WHERE first = 41", [])
        .expect("changed");
    let refused = all(&SqliteStorage::open_read_only(dir).expect("open")).expect_err("refused");
    assert!(refused.to_string().contains("not a plain file name"), "{refused}");
}

#[test]
fn a_recovery_may_keep_the_segments_end_and_the_journal_goes_on_from_it() {
    let key = [5u8; 32];
    let folder = tempfile::tempdir().expect("folder");
    let dir = folder.path();
    let (mut storage, entries) = two_days_cut(dir);
    prune(&mut storage, dir);
    storage.cut_after(80, &key).expect("kept to the segments' end");
    assert_eq!(storage.last().expect("last"), Some((80, entries[79].hash)));
    same(&all(&storage).expect("read"), &entries[..80]);
    let next = days_of_entries(4, 40).remove(120);
    let next = Entry::new(81, next.at_ms, next.record, entries[79].hash);
    storage.append(std::slice::from_ref(&next)).expect("goes on");
    let read = all(&storage).expect("read");
    assert_eq!(read.len(), 81);
    assert!(verify(&read).first_problem.is_none());
}

/// The catalogue seals each row, not how many there are: a row taken from
/// its end leaves entries that neither it nor the live rows hold, which a
/// start refuses by their numbers.
#[test]
fn entries_in_neither_the_catalogue_nor_the_live_rows_are_named() {
    let folder = tempfile::tempdir().expect("folder");
    let dir = folder.path();
    let (mut storage, _) = two_days_cut(dir);
    assert_eq!(storage.missing_before_live().expect("read"), None, "before the prune");
    prune(&mut storage, dir);
    assert_eq!(storage.missing_before_live().expect("read"), None, "after it");
    let conn = rusqlite::Connection::open(dir.join(croupier_ledger::storage::DATABASE_FILE)).expect("live");
    conn.execute("DELETE FROM segment WHERE first = 41", [])
        .expect("deleted");
    assert_eq!(storage.missing_before_live().expect("read"), Some((41, 80)));
    conn.execute("DELETE FROM segment", []).expect("deleted");
    assert_eq!(storage.missing_before_live().expect("read"), Some((1, 80)));
}
