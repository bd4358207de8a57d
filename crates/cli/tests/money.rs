//! The casino's money at its edges, through the real binary, as a hostile
//! player, a dishonest insider and a new casino would try it: no cent
//! minted, doubled or hidden. Each test is an attack that once worked
//! (journal format 13), now refused, and the books that once disagreed
//! with the ledger, now equal to it to the cent.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use croupier_testkit::{data_dir, free_port, Server};
use serde_json::{json, Value};

const BINARY: &str = env!("CARGO_BIN_EXE_croupier");

fn verify(data: &Path) -> (bool, Value) {
    croupier_testkit::verify(BINARY, data, &[])
}

fn refused(server: &Server, token: &str, request: Value) -> (u16, String, String) {
    server.refused(token, request)
}

/// A player's balance in `account` (`wallet:P`, `chips:T:P`), as the cage shows it.
fn balance(server: &Server, token: &str, player: &str, account: &str) -> i64 {
    let (status, body) = server.http("GET", &format!("/api/players/{player}/accounts"), Some(token), None);
    assert_eq!(status, 200, "{body}");
    body["accounts"][account].as_i64().unwrap_or(0)
}

/// The journal's transfers, each (entry's time, id, from, to, amount), as
/// `croupier entries` prints them: read apart from the server's own code.
fn transfers(data: &Path) -> Vec<(u64, String, String, String, u64)> {
    let out = Command::new(BINARY)
        .args(["entries", "--data", data.to_str().expect("path")])
        .output()
        .expect("croupier entries");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut all = Vec::new();
    for line in String::from_utf8(out.stdout).expect("UTF-8").lines() {
        let entry: Value = serde_json::from_str(line).expect("a JSON line");
        let at_ms = entry["at_ms"].as_u64().expect("at_ms");
        let record = &entry["record"];
        let list = match record["type"].as_str() {
            Some("commit") => record["transfers"].as_array().cloned().unwrap_or_default(),
            Some("transfer") => vec![record.clone()],
            _ => Vec::new(),
        };
        for t in list {
            all.push((
                at_ms,
                t["id"].as_str().expect("id").to_string(),
                t["from"].as_str().expect("from").to_string(),
                t["to"].as_str().expect("to").to_string(),
                t["amount"].as_u64().expect("amount"),
            ));
        }
    }
    all
}

fn create_user(server: &Server, admin: &str, name: &str, role: &str) -> String {
    server.add_users(admin, &[(name, role)]);
    server.login(name, &format!("{name}-password-1"))
}

fn low_limit_table(table: &str) -> Value {
    json!({"op": "create_table", "table": table, "profile_text": include_str!("../../../profiles/low-limit-house.toml"),
           "wheel": "double-zero", "in_prison": false, "betting_window_ms": 60000, "outcome": "dealer"})
}

// european-casino 5.4: "If a player takes colour chips away from the table
// and returns them after the gaming day has ended, these chips are cashed in
// according to their face value equal to the table minimum for the gaming
// day when the chips were bought"; the low-limit house: "If Roulette-specific
// chips are removed from the table and need to be returned at any value
// other than $1, then the floor manager must be called". The attack: a
// player bought 200.00 in chips of 0.01, stayed seated past midnight and
// left: each chip was paid at the table minimum (or 1.00), 20,000.00 for
// 200.00. A seated player is now paid their chips' face value; chips the
// dealer records taken away come back at the rule's value, never above their
// face, each purchase dated on its own.
#[test]
fn chips_held_past_midnight_are_paid_their_face_and_chips_taken_away_no_more() {
    let data = data_dir();
    let server = Server::start(BINARY, data.path(), free_port());
    let [admin, cashier, dealer, pit, p1, p2] = server.staff_and_players();
    let p3 = create_user(&server, &admin, "p3", "player");
    server.create_european_table(&admin, "e1");
    server.ask(&admin, low_limit_table("l1"));
    for table in ["e1", "l1"] {
        server.inspect_and_open(&pit, &dealer, table);
    }
    server.ask(
        &pit,
        json!({"op": "set_limits", "table": "e1", "limits": [{"kind": "straight", "min": 200, "max": 10_000},
                                                              {"kind": "red", "min": 200, "max": 10_000}]}),
    );
    for (player, token) in [("p1", &p1), ("p2", &p2), ("p3", &p3)] {
        server.ask(
            &cashier,
            json!({"op": "cash_in", "id": format!("cash-{player}"), "player": player, "amount": 100_000}),
        );
        let _ = token;
    }
    // p1: 200.00 in chips of 0.01 at each table, held past midnight.
    for table in ["e1", "l1"] {
        server.ask(
            &p1,
            json!({"op": "buy_in", "id": format!("p1-{table}"), "table": table, "amount": 20_000, "chip_value": 1}),
        );
    }
    // p2: ten chips of 5.00 at e1, taken away the day they were bought.
    server.ask(
        &p2,
        json!({"op": "buy_in", "id": "p2-e1", "table": "e1", "amount": 5_000, "chip_value": 500}),
    );
    // p3: five chips of 5.00 at l1, removed from the table.
    server.ask(
        &p3,
        json!({"op": "buy_in", "id": "p3-l1", "table": "l1", "amount": 2_500, "chip_value": 500}),
    );
    // The floor's supervisor records chips taken away, called by the dealer: no
    // player records their own, no dealer alone (who could devalue a player's
    // chips), nor anyone signed out.
    let away = |table: &str, player: &str| json!({"op": "chips_taken_away", "table": table, "player": player});
    for token in [&p2, &dealer] {
        let (status, code, _) = refused(&server, token, away("e1", "p2"));
        assert_eq!((status, code.as_str()), (403, "forbidden"));
    }
    let (status, _) = server.http("POST", "/api/requests", None, Some(&away("e1", "p2")));
    assert_eq!(status, 401);
    server.ask(&pit, away("e1", "p2"));
    server.ask(&pit, away("l1", "p3"));
    // Away, the chips play no more until cashed in.
    server.ask(&dealer, json!({"op": "open_betting", "table": "e1"}));
    let (status, code, message) = refused(
        &server,
        &p2,
        json!({"op": "place_bet", "table": "e1", "bet_id": "b1", "spot": "red", "stake": 500}),
    );
    assert_eq!((status, code.as_str()), (422, "chips_away"), "{message}");
    // The cage's look-up marks them away beside the chips: a new casino's
    // cashier once saw chips at e1 with no sign they had left the table.
    let (_, accounts) = server.http("GET", "/api/players/p2/accounts", Some(&cashier), None);
    assert_eq!(accounts["accounts"]["chips:e1:p2"], 5_000, "{accounts}");
    assert_eq!(accounts["away"]["e1"]["confirmed"], false, "{accounts}");
    let (_, accounts) = server.http("GET", "/api/players/p1/accounts", Some(&cashier), None);
    assert!(
        accounts.get("away").is_none(),
        "p1's chips are at their tables: {accounts}"
    );
    server.ask(&dealer, json!({"op": "no_more_bets", "table": "e1"}));
    server.ask(
        &dealer,
        json!({"op": "spin", "table": "e1", "spin": {"pocket": "17", "direction": "opposite", "revolutions": 6}}),
    );
    drop(server);

    // The next gaming day.
    let server = Server::start_later(BINARY, data.path(), free_port(), &[], "+1d");
    let login = |name: &str| server.login(name, &format!("{name}-password-1"));
    let (cashier, p1, p2, p3) = (login("cashier"), login("p1"), login("p2"), login("p3"));
    for table in ["e1", "l1"] {
        server.ask(
            &p1,
            json!({"op": "leave_table", "id": format!("p1-leaves-{table}"), "table": table}),
        );
    }
    // Paid 200.00 a table, their face: not 20,000.00 of the table minimum, nor 20,000 dollars.
    assert_eq!(balance(&server, &cashier, "p1", "wallet:p1"), 100_000);
    // p2's ten chips of 5.00 come back at the day-bought minimum, 2.00 each.
    let left = server.ask(&p2, json!({"op": "leave_table", "id": "p2-leaves", "table": "e1"}));
    let revalued = left["events"]
        .as_array()
        .expect("events")
        .iter()
        .find(|e| e["type"] == "chips_revalued")
        .cloned()
        .unwrap_or_else(|| panic!("{left}"));
    assert_eq!(
        (revalued["face"].as_u64(), revalued["paid"].as_u64()),
        (Some(5_000), Some(2_000)),
        "{revalued}"
    );
    assert_eq!(balance(&server, &cashier, "p2", "wallet:p2"), 100_000 - 5_000 + 2_000);
    // p3's five chips of 5.00 come back at 1.00 each.
    server.ask(&p3, json!({"op": "leave_table", "id": "p3-leaves", "table": "l1"}));
    assert_eq!(balance(&server, &cashier, "p3", "wallet:p3"), 100_000 - 2_500 + 500);
    drop(server);
    let (passed, report) = verify(data.path());
    assert!(passed, "{report}");
}

// The pages offer the pit's confirmation (european-casino 5.5) only for
// chips taken away (5.4), yet the report listed the seated players without
// saying whose were away: the pit could not tell whom to confirm, nor see a
// confirmation made. Each seated player's entry now says so until they are
// cashed in.
#[test]
fn the_pits_report_says_whose_chips_are_away_and_whether_their_face_is_confirmed() {
    let data = data_dir();
    let server = Server::start(BINARY, data.path(), free_port());
    let [admin, cashier, dealer, pit, p1, p2] = server.staff_and_players();
    server.create_european_table(&admin, "e1");
    server.inspect_and_open(&pit, &dealer, "e1");
    server.seat(&cashier, ("p1", &p1), "e1", 10_000, 5_000);
    server.seat(&cashier, ("p2", &p2), "e1", 10_000, 5_000);
    let players = |server: &Server| {
        let (status, report) = server.http("GET", "/api/tables/e1/report", Some(&pit), None);
        assert_eq!(status, 200, "{report}");
        report["players"]
            .as_array()
            .expect("players")
            .iter()
            .map(|p| (p["player"].as_str().expect("player").to_string(), p["away"].clone()))
            .collect::<BTreeMap<_, _>>()
    };
    let seated = players(&server);
    assert_eq!(
        (&seated["p1"], &seated["p2"]),
        (&Value::Null, &Value::Null),
        "{seated:?}"
    );
    server.ask(&pit, json!({"op": "chips_taken_away", "table": "e1", "player": "p2"}));
    let seated = players(&server);
    assert_eq!(seated["p1"], Value::Null, "{seated:?}");
    assert_eq!(seated["p2"]["confirmed"], json!(false), "{seated:?}");
    assert!(seated["p2"]["at_ms"].as_u64().is_some_and(|at| at > 0), "{seated:?}");
    server.ask(&pit, json!({"op": "confirm_chips", "table": "e1", "player": "p2"}));
    assert_eq!(players(&server)["p2"]["confirmed"], json!(true));
    // Cashed in, p2 holds no chips here: nothing is away any more.
    server.ask(&p2, json!({"op": "leave_table", "id": "p2-leaves", "table": "e1"}));
    assert!(!players(&server).contains_key("p2"));
    drop(server);
    let (passed, report) = verify(data.path());
    assert!(passed, "{report}");
}

fn bsx_table(table: &str) -> Value {
    Server::bsx_table(table)
}

// Maryland ch.3 F(16)-(18), ch.4 D: only the game pays a progressive
// jackpot, and the RNG's pocket and bonus draws are the round's result. The
// attack: at an RNG table a floorperson paid a bonus wager that won nothing
// the jackpot by dispute, three rounds running (32,700.30), the meter never
// reset. A correction at an RNG table is bounded by what the recorded pocket
// and draws returned.
#[test]
fn a_floorperson_pays_no_jackpot_by_dispute_at_an_rng_table() {
    let data = data_dir();
    let server = Server::start(BINARY, data.path(), free_port());
    let [admin, cashier, dealer, pit, p1, _] = server.staff_and_players();
    let floor = create_user(&server, &admin, "floor", "floorperson");
    server.ask(&admin, bsx_table("bsx"));
    server.inspect_and_open(&pit, &dealer, "bsx");
    server.seat(&cashier, ("p1", &p1), "bsx", 100_000, 50_000);
    let mut disputes = 0;
    for round in 1..=3 {
        server.ask(&dealer, json!({"op": "open_betting", "table": "bsx"}));
        server.ask(
            &p1,
            json!({"op": "bonus_wager", "table": "bsx", "wager_id": format!("w{round}")}),
        );
        server.ask(&dealer, json!({"op": "no_more_bets", "table": "bsx"}));
        let (status, drawn) = server.http("POST", "/api/tables/bsx/draw", Some(&dealer), None);
        assert_eq!(status, 200, "{drawn}");
        let (_, recalled) = server.http("GET", &format!("/api/rounds/bsx/{round}"), Some(&pit), None);
        let returned = recalled["bets"]
            .as_array()
            .expect("bets")
            .iter()
            .find(|b| b["bet_id"] == format!("w{round}"))
            .and_then(|b| b["returned"].as_u64())
            .unwrap_or(0);
        let chips = balance(&server, &cashier, "p1", "chips:bsx:p1");
        // Paying the wager a jackpot the wheel did not give is refused.
        for amount in [1_090_010_i64, 1_000_000, 100_000] {
            disputes += 1;
            let (status, code, message) = refused(
                &server,
                &floor,
                json!({"op": "dispute", "table": "bsx", "id": format!("jackpot-{disputes}"),
                       "reason": "the bonus wheel was misread", "corrections": [{"player": "p1", "amount": amount}]}),
            );
            assert_eq!(
                (status, code.as_str()),
                (422, "bad_correction"),
                "{amount} over {returned}: {message}"
            );
        }
        assert_eq!(balance(&server, &cashier, "p1", "chips:bsx:p1"), chips, "round {round}");
    }
    drop(server);
    let (passed, report) = verify(data.path());
    assert!(passed, "{report}");
}

// One person alone moves only so much of a player's money a day. The
// attacks: a cashier cashed a player in up to the day's 10,000.00 and then
// issued match play coupons beyond it; dealers, tied to no table, sold one
// player 10,000.00 in chips at every table. Coupons now count against the
// cashier's day; a dealer's sales are capped at every table together.
#[test]
fn a_cashiers_coupons_and_a_dealers_sales_at_every_table_count_against_one_day() {
    let data = data_dir();
    let server = Server::start(BINARY, data.path(), free_port());
    let [admin, cashier, dealer, pit, _, _] = server.staff_and_players();
    for table in ["d1", "d2"] {
        server.ask(
            &admin,
            json!({"op": "create_table", "table": table, "profile_text": include_str!("../../../profiles/maryland.toml"),
                   "wheel": "double-zero", "in_prison": false, "betting_window_ms": 60000, "outcome": "dealer"}),
        );
        server.inspect_and_open(&pit, &dealer, table);
    }
    server.ask(
        &cashier,
        json!({"op": "cash_in", "id": "c1", "player": "p1", "amount": 990_000}),
    );
    let coupon =
        |id: &str, value: u64| json!({"op": "issue_coupon", "id": id, "player": "p1", "table": "d1", "value": value});
    server.ask(&cashier, coupon("k1", 10_000));
    let (status, code, message) = refused(&server, &cashier, coupon("k2", 100));
    assert_eq!((status, code.as_str()), (403, "over_role_limit"), "{message}");
    assert!(message.contains("10000.00") && message.contains("coupons"), "{message}");
    // The coupon issued, sent again, is no new coupon and counts once.
    server.ask(&cashier, coupon("k1", 10_000));
    // Above the cashier's day, an admin or the pit issues it.
    server.ask(&pit, coupon("k2", 100));
    // Dealers: 10,000.00 at d1, then not a cent more at d2.
    let sale = |id: &str, table: &str, amount: u64| json!({"op": "sell_chips", "id": id, "table": table, "player": "p2", "amount": amount, "chip_value": 100});
    server.ask(&dealer, sale("s1", "d1", 1_000_000));
    let (status, code, message) = refused(&server, &dealer, sale("s2", "d2", 100));
    assert_eq!((status, code.as_str()), (403, "over_role_limit"), "{message}");
    assert!(message.contains("all tables"), "{message}");
    // The sale sent again is the ledger's resend, not a new sale.
    server.ask(&dealer, sale("s1", "d1", 1_000_000));
    server.ask(&pit, sale("s3", "d2", 100));
    drop(server);
    // A restart keeps the day's count.
    let server = Server::start(BINARY, data.path(), free_port());
    let dealer = server.login("dealer", "dealer-password-1");
    let (status, code, _) = refused(&server, &dealer, sale("s4", "d2", 100));
    assert_eq!((status, code.as_str()), (403, "over_role_limit"));
    drop(server);
    let (passed, report) = verify(data.path());
    assert!(passed, "{report}");
}

// Colorado 2206(5): the pit supervisor decides disputes. The attack: the
// same dispute sent twice (a retry after a lost answer) paid twice. A
// dispute now carries the client's id: sent again, it decides nothing
// twice; the id with another decision is refused; a dispute without one is
// refused.
#[test]
fn the_same_dispute_sent_twice_pays_once() {
    let data = data_dir();
    let server = Server::start(BINARY, data.path(), free_port());
    let [admin, cashier, dealer, pit, p1, _] = server.staff_and_players();
    server.ask(
        &admin,
        json!({"op": "create_table", "table": "c1", "profile_text": include_str!("../../../profiles/colorado-2014.toml"),
               "wheel": "single-zero", "in_prison": false, "betting_window_ms": 60000, "outcome": "dealer"}),
    );
    server.inspect_and_open(&pit, &dealer, "c1");
    server.seat(&cashier, ("p1", &p1), "c1", 10_000, 5_000);
    server.ask(&dealer, json!({"op": "open_betting", "table": "c1"}));
    server.ask(
        &p1,
        json!({"op": "place_bet", "table": "c1", "bet_id": "b1", "spot": "17", "stake": 100}),
    );
    server.ask(&dealer, json!({"op": "no_more_bets", "table": "c1"}));
    server.ask(
        &dealer,
        json!({"op": "spin", "table": "c1", "spin": {"pocket": "18", "direction": "opposite", "revolutions": 6}}),
    );
    let chips = balance(&server, &cashier, "p1", "chips:c1:p1");
    let dispute = |id: Option<&str>, amount: i64| {
        let mut d = json!({"op": "dispute", "table": "c1", "reason": "a chip knocked off 17",
                           "corrections": [{"player": "p1", "amount": amount}]});
        if let Some(id) = id {
            d["id"] = json!(id);
        }
        d
    };
    let (status, code, message) = refused(&server, &pit, dispute(None, 1_000));
    assert_eq!((status, code.as_str()), (400, "bad_request"), "{message}");
    assert!(message.contains("id"), "{message}");
    server.ask(&pit, dispute(Some("dispute-1"), 1_000));
    for _ in 0..5 {
        let again = server.ask(&pit, dispute(Some("dispute-1"), 1_000));
        assert_eq!(again["events"], json!([]), "a resend decides nothing: {again}");
        assert_eq!(again["done_before"], json!(true), "and says so: {again}");
    }
    assert_eq!(balance(&server, &cashier, "p1", "chips:c1:p1"), chips + 1_000);
    let (status, code, message) = refused(&server, &pit, dispute(Some("dispute-1"), 2_000));
    assert_eq!((status, code.as_str()), (422, "refused"), "{message}");
    drop(server);
    let (passed, report) = verify(data.path());
    assert!(passed, "{report}");
}

/// What the journal says of table `table`'s gaming day (days since 1970),
/// worked out from its transfers alone: drop, fills, credits, win, staked,
/// dispute corrections, the float's close.
fn books_from_journal(data: &Path, table: &str, day: u64) -> BTreeMap<&'static str, i64> {
    let float = format!("float:{table}");
    let drop_box = format!("drop:{table}");
    let chips = format!("chips:{table}:");
    let layout = format!("layout:{table}");
    let dispute = format!("{table}/dispute/");
    let mut books: BTreeMap<&'static str, i64> = BTreeMap::new();
    let mut float_close = 0i64;
    for (at_ms, id, from, to, amount) in transfers(data) {
        let amount = amount as i64;
        let today = at_ms / 86_400_000 == day;
        if from == float {
            float_close -= amount;
        }
        if to == float {
            float_close += amount;
        }
        if !today {
            continue;
        }
        let mut add = |what: &'static str, a: i64| *books.entry(what).or_default() += a;
        match (from.as_str(), to.as_str()) {
            ("outside", t) if t == drop_box => add("drop", amount),
            (f, t) if f.starts_with("wallet:") && t.starts_with(&chips) => add("drop", amount),
            ("house", t) if t == float => add("fills", amount),
            (f, "house") if f == float => add("credits", amount),
            (f, _) if f == float => {
                add("win", -amount);
                if id.starts_with(&dispute) {
                    add("disputes_paid", amount);
                }
            }
            (_, t) if t == float => {
                add("win", amount);
                if id.starts_with(&dispute) {
                    add("disputes_collected", amount);
                }
            }
            (f, t) if f.starts_with(&chips) && t == layout => add("staked", amount),
            _ => {}
        }
    }
    books.insert("float_close", float_close);
    books
}

// The pit's table report is the ledger's movements of the table's gaming
// day, to the cent. The attack (a new casino's audit): the report summed only
// the rounds it showed, left out dispute corrections, hid the house's fills
// of the float (0.00 shown after 232.00 of fills) and counted an In Prison
// stake in the round it was held and again in the round that released it.
#[test]
fn the_pits_report_equals_the_ledgers_movements_of_the_day_to_the_cent() {
    let data = data_dir();
    let server = Server::start(BINARY, data.path(), free_port());
    let [admin, cashier, dealer, pit, p1, p2] = server.staff_and_players();
    server.ask(
        &admin,
        json!({"op": "create_table", "table": "r1", "profile_text": include_str!("../../../profiles/colorado-2014.toml"),
               "wheel": "single-zero", "in_prison": true, "betting_window_ms": 60000, "outcome": "dealer"}),
    );
    server.inspect_and_open(&pit, &dealer, "r1");
    server.seat(&cashier, ("p1", &p1), "r1", 100_000, 20_000);
    // p2's chips are sold for cash at the table: the drop box.
    server.ask(
        &dealer,
        json!({"op": "sell_chips", "id": "sale-p2", "table": "r1", "player": "p2", "amount": 30_000, "chip_value": 100}),
    );
    let spin = |pocket: &str| {
        server.ask(
            &dealer,
            json!({"op": "spin", "table": "r1", "spin": {"pocket": pocket, "direction": "opposite", "revolutions": 6}}),
        )
    };
    let mut n = 0;
    let mut round = |bets: &[(&String, &str, u64, Option<&str>)], pocket: &str| {
        server.ask(&dealer, json!({"op": "open_betting", "table": "r1"}));
        for (token, spot, stake, choice) in bets {
            n += 1;
            let mut bet =
                json!({"op": "place_bet", "table": "r1", "bet_id": format!("b{n}"), "spot": spot, "stake": stake});
            if let Some(choice) = choice {
                bet["zero_choice"] = json!(choice);
            }
            server.ask(token, bet);
        }
        server.ask(&dealer, json!({"op": "no_more_bets", "table": "r1"}));
        spin(pocket);
    };
    // A straight up wins 35 to 1 from an empty float: the house fills it.
    round(&[(&p1, "17", 1_000, None)], "17");
    // An even-money bet goes to prison on zero, and comes out on red.
    round(&[(&p1, "red", 2_000, Some("prison"))], "0");
    round(&[(&p2, "black", 500, None)], "1");
    // The pit supervisor corrects the last round: a chip knocked off black.
    server.ask(
        &pit,
        json!({"op": "dispute", "table": "r1", "id": "knocked-off", "reason": "a chip knocked off black",
               "corrections": [{"player": "p2", "amount": 500}]}),
    );
    // More rounds than the report lists (its last 100).
    for _ in 0..101 {
        round(&[(&p2, "red", 100, None), (&p1, "black", 100, None)], "2");
    }
    let (status, report) = server.http("GET", "/api/tables/r1/report", Some(&pit), None);
    assert_eq!(status, 200, "{report}");
    assert!(report["rounds"].as_array().expect("rounds").len() <= 100, "{report}");
    let books = &report["books"];
    let day = (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("time")
        .as_millis() as u64)
        / 86_400_000;
    // The float as the ledger holds it.
    let (_, accounts) = server.http("GET", "/api/tables/r1/report", Some(&pit), None);
    let float_now = accounts["accounts"]["float"].as_i64().expect("float");
    // Nobody but the pit, the admin and auditors reads it; nobody signed out.
    let (status, _) = server.http("GET", "/api/tables/r1/report", Some(&p1), None);
    assert_eq!(status, 403);
    let (status, _) = server.http("GET", "/api/tables/r1/report", None, None);
    assert_eq!(status, 401);
    let (status, answer) = server.http("GET", "/api/tables/r1/report?day=2026-13-40", Some(&pit), None);
    assert_eq!(status, 400, "{answer}");
    // A day whose books the table does not keep is said so, not shown as a quiet day.
    for day in ["1970-01-01", "9999-12-31"] {
        let (status, answer) = server.http("GET", &format!("/api/tables/r1/report?day={day}"), Some(&pit), None);
        assert_eq!((status, answer["error"].as_str()), (404, Some("not_found")), "{answer}");
        assert!(
            answer["message"].as_str().unwrap_or("").contains("keeps the books"),
            "{answer}"
        );
    }
    drop(server);
    if (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("time")
        .as_millis() as u64)
        / 86_400_000
        != day
    {
        // The test ran across midnight: its day's books are split; nothing to compare.
        return;
    }
    let journal = books_from_journal(data.path(), "r1", day);
    let figure = |name: &str| books[name].as_i64().unwrap_or_else(|| panic!("{name} in {books}"));
    for name in [
        "drop",
        "fills",
        "credits",
        "win",
        "staked",
        "disputes_paid",
        "disputes_collected",
    ] {
        assert_eq!(figure(name), journal.get(name).copied().unwrap_or(0), "{name}: {books}");
    }
    assert_eq!(figure("float_close"), journal["float_close"], "{books}");
    assert_eq!(figure("float_close"), float_now, "{books}");
    assert!(figure("fills") > 0, "the house filled the float: {books}");
    assert_eq!(figure("disputes_paid"), 500, "{books}");
    assert_eq!(figure("drop"), 20_000 + 30_000, "{books}");
    assert_eq!(figure("rounds"), 104, "{books}");
    // Hold: win over drop, in hundredths of a per cent.
    assert_eq!(
        books["hold_basis_points"].as_i64(),
        Some(figure("win") * 10_000 / figure("drop")),
        "{books}"
    );
    // The In Prison stake of 20.00 is staked once.
    assert_eq!(figure("staked"), 1_000 + 2_000 + 500 + 101 * 200, "{books}");
    let (passed, report) = verify(data.path());
    assert!(passed, "{report}");
}

// A new casino found the cashier's list of the session's transactions empty
// after a reload, and missing what another tab had done: the page kept it in
// its memory. The cage keeps its own record (journal format 14), read back
// whole after a kill -9 and a start: a cashier sees their own, an admin and
// an auditor everyone's, with the currency and the operator's name that a
// receipt carries.
#[test]
fn the_cages_record_of_its_cash_and_coupons_outlives_a_restart() {
    let data = data_dir();
    let port = free_port();
    let mut server = Server::start(BINARY, data.path(), port);
    let [admin, cashier, dealer, pit, p1, _p2] = server.staff_and_players();
    server.create_european_table(&admin, "e1");
    server.inspect_and_open(&pit, &dealer, "e1");
    server.add_users(&admin, &[("cashier2", "cashier"), ("audit", "auditor")]);
    let cashier2 = server.login("cashier2", "cashier2-password-1");
    server.ask(
        &cashier,
        json!({"op": "cash_in", "id": "in-1", "player": "p1", "amount": 25_000}),
    );
    server.ask(
        &cashier,
        json!({"op": "cash_in", "id": "in-1", "player": "p1", "amount": 25_000}),
    );
    server.ask(
        &cashier2,
        json!({"op": "cash_out", "id": "out-1", "player": "p1", "amount": 5_000}),
    );
    server.ask(
        &pit,
        json!({"op": "issue_coupon", "id": "mp-1", "player": "p1", "table": "e1", "value": 2_500}),
    );
    let read = |server: &Server, token: &str| {
        let (status, body) = server.http("GET", "/api/cage/transactions", Some(token), None);
        assert_eq!(status, 200, "{body}");
        body
    };
    let listed = |body: &Value| -> Vec<(String, String, u64, String, String)> {
        body["transactions"]
            .as_array()
            .expect("transactions")
            .iter()
            .map(|t| {
                let text = |k: &str| t[k].as_str().expect(k).to_string();
                (
                    text("kind"),
                    text("player"),
                    t["amount"].as_u64().expect("amount"),
                    text("reference"),
                    text("by"),
                )
            })
            .collect()
    };
    let everyone = vec![
        (
            "coupon".to_string(),
            "p1".to_string(),
            2_500,
            "mp-1".to_string(),
            "pit".to_string(),
        ),
        ("cash_out".into(), "p1".into(), 5_000, "out-1".into(), "cashier2".into()),
        ("cash_in".into(), "p1".into(), 25_000, "in-1".into(), "cashier".into()),
    ];
    let whole = read(&server, &admin);
    assert_eq!(listed(&whole), everyone, "newest first, the resend once");
    assert_eq!(whole["currency"], "USD", "the first run's tables'");
    assert_eq!(whole["operator"], "Test House");
    assert_eq!(
        listed(&read(&server, &cashier)),
        everyone[2..].to_vec(),
        "a cashier's own"
    );
    assert_eq!(listed(&read(&server, &cashier2)), everyone[1..2].to_vec());
    assert_eq!(
        listed(&read(&server, &pit)),
        everyone[..1].to_vec(),
        "the pit's own coupon"
    );
    let (status, _) = server.http("GET", "/api/cage/transactions", Some(&p1), None);
    assert_eq!(status, 403, "a player reads no cage's record");
    let (status, body) = server.http("GET", "/api/cage/transactions?day=2026-13-01", Some(&admin), None);
    assert_eq!(status, 400, "{body}");
    // A day the cage keeps no record of is refused, not shown as a quiet day.
    for day in ["1970-01-01", "9999-12-31"] {
        let (status, body) = server.http("GET", &format!("/api/cage/transactions?day={day}"), Some(&admin), None);
        assert_eq!(
            (status, body["error"].as_str()),
            (404, Some("not_found")),
            "{day}: {body}"
        );
        assert!(
            body["message"]
                .as_str()
                .is_some_and(|m| m.contains("newest 7 gaming days")),
            "{body}"
        );
    }

    // kill -9 and a start on the same data: the record is read back whole.
    server.kill();
    drop(server);
    let server = Server::start(BINARY, data.path(), port);
    let admin = server.login("admin", croupier_testkit::ADMIN_PASSWORD);
    let audit = server.login("audit", "audit-password-1");
    assert_eq!(read(&server, &admin)["transactions"], whole["transactions"]);
    assert_eq!(read(&server, &audit)["transactions"], whole["transactions"]);
    let day = whole["day"].as_str().expect("day");
    let (_, that_day) = server.http("GET", &format!("/api/cage/transactions?day={day}"), Some(&admin), None);
    assert_eq!(that_day["transactions"], whole["transactions"]);
    let (ok, report) = verify(data.path());
    assert!(ok, "{report}");
}
