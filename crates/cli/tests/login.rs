//! Signing in through the real binary, as a stranger guessing passwords
//! would: guesses are held back, never turned into a lockout of the real
//! owner; a name no one has is answered like a wrong password; and the
//! admin's own tools (lock, unlock, reset) and a user's change of their
//! own password work over the API and, with the server stopped, the command.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use croupier_testkit::{data_dir, free_port, Server};
use serde_json::{json, Value};

const BINARY: &str = env!("CARGO_BIN_EXE_croupier");

fn sign_in(server: &Server, username: &str, password: &str) -> croupier_testkit::Answer {
    server.answer(
        "POST",
        "/api/login",
        None,
        Some(&json!({"username": username, "password": password})),
    )
}

/// A fresh server with an admin signed in and `users` (name, role) added,
/// each with the password `NAME-password-1`.
fn server_with(data: &Path, options: &[&str], users: &[(&str, &str)]) -> (Server, String) {
    let server = Server::start_with(BINARY, data, free_port(), options);
    let admin = server.admin_token();
    server.add_users(&admin, users);
    (server, admin)
}

/// `croupier user ...` on a stopped server's data, the password (if any) on standard input.
fn user_command(args: &[&str], password: Option<&str>) -> (bool, String) {
    let mut child = Command::new(BINARY)
        .arg("user")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("croupier user runs");
    if let Some(password) = password {
        writeln!(child.stdin.take().expect("stdin"), "{password}").expect("password written");
    }
    let out = child.wait_with_output().expect("croupier user ends");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), said)
}

#[test]
fn failed_sign_ins_hold_back_the_next_try_but_lock_no_one_out() {
    let data = data_dir();
    let (server, admin) = server_with(data.path(), &[], &[("p1", "player")]);
    let session = server.login("p1", "p1-password-1");

    // A stranger guesses three times: each is simply wrong.
    for _ in 0..3 {
        let guess = sign_in(&server, "p1", "guess-password");
        assert_eq!(guess.status, 401, "{}", guess.body);
        assert_eq!(guess.body["error"], "unauthenticated");
        assert_eq!(guess.body["message"], "wrong username or password");
    }
    // The next try waits, whoever sends it, and says for how long.
    let held = sign_in(&server, "p1", "p1-password-1");
    assert_eq!(
        (held.status, held.body["error"].as_str()),
        (429, Some("too_many_attempts")),
        "{}",
        held.body
    );
    let wait: u64 = held
        .header("retry-after")
        .and_then(|s| s.parse().ok())
        .expect("Retry-After");
    assert!((1..=2).contains(&wait), "the first wait is a second: {wait}");
    // The owner was not thrown out, and the account is not locked.
    assert_eq!(server.http("GET", "/api/me", Some(&session), None).0, 200);
    std::thread::sleep(Duration::from_secs(wait));
    let owner = sign_in(&server, "p1", "p1-password-1");
    assert_eq!(owner.status, 200, "after the wait the owner signs in: {}", owner.body);

    let (_, metrics) = server.http("GET", "/metrics", Some(&admin), None);
    assert!(metrics
        .as_str()
        .expect("text")
        .contains("croupier_logins_failed_total 3"));
}

#[test]
fn guesses_sent_all_at_once_are_not_all_checked() {
    let data = data_dir();
    let (server, _admin) = server_with(data.path(), &[], &[("p1", "player")]);
    const GUESSES: usize = 30;
    let start = Arc::new(Barrier::new(GUESSES));
    let guessers: Vec<_> = (0..GUESSES)
        .map(|i| {
            let client = server.client();
            let start = start.clone();
            std::thread::spawn(move || {
                start.wait();
                let guess = json!({"username": "p1", "password": format!("guess-{i:04}-password")});
                client.http("POST", "/api/login", None, Some(&guess)).0
            })
        })
        .collect();
    let statuses: Vec<u16> = guessers.into_iter().map(|g| g.join().expect("guesser")).collect();
    let checked = statuses.iter().filter(|&&s| s == 401).count();
    let held = statuses.iter().filter(|&&s| s == 429).count();
    assert_eq!(checked + held, GUESSES, "{statuses:?}");
    // One guess at a time per account, three before the waits begin: a burst
    // gets about as many guesses as three sent one after another.
    assert!(
        (1..=4).contains(&checked),
        "{checked} of {GUESSES} guesses checked: {statuses:?}"
    );
}

#[test]
fn a_name_no_one_has_is_answered_like_a_wrong_password() {
    let data = data_dir();
    let known: Vec<(String, &str)> = (0..5).map(|i| (format!("k{i}"), "player")).collect();
    let known_refs: Vec<(&str, &str)> = known.iter().map(|(n, r)| (n.as_str(), *r)).collect();
    let (server, _admin) = server_with(data.path(), &[], &known_refs);
    let timed = |username: &str| {
        let began = Instant::now();
        let answer = sign_in(&server, username, "wrong-password-9");
        (began.elapsed(), answer)
    };
    let mut known_times = Vec::new();
    let mut unknown_times = Vec::new();
    // Each name is tried once, so no wait comes between.
    for i in 0..5 {
        let (t, wrong) = timed(&format!("k{i}"));
        known_times.push(t);
        let (u, nobody) = timed(&format!("nobody{i}"));
        unknown_times.push(u);
        assert_eq!((wrong.status, &wrong.body), (nobody.status, &nobody.body));
        assert_eq!(nobody.status, 401);
    }
    known_times.sort();
    unknown_times.sort();
    // A password hash is checked either way: without one, a name no one has
    // would be answered in a fraction of the time.
    let (known, unknown) = (known_times[2], unknown_times[2]);
    assert!(
        unknown * 3 >= known,
        "a name no one has: {unknown:?}; a wrong password: {known:?}"
    );
    // A name no account could have is refused as such, before any hashing.
    let odd = sign_in(&server, "Not A Name", "whatever-password");
    assert_eq!((odd.status, odd.body["error"].as_str()), (400, Some("bad_request")));
    assert!(odd.body["message"].as_str().expect("message").contains("username"));
    let long = sign_in(&server, "k0", &"x".repeat(5_000));
    assert_eq!((long.status, long.body["error"].as_str()), (400, Some("bad_request")));
}

#[test]
fn one_address_tries_only_so_many_sign_ins_a_minute() {
    let data = data_dir();
    let (server, _admin) = server_with(
        data.path(),
        &["--sign-ins-per-client-per-minute", "8"],
        &[("p1", "player"), ("p2", "player")],
    );
    // The admin's own sign-in was the first; the address may try eight at
    // once, then one each 7.5 s.
    let began = Instant::now();
    let mut tried = 1;
    let mut refused = None;
    for i in 0..12 {
        let who = if i % 2 == 0 { "p1" } else { "p2" };
        let answer = sign_in(&server, who, &format!("{who}-password-1"));
        if answer.status == 429 {
            refused = Some(answer);
            break;
        }
        assert_eq!(answer.status, 200, "{}", answer.body);
        tried += 1;
    }
    let refused = refused.expect("refused within the minute");
    let earned = began.elapsed().as_secs_f64() / 7.5;
    assert!(f64::from(tried) <= 8.0 + earned.ceil(), "{tried} sign-ins went through");
    assert!(refused.body["message"]
        .as_str()
        .expect("message")
        .contains("this address"));
    let wait: u64 = refused
        .header("retry-after")
        .and_then(|s| s.parse().ok())
        .expect("Retry-After");
    assert!((1..=8).contains(&wait), "{wait}");
    std::thread::sleep(Duration::from_secs(wait));
    assert_eq!(sign_in(&server, "p1", "p1-password-1").status, 200, "after the wait");
    // A zero limit is not a limit the server takes.
    let (ok, said) = {
        let out = Command::new(BINARY)
            .args(["serve", "--sign-ins-per-client-per-minute", "0", "--data"])
            .arg(data.path())
            .output()
            .expect("serve runs");
        (out.status.success(), String::from_utf8_lossy(&out.stderr).to_string())
    };
    assert!(!ok && said.contains("sign-ins-per-client-per-minute"), "{said}");
}

fn ask(server: &Server, token: &str, request: Value) -> (u16, Value) {
    server.http("POST", "/api/requests", Some(token), Some(&request))
}

#[test]
fn an_admin_locks_unlocks_and_resets_and_a_user_changes_their_password() {
    let data = data_dir();
    let (mut server, admin) = server_with(data.path(), &[], &[("p1", "player"), ("pit", "pit_supervisor")]);
    let pit = server.login("pit", "pit-password-1");
    let p1 = server.login("p1", "p1-password-1");

    // Only an admin manages accounts.
    for request in [
        json!({"op": "lock_user", "username": "p1"}),
        json!({"op": "unlock_user", "username": "p1"}),
        json!({"op": "reset_password", "username": "p1", "password": "pit-chose-this-1"}),
    ] {
        let (status, body) = ask(&server, &pit, request.clone());
        assert_eq!((status, body["error"].as_str()), (403, Some("forbidden")), "{request}");
    }
    assert_eq!(server.http("GET", "/api/me", Some(&p1), None).0, 200, "nothing changed");
    let (status, body) = ask(&server, &admin, json!({"op": "lock_user", "username": "nobody"}));
    assert_eq!((status, body["error"].as_str()), (404, Some("no_user")), "{body}");

    // Locked: the sessions end, and the right password is told the account is locked.
    assert_eq!(
        ask(&server, &admin, json!({"op": "lock_user", "username": "p1"})).0,
        200
    );
    assert_eq!(server.http("GET", "/api/me", Some(&p1), None).0, 401);
    let locked = sign_in(&server, "p1", "p1-password-1");
    assert_eq!((locked.status, locked.body["error"].as_str()), (401, Some("locked")));
    // A wrong password to a locked account says only that it is wrong.
    let guess = sign_in(&server, "p1", "guess-password");
    assert_eq!(guess.body["error"], "unauthenticated");
    assert_eq!(
        ask(&server, &admin, json!({"op": "unlock_user", "username": "p1"})).0,
        200
    );
    let p1 = server.login("p1", "p1-password-1");

    // Reset by the admin: the old password and its sessions are over.
    let (status, body) = ask(
        &server,
        &admin,
        json!({"op": "reset_password", "username": "p1", "password": "short"}),
    );
    assert_eq!((status, body["error"].as_str()), (422, Some("bad_password")), "{body}");
    assert_eq!(
        server.http("GET", "/api/me", Some(&p1), None).0,
        200,
        "a refused reset changes nothing"
    );
    assert_eq!(
        ask(
            &server,
            &admin,
            json!({"op": "reset_password", "username": "p1", "password": "admin-set-password-2"})
        )
        .0,
        200
    );
    assert_eq!(server.http("GET", "/api/me", Some(&p1), None).0, 401);
    assert_eq!(sign_in(&server, "p1", "p1-password-1").status, 401);
    let here = server.login("p1", "admin-set-password-2");
    let there = server.login("p1", "admin-set-password-2");

    // Changed by its owner, who must know the current one.
    let (status, body) = ask(
        &server,
        &here,
        json!({"op": "change_password", "password": "not-the-password", "new_password": "my-own-password-3"}),
    );
    assert_eq!(
        (status, body["error"].as_str()),
        (403, Some("wrong_password")),
        "{body}"
    );
    assert_eq!(
        server.http("GET", "/api/me", Some(&there), None).0,
        200,
        "a wrong guess ends nothing"
    );
    assert_eq!(
        ask(
            &server,
            &here,
            json!({"op": "change_password", "password": "admin-set-password-2", "new_password": "my-own-password-3"})
        )
        .0,
        200
    );
    assert_eq!(
        server.http("GET", "/api/me", Some(&here), None).0,
        200,
        "this session goes on"
    );
    assert_eq!(
        server.http("GET", "/api/me", Some(&there), None).0,
        401,
        "the others end"
    );
    server.login("p1", "my-own-password-3");

    // With the server stopped, the admin's command unlocks and resets.
    assert_eq!(
        ask(&server, &admin, json!({"op": "lock_user", "username": "p1"})).0,
        200
    );
    let (status, body) = ask(&server, &admin, json!({"op": "lock_user", "username": "admin"}));
    assert!(
        status == 403 && body["message"].as_str().is_some_and(|m| m.contains("last admin")),
        "the last admin who can sign in is never locked: {status} {body}"
    );
    server.kill();
    let dir = data.path().to_str().expect("path");
    let (ok, said) = user_command(&["unlock", "--data", dir, "--username", "p1"], None);
    assert!(ok, "{said}");
    let (ok, said) = user_command(&["unlock", "--data", dir, "--username", "admin"], None);
    assert!(ok, "{said}");
    let (ok, said) = user_command(&["reset-password", "--data", dir, "--username", "admin"], Some("short"));
    assert!(!ok && said.contains("at least"), "{said}");
    let (ok, said) = user_command(
        &["reset-password", "--data", dir, "--username", "admin"],
        Some("admin-new-password-4"),
    );
    assert!(ok, "{said}");
    let (ok, said) = user_command(&["unlock", "--data", dir, "--username", "nobody"], None);
    assert!(!ok && said.contains("nobody"), "{said}");

    let server = Server::start(BINARY, data.path(), free_port());
    assert_eq!(
        server.http("GET", "/api/me", Some(&admin), None).0,
        401,
        "reset ended it"
    );
    server.login("admin", "admin-new-password-4");
    server.login("p1", "my-own-password-3");
}

// The first admin's password is printed once, into the service's log: it
// takes nothing but its own change until changed, across a restart too.
#[test]
fn the_first_admin_changes_the_printed_password_before_anything_else() {
    let data = data_dir();
    let mut server = Server::start(BINARY, data.path(), free_port());
    let printed = server.admin_password();
    let answer = sign_in(&server, "admin", &printed);
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.body["must_change_password"], true);
    let admin = answer.body["token"].as_str().expect("token").to_string();
    let create = json!({"op": "create_user", "username": "eve", "role": "admin", "password": "eve-password-1"});
    for (method, path, body) in [
        ("POST", "/api/requests", Some(&create)),
        ("GET", "/api/tables", None),
        ("GET", "/api/tables/t1/log", None),
        ("GET", "/metrics", None),
    ] {
        let (status, body) = server.http(method, path, Some(&admin), body);
        assert_eq!(
            (status, body["error"].as_str()),
            (403, Some("password_change_needed")),
            "{path}: {body}"
        );
    }
    assert_eq!(server.http("GET", "/api/me", Some(&admin), None).0, 200);
    // Still so after a restart.
    server.kill();
    let server = Server::start(BINARY, data.path(), free_port());
    assert_eq!(ask(&server, &admin, create.clone()).0, 403);
    let change = json!({"op": "change_password", "password": printed, "new_password": "my-admin-password-1"});
    assert_eq!(ask(&server, &admin, change).0, 200);
    assert_eq!(ask(&server, &admin, create).0, 200);
    let again = sign_in(&server, "admin", "my-admin-password-1");
    assert_eq!(again.body["must_change_password"], false);
}
