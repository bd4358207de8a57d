//! The journal as `croupier entries` prints it, and a table's books of a
//! day worked out from it alone: the binary tests of the reports (the day
//! report, the floor overview, a dealer's shift) check every figure against
//! these, never against the server's own sums. Each test file uses a part.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use croupier_testkit::Server;
use serde_json::{json, Value};

/// A journal entry: its time, who made it, the request, its events and its
/// transfers (id, from, to, amount).
pub struct Entry {
    pub at_ms: u64,
    pub actor: String,
    pub request: Value,
    pub events: Vec<Value>,
    pub transfers: Vec<(String, String, String, u64)>,
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
pub fn entries(binary: &str, data: &Path) -> Vec<Entry> {
    let out = Command::new(binary)
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
pub type Figures = BTreeMap<&'static str, i64>;

/// Table `table`'s figures of UTC day `day` and each dealer's share, from
/// the journal alone: the dealer on duty is whoever last opened the table,
/// opened or closed betting or keyed a spin; open play the time between the
/// table's entries while it is open. A dealer's share also holds their
/// shift (journal format 16): the open play up to each entry goes to
/// whoever was on duty until it; `tips` what went into the tip box while
/// they were on duty; `from_ms` and `to_ms` the first and last entries
/// written while they were on duty and the table open, or that made them so.
pub fn from_journal(all: &[Entry], table: &str, day: u64) -> (Figures, BTreeMap<String, Figures>) {
    let (float, drop_box, chips, tip_box) = (
        format!("float:{table}"),
        format!("drop:{table}"),
        format!("chips:{table}:"),
        format!("tips:{table}"),
    );
    let mut books = Figures::new();
    let mut dealers: BTreeMap<String, Figures> = BTreeMap::new();
    let (mut on_duty, mut open_since) = ("-".to_string(), None::<u64>);
    for e in all.iter().filter(|e| e.request["table"] == table) {
        let today = e.at_ms / 86_400_000 == day;
        let op = e.request["op"].as_str().unwrap_or_default();
        let until_now = on_duty.clone();
        let relieved =
            ["open_table", "open_betting", "no_more_bets", "spin", "draw"].contains(&op) && e.actor != "system";
        if relieved {
            on_duty = e.actor.clone();
        }
        if let (Some(since), true) = (open_since, today) {
            *books.entry("open_ms").or_default() += (e.at_ms - since) as i64;
            *dealers.entry(until_now).or_default().entry("open_ms").or_default() += (e.at_ms - since) as i64;
        }
        if today && on_duty != "-" && (open_since.is_some() || relieved) {
            let shift = dealers.entry(on_duty.clone()).or_default();
            shift.entry("from_ms").or_insert(e.at_ms as i64);
            shift.insert("to_ms", e.at_ms as i64);
        }
        for (_, from, to, amount) in &e.transfers {
            let a = *amount as i64;
            let what = match (from.as_str(), to.as_str()) {
                ("outside", t) if t == drop_box => Some(("drop_cash", a)),
                (f, t) if f.starts_with("wallet:") && t.starts_with(&chips) => Some(("drop_wallet", a)),
                ("house", t) if t == float => Some(("fills", a)),
                (_, t) if t == tip_box => Some(("tips", a)),
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

pub fn utc_day() -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("time");
    now.as_millis() as u64 / 86_400_000
}

/// Minor units as the CSV writes money.
pub fn decimal(minor: i64) -> String {
    format!(
        "{}{}.{:02}",
        if minor < 0 { "-" } else { "" },
        minor.abs() / 100,
        minor.abs() % 100
    )
}

/// Round `n` at `table`, dealt by `by`: betting opened, `player`'s bet
/// `b{n}` of `stake` on `spot`, no more bets, the ball in `pocket`.
pub fn deal_round(
    server: &Server,
    n: u32,
    by: &str,
    table: &str,
    player: &str,
    (spot, stake, pocket): (&str, u64, &str),
) {
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
    // The entries' times apart, so that open play counts between them.
    std::thread::sleep(std::time::Duration::from_millis(150));
}
