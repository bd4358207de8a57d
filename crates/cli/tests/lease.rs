//! The casino's lease on PostgreSQL when the network or a node fails in the
//! ways a kill does not show: a commit whose answer is lost, a network cut
//! that drops packets silently, a node frozen with its connection open.
//! Beside `failover.rs`; these run only when `CROUPIER_TEST_POSTGRES` names
//! a cluster (`scripts/e2e.sh` starts one). A node's connections go through
//! the testkit's [`Proxy`] where the network is to fail.

use std::time::{Duration, Instant};

use croupier_testkit::{data_dir, free_port, DataDir, Proxy, Server};
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_croupier");

/// The lease's timeout every node here runs with (`serve --lease-timeout-ms`'s default).
const LEASE_TIMEOUT: Duration = Duration::from_millis(croupier_ledger::pg::LEASE_TIMEOUT_MS);

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
    assert_eq!(
        again,
        json!({"events": [], "done_before": true}),
        "a resend is answered as every resend is"
    );
    assert_eq!(wallet(&b, &p1_b), 25_000);

    // The first node, once it holds the casino again, answers the resend alike.
    b.kill();
    let a_back = node(&a_data, proxy.url());
    a_back.wait_line("croupier: serving on");
    let (cashier_a, p1_a) = (login(&a_back, "cashier"), login(&a_back, "p1"));
    let again = a_back.ask(&cashier_a, cash_in("cash-answer-lost", 25_000));
    assert_eq!(again, json!({"events": [], "done_before": true}));
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

/// The holder's network is cut silently: nothing passes, nothing is
/// closed, so neither its TCP nor the database's notices for a long while.
/// Its `/healthz` fails within half the lease's timeout (3 s, asserted
/// within 4 s), it stops, and the standby ends its connection on the
/// database once the lease is past its timeout and takes the casino over,
/// voiding the round cut off: every balance is exact.
#[test]
fn a_holder_cut_off_silently_fails_its_health_within_seconds_and_the_standby_takes_over() {
    let Some(pg) = croupier_testkit::postgres::database("silent_cut") else {
        return;
    };
    let proxy = Proxy::start(pg.url());
    let a_data = data_dir();
    let (mut a, [cashier, dealer, p1, p2]) = casino(&a_data, proxy.url());
    a.seat(&cashier, ("p1", &p1), "t1", 100_000, 100_000);
    a.seat(&cashier, ("p2", &p2), "t1", 100_000, 50_000);
    let before: Vec<Value> = [&p1, &p2].iter().map(|t| accounts(&a, t)).collect();
    // Bets acknowledged in a round the cut will leave without a result.
    a.ask(&dealer, json!({"op": "open_betting", "table": "t1"}));
    a.ask(
        &p1,
        json!({"op": "place_bet", "table": "t1", "bet_id": "b1", "spot": "red", "stake": 1_000}),
    );
    a.ask(
        &p2,
        json!({"op": "place_bet", "table": "t1", "bet_id": "b2", "spot": "17", "stake": 500}),
    );
    let (mut b, _b_data) = standby(&a_data, pg.url());
    assert_eq!(a.health().map(|(status, _)| status), Some(200));

    proxy.cut();
    let cut = Instant::now();
    // The first ask not answered 200: when it was sent, and its answer (none from a node that
    // stopped, or stops: it takes no more connections). None answers 200 after it.
    let healthy = || matches!(a.health(), Some((200, _)));
    let unhealthy = loop {
        let asked = cut.elapsed();
        if !healthy() || asked > Duration::from_secs(10) {
            break asked;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let failed = a.health();
    for _ in 0..10 {
        assert!(!healthy(), "node A said it was healthy again");
        std::thread::sleep(Duration::from_millis(100));
    }
    eprintln!(
        "node A's /healthz, asked {} ms after the cut, failed: {failed:?}",
        unhealthy.as_millis()
    );
    assert!(
        unhealthy < LEASE_TIMEOUT / 2 + Duration::from_secs(1),
        "node A said it was healthy for {} ms after its network was cut",
        unhealthy.as_millis()
    );
    if let Some((status, body)) = &failed {
        assert!(*status == 503 && body.contains("lease"), "{status}: {body}");
    }
    // Refused from then on, and it changes nothing.
    if let Ok((status, refused)) = a.try_http("POST", "/api/requests", Some(&cashier), Some(&cash_in("during-cut", 5)))
    {
        assert_eq!(status, 503, "{refused}");
    }
    let stopped = a
        .exited_within(Duration::from_secs(10))
        .expect("node A stopped by itself");
    assert!(!stopped.success(), "{stopped}");

    b.wait_line("croupier: serving on");
    let took_over = cut.elapsed();
    eprintln!("node B took the casino over {} ms after the cut", took_over.as_millis());
    assert!(
        took_over >= LEASE_TIMEOUT - Duration::from_secs(1),
        "not before the lease's timeout"
    );
    let (p1_b, p2_b) = (login(&b, "p1"), login(&b, "p2"));
    assert_eq!(
        accounts(&b, &p1_b),
        before[0],
        "p1's stake came back whole, nothing else moved"
    );
    assert_eq!(
        accounts(&b, &p2_b),
        before[1],
        "p2's stake came back whole, nothing else moved"
    );
    assert_eq!(records_holding(pg.url(), "during-cut"), 0);
    b.kill();
    let (passed, report) = croupier_testkit::verify(BIN, a_data.path(), &["--database", pg.url()]);
    assert!(passed && report["ok"] == true, "{report}");
}

/// The holder is frozen (SIGSTOP, as a long pause would): its connection
/// stays open and answers TCP's keepalives, so only the lease's row shows
/// it no longer acts. Once it is past the lease's timeout the standby ends
/// the holder's connection on the database and takes the casino over; the
/// holder, woken (SIGCONT), refuses what it is sent, writes nothing, and stops.
#[test]
fn a_frozen_holder_loses_the_lease_after_its_timeout_and_writes_nothing_when_it_wakes() {
    let Some(pg) = croupier_testkit::postgres::database("frozen") else {
        return;
    };
    let a_data = data_dir();
    let (mut a, [cashier, _, p1, _]) = casino(&a_data, pg.url());
    a.seat(&cashier, ("p1", &p1), "t1", 100_000, 40_000);
    let before = accounts(&a, &p1);
    let (mut b, _b_data) = standby(&a_data, pg.url());

    a.signal("STOP");
    let frozen = Instant::now();
    b.wait_line("croupier: serving on");
    let took_over = frozen.elapsed();
    eprintln!(
        "node B took the casino over {} ms after node A froze",
        took_over.as_millis()
    );
    assert!(
        took_over >= LEASE_TIMEOUT - Duration::from_secs(1),
        "not before the lease's timeout"
    );
    let p1_b = login(&b, "p1");
    assert_eq!(accounts(&b, &p1_b), before);

    // A wakes: it answers nothing as the casino's, writes nothing, and stops.
    a.signal("CONT");
    if let Ok((status, refused)) = a.try_http(
        "POST",
        "/api/requests",
        Some(&cashier),
        Some(&cash_in("after-waking", 7)),
    ) {
        assert_eq!(status, 503, "{refused}");
    }
    if let Some((status, body)) = a.health() {
        assert_eq!(status, 503, "{body}");
    }
    let stopped = a
        .exited_within(Duration::from_secs(5))
        .expect("node A stopped once awake");
    assert!(!stopped.success(), "{stopped}");
    assert_eq!(records_holding(pg.url(), "after-waking"), 0, "node A wrote nothing");
    // B holds the casino, and plays on.
    let cashier_b = login(&b, "cashier");
    b.ask(&cashier_b, cash_in("after-takeover", 1_000));
    assert_eq!(wallet(&b, &p1_b), before["wallet:p1"].as_i64().unwrap_or(0) + 1_000);
    b.kill();
    let (passed, report) = croupier_testkit::verify(BIN, a_data.path(), &["--database", pg.url()]);
    assert!(passed && report["ok"] == true, "{report}");
}
