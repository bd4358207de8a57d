//! Retiring and editing users and tables, and the cage's player search,
//! through the real binary (journal format 16): who may send each (no one
//! unsigned, no player, no dealer), what money stops a retirement, what a
//! retired user or table may no longer do, and that a restart keeps them
//! retired.

use croupier_testkit::{data_dir, free_port, Server};
use serde_json::{json, Value};

const BINARY: &str = env!("CARGO_BIN_EXE_croupier");

fn names(list: &Value, key: &str, field: &str) -> Vec<String> {
    list[key]
        .as_array()
        .expect("a list")
        .iter()
        .map(|u| u[field].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn retirements_are_the_admins_refused_while_money_is_held_and_kept_on_restart() {
    let data = data_dir();
    let server = Server::start(BINARY, data.path(), free_port());
    let [admin, cashier, dealer, pit, p1, p2] = server.staff_and_players();
    server.ask(
        &admin,
        json!({"op": "create_table", "table": "s1", "profile_text": include_str!("../../../profiles/colorado-2014.toml"),
               "wheel": "single-zero", "in_prison": false, "betting_window_ms": 60000, "outcome": "dealer"}),
    );
    server.inspect_and_open(&pit, &dealer, "s1");
    let every = [
        json!({"op": "retire_user", "username": "p1"}),
        json!({"op": "edit_user", "username": "p1", "role": "dealer"}),
        json!({"op": "retire_table", "table": "s1"}),
        json!({"op": "edit_table", "table": "s1", "label": "High limit"}),
    ];
    for request in &every {
        let (status, body) = server.http("POST", "/api/requests", None, Some(request));
        assert_eq!(status, 401, "{request}: {body}");
        for token in [&p1, &dealer, &pit, &cashier] {
            let (status, code, message) = server.refused(token, request.clone());
            assert_eq!((status, code.as_str()), (403, "forbidden"), "{request}: {message}");
        }
    }

    // A player with money in their wallet is not retired: the refusal names it.
    server.ask(
        &cashier,
        json!({"op": "cash_in", "id": "in-1", "player": "p1", "amount": 2_500}),
    );
    // A player is retired only once locked: nothing is played for them meanwhile.
    let (status, code, message) = server.refused(&admin, every[0].clone());
    assert_eq!((status, code.as_str()), (409, "not_locked"), "{message}");
    server.ask(&admin, json!({"op": "lock_user", "username": "p1"}));
    let (status, code, message) = server.refused(&admin, every[0].clone());
    assert_eq!((status, code.as_str()), (409, "money_held"), "{message}");
    assert!(message.contains("wallet:p1 25.00"), "{message}");
    server.ask(
        &cashier,
        json!({"op": "cash_out", "id": "out-1", "player": "p1", "amount": 2_500}),
    );
    server.ask(&admin, every[0].clone());
    let (status, code, _) = server.refused(&admin, every[0].clone());
    assert_eq!((status, code.as_str()), (409, "retired"));

    // Their session is over, they sign in no more, and their name is taken for good.
    let (status, _) = server.http("GET", "/api/me", Some(&p1), None);
    assert_eq!(status, 401);
    let login = json!({"username": "p1", "password": "p1-password-1"});
    let (status, body) = server.http("POST", "/api/login", None, Some(&login));
    assert_eq!((status, body["error"].as_str()), (401, Some("locked")), "{body}");
    assert!(
        body["message"].as_str().unwrap_or_default().contains("retired"),
        "{body}"
    );
    let (_, code, message) = server.refused(
        &admin,
        json!({"op": "create_user", "username": "p1", "role": "player", "password": "another-password-1"}),
    );
    assert_eq!(code, "exists", "{message}");
    let (status, code, _) = server.refused(
        &cashier,
        json!({"op": "cash_in", "id": "in-2", "player": "p1", "amount": 100}),
    );
    assert_eq!((status, code.as_str()), (409, "retired"));

    // Shown apart: not among the users, but among the retired ones; the cage still finds them.
    let (_, users) = server.http("GET", "/api/users", Some(&admin), None);
    assert!(
        !names(&users, "users", "username").contains(&"p1".to_string()),
        "{users}"
    );
    let (_, retired) = server.http("GET", "/api/users?retired=true", Some(&admin), None);
    assert_eq!(names(&retired, "users", "username"), ["p1"], "{retired}");
    let (status, found) = server.http("GET", "/api/players?q=p", Some(&cashier), None);
    assert_eq!(status, 200, "{found}");
    assert_eq!(names(&found, "players", "player"), ["p1", "p2"], "{found}");
    assert_eq!(found["players"][0]["retired"], true, "{found}");
    let number = found["players"][1]["player_id"].as_u64().expect("a number");
    let (_, by_number) = server.http("GET", &format!("/api/players?q=%23{number}"), Some(&cashier), None);
    assert_eq!(names(&by_number, "players", "player"), ["p2"], "{by_number}");
    for bad in ["", "Ann%20Smith", "%23x"] {
        let (status, body) = server.http("GET", &format!("/api/players?q={bad}"), Some(&cashier), None);
        assert_eq!(
            (status, body["error"].as_str()),
            (400, Some("bad_request")),
            "{bad}: {body}"
        );
        assert!(body["message"].as_str().unwrap_or_default().starts_with("q:"), "{body}");
    }
    let (status, _) = server.http("GET", "/api/players?q=p", None, None);
    assert_eq!(status, 401);
    let (status, _) = server.http("GET", "/api/players?q=p", Some(&p2), None);
    assert_eq!(status, 403);

    // A table open is not retired; closed and empty, it is, and takes nothing after.
    let (status, code, message) = server.refused(&admin, every[2].clone());
    assert_eq!((status, code.as_str()), (409, "money_held"), "{message}");
    assert!(message.contains("close it first"), "{message}");
    server.ask(
        &admin,
        json!({"op": "edit_table", "table": "s1", "label": "High limit", "betting_window_ms": 20000}),
    );
    server.ask(
        &dealer,
        json!({"op": "close_table", "table": "s1", "wheel_cover_locked": true}),
    );
    server.ask(&admin, every[2].clone());
    for (token, request) in [
        (&dealer, json!({"op": "open_table", "table": "s1"})),
        (
            &p2,
            json!({"op": "buy_in", "id": "b1", "table": "s1", "amount": 1000, "chip_value": 100}),
        ),
        (&admin, every[3].clone()),
    ] {
        let (status, code, message) = server.refused(token, request.clone());
        assert_eq!((status, code.as_str()), (409, "retired"), "{request}: {message}");
    }
    let listed = |path: &str, token: Option<&str>| {
        let (status, body) = server.http("GET", path, token, None);
        assert_eq!(status, 200, "{body}");
        body
    };
    // The first run's tables t1 and t2 stay listed; s1 is listed apart.
    assert_eq!(
        names(&listed("/api/tables", Some(&dealer)), "tables", "table"),
        ["t1", "t2"]
    );
    let retired_tables = listed("/api/tables?retired=true", Some(&admin));
    assert_eq!(names(&retired_tables, "tables", "table"), ["s1"], "{retired_tables}");
    assert_eq!(retired_tables["tables"][0]["label"], "High limit", "{retired_tables}");
    assert_eq!(listed("/api/public/tables", None)["tables"], json!(["t1", "t2"]));
    // Nor is it on the floor.
    let floor = listed("/api/floor", Some(&pit));
    assert_eq!(names(&floor, "tables", "table"), ["t1", "t2"], "{floor}");
    // Its history stays readable.
    let log = listed("/api/tables/s1/log", Some(&pit));
    assert!(log.to_string().contains("table_retired"), "{log}");

    // The same role again changes nothing, and ends no session; a new one ends them.
    server.ask(&admin, json!({"op": "edit_user", "username": "p2", "role": "player"}));
    let (status, _) = server.http("GET", "/api/me", Some(&p2), None);
    assert_eq!(status, 200);
    server.ask(
        &admin,
        json!({"op": "edit_user", "username": "p2", "role": "dealer", "display_name": "Pat"}),
    );
    let (status, _) = server.http("GET", "/api/me", Some(&p2), None);
    assert_eq!(status, 401);

    // Restarted from its journal, the server keeps both retired.
    drop(server);
    let server = Server::start(BINARY, data.path(), free_port());
    let (status, body) = server.http("POST", "/api/login", None, Some(&login));
    assert_eq!(status, 401, "{body}");
    let dealer = server.login("dealer", "dealer-password-1");
    let (_, tables) = server.http("GET", "/api/tables", Some(&dealer), None);
    assert_eq!(names(&tables, "tables", "table"), ["t1", "t2"], "{tables}");
    let p2 = server.login("p2", "p2-password-1");
    let (_, me) = server.http("GET", "/api/me", Some(&p2), None);
    assert_eq!(me["role"], "dealer", "{me}");
    drop(server);
    let (passed, verified) = croupier_testkit::verify(BINARY, data.path(), &[]);
    assert!(passed, "{verified}");
}
