//! Two nodes on one journal in PostgreSQL (`serve --database`): one holds
//! the casino through the lease, the other waits. The one holding it is
//! killed mid-round; the other takes the casino over, voids the round cut
//! off as a restart does, and every balance is exact.

use std::io::{Read, Write};
use std::time::Duration;

use croupier_testkit::{data_dir, free_port, Server};
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_croupier");

fn node(data: &std::path::Path, url: &str) -> Server {
    Server::start_with(BIN, data, free_port(), &["--database", url])
}

/// What `server` answers on `/healthz` within two seconds: its status and body.
fn health(server: &Server) -> Option<(u16, String)> {
    let mut stream = std::net::TcpStream::connect(server.address()).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: croupier\r\nConnection: close\r\n\r\n")
        .ok()?;
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    let status = answer.split(' ').nth(1)?.parse().ok()?;
    Some((status, answer))
}

/// A node waiting for the lease answers at once that it stands by.
fn stands_by(server: &Server) {
    let answer = health(server).expect("a node standing by answers");
    assert!(answer.0 == 503 && answer.1.contains("\"standby\""), "{answer:?}");
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
    let mut a = node(a_data.path(), pg.url());
    let admin = a.admin_token();
    a.add_staff_and_players(&admin);
    let login = |s: &Server, u: &str| s.login(u, &format!("{u}-password-1"));
    let [cashier, dealer, pit, p1, p2] = ["cashier", "dealer", "pit", "p1", "p2"].map(|u| login(&a, u));
    a.inspect_and_open(&pit, &dealer, "t1");
    a.seat(&cashier, ("p1", &p1), "t1", 100_000, 100_000);
    a.seat(&cashier, ("p2", &p2), "t1", 100_000, 50_000);

    // A round played through on node A.
    a.ask(&dealer, json!({"op": "open_betting", "table": "t1"}));
    bet(&a, &p1, "r1-p1", "red", 1_000);
    bet(&a, &p2, "r1-p2", "17", 500);
    a.ask(&dealer, json!({"op": "no_more_bets", "table": "t1"}));
    let (status, drawn) = a.http("POST", "/api/tables/t1/draw", Some(&dealer), None);
    assert_eq!(status, 200, "{drawn}");

    // Node B: a data directory of its own, the same secret. It waits, and answers nothing.
    let keys_of = |data: &croupier_testkit::DataDir| data.parent().join("data-keys");
    std::fs::create_dir_all(keys_of(&b_data)).expect("B's keys folder");
    for file in std::fs::read_dir(keys_of(&a_data)).expect("A's keys") {
        let file = file.expect("a key file");
        std::fs::copy(file.path(), keys_of(&b_data).join(file.file_name())).expect("copied");
    }
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
    assert_eq!(health(&b).map(|(status, _)| status), Some(200));
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
/// more. Its writes are refused as the casino paused, and it does not take
/// the lease back behind the new holder's back.
#[test]
fn a_node_cut_off_from_the_database_writes_nothing_once_another_holds_the_casino() {
    let Some(pg) = croupier_testkit::postgres::database("cut_off") else {
        return;
    };
    let (a_data, b_data) = (data_dir(), data_dir());
    let a = node(a_data.path(), pg.url());
    let admin = a.admin_token();
    a.add_staff_and_players(&admin);
    let login = |s: &Server, u: &str| s.login(u, &format!("{u}-password-1"));
    let [cashier, dealer, pit, p1] = ["cashier", "dealer", "pit", "p1"].map(|u| login(&a, u));
    a.inspect_and_open(&pit, &dealer, "t1");
    a.seat(&cashier, ("p1", &p1), "t1", 100_000, 100_000);
    let keys_of = |data: &croupier_testkit::DataDir| data.parent().join("data-keys");
    std::fs::create_dir_all(keys_of(&b_data)).expect("B's keys folder");
    for file in std::fs::read_dir(keys_of(&a_data)).expect("A's keys") {
        let file = file.expect("a key file");
        std::fs::copy(file.path(), keys_of(&b_data).join(file.file_name())).expect("copied");
    }
    let b = node(b_data.path(), pg.url());
    stands_by(&b);

    // The database ends A's connection that holds the lease (as a network cut would).
    let mut admin_db = postgres::Client::connect(pg.url(), postgres::NoTls).expect("the database");
    let ended = admin_db
        .query(
            "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted
               AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            &[],
        )
        .expect("ended");
    assert_eq!(ended.len(), 1, "one connection held the lease");
    b.wait_line("croupier: serving on");

    // A still runs, and still listens; what it is asked to write is refused, and goes nowhere.
    let (status, refused) = a.http(
        "POST",
        "/api/requests",
        Some(&p1),
        Some(&json!({"op": "cash_out", "id": "after-the-cut", "table": "t1"})),
    );
    assert_ne!(status, 200, "{refused}");
    std::thread::sleep(Duration::from_secs(3));
    let (status, again) = a.http(
        "POST",
        "/api/requests",
        Some(&cashier),
        Some(&json!({"op": "cash_in", "id": "after-the-cut-2", "player": "p1", "amount": 100})),
    );
    assert_ne!(status, 200, "{again}");
    let written: i64 = admin_db
        .query_one(
            "SELECT count(*) FROM journal WHERE strpos(record, 'after-the-cut') > 0",
            &[],
        )
        .expect("counted")
        .get(0);
    assert_eq!(written, 0, "a node without the lease wrote to the journal");
    // B holds the casino, with p1's money as it was.
    let p1_b = login(&b, "p1");
    let (_, me) = b.http("GET", "/api/me", Some(&p1_b), None);
    assert_eq!(me["accounts"]["chips:t1:p1"], json!(100_000), "{me}");
    let (passed, report) = croupier_testkit::verify(BIN, b_data.path(), &["--database", pg.url()]);
    assert!(passed && report["ok"] == true, "{report}");
}
