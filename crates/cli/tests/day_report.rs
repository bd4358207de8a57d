//! The back office's report of a gaming day for the whole casino, through
//! the binary: two tables, two dealers taking turns, a fill of a float, cash
//! and wallet drops; every figure checked to the cent against what the
//! journal says, worked out here from `croupier entries` alone.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use croupier_testkit::{data_dir, free_port, Server};
use serde_json::{json, Value};

const BINARY: &str = env!("CARGO_BIN_EXE_croupier");

/// A journal entry: its time, who made it, the request, its events and its
/// transfers (id, from, to, amount).
struct Entry {
    at_ms: u64,
    actor: String,
    request: Value,
    events: Vec<Value>,
    transfers: Vec<(String, String, String, u64)>,
}

/// The object inside `v` that holds a request's body (actor, request, events).
fn body_in(v: &Value) -> Option<&Value> {
    match v {
        Value::Object(map) if map.contains_key("request") && map.contains_key("actor") => Some(v),
        Value::Object(map) => map.values().find_map(body_in),
        Value::Array(list) => list.iter().find_map(body_in),
        _ => None,
    }
}

/// The journal's entries, as `croupier entries` prints them.
fn entries(data: &Path) -> Vec<Entry> {
    let out = Command::new(BINARY)
        .args(["entries", "--data", data.to_str().expect("path")])
        .output()
        .expect("croupier entries");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut all = Vec::new();
    for line in String::from_utf8(out.stdout).expect("UTF-8").lines() {
        let entry: Value = serde_json::from_str(line).expect("a JSON line");
        let record = &entry["record"];
        let list = match record["type"].as_str() {
            Some("commit") => record["transfers"].as_array().cloned().unwrap_or_default(),
            Some("transfer") => vec![record.clone()],
            _ => Vec::new(),
        };
        let body = body_in(record).cloned().unwrap_or(Value::Null);
        all.push(Entry {
            at_ms: entry["at_ms"].as_u64().expect("at_ms"),
            actor: body["actor"]["username"].as_str().unwrap_or_default().to_string(),
            request: body["request"].clone(),
            events: body["events"].as_array().cloned().unwrap_or_default(),
            transfers: list
                .iter()
                .map(|t| {
                    (
                        t["id"].as_str().expect("id").to_string(),
                        t["from"].as_str().expect("from").to_string(),
                        t["to"].as_str().expect("to").to_string(),
                        t["amount"].as_u64().expect("amount"),
                    )
                })
                .collect(),
        });
    }
    all
}

/// Figures by name (`drop_cash`, `win`, `open_ms`...).
type Figures = BTreeMap<&'static str, i64>;

/// Table `table`'s figures of UTC day `day` and each dealer's share, from
/// the journal alone: the dealer on duty is whoever last opened the table,
/// opened or closed betting or keyed a spin; open play the time between the
/// table's entries while it is open.
fn from_journal(all: &[Entry], table: &str, day: u64) -> (Figures, BTreeMap<String, Figures>) {
    let (float, drop_box, chips) = (
        format!("float:{table}"),
        format!("drop:{table}"),
        format!("chips:{table}:"),
    );
    let mut books = Figures::new();
    let mut dealers: BTreeMap<String, Figures> = BTreeMap::new();
    let (mut on_duty, mut open_since) = ("-".to_string(), None::<u64>);
    for e in all.iter().filter(|e| e.request["table"] == table) {
        let today = e.at_ms / 86_400_000 == day;
        let op = e.request["op"].as_str().unwrap_or_default();
        if ["open_table", "open_betting", "no_more_bets", "spin", "draw"].contains(&op) && e.actor != "system" {
            on_duty = e.actor.clone();
        }
        if let (Some(since), true) = (open_since, today) {
            *books.entry("open_ms").or_default() += (e.at_ms - since) as i64;
        }
        for (_, from, to, amount) in &e.transfers {
            let a = *amount as i64;
            let what = match (from.as_str(), to.as_str()) {
                ("outside", t) if t == drop_box => Some(("drop_cash", a)),
                (f, t) if f.starts_with("wallet:") && t.starts_with(&chips) => Some(("drop_wallet", a)),
                ("house", t) if t == float => Some(("fills", a)),
                (f, "house") if f == float => Some(("credits", a)),
                (f, _) if f == float => Some(("win", -a)),
                (_, t) if t == float => Some(("win", a)),
                _ => None,
            };
            if let (Some((name, a)), true) = (what, today) {
                *books.entry(name).or_default() += a;
                if name != "fills" && name != "credits" {
                    *dealers.entry(on_duty.clone()).or_default().entry(name).or_default() += a;
                }
            }
        }
        let settled = e
            .events
            .iter()
            .any(|v| v["type"] == "round_settled" && !v["pocket"].is_null());
        if settled && today {
            *books.entry("rounds").or_default() += 1;
            *dealers.entry(on_duty.clone()).or_default().entry("rounds").or_default() += 1;
        }
        let opened = e.events.iter().any(|v| v["type"] == "table_opened");
        let closed = e.events.iter().any(|v| v["type"] == "table_closed");
        let open = (open_since.is_some() || opened) && !closed;
        open_since = open.then_some(e.at_ms);
    }
    for f in std::iter::once(&mut books).chain(dealers.values_mut()) {
        let drop = f.get("drop_cash").copied().unwrap_or(0) + f.get("drop_wallet").copied().unwrap_or(0);
        f.insert("drop", drop);
    }
    (books, dealers)
}

fn utc_day() -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("time");
    now.as_millis() as u64 / 86_400_000
}

/// Minor units as the CSV writes money.
fn decimal(minor: i64) -> String {
    format!(
        "{}{}.{:02}",
        if minor < 0 { "-" } else { "" },
        minor.abs() / 100,
        minor.abs() % 100
    )
}

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
        server.ask(by, json!({"op": "open_betting", "table": table}));
        server.ask(
            player,
            json!({"op": "place_bet", "table": table, "bet_id": format!("b{n}"), "spot": spot, "stake": stake}),
        );
        server.ask(by, json!({"op": "no_more_bets", "table": table}));
        server.ask(
            by,
            json!({"op": "spin", "table": table, "spin": {"pocket": pocket, "direction": "opposite", "revolutions": 6}}),
        );
        std::thread::sleep(std::time::Duration::from_millis(150));
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

    let all = entries(data.path());
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
