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

// Colorado 2212(5) keeps the records; the brief asks that a journal with one
// damaged entry not stop the casino for good. Recovery is the stopped
// server's, refused for a sound journal or a damaged part kept, and leaves
// a journal that verifies, says what was cut, and opens.
#[test]
fn a_damaged_journal_is_cut_back_to_its_last_sound_entry_and_the_cut_journaled() {
    let data = data_dir();
    let mut server = Server::start(BINARY, data.path(), free_port());
    let admin = server.admin_token();
    server.add_staff_and_players(&admin);
    let cashier = server.login("cashier", "cashier-password-1");
    for (id, amount) in [("c1", 1_111), ("c2", 2_222), ("c3", 3_333)] {
        server.ask(
            &cashier,
            json!({"op": "cash_in", "id": id, "player": "p1", "amount": amount}),
        );
    }
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

    // Refused: keeping the damaged entry, past the end, no reason, nothing kept.
    for (args, why) in [
        (vec!["--keep", &*rotten.to_string(), reason[0], reason[1]], "broken"),
        (vec!["--keep", &*(last + 5).to_string(), reason[0], reason[1]], "past its end"),
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
