//! A two-event tournament through the real server (Colorado 2213-2214,
//! 2213.01-.08): fees and buy-ins in cash, non-cash and complimentary
//! form, a voucher won in the first event and used in the second, a
//! re-buy, an elimination, refusals each naming its clause, a split, the
//! forms, and `croupier verify` reconciling every cent after a `kill -9`;
//! and an event played at a table in points (2213.07, 2214).

use std::path::Path;

use croupier_testkit::{data_dir, free_port, Server};
use serde_json::{json, Value};

const EXAMPLE: &str = include_str!("../../../profiles/tournaments/winter-classic.toml");
const COLORADO: &str = include_str!("../../../profiles/colorado-2014.toml");

fn start(data: &Path, port: u16) -> Server {
    Server::start(env!("CARGO_BIN_EXE_croupier"), data, port)
}

fn verify(data: &Path) -> (bool, Value) {
    croupier_testkit::verify(env!("CARGO_BIN_EXE_croupier"), data, &[])
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// The example, played from today: both events today, the rules filed six days ago.
fn config_from_today() -> (String, String) {
    let today = croupier_server::casino::tournaments::day_of(now_ms());
    let later = today + time::Duration::days(60);
    let filed = today - time::Duration::days(6);
    let text = EXAMPLE
        .replace("first_day = \"2026-12-12\"", &format!("first_day = \"{today}\""))
        .replace("last_day = \"2027-02-13\"", &format!("last_day = \"{later}\""))
        .replace("day = \"2026-12-12\"", &format!("day = \"{today}\""))
        .replace("day = \"2027-01-16\"", &format!("day = \"{today}\""));
    (text, filed.to_string())
}

/// A request that must be refused with `code`, its message citing `clause`.
fn refused(server: &Server, token: &str, request: Value, code: &str, clause: &str) {
    let (status, body) = server.http("POST", "/api/requests", Some(token), Some(&request));
    assert!(status >= 400, "{request}: {body}");
    assert_eq!(body["error"], code, "{request}: {body}");
    assert!(
        body["message"].as_str().unwrap_or("").contains(clause),
        "{request}: {body} does not cite {clause}"
    );
}

/// An order to the winter classic; a registration or a re-buy sent without
/// an id gets one of its own (journal format 14 requires it), one a call.
fn order(mut order: Value) -> Value {
    static IDS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let charges = matches!(order["do"].as_str(), Some("register" | "rebuy"));
    if charges && order.get("id").is_none() {
        let n = IDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        order["id"] = json!(format!("order-{n}"));
    }
    json!({"op": "tournament", "tournament": "winter-classic", "order": order})
}

fn wallet(server: &Server, cashier: &str, player: &str) -> i64 {
    let (status, body) = server.http("GET", &format!("/api/players/{player}/accounts"), Some(cashier), None);
    assert_eq!(status, 200, "{body}");
    body["accounts"][format!("wallet:{player}")].as_i64().unwrap_or(0)
}

#[test]
fn a_two_event_tournament_runs_through_the_server_and_reconciles_after_a_kill() {
    let data = data_dir();
    let port = free_port();
    let mut server = start(data.path(), port);
    let [admin, cashier, _dealer, pit, p1, _p2] = server.staff_and_players();
    server.add_users(&admin, &[("p3", "player"), ("p4", "player")]);
    // p3 and p4 sign in; the director acts for them until the split.
    server.login("p3", "p3-password-1");
    let (config, filed) = config_from_today();

    // Only an admin configures; the profile's rules refuse a bad file by clause.
    refused(
        &server,
        &pit,
        json!({"op": "create_tournament", "config": config}),
        "forbidden",
        "configure tournaments",
    );
    let too_long = config.replace("last_day = \"", "last_day = \"2099-01-01\"\n#");
    refused(
        &server,
        &admin,
        json!({"op": "create_tournament", "config": too_long}),
        "bad_tournament",
        "2213(1)",
    );
    server.ask(&admin, json!({"op": "create_tournament", "config": config}));
    // Nobody signed in reads or orders anything but the public rules.
    let (status, _) = server.http("POST", "/api/requests", None, Some(&order(json!({"do": "conclude"}))));
    assert_eq!(status, 401);
    let (status, _) = server.http("GET", "/api/tournaments/winter-classic", None, None);
    assert_eq!(status, 401);
    refused(
        &server,
        &admin,
        json!({"op": "create_tournament", "config": config}),
        "exists",
        "winter-classic",
    );

    for p in ["p1", "p2", "p3", "p4"] {
        server.ask(
            &cashier,
            json!({"op": "cash_in", "id": format!("cash-{p}"), "player": p, "amount": 100_000}),
        );
    }
    let register = |player: &str, event: &str, fee: Value, buy_in: Value| {
        order(
            json!({"do": "register", "player": player, "event": event, "fee": fee, "buy_in": buy_in, "qualified": true}),
        )
    };
    // A player does not register themself: the director does (and checks 2213.04).
    refused(
        &server,
        &p1,
        register("p1", "Qualifier", json!("cash"), json!("cash")),
        "forbidden",
        "direct",
    );
    refused(
        &server,
        &pit,
        order(json!({"do": "register", "player": "p1", "event": "Qualifier", "fee": "cash", "buy_in": "cash"})),
        "tournament_refused",
        "2213.04",
    );
    // A registration charges the player: from journal format 14 it carries an id, so a
    // resend after a lost answer charges nothing twice.
    let mut without_id = register("p1", "Qualifier", json!("cash"), json!("cash"));
    without_id["order"].as_object_mut().expect("an order").remove("id");
    refused(&server, &pit, without_id, "bad_request", "carry an id");
    let first = register("p1", "Qualifier", json!("cash"), json!("cash"));
    server.ask(&pit, first.clone());
    let charged = wallet(&server, &cashier, "p1");
    for _ in 0..3 {
        let again = server.ask(&pit, first.clone());
        assert_eq!(again["events"], json!([]), "{again}");
    }
    assert_eq!(wallet(&server, &cashier, "p1"), charged, "a resend charges nothing");
    // The house's money (a complimentary entry, an item taken at its value)
    // takes an admin: no director alone pays a player with it.
    refused(
        &server,
        &pit,
        register("p3", "Qualifier", json!("complimentary"), json!("cash")),
        "forbidden",
        "paid by the house",
    );
    server.ask(
        &admin,
        register(
            "p2",
            "Qualifier",
            json!({"non_cash": "a case of canned goods"}),
            json!("cash"),
        ),
    );
    server.ask(
        &admin,
        register(
            "p3",
            "Qualifier",
            json!("complimentary"),
            json!({"non_cash": "a food card"}),
        ),
    );
    server.ask(
        &admin,
        register("p4", "Qualifier", json!("cash"), json!("complimentary")),
    );
    // An entry withdrawn before the start is refunded in full, and may enter again.
    server.ask(&pit, order(json!({"do": "withdraw", "entry": 4})));
    refused(
        &server,
        &pit,
        order(json!({"do": "withdraw", "entry": 4})),
        "tournament_refused",
        "withdrawn",
    );
    let (_, seen) = server.http("GET", "/api/tournaments/winter-classic", Some(&pit), None);
    assert_eq!(seen["entries"][3]["status"], "withdrawn", "{seen}");
    server.ask(
        &admin,
        register("p4", "Qualifier", json!("cash"), json!("complimentary")),
    );
    refused(
        &server,
        &pit,
        register("p1", "Qualifier", json!("cash"), json!("cash")),
        "tournament_refused",
        "2213(2)(c)",
    );
    // Cash is taken at the tournament's desk: no one spends a player's wallet for them.
    assert_eq!(wallet(&server, &cashier, "p1"), 100_000);

    // No start before the rules reach the Division (2213.06).
    refused(
        &server,
        &pit,
        order(json!({"do": "start", "event": "Qualifier"})),
        "tournament_refused",
        "2213.06",
    );
    refused(
        &server,
        &pit,
        order(json!({"do": "file_rules", "filed_on": "2999-01-01"})),
        "tournament_refused",
        "after today",
    );
    server.ask(&pit, order(json!({"do": "file_rules", "filed_on": filed})));
    server.ask(&pit, order(json!({"do": "start", "event": "Qualifier"})));
    server.ask(
        &pit,
        order(json!({"do": "rebuy", "entry": 5, "paid": "cash", "points": 0})),
    );
    refused(
        &server,
        &pit,
        order(json!({"do": "rebuy", "entry": 1, "paid": "cash", "points": 500})),
        "tournament_refused",
        "2213.08(2)",
    );
    server.ask(&pit, order(json!({"do": "eliminate", "entry": 3})));
    // No agreement divides a non-cash prize (2213.07(3)(a)).
    refused(
        &server,
        &pit,
        order(
            json!({"do": "propose_split", "event": "Qualifier", "places": [1, 3], "shares": [[1, 1], [2, 1], [5, 1]]}),
        ),
        "tournament_refused",
        "2213.07(3)(a)",
    );
    server.ask(
        &pit,
        order(json!({"do": "end", "event": "Qualifier", "points": [[1, 30000], [2, 9000], [5, 1000]]})),
    );
    // Sent again, the end pays nothing twice.
    refused(
        &server,
        &pit,
        order(json!({"do": "end", "event": "Qualifier", "points": [[1, 30000], [2, 9000], [5, 1000]]})),
        "tournament_refused",
        "not being played",
    );
    // 500.00 in the pool: the voucher (125.00) and the clock (45.00), then 60% of 330.00 to p1.
    assert_eq!(wallet(&server, &cashier, "p1"), 100_000 + 19_800);

    // kill -9 between the events: nothing is lost, every cent reconciles.
    server.kill();
    let (ok, report) = verify(data.path());
    assert!(ok, "{report}");
    let books = &report["tournaments"][0];
    assert_eq!(books["tournament"], "winter-classic");
    assert_eq!(books["problem"], Value::Null, "{books}");
    assert_eq!(books["pool"], 13_200);
    assert_eq!(books["vouchers_held"], 12_500);
    let server = start(data.path(), port);
    let admin = server.login("admin", croupier_testkit::ADMIN_PASSWORD);
    let cashier = server.login("cashier", "cashier-password-1");
    let pit = server.login("pit", "pit-password-1");
    let p1 = server.login("p1", "p1-password-1");
    let p2 = server.login("p2", "p2-password-1");
    let p4 = server.login("p4", "p4-password-1");

    // The voucher is p2's alone (2213.05).
    let voucher = json!({"voucher": 1});
    refused(
        &server,
        &pit,
        register("p1", "Final", voucher.clone(), voucher.clone()),
        "tournament_refused",
        "only its winner",
    );
    server.ask(&pit, register("p2", "Final", voucher.clone(), voucher));
    server.ask(&pit, register("p1", "Final", json!("cash"), json!("cash")));
    server.ask(&pit, register("p4", "Final", json!("cash"), json!("cash")));
    server.ask(&pit, order(json!({"do": "start", "event": "Final"})));
    // 132.00 carried + 300.00: 302.40 and 129.60 in cash.
    let shares = json!([[6, 20000], [7, 15000], [8, 8200]]);
    server.ask(
        &pit,
        order(json!({"do": "propose_split", "event": "Final", "places": [1, 2], "shares": shares})),
    );
    // Each player agrees for themself (2213.07(3)(b)); the proposal is shown to those in it.
    refused(
        &server,
        &p1,
        order(json!({"do": "agree_split", "entry": 6})),
        "forbidden",
        "2213.07(3)(b)",
    );
    let (_, seen) = server.http("GET", "/api/tournaments/winter-classic", Some(&p1), None);
    assert_eq!(seen["split"]["shares"][1]["amount"], 15_000, "{seen}");
    assert_eq!(
        seen["entries"].as_array().map(Vec::len),
        Some(2),
        "only p1's own entries: {seen}"
    );
    server.ask(&p2, order(json!({"do": "agree_split", "entry": 6})));
    server.ask(&p1, order(json!({"do": "agree_split", "entry": 7})));
    refused(
        &server,
        &pit,
        order(json!({"do": "confirm_split", "points": [[6, 1], [7, 1], [8, 1]]})),
        "tournament_refused",
        "unanimous",
    );
    server.ask(&p4, order(json!({"do": "agree_split", "entry": 8})));
    server.ask(
        &pit,
        order(json!({"do": "confirm_split", "points": [[6, 12000], [7, 8000], [8, 3000]]})),
    );
    server.ask(&pit, order(json!({"do": "conclude"})));
    // p2's share of the split reaches the wallet.
    assert_eq!(wallet(&server, &cashier, "p2"), 100_000 + 20_000);

    // A second tournament, called off before it starts: every entry refunded,
    // the fees too, and nothing left in its accounts.
    let (config, _) = config_from_today();
    let other = config.replace("id = \"winter-classic\"", "id = \"winter-called-off\"");
    server.ask(&admin, json!({"op": "create_tournament", "config": other}));
    let to_other = |o: Value| {
        let mut o = order(o);
        o["tournament"] = json!("winter-called-off");
        o
    };
    for p in ["p1", "p2"] {
        server.ask(&pit, to_other(json!({"do": "register", "player": p, "event": "Qualifier", "fee": "cash", "buy_in": "cash", "qualified": true})));
    }
    server.ask(
        &pit,
        to_other(json!({"do": "cancel", "reason": "the rules reached the Division too late"})),
    );
    let (_, called_off) = server.http("GET", "/api/tournaments/winter-called-off", Some(&pit), None);
    assert_eq!(called_off["status"], "concluded", "{called_off}");

    // The forms, for those who keep the books; the rules, for anyone.
    let forms = server.answer("GET", "/api/tournaments/winter-classic/forms", Some(&pit), None);
    assert_eq!(forms.status, 200);
    let text = forms.body.as_str().unwrap_or("").to_string();
    assert!(text.contains("# tournament form (2213.01)"), "{text}");
    assert!(text.contains("2,p2,Qualifier"), "{text}");
    assert!(text.contains("voucher 1 into Final"), "{text}");
    let (status, _) = server.http("GET", "/api/tournaments/winter-classic/forms", Some(&p1), None);
    assert_eq!(status, 403);
    let rules = server.answer("GET", "/api/public/tournaments/winter-classic/rules", None, None);
    assert_eq!(rules.status, 200);
    assert!(rules
        .body
        .as_str()
        .unwrap_or("")
        .contains("shall follow the house rules of The Example Casino"));

    drop(server);
    let (ok, report) = verify(data.path());
    assert!(ok, "{report}");
    let called_off = &report["tournaments"][0];
    assert_eq!(called_off["tournament"], "winter-called-off");
    assert_eq!(called_off["problem"], Value::Null, "{called_off}");
    assert_eq!(
        (called_off["fees_account"].as_i64(), called_off["pool_account"].as_i64()),
        (Some(0), Some(0))
    );
    let books = &report["tournaments"][1];
    assert_eq!(books["problem"], Value::Null, "{books}");
    assert_eq!(books["concluded"], true);
    assert_eq!(
        (books["pool_account"].as_i64(), books["fees_account"].as_i64()),
        (Some(0), Some(0))
    );
    // Seven fees of 25.00, the voucher's included, counted into proceeds.
    assert_eq!(books["fees"], 17_500);
    assert_eq!(
        books["buy_ins"], books["prizes_paid"],
        "every buy-in paid out (2213.05): {books}"
    );
}

// A tournament's event played at a table (Colorado 2213.07, 2214): the table
// switches to points only with no cash chips seated, every entrant starts
// with the same points, no wager limit applies, only entrants bet, re-buys
// and eliminations wait for the game to end, the standings are the
// ledger's (no one types them), and `croupier verify` reconciles after a
// `kill -9` in the middle.

fn bet(id: &str, spot: &str, stake: u64) -> Value {
    json!({"op": "place_bet", "table": "tt", "bet_id": id, "spot": spot, "stake": stake})
}

fn spin(pocket: &str) -> Value {
    json!({"op": "spin", "table": "tt", "spin": {"pocket": pocket, "direction": "opposite", "revolutions": 6}})
}

fn points(server: &Server, cashier: &str, player: &str) -> i64 {
    let (status, body) = server.http("GET", &format!("/api/players/{player}/accounts"), Some(cashier), None);
    assert_eq!(status, 200, "{body}");
    body["accounts"][format!("points:tt:{player}")].as_i64().unwrap_or(0)
}

#[test]
fn an_event_plays_at_a_table_in_points_and_the_ledger_counts_them() {
    let data = data_dir();
    let port = free_port();
    let mut server = start(data.path(), port);
    let [admin, cashier, dealer, pit, p1, p2] = server.staff_and_players();
    server.add_users(&admin, &[("p3", "player"), ("p4", "player")]);
    let p3 = server.login("p3", "p3-password-1");
    let p4 = server.login("p4", "p4-password-1");
    server.ask(
        &admin,
        json!({"op": "create_table", "table": "tt", "profile_text": COLORADO, "wheel": "double-zero",
               "in_prison": false, "betting_window_ms": 600000, "outcome": "dealer"}),
    );
    // The table posts a straight-up maximum of 10.00 for its cash play.
    server.ask(
        &pit,
        json!({"op": "set_limits", "table": "tt", "limits": [{"kind": "straight", "min": 100, "max": 1000}]}),
    );
    server.inspect_and_open(&pit, &dealer, "tt");
    let (config, filed) = config_from_today();
    server.ask(&admin, json!({"op": "create_tournament", "config": config}));
    for p in ["p1", "p2", "p3"] {
        server.ask(&pit, order(json!({"do": "register", "player": p, "event": "Qualifier", "fee": "cash", "buy_in": "cash", "qualified": true})));
    }
    server.ask(&pit, order(json!({"do": "file_rules", "filed_on": filed})));

    // A table plays an event only once the director gives it one, and only
    // the director does; a table of another game's rules is refused (2213.06).
    let to_points = json!({"op": "table_play", "table": "tt", "tournament": "winter-classic"});
    refused(
        &server,
        &pit,
        to_points.clone(),
        "tournament_refused",
        "gives it one first",
    );
    refused(
        &server,
        &p1,
        order(json!({"do": "table", "event": "Qualifier", "table": "tt"})),
        "forbidden",
        "direct",
    );
    refused(
        &server,
        &pit,
        order(json!({"do": "table", "event": "Qualifier", "table": "nowhere"})),
        "no_table",
        "nowhere",
    );
    server.ask(&pit, order(json!({"do": "table", "event": "Qualifier", "table": "tt"})));
    // Sent again, it changes nothing.
    server.ask(&pit, order(json!({"do": "table", "event": "Qualifier", "table": "tt"})));
    refused(
        &server,
        &pit,
        order(json!({"do": "table", "event": "Final", "table": "tt"})),
        "tournament_refused",
        "still to be played",
    );

    // Cash play and a tournament never share a table (2214(1)).
    server.seat(&cashier, ("p4", &p4), "tt", 10_000, 5_000);
    refused(&server, &pit, to_points.clone(), "tournament_refused", "2214(1)");
    server.ask(&p4, json!({"op": "leave_table", "id": "leave-p4", "table": "tt"}));
    refused(&server, &p1, to_points.clone(), "forbidden", "direct");
    let (status, _) = server.http("POST", "/api/requests", None, Some(&to_points));
    assert_eq!(status, 401, "nobody signed in switches a table");
    server.ask(&pit, to_points.clone());
    server.ask(&pit, to_points.clone());
    let (_, tables) = server.http("GET", "/api/tables", Some(&p1), None);
    let notice = &tables["tables"][2]["tournament"];
    assert_eq!(notice["event"], "Qualifier", "{tables}");
    assert!(
        notice["notice"].as_str().unwrap_or("").contains("yellow 100"),
        "{notice}"
    );
    refused(
        &server,
        &p4,
        json!({"op": "buy_in", "id": "buy-again", "table": "tt", "amount": 1000, "chip_value": 100}),
        "tournament_refused",
        "2214(1)",
    );
    server.ask(&dealer, json!({"op": "open_betting", "table": "tt"}));
    refused(
        &server,
        &p1,
        bet("early", "red", 100),
        "tournament_refused",
        "not under way",
    );
    server.ask(&dealer, json!({"op": "no_more_bets", "table": "tt"}));
    server.ask(&dealer, spin("5"));

    // Every entrant starts with the same chips (2213.07(1)).
    server.ask(&pit, order(json!({"do": "start", "event": "Qualifier"})));
    for p in ["p1", "p2", "p3"] {
        assert_eq!(points(&server, &cashier, p), 10_000, "{p}");
    }
    server.ask(&dealer, json!({"op": "open_betting", "table": "tt"}));
    // Only an entrant bets, with their own chips (2213.07(4)); a coupon is money.
    refused(
        &server,
        &p4,
        bet("p4-bet", "red", 100),
        "tournament_refused",
        "2213.07(4)",
    );
    // No wager size limit applies to tournament chips (2214(1)): 50.00 straight up at a 10.00 table.
    server.ask(&p1, bet("p1-17", "17", 5_000));
    server.ask(&p2, bet("p2-red", "red", 10_000));
    refused(&server, &p3, bet("p3-big", "black", 10_001), "refused", "points");
    server.ask(&p3, bet("p3-black", "black", 1_000));
    // Re-buys, eliminations and the end wait for the game to end (2213.07(5)).
    refused(
        &server,
        &pit,
        order(json!({"do": "rebuy", "entry": 2, "paid": "cash"})),
        "tournament_refused",
        "2213.07(5)",
    );
    refused(
        &server,
        &pit,
        order(json!({"do": "end", "event": "Qualifier"})),
        "tournament_refused",
        "2213.07(5)",
    );
    // So do new chip values (2214(2)).
    let values = order(json!({"do": "chip_values", "values": [["yellow", 200], ["green", 500], ["black", 1000]]}));
    refused(&server, &pit, values.clone(), "tournament_refused", "2213.07(5)");
    server.ask(&dealer, json!({"op": "no_more_bets", "table": "tt"}));
    server.ask(&dealer, spin("17"));
    // Between games they are posted at the table; a colour the tournament
    // does not have is refused, and the director alone posts them.
    refused(
        &server,
        &pit,
        order(json!({"do": "chip_values", "values": [["purple", 200], ["green", 500], ["black", 1000]]})),
        "bad_tournament",
        "no other",
    );
    refused(&server, &p1, values.clone(), "forbidden", "direct");
    server.ask(&pit, values.clone());
    server.ask(&pit, values);
    let (_, tables) = server.http("GET", "/api/public/tables/tt", None, None);
    assert!(
        tables["tournament"]["notice"]
            .as_str()
            .unwrap_or("")
            .contains("yellow 200"),
        "{tables}"
    );
    // 17 is black: p1 wins 35 to 1, p2 loses all, p3 doubles.
    assert_eq!(points(&server, &cashier, "p1"), 5_000 + 5_000 + 175_000);
    assert_eq!(points(&server, &cashier, "p2"), 0);
    assert_eq!(points(&server, &cashier, "p3"), 10_000 + 1_000);

    // The ledger counts the points: none typed differs from them, and a
    // player with chips is not eliminated (2213.07(2)).
    refused(
        &server,
        &pit,
        order(json!({"do": "eliminate", "entry": 3})),
        "tournament_refused",
        "2213.07(2)",
    );
    refused(
        &server,
        &pit,
        order(json!({"do": "rebuy", "entry": 2, "paid": "cash", "points": 500})),
        "tournament_refused",
        "0 points at table tt",
    );
    server.ask(&pit, order(json!({"do": "rebuy", "entry": 2, "paid": "cash"})));
    assert_eq!(points(&server, &cashier, "p2"), 10_000);

    // kill -9 in the middle of the event: nothing lost, the points reconcile.
    server.kill();
    let (ok, report) = croupier_testkit::verify(env!("CARGO_BIN_EXE_croupier"), data.path(), &[]);
    assert!(ok, "{report}");
    assert_eq!(report["balances"]["points:tt:p1"], 185_000, "{report}");
    let server = start(data.path(), port);
    let [cashier, dealer, pit, p1, p2] =
        ["cashier", "dealer", "pit", "p1", "p2"].map(|u| server.login(u, &format!("{u}-password-1")));

    server.ask(&dealer, json!({"op": "open_betting", "table": "tt"}));
    server.ask(&p2, bet("p2-zero", "0", 10_000));
    server.ask(&dealer, json!({"op": "no_more_bets", "table": "tt"}));
    server.ask(&dealer, spin("1"));
    assert_eq!(points(&server, &cashier, "p2"), 0);
    // One re-buy only: p2 is out of chips and is eliminated.
    server.ask(&pit, order(json!({"do": "eliminate", "entry": 2})));
    refused(
        &server,
        &p2,
        bet("p2-after", "red", 100),
        "tournament_refused",
        "2213.07(4)",
    );
    // Re-entry after elimination is a new entry (2213(2)(c)) that starts with
    // the same chips (2213.07(1)); sent again under its id, it is charged once.
    let again = order(
        json!({"do": "register", "player": "p2", "event": "Qualifier", "fee": "cash", "buy_in": "cash",
                             "qualified": true, "id": "reentry-p2"}),
    );
    server.ask(&pit, again.clone());
    server.ask(&pit, again);
    assert_eq!(points(&server, &cashier, "p2"), 10_000);
    let (_, seen) = server.http("GET", "/api/tournaments/winter-classic", Some(&pit), None);
    assert_eq!(
        seen["entries"].as_array().map(Vec::len),
        Some(4),
        "one new entry: {seen}"
    );
    let (_, seen) = server.http("GET", "/api/tournaments/winter-classic", Some(&p1), None);
    let standings = &seen["standings"][0]["entries"];
    assert_eq!(standings[0]["entry"], 1, "{seen}");
    assert_eq!(standings[0]["points"], 185_000, "{seen}");
    assert_eq!(
        standings[1]["player"],
        Value::Null,
        "a player sees no one else's name: {seen}"
    );

    refused(
        &server,
        &pit,
        order(json!({"do": "end", "event": "Qualifier", "points": [[1, 1], [3, 999_999]]})),
        "tournament_refused",
        "counted at table tt",
    );
    server.ask(&pit, order(json!({"do": "end", "event": "Qualifier"})));
    let (_, seen) = server.http("GET", "/api/tournaments/winter-classic", Some(&pit), None);
    let payouts = seen["payouts"].as_array().cloned().unwrap_or_default();
    assert_eq!(payouts[0]["player"], "p1", "{seen}");
    assert_eq!(payouts[1]["player"], "p3", "{seen}");
    // The points go back to the table's bank: none is left anywhere.
    for p in ["p1", "p2", "p3"] {
        assert_eq!(points(&server, &cashier, p), 0, "{p}");
    }
    // Once the event is over no dispute gives anyone points.
    refused(
        &server,
        &pit,
        json!({"op": "dispute", "table": "tt", "id": "late", "reason": "late", "corrections": [{"player": "p3", "amount": 5000}]}),
        "bad_correction",
        "not under way",
    );

    // A second tournament's event at the same table: the first one's later
    // orders never take the table back from it.
    let (config, filed) = config_from_today();
    let second = config.replace("id = \"winter-classic\"", "id = \"winter-two\"");
    let admin = server.login("admin", croupier_testkit::ADMIN_PASSWORD);
    server.ask(&admin, json!({"op": "create_tournament", "config": second}));
    let two = |o: Value| {
        let mut o = order(o);
        o["tournament"] = json!("winter-two");
        o
    };
    server.ask(&pit, two(json!({"do": "register", "player": "p1", "event": "Qualifier", "fee": "cash", "buy_in": "cash", "qualified": true})));
    server.ask(&pit, two(json!({"do": "file_rules", "filed_on": filed})));
    server.ask(&pit, two(json!({"do": "table", "event": "Qualifier", "table": "tt"})));
    server.ask(
        &pit,
        json!({"op": "table_play", "table": "tt", "tournament": "winter-two"}),
    );
    server.ask(&pit, two(json!({"do": "start", "event": "Qualifier"})));
    server.ask(&pit, order(json!({"do": "register", "player": "p3", "event": "Final", "fee": "cash", "buy_in": "cash", "qualified": true})));
    refused(
        &server,
        &pit,
        json!({"op": "table_play", "table": "tt"}),
        "tournament_refused",
        "still played",
    );
    server.ask(&dealer, json!({"op": "open_betting", "table": "tt"}));
    server.ask(&p1, bet("two-p1", "red", 500));
    server.ask(&dealer, json!({"op": "no_more_bets", "table": "tt"}));
    server.ask(&dealer, spin("1"));
    assert_eq!(points(&server, &cashier, "p1"), 10_500);
    // Disqualified in the first tournament, p1 keeps the second's points.
    server.ask(
        &pit,
        order(json!({"do": "disqualify", "player": "p1", "reason": "two entries found"})),
    );
    assert_eq!(points(&server, &cashier, "p1"), 10_500);
    server.ask(&pit, two(json!({"do": "end", "event": "Qualifier"})));
    // The event is over: the table plays cash again, and a cash player buys in.
    server.ask(&pit, json!({"op": "table_play", "table": "tt"}));
    let (_, tables) = server.http("GET", "/api/tables", Some(&p1), None);
    assert_eq!(tables["tables"][2]["tournament"], Value::Null, "{tables}");
    server.ask(
        &p4,
        json!({"op": "buy_in", "id": "buy-cash", "table": "tt", "amount": 1000, "chip_value": 100}),
    );

    drop(server);
    let (ok, report) = croupier_testkit::verify(env!("CARGO_BIN_EXE_croupier"), data.path(), &[]);
    assert!(ok, "{report}");
    for account in ["points-bank:tt", "points-layout:tt", "points:tt:p1", "points:tt:p3"] {
        assert_eq!(
            report["balances"][account].as_i64().unwrap_or(0),
            0,
            "{account}: {report}"
        );
    }
    for books in report["tournaments"].as_array().cloned().unwrap_or_default() {
        assert_eq!(books["problem"], Value::Null, "{books}");
    }
}
