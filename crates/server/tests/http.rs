//! The HTTP edge in this process: the real router from `http::app` on a data
//! folder of the test's own, driven through axum with no socket and no
//! binary. What it checks is the edge's own work: the one error body, the
//! sessions, the requests no client may send, the request ids.

use axum::body::Body;
use axum::http::Request;
use croupier_server::http::{app, App, BODY_MAX_BYTES};
use serde_json::{json, Value};
use tower::ServiceExt;

/// A response body larger than any of these tests expect.
const ANSWER_MAX_BYTES: usize = 1 << 20;
const JSON: Option<&str> = Some("application/json");

/// A server opened on a fresh data folder; the folder lasts as long as the server.
struct Served {
    app: App,
    _data: tempfile::TempDir,
}

/// A response as the tests read it.
struct Answer {
    status: u16,
    request_id: Option<String>,
    headers: axum::http::HeaderMap,
    body: Value,
}

impl Served {
    /// Opens the server: inside a multi-thread tokio runtime, since it starts the tables' writers.
    fn open() -> Served {
        let data = tempfile::tempdir().expect("a temporary folder");
        // The data and its keys folder (its sibling) both inside the temporary one.
        let app = app(&data.path().join("data")).expect("the server opens");
        Served { app, _data: data }
    }

    /// Sends one request through the router: `body` as it is, with `content_type` if any.
    async fn send(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        content_type: Option<&str>,
        body: Vec<u8>,
    ) -> Answer {
        self.send_from(None, method, path, token, content_type, body).await
    }

    /// [`Served::send`], as from the client address `from` where one is given
    /// (the listener tells the router each connection's address so).
    async fn send_from(
        &self,
        from: Option<std::net::SocketAddr>,
        method: &str,
        path: &str,
        token: Option<&str>,
        content_type: Option<&str>,
        body: Vec<u8>,
    ) -> Answer {
        let mut request = Request::builder().method(method).uri(path);
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        if let Some(content_type) = content_type {
            request = request.header("content-type", content_type);
        }
        let mut request = request.body(Body::from(body)).expect("a request");
        if let Some(from) = from {
            request.extensions_mut().insert(axum::extract::ConnectInfo(from));
        }
        let response = self
            .app
            .router
            .clone()
            .oneshot(request)
            .await
            .expect("the router answers");
        let status = response.status().as_u16();
        let request_id = response
            .headers()
            .get("x-request-id")
            .map(|v| v.to_str().expect("a text header").to_string());
        let headers = response.headers().clone();
        let bytes = axum::body::to_bytes(response.into_body(), ANSWER_MAX_BYTES)
            .await
            .expect("the body");
        // Pages and metrics are text: kept as a JSON string, as the end-to-end tests keep them.
        let body = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
        Answer {
            status,
            request_id,
            headers,
            body,
        }
    }

    /// A request with a JSON body, or none.
    /// A sign-in as from the client address `from`.
    async fn sign_in_from(&self, from: std::net::SocketAddr, username: &str, password: &str) -> Answer {
        let body = json!({"username": username, "password": password})
            .to_string()
            .into_bytes();
        self.send_from(Some(from), "POST", "/api/login", None, JSON, body).await
    }

    /// A first run whose admin has added player p1 (password `p1-password-1`).
    async fn with_p1() -> Served {
        let served = Served::open();
        let admin = served.admin().await;
        served
            .ask(
                &admin,
                json!({"op": "create_user", "username": "p1", "role": "player", "password": "p1-password-1"}),
            )
            .await;
        served
    }

    async fn call(&self, method: &str, path: &str, token: Option<&str>, body: Option<Value>) -> (u16, Value) {
        let answer = match body {
            Some(body) => {
                self.send(method, path, token, JSON, body.to_string().into_bytes())
                    .await
            }
            None => self.send(method, path, token, None, Vec::new()).await,
        };
        (answer.status, answer.body)
    }

    async fn login(&self, username: &str, password: &str) -> String {
        let (status, body) = self
            .call(
                "POST",
                "/api/login",
                None,
                Some(json!({"username": username, "password": password})),
            )
            .await;
        assert_eq!(status, 200, "{username}: {body}");
        body["token"].as_str().expect("token").to_string()
    }

    /// Signs in as the admin a first run made, with its one-time password,
    /// and changes it, as the server demands before anything else.
    async fn admin(&self) -> String {
        let (username, password) = self.app.admin_password.clone().expect("a first run makes an admin");
        let token = self.login(&username, &password).await;
        self.ask(
            &token,
            json!({"op": "change_password", "password": password, "new_password": "admin-password-1"}),
        )
        .await;
        token
    }

    /// A request at `/api/requests` that must succeed: its answer.
    async fn ask(&self, token: &str, request: Value) -> Value {
        let (status, body) = self
            .call("POST", "/api/requests", Some(token), Some(request.clone()))
            .await;
        assert_eq!(status, 200, "{request}: {body}");
        body
    }
}

/// (what, method, path, signed in as the admin, content type, body, status, code)
type FailureCase = (
    &'static str,
    &'static str,
    &'static str,
    bool,
    Option<&'static str>,
    Vec<u8>,
    u16,
    &'static str,
);

/// Every failure, whoever finds it (the router, a body's parser, a query's,
/// the session check), answers with its code's status and the one error body.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_failure_answers_with_its_code_and_the_error_body() {
    let served = Served::open();
    let admin = served.admin().await;
    let login = br#"{"username": "admin", "password": "wrong-password"}"#.to_vec();
    // One failure a line: the table reads better than one field a line.
    #[rustfmt::skip]
    let failures: Vec<FailureCase> = vec![
        ("an unknown route", "GET", "/api/nowhere", false, None, Vec::new(), 404, "not_found"),
        ("a wrong method", "GET", "/api/login", false, None, Vec::new(), 405, "method_not_allowed"),
        ("a body that is not JSON", "POST", "/api/login", false, JSON, b"not json".to_vec(), 400, "bad_request"),
        ("JSON without its content type", "POST", "/api/login", false, None, login, 415, "unsupported_media_type"),
        ("a body over the limit", "POST", "/api/login", false, JSON, vec![b' '; BODY_MAX_BYTES + 1], 413, "too_large"),
        ("a count that is not a number", "GET", "/api/tables/t1/rounds?last=ten", true, None, Vec::new(), 400, "bad_request"),
        ("no session", "GET", "/api/me", false, None, Vec::new(), 401, "unauthenticated"),
        ("a stream asked for without the WebSocket's headers", "GET", "/api/tables/t1/stream", false, None, Vec::new(), 400, "bad_request"),
        ("a licence number of 65 characters", "POST", "/api/login", false, JSON, json!({"username": "admin", "password": "x", "licence": "L".repeat(65)}).to_string().into_bytes(), 400, "bad_request"),
    ];
    for (what, method, path, signed_in, content_type, body, status, code) in failures {
        let token = signed_in.then_some(admin.as_str());
        let answer = served.send(method, path, token, content_type, body).await;
        assert_eq!(answer.status, status, "{what}: {}", answer.body);
        let fields = answer.body.as_object().expect("a JSON object");
        assert_eq!(fields.len(), 2, "{what}: {}", answer.body);
        assert_eq!(answer.body["error"], code, "{what}: {}", answer.body);
        assert!(
            answer.body["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{what}: {}",
            answer.body
        );
    }
}

/// A first run makes an admin and two tables; the admin adds the staff and
/// the players, the cashier cashes in, and a player sees their own accounts
/// and no one else's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_run_gives_an_admin_who_adds_a_cashier_and_players() {
    let served = Served::open();
    let admin = served.admin().await;
    let (status, list) = served.call("GET", "/api/tables", Some(&admin), None).await;
    assert_eq!(status, 200, "{list}");
    let tables: Vec<&str> = list["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .map(|t| t["table"].as_str().expect("table id"))
        .collect();
    assert_eq!(tables, ["t1", "t2"], "{list}");
    for (name, role) in [("cashier", "cashier"), ("p1", "player"), ("p2", "player")] {
        served
            .ask(
                &admin,
                json!({"op": "create_user", "username": name, "role": role, "password": format!("{name}-password-1")}),
            )
            .await;
    }
    let cashier = served.login("cashier", "cashier-password-1").await;
    for (player, amount) in [("p1", 20_000), ("p2", 5_000)] {
        served
            .ask(
                &cashier,
                json!({"op": "cash_in", "id": format!("cash-{player}"), "player": player, "amount": amount}),
            )
            .await;
    }
    let p1 = served.login("p1", "p1-password-1").await;
    let (status, me) = served.call("GET", "/api/me", Some(&p1), None).await;
    assert_eq!(status, 200, "{me}");
    assert_eq!(
        me,
        json!({"username": "p1", "role": "player", "accounts": {"wallet:p1": 20_000}, "must_change_password": false,
               "may": ["change_own_password", "agree_split", "buy_in", "leave_table", "tip", "bet", "cancel_bet"]})
    );
}

/// Only the server itself marks the journal's format: no client's request
/// can say so, an admin's included.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_only_the_server_makes_is_refused_even_to_the_admin() {
    let served = Served::open();
    let admin = served.admin().await;
    let (status, body) = served
        .call(
            "POST",
            "/api/requests",
            Some(&admin),
            Some(json!({"op": "journal_format", "format": 3})),
        )
        .await;
    assert_eq!((status, body["error"].as_str()), (400, Some("bad_request")), "{body}");
}

/// Every response, an answer or a refusal, carries an id of its own in
/// `x-request-id`: the id the log holds for that request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_response_carries_a_request_id() {
    let served = Served::open();
    let admin = served.admin().await;
    // (method, path, signed in, the status it answers with)
    let requests = [
        ("GET", "/healthz", false, 200),
        ("GET", "/board", false, 200),
        ("GET", "/api/public/tables", false, 200),
        ("GET", "/api/me", true, 200),
        ("GET", "/api/me", false, 401),
        ("GET", "/api/nowhere", false, 404),
        ("DELETE", "/api/me", true, 405),
    ];
    let mut ids = std::collections::BTreeSet::new();
    for (method, path, signed_in, status) in requests {
        let token = signed_in.then_some(admin.as_str());
        let answer = served.send(method, path, token, None, Vec::new()).await;
        assert_eq!(answer.status, status, "{method} {path}: {}", answer.body);
        let id = answer.request_id.expect("an x-request-id header");
        assert!(!id.is_empty(), "{method} {path}");
        assert!(ids.insert(id.clone()), "{method} {path}: {id} was given before");
    }
}

/// Every answer is never sniffed nor framed; each page runs only its own
/// script and the server's (a script slipped into the page's data does not
/// run), and talks only to the server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_carries_the_security_headers_and_pages_their_policy() {
    let served = Served::open();
    for path in [
        "/",
        "/board",
        "/terminal",
        "/dealer",
        "/pit",
        "/api/public/tables",
        "/api/me",
        "/static/common.js",
    ] {
        let answer = served.send("GET", path, None, None, Vec::new()).await;
        let header = |name: &str| {
            answer
                .headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string()
        };
        assert_eq!(header("x-content-type-options"), "nosniff", "{path}");
        assert_eq!(header("x-frame-options"), "DENY", "{path}");
        assert_eq!(header("referrer-policy"), "no-referrer", "{path}");
        let policy = header("content-security-policy");
        if path.starts_with("/api") || path.starts_with("/static") {
            continue;
        }
        let script = policy
            .split(';')
            .find(|d| d.trim().starts_with("script-src"))
            .unwrap_or_else(|| panic!("{path}: no script-src in {policy:?}"));
        assert!(!script.contains("unsafe-inline"), "{path}: {script}");
        assert!(
            script.contains("'sha256-") || path == "/",
            "{path}: its own script is allowed by hash: {script}"
        );
        assert!(policy.contains("frame-ancestors 'none'"), "{path}: {policy}");
    }
}

/// A password is hashed (tens of milliseconds of argon2) only for someone who
/// may create users: a player's create_user is refused for the role, before
/// the password is even looked at.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_role_that_may_not_create_users_is_refused_before_any_hashing() {
    let served = Served::open();
    let admin = served.admin().await;
    served
        .ask(
            &admin,
            json!({"op": "create_user", "username": "p1", "role": "player", "password": "p1-password-1"}),
        )
        .await;
    let p1 = served.login("p1", "p1-password-1").await;
    // A password too short to hash: refused for the role, not for the password.
    let (status, body) = served
        .call(
            "POST",
            "/api/requests",
            Some(&p1),
            Some(json!({"op": "create_user", "username": "eve", "role": "admin", "password": "short"})),
        )
        .await;
    assert_eq!((status, body["error"].as_str()), (403, Some("forbidden")), "{body}");
}

/// A stranger's flood of sign-ins from one address is held back at that
/// address: a terminal elsewhere still signs in at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_sign_ins_from_one_address_holds_back_only_that_address() {
    let served = Served::with_p1().await;
    let stranger: std::net::SocketAddr = "203.0.113.7:40000".parse().expect("address");
    let terminal: std::net::SocketAddr = "198.51.100.20:40000".parse().expect("address");
    // Made-up names, so no one account's own backoff is what stops it.
    let mut held = None;
    for i in 0..200 {
        let answer = served
            .sign_in_from(stranger, &format!("guess{i}"), "guess-password")
            .await;
        if answer.status == 429 {
            held = Some((i, answer));
            break;
        }
        assert_eq!(answer.status, 401, "{}", answer.body);
    }
    let (tries, held) = held.expect("the stranger is held back");
    assert_eq!(held.body["error"], "too_many_attempts", "{}", held.body);
    assert!(held.body["message"].as_str().expect("message").contains("this address"));
    // Twenty failures from one address before its tries are spaced.
    assert_eq!(tries, 20, "{}", held.body);
    // The stranger's address waits, whatever name it tries next: asked at
    // once, before anything slow (a sign-in's hash on a busy machine took
    // longer than the wait itself).
    let answer = served.sign_in_from(stranger, "p1", "p1-password-1").await;
    assert_eq!(
        answer.status, 429,
        "the address waits, whoever it names: {}",
        answer.body
    );
    let answer = served.sign_in_from(terminal, "p1", "p1-password-1").await;
    assert_eq!(answer.status, 200, "{}", answer.body);
}

/// A stranger guessing at one account is held back at the stranger's
/// address: the account's owner, elsewhere, still signs in at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guesses_at_an_account_hold_back_the_guesser_not_the_owner() {
    let served = Served::with_p1().await;
    let stranger: std::net::SocketAddr = "203.0.113.7:40000".parse().expect("address");
    let owner: std::net::SocketAddr = "198.51.100.20:40000".parse().expect("address");
    let mut held = None;
    for i in 0..20 {
        let answer = served
            .sign_in_from(stranger, "p1", &format!("guess-password-{i}"))
            .await;
        if answer.status == 429 {
            held = Some(answer);
            break;
        }
        assert_eq!(answer.status, 401, "{}", answer.body);
    }
    let held = held.expect("the guesser is held back");
    assert!(
        held.body["message"]
            .as_str()
            .is_some_and(|m| m.contains("this account from this address")),
        "{}",
        held.body
    );
    // Even the right password waits at the guesser's address (asked at once,
    // before the owner's sign-in spends its hash).
    let answer = served.sign_in_from(stranger, "p1", "p1-password-1").await;
    assert_eq!(answer.status, 429, "{}", answer.body);
    let answer = served.sign_in_from(owner, "p1", "p1-password-1").await;
    assert_eq!(answer.status, 200, "the owner is not locked out: {}", answer.body);
}

/// The admin's list of users: in name order, a page at a time, who is
/// locked and who must change a password someone else chose; never a
/// password's hash; an admin's and an auditor's alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_lists_the_users_a_page_at_a_time_and_no_one_else_does() {
    let served = Served::open();
    let admin = served.admin().await;
    for (name, role) in [("zoe", "player"), ("bob", "dealer"), ("audit", "auditor")] {
        served
            .ask(
                &admin,
                json!({"op": "create_user", "username": name, "role": role, "password": format!("{name}-password-1")}),
            )
            .await;
    }
    served.ask(&admin, json!({"op": "lock_user", "username": "zoe"})).await;
    served
        .ask(
            &admin,
            json!({"op": "reset_password", "username": "bob", "password": "chosen-password-1"}),
        )
        .await;
    let (status, page) = served.call("GET", "/api/users?limit=2", Some(&admin), None).await;
    assert_eq!(status, 200, "{page}");
    let names: Vec<&str> = page["users"]
        .as_array()
        .expect("users")
        .iter()
        .filter_map(|u| u["username"].as_str())
        .collect();
    assert_eq!(names, ["admin", "audit"], "{page}");
    assert_eq!(page["next"], "audit");
    assert!(!page.to_string().contains("hash"), "{page}");
    let (_, rest) = served
        .call("GET", "/api/users?limit=2&after=audit", Some(&admin), None)
        .await;
    assert_eq!(rest["users"][0]["username"], "bob");
    assert_eq!(rest["users"][0]["must_change_password"], true, "{rest}");
    assert_eq!(rest["users"][1]["username"], "zoe");
    assert_eq!(rest["users"][1]["locked"], true, "{rest}");
    assert_eq!(rest["next"], Value::Null);
    let (status, body) = served.call("GET", "/api/users?limit=0", Some(&admin), None).await;
    assert_eq!((status, body["error"].as_str()), (400, Some("bad_request")), "{body}");
    let auditor = served.login("audit", "audit-password-1").await;
    assert_eq!(served.call("GET", "/api/users", Some(&auditor), None).await.0, 200);
    let dealer = served.login("bob", "chosen-password-1").await;
    let (status, _) = served.call("GET", "/api/users", Some(&dealer), None).await;
    assert_eq!(status, 403, "must change the password first, and is no admin anyway");
    assert_eq!(served.call("GET", "/api/users", None, None).await.0, 401);
}

/// The shipped profiles, for a table to be made from: anyone may read
/// them (the rules a table posts are public), each with its whole text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shipped_profiles_are_public_with_their_text() {
    let served = Served::open();
    let (status, body) = served.call("GET", "/api/public/profiles", None, None).await;
    assert_eq!(status, 200, "{body}");
    let profiles = body["profiles"].as_array().expect("profiles");
    assert_eq!(profiles.len(), croupier_profiles::builtin_names().len());
    let maryland = profiles.iter().find(|p| p["name"] == "maryland").expect("maryland");
    assert_eq!(maryland["wheels"][0], "double-zero", "{maryland}");
    assert_eq!(maryland["text"].as_str(), croupier_profiles::builtin_text("maryland"));
}

/// A password someone else chose is replaced by the user's own: giving it
/// again as the new one is refused, and the session still takes nothing else.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chosen_password_is_not_kept_by_giving_it_again() {
    let served = Served::open();
    let admin = served.admin().await;
    served
        .ask(
            &admin,
            json!({"op": "create_user", "username": "bob", "role": "dealer", "password": "bob-password-1"}),
        )
        .await;
    served
        .ask(
            &admin,
            json!({"op": "reset_password", "username": "bob", "password": "chosen-password-1"}),
        )
        .await;
    let bob = served.login("bob", "chosen-password-1").await;
    let (status, body) = served
        .call(
            "POST",
            "/api/requests",
            Some(&bob),
            Some(
                json!({"op": "change_password", "password": "chosen-password-1", "new_password": "chosen-password-1"}),
            ),
        )
        .await;
    assert_eq!((status, body["error"].as_str()), (400, Some("bad_request")), "{body}");
    let (_, me) = served.call("GET", "/api/me", Some(&bob), None).await;
    assert_eq!(me["must_change_password"], true, "{me}");
    // A user made with a password the admin chose may be made to choose their own at once.
    served
        .ask(
            &admin,
            json!({"op": "create_user", "username": "cy", "role": "player", "password": "cy-chosen-password-1", "must_change_password": true}),
        )
        .await;
    let (status, answer) = served
        .call(
            "POST",
            "/api/login",
            None,
            Some(json!({"username": "cy", "password": "cy-chosen-password-1"})),
        )
        .await;
    assert_eq!(
        (status, answer["must_change_password"].as_bool()),
        (200, Some(true)),
        "{answer}"
    );
}

/// The cage looks a player up before cash moves: their wallet, their chips
/// and the coupons issued to them; a player sees only their own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cage_looks_up_a_players_accounts_and_a_player_only_their_own() {
    let served = Served::open();
    let admin = served.admin().await;
    for (name, role) in [("cage", "cashier"), ("ann", "player"), ("bo", "player")] {
        served
            .ask(
                &admin,
                json!({"op": "create_user", "username": name, "role": role, "password": format!("{name}-password-1")}),
            )
            .await;
    }
    let cage = served.login("cage", "cage-password-1").await;
    served
        .ask(
            &cage,
            json!({"op": "cash_in", "id": "c1", "player": "ann", "amount": 5_000}),
        )
        .await;
    served
        .ask(
            &cage,
            json!({"op": "issue_coupon", "id": "mp-1", "player": "ann", "table": "t2", "value": 500}),
        )
        .await;
    let (status, ann) = served.call("GET", "/api/players/ann/accounts", Some(&cage), None).await;
    assert_eq!(status, 200, "{ann}");
    assert_eq!(ann["accounts"]["wallet:ann"], 5_000, "{ann}");
    assert_eq!(ann["coupons"][0]["id"], "mp-1", "{ann}");
    let own = served.login("ann", "ann-password-1").await;
    assert_eq!(
        served
            .call("GET", "/api/players/ann/accounts", Some(&own), None)
            .await
            .0,
        200
    );
    let other = served.login("bo", "bo-password-1").await;
    let (status, body) = served
        .call("GET", "/api/players/ann/accounts", Some(&other), None)
        .await;
    assert_eq!((status, body["error"].as_str()), (403, Some("forbidden")), "{body}");
    let (status, body) = served
        .call("GET", "/api/players/cage/accounts", Some(&cage), None)
        .await;
    assert_eq!((status, body["error"].as_str()), (404, Some("no_player")), "{body}");
}
