//! The casino's lease on PostgreSQL when the network fails in the ways a
//! kill does not show: a commit whose answer is lost.
//! Beside `failover.rs`; these run only when `CROUPIER_TEST_POSTGRES` names
//! a cluster (`scripts/e2e.sh` starts one). A node's connections go through
//! the testkit's [`Proxy`] where the network is to fail.

use std::time::Duration;

use croupier_testkit::{data_dir, free_port, DataDir, Proxy, Server};
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_croupier");

/// A node on the journal at `url`.
fn node(data: &DataDir, url: &str) -> Server {
    Server::start_with(
        BIN,
        data.path(),
        free_port(),
        &["--database", url, "--checkpoint-every", "5"],
    )
}

/// A node waiting for the lease answers at once that it stands by.
fn stands_by(server: &Server) {
    let answer = server.health().expect("a node standing by answers");
    assert!(answer.0 == 503 && answer.1.contains("\"standby\""), "{answer:?}");
}

fn login(server: &Server, name: &str) -> String {
    server.login(name, &format!("{name}-password-1"))
}

/// A first node on `url`: staff and players made, t1 inspected and open,
/// and [cashier, dealer, p1, p2] signed in.
fn casino(data: &DataDir, url: &str) -> (Server, [String; 4]) {
    let server = node(data, url);
    let admin = server.admin_token();
    server.add_staff_and_players(&admin);
    let [cashier, dealer, pit, p1, p2] = ["cashier", "dealer", "pit", "p1", "p2"].map(|u| login(&server, u));
    server.inspect_and_open(&pit, &dealer, "t1");
    (server, [cashier, dealer, p1, p2])
}

/// A second node, with the first's secret, waiting for the lease.
fn standby(first: &DataDir, url: &str) -> (Server, DataDir) {
    let data = data_dir();
    first.copy_keys_to(&data);
    let server = node(&data, url);
    stands_by(&server);
    (server, data)
}

fn accounts(server: &Server, token: &str) -> Value {
    let (status, me) = server.http("GET", "/api/me", Some(token), None);
    assert_eq!(status, 200, "{me}");
    me["accounts"].clone()
}

/// p1's cash, in minor units (none before a first cash-in).
fn wallet(server: &Server, p1: &str) -> i64 {
    accounts(server, p1)["wallet:p1"].as_i64().unwrap_or(0)
}

fn cash_in(id: &str, amount: u64) -> Value {
    json!({"op": "cash_in", "id": id, "player": "p1", "amount": amount})
}

/// How many of the journal's records hold `words`.
fn records_holding(url: &str, words: &str) -> i64 {
    let mut db = postgres::Client::connect(url, postgres::NoTls).expect("the database");
    db.query_one("SELECT count(*) FROM journal WHERE strpos(record, $1) > 0", &[&words])
        .expect("counted")
        .get(0)
}

/// The connection drops right after the COMMIT of a cash-in reached the
/// database: the commit is made, and its answer lost. The cashier is told
/// the outcome is unknown and to send it again with the same id (not that
/// nothing changed, which would be false); the node stops, the standby
/// takes over, and the resend there, and to the first node once it holds
/// the casino again, is answered as done and moves the money once.
#[test]
fn a_commit_whose_answer_is_lost_is_answered_unknown_and_its_resend_moves_the_money_once() {
    let Some(pg) = croupier_testkit::postgres::database("answer_lost") else {
        return;
    };
    let proxy = Proxy::start(pg.url());
    let a_data = data_dir();
    let (mut a, [cashier, _, p1, _]) = casino(&a_data, proxy.url());
    let (mut b, _b_data) = standby(&a_data, pg.url());
    assert_eq!(wallet(&a, &p1), 0);

    proxy.drop_after_commit("cash-answer-lost");
    let (status, lost) = a.http(
        "POST",
        "/api/requests",
        Some(&cashier),
        Some(&cash_in("cash-answer-lost", 25_000)),
    );
    assert!(proxy.fired(), "the proxy dropped the connection after the COMMIT");
    assert_eq!((status, &lost["error"]), (503, &json!("outcome_unknown")), "{lost}");
    let said = lost["message"].as_str().unwrap_or_default();
    assert!(
        said.contains("same id") && !said.contains("nothing was changed"),
        "{said}"
    );
    // The commit was made: the entry is in the journal, once.
    assert_eq!(records_holding(pg.url(), "cash-answer-lost"), 1);
    // The node whose write failed stops; the standby takes the casino over.
    let stopped = a
        .exited_within(Duration::from_secs(10))
        .expect("node A stopped by itself");
    assert!(!stopped.success(), "{stopped}");
    b.wait_line("croupier: serving on");
    let (cashier_b, p1_b) = (login(&b, "cashier"), login(&b, "p1"));
    assert_eq!(wallet(&b, &p1_b), 25_000);

    // Sent again with the same id: answered as done, the money moved once.
    let again = b.ask(&cashier_b, cash_in("cash-answer-lost", 25_000));
    assert_eq!(again, json!({"events": []}), "a resend is answered as every resend is");
    assert_eq!(wallet(&b, &p1_b), 25_000);

    // The first node, once it holds the casino again, answers the resend alike.
    b.kill();
    let a_back = node(&a_data, proxy.url());
    a_back.wait_line("croupier: serving on");
    let (cashier_a, p1_a) = (login(&a_back, "cashier"), login(&a_back, "p1"));
    let again = a_back.ask(&cashier_a, cash_in("cash-answer-lost", 25_000));
    assert_eq!(again, json!({"events": []}));
    assert_eq!(wallet(&a_back, &p1_a), 25_000);
    assert_eq!(records_holding(pg.url(), "cash-answer-lost"), 1, "written once");
    drop(a_back);
    let (passed, report) = croupier_testkit::verify(BIN, a_data.path(), &["--database", pg.url()]);
    assert!(passed && report["ok"] == true, "{report}");
}

/// The connection drops before the entry's insert reaches the database:
/// nothing was committed, and the answer still says so (`storage`, nothing
/// was changed). Sent again, once the node serves again, it moves the money once.
#[test]
fn a_write_cut_off_before_its_commit_is_answered_nothing_changed() {
    let Some(pg) = croupier_testkit::postgres::database("cut_before_commit") else {
        return;
    };
    let proxy = Proxy::start(pg.url());
    let data = data_dir();
    let (mut a, [cashier, ..]) = casino(&data, proxy.url());
    proxy.drop_before("cash-never-written");
    let (status, refused) = a.http(
        "POST",
        "/api/requests",
        Some(&cashier),
        Some(&cash_in("cash-never-written", 30_000)),
    );
    assert!(proxy.fired(), "the proxy dropped the connection before the insert");
    assert_eq!((status, &refused["error"]), (503, &json!("storage")), "{refused}");
    assert!(
        refused["message"]
            .as_str()
            .unwrap_or_default()
            .contains("nothing was changed"),
        "{refused}"
    );
    assert_eq!(records_holding(pg.url(), "cash-never-written"), 0);
    let stopped = a
        .exited_within(Duration::from_secs(10))
        .expect("the node stopped by itself");
    assert!(!stopped.success(), "{stopped}");
    let a_back = node(&data, proxy.url());
    a_back.wait_line("croupier: serving on");
    let (cashier, p1) = (login(&a_back, "cashier"), login(&a_back, "p1"));
    assert_eq!(wallet(&a_back, &p1), 0, "nothing was changed");
    a_back.ask(&cashier, cash_in("cash-never-written", 30_000));
    a_back.ask(&cashier, cash_in("cash-never-written", 30_000));
    assert_eq!(wallet(&a_back, &p1), 30_000, "moved once");
}
