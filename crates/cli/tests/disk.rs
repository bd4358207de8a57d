//! A full disk is a pause, not an outage: `croupier serve` on a small tmpfs
//! whose room runs out while a round is open, and comes back.
//!
//! Mounting a tmpfs needs root and the privilege to mount. `scripts/e2e.sh`
//! tries one first, and where it can (as in CI) sets
//! `CROUPIER_FULL_DISK_TEST=required`: then a tmpfs that cannot be mounted
//! fails the test. Elsewhere the test says so and passes over.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use croupier_testkit::{data_dir, free_port, Server};
use serde_json::{json, Value};

/// A tmpfs mounted for the test, unmounted when dropped.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(at: &Path, size: &str) -> Option<Tmpfs> {
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(at)
            .status()
            .is_ok_and(|s| s.success());
        mounted.then(|| Tmpfs(at.to_path_buf()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Writes zeros into `file` until the disk refuses more.
fn fill(file: &Path) {
    let mut f = std::fs::File::create(file).expect("the filler");
    let block = vec![0u8; 256 * 1024];
    while f.write_all(&block).is_ok() {}
    let _ = f.sync_all();
}

fn bet(server: &Server, player: &str, id: &str) -> (u16, Value) {
    server.http(
        "POST",
        "/api/requests",
        Some(player),
        Some(&json!({"op": "place_bet", "table": "t1", "bet_id": id, "spot": "red", "stake": 500})),
    )
}

fn round_trip(server: &Server, dealer: &str, player: &str, n: u32) {
    server.ask(dealer, json!({"op": "open_betting", "table": "t1"}));
    for k in 0..5 {
        let (status, body) = bet(server, player, &format!("r{n}-{k}"));
        assert_eq!(status, 200, "{body}");
    }
    server.ask(dealer, json!({"op": "no_more_bets", "table": "t1"}));
    let (status, body) = server.http("POST", "/api/tables/t1/draw", Some(dealer), None);
    assert_eq!(status, 200, "{body}");
}

#[test]
fn a_full_disk_pauses_the_casino_which_resumes_by_itself_losing_nothing() {
    let dir = data_dir();
    let Some(_tmpfs) = Tmpfs::mount(dir.path(), "16m") else {
        assert!(
            std::env::var("CROUPIER_FULL_DISK_TEST").as_deref() != Ok("required"),
            "cannot mount a tmpfs for the full-disk test, though CROUPIER_FULL_DISK_TEST=required"
        );
        eprintln!("cannot mount a tmpfs here (not root): the full-disk test is passed over");
        return;
    };
    let server = Server::start(env!("CARGO_BIN_EXE_croupier"), dir.path(), free_port());
    let [_admin, cashier, dealer, pit, p1, _p2] = server.staff_and_players();
    server.inspect_and_open(&pit, &dealer, "t1");
    server.seat(&cashier, ("p1", &p1), "t1", 1_000_000, 1_000_000);
    for n in 0..3 {
        round_trip(&server, &dealer, &p1, n);
    }
    assert_eq!(server.http("GET", "/healthz", None, None).1["status"], "ok");

    // A round is open, a terminal follows it, and the disk fills.
    server.ask(&dealer, json!({"op": "open_betting", "table": "t1"}));
    let mut socket = server.subscribe("t1", Some(&p1));
    let mut acknowledged: Vec<String> = (0..3).map(|k| format!("before-{k}")).collect();
    for id in &acknowledged {
        let (status, body) = bet(&server, &p1, id);
        assert_eq!(status, 200, "{body}");
    }
    // The bets go on until the journal's log has no room left to reuse.
    fill(&dir.path().join("filler"));
    let refusal = loop {
        let id = format!("full-{}", acknowledged.len());
        let (status, body) = bet(&server, &p1, &id);
        if status != 200 {
            break (status, body);
        }
        acknowledged.push(id);
        assert!(acknowledged.len() < 100_000, "the disk never filled");
    };
    assert_eq!(refusal.0, 503, "{}", refusal.1);
    assert!(
        ["storage", "paused"].contains(&refusal.1["error"].as_str().unwrap_or("")),
        "{}",
        refusal.1
    );
    assert!(
        refusal.1["message"].as_str().unwrap_or("").contains("nothing"),
        "{}",
        refusal.1
    );

    // Paused: /healthz says so and why, the API refuses with that, and the terminal's stream closes.
    let (status, health) = server.http("GET", "/healthz", None, None);
    assert_eq!(status, 503, "{health}");
    assert_eq!(health["status"], "paused");
    assert!(
        health["journal"]["why"].as_str().unwrap_or("").contains("full"),
        "{health}"
    );
    assert_eq!(health["disk_low"], true, "{health}");
    assert!(health.get("disk_free_bytes").is_none(), "not told to anyone: {health}");
    let tables = server.answer("GET", "/api/tables", Some(&dealer), None);
    assert_eq!(tables.status, 503, "{:?}", tables.body);
    assert_eq!(tables.body["error"], "paused");
    assert_eq!(tables.header("retry-after"), Some("2"));
    let message = tables.body["message"].as_str().unwrap_or("").to_string();
    assert!(
        message.contains("resumes by itself") && message.contains("full"),
        "{message}"
    );
    let (status, body) = bet(&server, &p1, "while-paused");
    assert_eq!((status, body["error"].as_str()), (503, Some("paused")), "{body}");
    let (code, reason) = socket.closed_within(Duration::from_secs(5)).expect("closed");
    assert_eq!(code, 1013, "{reason}");
    assert_eq!(
        croupier_testkit::Socket::handshake_status(server.address(), "t1", Some(&p1)),
        503,
        "no stream opens while paused"
    );
    // Sessions live on the same disk: signing in says the same. The pages stay up.
    let (status, body) = server.http(
        "POST",
        "/api/login",
        None,
        Some(&json!({"username": "p2", "password": "p2-password-1"})),
    );
    assert_eq!((status, body["error"].as_str()), (503, Some("paused")), "{body}");
    assert_eq!(server.http("GET", "/terminal", None, None).0, 200);

    // Room again: with no request sent, the casino resumes within seconds.
    std::fs::remove_file(dir.path().join("filler")).expect("room");
    let began = Instant::now();
    let resumed = loop {
        let (status, health) = server.http("GET", "/healthz", None, None);
        if status == 200 && health["status"] == "ok" {
            break began.elapsed();
        }
        assert!(began.elapsed() < Duration::from_secs(15), "still {health}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(resumed < Duration::from_secs(5), "resumed after {resumed:?}");

    // The interrupted round is void; every acknowledged bet is in it, returned.
    let (status, tables) = server.http("GET", "/api/tables", Some(&dealer), None);
    assert_eq!(status, 200, "{tables}");
    let round = tables["tables"][0]["round"].as_u64().expect("round");
    let (status, recalled) = server.http("GET", &format!("/api/rounds/t1/{round}"), Some(&dealer), None);
    assert_eq!(status, 200, "{recalled}");
    let bets: Vec<&str> = recalled["bets"]
        .as_array()
        .expect("bets")
        .iter()
        .filter_map(|b| b["bet_id"].as_str())
        .collect();
    for id in &acknowledged {
        assert!(bets.contains(&id.as_str()), "acknowledged {id} is lost: {recalled}");
    }
    assert!(!bets.contains(&"while-paused"), "a refused bet was placed");
    // Play goes on, and recall reaches every round, archived by now.
    for n in 3..5 {
        round_trip(&server, &dealer, &p1, n);
    }
    let (status, mine) = server.http("GET", "/api/players/p1/rounds", Some(&p1), None);
    assert_eq!(status, 200, "{mine}");
    let ids: Vec<&str> = mine["rounds"]
        .as_array()
        .expect("rounds")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert_eq!(ids, ["t1/6", "t1/5", "t1/4", "t1/3", "t1/2", "t1/1"]);
    drop(server);
    let (ok, report) = croupier_testkit::verify(env!("CARGO_BIN_EXE_croupier"), dir.path(), &[]);
    assert!(ok, "{report}");
}
