//! The table server attacked through the real binary, as a hostile player,
//! a dishonest employee and someone who can write the data directory would.
//! Each test is one attack that once worked; each must now be refused with
//! a clear error, move no money, and leave a journal that still verifies
//! (or, where the attack wrote the journal itself, one that no longer does).

use std::path::Path;
use std::process::Command;

use croupier_testkit::{data_dir, free_port, Server};
use serde_json::{json, Value};

const BINARY: &str = env!("CARGO_BIN_EXE_croupier");

/// `croupier verify --data DATA --format json`: whether it passed, and its report.
fn verify(data: &Path) -> (bool, Value) {
    let out = Command::new(BINARY)
        .args(["verify", "--data", data.to_str().expect("path"), "--format", "json"])
        .output()
        .expect("verify runs");
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "verify's report is not JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.success(), report)
}

/// A server with the staff and players p1 and p2, signed in: (server, [admin, cashier, dealer, pit, p1, p2]).
fn casino(data: &Path) -> (Server, [String; 6]) {
    let server = Server::start(BINARY, data, free_port());
    let admin = server.login("admin", &server.admin_password());
    server.add_staff_and_players(&admin);
    let tokens = [
        admin,
        server.login("cashier", "cashier-password-1"),
        server.login("dealer", "dealer-password-1"),
        server.login("pit", "pit-password-1"),
        server.login("p1", "p1-password-1"),
        server.login("p2", "p2-password-1"),
    ];
    (server, tokens)
}

fn table(table: &str, outcome: &str) -> Value {
    json!({"op": "create_table", "table": table, "profile_text": include_str!("../../../profiles/maryland.toml"),
           "wheel": "double-zero", "in_prison": false, "betting_window_ms": 60000, "outcome": outcome})
}

fn refused(server: &Server, token: &str, request: Value) -> (u16, String, String) {
    let (status, body) = server.http("POST", "/api/requests", Some(token), Some(&request));
    (
        status,
        body["error"].as_str().unwrap_or_default().to_string(),
        body["message"].as_str().unwrap_or_default().to_string(),
    )
}

/// The journal's rows as (seq, at_ms, record), read straight from its database.
fn journal_rows(data: &Path) -> Vec<(i64, i64, String)> {
    let db = rusqlite::Connection::open(data.join(croupier_ledger::storage::DATABASE_FILE)).expect("the journal");
    let mut rows = db
        .prepare("SELECT seq, at_ms, record FROM journal ORDER BY seq")
        .expect("select");
    rows.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("rows")
        .map(|r| r.expect("row"))
        .collect()
}

/// Rewrites the journal's database as someone with the file would: the
/// records `change` returns replace theirs, and every hash from the first
/// change on is computed again, so that the chain alone is consistent.
fn rewrite_journal(data: &Path, change: impl Fn(i64, &str) -> Option<String>) {
    let db = rusqlite::Connection::open(data.join(croupier_ledger::storage::DATABASE_FILE)).expect("the journal");
    let rows = journal_rows(data);
    let mut prev = [0u8; 32];
    let mut changed = false;
    for (seq, at_ms, record) in rows {
        let record = match change(seq, &record) {
            Some(new) => {
                changed = true;
                new
            }
            None => record,
        };
        let hash = croupier_ledger::journal::entry_hash(&prev, seq as u64, at_ms as u64, &record);
        if changed {
            db.execute(
                "UPDATE journal SET record = ?1, prev_hash = ?2, hash = ?3 WHERE seq = ?4",
                rusqlite::params![record, hex::encode(prev), hex::encode(hash), seq],
            )
            .expect("rewritten");
        }
        prev = hash;
    }
    assert!(changed, "the attack changed a record");
}

// An RNG table's result is the RNG's alone (the certified RNG of Colorado
// 2205(4) and the rules' outcome sources): no employee may enter one.
#[test]
fn a_dealer_cannot_choose_an_rng_tables_result() {
    let data = data_dir();
    let (mut server, [admin, cashier, dealer, pit, p1, _]) = casino(data.path());
    server.ask(&admin, table("r1", "rng"));
    server.inspect_and_open(&pit, &dealer, "r1");
    server.seat(&cashier, ("p1", &p1), "r1", 10_000, 5_000);
    server.ask(&dealer, json!({"op": "open_betting", "table": "r1"}));
    server.ask(
        &p1,
        json!({"op": "place_bet", "table": "r1", "bet_id": "b1", "spot": "17", "stake": 100}),
    );
    server.ask(&dealer, json!({"op": "no_more_bets", "table": "r1"}));

    // The dealer, the pit and the admin each try to key a winner.
    for token in [&dealer, &pit, &admin] {
        let entered =
            json!({"op": "spin", "table": "r1", "spin": {"pocket": "17", "direction": "opposite", "revolutions": 6}});
        let (status, code, message) = refused(&server, token, entered);
        assert_eq!((status, code.as_str()), (422, "not_dealer_table"), "{message}");
        assert!(message.contains("RNG"), "{message}");
    }
    // Nor can a client write the RNG's own request with a word of its choosing.
    let forged = json!({"op": "draw", "table": "r1", "pocket": "17", "word": 17});
    assert_eq!(refused(&server, &dealer, forged).1, "bad_request");
    // The RNG draws; its word goes into the journal with the pocket.
    let (status, drawn) = server.http("POST", "/api/tables/r1/draw", Some(&dealer), None);
    assert_eq!(status, 200, "{drawn}");
    server.kill();
    let (passed, report) = verify(data.path());
    assert!(passed, "{report}");
    let rows = journal_rows(data.path());
    let draw = rows
        .iter()
        .find(|(_, _, r)| r.contains(r#"\"op\":\"draw\""#) || r.contains(r#""op":"draw""#))
        .expect("the draw's entry");
    assert!(draw.2.contains(r#""word":"#), "{}", draw.2);

    // Someone with the file turns the draw into a dealer's entry of another
    // pocket, and makes the chain good: verify refuses it all the same.
    let word: u32 = {
        let at = draw.2.find(r#""word":"#).expect("word") + 7;
        draw.2[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .expect("a word")
    };
    let pockets = croupier_rng::wheel_pockets(croupier_core::Wheel::DoubleZero);
    let pocket = pockets[(word % 38) as usize].label();
    let seq = draw.0;
    rewrite_journal(data.path(), |s, record| {
        (s == seq).then(|| {
            record.replace(
                &format!(r#""op":"draw","table":"r1","pocket":"{pocket}","word":{word}"#),
                &format!(
                    r#""op":"spin","table":"r1","spin":{{"pocket":"{pocket}","direction":"opposite","revolutions":4}}"#
                ),
            )
        })
    });
    let (passed, report) = verify(data.path());
    assert!(!passed, "a result no source gave passed verify: {report}");
    assert!(report.to_string().contains("no one may enter"), "{report}");
}
