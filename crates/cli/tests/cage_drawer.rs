//! A cashier's drawer counted at shift end and a mistaken cash-in or
//! cash-out voided by a second person, through the real binary (journal
//! format 15; house practice, no rule document speaks of them): each
//! refusal names what was wrong, a resend writes nothing, and the drawer's
//! figures are the ledger's to the cent.

use croupier_testkit::{data_dir, free_port, Server};
use serde_json::{json, Value};

const BINARY: &str = env!("CARGO_BIN_EXE_croupier");

fn record(server: &Server, token: &str) -> Value {
    let (status, body) = server.http("GET", "/api/cage/transactions", Some(token), None);
    assert_eq!(status, 200, "{body}");
    body
}

fn wallet(server: &Server, token: &str, player: &str) -> i64 {
    let (status, body) = server.http("GET", &format!("/api/players/{player}/accounts"), Some(token), None);
    assert_eq!(status, 200, "{body}");
    body["accounts"][format!("wallet:{player}")].as_i64().unwrap_or(0)
}

fn entry<'a>(record: &'a Value, kind: &str, reference: &str) -> &'a Value {
    record["transactions"]
        .as_array()
        .expect("transactions")
        .iter()
        .find(|t| t["kind"] == kind && t["reference"] == reference)
        .unwrap_or_else(|| panic!("no {kind} {reference} in {record}"))
}

#[test]
fn a_drawer_balances_and_a_void_is_a_second_persons_once() {
    let data = data_dir();
    let server = Server::start(BINARY, data.path(), free_port());
    let [admin, cashier, dealer, pit, p1, _] = server.staff_and_players();
    let cash = |op: &str, id: &str, amount: u64| json!({"op": op, "id": id, "player": "p1", "amount": amount});
    let count = |id: &str, amount: u64| json!({"op": "count_drawer", "id": id, "amount": amount});
    let void = |id: &str, transaction: &str, reason: &str| json!({"op": "void_cage_transaction", "id": id, "transaction": transaction, "reason": reason});

    // Who may send each: no one unsigned; a count is the cage's, a void the pit's or an admin's.
    for request in [count("n0", 0), void("v0", "in-1", "x")] {
        let (status, body) = server.http("POST", "/api/requests", None, Some(&request));
        assert_eq!(status, 401, "{request}: {body}");
        for token in [&p1, &dealer] {
            let (status, code, message) = server.refused(token, request.clone());
            assert_eq!((status, code.as_str()), (403, "forbidden"), "{request}: {message}");
        }
    }
    let (status, code, message) = server.refused(&pit, count("n0", 0));
    assert_eq!((status, code.as_str()), (403, "forbidden"), "{message}");
    let (status, code, message) = server.refused(&cashier, void("v0", "in-1", "x"));
    assert_eq!((status, code.as_str()), (403, "forbidden"), "{message}");

    // The cashier's shift: 500.00 in, 120.00 out, a mistaken 70.00 in.
    server.ask(&cashier, cash("cash_in", "in-1", 50_000));
    server.ask(&cashier, cash("cash_out", "out-1", 12_000));
    server.ask(&cashier, cash("cash_in", "in-2", 7_000));
    assert_eq!(record(&server, &cashier)["drawer"], 45_000);
    assert_eq!(
        wallet(&server, &cashier, "p1"),
        45_000,
        "the drawer is the ledger's cash moved"
    );

    // Refusals name the field.
    for (request, code, field) in [
        (void("a b", "in-2", "typed twice"), "bad_request", "id"),
        (void("v1", "in-2", " "), "bad_text", "reason"),
        (
            void("v1", "nothing", "typed twice"),
            "no_cage_transaction",
            "transaction",
        ),
    ] {
        let (_, got, message) = server.refused(&pit, request.clone());
        assert_eq!(got, code, "{request}: {message}");
        assert!(message.starts_with(&format!("{field}:")), "{request}: {message}");
    }
    let (_, got, message) = server.refused(&cashier, count("a b", 0));
    assert_eq!(got, "bad_request", "{message}");
    assert!(message.starts_with("id:"), "{message}");

    // The pit voids the mistaken cash-in: the reverse transfer, once.
    let done = server.ask(&pit, void("v1", "in-2", "typed twice"));
    assert_ne!(done["events"], json!([]), "{done}");
    for _ in 0..2 {
        let again = server.ask(&pit, void("v1", "in-2", "typed twice"));
        assert_eq!(again["events"], json!([]), "a resend writes nothing: {again}");
    }
    assert_eq!(wallet(&server, &cashier, "p1"), 38_000, "the void moved once");
    let (status, code, message) = server.refused(&pit, void("v2", "in-2", "again"));
    assert_eq!((status, code.as_str()), (409, "already_voided"), "{message}");
    let (_, code, message) = server.refused(&pit, void("v1", "in-1", "the id again"));
    assert_eq!(code, "exists", "{message}");
    let body = record(&server, &cashier);
    let voided = &entry(&body, "cash_in", "in-2")["voided"];
    assert_eq!(
        (&voided["by"], &voided["reason"]),
        (&json!("pit"), &json!("typed twice")),
        "{body}"
    );
    assert_eq!(body["drawer"], 38_000, "the drawer follows the void: {body}");

    // The same person may not void their own: an admin's cash-in.
    server.ask(&admin, cash("cash_in", "in-3", 1_000));
    let (status, code, message) = server.refused(&admin, void("v3", "in-3", "mine"));
    assert_eq!((status, code.as_str()), (403, "same_signer"), "{message}");
    // A cash-in the wallet has spent is not taken back.
    server.ask(&cashier, cash("cash_out", "out-2", 39_000));
    let (_, code, message) = server.refused(&pit, void("v4", "in-1", "wrong player"));
    assert_eq!(code, "wallet_spent", "{message}");
    assert!(message.starts_with("transaction:"), "{message}");
    // A cash-out voided: the money is back in the wallet, out of the drawer's payouts.
    server.ask(&pit, void("v5", "out-2", "paid to the wrong player"));
    assert_eq!(
        wallet(&server, &cashier, "p1"),
        39_000,
        "38,000 of the cashier's and the admin's 1,000"
    );

    // The count at shift end, 10.00 short, kept beside the record's figure.
    let expected = record(&server, &cashier)["drawer"].as_i64().expect("drawer");
    assert_eq!(expected, 38_000, "in 500.00 less out 120.00, the voids left out");
    server.ask(&cashier, count("shift-1", 37_000));
    let again = server.ask(&cashier, count("shift-1", 37_000));
    assert_eq!(again["events"], json!([]), "a resend counts nothing twice: {again}");
    let (_, code, message) = server.refused(&cashier, count("shift-1", 38_000));
    assert_eq!(code, "exists", "{message}");
    let body = record(&server, &cashier);
    let counted = entry(&body, "drawer_count", "shift-1");
    assert_eq!(
        (&counted["amount"], &counted["expected"], &counted["difference"]),
        (&json!(37_000), &json!(38_000), &json!(-1_000)),
        "{body}"
    );
    assert_eq!(body["drawer"], 0, "the next shift begins at nothing: {body}");
    // A count of nothing is a count, and its difference shows.
    server.ask(&cashier, cash("cash_in", "in-4", 2_500));
    server.ask(&cashier, count("shift-2", 0));
    let body = record(&server, &cashier);
    assert_eq!(entry(&body, "drawer_count", "shift-2")["difference"], -2_500, "{body}");

    // Restarted from its journal, the record is the same.
    drop(server);
    let server = Server::start(BINARY, data.path(), free_port());
    let cashier = server.login("cashier", "cashier-password-1");
    assert_eq!(record(&server, &cashier)["transactions"], body["transactions"]);
    drop(server);
    let (passed, verified) = croupier_testkit::verify(BINARY, data.path(), &[]);
    assert!(passed, "{verified}");
}
