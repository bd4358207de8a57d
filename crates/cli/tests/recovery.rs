//! A damaged journal keeps the casino from opening; `croupier recover`, with
//! the server stopped, cuts the damaged end off back to an entry up to which
//! the journal is sound, keeps a copy of everything, and journals the cut.

use std::path::Path;
use std::process::Command;

use croupier_testkit::{data_dir, free_port, Server};
use serde_json::{json, Value};

const BINARY: &str = env!("CARGO_BIN_EXE_croupier");

fn verify(data: &Path) -> (bool, Value) {
    croupier_testkit::verify(BINARY, data, &[])
}

/// `croupier recover --data DATA ARGS...`: whether it succeeded, and what it said.
fn recover(data: &Path, args: &[&str]) -> (bool, String) {
    let out = Command::new(BINARY)
        .args(["recover", "--data"])
        .arg(data)
        .args(args)
        .output()
        .expect("recover runs");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), said)
}

fn journal(data: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(data.join(croupier_ledger::storage::DATABASE_FILE)).expect("the journal")
}

fn last_seq(data: &Path) -> i64 {
    journal(data)
        .query_row("SELECT MAX(seq) FROM journal", [], |r| r.get(0))
        .expect("entries")
}

fn wallet(server: &Server, token: &str) -> i64 {
    let (status, me) = server.http("GET", "/api/me", Some(token), None);
    assert_eq!(status, 200, "{me}");
    me["accounts"]["wallet:p1"].as_i64().unwrap_or(0)
}

/// A server whose cashier cashed p1 in three times: 1,111, 2,222, 3,333,
/// the journal's last three entries.
fn three_cash_ins(data: &Path) -> Server {
    let server = Server::start(BINARY, data, free_port());
    let [_, cashier, ..] = server.staff_and_players();
    for (id, amount) in [("c1", 1_111), ("c2", 2_222), ("c3", 3_333)] {
        server.ask(
            &cashier,
            json!({"op": "cash_in", "id": id, "player": "p1", "amount": amount}),
        );
    }
    server
}

// Colorado 2212(5) keeps the records; the brief asks that a journal with one
// damaged entry not stop the casino for good. Recovery is the stopped
// server's, refused for a sound journal or a damaged part kept, and leaves
// a journal that verifies, says what was cut, and opens.
#[test]
fn a_damaged_journal_is_cut_back_to_its_last_sound_entry_and_the_cut_journaled() {
    let data = data_dir();
    let mut server = three_cash_ins(data.path());
    let reason = ["--reason", "disk fault, incident INC-7, decided by the casino manager"];
    // While the server runs, the journal is its alone.
    let (ok, said) = recover(data.path(), &["--keep", "1", reason[0], reason[1]]);
    assert!(!ok && said.contains("in use"), "{said}");
    server.kill();
    // A journal that verifies is not cut.
    let (ok, said) = recover(data.path(), &["--keep", "1", reason[0], reason[1]]);
    assert!(!ok && said.contains("verifies as it stands"), "{said}");

    // The entry of c2 rots on the disk: the casino no longer opens.
    let last = last_seq(data.path());
    let rotten = last - 1;
    let db = journal(data.path());
    let record: String = db
        .query_row("SELECT record FROM journal WHERE seq = ?1", [rotten], |r| r.get(0))
        .expect("the entry");
    assert!(record.contains("2222"), "{record}");
    db.execute(
        "UPDATE journal SET record = ?1 WHERE seq = ?2",
        rusqlite::params![record.replace("2222", "2922"), rotten],
    )
    .expect("rotted");
    drop(db);
    let (passed, report) = verify(data.path());
    assert!(!passed, "{report}");
    assert_eq!(report["last_good_entry"], rotten - 1, "{report}");
    let out = Command::new(BINARY)
        .args(["serve", "--listen", "127.0.0.1:0", "--data"])
        .arg(data.path())
        .output()
        .expect("serve runs");
    assert!(!out.status.success(), "served a damaged journal");

    // Refused: keeping the damaged entry, cutting a sound one, past the
    // end, no reason, nothing kept.
    for (args, why) in [
        (
            vec!["--keep", &*rotten.to_string(), reason[0], reason[1]],
            "last sound entry",
        ),
        (
            vec!["--keep", &*(rotten - 2).to_string(), reason[0], reason[1]],
            "cuts no sound entry",
        ),
        (
            vec!["--keep", &*(last + 5).to_string(), reason[0], reason[1]],
            "past its end",
        ),
        (vec!["--keep", "2", "--reason", " "], "--reason"),
        (vec!["--keep", "0", reason[0], reason[1]], "first entry"),
    ] {
        let (ok, said) = recover(data.path(), &args);
        assert!(!ok && said.contains(why), "{args:?}: {said}");
    }
    assert_eq!(last_seq(data.path()), last, "a refusal cuts nothing");

    let keep = (rotten - 1).to_string();
    let (ok, said) = recover(data.path(), &["--keep", &keep, reason[0], reason[1]]);
    assert!(ok, "{said}");
    assert!(said.contains("cut 2"), "{said}");
    let (passed, report) = verify(data.path());
    assert!(passed, "{report}");
    assert_eq!(report["last_good_entry"], Value::Null, "{report}");

    // The cut is journaled, with what went and where the copy is.
    let (record,): (String,) = journal(data.path())
        .query_row("SELECT record FROM journal ORDER BY seq DESC LIMIT 1", [], |r| {
            Ok((r.get(0)?,))
        })
        .expect("the last entry");
    assert!(record.contains("journal_recovered"), "{record}");
    assert!(record.contains(&format!("\"kept_through\":{keep}")), "{record}");
    assert!(record.contains("INC-7"), "{record}");
    assert!(
        record.contains(&format!("entry {rotten}: its contents do not match its hash")),
        "{record}"
    );
    assert!(
        record.contains(&format!("\"sealed\":\"entry {last}, hash ")),
        "{record}"
    );
    let recoveries = report["recoveries"].as_array().expect("recoveries");
    assert_eq!(recoveries.len(), 1, "{report}");
    assert_eq!(recoveries[0]["cut"], 2, "{report}");
    let copy = std::fs::read_dir(data.path())
        .expect("the data directory")
        .filter_map(Result::ok)
        .find(|e| e.file_name().to_string_lossy().starts_with("recovered-"))
        .expect("the copy's folder")
        .path();
    let copied: i64 = journal(&copy)
        .query_row("SELECT COUNT(*) FROM journal", [], |r| r.get(0))
        .expect("the copy");
    assert_eq!(copied, last, "the copy holds every entry, the cut ones too");

    // The casino opens again, without c2 and c3.
    let server = Server::start(BINARY, data.path(), free_port());
    let p1 = server.login("p1", "p1-password-1");
    assert_eq!(wallet(&server, &p1), 1_111);
    let admin = server.login("admin", "admin-password-1");
    let (status, _) = server.http("GET", "/api/me", Some(&admin), None);
    assert_eq!(status, 200);
}

// Someone with the data directory but not the secret rewrites an entry and
// chains the journal again, or deletes entries: verify names the seal, and
// recovery, which cuts only a damaged end, neither cuts nor seals it again.
#[test]
fn recovery_does_not_seal_again_a_journal_that_was_rewritten_or_cut() {
    let data = data_dir();
    let mut server = three_cash_ins(data.path());
    server.kill();
    let last = last_seq(data.path());
    let (copy, middle) = (data_dir(), data_dir());
    for name in ["croupier.db", "croupier.db-wal", "croupier.db-shm"] {
        if data.path().join(name).exists() {
            std::fs::copy(data.path().join(name), copy.path().join(name)).expect("copied");
            std::fs::copy(data.path().join(name), middle.path().join(name)).expect("copied");
        }
    }
    let keys = data.path().with_file_name(format!(
        "{}-keys",
        data.path().file_name().expect("name").to_string_lossy()
    ));
    let reason = "disk fault, incident INC-8";

    // Rewritten: c2's amount changed and every hash after it computed again.
    let db = journal(data.path());
    let mut prev = [0u8; 32];
    let rows: Vec<(i64, i64, String)> = db
        .prepare("SELECT seq, at_ms, record FROM journal ORDER BY seq")
        .expect("select")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("rows")
        .map(|r| r.expect("row"))
        .collect();
    for (seq, at_ms, record) in rows {
        let record = record.replace("2222", "22");
        let hash = croupier_ledger::journal::entry_hash(&prev, seq as u64, at_ms as u64, &record);
        db.execute(
            "UPDATE journal SET record = ?1, prev_hash = ?2, hash = ?3 WHERE seq = ?4",
            rusqlite::params![record, hex::encode(prev), hex::encode(hash), seq],
        )
        .expect("rewritten");
        prev = hash;
    }
    drop(db);
    let (passed, report) = verify(data.path());
    assert!(!passed && report["seal"]["problem"].is_string(), "{report}");
    assert_eq!(report["last_good_entry"], Value::Null, "{report}");
    let (ok, said) = recover(data.path(), &["--keep", &last.to_string(), "--reason", reason]);
    assert!(!ok && said.contains("not what the secret sealed"), "{said}");
    let (passed, _) = verify(data.path());
    assert!(!passed, "still caught");

    // Cut: the last two entries deleted, the seal left.
    let db = journal(copy.path());
    db.execute("DELETE FROM journal WHERE seq > ?1", [last - 2])
        .expect("cut");
    drop(db);
    let (ok, said) = Command::new(BINARY)
        .args(["recover", "--data"])
        .arg(copy.path())
        .arg("--keys")
        .arg(&keys)
        .args(["--keep", &(last - 2).to_string(), "--reason", reason])
        .output()
        .map(|o| (o.status.success(), String::from_utf8_lossy(&o.stderr).to_string()))
        .expect("recover runs");
    assert!(!ok && said.contains("were taken out of it"), "{said}");

    // Cut, and the entry before the cut damaged, as if the end were damage: a
    // recovery would erase entries the secret sealed, which the copy lacks too.
    let db = journal(copy.path());
    db.execute("UPDATE journal SET hash = randomblob(32) WHERE seq = ?1", [last - 2])
        .expect("damaged");
    drop(db);
    let (passed, report) = croupier_testkit::verify(BINARY, copy.path(), &["--keys", &keys.to_string_lossy()]);
    assert!(!passed, "{report}");
    assert_eq!(
        report["last_good_entry"],
        Value::Null,
        "no recovery is offered: {report}"
    );
    let (ok, said) = Command::new(BINARY)
        .args(["recover", "--data"])
        .arg(copy.path())
        .arg("--keys")
        .arg(&keys)
        .args(["--keep", &(last - 3).to_string(), "--reason", reason])
        .output()
        .map(|o| (o.status.success(), String::from_utf8_lossy(&o.stderr).to_string()))
        .expect("recover runs");
    assert!(
        !ok && said.contains(&format!("entries {} to {last} were taken out", last - 1)),
        "{said}"
    );
    assert_eq!(last_seq(copy.path()), last - 2, "nothing was cut");

    // An entry missing from the middle: the last good one is the one before it.
    let db = journal(middle.path());
    db.execute("DELETE FROM journal WHERE seq = ?1", [last - 4])
        .expect("deleted");
    drop(db);
    let (passed, report) = croupier_testkit::verify(BINARY, middle.path(), &["--keys", &keys.to_string_lossy()]);
    assert!(!passed, "{report}");
    assert_eq!(report["last_good_entry"], last - 5, "{report}");
}

use croupier_testkit::{database_files, put_back};

/// Rewrites entry `forged` as `change` says and chains the entries after it
/// again up to the entry before the last, as someone with the database but
/// not the secret would: the last entry's link alone breaks, as a disk
/// fault at the end would break it.
fn forge_up_to_the_entry_before_the_last(data: &Path, forged: i64, change: impl Fn(&str) -> String) {
    let last = last_seq(data);
    let mut prev = croupier_ledger::SqliteStorage::open_read_only(data)
        .expect("the journal")
        .hash_of(forged as u64 - 1)
        .expect("read")
        .expect("the entry before");
    let db = journal(data);
    for seq in forged..last {
        let (at_ms, record): (i64, String) = db
            .query_row("SELECT at_ms, record FROM journal WHERE seq = ?1", [seq], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .expect("the entry");
        let record = if seq == forged { change(&record) } else { record };
        let hash = croupier_ledger::journal::entry_hash(&prev, seq as u64, at_ms as u64, &record);
        db.execute(
            "UPDATE journal SET record = ?1, prev_hash = ?2, hash = ?3 WHERE seq = ?4",
            rusqlite::params![record, hex::encode(prev), hex::encode(hash), seq],
        )
        .expect("rewritten");
        prev = hash;
    }
}

fn recovered_copies(data: &Path) -> usize {
    std::fs::read_dir(data)
        .expect("the data directory")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("recovered-"))
        .count()
}

// Issue 56: someone with the data directory but not the secret rewrote an
// old entry and chained the journal again up to the entry before the last,
// so that only the last entry's link broke. verify blamed the last entry
// alone, and `recover --keep LAST-1` cut it and sealed the forgery under the
// secret. Each entry now carries a MAC under the secret: verify names the
// forged entry, and recovery seals only an entry the secret vouches for,
// naming the newest one it can, whether the forger left the MACs or removed them.
#[test]
fn recovery_does_not_seal_an_old_entry_forged_and_chained_up_to_the_entry_before_the_last() {
    let data = data_dir();
    let mut server = three_cash_ins(data.path());
    server.kill();
    let last = last_seq(data.path());
    // c1's entry: its 1,111 becomes 9,111.
    let forged = last - 2;
    let written = database_files(data.path());
    let reason = ["--reason", "disk fault at the journal's end, incident INC-56"];
    let inflate = |record: &str| {
        assert!(record.contains("1111"), "{record}");
        record.replace("1111", "9111")
    };

    for macs_removed in [false, true] {
        put_back(&written);
        forge_up_to_the_entry_before_the_last(data.path(), forged, inflate);
        if macs_removed {
            journal(data.path())
                .execute("UPDATE journal SET mac = NULL WHERE seq >= ?1", [forged])
                .expect("MACs removed");
        }
        // verify names the forged entry, and offers to keep only what is before it.
        let (passed, report) = verify(data.path());
        assert!(!passed, "{report}");
        let problem = report["seal"]["problem"].as_str().unwrap_or_default();
        assert!(problem.contains(&format!("entry {forged}")), "{report}");
        assert_eq!(report["last_good_entry"], forged - 1, "{report}");
        assert_eq!(report["seal"]["vouched_through"], forged - 1, "{report}");
        // Recovery refuses to seal the forgery, naming the newest entry the secret vouches for.
        let keep = (last - 1).to_string();
        let (ok, said) = recover(data.path(), &["--keep", &keep, reason[0], reason[1]]);
        assert!(!ok, "the forgery was sealed: {said}");
        assert!(
            said.contains(&format!("entry {}", last - 1))
                && said.contains(&format!("newest entry the secret vouches for is {}", forged - 1)),
            "{said}"
        );
        assert_eq!(last_seq(data.path()), last, "a refusal cuts nothing");
        assert_eq!(recovered_copies(data.path()), 0, "a refusal copies nothing");
        assert!(!verify(data.path()).0, "nothing was sealed");
    }

    // The operator may keep what the secret vouches for: the forged entries go with the break.
    let keep = (forged - 1).to_string();
    let (ok, said) = recover(data.path(), &["--keep", &keep, reason[0], reason[1]]);
    assert!(ok, "{said}");
    assert!(said.contains("cut 3"), "{said}");
    let (passed, report) = verify(data.path());
    assert!(passed, "{report}");
    let recoveries = report["recoveries"].as_array().expect("recoveries");
    assert_eq!(recoveries[0]["kept_through"], forged - 1, "{report}");
    assert!(
        recoveries[0]["damage"]
            .as_str()
            .unwrap_or_default()
            .contains(&format!("entry {forged}")),
        "{report}"
    );
    let server = Server::start(BINARY, data.path(), free_port());
    let p1 = server.login("p1", "p1-password-1");
    assert_eq!(wallet(&server, &p1), 0, "no forged cash-in survives");
}

// Entries written before entries carried MACs (a journal of an earlier
// layout) are vouched for only through the seal, the head kept beside the
// secret, or a later entry's MAC: recovery keeps such an entry only where one
// of those is at it, and otherwise says to put back a copy.
#[test]
fn recovery_keeps_an_entry_written_before_macs_only_where_the_secret_sealed_it() {
    let data = data_dir();
    let mut server = three_cash_ins(data.path());
    // The head kept beside the secret follows within a second.
    std::thread::sleep(std::time::Duration::from_millis(1_500));
    server.kill();
    let last = last_seq(data.path());
    // As a journal of the layout before MACs reads: no entry carries one.
    journal(data.path())
        .execute("UPDATE journal SET mac = NULL", [])
        .expect("as written before MACs");
    let (passed, report) = verify(data.path());
    assert!(passed, "a journal written before MACs verifies: {report}");
    assert_eq!(report["seal"]["macs_from"], Value::Null, "{report}");
    let written = database_files(data.path());
    let reason = ["--reason", "disk fault, incident INC-57"];

    // Its last entry rots: the one before it reads and chains, but nothing of the secret's is at it.
    let db = journal(data.path());
    db.execute(
        "UPDATE journal SET record = replace(record, '3333', '3933') WHERE seq = ?1",
        [last],
    )
    .expect("rotted");
    drop(db);
    let (passed, report) = verify(data.path());
    assert!(!passed, "{report}");
    assert_eq!(report["last_good_entry"], Value::Null, "{report}");
    assert_eq!(report["seal"]["vouched_through"], 0, "{report}");
    let (ok, said) = recover(data.path(), &["--keep", &(last - 1).to_string(), reason[0], reason[1]]);
    assert!(
        !ok && said.contains("written before entries carried MACs") && said.contains("put back a copy"),
        "{said}"
    );
    assert_eq!(last_seq(data.path()), last, "a refusal cuts nothing");

    // A row added past the seal breaks the chain there: the seal is at the
    // entry before it, and vouches for it.
    put_back(&written);
    journal(data.path())
        .execute(
            "INSERT INTO journal (seq, at_ms, record, prev_hash, hash) VALUES (?1, 1, '{}', '', ?2)",
            rusqlite::params![last + 1, vec![0u8; 32]],
        )
        .expect("a row added");
    let (passed, report) = verify(data.path());
    assert!(!passed, "{report}");
    assert_eq!(report["last_good_entry"], last, "{report}");
    let (ok, said) = recover(data.path(), &["--keep", &last.to_string(), reason[0], reason[1]]);
    assert!(ok && said.contains("cut 1"), "{said}");
    let (passed, report) = verify(data.path());
    assert!(passed, "{report}");
    // The recovery's own entry is the first to carry a MAC.
    assert_eq!(report["seal"]["macs_from"], last + 1, "{report}");
}

/// Past the journal's first dictionary, its records are stored compressed:
/// `croupier entries` prints them as their hashes cover them, `verify`
/// passes, a dictionary damaged in one copy loses nothing, and one damaged
/// in both is named: verify and recover say to put the database back, and
/// recovery cuts nothing.
#[test]
fn a_compact_journal_reads_back_and_a_lost_dictionary_is_put_back_not_cut() {
    let dir = data_dir();
    let data = dir.path();
    let server = Server::start(BINARY, data, free_port());
    let [_, cashier, ..] = server.staff_and_players();
    let first = croupier_ledger::compact::DICTIONARY_AFTER[0] as usize;
    for n in 0..first + 100 {
        let (status, body) = server.http(
            "POST",
            "/api/requests",
            Some(&cashier),
            Some(&json!({"op": "cash_in", "id": format!("c{n}"), "player": "p1", "amount": 1})),
        );
        assert_eq!(status, 200, "{body}");
    }
    drop(server);
    let db = journal(data);
    let count = |sql: &str| -> i64 { db.query_row(sql, [], |r| r.get(0)).expect(sql) };
    assert_eq!(count("SELECT count(*) FROM dictionary_copy WHERE id = 1"), 1);
    let compressed = count("SELECT min(seq) FROM journal WHERE typeof(record) = 'blob'");
    assert!(compressed > first as i64, "compressed from entry {compressed}");
    let last = last_seq(data);
    // Printed as hashed: each line's hash is the chain's over its record's text.
    let out = Command::new(BINARY)
        .args(["entries", "--data"])
        .arg(data)
        .args(["--from", &(compressed - 1).to_string()])
        .output()
        .expect("entries runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    #[derive(serde::Deserialize)]
    struct Line {
        seq: u64,
        at_ms: u64,
        hash: String,
        record: Box<serde_json::value::RawValue>,
    }
    let lines: Vec<Line> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len() as i64, last - compressed + 2);
    for pair in lines.windows(2) {
        let prev: [u8; 32] = hex::decode(&pair[0].hash).expect("hex").try_into().expect("32 bytes");
        let hash = croupier_ledger::journal::entry_hash(&prev, pair[1].seq, pair[1].at_ms, pair[1].record.get());
        assert_eq!(hex::encode(hash), pair[1].hash, "entry {}", pair[1].seq);
    }
    assert!(lines[lines.len() - 1].record.get().contains(r#""id":"c4195""#));
    let (passed, report) = verify(data);
    assert!(passed, "{report}");
    // verify says how what it read was stored.
    let records = &report["records"];
    assert_eq!(
        records["compressed"]["1"].as_i64(),
        Some(last - compressed + 1),
        "{report}"
    );
    assert_eq!(records["text"].as_i64(), Some(compressed - 1), "{report}");
    // An entry changed is not printed as if it were the journal's.
    let text: String = db
        .query_row("SELECT record FROM journal WHERE seq = 100", [], |r| r.get(0))
        .expect("a text record");
    db.execute(
        "UPDATE journal SET record = ?1 WHERE seq = 100",
        [text.replacen(r#""amount":1,"#, r#""amount":900000,"#, 1)],
    )
    .expect("changed");
    let out = Command::new(BINARY)
        .args(["entries", "--from", "99", "--to", "101", "--data"])
        .arg(data)
        .output()
        .expect("entries runs");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && said.contains("entry 100"), "{said}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().count(),
        1,
        "only entry 99 printed"
    );
    // Unchecked (to settle from a recovery's copy), it prints on, each line saying whether it is in the chain.
    let out = Command::new(BINARY)
        .args(["entries", "--unchecked", "--from", "99", "--to", "101", "--data"])
        .arg(data)
        .output()
        .expect("entries runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let in_chain: Vec<(u64, bool)> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON"))
        .map(|v| (v["seq"].as_u64().unwrap_or(0), v["in_chain"].as_bool().unwrap_or(true)))
        .collect();
    assert_eq!(in_chain, [(99, true), (100, false), (101, true)]);
    db.execute("UPDATE journal SET record = ?1 WHERE seq = 100", [&text])
        .expect("put back");
    // One copy of the dictionary damaged: read from the other, and told.
    db.execute("UPDATE dictionary SET bytes = zeroblob(length(bytes)) WHERE id = 1", [])
        .expect("damaged");
    let (passed, report) = verify(data);
    assert!(passed, "{report}");
    assert_eq!(report["records"]["one_copy_left"], json!([1]), "{report}");
    // Both: named, and nothing cut.
    db.execute(
        "UPDATE dictionary_copy SET bytes = zeroblob(length(bytes)) WHERE id = 1",
        [],
    )
    .expect("damaged");
    let out = Command::new(BINARY)
        .args(["verify", "--data"])
        .arg(data)
        .output()
        .expect("verify runs");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        said.contains(&format!("entry {compressed}"))
            && said.contains("dictionary 1")
            && said.contains("put back the database"),
        "{said}"
    );
    let (passed, report) = verify(data);
    assert!(!passed);
    assert_eq!(report["damaged_dictionary"], json!(1), "{report}");
    assert_eq!(report["last_good_entry"], Value::Null, "no cut is offered: {report}");
    let (recovered, said) = recover(data, &["--keep", &(compressed - 1).to_string(), "--reason", "test"]);
    assert!(
        !recovered && said.contains("dictionary 1") && said.contains("rather than cut"),
        "{said}"
    );
    assert_eq!(last_seq(data), last, "recovery cut sound entries");
}
