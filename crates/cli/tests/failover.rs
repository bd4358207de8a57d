//! Two nodes on one journal in PostgreSQL (`serve --database`): one holds
//! the casino through the lease, the other waits. The one holding it is
//! killed mid-round; the other takes the casino over, voids the round cut
//! off as a restart does, and every balance is exact.

use std::io::{Read, Write};
use std::time::Duration;

use croupier_testkit::{data_dir, free_port, Server};
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_croupier");

/// A node on the journal at `url`, writing a checkpoint every few entries.
fn node(data: &std::path::Path, url: &str) -> Server {
    Server::start_with(BIN, data, free_port(), &["--database", url, "--checkpoint-every", "5"])
}

/// A node waiting for the lease answers at once that it stands by.
fn stands_by(server: &Server) {
    let answer = server.health().expect("a node standing by answers");
    assert!(answer.0 == 503 && answer.1.contains("\"standby\""), "{answer:?}");
}

/// Gives node `to` the secret of node `from`, as an operator copies the keys folder.
fn copy_keys(from: &croupier_testkit::DataDir, to: &croupier_testkit::DataDir) {
    from.copy_keys_to(to);
}

/// `NAME` signs in with the password the test casinos give it.
fn login(server: &Server, name: &str) -> String {
    server.login(name, &format!("{name}-password-1"))
}

/// A first node on the journal at `url`: staff and players made, t1 inspected
/// and open, and [cashier, dealer, pit, p1, p2] signed in.
fn casino(data: &std::path::Path, url: &str) -> (Server, [String; 5]) {
    let server = node(data, url);
    let admin = server.admin_token();
    server.add_staff_and_players(&admin);
    let signed_in = ["cashier", "dealer", "pit", "p1", "p2"].map(|u| login(&server, u));
    server.inspect_and_open(&signed_in[2], &signed_in[1], "t1");
    (server, signed_in)
}

fn bet(server: &Server, token: &str, id: &str, spot: &str, stake: u64) {
    server.ask(
        token,
        json!({"op": "place_bet", "table": "t1", "bet_id": id, "spot": spot, "stake": stake}),
    );
}

fn accounts(server: &Server, token: &str) -> Value {
    let (status, me) = server.http("GET", "/api/me", Some(token), None);
    assert_eq!(status, 200, "{me}");
    me["accounts"].clone()
}

#[test]
fn a_waiting_node_takes_the_casino_over_when_the_one_holding_it_dies_mid_round() {
    let Some(pg) = croupier_testkit::postgres::database("failover") else {
        return;
    };
    let (a_data, b_data) = (data_dir(), data_dir());
    let (mut a, [cashier, dealer, _, p1, p2]) = casino(a_data.path(), pg.url());
    a.seat(&cashier, ("p1", &p1), "t1", 100_000, 100_000);
    a.seat(&cashier, ("p2", &p2), "t1", 100_000, 50_000);

    // A round played through on node A.
    a.ask(&dealer, json!({"op": "open_betting", "table": "t1"}));
    bet(&a, &p1, "r1-p1", "red", 1_000);
    bet(&a, &p2, "r1-p2", "17", 500);
    a.ask(&dealer, json!({"op": "no_more_bets", "table": "t1"}));
    let (status, drawn) = a.http("POST", "/api/tables/t1/draw", Some(&dealer), None);
    assert_eq!(status, 200, "{drawn}");
    // A's checkpoints are kept in the database, beside the journal, for whichever node opens next.
    let mut db = postgres::Client::connect(pg.url(), postgres::NoTls).expect("the database");
    let kept = (0..100).find_map(|_| {
        let n: i64 = db
            .query_one("SELECT count(*) FROM checkpoint", &[])
            .expect("counted")
            .get(0);
        if n == 0 {
            std::thread::sleep(Duration::from_millis(100));
        }
        (n > 0).then_some(n)
    });
    assert!(kept.is_some(), "node A wrote no checkpoint to the database");
    // Bound by an entry after it: a start may use it only then.
    std::thread::sleep(Duration::from_millis(1_500));

    // Node B: a data directory of its own, the same secret. It waits, and answers nothing.
    copy_keys(&a_data, &b_data);
    let mut b = node(b_data.path(), pg.url());
    stands_by(&b);

    // The second round: bets acknowledged on A, then A dies before the result.
    let before: Vec<Value> = [&p1, &p2].iter().map(|t| accounts(&a, t)).collect();
    a.ask(&dealer, json!({"op": "open_betting", "table": "t1"}));
    bet(&a, &p1, "r2-p1", "black", 2_000);
    bet(&a, &p2, "r2-p2", "0-00", 700);
    let staked = accounts(&a, &p1);
    assert_ne!(staked, before[0], "p1's stake left p1's chips");
    a.kill();
    let killed = std::time::Instant::now();

    // B takes the casino over, and voids the round A was cut off in (a no spin, void game).
    b.wait_line("croupier: serving on");
    let opened = b.wait_line("croupier: opened");
    assert!(
        opened.contains("from the checkpoint after journal entry"),
        "node B, which never held the casino, starts from A's checkpoint: {opened}"
    );
    eprintln!(
        "node B took the casino over {} ms after node A died",
        killed.elapsed().as_millis()
    );
    let recovered: Value = serde_json::from_str(
        b.wait_line("croupier: recovered: ")
            .trim_start_matches("croupier: recovered: "),
    )
    .expect("a recovered event");
    assert_eq!(
        (&recovered["type"], &recovered["round"], &recovered["reason"]),
        (&json!("no_spin"), &json!(2), &json!("void_game")),
        "{recovered}"
    );
    assert_eq!(b.health().map(|(status, _)| status), Some(200));
    let p1_b = login(&b, "p1");
    let p2_b = login(&b, "p2");
    assert_eq!(
        accounts(&b, &p1_b),
        before[0],
        "p1's stake came back whole, and nothing else moved"
    );
    assert_eq!(
        accounts(&b, &p2_b),
        before[1],
        "p2's stake came back whole, and nothing else moved"
    );
    let (status, round) = b.http("GET", "/api/players/p1/rounds?last=2", Some(&p1_b), None);
    assert_eq!(status, 200, "{round}");

    // B plays on.
    let dealer_b = login(&b, "dealer");
    b.ask(&dealer_b, json!({"op": "open_betting", "table": "t1"}));
    bet(&b, &p1_b, "r3-p1", "odd", 1_000);
    b.ask(&dealer_b, json!({"op": "no_more_bets", "table": "t1"}));
    let (status, drawn) = b.http("POST", "/api/tables/t1/draw", Some(&dealer_b), None);
    assert_eq!(status, 200, "{drawn}");

    // A started again waits in its turn: one node writes at a time.
    let a_again = node(a_data.path(), pg.url());
    stands_by(&a_again);
    std::thread::sleep(Duration::from_secs(2));
    stands_by(&a_again);
    let (status, refused) = a_again.http(
        "POST",
        "/api/login",
        None,
        Some(&json!({"username": "p1", "password": "p1-password-1"})),
    );
    assert_eq!(status, 503, "{refused}");
    drop(a_again);

    b.kill();
    let (passed, report) = croupier_testkit::verify(BIN, b_data.path(), &["--database", pg.url()]);
    assert!(passed && report["ok"] == true, "{report}");
}

/// A node whose connection to the database is cut loses the lease with
/// it: the other node takes the casino over, and the first writes nothing
/// more. It stops within seconds (a supervisor starts it again, and it
/// waits its turn), and does not take the lease back behind the new
/// holder's back. A waiting node whose own connection is cut connects again
/// and goes on waiting.
#[test]
fn a_node_cut_off_from_the_database_stops_and_writes_nothing_once_another_holds_the_casino() {
    let Some(pg) = croupier_testkit::postgres::database("cut_off") else {
        return;
    };
    let (a_data, b_data) = (data_dir(), data_dir());
    let (mut a, [cashier, _, _, p1, _]) = casino(a_data.path(), pg.url());
    a.seat(&cashier, ("p1", &p1), "t1", 100_000, 100_000);
    copy_keys(&a_data, &b_data);
    let b = node(b_data.path(), pg.url());
    stands_by(&b);
    let mut db = postgres::Client::connect(pg.url(), postgres::NoTls).expect("the database");
    // The waiting node's connection is ended: it connects again, and waits on.
    let waiting = |db: &mut postgres::Client| -> usize {
        db.query(
            "SELECT pid FROM pg_stat_activity WHERE application_name = 'croupier writer' AND datname = current_database()
               AND pid NOT IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted)",
            &[],
        )
        .expect("asked")
        .len()
    };
    assert!((0..50).any(|_| {
        std::thread::sleep(Duration::from_millis(100));
        waiting(&mut db) == 1
    }));
    db.batch_execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'croupier writer'
           AND datname = current_database() AND pid NOT IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted)",
    )
    .expect("ended");
    std::thread::sleep(Duration::from_secs(2));
    stands_by(&b);
    assert_eq!(waiting(&mut db), 1, "the waiting node connected again");

    // The database ends the connection that holds the lease (as a network cut would).
    let ended = db
        .query(
            "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted
               AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            &[],
        )
        .expect("ended");
    assert_eq!(ended.len(), 1, "one connection held the lease");
    b.wait_line("croupier: serving on");
    // A finds it lost the lease, and stops, in error.
    let stopped = a
        .exited_within(Duration::from_secs(10))
        .expect("node A stopped by itself");
    assert!(!stopped.success(), "{stopped}");
    let written: i64 = db
        .query_one(
            "SELECT count(*) FROM journal WHERE at_ms > (SELECT max(at_ms) FROM journal) + 1",
            &[],
        )
        .expect("counted")
        .get(0);
    assert_eq!(written, 0);
    // B holds the casino, with p1's money as it was.
    let p1_b = login(&b, "p1");
    let (_, me) = b.http("GET", "/api/me", Some(&p1_b), None);
    assert_eq!(me["accounts"]["chips:t1:p1"], json!(100_000), "{me}");
    // A started again waits its turn.
    let a_again = node(a_data.path(), pg.url());
    stands_by(&a_again);
    drop(a_again);
    // A user is added on the journal itself only while no node holds the casino.
    let user_add = |data: &croupier_testkit::DataDir, name: &str| {
        let mut child = std::process::Command::new(BIN)
            .args([
                "user",
                "add",
                "--data",
                data.path().to_str().expect("path"),
                "--database",
                pg.url(),
            ])
            .args(["--username", name, "--role", "admin"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("runs");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(b"second-admin-password\n")
            .expect("the password");
        child.wait_with_output().expect("ends")
    };
    let refused = user_add(&a_data, "admin2");
    assert!(
        !refused.status.success() && String::from_utf8_lossy(&refused.stderr).contains("a node holds the casino"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    drop(b);
    let added = user_add(&a_data, "admin2");
    assert!(added.status.success(), "{}", String::from_utf8_lossy(&added.stderr));
    let a_back = node(a_data.path(), pg.url());
    a_back.wait_line("croupier: serving on");
    let _ = a_back.login("admin2", "second-admin-password");
    drop(a_back);
    let (passed, report) = croupier_testkit::verify(BIN, b_data.path(), &["--database", pg.url()]);
    assert!(passed && report["ok"] == true, "{report}");
    // What works on a journal in SQLite refuses a node's data directory, and makes none there.
    for args in [
        vec!["verify", "--data", b_data.path().to_str().expect("path")],
        vec![
            "user",
            "add",
            "--data",
            b_data.path().to_str().expect("path"),
            "--username",
            "evil",
            "--role",
            "admin",
        ],
    ] {
        let out = std::process::Command::new(BIN).args(&args).output().expect("runs");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && said.contains("journal is on PostgreSQL"),
            "{args:?}: {said}"
        );
    }
    assert!(!b_data.path().join("croupier.db").exists());
    let refused = std::process::Command::new(BIN)
        .args([
            "serve",
            "--data",
            b_data.path().to_str().expect("path"),
            "--listen",
            "127.0.0.1:0",
        ])
        .output()
        .expect("runs");
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("give --database"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
}

/// The standby is served within the casino's caps: a client's connections
/// past its share are closed, and headers not sent in time are cut off, so
/// a stranger cannot hold a waiting node's descriptors until the takeover.
#[test]
fn a_standby_holds_a_stranger_to_the_casinos_caps() {
    let Some(pg) = croupier_testkit::postgres::database("standby_caps") else {
        return;
    };
    let (a_data, b_data) = (data_dir(), data_dir());
    let a = node(a_data.path(), pg.url());
    let _ = a.admin_password();
    copy_keys(&a_data, &b_data);
    let b = Server::start_with(
        BIN,
        b_data.path(),
        free_port(),
        &[
            "--database",
            pg.url(),
            "--connections-per-client",
            "4",
            "--header-read-timeout-ms",
            "500",
        ],
    );
    stands_by(&b);
    // Headers begun and never finished: cut off.
    let mut slow = std::net::TcpStream::connect(b.address()).expect("connects");
    slow.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n").expect("sent");
    slow.set_read_timeout(Some(Duration::from_secs(5))).expect("timeout");
    let began = std::time::Instant::now();
    let mut rest = Vec::new();
    let _ = slow.read_to_end(&mut rest);
    assert!(
        began.elapsed() < Duration::from_secs(4),
        "the standby held a connection with no headers"
    );
    // Past the client's share: closed at once.
    let held: Vec<std::net::TcpStream> = (0..8)
        .filter_map(|_| std::net::TcpStream::connect(b.address()).ok())
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    let closed = held
        .into_iter()
        .filter(|s| {
            let _ = s.set_read_timeout(Some(Duration::from_millis(200)));
            matches!((&*s).read(&mut [0u8; 1]), Ok(0))
        })
        .count();
    assert!(
        closed >= 4,
        "only {closed} of 8 connections past a share of 4 were closed"
    );
}

/// The checkpoints in the database are trusted as those in a folder: only
/// as the journal binds them. One changed by a bit, and one planted, are
/// passed over; the node opens by replaying the journal, every balance as it was.
#[test]
fn a_checkpoint_changed_or_planted_in_the_database_is_passed_over() {
    let Some(pg) = croupier_testkit::postgres::database("planted") else {
        return;
    };
    let data = data_dir();
    let mut a = node(data.path(), pg.url());
    let admin = a.admin_token();
    a.add_staff_and_players(&admin);
    let [cashier, p1] = ["cashier", "p1"].map(|u| login(&a, u));
    a.seat(&cashier, ("p1", &p1), "t1", 100_000, 60_000);
    let mut db = postgres::Client::connect(pg.url(), postgres::NoTls).expect("the database");
    let count = |db: &mut postgres::Client| -> i64 {
        db.query_one("SELECT count(*) FROM checkpoint", &[])
            .expect("counted")
            .get(0)
    };
    assert!(
        (0..100).any(|_| {
            std::thread::sleep(Duration::from_millis(100));
            count(&mut db) > 0
        }),
        "no checkpoint was written"
    );
    std::thread::sleep(Duration::from_millis(1_500));
    a.kill();

    // The insider flips a bit of every checkpoint, keeping its length, and plants one past the journal.
    db.batch_execute(
        "UPDATE checkpoint SET bytes = set_byte(bytes, 40, get_byte(bytes, 40) # 1);
         INSERT INTO checkpoint (through, bytes) SELECT 999999, bytes FROM checkpoint LIMIT 1;",
    )
    .expect("changed");
    let b = node(data.path(), pg.url());
    let opened = b.wait_line("croupier: opened");
    assert!(
        opened.contains("replaying the journal from its first entry"),
        "{opened}"
    );
    let p1 = login(&b, "p1");
    let (_, me) = b.http("GET", "/api/me", Some(&p1), None);
    assert_eq!(me["accounts"]["chips:t1:p1"], json!(60_000), "{me}");
    assert_eq!(me["accounts"]["wallet:p1"], json!(40_000), "{me}");
}

/// Whoever administers the database cuts the journal back under the
/// running holder (a backup put back, or by hand, its seal with it): the
/// holder notices within seconds, writes nothing more on it, keeps its head
/// where it was, and stops; started again, it refuses the journal.
#[test]
fn a_journal_cut_back_under_the_holder_stops_it_and_is_refused() {
    let Some(pg) = croupier_testkit::postgres::database("cut_back") else {
        return;
    };
    let data = data_dir();
    let mut a = node(data.path(), pg.url());
    let admin = a.admin_token();
    a.add_staff_and_players(&admin);
    let cashier = a.login("cashier", "cashier-password-1");
    let mut db = postgres::Client::connect(pg.url(), postgres::NoTls).expect("the database");
    db.batch_execute("CREATE TABLE kept_seal AS SELECT * FROM seal")
        .expect("the seal kept");
    // The seal as kept: read from the copy, not again from the live seal,
    // which may have moved on in between (a checkpoint's binding).
    let cut_at: i64 = db.query_one("SELECT seq FROM kept_seal", &[]).expect("the seal").get(0);
    a.ask(
        &cashier,
        json!({"op": "cash_in", "id": "after-the-copy", "player": "p1", "amount": 50_000}),
    );
    std::thread::sleep(Duration::from_millis(1_500));
    let head = std::fs::read_to_string(data.parent().join("data-keys/journal-head.json")).expect("the head");
    db.batch_execute(&format!(
        "BEGIN; DELETE FROM journal WHERE seq > {cut_at}; DELETE FROM seal;
         INSERT INTO seal SELECT * FROM kept_seal; DELETE FROM checkpoint; COMMIT;"
    ))
    .expect("cut back");
    let stopped = a
        .exited_within(Duration::from_secs(10))
        .expect("the holder stopped by itself");
    assert!(!stopped.success());
    let last: i64 = db
        .query_one("SELECT max(seq) FROM journal", &[])
        .expect("the end")
        .get(0);
    assert_eq!(last, cut_at, "nothing was written on the journal cut back");
    assert_eq!(
        std::fs::read_to_string(data.parent().join("data-keys/journal-head.json")).expect("the head"),
        head,
        "the head was not moved back"
    );
    let refused = std::process::Command::new(BIN)
        .args([
            "serve",
            "--data",
            data.path().to_str().expect("path"),
            "--listen",
            "127.0.0.1:0",
        ])
        .args(["--database", pg.url()])
        .output()
        .expect("runs");
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success() && said.contains("past the journal's end"),
        "{said}"
    );
}

/// The head beside the secret, as a node leaves it.
fn head_of(data: &croupier_testkit::DataDir) -> String {
    std::fs::read_to_string(data.parent().join("data-keys/journal-head.json")).expect("the head")
}

/// Entries cut off the journal's end with its seal left as it was, and an
/// entry's text changed with its hash left alone, each stop the holder: the
/// first within seconds, the second at its next write, which is refused.
#[test]
fn entries_cut_or_changed_under_the_holder_stop_it() {
    let Some(pg) = croupier_testkit::postgres::database("cut_or_changed") else {
        return;
    };
    let mut db = postgres::Client::connect(pg.url(), postgres::NoTls).expect("the database");
    // Cut off the end, the seal as it was.
    let data = data_dir();
    let mut a = node(data.path(), pg.url());
    let admin = a.admin_token();
    a.add_staff_and_players(&admin);
    std::thread::sleep(Duration::from_millis(1_500));
    let head = head_of(&data);
    db.batch_execute("DELETE FROM journal WHERE seq > (SELECT max(seq) - 2 FROM journal)")
        .expect("cut");
    let stopped = a
        .exited_within(Duration::from_secs(10))
        .expect("the holder stopped by itself");
    assert!(!stopped.success());
    // The holder may write an entry of its own (a checkpoint's binding) after
    // the head was read: the head never goes back below it, to the cut end.
    let seq = |head: &str| {
        serde_json::from_str::<Value>(head).expect("a head")["seq"]
            .as_u64()
            .expect("seq")
    };
    let after = head_of(&data);
    assert!(
        seq(&after) >= seq(&head),
        "the head was not moved back: {after}, before the cut {head}"
    );

    // A text changed, its hash as it was: the next write is refused, and the holder stops.
    let pg2 = croupier_testkit::postgres::database("changed_text").expect("a second database");
    let data = data_dir();
    let mut a = node(data.path(), pg2.url());
    let admin = a.admin_token();
    let mut db = postgres::Client::connect(pg2.url(), postgres::NoTls).expect("the database");
    db.batch_execute("UPDATE journal SET record = record || ' ' WHERE seq = (SELECT max(seq) FROM journal)")
        .expect("changed");
    // The holder may find the changed entry by itself first (its checkpoints
    // read the journal) and be gone before the request: either way it stops.
    if let Ok((status, refused)) = a.try_http(
        "POST",
        "/api/requests",
        Some(&admin),
        Some(&json!({"op": "create_user", "username": "late", "role": "player", "password": "late-password-1"})),
    ) {
        assert_ne!(status, 200, "{refused}");
    }
    let stopped = a
        .exited_within(Duration::from_secs(10))
        .expect("the holder stopped by itself");
    assert!(!stopped.success());
    let written: i64 = db
        .query_one("SELECT count(*) FROM journal WHERE strpos(record, '\"late\"') > 0", &[])
        .expect("counted")
        .get(0);
    assert_eq!(written, 0, "nothing was written on the changed entry");
}

/// A journal cut back, its seal with it, just as a node has opened: the
/// node's first copy of the head is held to the head it opened with, so it
/// stops instead of moving the head back to where the journal was cut.
#[test]
fn a_journal_cut_back_as_a_node_opens_never_moves_its_head_back() {
    let Some(pg) = croupier_testkit::postgres::database("cut_at_start") else {
        return;
    };
    let mut db = postgres::Client::connect(pg.url(), postgres::NoTls).expect("the database");
    let data = data_dir();
    let mut a = node(data.path(), pg.url());
    let admin = a.admin_token();
    db.batch_execute("CREATE TABLE kept_seal AS SELECT * FROM seal")
        .expect("kept");
    let cut_at: i64 = db.query_one("SELECT seq FROM seal", &[]).expect("seal").get(0);
    a.add_staff_and_players(&admin);
    std::thread::sleep(Duration::from_millis(1_500));
    a.kill();
    let head = head_of(&data);
    let mut a = node(data.path(), pg.url());
    a.wait_line("croupier: serving on");
    db.batch_execute(&format!(
        "BEGIN; DELETE FROM journal WHERE seq > {cut_at}; DELETE FROM seal; INSERT INTO seal SELECT * FROM kept_seal;
         DELETE FROM checkpoint; COMMIT;"
    ))
    .expect("cut back");
    let stopped = a
        .exited_within(Duration::from_secs(10))
        .expect("the node stopped by itself");
    assert!(!stopped.success());
    assert_eq!(head_of(&data), head, "the head was not moved back");
}
