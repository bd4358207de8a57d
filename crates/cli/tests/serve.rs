//! `croupier serve` end to end: the real binary, real sockets, a kill -9 mid-round.

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use croupier_testkit::{data_dir, free_port, Server, Socket};
use serde_json::{json, Value};

/// `croupier verify --data DATA --format json`: whether it passed, and its report.
fn verify(data: &Path) -> (bool, Value) {
    croupier_testkit::verify(env!("CARGO_BIN_EXE_croupier"), data, &[])
}

/// `croupier serve` on `data`, listening on `port`.
fn start(data: &Path, port: u16) -> Server {
    Server::start(env!("CARGO_BIN_EXE_croupier"), data, port)
}

/// Follows each player's chips at each table from the events the server returns.
fn account(expected: &mut std::collections::BTreeMap<String, i64>, events: &Value) {
    for e in events["events"].as_array().expect("events") {
        let key = |e: &Value| {
            format!(
                "{}:{}",
                e["table"].as_str().unwrap_or(""),
                e["player"].as_str().unwrap_or("")
            )
        };
        match e["type"].as_str() {
            Some("bet_accepted") => *expected.entry(key(e)).or_default() -= e["stake"].as_i64().expect("stake"),
            Some("bet_settled" | "bet_returned" | "bet_cancelled") => {
                *expected.entry(key(e)).or_default() += e["returned"].as_i64().expect("returned")
            }
            _ => {}
        }
    }
}

/// Follows the players' chips through a round's settlement: a spin's answer to
/// the dealer carries the result and the totals, not a settlement per bet, so
/// each bet's return is read from the round's recall.
fn account_round(server: &Server, staff: &str, expected: &mut std::collections::BTreeMap<String, i64>, answer: &Value) {
    let events = answer["events"].as_array().expect("events");
    assert!(
        events.iter().all(|e| e["player"].is_null()),
        "a spin's answer to the dealer shows no player's events: {answer}"
    );
    let settled = events
        .iter()
        .find(|e| e["type"] == "round_settled")
        .expect("the round settled");
    let (table, round) = (
        settled["table"].as_str().expect("table"),
        settled["round"].as_u64().expect("round"),
    );
    let (status, recalled) = server.http("GET", &format!("/api/rounds/{table}/{round}"), Some(staff), None);
    assert_eq!(status, 200, "{recalled}");
    let mut returned = 0;
    for bet in recalled["bets"].as_array().expect("bets") {
        let r = bet["returned"].as_i64().expect("every bet settled");
        *expected
            .entry(format!("{table}:{}", bet["player"].as_str().expect("player")))
            .or_default() += r;
        returned += r;
    }
    assert_eq!(
        settled["returned"].as_i64(),
        Some(returned),
        "the totals agree with the bets"
    );
}

/// An automated wheel, `croupier wheel emulate` on a port of its own, playing
/// a game about every half second; stopped when the test ends, even by a failure.
struct Emulator {
    child: Child,
    address: String,
}

impl Emulator {
    fn start(games: u32) -> Emulator {
        let address = format!("127.0.0.1:{}", free_port());
        let child = Command::new(env!("CARGO_BIN_EXE_croupier"))
            .args([
                "wheel",
                "emulate",
                "--listen",
                &address,
                "--wheel",
                "double-zero",
                "--frame-ms",
                "40",
                "--games",
                &games.to_string(),
                "--seed",
                &"07".repeat(32),
            ])
            .stderr(Stdio::null())
            .spawn()
            .expect("emulator starts");
        Emulator { child, address }
    }

    /// The admin's request for a Maryland double-zero table `table` that follows this wheel.
    fn table(&self, table: &str) -> Value {
        json!({"op": "create_table", "table": table, "profile_text": include_str!("../../../profiles/maryland.toml"), "wheel": "double-zero",
               "in_prison": false, "betting_window_ms": 60000, "outcome": "wheel", "wheel_address": self.address})
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A server on `data` with table `w1` following `wheel` (a betting window
/// of a minute), inspected and open, and p1 seated with `chips` (twice
/// that in cash): (server, the dealer's token, p1's token).
fn at_the_wheel(wheel: &Emulator, data: &Path, chips: u64) -> (Server, String, String) {
    let server = start(data, free_port());
    let admin = server.admin_token();
    server.add_users(
        &admin,
        &[
            ("cashier", "cashier"),
            ("dealer", "dealer"),
            ("pit", "pit_supervisor"),
            ("p1", "player"),
        ],
    );
    server.ask(&admin, wheel.table("w1"));
    let (pit, dealer, cashier, p1) = (
        server.login("pit", "pit-password-1"),
        server.login("dealer", "dealer-password-1"),
        server.login("cashier", "cashier-password-1"),
        server.login("p1", "p1-password-1"),
    );
    server.inspect_and_open(&pit, &dealer, "w1");
    server.seat(&cashier, ("p1", &p1), "w1", chips * 2, chips);
    (server, dealer, p1)
}

/// Bets `stake` on `spot` at a table that follows an automated wheel: waits
/// for the wheel's game to open betting, places the bet, and waits for the
/// wheel's next game to settle it. Returns the round as the player recalls it.
fn bet_on_the_wheel(
    server: &Server,
    (player, token): (&str, &str),
    table: &str,
    bet_id: &str,
    spot: &str,
    stake: u64,
) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let mut placed = false;
    while std::time::Instant::now() < deadline {
        if !placed {
            let (_, tables) = server.http("GET", "/api/tables", Some(token), None);
            let open = tables["tables"]
                .as_array()
                .expect("tables")
                .iter()
                .any(|t| t["table"] == table && t["phase"] == "betting");
            if open {
                let (status, _) = server.http(
                    "POST",
                    "/api/requests",
                    Some(token),
                    Some(&json!({"op": "place_bet", "table": table, "bet_id": bet_id, "spot": spot, "stake": stake})),
                );
                placed = status == 200;
            }
        } else {
            let (_, rounds) = server.http("GET", &format!("/api/players/{player}/rounds"), Some(token), None);
            let settled = rounds["rounds"].as_array().and_then(|rounds| {
                rounds
                    .iter()
                    .find(|r| {
                        r["table"] == table
                            && r["bets"]
                                .as_array()
                                .is_some_and(|b| b.iter().any(|b| b["bet_id"] == bet_id))
                    })
                    .filter(|r| r["settled"] == true)
                    .cloned()
            });
            if let Some(round) = settled {
                return round;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("the wheel did not settle bet {bet_id} at {table} within 30 s (placed: {placed})");
}

/// Follows a player's chips through a round they recalled: each of their bets
/// took its stake and gave back what it returned.
fn account_recalled(expected: &mut std::collections::BTreeMap<String, i64>, round: &Value) {
    for bet in round["bets"].as_array().expect("bets") {
        let key = format!(
            "{}:{}",
            round["table"].as_str().expect("table"),
            bet["player"].as_str().expect("player")
        );
        *expected.entry(key).or_default() +=
            bet["returned"].as_i64().expect("every bet settled") - bet["stake"].as_i64().expect("stake");
    }
}

#[test]
fn serve_plays_rounds_survives_kill_9_and_verifies() {
    let wheel = Emulator::start(1_000);
    let data = data_dir();
    let port = free_port();
    let mut server = start(data.path(), port);
    assert_eq!(server.http("GET", "/healthz", None, None).0, 200);
    // The number display board and its public data.
    let (status, page) = server.http("GET", "/board", None, None);
    assert_eq!(status, 200);
    assert!(page.as_str().expect("html").contains("Number display"));
    for (path, title) in [
        ("/", "Player terminal"),
        ("/terminal", "player terminal"),
        ("/dealer", "dealer console"),
        ("/pit", "pit console"),
    ] {
        let (status, page) = server.http("GET", path, None, None);
        assert_eq!(status, 200, "{path}");
        assert!(page.as_str().expect("html").contains(title), "{path}");
    }
    let (status, layout) = server.http("GET", "/api/public/tables/t1/layout", None, None);
    assert_eq!(status, 200);
    assert_eq!(layout["layout"], "double-zero");
    assert!(layout["spots"]
        .as_array()
        .expect("spots")
        .iter()
        .any(|s| s["spot"] == "0-00"));
    // A composite bet lists the bets it lays on the felt, each with its units:
    // five straights for five neighbours (Maryland ch.3 F(1)); for a complete bet
    // on 17, one unit per number of each inside bet containing 17 (ch.3 F(19)).
    let spot = |name: &str| {
        layout["spots"]
            .as_array()
            .expect("spots")
            .iter()
            .find(|s| s["spot"] == name)
            .cloned()
            .expect(name)
    };
    let parts = |name: &str| -> Vec<(String, u64)> {
        spot(name)["parts"]
            .as_array()
            .expect("parts")
            .iter()
            .map(|p| {
                (
                    p["spot"].as_str().expect("spot").to_string(),
                    p["units"].as_u64().expect("units"),
                )
            })
            .collect()
    };
    let neighbours = parts("neighbours:17");
    assert_eq!(neighbours.len(), 5, "{neighbours:?}");
    assert!(neighbours.iter().all(|(_, units)| *units == 1));
    assert!(neighbours.contains(&("17".to_string(), 1)));
    let complete = parts("complete:17");
    assert_eq!(complete.iter().map(|(_, u)| u).sum::<u64>(), 40);
    assert_eq!(spot("complete:17")["units"], 40);
    for (part, units) in [
        ("17", 1),
        ("14-17", 2),
        ("16-17-18", 3),
        ("16-17-19-20", 4),
        ("13-14-15-16-17-18", 6),
    ] {
        assert!(complete.contains(&(part.to_string(), units)), "{part} in {complete:?}");
    }
    assert!(spot("17").get("parts").is_none(), "a plain bet has no parts");
    // Colorado 2207: a restriction on tip wagers is posted at the table; Maryland states none.
    assert!(layout.get("tips_notice").is_none(), "{}", layout["tips_notice"]);
    let (_, colorado) = server.http("GET", "/api/public/tables/t2/layout", None, None);
    assert!(
        colorado["tips_notice"].as_str().is_some_and(|n| n.contains("(2207)")),
        "{}",
        colorado["tips_notice"]
    );
    let (status, board) = server.http("GET", "/api/public/tables/t1", None, None);
    assert_eq!(status, 200);
    assert_eq!(board["display_length"], 16);
    assert_eq!(board["phase"], "closed");
    let (status, doc) = server.http("GET", "/api/openapi.json", None, None);
    assert_eq!(status, 200);
    assert!(doc["paths"]["/api/requests"]["post"].is_object(), "{doc}");

    let admin = server.admin_token();
    server.add_staff_and_players(&admin);
    let cashier = server.login("cashier", "cashier-password-1");
    let dealer = server.login("dealer", "dealer-password-1");
    let pit = server.login("pit", "pit-password-1");
    let p1 = server.login("p1", "p1-password-1");
    let p2 = server.login("p2", "p2-password-1");

    // Only the server itself marks the journal's format, not even an admin: no
    // client's request can say so.
    let (status, body) = server.http(
        "POST",
        "/api/requests",
        Some(&admin),
        Some(&json!({"op": "journal_format", "format": 2})),
    );
    assert_eq!((status, body["error"].as_str()), (400, Some("bad_request")));
    // Roles: a player cannot handle cash or open tables, nor see another player's rounds.
    let (status, body) = server.http(
        "POST",
        "/api/requests",
        Some(&p1),
        Some(&json!({"op": "cash_in", "id": "x", "player": "p1", "amount": 1})),
    );
    assert_eq!((status, body["error"].as_str()), (403, Some("forbidden")));
    assert_eq!(
        server
            .http(
                "POST",
                "/api/requests",
                Some(&p1),
                Some(&json!({"op": "open_table", "table": "t1"}))
            )
            .0,
        403
    );
    assert_eq!(server.http("GET", "/api/players/p2/rounds", Some(&p1), None).0, 403);
    assert_eq!(server.http("GET", "/api/tables", None, None).0, 401);

    for table in ["t1", "t2"] {
        server.inspect_and_open(&pit, &dealer, table);
    }
    for p in ["p1", "p2"] {
        server.ask(
            &cashier,
            json!({"op": "cash_in", "id": format!("cash-{p}"), "player": p, "amount": 20_000}),
        );
    }
    server.ask(
        &p1,
        json!({"op": "buy_in", "id": "b1", "table": "t1", "amount": 10_000, "chip_value": 100}),
    );
    server.ask(
        &p2,
        json!({"op": "buy_in", "id": "b2", "table": "t1", "amount": 10_000, "chip_value": 100}),
    );
    server.ask(
        &p1,
        json!({"op": "buy_in", "id": "b3", "table": "t2", "amount": 5_000, "chip_value": 100}),
    );

    let mut stream = server.subscribe("t1", None);
    let mut expected: std::collections::BTreeMap<String, i64> = [
        ("t1:p1".to_string(), 10_000),
        ("t1:p2".to_string(), 10_000),
        ("t2:p1".to_string(), 5_000),
    ]
    .into();
    // Three rounds on the RNG table.
    for round in 0..3 {
        server.ask(&dealer, json!({"op": "open_betting", "table": "t1"}));
        account(&mut expected, &server.ask(
            &p1,
            json!({"op": "place_bet", "table": "t1", "bet_id": format!("r{round}a"), "spot": "red", "stake": 1_000}),
        ));
        account(
            &mut expected,
            &server.ask(
                &p1,
                json!({"op": "place_bet", "table": "t1", "bet_id": format!("r{round}b"), "spot": "17", "stake": 100}),
            ),
        );
        account(
            &mut expected,
            &server.ask(
                &p2,
                json!({"op": "place_bet", "table": "t1", "bet_id": format!("r{round}c"), "spot": "0-00", "stake": 200}),
            ),
        );
        server.ask(&dealer, json!({"op": "no_more_bets", "table": "t1"}));
        let (status, body) = server.http(
            "POST",
            "/api/requests",
            Some(&p2),
            Some(&json!({"op": "place_bet", "table": "t1", "bet_id": "late", "spot": "17", "stake": 100})),
        );
        assert_eq!((status, body["error"].as_str()), (422, Some("past_posting")));
        let (status, body) = server.http("POST", "/api/tables/t1/draw", Some(&dealer), None);
        assert_eq!(status, 200, "{body}");
        account_round(&server, &dealer, &mut expected, &body);
    }
    // The dealer keys an outcome on the dealer-entry table.
    server.ask(&dealer, json!({"op": "open_betting", "table": "t2"}));
    account(
        &mut expected,
        &server.ask(
            &p1,
            json!({"op": "place_bet", "table": "t2", "bet_id": "d1", "spot": "17-18", "stake": 500}),
        ),
    );
    server.ask(&dealer, json!({"op": "no_more_bets", "table": "t2"}));
    let spun = server.ask(
        &dealer,
        json!({"op": "spin", "table": "t2", "spin": {"pocket": "17", "direction": "opposite", "revolutions": 5}}),
    );
    account_round(&server, &dealer, &mut expected, &spun);
    assert_eq!(expected["t2:p1"], 5_000 - 500 + 9_000);
    // Colorado 2202: the dealer sells p2 chips for cash; the cash goes into t2's drop box.
    server.ask(
        &dealer,
        json!({"op": "sell_chips", "id": "s1", "table": "t2", "player": "p2", "amount": 3_000, "chip_value": 100}),
    );
    expected.insert("t2:p2".to_string(), 3_000);

    // The automated wheel's table: p2 bets on two of its games.
    server.ask(&admin, wheel.table("w1"));
    server.inspect_and_open(&pit, &dealer, "w1");
    server.ask(
        &p2,
        json!({"op": "buy_in", "id": "b4", "table": "w1", "amount": 5_000, "chip_value": 100}),
    );
    expected.insert("w1:p2".to_string(), 5_000);
    for (bet_id, spot) in [("wa", "black"), ("wb", "0-00")] {
        let round = bet_on_the_wheel(&server, ("p2", &p2), "w1", bet_id, spot, 200);
        account_recalled(&mut expected, &round);
    }

    // The stream pushed the first round's events to the subscriber.
    let first = stream.next_frame();
    assert_eq!(first["type"], "betting_opened");
    let mut seen = vec![first];
    while seen.last().map(|e| e["type"] != "round_settled").unwrap_or(true) {
        seen.push(stream.next_frame());
    }
    assert!(seen.iter().any(|e| e["type"] == "result"));

    // Recall: the player's own last rounds.
    let (status, body) = server.http("GET", "/api/players/p1/rounds?last=10", Some(&p1), None);
    assert_eq!(status, 200);
    assert_eq!(body["rounds"].as_array().expect("rounds").len(), 4);

    // A round interrupted by kill -9 after no more bets.
    server.ask(&dealer, json!({"op": "open_betting", "table": "t1"}));
    account(
        &mut expected,
        &server.ask(
            &p1,
            json!({"op": "place_bet", "table": "t1", "bet_id": "cut", "spot": "odd", "stake": 700}),
        ),
    );
    server.ask(&dealer, json!({"op": "no_more_bets", "table": "t1"}));
    // A signed-out session stays out after the restart; the others carry on.
    let gone = server.login("p2", "p2-password-1");
    assert_eq!(server.http("POST", "/api/logout", Some(&gone), None).0, 200);
    server.kill();

    // A fresh port: the old one may have gone to a parallel test meanwhile.
    let mut server = start(data.path(), free_port());
    let line = server.wait_line("croupier: recovered:");
    assert!(line.contains("no_spin") || line.contains("bet_returned"), "{line}");
    // The bet cut off by the kill came back whole.
    *expected.get_mut("t1:p1").expect("p1") += 700;
    assert_eq!(server.http("GET", "/api/me", Some(&gone), None).0, 401);
    // Every player's chips at every table are what their bets left them.
    for (player, token) in [("p1", &p1), ("p2", &p2)] {
        let (_, me) = server.http("GET", "/api/me", Some(token), None);
        for (key, chips) in expected.iter().filter(|(key, _)| key.ends_with(&format!(":{player}"))) {
            let account = format!("chips:{key}");
            assert_eq!(me["accounts"][&account].as_i64(), Some(*chips), "{account}: {me}");
        }
    }
    // The wheel's table follows its wheel again after the restart.
    let round = bet_on_the_wheel(&server, ("p2", &p2), "w1", "wc", "red", 300);
    account_recalled(&mut expected, &round);
    // The operations log is rebuilt from the journal: inspection with who and licence
    // (Colorado 2212(5), Maryland ch.2 E), opening, and the no spin of the void round.
    let (status, log) = server.http("GET", "/api/tables/t1/log", Some(&pit), None);
    assert_eq!(status, 200, "{log}");
    let types: Vec<&str> = log["log"]
        .as_array()
        .expect("log")
        .iter()
        .filter_map(|e| e["type"].as_str())
        .collect();
    // Newest first: the first run's posted limits, then the inspection.
    assert_eq!(types.last(), Some(&"limits_set"), "{log}");
    assert_eq!(types.iter().rev().nth(1), Some(&"inspection_recorded"), "{log}");
    assert!(types.contains(&"table_opened") && types.contains(&"no_spin"), "{log}");
    assert!(log["log"]
        .as_array()
        .expect("log")
        .iter()
        .all(|e| e["at_ms"].as_u64().is_some()));
    // Players may not read it.
    assert_eq!(server.http("GET", "/api/tables/t1/log", Some(&p1), None).0, 403);
    assert_eq!(server.http("GET", "/api/tables/t1/report", Some(&p1), None).0, 403);

    // Three failed sign-ins hold back the next try; they lock nothing and end no session.
    for _ in 0..3 {
        let wrong = json!({"username": "p2", "password": "wrong-password"});
        assert_eq!(server.http("POST", "/api/login", None, Some(&wrong)).0, 401);
    }
    let right = json!({"username": "p2", "password": "p2-password-1"});
    let (status, body) = server.http("POST", "/api/login", None, Some(&right));
    assert_eq!(
        (status, body["error"].as_str()),
        (429, Some("too_many_attempts")),
        "{body}"
    );
    assert_eq!(server.http("GET", "/api/me", Some(&p2), None).0, 200);
    // The metrics are an admin's or an auditor's.
    assert_eq!(server.http("GET", "/metrics", None, None).0, 401);
    assert_eq!(server.http("GET", "/metrics", Some(&p1), None).0, 403);
    let (_, metrics) = server.http("GET", "/metrics", Some(&admin), None);
    let metrics = metrics.as_str().expect("text");
    assert!(metrics.contains("croupier_logins_failed_total 3"));
    // Every write of the journal so far is in the flush histogram, and its buckets add up.
    let flushes = |line: &str| -> u64 {
        metrics
            .lines()
            .find_map(|l| l.strip_prefix(line))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {line} in {metrics}"))
    };
    let written = flushes("croupier_journal_flush_seconds_count");
    assert!(written > 0, "the users and logins were written");
    assert_eq!(flushes("croupier_journal_flush_seconds_bucket{le=\"+Inf\"}"), written);

    server.kill();
    let (passed, report) = verify(data.path());
    assert!(passed, "{report}");
    assert_eq!(report["ok"], true);
    assert_eq!(report["total"], 0);
    assert_eq!(report["balances"]["drop:t2"], 3_000, "{report}");
    // The journal's replay gives every balance the players saw.
    for (key, chips) in &expected {
        let replayed = report["balances"][format!("chips:{key}")].as_i64().unwrap_or(0);
        assert_eq!(replayed, *chips, "chips:{key}: {report}");
    }
    drop(wheel);
}

/// An acknowledged bet survives `kill -9` at any moment, not just a quiet
/// one: four terminals keep several bets each in flight on their streams (so
/// each journal write holds many) while the dealer runs short RNG rounds, and
/// the server is killed at a moment drawn for each run. After the restart
/// every acknowledged bet is in its round's recall, exactly once; every bet
/// there was settled or returned (the round cut off is void); each player's
/// chips are what they bought in for less their stakes plus what came back,
/// so no settlement was paid twice or lost; and the journal verifies.
#[test]
fn every_acknowledged_bet_survives_a_kill_9_under_load() {
    kill_9_under_load(&[]);
}

/// The same on a journal in PostgreSQL (the test command's throwaway cluster).
#[test]
fn every_acknowledged_bet_survives_a_kill_9_under_load_on_postgres() {
    let Some(pg) = croupier_testkit::postgres::database("kill_9_under_load") else {
        return;
    };
    kill_9_under_load(&["--database", pg.url()]);
}

/// A server started with `options` (`--database URL`), killed under load.
fn kill_9_under_load(options: &[&str]) {
    const CHIPS: i64 = 1_000_000;
    const IN_FLIGHT: usize = 4;
    let spots = [
        "red",
        "17",
        "0-00",
        "dozen2",
        "odd",
        "1-2-3",
        "25-26-28-29",
        "black",
        "00",
    ];
    let data = data_dir();
    let port = free_port();
    let mut server = Server::start_with(env!("CARGO_BIN_EXE_croupier"), data.path(), port, options);
    let admin = server.admin_token();
    server.add_staff_and_players(&admin);
    server.add_users(&admin, &[("p3", "player"), ("p4", "player")]);
    let [cashier, dealer, pit] = ["cashier", "dealer", "pit"].map(|u| server.login(u, &format!("{u}-password-1")));
    server.inspect_and_open(&pit, &dealer, "t1");
    let players: Vec<(String, String)> = ["p1", "p2", "p3", "p4"]
        .iter()
        .map(|p| {
            let token = server.login(p, &format!("{p}-password-1"));
            server.seat(&cashier, (p, &token), "t1", CHIPS as u64, CHIPS as u64);
            (p.to_string(), token)
        })
        .collect();

    // The dealer runs rounds of 100 ms of betting until the server is gone.
    let dealer_runs = {
        let (client, token) = (server.client(), dealer.clone());
        std::thread::spawn(move || {
            let ask = |op: &str| {
                client.try_http(
                    "POST",
                    "/api/requests",
                    Some(&token),
                    Some(&json!({"op": op, "table": "t1"})),
                )
            };
            let mut rounds = 0;
            while ask("open_betting").is_ok() {
                std::thread::sleep(Duration::from_millis(100));
                if ask("no_more_bets").is_err()
                    || client
                        .try_http("POST", "/api/tables/t1/draw", Some(&token), None)
                        .is_err()
                {
                    break;
                }
                rounds += 1;
            }
            rounds
        })
    };
    // Each terminal sends its bets in fours on its stream and keeps the ids acknowledged.
    let terminals: Vec<_> = players
        .iter()
        .map(|(player, token)| {
            let mut socket = server.subscribe("t1", Some(token));
            let player = player.clone();
            std::thread::spawn(move || {
                let mut acknowledged = Vec::new();
                let mut n = 0usize;
                'sending: loop {
                    for _ in 0..IN_FLIGHT {
                        n += 1;
                        let bet_id = format!("{player}-{n}");
                        let request = json!({"ref": bet_id, "request": {"op": "place_bet", "table": "t1", "bet_id": bet_id, "spot": spots[n % spots.len()], "stake": 500}});
                        if socket.try_send(&request.to_string()).is_err() {
                            break 'sending;
                        }
                    }
                    let mut replies = 0;
                    while replies < IN_FLIGHT {
                        let Ok(frame) = socket.try_next_frame() else {
                            break 'sending;
                        };
                        if frame["type"] == "reply" {
                            replies += 1;
                            if frame["ok"] == true {
                                acknowledged.push(frame["ref"].as_str().expect("ref").to_string());
                            }
                        }
                    }
                }
                acknowledged
            })
        })
        .collect();

    // A moment of its own for each run, printed so that a failing one can be told apart.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .subsec_nanos();
    let after_ms = 400 + u64::from(nanos % 800);
    std::thread::sleep(Duration::from_millis(after_ms));
    server.kill();

    let acknowledged: Vec<Vec<String>> = terminals.into_iter().map(|t| t.join().expect("terminal")).collect();
    let rounds = dealer_runs.join().expect("dealer");
    let total: usize = acknowledged.iter().map(Vec::len).sum();
    assert!(total > 0, "bets were acknowledged before the kill ({rounds} rounds)");
    eprintln!("killed {after_ms} ms into the betting: {total} bets acknowledged, {rounds} rounds drawn");

    // A fresh port: the old one may have gone to a parallel test meanwhile.
    let mut server = Server::start_with(env!("CARGO_BIN_EXE_croupier"), data.path(), free_port(), options);
    // On PostgreSQL it answers `standby` until it has taken the lease and opened,
    // and every session begins again there: the players sign in again.
    server.wait_line("croupier: serving on");
    let players: Vec<(String, String)> = match options.is_empty() {
        true => players,
        false => players
            .into_iter()
            .map(|(p, _)| {
                let token = server.login(&p, &format!("{p}-password-1"));
                (p, token)
            })
            .collect(),
    };
    for ((player, token), acknowledged) in players.iter().zip(&acknowledged) {
        let (status, recall) = server.http(
            "GET",
            &format!("/api/players/{player}/rounds?last=100"),
            Some(token),
            None,
        );
        assert_eq!(status, 200, "{recall}");
        let mut bets = std::collections::BTreeMap::new();
        for round in recall["rounds"].as_array().expect("rounds") {
            for bet in round["bets"].as_array().expect("bets") {
                let id = bet["bet_id"].as_str().expect("bet id").to_string();
                let stake = bet["stake"].as_i64().expect("stake");
                let returned = bet["returned"]
                    .as_i64()
                    .unwrap_or_else(|| panic!("{id} was neither settled nor returned: {round}"));
                assert!(
                    bets.insert(id.clone(), (stake, returned)).is_none(),
                    "{id} is recalled twice"
                );
            }
        }
        let missing: Vec<&String> = acknowledged.iter().filter(|id| !bets.contains_key(*id)).collect();
        assert!(
            missing.is_empty(),
            "{player}: acknowledged and lost after {after_ms} ms: {missing:?}"
        );
        let (_, me) = server.http("GET", "/api/me", Some(token), None);
        let net: i64 = bets.values().map(|(stake, returned)| returned - stake).sum();
        assert_eq!(
            me["accounts"][format!("chips:t1:{player}").as_str()].as_i64(),
            Some(CHIPS + net),
            "{player}'s chips after {after_ms} ms: {me}"
        );
    }
    server.kill();
    let (passed, report) = croupier_testkit::verify(env!("CARGO_BIN_EXE_croupier"), data.path(), options);
    assert!(passed && report["ok"] == true, "{report}");
}

#[test]
fn serve_follows_an_automated_wheel() {
    let wheel = Emulator::start(60);
    let data = data_dir();
    let (server, dealer, p1) = at_the_wheel(&wheel, data.path(), 5_000);
    // The wheel's next finished game opens betting; bet then, and the wheel's following game settles it.
    let round = bet_on_the_wheel(&server, ("p1", &p1), "w1", "w", "red", 100);
    assert!(
        round["pocket"].is_string() || !round["no_spins"].as_array().expect("no spins").is_empty(),
        "{round}"
    );
    let bet = &round["bets"][0];
    assert_eq!(bet["bet_id"], "w");
    assert!(
        ["win", "lose"].contains(&bet["result"].as_str().unwrap_or("")),
        "{round}"
    );
    // The dealer console sees the automated wheel's state.
    let (status, now) = server.http("GET", "/api/tables/w1/bets", Some(&dealer), None);
    assert_eq!(status, 200, "{now}");
    assert_eq!(now["outcome"], "wheel");
    assert_eq!(now["wheel"]["address"], wheel.address.as_str());
    assert!(now["wheel"]["games"].as_u64().unwrap_or(0) >= 2, "{now}");
    assert!(now["wheel"]["last_result"].is_string(), "{now}");
    drop(server);
    drop(wheel);
}

// Colorado 2205(2), Maryland ch.5 B, european-casino 3.1, low-limit-house
// Rotation (2) and Placement (4): at an automated wheel's table betting
// closes when the wheel launches the ball, not when the table's (long)
// betting window ends nor when the number shows; a bet racing the ball is
// refused as past posting.
#[test]
fn an_automated_wheels_launch_closes_betting_and_refuses_the_bets_racing_it() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Instant;
    let wheel = Emulator::start(40);
    let data = data_dir();
    // A betting window of a minute: only the wheel can close betting in time.
    let (server, dealer, p1) = at_the_wheel(&wheel, data.path(), 500_000);
    // No one opens betting by hand at the wheel's table, where a ball may be rolling.
    let (status, refused) = server.http(
        "POST",
        "/api/requests",
        Some(&dealer),
        Some(&json!({"op": "open_betting", "table": "w1"})),
    );
    assert_eq!(
        (status, refused["error"].as_str()),
        (422, Some("not_dealer_table")),
        "{refused}"
    );
    let mut stream = server.subscribe("w1", Some(&dealer));

    // A player bets as fast as the server answers, racing the wheel's states.
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let bettor = {
        let (client, token, stop) = (server.client(), p1.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut answers: Vec<(u16, String)> = Vec::new();
            for n in 0.. {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let (status, answer) = client.http(
                    "POST",
                    "/api/requests",
                    Some(&token),
                    Some(&json!({"op": "place_bet", "table": "w1", "bet_id": format!("r{n}"), "spot": "red", "stake": 100})),
                );
                answers.push((status, answer["error"].as_str().unwrap_or("").to_string()));
                std::thread::sleep(Duration::from_millis(5));
            }
            answers
        })
    };

    // Each round: when betting closed and when it settled, as the stream told it.
    let mut closed_at: std::collections::BTreeMap<u64, Instant> = Default::default();
    let mut gaps = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while gaps.len() < 4 && Instant::now() < deadline {
        let frame = stream.next_frame();
        let round = frame["round"].as_u64().unwrap_or(0);
        match frame["type"].as_str().unwrap_or("") {
            "no_more_bets" => {
                closed_at.insert(round, Instant::now());
            }
            "round_settled" if frame["pocket"].is_string() => {
                if let Some(closed) = closed_at.get(&round) {
                    gaps.push(closed.elapsed());
                }
            }
            _ => {}
        }
    }
    stop.store(true, Ordering::Relaxed);
    let answers = bettor.join().expect("the bettor");
    assert_eq!(gaps.len(), 4, "four rounds settled on a number within a minute");
    // The emulator sends five frames of 40 ms between the launch and the
    // number: betting closed at the launch, well before the number.
    for gap in &gaps {
        assert!(
            *gap >= Duration::from_millis(120),
            "betting closed only {gap:?} before the result: {gaps:?}"
        );
    }
    let taken = answers.iter().filter(|(s, _)| *s == 200).count();
    let past_posted = answers.iter().filter(|(_, e)| e == "past_posting").count();
    assert!(
        taken > 0 && past_posted > 0,
        "taken {taken}, refused as past posting {past_posted}: {answers:?}"
    );
    assert!(
        answers
            .iter()
            .all(|(s, e)| *s == 200 || e == "past_posting" || e == "betting_not_open"),
        "{answers:?}"
    );
    drop(server);
    drop(wheel);
    // No bet was taken after its round's no more bets, in the order the
    // table wrote them (the streams show each requester's events as its
    // answer comes back, so two requesters' events may cross there).
    let mut closed = std::collections::BTreeSet::new();
    for (seq, record) in journal_records(data.path()) {
        let mut events = Vec::new();
        events_in(&record, &mut events);
        for e in events.into_iter().filter(|e| e["table"] == "w1") {
            let round = e["round"].as_u64().unwrap_or(0);
            match e["type"].as_str().unwrap_or("") {
                "no_more_bets" => {
                    closed.insert(round);
                }
                "bet_accepted" => assert!(
                    !closed.contains(&round),
                    "entry {seq}: a bet was taken after no more bets: {e}"
                ),
                _ => {}
            }
        }
    }
    assert!(!closed.is_empty(), "the journal holds the rounds");
}

/// The journal's records as (seq, JSON), read straight from its database.
fn journal_records(data: &Path) -> Vec<(i64, Value)> {
    let db = rusqlite::Connection::open(data.join(croupier_ledger::storage::DATABASE_FILE)).expect("the journal");
    let mut rows = db
        .prepare("SELECT seq, record FROM journal ORDER BY seq")
        .expect("select");
    rows.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))
        .expect("rows")
        .map(|r| r.expect("row"))
        .map(|(seq, text)| (seq, serde_json::from_str(&text).expect("a record is JSON")))
        .collect()
}

/// Every object with a "type" inside `value`, in order.
fn events_in<'a>(value: &'a Value, out: &mut Vec<&'a Value>) {
    match value {
        Value::Object(map) => {
            if map.contains_key("type") {
                out.push(value);
            }
            map.values().for_each(|v| events_in(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| events_in(v, out)),
        _ => {}
    }
}

#[test]
fn user_add_works_offline_and_not_beside_a_running_server() {
    let data = data_dir();
    let add = |name: &str, role: &str, password: &str| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_croupier"))
            .args([
                "user",
                "add",
                "--data",
                data.path().to_str().expect("path"),
                "--username",
                name,
                "--role",
                role,
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("runs");
        let _ = child
            .stdin
            .take()
            .expect("stdin")
            .write_all(format!("{password}\n").as_bytes());
        child.wait_with_output().expect("finishes")
    };
    assert!(add("floor", "pit_supervisor", "floor-password-1").status.success());
    assert_eq!(
        add("floor", "pit_supervisor", "floor-password-1").status.code(),
        Some(2),
        "a second user of that name"
    );
    assert_eq!(
        add("x", "croupier", "long-enough-pw").status.code(),
        Some(2),
        "an unknown role"
    );
    assert_eq!(add("y", "dealer", "short").status.code(), Some(2), "a short password");
    let mut server = start(data.path(), free_port());
    // No admin was added, so the first run makes one; the added user can log in.
    let line = server.wait_line("croupier: first run");
    assert!(line.contains("log in as admin"), "{line}");
    server.login("floor", "floor-password-1");
    let out = add("z", "dealer", "dealer-password-1");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("in use"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    server.kill();
}

#[test]
fn betting_closes_by_itself_when_the_window_ends() {
    let data = data_dir();
    let port = free_port();
    let mut server = start(data.path(), port);
    let admin = server.admin_token();
    let profile_text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../profiles/maryland.toml")).expect("profile");
    server.ask(
        &admin,
        json!({"op": "create_table", "table": "quick", "profile_text": profile_text, "wheel": "double-zero",
               "in_prison": false, "betting_window_ms": 400, "outcome": "dealer"}),
    );
    // Only staff with a licence on record inspect (Colorado 2212(5), Maryland ch.2 E(6)).
    server.add_users(&admin, &[("pit", "pit_supervisor")]);
    let pit = server.login("pit", "pit-password-1");
    server.inspect_and_open(&pit, &admin, "quick");
    let mut stream = server.subscribe("quick", None);
    server.ask(&admin, json!({"op": "open_betting", "table": "quick"}));
    assert_eq!(stream.next_frame()["type"], "betting_opened");
    // Colorado 2201(7): no more bets is called for the terminals when the window ends.
    let closed = stream.next_frame();
    assert_eq!(closed["type"], "no_more_bets", "{closed}");
    let (_, table) = server.http("GET", "/api/public/tables/quick", None, None);
    assert_eq!(table["phase"], "closed-betting");
    server.kill();
}

#[test]
fn a_terminal_bets_over_its_table_stream() {
    let data = data_dir();
    let mut server = start(data.path(), free_port());
    let admin = server.admin_token();
    server.add_users(&admin, &[("cashier", "cashier"), ("p1", "player")]);
    let (cashier, p1) = (
        server.login("cashier", "cashier-password-1"),
        server.login("p1", "p1-password-1"),
    );
    // Only staff with a licence on record inspect (Colorado 2212(5), Maryland ch.2 E(6)).
    server.add_users(&admin, &[("pit", "pit_supervisor")]);
    let pit = server.login("pit", "pit-password-1");
    server.inspect_and_open(&pit, &admin, "t2");
    server.seat(&cashier, ("p1", &p1), "t2", 10_000, 5_000);
    server.ask(&admin, json!({"op": "open_betting", "table": "t2"}));

    let mut socket = server.subscribe("t2", Some(&p1));
    socket.send(
        &json!({"ref": "a", "request": {"op": "place_bet", "table": "t2", "bet_id": "s1", "spot": "17", "stake": 300}})
            .to_string(),
    );
    let reply = socket.next_reply();
    assert_eq!(
        (reply["ref"].as_str(), reply["ok"].as_bool()),
        (Some("a"), Some(true)),
        "{reply}"
    );
    // Refusals come back with the rule's code and sentence.
    socket.send(&json!({"ref": "b", "request": {"op": "place_bet", "table": "t2", "bet_id": "s2", "spot": "17-35", "stake": 300}}).to_string());
    let reply = socket.next_reply();
    assert_eq!(
        (reply["ref"].as_str(), reply["ok"].as_bool()),
        (Some("b"), Some(false)),
        "{reply}"
    );
    assert!(reply["message"].as_str().unwrap_or("").contains("17-35"), "{reply}");
    // A player still cannot act as the cage: its requests are not a table's.
    socket.send(&json!({"ref": "c", "request": {"op": "cash_in", "id": "x", "player": "p1", "amount": 1}}).to_string());
    assert_eq!(socket.next_reply()["error"], "bad_request");
    // Not a request at all.
    socket.send("{\"ref\": \"d\", \"request\": {\"op\": \"fly\"}}");
    let reply = socket.next_reply();
    assert_eq!(
        (reply["ref"].as_str(), reply["error"].as_str()),
        (Some("d"), Some("bad_request")),
        "{reply}"
    );
    // A display board's socket (no session) may only listen.
    let mut board = server.subscribe("t2", None);
    board.send(
        &json!({"ref": "e", "request": {"op": "place_bet", "table": "t2", "bet_id": "s3", "spot": "17", "stake": 300}})
            .to_string(),
    );
    assert_eq!(board.next_reply()["error"], "unauthenticated");
    let (_, me) = server.http("GET", "/api/me", Some(&p1), None);
    assert_eq!(me["accounts"]["chips:t2:p1"], 4_700, "{me}");
    // A table's stream takes that table's requests only, answered at once otherwise:
    // another table's, or one that does not exist.
    for (reference, other) in [("n", "nowhere"), ("o", "t1")] {
        socket.send(
            &json!({"ref": reference, "request": {"op": "place_bet", "table": other, "bet_id": "s9", "spot": "17", "stake": 300}})
                .to_string(),
        );
        let reply = socket.next_reply();
        assert_eq!(
            (reply["ref"].as_str(), reply["error"].as_str()),
            (Some(reference), Some("bad_request")),
            "{reply}"
        );
    }
    // A bet whose socket closes before its answer stands, and its event
    // still reaches the table's other streams.
    let mut pit = server.subscribe("t2", Some(&admin));
    // The pit's stream follows the table once it answers a request (on a busy
    // machine the bet could otherwise be published before it subscribed).
    pit.send(&json!({"ref": "sync", "request": {"op": "cash_in", "id": "x", "player": "p1", "amount": 1}}).to_string());
    let synced = pit.next_reply();
    assert_eq!(synced["ref"].as_str(), Some("sync"), "{synced}");
    let mut brief = server.subscribe("t2", Some(&p1));
    brief.send(
        &json!({"ref": "g", "request": {"op": "place_bet", "table": "t2", "bet_id": "s5", "spot": "red", "stake": 500}})
            .to_string(),
    );
    drop(brief);
    loop {
        let frame = pit.next_frame();
        if frame["type"] == "bet_accepted" && frame["bet_id"] == "s5" {
            assert_eq!(
                (frame["player"].as_str(), frame["stake"].as_u64()),
                (Some("p1"), Some(500)),
                "{frame}"
            );
            break;
        }
    }
    let (_, me) = server.http("GET", "/api/me", Some(&p1), None);
    assert_eq!(me["accounts"]["chips:t2:p1"], 4_200, "{me}");
    // Signing out closes the socket: it takes no more requests (see attacks.rs).
    assert_eq!(server.http("POST", "/api/logout", Some(&p1), None).0, 200);
    let closed = socket.closed_within(std::time::Duration::from_secs(2));
    assert_eq!(closed, Ok((4001, "the session is over".to_string())));
    server.kill();
}

// Colorado 2203(1): match play coupons, issued at the cage, are played on the
// even money and 2 to 1 bets only. No page played one: a terminal could not
// tell which bets take a coupon, nor which of its player's coupons a bet may
// still play, without holding the profile's rules itself. The layout now says
// which kinds take one; the table's bets, read by a player, list the coupons
// they may play there now, as the table checks a bet's.
#[test]
fn a_player_reads_the_coupons_they_may_play_and_the_bets_that_take_them() {
    let data = data_dir();
    let mut server = start(data.path(), free_port());
    let [_admin, cashier, dealer, pit, p1, _p2] = server.staff_and_players();
    server.inspect_and_open(&pit, &dealer, "t2");
    server.seat(&cashier, ("p1", &p1), "t2", 10_000, 5_000);
    let (_, layout) = server.http("GET", "/api/public/tables/t2/layout", None, None);
    let mut taking: Vec<&str> = layout["kinds"]
        .as_array()
        .expect("kinds")
        .iter()
        .filter(|k| k["match_play"] == true)
        .filter_map(|k| k["kind"].as_str())
        .collect();
    taking.sort_unstable();
    assert_eq!(
        taking,
        ["black", "column", "dozen", "even", "high", "low", "odd", "red"],
        "{layout}"
    );
    let now_ms = u64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("after 1970")
            .as_millis(),
    )
    .expect("ms");
    let issue = |id: &str, player: &str, table: &str, end: Option<u64>| {
        let mut coupon = json!({"op": "issue_coupon", "id": id, "player": player, "table": table, "value": 500});
        if let Some(end) = end {
            coupon["expires_at_ms"] = json!(end);
        }
        server.ask(&cashier, coupon);
    };
    issue("k1", "p1", "t2", None);
    issue("k2", "p1", "t2", Some(now_ms + 2_000));
    issue("k3", "p1", "t1", None);
    issue("k4", "p2", "t2", None);
    let playable = |token: &str| -> Vec<String> {
        let (status, bets) = server.http("GET", "/api/tables/t2/bets", Some(token), None);
        assert_eq!(status, 200, "{bets}");
        let mut ids: Vec<String> = bets["coupons"]
            .as_array()
            .map(|c| c.iter().filter_map(|c| c["id"].as_str().map(str::to_string)).collect())
            .unwrap_or_default();
        ids.sort_unstable();
        ids
    };
    // Another table's coupon and another player's are not p1's to play here.
    assert_eq!(playable(&p1), ["k1", "k2"]);
    assert!(playable(&pit).is_empty(), "staff play no coupon");
    server.ask(&dealer, json!({"op": "open_betting", "table": "t2"}));
    let bet = json!({"op": "place_bet", "table": "t2", "bet_id": "b1", "spot": "red", "stake": 500, "coupon_id": "k1"});
    server.ask(&p1, bet);
    assert_eq!(playable(&p1), ["k2"], "a coupon on a bet is played");
    // Past its end a coupon is no longer valid (Colorado 2203(1)).
    std::thread::sleep(std::time::Duration::from_millis(2_500));
    assert!(playable(&p1).is_empty(), "k2 is past its end");
    // A bet taken back hands its coupon back, to play again.
    server.ask(&p1, json!({"op": "cancel_bet", "table": "t2", "bet_id": "b1"}));
    assert_eq!(playable(&p1), ["k1"]);
    server.kill();
}

/// Every endpoint that needs a session refuses a caller without one (or with
/// an unknown one) as `unauthenticated`, and every role it is not for as
/// `forbidden`, while the roles it is for get through; the server's own
/// requests are no client's to send, an admin's included. The casino's own role
/// check of each request is `every_request_refuses_every_role_but_its_own`.
#[test]
fn serve_refuses_every_role_what_its_endpoint_is_not_for() {
    let data = data_dir();
    let server = start(data.path(), free_port());
    let admin = server.admin_token();
    server.add_staff_and_players(&admin);
    server.add_users(&admin, &[("audit", "auditor"), ("guard", "security")]);
    let people: Vec<(&str, String)> = [
        ("admin", admin.clone()),
        ("pit_supervisor", server.login("pit", "pit-password-1")),
        ("dealer", server.login("dealer", "dealer-password-1")),
        ("cashier", server.login("cashier", "cashier-password-1")),
        ("auditor", server.login("audit", "audit-password-1")),
        ("player", server.login("p1", "p1-password-1")),
        ("security", server.login("guard", "guard-password-1")),
    ]
    .into();
    const EVERYONE: &[&str] = &[
        "admin",
        "pit_supervisor",
        "dealer",
        "cashier",
        "auditor",
        "player",
        "security",
    ];
    const STAFF: &[&str] = &["admin", "pit_supervisor", "dealer"];
    // The security member inspects and witnesses adjustments: they read the log too.
    const READERS: &[&str] = &["admin", "pit_supervisor", "dealer", "auditor", "security"];
    // (method, path, body, the roles it is for)
    let endpoints: Vec<(&str, &str, Option<Value>, &[&str])> = vec![
        ("GET", "/api/me", None, EVERYONE),
        ("GET", "/api/tables", None, EVERYONE),
        ("GET", "/api/tables/t1/rounds", None, EVERYONE),
        ("GET", "/api/tables/t1/bets", None, EVERYONE),
        ("GET", "/api/rounds/t1/1", None, EVERYONE),
        // A player reads only their own rounds (the player here is p1).
        ("GET", "/api/players/p1/rounds", None, EVERYONE),
        (
            "GET",
            "/api/players/p2/rounds",
            None,
            &["admin", "pit_supervisor", "dealer", "cashier", "auditor", "security"],
        ),
        // Colorado 2212(5), Maryland ch.2 E: the inspection log is the staff's and the auditor's.
        ("GET", "/api/tables/t1/log", None, READERS),
        ("GET", "/api/tables/t1/report", None, READERS),
        ("GET", "/metrics", None, &["admin", "auditor"]),
        ("GET", "/api/users", None, &["admin", "auditor"]),
        // The cage looks a player up before cash moves; a player sees their own only.
        (
            "GET",
            "/api/players/p2/accounts",
            None,
            &["admin", "pit_supervisor", "cashier", "auditor"],
        ),
        ("POST", "/api/tables/t1/draw", None, STAFF),
        (
            "POST",
            "/api/requests",
            Some(json!({"op": "open_table", "table": "t1"})),
            STAFF,
        ),
        (
            "POST",
            "/api/requests",
            Some(json!({"op": "cash_in", "id": "c", "player": "p2", "amount": 100})),
            // An admin makes the cash-ins larger than a cashier's day allows.
            &["cashier", "admin"],
        ),
        // Colorado 2202, 2203(1): the dealer sells chips for cash into the drop box.
        (
            "POST",
            "/api/requests",
            Some(
                json!({"op": "sell_chips", "id": "s", "table": "t1", "player": "p2", "amount": 100, "chip_value": 100}),
            ),
            STAFF,
        ),
        (
            "POST",
            "/api/requests",
            Some(json!({"op": "buy_in", "id": "b", "table": "t1", "amount": 100, "chip_value": 100})),
            &["player"],
        ),
        (
            "POST",
            "/api/requests",
            Some(json!({"op": "create_user", "username": "eve", "role": "player", "password": "eve-password-1"})),
            &["admin"],
        ),
        // Colorado 2212(2), Maryland ch.2 B: the security member named confirms an
        // adjustment (none awaits here: refused as no adjustment, not as forbidden).
        (
            "POST",
            "/api/requests",
            Some(json!({"op": "witness_adjustment", "table": "t1", "adjustment": 1})),
            &["security"],
        ),
        // Accounts are the admin's to lock, unlock and reset (no one has this name).
        (
            "POST",
            "/api/requests",
            Some(json!({"op": "lock_user", "username": "nobody-here"})),
            &["admin"],
        ),
        (
            "POST",
            "/api/requests",
            Some(json!({"op": "unlock_user", "username": "nobody-here"})),
            &["admin"],
        ),
        (
            "POST",
            "/api/requests",
            Some(json!({"op": "reset_password", "username": "nobody-here", "password": "a-new-password-1"})),
            &["admin"],
        ),
    ];
    for (method, path, body, allowed) in &endpoints {
        for token in [None, Some("not-a-session")] {
            let (status, answer) = server.http(method, path, token, body.as_ref());
            assert_eq!(
                (status, answer["error"].as_str()),
                (401, Some("unauthenticated")),
                "{method} {path} {body:?} without a session: {answer}"
            );
        }
        for (role, token) in &people {
            let (status, answer) = server.http(method, path, Some(token), body.as_ref());
            if allowed.contains(role) {
                assert!(
                    status != 401 && status != 403,
                    "{method} {path} {body:?} refused to a {role}: {status} {answer}"
                );
            } else {
                assert_eq!(
                    (status, answer["error"].as_str()),
                    (403, Some("forbidden")),
                    "{method} {path} {body:?} as a {role}: {answer}"
                );
            }
        }
    }
    // Only the server itself sends these: no client's request can say them, an admin's included.
    for server_only in [
        json!({"op": "journal_format", "format": 2}),
        json!({"op": "login_failed", "username": "p2"}),
        json!({"op": "login_succeeded", "username": "p2"}),
        json!({"op": "void_round", "table": "t1", "reason": "x"}),
    ] {
        for (role, token) in &people {
            let (status, answer) = server.http("POST", "/api/requests", Some(token), Some(&server_only));
            assert_eq!(
                (status, answer["error"].as_str()),
                (400, Some("bad_request")),
                "{server_only} as a {role}: {answer}"
            );
        }
    }
    // The pages and the public views need no session: a number display board has none.
    for path in [
        "/",
        "/board",
        "/terminal",
        "/dealer",
        "/pit",
        "/healthz",
        "/api/openapi.json",
        "/api/public/tables",
        "/api/public/tables/t1",
        "/api/public/tables/t1/layout",
    ] {
        assert_eq!(server.http("GET", path, None, None).0, 200, "{path}");
    }
    // A table stream refuses an unknown session before it opens.
    let status = Socket::handshake_status(server.address(), "t1", Some("not-a-session"));
    assert_eq!(status, 401);
    // A bet sent on a staff member's stream is refused as it is over HTTP: no one bets for another.
    for (role, token) in people.iter().filter(|(role, _)| *role != "player") {
        let mut socket = server.subscribe("t1", Some(token));
        socket.send(
            &json!({"ref": "r", "request": {"op": "place_bet", "table": "t1", "bet_id": "x", "spot": "17", "stake": 100}})
                .to_string(),
        );
        assert_eq!(
            socket.next_reply()["error"],
            "forbidden",
            "a {role}'s bet on its stream"
        );
    }
    drop(server);
}

/// Game recall finds any round by its id, and a player's last rounds however
/// long ago they played: each table keeps its newest rounds in memory and the
/// recall archive every round before. An archive lost while the server was
/// down is written again from the journal, and `verify` checks it against the
/// journal: a changed record is found.
#[test]
fn recall_reaches_every_round_past_those_a_table_keeps() {
    let data = data_dir();
    let port = free_port();
    let mut server = start(data.path(), port);
    let admin = server.admin_token();
    server.add_staff_and_players(&admin);
    let [cashier, dealer, pit, p1, p2] =
        ["cashier", "dealer", "pit", "p1", "p2"].map(|u| server.login(u, &format!("{u}-password-1")));
    server.inspect_and_open(&pit, &dealer, "t1");
    server.seat(&cashier, ("p1", &p1), "t1", 100_000, 100_000);
    server.seat(&cashier, ("p2", &p2), "t1", 100_000, 100_000);
    // More rounds than the table keeps; p2 plays only the first three.
    let rounds = croupier_server::casino::RECALL_ROUNDS_MAX as u64 + 5;
    for round in 1..=rounds {
        server.ask(&dealer, json!({"op": "open_betting", "table": "t1"}));
        server.ask(
            &p1,
            json!({"op": "place_bet", "table": "t1", "bet_id": format!("a{round}"), "spot": "red", "stake": 500}),
        );
        if round <= 3 {
            server.ask(
                &p2,
                json!({"op": "place_bet", "table": "t1", "bet_id": format!("b{round}"), "spot": "black", "stake": 500}),
            );
        }
        server.ask(&dealer, json!({"op": "no_more_bets", "table": "t1"}));
        let (status, body) = server.http("POST", "/api/tables/t1/draw", Some(&dealer), None);
        assert_eq!(status, 200, "{body}");
    }
    let ids = |body: &Value| -> Vec<String> {
        body["rounds"]
            .as_array()
            .expect("rounds")
            .iter()
            .map(|r| r["id"].as_str().expect("id").to_string())
            .collect()
    };
    let check = |server: &Server| {
        // The first round left the table's memory long ago.
        let (status, first) = server.http("GET", "/api/rounds/t1/1", Some(&pit), None);
        assert_eq!(status, 200, "{first}");
        assert_eq!(first["bets"].as_array().expect("bets").len(), 2, "{first}");
        assert_eq!(first["settled"], true);
        assert!(
            first["pocket"].is_string() && first["chips_before"]["p2"] == 100_000,
            "{first}"
        );
        // A player sees only their own bets in it.
        let (_, mine) = server.http("GET", "/api/rounds/t1/1", Some(&p1), None);
        assert_eq!(mine["bets"].as_array().expect("bets").len(), 1, "{mine}");
        assert_eq!(mine["bets"][0]["player"], "p1");
        assert!(mine["chips_before"].get("p2").is_none(), "{mine}");
        // p2's last rounds, all from the archive, newest first.
        let (status, body) = server.http("GET", "/api/players/p2/rounds?last=10", Some(&p2), None);
        assert_eq!(status, 200, "{body}");
        assert_eq!(ids(&body), ["t1/3", "t1/2", "t1/1"]);
        // p1's last hundred: the table's memory and the archive together, each round once.
        let (_, body) = server.http("GET", "/api/players/p1/rounds?last=100", Some(&p1), None);
        let expected: Vec<String> = (rounds - 99..=rounds).rev().map(|n| format!("t1/{n}")).collect();
        assert_eq!(ids(&body), expected);
        assert_eq!(server.http("GET", "/api/rounds/t1/999", Some(&pit), None).0, 404);
    };
    check(&server);

    // The archive is lost while the server is down: the next start writes it again.
    server.kill();
    for file in ["recall.db", "recall.db-wal", "recall.db-shm"] {
        let _ = std::fs::remove_file(data.path().join(file));
    }
    // A fresh port: the old one may have gone to a parallel test meanwhile.
    let mut server = start(data.path(), free_port());
    for _ in 0..400 {
        if server.http("GET", "/api/players/p2/rounds?last=10", Some(&p2), None).1["rounds"]
            .as_array()
            .is_some_and(|r| r.len() == 3)
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    check(&server);
    server.kill();

    let (passed, report) = verify(data.path());
    assert!(passed, "{report}");
    // Every round is final once the next opens: all but the last.
    assert_eq!(report["recall"]["rounds_matching"], rounds - 1, "{report}");
    assert_eq!(report["recall"]["rounds_not_archived"], 0);

    // One archived record changed: verify names the round.
    let db = rusqlite::Connection::open(data.path().join("recall.db")).expect("archive");
    let changed = db
        .execute(
            "UPDATE recall_rounds SET record = replace(record, '\"stake\":500', '\"stake\":5000') WHERE round = 2",
            [],
        )
        .expect("update");
    assert_eq!(changed, 1);
    drop(db);
    let (passed, report) = verify(data.path());
    assert!(!passed);
    assert_eq!(report["ok"], false);
    let problem = report["problem"].as_str().expect("problem");
    assert!(problem.contains("recall archive: round t1/2 differs"), "{problem}");
}

/// The nice value and scheduling policy of each of a process's threads, by name.
fn thread_priorities(pid: u32) -> Vec<(String, i64, u64)> {
    let mut threads = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).expect("tasks") {
        let Ok(stat) = std::fs::read_to_string(task.expect("task").path().join("stat")) else {
            continue;
        };
        let name = stat[stat.find('(').expect("name") + 1..stat.rfind(')').expect("name")].to_string();
        let fields: Vec<&str> = stat[stat.rfind(')').expect("name") + 2..].split(' ').collect();
        // After the name: field 19 of stat (nice) is the 17th, field 41 (policy) the 39th.
        threads.push((
            name,
            fields[16].parse().expect("nice"),
            fields[38].parse().expect("policy"),
        ));
    }
    threads
}

/// Copying the journal's log into the database, and archiving finished rounds,
/// answer no one: their threads run at the lowest priority of an ordinary
/// thread (`SCHED_BATCH`, nice 19), so the bets come first on the cores.
#[test]
fn the_servers_background_threads_yield_to_the_bets() {
    const SCHED_BATCH: u64 = 3;
    let data = data_dir();
    let mut server = start(data.path(), free_port());
    let mut seen = Vec::new();
    for _ in 0..200 {
        seen = thread_priorities(server.pid());
        let low = |name: &str| {
            seen.iter()
                .any(|(n, nice, policy)| n == name && *nice == 19 && *policy == SCHED_BATCH)
        };
        // A thread shows its name only once it has started: until then it
        // bears the process's, so every thread named here is waited for.
        let named = |name: &str| seen.iter().any(|(n, _, _)| n == name);
        if low("checkpoint") && low("archive") && named("cage") && named("commit") {
            break;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    server.kill();
    let priority = |name: &str| {
        seen.iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, nice, policy)| (*nice, *policy))
    };
    for name in ["checkpoint", "archive"] {
        assert_eq!(priority(name), Some((19, SCHED_BATCH)), "{name}: {seen:?}");
    }
    // The threads that answer run at the ordinary priority.
    for name in ["cage", "commit"] {
        assert_eq!(priority(name).map(|(nice, _)| nice), Some(0), "{name}: {seen:?}");
    }
}

/// A gauge of the server's `/metrics`, by name, as `admin` reads it.
fn gauge(server: &Server, admin: &str, name: &str) -> i64 {
    let (_, text) = server.http("GET", "/metrics", Some(admin), None);
    let text = text.as_str().expect("metrics are text").to_string();
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{name} ")))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {name} in {text}"))
}

/// The server's resident memory, in KiB.
fn resident_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("the server's status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

/// A stranger cannot hold the server's memory or connections. A stream asked
/// for a table that does not exist is refused before anything is made for it
/// (2,000 such asks once took the server from 37 to 553 MiB); a channel goes
/// with its last socket; a client holds at most its share of connections,
/// sockets included; and a request whose headers never finish is closed.
#[test]
fn a_stranger_cannot_hold_the_servers_memory_or_connections() {
    let data = data_dir();
    let server = Server::start_with(
        env!("CARGO_BIN_EXE_croupier"),
        data.path(),
        free_port(),
        &["--connections-per-client", "24", "--header-read-timeout-ms", "1500"],
    );
    let admin = server.admin_token();
    server.add_users(&admin, &[("p1", "player"), ("p2", "player")]);
    let players = [server.login("p1", "p1-password-1"), server.login("p2", "p2-password-1")];
    let before = resident_kib(server.pid());
    for i in 0..2_000 {
        let status = Socket::handshake_status(server.address(), &format!("made-up-{i}"), None);
        assert_eq!(status, 404, "made-up-{i}");
    }
    assert_eq!(gauge(&server, &admin, "croupier_stream_channels"), 0);
    let grown = resident_kib(server.pid()).saturating_sub(before);
    assert!(grown < 32 * 1024, "2,000 refused streams took {grown} KiB");
    // Sockets come and go: their channels go with the last of them.
    let sockets: Vec<Socket> = (0..10)
        .map(|i| server.subscribe("t1", if i % 3 == 2 { None } else { Some(&players[i % 2]) }))
        .collect();
    assert_eq!(
        gauge(&server, &admin, "croupier_stream_channels"),
        3,
        "public:t1 and each player's"
    );
    drop(sockets);
    let freed = (0..100).any(|_| {
        std::thread::sleep(Duration::from_millis(50));
        gauge(&server, &admin, "croupier_stream_channels") == 0
    });
    assert!(freed, "the channels outlived their sockets");
    // A client holds at most its share (24 here, this test's own HTTP client
    // included): connections kept alive past it are closed at once, unanswered.
    let ask = |conn: &std::net::TcpStream| -> bool {
        conn.set_read_timeout(Some(Duration::from_secs(5))).expect("timeout");
        if (&*conn).write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").is_err() {
            return false;
        }
        let mut head = [0u8; 12];
        std::io::Read::read_exact(&mut &*conn, &mut head).is_ok() && head.starts_with(b"HTTP/1.1 200")
    };
    let mut held = Vec::new();
    while held.len() < 40 {
        let conn = std::net::TcpStream::connect(server.address()).expect("connects");
        if !ask(&conn) {
            break;
        }
        held.push(conn);
    }
    assert!((20..24).contains(&held.len()), "{} connections held", held.len());
    drop(held);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        server.http("GET", "/healthz", None, None).0,
        200,
        "places given back are taken again"
    );
    // Headers that never finish: the connection is closed after the header timeout.
    let slow = std::net::TcpStream::connect(server.address()).expect("connects");
    (&slow)
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        .expect("half a request");
    slow.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    let began = std::time::Instant::now();
    let mut rest = Vec::new();
    let _ = std::io::Read::read_to_end(&mut &slow, &mut rest);
    let waited = began.elapsed();
    assert!(
        waited >= Duration::from_millis(1_000) && waited < Duration::from_secs(8),
        "closed after {waited:?}"
    );
}

/// A body sent a byte at a time is cut off once the time a whole body is
/// given has passed, not held open as long as each byte comes within it
/// (an attack review held one open for 174 s); a body too large is refused.
#[test]
fn a_body_trickled_a_byte_at_a_time_is_cut_off() {
    use std::io::Read;
    let data = data_dir();
    let server = Server::start(env!("CARGO_BIN_EXE_croupier"), data.path(), free_port());
    let body = br#"{"op":"cash_in","id":"slow-1","player":"p1","amount":100}"#;
    let mut slow = std::net::TcpStream::connect(server.address()).expect("connects");
    write!(
        slow,
        "POST /api/requests HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .expect("headers");
    slow.set_read_timeout(Some(Duration::from_millis(50))).expect("timeout");
    let began = std::time::Instant::now();
    let mut answer = Vec::new();
    for byte in body.iter() {
        // A byte every 2 s: each within any per-frame timeout.
        if slow.write_all(&[*byte]).is_err() {
            break;
        }
        std::thread::sleep(Duration::from_secs(2));
        let mut chunk = [0u8; 4096];
        match slow.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                answer.extend_from_slice(&chunk[..n]);
                break;
            }
            Err(_) => {}
        }
        assert!(
            began.elapsed() < Duration::from_secs(20),
            "still reading after {:?}",
            began.elapsed()
        );
    }
    let waited = began.elapsed();
    let answer = String::from_utf8_lossy(&answer);
    assert!(waited < Duration::from_secs(16), "cut off after {waited:?}");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("body_too_slow"), "{answer}");
    // A body over the limit, sent at once, is refused as too large.
    let big = format!(r#"{{"op":"cash_in","id":"{}"}}"#, "x".repeat(70_000));
    let (status, refusal) = server.http(
        "POST",
        "/api/requests",
        Some(&server.admin_token()),
        Some(&serde_json::from_str(&big).expect("json")),
    );
    assert_eq!(
        (status, refusal["error"].as_str()),
        (413, Some("too_large")),
        "{refusal}"
    );
}

/// The metrics tell how busy the casino is and who failed to sign in: on
/// the public address only an admin or an auditor reads them; a scraper
/// reads them with no session on an address of their own.
#[test]
fn the_metrics_are_the_staffs_or_on_an_address_of_their_own() {
    let data = data_dir();
    let metrics_port = free_port();
    let metrics_at = format!("127.0.0.1:{metrics_port}");
    let server = Server::start_with(
        env!("CARGO_BIN_EXE_croupier"),
        data.path(),
        free_port(),
        &["--metrics-listen", &metrics_at],
    );
    let admin = server.admin_token();
    assert_eq!(server.http("GET", "/metrics", None, None).0, 401);
    assert_eq!(server.http("GET", "/metrics", Some(&admin), None).0, 200);
    let scraper = croupier_testkit::Client::new(&metrics_at);
    let (status, text) = scraper.http("GET", "/metrics", None, None);
    assert_eq!(status, 200);
    assert!(
        text.as_str().expect("text").contains("croupier_requests_total"),
        "{text}"
    );
    // Nothing else is served there.
    assert_eq!(scraper.http("GET", "/api/me", Some(&admin), None).0, 404);
}

// A first run that cannot listen makes nothing: the next one makes the
// admin and prints its one-time password (once, it was made unprinted).
#[test]
fn a_first_run_that_cannot_listen_makes_no_admin() {
    let data = data_dir();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let address = taken.local_addr().expect("address").to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_croupier"))
        .args([
            "serve",
            "--data",
            data.path().to_str().expect("path"),
            "--listen",
            &address,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("runs");
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cannot listen"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    drop(taken);
    let server = start(data.path(), free_port());
    // The one-time password is printed, and signs the admin in.
    server.admin_token();
}

/// A table's game recall from its memory and the archive together: from
/// journal format 13 a table of large rounds keeps only its newest while
/// they hold so many bets (`RECALL_BETS_KEPT`), and a table's last rounds
/// come from both, each round once, newest first, a player seeing their own bets.
#[test]
fn a_tables_recall_goes_on_in_the_archive_past_the_rounds_it_keeps() {
    let data = data_dir();
    let mut server = start(data.path(), free_port());
    let admin = server.admin_token();
    server.add_staff_and_players(&admin);
    let [cashier, dealer, pit, p1, p2] =
        ["cashier", "dealer", "pit", "p1", "p2"].map(|u| server.login(u, &format!("{u}-password-1")));
    server.create_european_table(&admin, "e1");
    server.inspect_and_open(&pit, &dealer, "e1");
    server.seat(&cashier, ("p1", &p1), "e1", 500_000, 500_000);
    server.seat(&cashier, ("p2", &p2), "e1", 500_000, 500_000);
    // Each round 1,000 bets: the most each player places, in verbal series of 20.
    let per_player = 500;
    let rounds = (croupier_server::casino::RECALL_BETS_KEPT / (2 * per_player) + 2) as u64;
    for round in 1..=rounds {
        server.ask(&dealer, json!({"op": "open_betting", "table": "e1"}));
        for player in ["p1", "p2"] {
            for first in (0..per_player).step_by(20) {
                let bets: Vec<Value> = (first..first + 20)
                    .map(|n| json!({"bet_id": format!("{player}r{round}b{n}"), "spot": (n % 37).to_string(), "stake": 100}))
                    .collect();
                server.ask(
                    &dealer,
                    json!({"op": "verbal_bets", "table": "e1", "player": player, "bets": bets}),
                );
            }
        }
        server.ask(&dealer, json!({"op": "no_more_bets", "table": "e1"}));
        server.ask(
            &dealer,
            json!({"op": "spin", "table": "e1", "spin": {"pocket": (round % 37).to_string(), "direction": "opposite", "revolutions": 6}}),
        );
    }
    let recall = |token: &str| -> Vec<Value> {
        let (status, body) = server.http(
            "GET",
            &format!("/api/tables/e1/rounds?last={rounds}"),
            Some(token),
            None,
        );
        assert_eq!(status, 200, "{body}");
        body["rounds"].as_array().expect("rounds").clone()
    };
    // The oldest round leaves the table's memory; the archive has it once the next opened.
    let mut seen = Vec::new();
    for _ in 0..400 {
        seen = recall(&pit);
        if seen.len() as u64 == rounds {
            break;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    let numbers: Vec<u64> = seen.iter().map(|r| r["round"].as_u64().expect("round")).collect();
    assert_eq!(numbers, (1..=rounds).rev().collect::<Vec<_>>());
    assert!(seen
        .iter()
        .all(|r| r["bets"].as_array().map(Vec::len) == Some(2 * per_player)));
    // A player sees only their own bets, in memory and in the archive alike.
    let mine = recall(&p2);
    assert_eq!(mine.len() as u64, rounds);
    for round in &mine {
        let bets = round["bets"].as_array().expect("bets");
        assert_eq!(bets.len(), per_player, "{}", round["id"]);
        assert!(bets.iter().all(|b| b["player"] == "p2"), "{}", round["id"]);
    }
    // A dispute of the round the table let go is refused, naming the rounds it keeps
    // (european-casino: the casino manager decides disputes).
    server.add_users(&admin, &[("manager", "casino_manager")]);
    let manager = server.login("manager", "manager-password-1");
    let (status, body) = server.http(
        "POST",
        "/api/requests",
        Some(&manager),
        Some(
            &json!({"op": "dispute", "table": "e1", "id": "line-1", "reason": "chip on the line", "round": 1,
                     "corrections": [{"player": "p1", "amount": -100}]}),
        ),
    );
    assert_eq!((status, body["error"].as_str()), (404, Some("no_round")), "{body}");
    assert!(
        body["message"].as_str().is_some_and(|m| m.contains("rounds 2 to")),
        "{body}"
    );
    server.kill();
}
