//! The table server attacked through the real binary, as a hostile player,
//! a dishonest employee and someone who can write the data directory would.
//! Each test is one attack that once worked; each must now be refused with
//! a clear error, move no money, and leave a journal that still verifies
//! (or, where the attack wrote the journal itself, one that no longer does).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use croupier_testkit::{data_dir, free_port, Server, Socket};
use serde_json::{json, Value};

const BINARY: &str = env!("CARGO_BIN_EXE_croupier");

/// `croupier verify --data DATA --format json`: whether it passed, and its report.
fn verify(data: &Path) -> (bool, Value) {
    croupier_testkit::verify(BINARY, data, &[])
}

/// A server with the staff and players p1 and p2, signed in: (server, [admin, cashier, dealer, pit, p1, p2]).
fn casino(data: &Path) -> (Server, [String; 6]) {
    let server = Server::start(BINARY, data, free_port());
    let tokens = server.staff_and_players();
    (server, tokens)
}

fn table(table: &str, outcome: &str) -> Value {
    json!({"op": "create_table", "table": table, "profile_text": include_str!("../../../profiles/maryland.toml"),
           "wheel": "double-zero", "in_prison": false, "betting_window_ms": 60000, "outcome": outcome})
}

fn refused(server: &Server, token: &str, request: Value) -> (u16, String, String) {
    server.refused(token, request)
}

/// The journal's rows as (seq, at_ms, record), read straight from its database.
fn journal_rows(data: &Path) -> Vec<(i64, i64, String)> {
    let db = rusqlite::Connection::open(data.join(croupier_ledger::storage::DATABASE_FILE)).expect("the journal");
    let mut rows = db
        .prepare("SELECT seq, at_ms, record FROM journal ORDER BY seq")
        .expect("select");
    rows.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("rows")
        .map(|r| r.expect("row"))
        .collect()
}

/// Rewrites the journal's database as someone with the file would: the
/// records `change` returns replace theirs, and every hash from the first
/// change on is computed again, so that the chain alone is consistent.
fn rewrite_journal(data: &Path, change: impl Fn(i64, &str) -> Option<String>) {
    let db = rusqlite::Connection::open(data.join(croupier_ledger::storage::DATABASE_FILE)).expect("the journal");
    let rows = journal_rows(data);
    let mut prev = [0u8; 32];
    let mut changed = false;
    for (seq, at_ms, record) in rows {
        let record = match change(seq, &record) {
            Some(new) => {
                changed = true;
                new
            }
            None => record,
        };
        let hash = croupier_ledger::journal::entry_hash(&prev, seq as u64, at_ms as u64, &record);
        if changed {
            db.execute(
                "UPDATE journal SET record = ?1, prev_hash = ?2, hash = ?3 WHERE seq = ?4",
                rusqlite::params![record, hex::encode(prev), hex::encode(hash), seq],
            )
            .expect("rewritten");
        }
        prev = hash;
    }
    assert!(changed, "the attack changed a record");
}

// An RNG table's result is the RNG's alone (the certified RNG of Colorado
// 2205(4) and the rules' outcome sources): no employee may enter one.
#[test]
fn a_dealer_cannot_choose_an_rng_tables_result() {
    let data = data_dir();
    let (mut server, [admin, cashier, dealer, pit, p1, _]) = casino(data.path());
    server.ask(&admin, table("r1", "rng"));
    server.inspect_and_open(&pit, &dealer, "r1");
    server.seat(&cashier, ("p1", &p1), "r1", 10_000, 5_000);
    server.ask(&dealer, json!({"op": "open_betting", "table": "r1"}));
    server.ask(
        &p1,
        json!({"op": "place_bet", "table": "r1", "bet_id": "b1", "spot": "17", "stake": 100}),
    );
    server.ask(&dealer, json!({"op": "no_more_bets", "table": "r1"}));

    // The dealer, the pit and the admin each try to key a winner.
    for token in [&dealer, &pit, &admin] {
        let entered =
            json!({"op": "spin", "table": "r1", "spin": {"pocket": "17", "direction": "opposite", "revolutions": 6}});
        let (status, code, message) = refused(&server, token, entered);
        assert_eq!((status, code.as_str()), (422, "not_dealer_table"), "{message}");
        assert!(message.contains("RNG"), "{message}");
    }
    // Nor can a client write the RNG's own request with a word of its choosing.
    let forged = json!({"op": "draw", "table": "r1", "pocket": "17", "word": 17});
    assert_eq!(refused(&server, &dealer, forged).1, "bad_request");
    // The RNG draws; its word goes into the journal with the pocket.
    let (status, drawn) = server.http("POST", "/api/tables/r1/draw", Some(&dealer), None);
    assert_eq!(status, 200, "{drawn}");
    server.kill();
    let (passed, report) = verify(data.path());
    assert!(passed, "{report}");
    let rows = journal_rows(data.path());
    let draw = rows
        .iter()
        .find(|(_, _, r)| r.contains(r#"\"op\":\"draw\""#) || r.contains(r#""op":"draw""#))
        .expect("the draw's entry");
    assert!(draw.2.contains(r#""word":"#), "{}", draw.2);

    // Someone with the file turns the draw into a dealer's entry of another
    // pocket, and makes the chain good: verify refuses it all the same.
    let word: u32 = {
        let at = draw.2.find(r#""word":"#).expect("word") + 7;
        draw.2[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .expect("a word")
    };
    let pockets = croupier_rng::wheel_pockets(croupier_core::Wheel::DoubleZero);
    let pocket = pockets[(word % 38) as usize].label();
    let seq = draw.0;
    rewrite_journal(data.path(), |s, record| {
        (s == seq).then(|| {
            record.replace(
                &format!(r#""op":"draw","table":"r1","pocket":"{pocket}","word":{word}"#),
                &format!(
                    r#""op":"spin","table":"r1","spin":{{"pocket":"{pocket}","direction":"opposite","revolutions":4}}"#
                ),
            )
        })
    });
    let (passed, report) = verify(data.path());
    assert!(!passed, "a result no source gave passed verify: {report}");
    assert!(report.to_string().contains("no one may enter"), "{report}");
}

/// Adds the record `make` gives for a time after the journal's last entry,
/// with its chain made good, as someone with the database but not the secret would.
fn append_to_journal(data: &Path, make: impl Fn(u64) -> String) {
    let db = rusqlite::Connection::open(data.join(croupier_ledger::storage::DATABASE_FILE)).expect("the journal");
    let storage = croupier_ledger::SqliteStorage::open_read_only(data).expect("the journal");
    let (seq, prev) = storage.last().expect("read").expect("the last entry");
    let seq = seq as i64;
    let at_ms: i64 = db
        .query_row("SELECT at_ms FROM journal WHERE seq = ?1", [seq], |r| r.get(0))
        .expect("the last entry");
    let record = make(at_ms as u64 + 1);
    let hash = croupier_ledger::journal::entry_hash(&prev, seq as u64 + 1, at_ms as u64 + 1, &record);
    db.execute(
        "INSERT INTO journal (seq, at_ms, record, prev_hash, hash) VALUES (?1, ?2, ?3, ?4, ?5)",
        rusqlite::params![seq + 1, at_ms + 1, record, hex::encode(prev), hex::encode(hash)],
    )
    .expect("appended");
}

use croupier_testkit::{database_files, put_back};

/// `croupier serve` on `data`: it must refuse to start, saying why.
fn refuses_to_serve(data: &Path) -> String {
    let out = Command::new(BINARY)
        .args(["serve", "--listen", "127.0.0.1:0", "--data"])
        .arg(data)
        .output()
        .expect("serve runs");
    let said = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success(), "served a journal it should not trust: {said}");
    said
}

fn seal_problem(data: &Path) -> String {
    let (passed, report) = verify(data);
    assert!(!passed, "verify passed: {report}");
    report["seal"]["problem"].as_str().unwrap_or_default().to_string()
}

// Colorado 2212(5) and the brief's ledger: a journal that proves its own
// history. The chain alone could be rewritten whole, added to or cut by
// whoever can write the data directory; the seal under a secret kept apart
// catches each, and the server will not run on such a journal.
#[test]
fn someone_with_the_data_directory_cannot_rewrite_add_to_cut_or_roll_back_the_journal() {
    let data = data_dir();
    let (mut server, [_, cashier, ..]) = casino(data.path());
    server.ask(
        &cashier,
        json!({"op": "cash_in", "id": "c1", "player": "p1", "amount": 10_000}),
    );
    // The head kept beside the secret follows within a second.
    std::thread::sleep(std::time::Duration::from_millis(1_500));
    server.kill();
    let earlier = database_files(data.path());
    let mut server = Server::start(BINARY, data.path(), free_port());
    let cashier = server.login("cashier", "cashier-password-1");
    server.ask(
        &cashier,
        json!({"op": "cash_in", "id": "c2", "player": "p2", "amount": 20_000}),
    );
    std::thread::sleep(std::time::Duration::from_millis(1_500));
    server.kill();
    assert!(verify(data.path()).0, "the journal as written verifies");
    let keys = data.parent().join("data-keys");
    assert!(keys.join("secret").is_file() && keys.join("journal-head.json").is_file());
    let written = database_files(data.path());
    let (_, at_ms, cash_in) = journal_rows(data.path())
        .into_iter()
        .find(|(_, _, r)| r.contains(r#""op":"cash_in","id":"c2""#))
        .expect("the cash-in's entry");

    // A forged cash-in, its chain made good: it replays, so only the seal tells.
    append_to_journal(data.path(), |now| {
        cash_in
            .replace("c2", "c9")
            .replace(&format!(r#""at_ms":{at_ms}"#), &format!(r#""at_ms":{now}"#))
    });
    assert!(seal_problem(data.path()).contains("added without the secret"));
    assert!(refuses_to_serve(data.path()).contains("added without the secret"));
    // Without the secret the forgery replays clean: the seal is what catches it.
    let (passed, unchecked) = verify_without_keys(data.path());
    assert!(passed && unchecked["seal"]["checked"] == false, "{unchecked}");

    // An old entry rewritten, every hash after it computed again.
    put_back(&written);
    rewrite_journal(data.path(), |_, record| {
        record
            .contains(r#""id":"c1""#)
            .then(|| record.replace("10000", "99000"))
    });
    assert!(seal_problem(data.path()).contains("rewritten"));
    assert!(refuses_to_serve(data.path()).contains("rewritten"));

    // The last entry cut off.
    put_back(&written);
    let db = rusqlite::Connection::open(data.path().join(croupier_ledger::storage::DATABASE_FILE)).expect("db");
    db.execute("DELETE FROM journal WHERE seq = (SELECT MAX(seq) FROM journal)", [])
        .expect("cut");
    drop(db);
    assert!(seal_problem(data.path()).contains("cut off its end"));
    assert!(refuses_to_serve(data.path()).contains("cut off its end"));

    // The whole database put back as it was before the second cash-in:
    // its own seal is good, the head kept beside the secret is not.
    put_back(&earlier);
    assert!(seal_problem(data.path()).contains("put back as it was earlier"));
    assert!(refuses_to_serve(data.path()).contains("put back as it was earlier"));

    // As written, it serves again, with the secret; without it, not at all.
    put_back(&written);
    assert!(verify(data.path()).0);
    std::fs::rename(&keys, data.parent().join("elsewhere")).expect("moved");
    assert!(refuses_to_serve(data.path()).contains("give --keys"));
}

fn verify_without_keys(data: &Path) -> (bool, Value) {
    croupier_testkit::verify(BINARY, data, &["--keys", "/nonexistent-keys"])
}

// Colorado 2212(5)-style records and game recall: a player's recall shows
// the rounds as they were played. A round changed in recall.db by someone
// without the secret is refused, never shown; nor is another's round shown
// as theirs.
#[test]
fn a_round_changed_in_the_recall_archive_is_not_shown() {
    let data = data_dir();
    let (mut server, [_, cashier, dealer, pit, p1, p2]) = casino(data.path());
    server.inspect_and_open(&pit, &dealer, "t2");
    server.seat(&cashier, ("p1", &p1), "t2", 10_000, 5_000);
    server.seat(&cashier, ("p2", &p2), "t2", 10_000, 5_000);
    for (n, player) in [(1, &p1), (2, &p2)] {
        server.ask(&dealer, json!({"op": "open_betting", "table": "t2"}));
        server.ask(
            player,
            json!({"op": "place_bet", "table": "t2", "bet_id": format!("b{n}"), "spot": "red", "stake": 500}),
        );
        server.ask(&dealer, json!({"op": "no_more_bets", "table": "t2"}));
        server.ask(
            &dealer,
            json!({"op": "spin", "table": "t2", "spin": {"pocket": "17", "direction": "opposite", "revolutions": 6}}),
        );
    }
    // Opening round 3 makes round 2 final: both are archived.
    server.ask(&dealer, json!({"op": "open_betting", "table": "t2"}));
    let (status, recalled) = server.http("GET", "/api/players/p1/rounds", Some(&p1), None);
    assert_eq!(status, 200, "{recalled}");
    assert_eq!(recalled["rounds"][0]["pocket"], "17");
    std::thread::sleep(std::time::Duration::from_millis(500));
    server.kill();

    let archive = rusqlite::Connection::open(data.path().join("recall.db")).expect("recall.db");
    // p1's round: the ball landed on 18 (black) instead, and p2's round listed as p1's.
    let changed = archive
        .execute(
            "UPDATE recall_rounds SET record = replace(record, '\"17\"', '\"18\"') WHERE table_id = 't2' AND round = 1",
            [],
        )
        .expect("changed");
    assert_eq!(changed, 1, "p1's round is archived");
    archive
        .execute(
            "INSERT INTO recall_players (player, opened_at_ms, table_id, round)
             SELECT 'p1', opened_at_ms, table_id, round FROM recall_rounds WHERE table_id = 't2' AND round = 2",
            [],
        )
        .expect("listed");
    drop(archive);

    let server = Server::start(BINARY, data.path(), free_port());
    let p1 = server.login("p1", "p1-password-1");
    let p2 = server.login("p2", "p2-password-1");
    let (status, body) = server.http("GET", "/api/players/p1/rounds", Some(&p1), None);
    assert_eq!(status, 503, "a changed round was served: {body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap_or_default()
            .contains("changed after it was archived"),
        "{body}"
    );
    // p2's own recall is untouched, and p2's round is not shown to p1 by the listing.
    let (status, body) = server.http("GET", "/api/players/p2/rounds", Some(&p2), None);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["rounds"].as_array().map(Vec::len), Some(1), "{body}");
}

// The brief: a row added to sessions.db was an admin session. Sessions are
// kept under the secret now, end when idle or too old, and a user holds a
// bounded number of them.
#[test]
fn a_session_cannot_be_written_into_the_file_and_ends_when_idle_or_one_too_many() {
    let data = data_dir();
    let options = ["--session-idle-seconds", "5", "--sessions-per-user", "2"];
    let mut server = Server::start_with(BINARY, data.path(), free_port(), &options);
    let admin = server.admin_token();
    server.add_staff_and_players(&admin);
    // A session of p1's, to copy.
    let _p1 = server.login("p1", "p1-password-1");
    server.kill();

    // A row made as sessions were once kept (the token's SHA-256), and one
    // copied from p1's with the admin put in: neither is a session. Every
    // table of sessions takes one (the seal's table holds no session).
    let db = rusqlite::Connection::open(data.path().join("sessions.db")).expect("sessions.db");
    let tables: Vec<String> = db
        .prepare(
            "SELECT m.name FROM sqlite_master AS m WHERE m.type = 'table'
               AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) AS c WHERE c.name = 'actor')",
        )
        .expect("tables")
        .query_map([], |r| r.get(0))
        .expect("rows")
        .map(|r| r.expect("name"))
        .collect();
    assert!(!tables.is_empty(), "sessions.db holds its sessions in a table");
    let admin_actor = r#"{"username":"admin","role":"admin","licence":""}"#;
    for table in &tables {
        let columns: Vec<String> = db
            .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
            .expect("columns")
            .query_map([], |r| r.get(0))
            .expect("rows")
            .map(|r| r.expect("name"))
            .collect();
        let key_column = columns[0].clone();
        let forged = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(b"forged-token"));
        let copied = format!(
            "INSERT INTO {table} SELECT ?1, {} FROM {table} LIMIT 1",
            columns[1..].join(", ")
        );
        db.execute(&copied, rusqlite::params![forged]).expect("a row added");
        db.execute(
            &format!("UPDATE {table} SET actor = ?1 WHERE {key_column} = ?2"),
            rusqlite::params![admin_actor, forged],
        )
        .expect("made the admin's");
    }
    drop(db);
    let server = Server::start_with(BINARY, data.path(), free_port(), &options);
    let (status, body) = server.http("GET", "/api/me", Some("forged-token"), None);
    assert_eq!(status, 401, "a row written into the file is a session: {body}");

    // A third sign-in of p1 ends the oldest of the two before it.
    let first = server.login("p1", "p1-password-1");
    let second = server.login("p1", "p1-password-1");
    let third = server.login("p1", "p1-password-1");
    assert_eq!(server.http("GET", "/api/me", Some(&first), None).0, 401);
    assert_eq!(server.http("GET", "/api/me", Some(&second), None).0, 200);
    // Unused for the idle spell, a session is over; one in use lives on.
    for _ in 0..4 {
        std::thread::sleep(std::time::Duration::from_secs(2));
        assert_eq!(server.http("GET", "/api/me", Some(&third), None).0, 200, "in use");
    }
    assert_eq!(server.http("GET", "/api/me", Some(&second), None).0, 401, "idle 8 s");
}

/// Stops `server` as an operator does (SIGTERM), and waits until it is gone.
fn stop(server: &mut Server) {
    let sent = Command::new("kill")
        .args(["-TERM", &server.pid().to_string()])
        .status()
        .expect("kill -TERM");
    assert!(sent.success());
    let stopped = server.exited_within(Duration::from_secs(20)).expect("stopped");
    assert!(stopped.success(), "{stopped}");
}

/// A copy of `sessions.db` as it is now, whole, made as someone with the
/// data directory would while the server runs (SQLite's `VACUUM INTO`).
fn copy_sessions(data: &Path, to: &Path) {
    let _ = std::fs::remove_file(to);
    let db = rusqlite::Connection::open(data.join("sessions.db")).expect("sessions.db");
    db.execute("VACUUM INTO ?1", rusqlite::params![to.to_str().expect("path")])
        .expect("copied");
}

/// Puts the copy `from` back as `sessions.db`, its log files gone with the one it replaces.
fn put_back_sessions(data: &Path, from: &Path) {
    for log in ["sessions.db-wal", "sessions.db-shm"] {
        let _ = std::fs::remove_file(data.join(log));
    }
    std::fs::copy(from, data.join("sessions.db")).expect("put back");
}

/// The users whose sessions the attacks below bring back, with the password `NAME-password-1`.
const ENDED_AND_NOT: [(&str, &str); 5] = [
    ("out", "player"),
    ("changed", "player"),
    ("locked", "player"),
    ("reset", "player"),
    ("never", "player"),
];

/// Signs in each of [`ENDED_AND_NOT`], and `changed` once more (the
/// session their change is made from): the tokens, and that one.
fn sign_in_all(server: &Server) -> (Vec<String>, String) {
    let tokens = ENDED_AND_NOT
        .iter()
        .map(|(name, _)| server.login(name, &format!("{name}-password-1")))
        .collect();
    (tokens, server.login("changed", "changed-password-1"))
}

/// Ends the sessions of all but `never` in each way a session is ended on
/// purpose: signed out, a password changed from another session, an
/// account locked (and unlocked again, so that its name alone refuses
/// nothing), a password reset by the admin.
fn end_all_but_never(server: &Server, admin: &str, tokens: &[String], changer: &str) {
    assert_eq!(server.http("POST", "/api/logout", Some(&tokens[0]), None).0, 200);
    server.ask(
        changer,
        json!({"op": "change_password", "password": "changed-password-1", "new_password": "changed-password-2"}),
    );
    server.ask(admin, json!({"op": "lock_user", "username": "locked"}));
    server.ask(admin, json!({"op": "unlock_user", "username": "locked"}));
    server.ask(
        admin,
        json!({"op": "reset_password", "username": "reset", "password": "reset-chosen-password-2"}),
    );
    let after: Vec<u16> = tokens
        .iter()
        .map(|t| server.http("GET", "/api/me", Some(t), None).0)
        .collect();
    assert_eq!(after, [401, 401, 401, 401, 200], "ended, and the one never ended");
}

// The brief (issue 56, 9): a copy of sessions.db put back with the server
// stopped brought back sessions ended by a sign-out, a password changed,
// a lock and a reset. The file is bound to an epoch kept beside the
// secret, changed whenever a session ends: a file from before is refused
// whole, so the session never ended in it is refused too, and its holder
// signs in again; the log names the file.
#[test]
fn a_sessions_file_put_back_lets_no_ended_session_in() {
    let data = data_dir();
    let mut server = Server::start(BINARY, data.path(), free_port());
    let admin = server.admin_token();
    server.add_users(&admin, &ENDED_AND_NOT);
    let (tokens, changer) = sign_in_all(&server);
    let copy = data.parent().join("sessions-copy.db");
    copy_sessions(data.path(), &copy);
    end_all_but_never(&server, &admin, &tokens, &changer);
    stop(&mut server);

    put_back_sessions(data.path(), &copy);
    let log = data.parent().join("serve.log");
    let server = Server::start_with_log(BINARY, data.path(), free_port(), &[], &log);
    let back: Vec<u16> = tokens
        .iter()
        .map(|t| server.http("GET", "/api/me", Some(t), None).0)
        .collect();
    assert_eq!(
        back, [401; 5],
        "a session came back with the file put back (out, changed, locked, reset, never)"
    );
    for kept in [&admin, &changer] {
        assert_eq!(
            server.http("GET", "/api/me", Some(kept), None).0,
            401,
            "every session in it is dropped"
        );
    }
    let logged = std::fs::read_to_string(&log).expect("the log");
    assert!(
        logged.contains("sessions.db") && logged.contains("put back"),
        "the log says which file was refused: {logged}"
    );
    // Everyone signs in again, with the passwords as they are now.
    server.login("never", "never-password-1");
    server.login("changed", "changed-password-2");
    server.login("admin", croupier_testkit::ADMIN_PASSWORD);
}

// The same, the file swapped while the server runs: the server reads it
// only as it starts, and what it kept meanwhile does not bind the file it
// finds then. A copy taken after the last session ended is the server's
// own state and is taken; sessions.db deleted means everyone signs in again.
#[test]
fn a_sessions_file_swapped_under_a_running_server_lets_no_ended_session_in() {
    let data = data_dir();
    let mut server = Server::start(BINARY, data.path(), free_port());
    let admin = server.admin_token();
    server.add_users(&admin, &ENDED_AND_NOT);
    let (tokens, changer) = sign_in_all(&server);
    let copy = data.parent().join("sessions-copy.db");
    copy_sessions(data.path(), &copy);
    end_all_but_never(&server, &admin, &tokens, &changer);
    // Swapped in as it runs, with the log files that would write the
    // server's last changes into it gone: it changes nothing the server holds.
    std::fs::copy(&copy, data.path().join("swapped.db")).expect("copied");
    std::fs::rename(data.path().join("swapped.db"), data.path().join("sessions.db")).expect("swapped");
    for log in ["sessions.db-wal", "sessions.db-shm"] {
        std::fs::remove_file(data.path().join(log)).expect("the log gone");
    }
    let now: Vec<u16> = tokens
        .iter()
        .map(|t| server.http("GET", "/api/me", Some(t), None).0)
        .collect();
    assert_eq!(
        now,
        [401, 401, 401, 401, 200],
        "the server reads the file only as it starts"
    );
    stop(&mut server);
    let server = Server::start(BINARY, data.path(), free_port());
    let back: Vec<u16> = tokens
        .iter()
        .map(|t| server.http("GET", "/api/me", Some(t), None).0)
        .collect();
    assert_eq!(back, [401; 5], "a session came back with the file swapped in");
    drop(server);

    // A copy made after the last end is the server's own: its sessions carry on.
    let mut server = Server::start(BINARY, data.path(), free_port());
    let admin = server.login("admin", croupier_testkit::ADMIN_PASSWORD);
    let never = server.login("never", "never-password-1");
    copy_sessions(data.path(), &copy);
    stop(&mut server);
    put_back_sessions(data.path(), &copy);
    let mut server = Server::start(BINARY, data.path(), free_port());
    for token in [&admin, &never] {
        assert_eq!(
            server.http("GET", "/api/me", Some(token), None).0,
            200,
            "no session ended since"
        );
    }
    stop(&mut server);

    // Deleted: nobody is signed in, and nobody is let in.
    for file in ["sessions.db", "sessions.db-wal", "sessions.db-shm"] {
        let _ = std::fs::remove_file(data.path().join(file));
    }
    let server = Server::start(BINARY, data.path(), free_port());
    assert_eq!(server.http("GET", "/api/me", Some(&never), None).0, 401);
    server.login("never", "never-password-1");
}

/// The frames a table stream received up to the `nth` of type `last`, that one included.
fn frames_until(socket: &mut Socket, last: &str, nth: usize) -> Vec<Value> {
    let mut frames = Vec::new();
    let mut seen = 0;
    loop {
        let frame = socket.next_frame();
        seen += usize::from(frame["type"] == last);
        frames.push(frame);
        if seen == nth {
            return frames;
        }
    }
}

/// The frames of type `kind` among `frames`.
fn of_type<'a>(frames: &'a [Value], kind: &str) -> Vec<&'a Value> {
    frames.iter().filter(|f| f["type"] == kind).collect()
}

// A stranger at a display board and a player at their terminal listen to a
// table's stream while the pit inspects it (the licence goes into the log,
// Colorado 2212(5)), annuls a player's bet, declares and lifts an emergency,
// and decides a dispute with corrections to two players (Colorado 2206(5)).
// Each sees what a number display board shows, and a player besides their
// own bets and money: no staff member's name or licence, no one else's money.
#[test]
fn a_stranger_and_a_player_listening_to_a_table_learn_no_one_elses_business() {
    const LICENCE: &str = "PIT-LICENCE-31337";
    let data = data_dir();
    let (server, [admin, cashier, dealer, _, p1, p2]) = casino(data.path());
    // The Maryland profile gives disputes to the floorperson.
    server.add_users(&admin, &[("p3", "player"), ("floor", "floorperson")]);
    let p3 = server.login("p3", "p3-password-1");
    let floor = server.login("floor", "floor-password-1");
    // The pit's licence is on their record (Colorado 2212(5)): the log takes it from there.
    server.ask(
        &admin,
        json!({"op": "set_licence", "username": "pit", "licence": LICENCE}),
    );
    let (status, signed_in) = server.http(
        "POST",
        "/api/login",
        None,
        Some(&json!({"username": "pit", "password": "pit-password-1", "licence": LICENCE})),
    );
    assert_eq!(status, 200, "{signed_in}");
    let pit = signed_in["token"].as_str().expect("token").to_string();
    server.ask(&admin, table("d1", "dealer"));

    let mut board = server.subscribe("d1", None);
    let mut other = server.subscribe("d1", Some(&p2));
    let mut corrected = server.subscribe("d1", Some(&p1));
    let mut staff = server.subscribe("d1", Some(&pit));

    server.inspect_and_open(&pit, &dealer, "d1");
    for (player, token) in [("p1", &p1), ("p2", &p2), ("p3", &p3)] {
        server.seat(&cashier, (player, token), "d1", 10_000, 5_000);
    }
    server.ask(&dealer, json!({"op": "open_betting", "table": "d1"}));
    for (token, id, spot, stake) in [
        (&p1, "b1", "17", 300),
        (&p1, "b2", "red", 100),
        (&p3, "b3", "black", 200),
    ] {
        server.ask(
            token,
            json!({"op": "place_bet", "table": "d1", "bet_id": id, "spot": spot, "stake": stake}),
        );
    }
    // european-casino 3.7: a pooled bet annulled; its stake goes back to its player.
    server.ask(
        &pit,
        json!({"op": "annul_bets", "table": "d1", "bet_ids": ["b1"], "reason": "pooled"}),
    );
    server.ask(
        &pit,
        json!({"op": "declare_emergency", "table": "d1", "reason": "smoke"}),
    );
    server.ask(&pit, json!({"op": "lift_emergency", "table": "d1"}));
    server.ask(&dealer, json!({"op": "no_more_bets", "table": "d1"}));
    server.ask(
        &dealer,
        json!({"op": "spin", "table": "d1", "spin": {"pocket": "17", "direction": "opposite", "revolutions": 6}}),
    );
    // Colorado 2206(5): a dispute corrects what the round's wagers could
    // pay. p1's straight-up on 17 was annulled: it played for nothing, and
    // no dispute pays it 35 to 1 now that 17 came.
    let as_if_played = json!({"op": "dispute", "table": "d1", "id": "pay-annulled", "reason": "pay the annulled bet",
                              "corrections": [{"player": "p1", "amount": 10_000}]});
    let (status, code, message) = refused(&server, &floor, as_if_played);
    assert_eq!((status, code.as_str()), (422, "bad_correction"), "{message}");
    assert!(message.contains("could return at most"), "{message}");
    // The round disputed: p1's red lost, p3's black won; each is corrected by 100.
    let dispute = json!({"op": "dispute", "table": "d1", "id": "knocked-off-17", "reason": "chip knocked off 17",
                         "corrections": [{"player": "p1", "amount": 100}, {"player": "p3", "amount": -100}]});
    let decided = server.ask(&floor, dispute);
    let answered = decided["events"].as_array().expect("events");
    assert!(
        answered
            .iter()
            .any(|e| e["type"] == "dispute_decided" && e["corrections"].as_array().map(Vec::len) == Some(2)),
        "the floorperson's answer holds the whole decision: {decided}"
    );
    // Every stream shows the next round's betting: what came before it is all each was sent.
    server.ask(&dealer, json!({"op": "open_betting", "table": "d1"}));
    let board = frames_until(&mut board, "betting_opened", 2);
    let other = frames_until(&mut other, "betting_opened", 2);
    let corrected = frames_until(&mut corrected, "betting_opened", 2);
    let staff = frames_until(&mut staff, "betting_opened", 2);

    // The staff see everything: the licence, who acted, every correction.
    let inspections = of_type(&staff, "inspection_recorded");
    assert_eq!(inspections.len(), 1, "{staff:?}");
    assert_eq!(
        (inspections[0]["by"].as_str(), inspections[0]["licence"].as_str()),
        (Some("pit"), Some(LICENCE))
    );
    let disputes = of_type(&staff, "dispute_decided");
    assert_eq!(disputes.len(), 1, "{staff:?}");
    assert_eq!(disputes[0]["by"], "floor");
    assert_eq!(
        disputes[0]["corrections"],
        json!([{"player": "p1", "amount": 100}, {"player": "p3", "amount": -100}])
    );
    assert_eq!(of_type(&staff, "bets_annulled").len(), 1, "{staff:?}");
    assert_eq!(of_type(&staff, "emergency_declared")[0]["by"], "pit");
    assert_eq!(of_type(&staff, "bought_in").len(), 3, "{staff:?}");

    // What a number display board shows, and what everyone sees.
    for (who, frames) in [("the board", &board), ("p2", &other), ("p1", &corrected)] {
        for (kind, count) in [
            ("table_opened", 1),
            ("betting_opened", 2),
            ("emergency_declared", 1),
            ("emergency_lifted", 1),
            ("result", 1),
            ("round_settled", 1),
        ] {
            assert_eq!(of_type(frames, kind).len(), count, "{who} saw no {kind}: {frames:?}");
        }
        for frame in frames.iter() {
            let text = frame.to_string();
            assert!(!text.contains(LICENCE), "{who} was shown the pit's licence: {text}");
            assert!(
                frame.get("by").is_none(),
                "{who} was shown who on the staff acted: {text}"
            );
            assert!(frame.get("licence").is_none(), "{who}: {text}");
            for kind in ["inspection_recorded", "bets_annulled"] {
                assert_ne!(frame["type"], kind, "{who}: {text}");
            }
        }
    }
    // The board knows of no player at all.
    for frame in &board {
        assert!(
            frame.get("player").is_none() && frame.get("corrections").is_none(),
            "the board was shown a player's business: {frame}"
        );
    }
    // p2, about whom nothing was decided, sees only their own chips.
    for frame in &other {
        assert!(frame.get("corrections").is_none(), "p2 was shown a dispute: {frame}");
        if let Some(player) = frame.get("player") {
            assert_eq!(player, "p2", "p2 was shown another player's business: {frame}");
        }
    }
    // p1 sees their own bet come back and their own correction, not p3's.
    for frame in &corrected {
        if let Some(player) = frame.get("player") {
            assert_eq!(player, "p1", "p1 was shown another player's business: {frame}");
        }
    }
    let returned = of_type(&corrected, "bet_returned");
    assert_eq!(
        (
            returned.len(),
            returned[0]["bet_id"].as_str(),
            returned[0]["reason"].as_str()
        ),
        (1, Some("b1"), Some("annulled")),
        "{corrected:?}"
    );
    let own = of_type(&corrected, "dispute_decided");
    assert_eq!(own.len(), 1, "{corrected:?}");
    assert_eq!(own[0]["corrections"], json!([{"player": "p1", "amount": 100}]));
    assert_eq!(own[0]["reason"], "chip knocked off 17");

    // The list of tables shows a player their own seat, the staff every seat;
    // a display board's view of a table names no player.
    let seats = |token: &str| -> Vec<String> {
        let (status, list) = server.http("GET", "/api/tables", Some(token), None);
        assert_eq!(status, 200, "{list}");
        let tables = list["tables"].as_array().expect("tables");
        let d1 = tables.iter().find(|t| t["table"] == "d1").expect("d1 listed");
        d1["colours"]
            .as_array()
            .expect("colours")
            .iter()
            .map(|seat| seat["player"].as_str().expect("player").to_string())
            .collect()
    };
    assert_eq!(seats(&p2), ["p2"]);
    assert_eq!(seats(&pit), ["p1", "p2", "p3"]);
    assert_eq!(seats(&cashier), ["p1", "p2", "p3"]);
    let (_, shown) = server.http("GET", "/api/public/tables/d1", None, None);
    for name in ["p1", "p2", "p3", "pit", LICENCE] {
        assert!(!shown.to_string().contains(&format!("\"{name}\"")), "{name}: {shown}");
    }
}

/// What a socket whose session ended must be told, and how soon.
const SESSION_OVER: (u16, &str) = (4001, "the session is over");
const CLOSED_WITHIN: Duration = Duration::from_secs(2);

fn closes(socket: &mut Socket, why: &str) {
    let closed = socket.closed_within(CLOSED_WITHIN);
    assert_eq!(
        closed.as_ref().map(|(code, reason)| (*code, reason.as_str())),
        Ok(SESSION_OVER),
        "{why}"
    );
}

// A terminal's socket lives on after its session: signed out, the account
// locked or its password reset by an admin, or changed by its owner from
// another terminal. Each time the socket is closed within a moment, carries
// no more of the table, takes no more bets, and its token opens no new one.
#[test]
fn a_socket_is_closed_when_its_session_ends() {
    let data = data_dir();
    let (server, [admin, cashier, dealer, pit, p1, p2]) = casino(data.path());
    server.ask(&admin, table("s1", "dealer"));
    server.inspect_and_open(&pit, &dealer, "s1");
    server.seat(&cashier, ("p1", &p1), "s1", 10_000, 5_000);
    server.ask(&dealer, json!({"op": "open_betting", "table": "s1"}));
    let mut board = server.subscribe("s1", None);
    let mut bystander = server.subscribe("s1", Some(&p2));

    // Signed out: the socket closes, and the bet it still sends goes nowhere.
    let mut socket = server.subscribe("s1", Some(&p1));
    assert_eq!(server.http("POST", "/api/logout", Some(&p1), None).0, 200);
    closes(&mut socket, "signed out");
    let bet = json!({"ref": "late", "request": {"op": "place_bet", "table": "s1", "bet_id": "late", "spot": "17", "stake": 100}});
    let _ = socket.try_send(&bet.to_string());
    assert!(socket.try_next_frame().is_err(), "a closed socket answered");
    assert_eq!(Socket::handshake_status(server.address(), "s1", Some(&p1)), 401);

    // Locked by an admin: every socket of the account closes.
    let p1 = server.login("p1", "p1-password-1");
    let mut here = server.subscribe("s1", Some(&p1));
    let mut there = server.subscribe("s1", Some(&p1));
    server.ask(&admin, json!({"op": "lock_user", "username": "p1"}));
    closes(&mut here, "locked, the first terminal");
    closes(&mut there, "locked, the second terminal");
    assert_eq!(Socket::handshake_status(server.address(), "s1", Some(&p1)), 401);
    server.ask(&admin, json!({"op": "unlock_user", "username": "p1"}));

    // A password set by an admin.
    let p1 = server.login("p1", "p1-password-1");
    let mut socket = server.subscribe("s1", Some(&p1));
    server.ask(
        &admin,
        json!({"op": "reset_password", "username": "p1", "password": "p1-password-2"}),
    );
    closes(&mut socket, "the password reset");

    // The admin chose that password: p1 changes it before anything else,
    // and cannot follow a table until then.
    let first = server.login("p1", "p1-password-2");
    assert_eq!(Socket::handshake_status(server.address(), "s1", Some(&first)), 403);
    server.ask(
        &first,
        json!({"op": "change_password", "password": "p1-password-2", "new_password": "p1-password-3"}),
    );
    // A password changed by its owner ends the other sessions, not this one.
    let here = server.login("p1", "p1-password-3");
    let there = server.login("p1", "p1-password-3");
    let mut kept = server.subscribe("s1", Some(&here));
    let mut ended = server.subscribe("s1", Some(&there));
    server.ask(
        &here,
        json!({"op": "change_password", "password": "p1-password-3", "new_password": "p1-password-4"}),
    );
    closes(&mut ended, "the password changed elsewhere");
    kept.send(&bet.to_string());
    assert_eq!(kept.next_reply()["ok"], true, "the session that changed it goes on");

    // The board and the other player never lost their streams.
    server.ask(&dealer, json!({"op": "no_more_bets", "table": "s1"}));
    for (who, socket) in [("the board", &mut board), ("p2", &mut bystander)] {
        let frames = frames_until(socket, "no_more_bets", 1);
        assert!(!frames.is_empty(), "{who}");
    }
    // Only the bet sent from the session that goes on was taken.
    let (_, bets) = server.http("GET", "/api/tables/s1/bets", Some(&pit), None);
    let ids: Vec<&str> = bets["bets"]
        .as_array()
        .expect("bets")
        .iter()
        .filter_map(|b| b["bet_id"].as_str())
        .collect();
    assert_eq!(ids, ["late"], "{bets}");
}

// Colorado 2203(1): only valid match play coupons. A player once minted
// them by naming a value on a bet: red and black, each with a coupon of
// its stake, won every round. Through the server: a coupon by value, a
// forged id, another player's and a second play of one are each refused,
// and the hedge no longer pays.
#[test]
fn a_player_cannot_mint_or_reuse_match_play_coupons() {
    let data = data_dir();
    let (server, [admin, cashier, dealer, pit, p1, p2]) = casino(data.path());
    let mut colorado = table("c1", "dealer");
    colorado["profile_text"] = json!(include_str!("../../../profiles/colorado-2014.toml"));
    server.ask(&admin, colorado);
    server.inspect_and_open(&pit, &dealer, "c1");
    server.seat(&cashier, ("p1", &p1), "c1", 10_000, 5_000);
    server.seat(&cashier, ("p2", &p2), "c1", 10_000, 5_000);
    server.ask(
        &cashier,
        json!({"op": "issue_coupon", "id": "mp-7", "player": "p2", "table": "c1", "value": 500}),
    );
    server.ask(
        &pit,
        json!({"op": "issue_coupon", "id": "mp-8", "player": "p1", "table": "c1", "value": 500}),
    );
    let (status, _, _) = refused(
        &server,
        &p1,
        json!({"op": "issue_coupon", "id": "mine", "player": "p1", "table": "c1", "value": 500}),
    );
    assert_eq!(status, 403, "a player issues themself a coupon");
    server.ask(&dealer, json!({"op": "open_betting", "table": "c1"}));
    let bet = |id: &str, spot: &str, coupon: Value| {
        let mut bet = json!({"op": "place_bet", "table": "c1", "bet_id": id, "spot": spot, "stake": 500});
        for (k, v) in coupon.as_object().expect("fields") {
            bet[k] = v.clone();
        }
        bet
    };
    for (attempt, coupon) in [
        ("a coupon by its value", json!({"coupon": 500})),
        ("a forged id", json!({"coupon_id": "mp-1000"})),
        ("another player's", json!({"coupon_id": "mp-7"})),
    ] {
        let (status, code, message) = refused(&server, &p1, bet("h1", "red", coupon));
        assert_eq!(
            (status, code.as_str()),
            (422, "coupon_not_issued"),
            "{attempt}: {message}"
        );
    }
    server.ask(&p1, bet("h1", "red", json!({"coupon_id": "mp-8"})));
    let (status, code, message) = refused(&server, &p1, bet("h2", "black", json!({"coupon_id": "mp-8"})));
    assert_eq!((status, code.as_str()), (422, "coupon_used"), "{message}");
    // The hedge without a second coupon: black for chips.
    server.ask(&p1, bet("h2", "black", json!({})));
    server.ask(&dealer, json!({"op": "no_more_bets", "table": "c1"}));
    server.ask(
        &dealer,
        json!({"op": "spin", "table": "c1", "spin": {"pocket": "17", "direction": "opposite", "revolutions": 6}}),
    );
    let (_, me) = server.http("GET", "/api/me", Some(&p1), None);
    // Black wins 500 on 500; red's stake and its coupon lose: p1 is even, not ahead.
    assert_eq!(me["accounts"]["chips:c1:p1"], 5_000, "{me}");
}

// A session token in a stream's URL is written into access logs, proxies'
// logs and browser histories: the stream refuses one there, and takes it
// only as a subprotocol, as the pages send it.
#[test]
fn a_stream_takes_no_token_in_its_url() {
    let data = data_dir();
    let (server, [_, _, _, _, p1, _]) = casino(data.path());
    let (status, body) = server.http("GET", &format!("/api/tables/t1/stream?token={p1}"), None, None);
    assert_eq!((status, body["error"].as_str()), (400, Some("bad_request")), "{body}");
    assert!(
        body["message"].as_str().unwrap_or_default().contains("subprotocol"),
        "{body}"
    );
    assert_eq!(Socket::handshake_status(server.address(), "t1", Some(&p1)), 101);
}

// A table's stream once took the cage's requests too: a socket could lock
// the last admin, reset passwords and queue password hashes past the
// sign-in throttle. Now they are refused there, and go over HTTP alone.
#[test]
fn a_table_stream_takes_only_that_tables_requests() {
    let data = data_dir();
    let (server, [admin, _cashier, dealer, pit, p1, _p2]) = casino(data.path());
    server.ask(&admin, table("s1", "dealer"));
    server.inspect_and_open(&pit, &dealer, "s1");
    let mut socket = server.subscribe("s1", Some(&admin));
    for (i, request) in [
        json!({"op": "lock_user", "username": "p1"}),
        json!({"op": "reset_password", "username": "p1", "password": "chosen-password-9"}),
        json!({"op": "change_password", "password": "admin-password-1", "new_password": "admin-password-2"}),
        json!({"op": "create_user", "username": "eve", "role": "admin", "password": "eve-password-1"}),
    ]
    .into_iter()
    .enumerate()
    {
        let op = request["op"].clone();
        socket.send(&json!({"ref": format!("r{i}"), "request": request}).to_string());
        let reply = socket.next_reply();
        assert_eq!(reply["ok"], false, "{op}: {reply}");
        assert_eq!(reply["error"], "bad_request", "{op}: {reply}");
        assert!(
            reply["message"]
                .as_str()
                .is_some_and(|m| m.contains("POST /api/requests")),
            "{op}: {reply}"
        );
    }
    // Nothing of it happened: p1 still signs in, the admin's password
    // stands, and there is no eve.
    assert_eq!(server.http("GET", "/api/me", Some(&p1), None).0, 200);
    server.login("p1", "p1-password-1");
    server.login("admin", "admin-password-1");
    let (status, _) = server.http(
        "POST",
        "/api/login",
        None,
        Some(&json!({"username": "eve", "password": "eve-password-1"})),
    );
    assert_eq!(status, 401);
    // Another table's request is refused there too.
    socket.send(&json!({"ref": "other", "request": {"op": "open_betting", "table": "s2"}}).to_string());
    let reply = socket.next_reply();
    assert_eq!(reply["ok"], false, "{reply}");
    assert!(verify(data.path()).0);
}

// A dishonest cashier alone once could cash in any sum never received to a
// friend's wallet: through the server, a cashier's day for one player ends
// at 10,000.00 however split, and a larger cash-in is an admin's.
#[test]
fn a_cashier_alone_cannot_cash_in_a_fortune() {
    let data = data_dir();
    let (mut server, [admin, cashier, ..]) = casino(data.path());
    for (id, amount) in [("c1", 600_000), ("c2", 400_000)] {
        server.ask(
            &cashier,
            json!({"op": "cash_in", "id": id, "player": "p1", "amount": amount}),
        );
    }
    let (status, code, message) = refused(
        &server,
        &cashier,
        json!({"op": "cash_in", "id": "c3", "player": "p1", "amount": 1}),
    );
    assert_eq!((status, code.as_str()), (403, "over_role_limit"), "{message}");
    assert!(message.contains("10000.00 so far today"), "{message}");
    // The same cash-in sent again after a lost answer is no new one.
    server.ask(
        &cashier,
        json!({"op": "cash_in", "id": "c2", "player": "p1", "amount": 400_000}),
    );
    server.ask(
        &admin,
        json!({"op": "cash_in", "id": "c-big", "player": "p1", "amount": 2_000_000}),
    );
    server.kill();
    let (passed, report) = verify(data.path());
    assert!(passed, "{report}");
    assert_eq!(report["balances"]["wallet:p1"], 3_000_000, "{report}");
}

// One casino, one currency: a table whose profile is in another currency is
// refused, through the real server, and nothing is written; so is In Prison
// where the posted notice says even-money wagers lose on 0 (Colorado
// 2210(2)(c)(ii)(C)). The first run's tables share the casino's currency.
#[test]
fn a_table_in_another_currency_or_with_a_forbidden_in_prison_is_refused() {
    let data = data_dir();
    let (server, [admin, ..]) = casino(data.path());
    let (_, tables) = server.http("GET", "/api/tables", Some(&admin), None);
    let currencies: std::collections::BTreeSet<String> = tables["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .map(|t| t["currency"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(currencies.len(), 1, "the first run's tables: {tables}");
    let before = journal_rows(data.path()).len();
    let euro = json!({"op": "create_table", "table": "eu", "profile_text": include_str!("../../../profiles/european-casino.toml"),
                      "wheel": "single-zero", "in_prison": false, "betting_window_ms": 60000, "outcome": "dealer"});
    let (status, code, message) = refused(&server, &admin, euro);
    assert_eq!((status, code.as_str()), (422, "bad_table"), "{message}");
    assert!(message.contains("USD") && message.contains("EUR"), "{message}");
    let prison = json!({"op": "create_table", "table": "dz", "profile_text": include_str!("../../../profiles/colorado-2014.toml"),
                        "wheel": "double-zero-as-single-zero", "in_prison": true, "betting_window_ms": 60000, "outcome": "dealer"});
    let (status, code, message) = refused(&server, &admin, prison);
    assert_eq!((status, code.as_str()), (422, "bad_table"), "{message}");
    assert!(message.contains("In Prison"), "{message}");
    assert_eq!(journal_rows(data.path()).len(), before, "nothing written");
    let (ok, report) = verify(data.path());
    assert!(ok, "{report}");
}

// Colorado 2207, Maryland ch.1 G(3): a table's limits are posted by the pit,
// between rounds, and bets keep them. A player or a dealer cannot set them,
// nor can anyone mid-round or beyond what the table offers; the first run's
// tables post realistic limits, shown to everyone on the table's layout.
#[test]
fn only_the_pit_posts_a_tables_limits_and_only_between_rounds() {
    let data = data_dir();
    let (server, [_, cashier, dealer, pit, p1, _]) = casino(data.path());
    let (_, layout) = server.http("GET", "/api/public/tables/t2/layout", None, None);
    let kind = |layout: &Value, k: &str| {
        layout["kinds"]
            .as_array()
            .expect("kinds")
            .iter()
            .find(|x| x["kind"] == k)
            .cloned()
            .unwrap_or(Value::Null)
    };
    assert_eq!(
        (
            kind(&layout, "straight")["min"].as_u64(),
            kind(&layout, "straight")["max"].as_u64()
        ),
        (Some(100), Some(10_000)),
        "{layout}"
    );
    assert_eq!(
        (
            kind(&layout, "red")["min"].as_u64(),
            kind(&layout, "red")["max"].as_u64()
        ),
        (Some(500), Some(50_000)),
        "{layout}"
    );

    let post = |min: u64, max: u64| json!({"op": "set_limits", "table": "t2", "limits": [{"kind": "straight", "min": min, "max": max}]});
    let before = journal_rows(data.path()).len();
    for (who, code) in [(&p1, "forbidden"), (&dealer, "forbidden")] {
        let (status, got, message) = refused(&server, who, post(100, 200));
        assert_eq!((status, got.as_str()), (403, code), "{message}");
    }
    let (status, _) = server.http("POST", "/api/requests", None, Some(&post(100, 200)));
    assert_eq!(status, 401, "nobody signed in");
    for (limits, says) in [
        (json!([{"kind": "straight", "min": 0, "max": 200}]), "straight"),
        (json!([{"kind": "first_four", "min": 100, "max": 200}]), "first_four"),
        (json!([{"kind": "nonsense", "min": 100, "max": 200}]), "nonsense"),
        (
            json!([{"kind": "split", "min": 100, "max": 200}, {"kind": "split", "min": 100, "max": 300}]),
            "twice",
        ),
    ] {
        let (status, code, message) = refused(
            &server,
            &pit,
            json!({"op": "set_limits", "table": "t2", "limits": limits}),
        );
        assert_eq!((status, code.as_str()), (422, "bad_limits"), "{message}");
        assert!(message.contains(says), "{message}");
    }
    assert_eq!(journal_rows(data.path()).len(), before, "nothing written");

    // Mid-round: refused; between rounds: posted, and the next round keeps it.
    server.inspect_and_open(&pit, &dealer, "t2");
    server.seat(&cashier, ("p1", &p1), "t2", 100_000, 50_000);
    server.ask(&dealer, json!({"op": "open_betting", "table": "t2"}));
    let (status, code, message) = refused(&server, &pit, post(100, 200));
    assert_eq!((status, code.as_str()), (422, "round_under_way"), "{message}");
    let bet =
        |id: &str, stake: u64| json!({"op": "place_bet", "table": "t2", "bet_id": id, "spot": "17", "stake": stake});
    let (status, code, message) = refused(&server, &p1, bet("over", 20_000));
    assert_eq!((status, code.as_str()), (422, "over_maximum"), "{message}");
    server.ask(&p1, bet("ok", 10_000));
    // The maximum holds per spot: more on 17 in the same round is refused;
    // another spot is not.
    let (status, code, message) = refused(&server, &p1, bet("more", 100));
    assert_eq!((status, code.as_str()), (422, "over_maximum"), "{message}");
    assert!(message.contains("100.00 on the straight 17"), "{message}");
    server.ask(
        &p1,
        json!({"op": "place_bet", "table": "t2", "bet_id": "s18", "spot": "17-18", "stake": 10_000}),
    );
    server.ask(&dealer, json!({"op": "no_more_bets", "table": "t2"}));
    server.ask(
        &dealer,
        json!({"op": "spin", "table": "t2", "spin": {"pocket": "5", "direction": "opposite", "revolutions": 5}}),
    );
    server.ask(&pit, post(200, 1_000));
    let (_, layout) = server.http("GET", "/api/public/tables/t2/layout", None, None);
    assert_eq!(kind(&layout, "straight")["max"].as_u64(), Some(1_000), "{layout}");
    server.ask(&dealer, json!({"op": "open_betting", "table": "t2"}));
    let (status, code, message) = refused(&server, &p1, bet("again", 10_000));
    assert_eq!((status, code.as_str()), (422, "over_maximum"), "{message}");
    let (ok, report) = verify(data.path());
    assert!(ok, "{report}");
}

// Colorado 2203(1): "valid match play coupons". A coupon is valid until its
// end: past it, a bet that plays it is refused, through the real server;
// the table's report counts each issued coupon once, as redeemed, expired
// or outstanding, and the coupons account carries what redeemed ones cost.
#[test]
fn a_coupon_past_its_end_is_refused_and_the_report_counts_each_coupon() {
    let data = data_dir();
    let (server, [_, cashier, dealer, pit, p1, _]) = casino(data.path());
    server.inspect_and_open(&pit, &dealer, "t2");
    server.seat(&cashier, ("p1", &p1), "t2", 100_000, 50_000);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_millis() as u64;
    let issue = |id: &str, until: Option<u64>| {
        let mut request = json!({"op": "issue_coupon", "id": id, "player": "p1", "table": "t2", "value": 500});
        if let Some(until) = until {
            request["expires_at_ms"] = json!(until);
        }
        request
    };
    let (status, code, message) = refused(&server, &cashier, issue("mp-past", Some(now - 1)));
    assert_eq!((status, code.as_str()), (422, "bad_coupon"), "{message}");
    server.ask(&cashier, issue("mp-soon", Some(now + 1_500)));
    server.ask(&cashier, issue("mp-played", None));
    server.ask(&cashier, issue("mp-kept", Some(now + 86_400_000)));
    server.ask(&dealer, json!({"op": "open_betting", "table": "t2"}));
    let bet = |id: &str, coupon: &str| json!({"op": "place_bet", "table": "t2", "bet_id": id, "spot": "red", "stake": 500, "coupon_id": coupon});
    server.ask(&p1, bet("b1", "mp-played"));
    std::thread::sleep(Duration::from_millis(1_600));
    let (status, code, message) = refused(&server, &p1, bet("b2", "mp-soon"));
    assert_eq!((status, code.as_str()), (422, "coupon_expired"), "{message}");
    assert!(message.contains("mp-soon"), "{message}");
    let (status, report) = server.http("GET", "/api/tables/t2/report", Some(&pit), None);
    assert_eq!(status, 200, "{report}");
    let count = |what: &str| {
        (
            report["coupons"][what]["count"].as_u64(),
            report["coupons"][what]["value"].as_u64(),
        )
    };
    assert_eq!(count("issued"), (Some(3), Some(1_500)), "{report}");
    assert_eq!(count("redeemed"), (Some(1), Some(500)), "{report}");
    assert_eq!(count("expired"), (Some(1), Some(500)), "{report}");
    assert_eq!(count("outstanding"), (Some(1), Some(500)), "{report}");
    let (ok, verified) = verify(data.path());
    assert!(ok, "{verified}");
}

// Colorado 2212(2), Maryland ch.2 B: an adjustment names the security
// member present; Maryland ch.2 F: a table closes with its wheel cover
// locked. Refused otherwise, through the real server, writing nothing.
#[test]
fn an_unwitnessed_adjustment_and_an_unlocked_close_are_refused() {
    let data = data_dir();
    let (server, [admin, _, dealer, pit, _, _]) = casino(data.path());
    server.add_users(&admin, &[("guard", "security")]);
    let before = journal_rows(data.path()).len();
    let adjust = json!({"op": "adjust", "table": "t1", "replacement": false, "description": "levelled the wheel"});
    let (status, code, message) = refused(&server, &pit, adjust.clone());
    assert_eq!((status, code.as_str()), (422, "witness_required"), "{message}");
    assert_eq!(journal_rows(data.path()).len(), before, "nothing written");
    let mut witnessed = adjust;
    witnessed["witness"] = json!("guard");
    server.ask(&pit, witnessed);
    // The witness confirms it from their own account (journal format 16).
    let guard = server.login("guard", "guard-password-1");
    server.ask(
        &guard,
        json!({"op": "witness_adjustment", "table": "t1", "adjustment": 1}),
    );
    server.inspect_and_open(&pit, &dealer, "t1");
    let (status, code, message) = refused(&server, &dealer, json!({"op": "close_table", "table": "t1"}));
    assert_eq!((status, code.as_str()), (422, "cover_not_locked"), "{message}");
    server.ask(
        &dealer,
        json!({"op": "close_table", "table": "t1", "wheel_cover_locked": true}),
    );
    let (ok, report) = verify(data.path());
    assert!(ok, "{report}");
}

// Colorado 2212(5), Maryland ch.2 E: the logs carry who acted and their
// licence number. A dishonest dealer typing another licence at sign-in
// does not change the one on their record, which the log takes. A licence
// is recorded only by an admin, never for a player, and a user asked for
// with a bad one is not made at all.
#[test]
fn the_log_takes_a_licence_from_the_users_record_not_the_sign_in() {
    let data = data_dir();
    let (server, [admin, _, dealer, pit, _, _]) = casino(data.path());
    server.ask(&admin, json!({"op": "create_user", "username": "dee", "role": "dealer", "password": "dee-password-1", "licence": "D-9"}));
    let (status, body) = server.http(
        "POST",
        "/api/login",
        None,
        Some(&json!({"username": "dee", "password": "dee-password-1", "licence": "D-1001"})),
    );
    assert_eq!(status, 200, "{body}");
    let dee = body["token"].as_str().expect("token").to_string();
    server.ask(&pit, json!({"op": "inspect", "table": "t2", "no_magnet_or_contrivance": true, "wheel_level_and_rotating_freely": true,
                             "parts_secure": true, "ball_non_magnetic": true, "layout_and_signage_comply": true}));
    server.ask(&dee, json!({"op": "open_table", "table": "t2"}));
    let (_, log) = server.http("GET", "/api/tables/t2/log", Some(&pit), None);
    let opened = log["log"]
        .as_array()
        .expect("log")
        .iter()
        .find(|e| e["type"] == "table_opened")
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(
        (opened["by"].as_str(), opened["licence"].as_str()),
        (Some("dee"), Some("D-9")),
        "{log}"
    );

    let (status, code, message) = refused(
        &server,
        &dealer,
        json!({"op": "set_licence", "username": "dee", "licence": "D-1"}),
    );
    assert_eq!((status, code.as_str()), (403, "forbidden"), "{message}");
    let (status, code, message) = refused(
        &server,
        &admin,
        json!({"op": "create_user", "username": "pat", "role": "player", "password": "pat-password-1", "licence": "P-1"}),
    );
    assert_eq!((status, code.as_str()), (422, "bad_licence"), "{message}");
    let (status, _) = server.http(
        "POST",
        "/api/login",
        None,
        Some(&json!({"username": "pat", "password": "pat-password-1"})),
    );
    assert_eq!(status, 401, "no half-made user");
    for bad in [" D-2", "D-1\u{feff}", "D\u{200b}x", ""] {
        let (status, code, message) = refused(
            &server,
            &admin,
            json!({"op": "set_licence", "username": "dee", "licence": bad}),
        );
        assert_eq!((status, code.as_str()), (422, "bad_licence"), "{bad:?}: {message}");
    }
    // A new licence on record ends the sessions signed in with the old one.
    server.ask(
        &admin,
        json!({"op": "set_licence", "username": "dee", "licence": "D-10"}),
    );
    let close = json!({"op": "close_table", "table": "t2", "wheel_cover_locked": true});
    let (status, _) = server.http("POST", "/api/requests", Some(&dee), Some(&close));
    assert_eq!(status, 401, "the old session is over");
    let (ok, report) = verify(data.path());
    assert!(ok, "{report}");
}

// A spin missing its revolutions, or carrying them mistyped, is refused
// naming the field, never read as 0 (a real 17 journaled as a no spin of
// too few revolutions) nor as another kind of spin; nothing is written.
#[test]
fn a_spin_with_its_revolutions_missing_or_mistyped_is_refused_naming_them() {
    let data = data_dir();
    let (server, [_, _, dealer, pit, _, _]) = casino(data.path());
    server.inspect_and_open(&pit, &dealer, "t2");
    server.ask(&dealer, json!({"op": "open_betting", "table": "t2"}));
    server.ask(&dealer, json!({"op": "no_more_bets", "table": "t2"}));
    let before = journal_rows(data.path()).len();
    for (spin, named) in [
        (json!({"pocket": "17", "direction": "opposite"}), "revolutions missing"),
        (
            json!({"pocket": "17", "direction": "opposite", "revolutions": ""}),
            "revolutions",
        ),
        (
            json!({"pocket": "17", "direction": "opposite", "revolutions": null}),
            "revolutions missing",
        ),
        (
            json!({"pocket": "17", "direction": "opposite", "revolutions": -1}),
            "revolutions",
        ),
        (
            json!({"pocket": "17", "direction": "opposite", "revolutions": 256}),
            "revolutions",
        ),
        (
            json!({"pocket": "17", "direction": "opposite", "revolutions": 6.5}),
            "revolutions",
        ),
        (json!({"pocket": "17", "revolutions": 17}), "direction missing"),
        (json!({"revolutions": 17}), "pocket, direction missing"),
        (
            json!({"pocket": "17", "direction": "opposite", "revolutions": 17, "junk": "x"}),
            "unknown field `junk`",
        ),
        (json!(["17", "opposite", 5, null]), "expected a map"),
        (
            json!({"pocket": 17, "direction": "opposite", "revolutions": 17}),
            "pocket is text",
        ),
        (
            json!({"pocket": "17", "direction": "opposite", "revolutions": 17, "no_spin": "ball_left_wheel"}),
            "not both",
        ),
    ] {
        let (status, code, message) = refused(&server, &dealer, json!({"op": "spin", "table": "t2", "spin": spin}));
        assert_eq!((status, code.as_str()), (400, "bad_request"), "{spin}: {message}");
        assert!(
            message.contains(named),
            "{spin}: the refusal names {named:?}: {message}"
        );
    }
    assert_eq!(journal_rows(data.path()).len(), before, "no refusal wrote anything");
    let (_, table) = server.http("GET", "/api/public/tables/t2", None, None);
    assert_eq!(
        table["phase"], "closed-betting",
        "the round still waits for its result: {table}"
    );
    server.ask(
        &dealer,
        json!({"op": "spin", "table": "t2", "spin": {"pocket": "17", "direction": "opposite", "revolutions": 17}}),
    );
    let (_, table) = server.http("GET", "/api/public/tables/t2", None, None);
    assert_eq!(
        table["last_pockets"][0], "17",
        "17 revolutions counted: the result stands: {table}"
    );
}

// Colorado 2206(4): a ball that left the wheel is recovered and inspected by
// the pit supervisor before it is spun again; Maryland ch.6 B-C: the dealer
// inspects it after too few revolutions or after it left the wheel, and a
// damaged one is replaced by the floorperson or above. A dealer who spins
// on with an uninspected ball, or inspects where the pit must, is refused.
#[test]
fn a_ball_that_left_the_wheel_is_inspected_before_the_next_spin() {
    let data = data_dir();
    let (server, [admin, _, dealer, pit, p1, _]) = casino(data.path());
    server.inspect_and_open(&pit, &dealer, "t2");
    server.ask(&dealer, json!({"op": "open_betting", "table": "t2"}));
    server.ask(&dealer, json!({"op": "no_more_bets", "table": "t2"}));
    let spin = |pocket: &str, revolutions: u8| json!({"op": "spin", "table": "t2", "spin": {"pocket": pocket, "direction": "opposite", "revolutions": revolutions}});
    let (status, code, message) = refused(&server, &pit, json!({"op": "inspect_ball", "table": "t2"}));
    assert_eq!((status, code.as_str()), (422, "no_ball_to_inspect"), "{message}");
    server.ask(
        &dealer,
        json!({"op": "spin", "table": "t2", "spin": {"no_spin": "ball_left_wheel"}}),
    );
    let before = journal_rows(data.path()).len();
    let (status, code, message) = refused(&server, &dealer, spin("17", 6));
    assert_eq!((status, code.as_str()), (422, "ball_inspection_required"), "{message}");
    assert!(message.contains("2206(4)"), "{message}");
    let (status, code, message) = refused(&server, &dealer, json!({"op": "inspect_ball", "table": "t2"}));
    assert_eq!(
        (status, code.as_str()),
        (403, "forbidden"),
        "the pit inspects in Colorado: {message}"
    );
    let (status, code, _) = refused(&server, &p1, json!({"op": "inspect_ball", "table": "t2"}));
    assert_eq!((status, code.as_str()), (403, "forbidden"));
    let (status, _) = server.http(
        "POST",
        "/api/requests",
        None,
        Some(&json!({"op": "inspect_ball", "table": "t2"})),
    );
    assert_eq!(status, 401);
    assert_eq!(journal_rows(data.path()).len(), before, "no refusal wrote anything");
    server.ask(&pit, json!({"op": "inspect_ball", "table": "t2"}));
    // Sent again, it finds no ball to inspect: nothing is written twice.
    let (status, code, _) = refused(&server, &pit, json!({"op": "inspect_ball", "table": "t2"}));
    assert_eq!((status, code.as_str()), (422, "no_ball_to_inspect"));
    server.ask(&dealer, spin("17", 6));
    let (_, log) = server.http("GET", "/api/tables/t2/log", Some(&pit), None);
    let inspected: Vec<&Value> = log["log"]
        .as_array()
        .expect("log")
        .iter()
        .filter(|e| e["type"] == "ball_inspected")
        .collect();
    assert_eq!(inspected.len(), 1, "{log}");
    assert_eq!(inspected[0]["reason"], "ball_left_wheel");
    assert_eq!(inspected[0]["by"], "pit");

    // Maryland: the dealer inspects after too few revolutions; a damaged ball is the pit's.
    server.ask(&admin, table("m1", "dealer"));
    server.inspect_and_open(&pit, &dealer, "m1");
    server.ask(&dealer, json!({"op": "open_betting", "table": "m1"}));
    server.ask(&dealer, json!({"op": "no_more_bets", "table": "m1"}));
    let m1 = |pocket: &str, revolutions: u8| json!({"op": "spin", "table": "m1", "spin": {"pocket": pocket, "direction": "opposite", "revolutions": revolutions}});
    server.ask(&dealer, m1("5", 2));
    let (status, code, message) = refused(&server, &dealer, m1("5", 6));
    assert_eq!((status, code.as_str()), (422, "ball_inspection_required"), "{message}");
    assert!(message.contains("ch.6"), "{message}");
    let (status, code, message) = refused(
        &server,
        &dealer,
        json!({"op": "inspect_ball", "table": "m1", "damaged": true}),
    );
    assert_eq!((status, code.as_str()), (403, "forbidden"), "{message}");
    server.ask(&dealer, json!({"op": "inspect_ball", "table": "m1"}));
    server.ask(&dealer, m1("5", 6));
    let (ok, report) = verify(data.path());
    assert!(ok, "{report}");
}

// Colorado 2212(4): after an external movable part is replaced, the Director
// or designee inspects the wheel before the table reopens. The pit cannot
// stand in for the regulator, and the regulator's account inspects nothing
// else.
#[test]
fn a_replaced_external_part_waits_for_the_regulator() {
    let data = data_dir();
    let (server, [admin, _, dealer, pit, _, _]) = casino(data.path());
    server.ask(
        &admin,
        json!({"op": "create_user", "username": "reg", "role": "auditor", "password": "reg-password-1", "licence": "DIR-7"}),
    );
    server.add_users(&admin, &[("guard", "security")]);
    let regulator = server.login("reg", "reg-password-1");
    let inspection = |table: &str| {
        json!({"op": "inspect", "table": table, "no_magnet_or_contrivance": true, "wheel_level_and_rotating_freely": true,
               "parts_secure": true, "ball_non_magnetic": true, "layout_and_signage_comply": true})
    };
    let (status, code, message) = refused(&server, &regulator, inspection("t2"));
    assert_eq!(
        (status, code.as_str()),
        (403, "forbidden"),
        "nothing awaits the regulator: {message}"
    );
    server.ask(
        &pit,
        json!({"op": "adjust", "table": "t2", "replacement": true, "external": true, "description": "replaced the turret",
               "witness": "guard"}),
    );
    let guard = server.login("guard", "guard-password-1");
    server.ask(
        &guard,
        json!({"op": "witness_adjustment", "table": "t2", "adjustment": 1}),
    );
    let (status, code, message) = refused(&server, &pit, inspection("t2"));
    assert_eq!(
        (status, code.as_str()),
        (422, "regulator_inspection_required"),
        "{message}"
    );
    assert!(message.contains("2212(4)"), "{message}");
    let (status, code, _) = refused(&server, &dealer, json!({"op": "open_table", "table": "t2"}));
    assert_eq!((status, code.as_str()), (422, "not_inspected"));
    server.ask(&regulator, inspection("t2"));
    server.ask(&dealer, json!({"op": "open_table", "table": "t2"}));
    let (_, log) = server.http("GET", "/api/tables/t2/log", Some(&pit), None);
    let regulator_row = log["log"]
        .as_array()
        .expect("log")
        .iter()
        .find(|e| e["type"] == "inspection_recorded" && e["regulator"] == true)
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(
        (regulator_row["by"].as_str(), regulator_row["licence"].as_str()),
        (Some("reg"), Some("DIR-7")),
        "{log}"
    );
    let (ok, report) = verify(data.path());
    assert!(ok, "{report}");
}

// european-casino 3.5-3.6: the croupier enters a player's announced series of
// verbal bets, all of it or none. A player cannot enter a series in another's
// name, a series with one bad bet moves nothing, and a table whose rules take
// no verbal wagers (Colorado 2203(1)) refuses it.
#[test]
fn a_verbal_series_is_the_croupiers_and_is_taken_whole_or_not_at_all() {
    let data = data_dir();
    let (server, [admin, cashier, dealer, pit, p1, p2]) = casino(data.path());
    // A house in dollars plays the European rules in its own currency.
    server.create_european_table(&admin, "e1");
    server.inspect_and_open(&pit, &dealer, "e1");
    server.ask(
        &cashier,
        json!({"op": "cash_in", "id": "vb-cash", "player": "p1", "amount": 10000}),
    );
    server.ask(
        &p1,
        json!({"op": "buy_in", "id": "vb-buy", "table": "e1", "amount": 5000, "chip_value": 100}),
    );
    server.ask(&dealer, json!({"op": "open_betting", "table": "e1"}));
    let series = |bets: Value| json!({"op": "verbal_bets", "table": "e1", "player": "p1", "bets": bets});
    let before = journal_rows(data.path()).len();
    let (status, code, message) = refused(
        &server,
        &dealer,
        series(json!([{"bet_id": "v1", "spot": "17", "stake": 500}, {"bet_id": "v2", "spot": "17-35", "stake": 500}])),
    );
    assert_eq!((status, code.as_str()), (422, "not_on_layout"), "{message}");
    let (status, code, _) = refused(
        &server,
        &p2,
        series(json!([{"bet_id": "v1", "spot": "17", "stake": 500}])),
    );
    assert_eq!(
        (status, code.as_str()),
        (403, "forbidden"),
        "a player enters no series in another's name"
    );
    let (status, _) = server.http(
        "POST",
        "/api/requests",
        None,
        Some(&series(json!([{"bet_id": "v1", "spot": "17", "stake": 500}]))),
    );
    assert_eq!(status, 401);
    assert_eq!(journal_rows(data.path()).len(), before, "no refusal wrote anything");
    server.ask(
        &dealer,
        series(json!([{"bet_id": "v1", "spot": "17", "stake": 500}, {"bet_id": "v2", "spot": "red", "stake": 1000}])),
    );
    // The answer to staff leaves out a player's own events: the table's bets show the series.
    let (_, bets) = server.http("GET", "/api/tables/e1/bets", Some(&dealer), None);
    let spots: Vec<&str> = bets["bets"]
        .as_array()
        .expect("bets")
        .iter()
        .filter(|b| b["player"] == "p1")
        .filter_map(|b| b["spot"].as_str())
        .collect();
    assert_eq!(spots, ["17", "red"], "{bets}");
    let (_, me) = server.http("GET", "/api/me", Some(&p1), None);
    assert_eq!(me["accounts"]["chips:e1:p1"], 3500, "{me}");
    // The pit's log says who entered a series for whom, with their licence.
    let (_, log) = server.http("GET", "/api/tables/e1/log", Some(&pit), None);
    let entered = log["log"]
        .as_array()
        .expect("log")
        .iter()
        .find(|e| e["type"] == "verbal_series")
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(
        (
            entered["by"].as_str(),
            entered["player"].as_str(),
            entered["bet_ids"].as_array().map(Vec::len)
        ),
        (Some("dealer"), Some("p1"), Some(2)),
        "{log}"
    );
    // Over the table's maximum on one spot, counted across the series (Colorado 2207).
    server.ask(&dealer, json!({"op": "no_more_bets", "table": "e1"}));
    server.ask(
        &dealer,
        json!({"op": "spin", "table": "e1", "spin": {"pocket": "5", "direction": "opposite", "revolutions": 6}}),
    );
    server.ask(
        &pit,
        json!({"op": "set_limits", "table": "e1", "limits": [{"kind": "straight", "min": 100, "max": 500}]}),
    );
    server.ask(&dealer, json!({"op": "open_betting", "table": "e1"}));
    let (status, code, message) = refused(
        &server,
        &dealer,
        series(json!([{"bet_id": "m1", "spot": "17", "stake": 500}, {"bet_id": "m2", "spot": "17", "stake": 500}])),
    );
    assert_eq!((status, code.as_str()), (422, "over_maximum"), "{message}");
    server.inspect_and_open(&pit, &dealer, "t2");
    server.ask(&dealer, json!({"op": "open_betting", "table": "t2"}));
    let (status, code, message) = refused(
        &server,
        &dealer,
        json!({"op": "verbal_bets", "table": "t2", "player": "p1", "bets": [{"bet_id": "v9", "spot": "17", "stake": 500}]}),
    );
    assert_eq!((status, code.as_str()), (422, "not_offered"), "{message}");
    let (ok, report) = verify(data.path());
    assert!(ok, "{report}");
}

// From journal format 9, through the binary: a dealer keys only the no spins
// seen at the wheel (an emergency is declared, a supervisor's command is the
// pit's), and under an emergency the table's floats are closed
// (european-casino 6.1-6.2): nothing is bought, cashed or tipped there.
#[test]
fn a_dealer_keys_no_emergency_and_an_emergency_closes_the_floats() {
    let data = data_dir();
    let (server, [_, cashier, dealer, pit, p1, _]) = casino(data.path());
    server.inspect_and_open(&pit, &dealer, "t2");
    server.ask(
        &cashier,
        json!({"op": "cash_in", "id": "em-cash", "player": "p1", "amount": 10000}),
    );
    server.ask(
        &p1,
        json!({"op": "buy_in", "id": "em-buy", "table": "t2", "amount": 5000, "chip_value": 100}),
    );
    server.ask(&dealer, json!({"op": "open_betting", "table": "t2"}));
    server.ask(&dealer, json!({"op": "no_more_bets", "table": "t2"}));
    let before = journal_rows(data.path()).len();
    for reason in ["emergency", "supervisor_command", "sensor_fault"] {
        let (status, code, message) = refused(
            &server,
            &dealer,
            json!({"op": "spin", "table": "t2", "spin": {"no_spin": reason}}),
        );
        assert_eq!((status, code.as_str()), (403, "forbidden"), "{reason}: {message}");
    }
    assert_eq!(journal_rows(data.path()).len(), before, "no refusal wrote anything");
    server.ask(
        &pit,
        json!({"op": "declare_emergency", "table": "t2", "reason": "security alert"}),
    );
    for (who, request) in [
        (
            &p1,
            json!({"op": "buy_in", "id": "em-buy-2", "table": "t2", "amount": 1000, "chip_value": 100}),
        ),
        (&p1, json!({"op": "leave_table", "id": "em-leave", "table": "t2"})),
        (&p1, json!({"op": "tip", "id": "em-tip", "table": "t2", "amount": 100})),
        (
            &dealer,
            json!({"op": "sell_chips", "id": "em-sell", "table": "t2", "player": "p1", "amount": 1000, "chip_value": 100}),
        ),
    ] {
        let (status, code, message) = refused(&server, who, request.clone());
        assert_eq!((status, code.as_str()), (422, "emergency"), "{request}: {message}");
        assert!(message.contains("6.1-6.2"), "{message}");
    }
    let (_, me) = server.http("GET", "/api/me", Some(&p1), None);
    assert_eq!(me["accounts"]["chips:t2:p1"], 5000, "{me}");
    server.ask(&pit, json!({"op": "lift_emergency", "table": "t2"}));
    server.ask(&p1, json!({"op": "tip", "id": "em-tip", "table": "t2", "amount": 100}));
    let (ok, report) = verify(data.path());
    assert!(ok, "{report}");
}

// Maryland ch.1 G(1): the layout shows "the name or logo of the facility
// operator". A first run's Maryland table does not open until an admin has
// named the operator; no one else may name it, nobody signed in may not,
// and a name that could not be printed is refused. The name reaches the
// layout and the board's table list.
#[test]
fn a_maryland_table_opens_only_once_an_admin_has_named_the_operator() {
    let data = data_dir();
    let server = Server::start(BINARY, data.path(), free_port());
    let admin = server.admin_token_unnamed();
    server.add_staff_and_players(&admin);
    let dealer = server.login("dealer", "dealer-password-1");
    let pit = server.login("pit", "pit-password-1");
    let p1 = server.login("p1", "p1-password-1");
    let inspect = json!({"op": "inspect", "table": "t1", "no_magnet_or_contrivance": true, "wheel_level_and_rotating_freely": true,
                         "parts_secure": true, "ball_non_magnetic": true, "layout_and_signage_comply": true});
    server.ask(&pit, inspect);
    let before = journal_rows(data.path()).len();
    let (status, code, message) = refused(&server, &dealer, json!({"op": "open_table", "table": "t1"}));
    assert_eq!((status, code.as_str()), (409, "operator_not_named"), "{message}");
    assert!(message.contains("ch.1 G(1)"), "{message}");
    // Colorado's table (t2) opens without it: its rules ask for a table number, not a name.
    server.ask(&pit, json!({"op": "inspect", "table": "t2", "no_magnet_or_contrivance": true, "wheel_level_and_rotating_freely": true,
                            "parts_secure": true, "ball_non_magnetic": true, "layout_and_signage_comply": true}));
    server.ask(&dealer, json!({"op": "open_table", "table": "t2"}));
    let before = before + 2;
    for token in [&dealer, &pit, &p1] {
        let (status, code, message) = refused(&server, token, json!({"op": "name_operator", "name": "Mine"}));
        assert_eq!((status, code.as_str()), (403, "forbidden"), "{message}");
    }
    let (status, _) = server.http(
        "POST",
        "/api/requests",
        None,
        Some(&json!({"op": "name_operator", "name": "Anon"})),
    );
    assert_eq!(status, 401);
    // Nothing blank, invisible, reversed or stacked on the felt either.
    let stacked = format!("A{}", "\u{0301}".repeat(59));
    for bad in [
        "",
        " Padded",
        "Line\nbreak",
        &"x".repeat(61),
        "\u{200b}",
        "\u{3164}",
        "\u{2800}",
        "X\u{feff}",
        "\u{202e}onisaC",
        "Harbour\u{2028}Lights",
        "Two  spaces",
        &stacked,
    ] {
        let (status, code, message) = refused(&server, &admin, json!({"op": "name_operator", "name": bad}));
        assert_eq!((status, code.as_str()), (400, "bad_request"), "{bad:?}: {message}");
        assert!(message.contains("operator's name"), "{message}");
    }
    assert_eq!(journal_rows(data.path()).len(), before, "every refusal wrote nothing");
    let (_, tables) = server.http("GET", "/api/public/tables", None, None);
    assert!(tables.get("operator").is_none(), "{tables}");

    server.ask(&admin, json!({"op": "name_operator", "name": "Chesapeake Gaming"}));
    let named = journal_rows(data.path()).len();
    // The same name again writes nothing.
    server.ask(&admin, json!({"op": "name_operator", "name": "Chesapeake Gaming"}));
    assert_eq!(journal_rows(data.path()).len(), named);
    server.ask(&dealer, json!({"op": "open_table", "table": "t1"}));
    let (_, layout) = server.http("GET", "/api/public/tables/t1/layout", None, None);
    assert_eq!(layout["operator"], "Chesapeake Gaming", "{layout}");
    let (_, tables) = server.http("GET", "/api/public/tables", None, None);
    assert_eq!(tables["operator"], "Chesapeake Gaming", "{tables}");
    drop(server);
    // A restart keeps the name.
    let server = Server::start(BINARY, data.path(), free_port());
    let (_, tables) = server.http("GET", "/api/public/tables", None, None);
    assert_eq!(tables["operator"], "Chesapeake Gaming", "{tables}");
    drop(server);
    assert!(verify(data.path()).0);
}

// european-casino 5.5: only the pit boss or the casino manager confirms a
// player's colour chips at face value past the gaming day; a player cannot
// confirm their own, a dealer or a floorperson cannot, nobody signed in
// cannot, and a table whose chips keep their face whatever the day has
// nothing to confirm. The table sign posts the rule.
#[test]
fn only_the_named_supervisor_confirms_chips_at_face_value() {
    let data = data_dir();
    let (server, [admin, cashier, dealer, pit, p1, _]) = casino(data.path());
    server.add_users(&admin, &[("manager", "casino_manager"), ("floor", "floorperson")]);
    let manager = server.login("manager", "manager-password-1");
    let floor = server.login("floor", "floor-password-1");
    server.create_european_table(&admin, "e1");
    server.inspect_and_open(&pit, &dealer, "e1");
    server.ask(
        &cashier,
        json!({"op": "cash_in", "id": "c1", "player": "p1", "amount": 10_000}),
    );
    server.ask(
        &p1,
        json!({"op": "buy_in", "id": "b1", "table": "e1", "amount": 1_000, "chip_value": 100}),
    );
    let (_, layout) = server.http("GET", "/api/public/tables/e1/layout", None, None);
    let notice = layout["chips_notice"].as_str().unwrap_or_default();
    assert!(
        notice.contains("table minimum") && notice.contains("casino manager"),
        "{layout}"
    );
    let before = journal_rows(data.path()).len();
    let confirm = json!({"op": "confirm_chips", "table": "e1", "player": "p1"});
    for (token, who) in [
        (&p1, "player"),
        (&dealer, "dealer"),
        (&floor, "floorperson"),
        (&cashier, "cashier"),
    ] {
        let (status, code, message) = refused(&server, token, confirm.clone());
        assert_eq!((status, code.as_str()), (403, "forbidden"), "{who}: {message}");
    }
    let (status, _) = server.http("POST", "/api/requests", None, Some(&confirm));
    assert_eq!(status, 401);
    let (status, code, message) = refused(
        &server,
        &manager,
        json!({"op": "confirm_chips", "table": "e1", "player": "p2"}),
    );
    assert_eq!((status, code.as_str()), (422, "not_seated"), "{message}");
    // A Maryland table's chips keep their face whatever the day.
    let (status, code, message) = refused(
        &server,
        &pit,
        json!({"op": "confirm_chips", "table": "t1", "player": "p1"}),
    );
    assert_eq!((status, code.as_str()), (400, "bad_request"), "{message}");
    // A seated player's chips keep their face (journal format 14): nothing to confirm
    // until the pit records them taken away from the table (5.2).
    let (status, code, message) = refused(&server, &manager, confirm.clone());
    assert_eq!((status, code.as_str()), (400, "bad_request"), "{message}");
    assert_eq!(journal_rows(data.path()).len(), before, "every refusal wrote nothing");
    server.ask(&pit, json!({"op": "chips_taken_away", "table": "e1", "player": "p1"}));
    server.ask(&manager, confirm.clone());
    let written = journal_rows(data.path()).len();
    server.ask(&pit, confirm);
    assert_eq!(journal_rows(data.path()).len(), written, "confirmed once");
    let (_, log) = server.http("GET", "/api/tables/e1/log", Some(&pit), None);
    assert!(log.to_string().contains("chips_confirmed"), "{log}");
    drop(server);
    assert!(verify(data.path()).0);
}

// Through the binary, from journal format 10: a Maryland table is never set
// on the single-zero felt (ch.1 F(1): the double-zero layout, 00 covered),
// and at the low-limit house the dealer's (or another supervisor's) no spin
// for a hanging ball is refused while the floor manager's is taken
// (Irregularities (5)). Each refusal writes nothing.
#[test]
fn a_maryland_single_zero_felt_and_a_dealers_hanging_ball_are_refused() {
    let data = data_dir();
    let (server, [admin, _, dealer, pit, _, _]) = casino(data.path());
    server.add_users(&admin, &[("floorman", "floor_manager"), ("floor", "floorperson")]);
    let floorman = server.login("floorman", "floorman-password-1");
    let floor = server.login("floor", "floor-password-1");
    let before = journal_rows(data.path()).len();
    let maryland = include_str!("../../../profiles/maryland.toml")
        .replace("\"double-zero-covered\"]", "\"double-zero-as-single-zero\"]");
    let (status, code, message) = refused(
        &server,
        &admin,
        json!({"op": "create_table", "table": "sz", "profile_text": maryland, "wheel": "double-zero-as-single-zero",
               "in_prison": false, "betting_window_ms": 60000, "outcome": "dealer"}),
    );
    assert_eq!((status, code.as_str()), (422, "bad_wheel"), "{message}");
    assert!(
        message.contains("ch.1 F") && message.contains("double-zero-covered"),
        "{message}"
    );
    assert_eq!(journal_rows(data.path()).len(), before, "the refusal wrote nothing");

    server.ask(&admin, json!({"op": "create_table", "table": "l1", "profile_text": include_str!("../../../profiles/low-limit-house.toml"),
                              "wheel": "double-zero", "in_prison": false, "betting_window_ms": 60000, "outcome": "dealer"}));
    server.inspect_and_open(&pit, &dealer, "l1");
    server.ask(&dealer, json!({"op": "open_betting", "table": "l1"}));
    server.ask(&dealer, json!({"op": "no_more_bets", "table": "l1"}));
    let hanging = json!({"op": "spin", "table": "l1", "spin": {"no_spin": "ball_hangs"}});
    let before = journal_rows(data.path()).len();
    for (token, who) in [(&dealer, "dealer"), (&pit, "pit_supervisor"), (&floor, "floorperson")] {
        let (status, code, message) = refused(&server, token, hanging.clone());
        assert_eq!((status, code.as_str()), (403, "forbidden"), "{who}: {message}");
        assert!(message.contains("Irregularities (5)"), "{who}: {message}");
    }
    assert_eq!(journal_rows(data.path()).len(), before, "every refusal wrote nothing");
    server.ask(&floorman, hanging);
    // The layout lists it among the floor's no spins, which the dealer's console leaves out.
    let (_, layout) = server.http("GET", "/api/public/tables/l1/layout", None, None);
    assert!(
        layout["pit_no_spin_reasons"]
            .as_array()
            .expect("list")
            .iter()
            .any(|r| r == "ball_hangs"),
        "{layout}"
    );
    drop(server);
    assert!(verify(data.path()).0);
}

fn bsx_table(table: &str) -> Value {
    Server::bsx_table(table)
}

// Maryland ch.3 F(16)-(17), ch.4 D: a Bonus Spin Xtreme wager is a player's
// own, one a position a round, never after no more bets; the targets come
// from the server's RNG after no more bets, and no one can send them or the
// bonus wheel's symbols; a document that permits no bonus refuses the table.
// The round settles through the binary with the meters fed, and a restart
// keeps them.
#[test]
fn a_bonus_spin_xtreme_wager_is_the_players_own_and_locked_out_once_the_round_starts() {
    let data = data_dir();
    let (server, [admin, cashier, dealer, pit, p1, p2]) = casino(data.path());
    server.ask(&admin, bsx_table("bsx"));
    // Colorado permits no bonus wager.
    let mut colorado = bsx_table("co");
    colorado["profile_text"] = json!(include_str!("../../../profiles/colorado-2014.toml"));
    let (status, code, message) = refused(&server, &admin, colorado);
    assert_eq!((status, code.as_str()), (422, "not_offered"), "{message}");
    // The dealer sees the targets before the spin: never the one to key its pocket.
    let mut keyed = bsx_table("keyed");
    keyed["outcome"] = json!("dealer");
    let (status, code, message) = refused(&server, &admin, keyed);
    assert_eq!((status, code.as_str()), (422, "bad_table"), "{message}");
    // Maryland ch.4 F(3)(d): paytable C on a double-zero wheel only.
    let mut c_on_single = bsx_table("c1");
    c_on_single["wheel"] = json!("single-zero");
    c_on_single["bonus_text"] = json!(include_str!("../../../profiles/bonus/roulette-x-c.toml"));
    let (status, code, message) = refused(&server, &admin, c_on_single);
    assert_eq!((status, code.as_str()), (422, "bad_wheel"), "{message}");
    server.inspect_and_open(&pit, &dealer, "bsx");
    server.seat(&cashier, ("p1", &p1), "bsx", 10_000, 5_000);
    server.seat(&cashier, ("p2", &p2), "bsx", 10_000, 5_000);
    let wager = |id: &str| json!({"op": "bonus_wager", "table": "bsx", "wager_id": id});
    let (status, code, _) = refused(&server, &p1, wager("early"));
    assert_eq!((status, code.as_str()), (422, "betting_not_open"));
    server.ask(&dealer, json!({"op": "open_betting", "table": "bsx"}));
    let before = journal_rows(data.path()).len();
    let (status, _) = server.http("POST", "/api/requests", None, Some(&wager("anon")));
    assert_eq!(status, 401);
    for token in [&dealer, &pit, &cashier] {
        let (status, code, message) = refused(&server, token, wager("staff"));
        assert_eq!((status, code.as_str()), (403, "forbidden"), "{message}");
    }
    // The server's own requests are not a client's to send.
    for forged in [
        json!({"op": "draw_bonus", "table": "bsx", "words": [0, 1]}),
        json!({"op": "spin", "table": "bsx", "spin": {"pocket": "17", "direction": "opposite", "revolutions": 6}, "bonus_words": [0]}),
    ] {
        let (status, _, _) = refused(&server, &dealer, forged.clone());
        assert!(status == 400 || status == 422 || status == 409, "{forged}: {status}");
    }
    assert_eq!(journal_rows(data.path()).len(), before, "every refusal wrote nothing");
    // A player not seated, and one whose chips do not cover the wager.
    server.add_users(&admin, &[("p3", "player")]);
    let p3 = server.login("p3", "p3-password-1");
    let (status, code, message) = refused(&server, &p3, wager("p3w"));
    assert_eq!((status, code.as_str()), (422, "not_seated"), "{message}");
    server.seat(&cashier, ("p3", &p3), "bsx", 10_000, 300);
    let seated = journal_rows(data.path()).len();
    let (status, code, message) = refused(&server, &p3, wager("p3w"));
    assert_eq!((status, code.as_str()), (422, "insufficient_chips"), "{message}");
    assert_eq!(journal_rows(data.path()).len(), seated, "the refusal wrote nothing");
    // Under an emergency nothing is taken (european-casino 6.1 as the table applies it).
    server.ask(
        &pit,
        json!({"op": "declare_emergency", "table": "bsx", "reason": "smoke"}),
    );
    let declared = journal_rows(data.path()).len();
    let (status, code, message) = refused(&server, &p1, wager("w1"));
    assert_eq!((status, code.as_str()), (422, "emergency"), "{message}");
    assert_eq!(journal_rows(data.path()).len(), declared, "the refusal wrote nothing");
    server.ask(&pit, json!({"op": "lift_emergency", "table": "bsx"}));
    server.ask(&p1, wager("w1"));
    let placed = journal_rows(data.path()).len();
    for _ in 0..20 {
        server.ask(&p1, wager("w1"));
    }
    assert_eq!(journal_rows(data.path()).len(), placed, "a resent wager writes nothing");
    let (status, code, message) = refused(&server, &p1, wager("w2"));
    assert_eq!((status, code.as_str()), (409, "bonus_wager_placed"), "{message}");
    // A wager holds its position until the round settles.
    let (status, code, message) = refused(
        &server,
        &p1,
        json!({"op": "leave_table", "id": "p1-leaves", "table": "bsx"}),
    );
    assert_eq!((status, code.as_str()), (422, "bets_on_layout"), "{message}");
    server.ask(&dealer, json!({"op": "no_more_bets", "table": "bsx"}));
    // ch.3 F(17)(b): locked out once the round is started.
    let (status, code, message) = refused(&server, &p2, wager("late"));
    assert_eq!((status, code.as_str()), (422, "past_posting"), "{message}");
    // ch.3 F(16): the targets were drawn as betting closed, before the spin.
    let (_, public) = server.http("GET", "/api/public/tables/bsx", None, None);
    let targets = public["bonus"]["targets"].as_array().expect("targets").len();
    assert!((1..=3).contains(&targets), "{public}");
    assert_eq!(public["bonus"]["meters"]["primary"], 1_000_000, "{public}");
    let (status, body) = server.http("POST", "/api/tables/bsx/draw", Some(&dealer), Some(&json!({})));
    assert_eq!(status, 200, "{body}");
    // The wager was collected, 1% and 0.4% of it fed to the meters (ch.4 D(3)(a)).
    let (_, public) = server.http("GET", "/api/public/tables/bsx", None, None);
    assert_eq!(public["bonus"]["meters"]["primary"], 1_000_005, "{public}");
    assert_eq!(public["bonus"]["meters"]["secondary"], 500_002, "{public}");
    drop(server);
    let server = Server::start(BINARY, data.path(), free_port());
    let (_, public) = server.http("GET", "/api/public/tables/bsx", None, None);
    assert_eq!(
        public["bonus"]["meters"]["primary"], 1_000_005,
        "a restart keeps the meters: {public}"
    );
    drop(server);
    assert!(verify(data.path()).0);
}

/// low-limit-house Irregularities (4): a bet after no more bets "will not be
/// honored" and "will be addressed accordingly by casino management". Sent
/// again and again by a player through the binary: refused each time, the
/// first logged for the pit with its player, spot and stake, the rest
/// writing nothing; no one may send the server's record of it.
#[test]
fn a_late_bet_is_refused_every_time_and_logged_once_for_the_pit() {
    let data = data_dir();
    let (mut server, [admin, cashier, dealer, pit, p1, _]) = casino(data.path());
    server.ask(&admin, table("m1", "dealer"));
    server.inspect_and_open(&pit, &dealer, "m1");
    server.seat(&cashier, ("p1", &p1), "m1", 10_000, 5_000);
    server.ask(&dealer, json!({"op": "open_betting", "table": "m1"}));
    server.ask(&dealer, json!({"op": "no_more_bets", "table": "m1"}));
    let before = journal_rows(data.path()).len();
    for n in 0..50 {
        let late = json!({"op": "place_bet", "table": "m1", "bet_id": format!("late{n}"), "spot": "17", "stake": 500});
        let (status, code, message) = refused(&server, &p1, late);
        assert_eq!((status, code.as_str()), (422, "past_posting"), "{message}");
    }
    assert_eq!(
        journal_rows(data.path()).len(),
        before + 1,
        "fifty late bets, one entry"
    );
    let (status, log) = server.http("GET", "/api/tables/m1/log", Some(&pit), None);
    assert_eq!(status, 200, "{log}");
    let logged: Vec<&Value> = log["log"]
        .as_array()
        .expect("the log's entries")
        .iter()
        .filter(|e| e.to_string().contains("past_posting"))
        .collect();
    assert_eq!(logged.len(), 1, "{log}");
    let entry = logged[0].to_string();
    assert!(
        entry.contains(r#""player":"p1""#) && entry.contains(r#""spot":"17""#) && entry.contains(r#""stake":500"#),
        "{entry}"
    );
    // The server's own record is no client's request.
    for token in [&p1, &dealer, &admin] {
        let forged = json!({"op": "record_past_posting", "table": "m1", "player": "p1", "spot": "17", "stake": 100});
        let (status, code, _) = refused(&server, token, forged);
        assert_eq!((status, code.as_str()), (400, "bad_request"));
    }
    server.kill();
    let (passed, report) = verify(data.path());
    assert!(passed, "{report}");
}
