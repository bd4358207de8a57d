//! An adjustment's security witness through the real binary (journal
//! format 16; Colorado 2212(2), (5), Maryland ch.2 B, E(6)): the pit names
//! the witness by username, the witness confirms it signed in as
//! themselves, and the log shows their recorded licence. Every refusal
//! names what was wrong and writes nothing; an adjustment awaiting its
//! witness survives a restart.

use croupier_testkit::{data_dir, free_port, Server};
use serde_json::{json, Value};

const BINARY: &str = env!("CARGO_BIN_EXE_croupier");

fn adjust(table: &str, witness: &str) -> Value {
    json!({"op": "adjust", "table": table, "replacement": false, "description": "levelled the wheel", "witness": witness})
}

fn witness(table: &str, adjustment: u64) -> Value {
    json!({"op": "witness_adjustment", "table": table, "adjustment": adjustment})
}

fn inspection(table: &str) -> Value {
    json!({"op": "inspect", "table": table, "no_magnet_or_contrivance": true, "wheel_level_and_rotating_freely": true,
           "parts_secure": true, "ball_non_magnetic": true, "layout_and_signage_comply": true})
}

/// The table's log, newest first.
fn log(server: &Server, token: &str, table: &str) -> Value {
    let (status, body) = server.http("GET", &format!("/api/tables/{table}/log"), Some(token), None);
    assert_eq!(status, 200, "{body}");
    body
}

/// Signs in typing a licence of one's own at the sign-in form.
fn login_typing(server: &Server, username: &str, licence: &str) -> String {
    let (status, body) = server.http(
        "POST",
        "/api/login",
        None,
        Some(&json!({"username": username, "password": format!("{username}-password-1"), "licence": licence})),
    );
    assert_eq!(status, 200, "{username}: {body}");
    body["token"].as_str().expect("token").to_string()
}

#[test]
fn only_the_security_witness_named_confirms_an_adjustment_with_their_recorded_licence() {
    let data = data_dir();
    let port = free_port();
    let mut server = Server::start(BINARY, data.path(), port);
    let [admin, _, _, pit, _, _] = server.staff_and_players();
    server.add_users(&admin, &[("guard", "security")]);
    server.ask(
        &admin,
        json!({"op": "create_user", "username": "guard2", "role": "security", "password": "guard2-password-1"}),
    );
    let table = |id: &str| {
        json!({"op": "create_table", "table": id, "profile_text": include_str!("../../../profiles/colorado-2014.toml"),
               "wheel": "single-zero", "in_prison": false, "betting_window_ms": 60000, "outcome": "dealer"})
    };
    server.ask(&admin, table("w1"));
    server.ask(&admin, table("w2"));
    let refused = |token: &str, request: Value, status: u16, code: &str, said: &str| {
        let before = server.http("GET", "/api/tables/w1/log", Some(&admin), None).1;
        let (got, error, message) = server.refused(token, request.clone());
        assert_eq!((got, error.as_str()), (status, code), "{request}: {message}");
        assert!(message.contains(said), "{request}: {message}");
        let after = server.http("GET", "/api/tables/w1/log", Some(&admin), None).1;
        assert_eq!(before, after, "{request} wrote nothing");
    };
    // Colorado 2212(2): "in the presence of a licensed security department member".
    refused(&pit, adjust("w1", "p1"), 422, "bad_witness", "p1 is a player");
    refused(
        &pit,
        adjust("w1", "dealer"),
        422,
        "bad_witness",
        "not a member of the security department",
    );
    refused(
        &pit,
        adjust("w1", "guard2"),
        403,
        "licence_not_recorded",
        "guard2 has no licence",
    );
    let mut typed = adjust("w1", "guard");
    typed["witness_licence"] = json!("S-77");
    refused(&pit, typed, 422, "bad_witness", "witness_licence");
    let guard = server.login("guard", "guard-password-1");
    refused(&guard, adjust("w1", "guard"), 403, "forbidden", "security");
    server.ask(&pit, adjust("w1", "guard"));

    // A restart: the adjustment still awaits its witness.
    server.kill();
    let server = Server::start(BINARY, data.path(), port);
    let admin = server.login("admin", croupier_testkit::ADMIN_PASSWORD);
    let pit = server.login("pit", "pit-password-1");
    let dealer = server.login("dealer", "dealer-password-1");
    let p1 = server.login("p1", "p1-password-1");
    let awaiting = log(&server, &pit, "w1")["awaiting_witness"].clone();
    assert_eq!(awaiting[0]["adjustment"], 1, "{awaiting}");
    assert_eq!(awaiting[0]["witness"], "guard", "{awaiting}");
    let refused = |token: Option<&str>, request: Value, status: u16, code: &str, said: &str| {
        let before = log(&server, &admin, "w1");
        let (got, body) = server.http("POST", "/api/requests", token, Some(&request));
        let (error, message) = (
            body["error"].as_str().unwrap_or_default(),
            body["message"].as_str().unwrap_or_default(),
        );
        assert_eq!((got, error), (status, code), "{request}: {body}");
        assert!(message.contains(said), "{request}: {message}");
        assert_eq!(log(&server, &admin, "w1"), before, "{request} wrote nothing");
    };
    // Colorado 2212(3): "All adjustments shall be completed prior to the required inspections".
    refused(
        Some(&pit),
        inspection("w1"),
        409,
        "adjustment_not_witnessed",
        "witness guard",
    );
    let (status, _, _) = server.refused(&dealer, json!({"op": "open_table", "table": "w1"}));
    assert_eq!(status, 422, "not inspected: the table stays closed");
    // Only the witness named, signed in as themselves.
    refused(None, witness("w1", 1), 401, "unauthenticated", "");
    refused(Some(&p1), witness("w1", 1), 403, "forbidden", "player");
    refused(Some(&pit), witness("w1", 1), 403, "forbidden", "pit_supervisor");
    refused(Some(&admin), witness("w1", 1), 403, "forbidden", "admin");
    let guard2 = server.login("guard2", "guard2-password-1");
    refused(Some(&guard2), witness("w1", 1), 403, "not_the_witness", "names guard");
    // Another table's adjustment of that number is another's.
    let guard = login_typing(&server, "guard", "FORGED-9");
    refused(Some(&guard), witness("w2", 1), 404, "no_adjustment", "w2");
    refused(Some(&guard), witness("w1", 2), 404, "no_adjustment", "w1");
    let (status, me) = server.http("GET", "/api/me", Some(&guard), None);
    assert_eq!(status, 200, "{me}");
    let may: Vec<&str> = me["may"]
        .as_array()
        .expect("may")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(may.contains(&"witness_adjustment") && may.contains(&"inspect"), "{me}");
    assert!(!may.contains(&"adjust") && !may.contains(&"handle_cash"), "{me}");

    server.ask(&guard, witness("w1", 1));
    refused(
        Some(&guard),
        witness("w1", 1),
        409,
        "adjustment_closed",
        "witnessed by guard",
    );
    // Colorado 2212(5), Maryland ch.2 E(6): the witness's name and the licence
    // on their record, never the one typed at sign-in.
    let entries = log(&server, &pit, "w1");
    let confirmed = entries["log"]
        .as_array()
        .expect("log")
        .iter()
        .find(|e| e["type"] == "adjustment_witnessed")
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(
        (
            confirmed["by"].as_str(),
            confirmed["licence"].as_str(),
            confirmed["adjustment"].as_u64()
        ),
        (Some("guard"), Some("L-guard"), Some(1)),
        "{entries}"
    );
    assert!(!entries.to_string().contains("FORGED-9"), "{entries}");
    assert_eq!(entries["awaiting_witness"], json!([]), "{entries}");
    // Security inspects too (Colorado 2212(1)), and the table opens.
    server.ask(&guard, inspection("w1"));
    server.ask(&dealer, json!({"op": "open_table", "table": "w1"}));
    let (ok, report) = croupier_testkit::verify(BINARY, data.path(), &[]);
    assert!(ok, "{report}");
}
