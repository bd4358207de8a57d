//! The back office's report of a gaming day for the whole casino, through
//! the binary: two tables, two dealers taking turns, a fill of a float, cash
//! and wallet drops; every figure checked to the cent against what the
//! journal says, worked out here from `croupier entries` alone.

use std::collections::BTreeMap;

use croupier_testkit::{data_dir, free_port, Server};
use serde_json::{json, Value};

const BINARY: &str = env!("CARGO_BIN_EXE_croupier");

mod journal;
use journal::{decimal, entries, from_journal, utc_day, Figures};

// Issue 58: the back office read each table's books one by one and added
// them up by hand. The casino's report of a gaming day gives every table's,
// the casino's sums and each dealer's share, each equal to the ledger's
// movements of the day to the cent.
#[test]
fn the_casinos_day_report_equals_the_journals_movements_table_by_table_and_dealer_by_dealer() {
    let data = data_dir();
    let server = Server::start(BINARY, data.path(), free_port());
    let [admin, cashier, dealer, pit, p1, p2] = server.staff_and_players();
    server.add_users(&admin, &[("dealer2", "dealer"), ("auditor", "auditor")]);
    let dealer2 = server.login("dealer2", "dealer2-password-1");
    for table in ["e1", "e2"] {
        server.create_european_table(&admin, table);
    }
    server.inspect_and_open(&pit, &dealer, "e1");
    server.inspect_and_open(&pit, &dealer2, "e2");
    // A wallet drop at e1, a cash drop at e2.
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
    // A straight up paid 35 to 1 from an empty float: the house fills it.
    round(&dealer, "e1", &p1, "17", 100, "17");
    round(&dealer, "e1", &p1, "red", 1_000, "2");
    // dealer2 relieves dealer at e1; p1 buys more from their wallet meanwhile.
    round(&dealer2, "e1", &p1, "black", 2_000, "2");
    server.ask(
        &p1,
        json!({"op": "buy_in", "id": "more-p1", "table": "e1", "amount": 5_000, "chip_value": 100}),
    );
    round(&dealer2, "e1", &p1, "red", 500, "3");
    round(&dealer2, "e2", &p2, "black", 3_000, "1");
    // dealer takes e2 over.
    round(&dealer, "e2", &p2, "red", 700, "4");
    server.ask(
        &dealer,
        json!({"op": "close_table", "table": "e2", "wheel_cover_locked": true}),
    );
    let day = utc_day();
    let (status, report) = server.http("GET", "/api/reports/day", Some(&pit), None);
    assert_eq!(status, 200, "{report}");
    let csv = server.answer("GET", "/api/reports/day?format=csv", Some(&admin), None);
    let (status, by_auditor) = server.http(
        "GET",
        &format!("/api/reports/day?day={}", report["day"].as_str().expect("day")),
        Some(&server.login("auditor", "auditor-password-1")),
        None,
    );
    assert_eq!((status, &by_auditor), (200, &report));

    // Refusals: players, dealers and the cage are not the back office.
    for token in [&p1, &dealer, &cashier] {
        let (status, answer) = server.http("GET", "/api/reports/day", Some(token), None);
        assert_eq!((status, answer["error"].as_str()), (403, Some("forbidden")), "{answer}");
    }
    let (status, _) = server.http("GET", "/api/reports/day", None, None);
    assert_eq!(status, 401);
    for (query, why) in [
        ("day=2026-13-40", "day:"),
        ("day=yesterday", "day:"),
        ("format=pdf", "format:"),
    ] {
        let (status, answer) = server.http("GET", &format!("/api/reports/day?{query}"), Some(&pit), None);
        assert_eq!(
            (status, answer["error"].as_str()),
            (400, Some("bad_request")),
            "{answer}"
        );
        assert!(answer["message"].as_str().unwrap_or("").starts_with(why), "{answer}");
    }
    for day in ["1970-01-01", "9999-12-31"] {
        let (status, answer) = server.http("GET", &format!("/api/reports/day?day={day}"), Some(&pit), None);
        assert_eq!((status, answer["error"].as_str()), (404, Some("not_found")), "{answer}");
        assert!(
            answer["message"].as_str().unwrap_or("").contains("keeps the books"),
            "{answer}"
        );
    }
    drop(server);
    if utc_day() != day {
        // The test ran across midnight: its day's books are split; nothing to compare.
        return;
    }

    let all = entries(BINARY, data.path());
    let figure = |v: &Value, name: &str| v[name].as_i64().unwrap_or_else(|| panic!("{name} in {v}"));
    let mut casino = Figures::new();
    let mut dealers: BTreeMap<String, Figures> = BTreeMap::new();
    let tables = report["tables"].as_array().expect("tables");
    // The first run's tables t1 and t2 keep the day too, with nothing moved.
    let ids: Vec<&str> = tables.iter().map(|t| t["table"].as_str().expect("table")).collect();
    assert_eq!(ids, ["e1", "e2", "t1", "t2"], "{report}");
    for (t, table) in ids.iter().zip(tables) {
        let (journal, shares) = from_journal(&all, t, day);
        let f = &table["figures"];
        for name in [
            "drop",
            "drop_cash",
            "drop_wallet",
            "fills",
            "credits",
            "win",
            "rounds",
            "open_ms",
        ] {
            let expected = journal.get(name).copied().unwrap_or(0);
            assert_eq!(figure(f, name), expected, "{t} {name}: {f}");
            *casino.entry(name).or_default() += expected;
        }
        let get = |name: &str| journal.get(name).copied().unwrap_or(0);
        let hold = (get("drop") > 0).then(|| get("win") * 10_000 / get("drop"));
        assert_eq!(f["hold_basis_points"].as_i64(), hold, "{f}");
        let pace = (get("open_ms") > 0).then(|| get("rounds") * 360_000_000 / get("open_ms"));
        assert_eq!(f["rounds_per_hour_hundredths"].as_i64(), pace, "{f}");
        if t.starts_with('e') {
            assert!(hold.is_some() && pace.is_some(), "{t} played: {f}");
        }
        for (name, share) in shares {
            let sum = dealers.entry(name).or_default();
            for (k, v) in share {
                *sum.entry(k).or_default() += v;
            }
        }
    }
    let c = &report["casino"];
    for (name, expected) in &casino {
        assert_eq!(figure(c, name), *expected, "casino {name}: {c}");
    }
    assert!(casino["fills"] > 0, "the house filled e1's float: {report}");
    assert_eq!(casino["drop"], 20_000 + 5_000 + 30_000, "{report}");
    assert_eq!(casino["rounds"], 6, "{report}");
    assert_eq!(
        c["hold_basis_points"].as_i64(),
        Some(casino["win"] * 10_000 / casino["drop"])
    );

    let listed = report["dealers"].as_array().expect("dealers");
    let names: Vec<&str> = listed.iter().map(|d| d["dealer"].as_str().expect("dealer")).collect();
    // p1's first wallet drop came before anyone opened betting at e1 but after dealer opened it.
    assert_eq!(names, ["dealer", "dealer2"], "{report}");
    for d in listed {
        let name = d["dealer"].as_str().expect("dealer");
        let journal = &dealers[name];
        for figure_name in ["drop", "drop_cash", "drop_wallet", "win", "rounds"] {
            assert_eq!(
                figure(d, figure_name),
                journal.get(figure_name).copied().unwrap_or(0),
                "{name} {figure_name}: {d}"
            );
        }
    }
    assert_eq!(dealers["dealer"]["rounds"], 3);
    assert_eq!(
        dealers["dealer2"]["drop_wallet"], 5_000,
        "the buy-in while dealer2 dealt e1"
    );
    assert_eq!(dealers["dealer2"]["drop_cash"], 30_000, "dealer2's own sale at e2");

    // The CSV: the same figures, as money strings.
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
        "row,name,profile,drop,drop_cash,drop_wallet,fills,credits,win,hold_percent,rounds,open_hours,rounds_per_hour"
    );
    assert_eq!(rows.len(), 1 + 4 + 1 + 2, "{text}");
    assert_eq!((rows[3][1], rows[4][1]), ("t1", "t2"), "{text}");
    let played = rows[1..3].iter().chain(&rows[5..]);
    for (row, (kind, name, f)) in played.zip([
        ("table", "e1", &tables[0]["figures"]),
        ("table", "e2", &tables[1]["figures"]),
        ("casino", "casino", c),
        ("dealer", "dealer", &listed[0]),
        ("dealer", "dealer2", &listed[1]),
    ]) {
        assert_eq!((row[0], row[1]), (kind, name), "{text}");
        assert_eq!(row[3], decimal(figure(f, "drop")), "{text}");
        assert_eq!(row[8], decimal(figure(f, "win")), "{text}");
        assert_eq!(row[9], decimal(figure(f, "hold_basis_points")), "{text}");
        assert_eq!(row[10], figure(f, "rounds").to_string(), "{text}");
    }
    let (passed, verified) = croupier_testkit::verify(BINARY, data.path(), &[]);
    assert!(passed, "{verified}");
}
