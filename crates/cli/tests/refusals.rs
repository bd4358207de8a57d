//! Refusals through the real binary, as a hostile player, a careless client
//! and a dishonest employee would meet them: a bet id stands for one bet, a
//! resend that changes nothing writes nothing, one player cannot fill a
//! round, and a dispute pays only what the disputed round could have paid.
//! Each refusal names what was wrong, moves no money, and leaves a journal
//! that `croupier verify` passes.

use std::path::Path;

use croupier_testkit::{data_dir, free_port, Server};
use serde_json::{json, Value};

const BINARY: &str = env!("CARGO_BIN_EXE_croupier");

/// `croupier verify --data DATA --format json`: whether it passed, and its report.
fn verify(data: &Path) -> (bool, Value) {
    croupier_testkit::verify(BINARY, data, &[])
}

/// The journal's records, in order, read straight from its database.
fn journal_records(data: &Path) -> Vec<String> {
    let db = rusqlite::Connection::open(data.join(croupier_ledger::storage::DATABASE_FILE)).expect("the journal");
    let mut rows = db.prepare("SELECT record FROM journal ORDER BY seq").expect("select");
    rows.query_map([], |r| r.get(0))
        .expect("rows")
        .map(|r| r.expect("row"))
        .collect()
}

/// How many journal records hold every one of `needles` (as the record's JSON writes them).
fn records_with(data: &Path, needles: &[&str]) -> usize {
    journal_records(data)
        .iter()
        .filter(|r| needles.iter().all(|n| r.contains(n)))
        .count()
}

/// A server with the staff and players p1 and p2, signed in, and a
/// dealer's table `d1` of `profile`, inspected and open:
/// (server, [admin, cashier, dealer, pit, p1, p2]).
fn casino(data: &Path, profile: &str) -> (Server, [String; 6]) {
    let server = Server::start(BINARY, data, free_port());
    let tokens = server.staff_and_players();
    server.ask(&tokens[0], table("d1", profile));
    server.inspect_and_open(&tokens[3], &tokens[2], "d1");
    (server, tokens)
}

fn profile_text(profile: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../profiles/{profile}.toml")))
        .expect("a shipped profile")
}

fn table(table: &str, profile: &str) -> Value {
    json!({"op": "create_table", "table": table, "profile_text": profile_text(profile),
           "wheel": "double-zero", "in_prison": false, "betting_window_ms": 600000, "outcome": "dealer"})
}

/// A request that must be refused: (status, code, message).
fn refused(server: &Server, token: &str, request: Value) -> (u16, String, String) {
    server.refused(token, request)
}

/// The balance of one of the caller's own accounts.
fn balance(server: &Server, token: &str, account: &str) -> i64 {
    let (status, me) = server.http("GET", "/api/me", Some(token), None);
    assert_eq!(status, 200, "{me}");
    me["accounts"][account].as_i64().unwrap_or(0)
}

fn bet(id: &str, spot: &str, stake: u64) -> Value {
    json!({"op": "place_bet", "table": "d1", "bet_id": id, "spot": spot, "stake": stake})
}

fn spin(pocket: &str) -> Value {
    json!({"op": "spin", "table": "d1", "spin": {"pocket": pocket, "direction": "opposite", "revolutions": 6}})
}

/// Item 15: a bet id resent with another spot was answered 200 while the
/// first bet stood. Now the resend is refused as a duplicate, naming the
/// bet that stands; the same bet sent again is acknowledged and writes
/// nothing; the first bet is the one settled.
#[test]
fn a_bet_id_resent_with_another_spot_is_refused_and_the_first_bet_stands() {
    let data = data_dir();
    let (mut server, [_, cashier, dealer, _, p1, p2]) = casino(data.path(), "maryland");
    server.seat(&cashier, ("p1", &p1), "d1", 10_000, 5_000);
    server.seat(&cashier, ("p2", &p2), "d1", 10_000, 5_000);
    server.ask(&dealer, json!({"op": "open_betting", "table": "d1"}));
    server.ask(&p1, bet("b1", "17", 100));

    let (status, code, message) = refused(&server, &p1, bet("b1", "18", 100));
    assert_eq!((status, code.as_str()), (422, "duplicate_bet"), "{message}");
    assert!(message.contains("1.00 on 17"), "the stake said as money: {message}");
    assert!(!message.contains("100 on 17"), "{message}");
    let (status, code, message) = refused(&server, &p1, bet("b1", "17", 200));
    assert_eq!((status, code.as_str()), (422, "duplicate_bet"), "{message}");
    // Another player reusing the id learns nothing about the bet.
    let (status, code, message) = refused(&server, &p2, bet("b1", "18", 100));
    assert_eq!((status, code.as_str()), (422, "duplicate_bet"), "{message}");
    assert!(!message.contains("17"), "{message}");
    // The same bet again: acknowledged, nothing placed twice.
    let again = server.ask(&p1, bet("b1", "17", 100));
    assert_eq!(again["events"], json!([]), "{again}");
    assert_eq!(balance(&server, &p1, "chips:d1:p1"), 4_900);

    server.ask(&dealer, json!({"op": "no_more_bets", "table": "d1"}));
    server.ask(&dealer, spin("17"));
    assert_eq!(balance(&server, &p1, "chips:d1:p1"), 4_900 + 3_600);
    server.kill();
    assert_eq!(
        records_with(data.path(), &[r#""op":"place_bet""#, r#""bet_id":"b1""#]),
        1,
        "one bet b1 in the journal"
    );
    let (passed, report) = verify(data.path());
    assert!(passed, "{report}");
}

/// Item 18: a cash-in resent with its id after a crash moved no money but
/// was journaled a second time, so anyone summing the journal's cash
/// events counted it twice. Resent after a `kill -9` and a restart, a
/// cash-in, a buy-in and a tip now write nothing; their ids with other
/// contents are refused; and a used leave id no longer unseats a player
/// whose chips stay on the table.
#[test]
fn a_resend_after_a_crash_writes_nothing_and_a_used_leave_id_is_refused() {
    let data = data_dir();
    let (mut server, [_, cashier, _, _, p1, _]) = casino(data.path(), "maryland");
    let cash = json!({"op": "cash_in", "id": "c1", "player": "p1", "amount": 10_000});
    let buy = json!({"op": "buy_in", "id": "b1", "table": "d1", "amount": 5_000, "chip_value": 100});
    let tip = json!({"op": "tip", "id": "tip1", "table": "d1", "amount": 100});
    server.ask(&cashier, cash.clone());
    server.ask(&p1, buy.clone());
    server.ask(&p1, tip.clone());
    server.kill();

    let server = Server::start(BINARY, data.path(), free_port());
    let cashier = server.login("cashier", "cashier-password-1");
    let dealer = server.login("dealer", "dealer-password-1");
    let p1 = server.login("p1", "p1-password-1");
    for (token, request) in [(&cashier, &cash), (&p1, &buy), (&p1, &tip)] {
        let again = server.ask(token, request.clone());
        assert_eq!(again["events"], json!([]), "{request}: {again}");
    }
    let (status, code, message) = refused(
        &server,
        &cashier,
        json!({"op": "cash_in", "id": "c1", "player": "p1", "amount": 20_000}),
    );
    assert_eq!((status, code.as_str()), (422, "refused"), "{message}");
    assert!(message.contains("cashin/c1"), "{message}");
    assert_eq!(balance(&server, &p1, "wallet:p1"), 5_000);
    assert_eq!(balance(&server, &p1, "chips:d1:p1"), 4_900);

    // p1 leaves, sits down again, and sends the old leave id.
    server.ask(&p1, json!({"op": "leave_table", "id": "l1", "table": "d1"}));
    server.ask(
        &p1,
        json!({"op": "buy_in", "id": "b2", "table": "d1", "amount": 4_900, "chip_value": 100}),
    );
    let (status, code, message) = refused(&server, &p1, json!({"op": "leave_table", "id": "l1", "table": "d1"}));
    assert_eq!((status, code.as_str()), (422, "refused"), "{message}");
    assert!(message.contains("l1"), "{message}");
    assert_eq!(
        balance(&server, &p1, "chips:d1:p1"),
        4_900,
        "still seated with the chips"
    );
    server.ask(&dealer, json!({"op": "open_betting", "table": "d1"}));
    let bet = server.ask(&p1, bet("x1", "red", 100));
    assert_ne!(bet["events"], json!([]), "a seated player bets: {bet}");
    drop(server);

    for (op, id) in [("cash_in", "c1"), ("buy_in", "b1"), ("tip", "tip1")] {
        let needles = [format!(r#""op":"{op}""#), format!(r#""id":"{id}""#)];
        let needles: Vec<&str> = needles.iter().map(String::as_str).collect();
        assert_eq!(records_with(data.path(), &needles), 1, "{op} {id} journaled once");
    }
    let (passed, report) = verify(data.path());
    assert!(passed, "{report}");
}

/// Item 8: one player sent 100,000 one-unit bets in seconds, filled the
/// round and every other player was refused. Now the 501st bet of a player
/// in a round is refused (422, naming the cap), the other player still
/// bets, and a bet under the table minimum the profile states is refused
/// (low-limit-house "The wager amounts for the game").
// Maryland ch.3 F(19): "A Complete Wager that the Roulette ball will come to
// rest in a compartment of the Roulette wheel that corresponds to any number or
// numbers within a dozen": no zero is in a dozen, so a complete wager on 0 or
// 00 is refused, and the felt offers none.
#[test]
fn a_complete_wager_on_a_zero_is_refused() {
    let data = data_dir();
    let (server, [_, cashier, dealer, _, p1, _]) = casino(data.path(), "maryland");
    server.seat(&cashier, ("p1", &p1), "d1", 100_000, 100_000);
    server.ask(&dealer, json!({"op": "open_betting", "table": "d1"}));
    for zero in ["0", "00"] {
        let (status, code, message) = refused(
            &server,
            &p1,
            bet(&format!("c{zero}"), &format!("complete:{zero}"), 1_800),
        );
        assert_eq!((status, code.as_str()), (422, "not_offered"), "{message}");
        assert!(
            message.contains(&format!("{zero} is in no dozen")) && message.contains("F(19)"),
            "{message}"
        );
    }
    server.ask(&p1, bet("c17", "complete:17", 4_000));
    let (status, layout) = server.http("GET", "/api/public/tables/d1/layout", None, None);
    assert_eq!(status, 200);
    let spots: Vec<&str> = layout["spots"]
        .as_array()
        .expect("spots")
        .iter()
        .filter_map(|s| s["spot"].as_str())
        .collect();
    assert!(
        spots.contains(&"complete:17") && !spots.contains(&"complete:0") && !spots.contains(&"complete:00"),
        "{spots:?}"
    );
    assert_eq!(balance(&server, &p1, "chips:d1:p1"), 100_000 - 4_000);
}

#[test]
fn one_player_cannot_fill_a_round_and_a_bet_under_the_minimum_is_refused() {
    let data = data_dir();
    let (mut server, [admin, cashier, dealer, pit, p1, p2]) = casino(data.path(), "maryland");
    server.seat(&cashier, ("p1", &p1), "d1", 100_000, 100_000);
    server.seat(&cashier, ("p2", &p2), "d1", 10_000, 5_000);
    server.ask(&dealer, json!({"op": "open_betting", "table": "d1"}));
    for i in 0..500 {
        let (status, body) = server.http(
            "POST",
            "/api/requests",
            Some(&p1),
            Some(&bet(&format!("p1-{i}"), "red", 100)),
        );
        assert_eq!(status, 200, "bet {i}: {body}");
    }
    let (status, code, message) = refused(&server, &p1, bet("p1-500", "red", 100));
    assert_eq!((status, code.as_str()), (422, "too_many_bets"), "{message}");
    assert!(message.contains("500"), "{message}");
    server.ask(&p2, bet("p2-0", "black", 100));
    assert_eq!(balance(&server, &p1, "chips:d1:p1"), 100_000 - 500 * 100);

    // low-limit-house: outside bets $5-$10, inside $1-$10, in cents.
    server.ask(&admin, table("h1", "low-limit-house"));
    server.inspect_and_open(&pit, &dealer, "h1");
    server.seat(&cashier, ("p2", &p2), "h1", 10_000, 5_000);
    server.ask(&dealer, json!({"op": "open_betting", "table": "h1"}));
    let under = json!({"op": "place_bet", "table": "h1", "bet_id": "h-red", "spot": "red", "stake": 100});
    let (status, code, message) = refused(&server, &p2, under);
    assert_eq!((status, code.as_str()), (422, "under_minimum"), "{message}");
    assert!(message.contains("under the table minimum 5.00"), "{message}");
    server.kill();
    let (passed, report) = verify(data.path());
    assert!(passed, "{report}");
}

/// Item 12: dispute power followed the profile's free text, and one
/// correction could pay 2^50 to a player who had not even bet. A profile
/// whose `dispute_authority` is no supervising role is refused when a table
/// takes it, naming the field and the value; at a Maryland table only the
/// floorperson decides, a role of its own (Colorado 2206(5)); and a
/// correction is for a player who bet in the disputed round, within what
/// their bets there could have returned.
#[test]
fn disputes_are_the_supervisors_and_correct_only_the_rounds_wagers() {
    let data = data_dir();
    let (mut server, [admin, cashier, dealer, pit, p1, p2]) = casino(data.path(), "maryland");
    let player_decides = profile_text("maryland").replace(
        r#"dispute_authority = "floorperson""#,
        r#"dispute_authority = "player""#,
    );
    let request = json!({"op": "create_table", "table": "x1", "profile_text": player_decides,
                         "wheel": "double-zero", "in_prison": false, "betting_window_ms": 600000, "outcome": "dealer"});
    let (status, code, message) = refused(&server, &admin, request);
    assert_eq!((status, code.as_str()), (422, "bad_profile"), "{message}");
    assert!(message.contains(r#"dispute_authority: "player""#), "{message}");

    server.seat(&cashier, ("p1", &p1), "d1", 10_000, 5_000);
    server.seat(&cashier, ("p2", &p2), "d1", 10_000, 5_000);
    server.ask(&dealer, json!({"op": "open_betting", "table": "d1"}));
    server.ask(&p1, bet("b1", "17", 100));
    server.ask(&dealer, json!({"op": "no_more_bets", "table": "d1"}));
    server.ask(&dealer, spin("2"));
    let dispute = |player: &str, amount: i64| {
        json!({"op": "dispute", "table": "d1", "id": format!("{player}-{amount}"), "reason": "a chip knocked off 17",
               "corrections": [{"player": player, "amount": amount}]})
    };
    for (token, role) in [
        (&p1, "player"),
        (&dealer, "dealer"),
        (&admin, "admin"),
        (&pit, "pit_supervisor"),
    ] {
        let (status, code, message) = refused(&server, token, dispute("p1", 3_600));
        assert_eq!((status, code.as_str()), (403, "forbidden"), "{role}: {message}");
        // Those who may decide disputes somewhere are told whose they are here.
        if ["admin", "pit_supervisor"].contains(&role) {
            assert!(message.contains("floorperson"), "{role}: {message}");
        }
    }
    server.add_users(&admin, &[("floor", "floorperson")]);
    let pit = server.login("floor", "floor-password-1");
    let (status, code, message) = refused(&server, &pit, dispute("p2", 100));
    assert_eq!((status, code.as_str()), (422, "bad_correction"), "{message}");
    assert!(message.contains("no bet"), "{message}");
    let (status, code, message) = refused(&server, &pit, dispute("p1", 1 << 50));
    assert_eq!((status, code.as_str()), (422, "bad_correction"), "{message}");
    assert!(message.contains("36.00"), "{message}");
    // The chip on 17 should have won: the pit pays what it would have.
    let decided = server.ask(&pit, dispute("p1", 3_600));
    let events = decided["events"].as_array().expect("events");
    let decision = events
        .iter()
        .find(|e| e["type"] == "dispute_decided")
        .expect("the decision");
    assert_eq!(decision["round"], 1, "{decided}");
    assert_eq!(balance(&server, &p1, "chips:d1:p1"), 4_900 + 3_600);
    assert_eq!(balance(&server, &p2, "chips:d1:p2"), 5_000);
    let (status, code, message) = refused(&server, &pit, dispute("p1", 1));
    assert_eq!((status, code.as_str()), (422, "bad_correction"), "{message}");
    server.kill();
    let (passed, report) = verify(data.path());
    assert!(passed, "{report}");
}
