//! The floor overview and a dealer's shift report, through the binary: two
//! tables, two dealers taking turns, cash and wallet drops, a tip, a fill
//! slip waiting and an emergency; every figure checked to the cent against
//! what the journal says, worked out from `croupier entries` alone.

use std::collections::BTreeMap;

use croupier_testkit::{data_dir, free_port, Server};
use serde_json::{json, Value};

const BINARY: &str = env!("CARGO_BIN_EXE_croupier");

mod journal;
use journal::{decimal, entries, from_journal, utc_day, Entry, Figures};

/// The dealer on duty at `table` now: whoever last ran its game.
fn on_duty(all: &[Entry], table: &str) -> Option<String> {
    all.iter()
        .rev()
        .find(|e| {
            e.request["table"] == table
                && e.actor != "system"
                && ["open_table", "open_betting", "no_more_bets", "spin", "draw"]
                    .contains(&e.request["op"].as_str().unwrap_or_default())
        })
        .map(|e| e.actor.clone())
}

/// The balance of `account` now: every transfer into it less every one out.
fn balance(all: &[Entry], account: &str) -> i64 {
    all.iter()
        .flat_map(|e| &e.transfers)
        .map(|(_, from, to, amount)| {
            let a = *amount as i64;
            (if to == account { a } else { 0 }) - (if from == account { a } else { 0 })
        })
        .sum()
}

fn get(f: &Figures, name: &str) -> i64 {
    f.get(name).copied().unwrap_or(0)
}

// Issue 58: the pit had no view of every table at once, and a dealer's
// shift could be read only off the day report's totals. The floor overview
// shows each table's game, dealer, float and today's drop and win; the
// shift report each table a dealer dealt at, with rounds per hour and tips:
// each figure equal to the ledger's movements to the cent.
#[test]
fn the_floor_overview_and_a_dealers_shift_equal_the_journals_movements() {
    let data = data_dir();
    let server = Server::start(BINARY, data.path(), free_port());
    let [admin, cashier, dealer, pit, p1, p2] = server.staff_and_players();
    server.add_users(&admin, &[("dealer2", "dealer"), ("auditor", "auditor")]);
    let dealer2 = server.login("dealer2", "dealer2-password-1");
    let auditor = server.login("auditor", "auditor-password-1");
    for table in ["e1", "e2"] {
        server.create_european_table(&admin, table);
    }
    server.ask(
        &pit,
        json!({"op": "set_limits", "table": "e1", "limits": [{"kind": "straight", "min": 100, "max": 5_000}, {"kind": "red", "min": 500, "max": 50_000}]}),
    );
    server.inspect_and_open(&pit, &dealer, "e1");
    server.inspect_and_open(&pit, &dealer2, "e2");
    server.seat(&cashier, ("p1", &p1), "e1", 100_000, 20_000);
    server.ask(
        &dealer2,
        json!({"op": "sell_chips", "id": "sale-p2", "table": "e2", "player": "p2", "amount": 30_000, "chip_value": 100}),
    );
    let mut n = 0;
    let mut round = |by: &String, table: &str, player: &String, spot: &str, stake: u64, pocket: &str| {
        n += 1;
        journal::deal_round(&server, n, by, table, player, (spot, stake, pocket));
    };
    round(&dealer, "e1", &p1, "17", 100, "17");
    round(&dealer, "e1", &p1, "red", 1_000, "2");
    // dealer2 relieves dealer at e1; p1 tips them and buys more.
    round(&dealer2, "e1", &p1, "black", 2_000, "2");
    server.ask(&p1, json!({"op": "tip", "id": "tip-1", "table": "e1", "amount": 300}));
    server.ask(
        &p1,
        json!({"op": "buy_in", "id": "more-p1", "table": "e1", "amount": 5_000, "chip_value": 100}),
    );
    round(&dealer2, "e2", &p2, "black", 3_000, "1");
    round(&dealer, "e2", &p2, "red", 700, "4");
    server.ask(
        &dealer,
        json!({"op": "close_table", "table": "e2", "wheel_cover_locked": true}),
    );
    // A fill of e2's float waits for the cage; e1 stands in an emergency with betting open.
    server.ask(
        &pit,
        json!({"op": "request_fill", "table": "e2", "id": "fill-1", "amount": 5_000}),
    );
    server.ask(&dealer2, json!({"op": "open_betting", "table": "e1"}));
    server.ask(
        &pit,
        json!({"op": "declare_emergency", "table": "e1", "reason": "a fight at the table"}),
    );
    let day = utc_day();

    let (status, floor) = server.http("GET", "/api/floor", Some(&pit), None);
    assert_eq!(status, 200, "{floor}");
    for token in [&admin, &auditor] {
        let (status, same) = server.http("GET", "/api/floor", Some(token), None);
        assert_eq!((status, &same["tables"]), (200, &floor["tables"]));
    }
    let (_, layout) = server.http("GET", "/api/public/tables/e1/layout", None, None);
    let shift_of =
        |who: &str, token: &String| server.http("GET", &format!("/api/reports/shift?dealer={who}"), Some(token), None);
    let (status, shift) = shift_of("dealer2", &pit);
    assert_eq!(status, 200, "{shift}");
    let (status, by_auditor) = shift_of("dealer2", &auditor);
    assert_eq!((status, &by_auditor), (200, &shift));
    let (status, first_shift) = shift_of("dealer", &admin);
    assert_eq!(status, 200, "{first_shift}");
    let csv = server.answer("GET", "/api/reports/shift?dealer=dealer2&format=csv", Some(&pit), None);
    // The pit's own shift: they dealt nowhere, and the report says so.
    let (status, nowhere) = shift_of("pit", &pit);
    assert_eq!(
        (status, nowhere["tables"].as_array().map(Vec::len)),
        (200, Some(0)),
        "{nowhere}"
    );
    assert_eq!(
        (
            nowhere["total"]["rounds"].as_u64(),
            nowhere["total"]["from_ms"].as_u64()
        ),
        (Some(0), None)
    );

    // Refusals: players, dealers and the cage are not the back office; nobody signed in is no one.
    for path in ["/api/floor", "/api/reports/shift?dealer=dealer2"] {
        for token in [&p1, &dealer, &cashier] {
            let (status, answer) = server.http("GET", path, Some(token), None);
            assert_eq!(
                (status, answer["error"].as_str()),
                (403, Some("forbidden")),
                "{path}: {answer}"
            );
        }
        let (status, answer) = server.http("GET", path, None, None);
        assert_eq!(
            (status, answer["error"].as_str()),
            (401, Some("unauthenticated")),
            "{path}: {answer}"
        );
    }
    for (query, why) in [
        ("", "dealer:"),
        ("dealer=", "dealer:"),
        ("dealer=nobody", "dealer:"),
        ("dealer=p1", "dealer:"),
        ("dealer=dealer2&day=2026-13-40", "day:"),
        ("dealer=dealer2&format=pdf", "format:"),
    ] {
        let (status, answer) = server.http("GET", &format!("/api/reports/shift?{query}"), Some(&pit), None);
        assert_eq!(
            (status, answer["error"].as_str()),
            (400, Some("bad_request")),
            "{query}: {answer}"
        );
        assert!(
            answer["message"].as_str().unwrap_or("").starts_with(why),
            "{query}: {answer}"
        );
    }
    let (status, answer) = server.http(
        "GET",
        "/api/reports/shift?dealer=dealer2&day=1970-01-01",
        Some(&pit),
        None,
    );
    assert_eq!((status, answer["error"].as_str()), (404, Some("not_found")), "{answer}");
    drop(server);
    if utc_day() != day {
        // The test ran across midnight: its day's books are split; nothing to compare.
        return;
    }

    let all = entries(BINARY, data.path());
    let tables = floor["tables"].as_array().expect("tables");
    let ids: Vec<&str> = tables.iter().map(|t| t["table"].as_str().expect("table")).collect();
    assert_eq!(ids, ["e1", "e2", "t1", "t2"], "{floor}");
    let mut shares: BTreeMap<(&str, String), Figures> = BTreeMap::new();
    for (t, table) in ids.iter().zip(tables) {
        let (books, dealers) = from_journal(&all, t, day);
        assert_eq!(table["drop"].as_i64(), Some(get(&books, "drop")), "{t}: {table}");
        assert_eq!(table["win"].as_i64(), Some(get(&books, "win")), "{t}: {table}");
        assert_eq!(
            table["rounds_today"].as_i64(),
            Some(get(&books, "rounds")),
            "{t}: {table}"
        );
        assert_eq!(
            table["float"].as_i64(),
            Some(balance(&all, &format!("float:{t}"))),
            "{t}: {table}"
        );
        assert_eq!(
            table["dealer"].as_str().map(str::to_string),
            on_duty(&all, t),
            "{t}: {table}"
        );
        let opened = all
            .iter()
            .filter(|e| e.request["table"] == *t && e.request["op"] == "open_betting")
            .count();
        assert_eq!(table["round"].as_u64(), Some(opened as u64), "{t}: {table}");
        for (name, share) in dealers {
            shares.insert((t, name), share);
        }
    }
    let [e1, e2] = [&tables[0], &tables[1]];
    assert_eq!(
        (e1["phase"].as_str(), e2["phase"].as_str()),
        (Some("betting"), Some("closed"))
    );
    assert_eq!(
        (e1["dealer"].as_str(), e2["dealer"].as_str()),
        (Some("dealer2"), Some("dealer"))
    );
    assert_eq!((e1["drop"].as_u64(), e2["drop"].as_u64()), (Some(25_000), Some(30_000)));
    assert_eq!(e1["alerts"]["emergency"], true, "{e1}");
    assert_eq!(e2["alerts"]["emergency"], false, "{e2}");
    assert_eq!(
        (e1["alerts"]["slips_open"].as_u64(), e2["alerts"]["slips_open"].as_u64()),
        (Some(0), Some(1))
    );
    assert_eq!(e2["alerts"]["not_inspected"], true, "closed since its inspection: {e2}");
    assert_eq!(e1["jurisdiction"].as_str().map(str::is_empty), Some(false), "{e1}");
    // The posted limits are the layout's.
    let posted: Vec<(Value, Value, Value)> = layout["kinds"]
        .as_array()
        .expect("kinds")
        .iter()
        .map(|k| (k["kind"].clone(), k["min"].clone(), k["max"].clone()))
        .collect();
    let shown: Vec<(Value, Value, Value)> = e1["limits"]
        .as_array()
        .expect("limits")
        .iter()
        .map(|k| (k["kind"].clone(), k["min"].clone(), k["max"].clone()))
        .collect();
    assert!(shown.contains(&(json!("straight"), json!(100), json!(5_000))), "{e1}");
    assert_eq!(shown, posted);

    // The shifts: each table's the dealer's share of the journal's movements.
    for (who, report) in [("dealer2", &shift), ("dealer", &first_shift)] {
        assert_eq!(report["dealer"].as_str(), Some(who));
        let listed = report["tables"].as_array().expect("tables");
        let dealt: Vec<&str> = shares
            .iter()
            .filter(|((_, name), f)| name == who && (get(f, "rounds") > 0 || get(f, "from_ms") > 0))
            .map(|((t, _), _)| *t)
            .collect();
        let names: Vec<&str> = listed.iter().map(|t| t["table"].as_str().expect("table")).collect();
        assert_eq!(names, dealt, "{report}");
        let mut total = Figures::new();
        for t in listed {
            let name = t["table"].as_str().expect("table");
            let journal = &shares[&(name, who.to_string())];
            let f = &t["figures"];
            for figure in [
                "drop",
                "drop_cash",
                "drop_wallet",
                "win",
                "rounds",
                "open_ms",
                "tips",
                "from_ms",
                "to_ms",
            ] {
                assert_eq!(
                    f[figure].as_i64(),
                    Some(get(journal, figure)),
                    "{who} at {name}: {figure} in {f}"
                );
            }
            let hold = (get(journal, "drop") > 0).then(|| get(journal, "win") * 10_000 / get(journal, "drop"));
            assert_eq!(f["hold_basis_points"].as_i64(), hold, "{f}");
            let pace =
                (get(journal, "open_ms") > 0).then(|| get(journal, "rounds") * 360_000_000 / get(journal, "open_ms"));
            assert_eq!(f["rounds_per_hour_hundredths"].as_i64(), pace, "{f}");
            assert!(pace.is_some(), "{who} dealt at {name} while it was open: {f}");
            for (k, v) in journal {
                match *k {
                    "from_ms" => {
                        total.entry(k).and_modify(|t| *t = (*t).min(*v)).or_insert(*v);
                    }
                    "to_ms" => {
                        total.entry(k).and_modify(|t| *t = (*t).max(*v)).or_insert(*v);
                    }
                    _ => *total.entry(k).or_default() += v,
                }
            }
        }
        for figure in ["drop", "win", "rounds", "open_ms", "tips", "from_ms", "to_ms"] {
            assert_eq!(
                report["total"][figure].as_i64(),
                Some(get(&total, figure)),
                "{who}: {figure}"
            );
        }
    }
    assert_eq!(
        shift["total"]["tips"].as_u64(),
        Some(300),
        "p1's tip while dealer2 dealt e1: {shift}"
    );
    assert_eq!(shift["total"]["drop_wallet"].as_u64(), Some(5_000), "{shift}");
    assert_eq!(shift["total"]["rounds"].as_u64(), Some(2), "{shift}");
    assert_eq!(first_shift["total"]["rounds"].as_u64(), Some(3), "{first_shift}");

    // The CSV: the same figures, as money strings and UTC times.
    assert_eq!(csv.status, 200);
    assert!(
        csv.header("content-type").unwrap_or("").starts_with("text/csv"),
        "{:?}",
        csv.headers
    );
    let text = csv.body.as_str().expect("CSV text");
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(
        rows[0].join(","),
        "row,dealer,table,profile,from_utc,to_utc,drop,drop_cash,drop_wallet,win,hold_percent,rounds,open_hours,rounds_per_hour,tips"
    );
    let listed = shift["tables"].as_array().expect("tables");
    assert_eq!(rows.len(), 1 + listed.len() + 1, "{text}");
    for (row, (kind, table, f)) in rows[1..].iter().zip(
        listed
            .iter()
            .map(|t| ("table", t["table"].as_str().expect("table"), &t["figures"]))
            .chain([("shift", "", &shift["total"])]),
    ) {
        assert_eq!((row[0], row[1], row[2]), (kind, "dealer2", table), "{text}");
        let money = |name: &str| decimal(f[name].as_i64().expect("figure"));
        assert_eq!(
            (row[6], row[9], row[14]),
            (money("drop").as_str(), money("win").as_str(), money("tips").as_str()),
            "{text}"
        );
        assert_eq!(row[11], f["rounds"].to_string(), "{text}");
        assert!(row[4].ends_with('Z') && row[4] <= row[5], "{text}");
    }
    let (passed, verified) = croupier_testkit::verify(BINARY, data.path(), &[]);
    assert!(passed, "{verified}");
}
