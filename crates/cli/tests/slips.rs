//! Fill and credit slips and float counts through the real binary (journal
//! format 15; house practice, no rule document speaks of them): the pit
//! asks, the cage signs, and only then money moves between the house and
//! a table's float, once; every refusal names what was wrong; the report's
//! figures are the ledger's balances to the cent.

use croupier_testkit::{data_dir, free_port, Server};
use serde_json::{json, Value};

const BINARY: &str = env!("CARGO_BIN_EXE_croupier");

fn report(server: &Server, token: &str) -> Value {
    let (status, body) = server.http("GET", "/api/tables/s1/report", Some(token), None);
    assert_eq!(status, 200, "{body}");
    body
}

fn float(server: &Server, token: &str) -> i64 {
    report(server, token)["accounts"]["float"].as_i64().expect("float")
}

#[test]
fn a_slip_moves_money_once_only_with_two_signatures() {
    let data = data_dir();
    let server = Server::start(BINARY, data.path(), free_port());
    let [admin, cashier, dealer, pit, p1, _] = server.staff_and_players();
    server.ask(
        &admin,
        json!({"op": "create_table", "table": "s1", "profile_text": include_str!("../../../profiles/colorado-2014.toml"),
               "wheel": "single-zero", "in_prison": false, "betting_window_ms": 60000, "outcome": "dealer"}),
    );
    server.inspect_and_open(&pit, &dealer, "s1");
    let fill = |id: &str, amount: u64| json!({"op": "request_fill", "table": "s1", "id": id, "amount": amount});
    let credit = |id: &str, amount: u64| json!({"op": "request_credit", "table": "s1", "id": id, "amount": amount});
    let sign = |id: &str| json!({"op": "sign_slip", "table": "s1", "id": id});
    let void = |id: &str, reason: &str| json!({"op": "void_slip", "table": "s1", "id": id, "reason": reason});
    let count = |id: &str, when: &str, amount: u64| json!({"op": "count_float", "table": "s1", "id": id, "when": when, "amount": amount});

    // Who may send each: no one unsigned; no player or dealer; the cage
    // only signs, the pit only asks, voids and counts.
    let every = [
        fill("f0", 100),
        credit("c0", 100),
        sign("f0"),
        void("f0", "x"),
        count("n0", "opening", 0),
    ];
    for request in &every {
        let (status, body) = server.http("POST", "/api/requests", None, Some(request));
        assert_eq!(status, 401, "{request}: {body}");
        for token in [&p1, &dealer] {
            let (status, code, message) = server.refused(token, request.clone());
            assert_eq!((status, code.as_str()), (403, "forbidden"), "{request}: {message}");
        }
    }
    for request in [
        fill("f0", 100),
        credit("c0", 100),
        void("f0", "x"),
        count("n0", "opening", 0),
    ] {
        let (status, code, message) = server.refused(&cashier, request.clone());
        assert_eq!((status, code.as_str()), (403, "forbidden"), "{request}: {message}");
    }
    let (status, code, message) = server.refused(&pit, sign("f0"));
    assert_eq!((status, code.as_str()), (403, "forbidden"), "{message}");
    let (status, body) = server.http("GET", "/api/slips", Some(&p1), None);
    assert_eq!(status, 403, "{body}");

    // The opening count of an empty float, against the ledger's 0.
    server.ask(&pit, count("open-1", "opening", 0));

    // Amounts: more than 0, bounded; ids checked; refusals name the field.
    for (request, code, field) in [
        (fill("f1", 0), "bad_amount", "amount"),
        (fill("f1", 100_000_001), "bad_amount", "amount"),
        (fill("a b", 100), "bad_request", "id"),
        (count("n1", "noon", 100), "bad_request", "when"),
        (sign("nothing"), "no_slip", "id"),
        // A credit never takes more than the float holds: it is empty.
        (credit("c1", 100), "insufficient_float", "amount"),
    ] {
        let (_, got, message) = server.refused(&pit_or_cashier(&request, &pit, &cashier), request.clone());
        assert_eq!(got, code, "{request}: {message}");
        assert!(message.starts_with(&format!("{field}:")), "{request}: {message}");
    }

    // A fill: asked, nothing moves; signed by the cage, the float holds it.
    server.ask(&pit, fill("f1", 50_000));
    let again = server.ask(&pit, fill("f1", 50_000));
    assert_eq!(again["events"], json!([]), "a resend asks nothing twice: {again}");
    let (_, code, message) = server.refused(&pit, fill("f1", 60_000));
    assert_eq!(code, "refused", "{message}");
    assert_eq!(float(&server, &pit), 0, "no money moves on the pit's signature alone");
    let (status, body) = server.http("GET", "/api/slips", Some(&cashier), None);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["slips"][0]["id"], "f1", "{body}");
    assert_eq!(body["slips"][0]["state"], "open", "{body}");
    server.ask(&cashier, sign("f1"));
    for _ in 0..3 {
        let again = server.ask(&cashier, sign("f1"));
        assert_eq!(again["events"], json!([]), "a resend moves nothing: {again}");
    }
    assert_eq!(float(&server, &pit), 50_000, "the fill moved once");
    let (_, body) = server.http("GET", "/api/slips", Some(&cashier), None);
    assert_eq!(body["slips"], json!([]), "{body}");
    let (_, code, message) = server.refused(&pit, void("f1", "too late"));
    assert_eq!(code, "slip_closed", "{message}");

    // The same person cannot sign both: an admin who asked may not sign.
    server.ask(&admin, fill("f2", 1_000));
    let (status, code, message) = server.refused(&admin, sign("f2"));
    assert_eq!((status, code.as_str()), (403, "same_signer"), "{message}");
    // A void needs a reason, then the slip is closed to the cage.
    let (_, code, message) = server.refused(&pit, void("f2", " "));
    assert_eq!(code, "bad_text", "{message}");
    assert!(message.starts_with("reason:"), "{message}");
    server.ask(&pit, void("f2", "asked twice"));
    let (_, code, message) = server.refused(&cashier, sign("f2"));
    assert_eq!(code, "slip_closed", "{message}");

    // A credit above the float is refused; one within it, signed, moves once.
    let (_, code, message) = server.refused(&pit, credit("c2", 50_001));
    assert_eq!(code, "insufficient_float", "{message}");
    server.ask(&pit, credit("c2", 20_000));
    server.ask(&cashier, sign("c2"));
    server.ask(&cashier, sign("c2"));
    assert_eq!(float(&server, &pit), 30_000);
    // A credit only between rounds.
    server.ask(&pit, credit("c3", 1_000));
    server.ask(&dealer, json!({"op": "open_betting", "table": "s1"}));
    let (_, code, message) = server.refused(&cashier, sign("c3"));
    assert_eq!(code, "round_under_way", "{message}");
    let (_, code, message) = server.refused(&pit, credit("c4", 1_000));
    assert_eq!(code, "round_under_way", "{message}");
    server.ask(&dealer, json!({"op": "no_more_bets", "table": "s1"}));
    server.ask(
        &dealer,
        json!({"op": "spin", "table": "s1", "spin": {"pocket": "18", "direction": "opposite", "revolutions": 6}}),
    );
    server.ask(&cashier, sign("c3"));
    assert_eq!(float(&server, &pit), 29_000);

    // The closing count is short by 1.00: shown, never hidden.
    server.ask(&pit, count("close-1", "closing", 28_900));
    let again = server.ask(&pit, count("close-1", "closing", 28_900));
    assert_eq!(again["events"], json!([]), "{again}");

    let body = report(&server, &pit);
    let books = &body["books"];
    assert_eq!(books["fills"], 50_000, "{books}");
    assert_eq!(books["credits"], 21_000, "{books}");
    assert_eq!(books["float_close"], body["accounts"]["float"], "{body}");
    assert_eq!(books["float_close"], 29_000, "{books}");
    let counts = body["float_counts"].as_array().expect("counts");
    assert_eq!(counts.len(), 2, "{body}");
    assert_eq!(
        (
            &counts[0]["when"],
            &counts[0]["counted"],
            &counts[0]["ledger"],
            &counts[0]["difference"]
        ),
        (&json!("opening"), &json!(0), &json!(0), &json!(0))
    );
    assert_eq!(
        (
            &counts[1]["when"],
            &counts[1]["counted"],
            &counts[1]["ledger"],
            &counts[1]["difference"]
        ),
        (&json!("closing"), &json!(28_900), &json!(29_000), &json!(-100))
    );
    let slips = body["slips"].as_array().expect("slips");
    let state = |id: &str| slips.iter().find(|s| s["id"] == id).map(|s| s["state"].clone());
    assert_eq!(state("f1"), Some(json!("signed")));
    assert_eq!(state("f2"), Some(json!("voided")));
    assert_eq!(state("c2"), Some(json!("signed")));
    let f1 = slips.iter().find(|s| s["id"] == "f1").expect("f1");
    assert_eq!(
        (&f1["requested_by"], &f1["closed_by"]),
        (&json!("pit"), &json!("cashier"))
    );

    // Restarted from its journal, the server holds the same slips and books.
    drop(server);
    let server = Server::start(BINARY, data.path(), free_port());
    let pit = server.login("pit", "pit-password-1");
    let after = report(&server, &pit);
    assert_eq!(after["slips"], body["slips"]);
    assert_eq!(after["float_counts"], body["float_counts"]);
    assert_eq!(after["books"], body["books"]);
    drop(server);
    let (passed, verified) = croupier_testkit::verify(BINARY, data.path(), &[]);
    assert!(passed, "{verified}");
}

/// Who sends `request` in the refusals' table: the cage signs, the pit the rest.
fn pit_or_cashier(request: &Value, pit: &str, cashier: &str) -> String {
    if request["op"] == "sign_slip" {
        cashier.to_string()
    } else {
        pit.to_string()
    }
}
