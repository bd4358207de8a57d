//! Journal segments through the binary: a server cuts each gaming day that
//! is over into a file of its own, sealed by a checkpoint taken at the day's
//! end; the live journal keeps the present; `croupier verify` reads the days
//! where they lie and names one it cannot find; a start needs none of them.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use croupier_core::Minor;
use croupier_ledger::segments::{day_name, DAY_MS, SEGMENTS_DIR};
use croupier_ledger::SqliteStorage;
use croupier_server::api::Role;
use croupier_server::casino::{Actor, Casino, Request};
use croupier_server::runtime::passwords::hash_password;
use croupier_testkit::{data_dir, free_port, verify, Server};
use serde_json::json;

const BINARY: &str = env!("CARGO_BIN_EXE_croupier");

/// A casino's journal written over the three gaming days before today,
/// through the casino itself: its users, and a cash-in of 100.00 for ann on
/// each day. Returns the three days' names.
fn three_days_of_history(data: &Path) -> [String; 3] {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as u64;
    let today = now / DAY_MS;
    let noon = |days_ago: u64| (today - days_ago) * DAY_MS + DAY_MS / 2;
    let storage = SqliteStorage::open(data).expect("the journal");
    let (mut casino, _) = Casino::open(storage, noon(3)).expect("opened");
    let mut run = |at: u64, who: &Actor, request: Request| {
        let shown = format!("{request:?}");
        casino
            .execute(at, who, request)
            .unwrap_or_else(|e| panic!("{shown}: {e}"));
    };
    for (name, role, password) in [
        ("boss", Role::Admin, "boss-password-1"),
        ("cage", Role::Cashier, "cage-password-1"),
        ("ann", Role::Player, "ann-password-1"),
    ] {
        run(
            noon(3),
            &Actor::system(),
            Request::CreateUser {
                username: name.into(),
                role,
                password_hash: hash_password(password).expect("hashed"),
                licence: None,
            },
        );
    }
    let cashier = Actor::new("cage", Role::Cashier, "L-1");
    for days_ago in [3, 2, 1] {
        run(
            noon(days_ago),
            &cashier,
            Request::CashIn {
                id: format!("cash-{days_ago}"),
                player: "ann".into(),
                amount: Minor::new(10_000),
            },
        );
    }
    [3, 2, 1].map(|days_ago| day_name(noon(days_ago)))
}

fn wallet(server: &Server, token: &str) -> serde_json::Value {
    let (status, me) = server.http("GET", "/api/me", Some(token), None);
    assert_eq!(status, 200, "{me}");
    me["accounts"].clone()
}

/// The live journal's first entry and the segments' end, as the files say.
fn live_first_and_segments_end(data: &Path) -> (u64, u64) {
    let conn =
        rusqlite::Connection::open(data.join(croupier_ledger::storage::DATABASE_FILE)).expect("the live journal");
    let first: i64 = conn
        .query_row("SELECT min(seq) FROM journal", [], |r| r.get(0))
        .expect("rows");
    let end: Option<i64> = conn
        .query_row("SELECT max(last) FROM segment", [], |r| r.get(0))
        .expect("catalogue");
    (first as u64, end.unwrap_or(0) as u64)
}

fn croupier(args: &[&str]) -> (bool, String) {
    let out = Command::new(BINARY).args(args).output().expect("runs");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// What `serve` said as it refused to start on `data`; fails the test if it served.
fn refused_start(data: &Path) -> String {
    let mut serve = Command::new(BINARY)
        .args(["serve", "--listen", "127.0.0.1:0", "--data"])
        .arg(data)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    for _ in 0..600 {
        if serve.try_wait().expect("waits").is_some() {
            let out = serve.wait_with_output().expect("ends");
            assert!(!out.status.success(), "serve ended as if stopped");
            return String::from_utf8_lossy(&out.stderr).into_owned();
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    serve.kill().expect("stopped");
    panic!("serve started on the journal rather than refusing it");
}

#[test]
fn each_gaming_day_over_is_cut_into_a_segment_that_verify_reads_where_it_lies() {
    let dir = data_dir();
    let data = dir.path().join("data");
    let days = three_days_of_history(&data);
    let mut server = Server::start_with(BINARY, &data, free_port(), &["--checkpoint-every", "1000000"]);
    let cage = server.login("cage", "cage-password-1");
    let ann = server.login("ann", "ann-password-1");
    // Each day over is cut at its end, sealed by a checkpoint bound into the journal.
    let folder = data.join(SEGMENTS_DIR);
    let began = Instant::now();
    while !days.iter().all(|d| folder.join(format!("{d}.db")).is_file()) {
        assert!(
            began.elapsed() < Duration::from_secs(60),
            "no segment of each day: {days:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    // Between the writer's groups, the days' rows leave the live journal.
    let mut n = 0;
    loop {
        let (first, end) = live_first_and_segments_end(&data);
        if end > 0 && first > end {
            break;
        }
        assert!(
            began.elapsed() < Duration::from_secs(60),
            "the live journal still begins at {first} (segments to {end})"
        );
        n += 1;
        server.ask(
            &cage,
            json!({"op": "cash_in", "id": format!("today-{n}"), "player": "ann", "amount": 1}),
        );
        std::thread::sleep(Duration::from_millis(150));
    }
    let held = wallet(&server, &ann);
    assert_eq!(
        held["wallet:ann"],
        json!(30_000 + n),
        "three days of 100.00 and today's cents: {held}"
    );
    let (ok, report) = verify(BINARY, &data, &[]);
    assert!(
        ok,
        "every entry, the days' segments and the live journal, verifies: {report}"
    );
    server.kill();

    // The first day archived elsewhere: verify names it, and reads it there.
    let archive = dir.path().join("archive");
    std::fs::create_dir_all(&archive).expect("archive");
    let first_day = format!("{}.db", days[0]);
    std::fs::rename(folder.join(&first_day), archive.join(&first_day)).expect("archived");
    let data_arg = data.to_str().expect("path");
    let (ok, said) = croupier(&["verify", "--data", data_arg]);
    assert!(!ok, "a missing day is not verified: {said}");
    assert!(said.contains(&first_day) && said.contains("--segments"), "{said}");
    let (ok, report) = verify(BINARY, &data, &["--segments", archive.to_str().expect("path")]);
    assert!(ok, "read where it lies: {report}");
    let (ok, said) = croupier(&["verify", "--data", data_arg, "--segments", "/no/such/folder"]);
    assert!(
        !ok && said.contains("--segments /no/such/folder: no such folder"),
        "{said}"
    );
    let (ok, report) = verify(BINARY, &data, &["--from-checkpoint"]);
    assert!(ok, "an incremental check needs no segment: {report}");
    let (ok, report) = verify(BINARY, &data, &[]);
    assert!(!ok, "{report}");
    assert!(
        report["problem"].as_str().is_some_and(|p| p.contains(&first_day)),
        "the JSON report names the missing day: {report}"
    );

    // A forgotten password is set again with the day archived: the command
    // opens from the newest checkpoint, as the server does.
    let mut reset = Command::new(BINARY)
        .args(["user", "reset-password", "--data", data_arg, "--username", "ann"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    std::io::Write::write_all(reset.stdin.as_mut().expect("stdin"), b"ann-password-2\n").expect("password");
    let out = reset.wait_with_output().expect("ends");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    // A start opens from the newest checkpoint and needs no segment either.
    let server = Server::start_with(BINARY, &data, free_port(), &["--checkpoint-every", "1000000"]);
    let ann = server.login("ann", "ann-password-2");
    assert_eq!(wallet(&server, &ann), held);
    let (status, health) = server.http("GET", "/healthz", None, None);
    assert_eq!(status, 200, "{health}");
    assert!(!health.to_string().contains("history"), "no history alarm: {health}");
    drop(server);

    // An insider takes the last day out of the catalogue (no secret needed
    // to delete a row): the entries are missing, not damaged, and no
    // recovery cuts the archived days for it.
    std::fs::rename(archive.join(&first_day), folder.join(&first_day)).expect("put back");
    let conn =
        rusqlite::Connection::open(data.join(croupier_ledger::storage::DATABASE_FILE)).expect("the live journal");
    conn.execute("DELETE FROM segment WHERE first = (SELECT max(first) FROM segment)", [])
        .expect("deleted");
    drop(conn);
    let (ok, said) = croupier(&["verify", "--data", data_arg]);
    assert!(!ok && said.contains("entries are missing, not damaged"), "{said}");
    // Nor does the server start on it, nor a user command write to it. A
    // row the secret did not seal is refused as such before the gap.
    let conn =
        rusqlite::Connection::open(data.join(croupier_ledger::storage::DATABASE_FILE)).expect("the live journal");
    let macs: Vec<(i64, Vec<u8>)> = {
        let mut rows = conn.prepare("SELECT first, mac FROM segment").expect("catalogue");
        let read = rows.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).expect("rows");
        read.collect::<Result<_, _>>().expect("macs")
    };
    conn.execute("UPDATE segment SET mac = randomblob(32)", [])
        .expect("changed");
    let said = refused_start(&data);
    assert!(said.contains("the secret did not seal"), "{said}");
    for (first, mac) in &macs {
        conn.execute(
            "UPDATE segment SET mac = ?1 WHERE first = ?2",
            rusqlite::params![mac, first],
        )
        .expect("put back");
    }
    drop(conn);
    let said = refused_start(&data);
    assert!(said.contains("are missing, not damaged"), "{said}");
    let (ok, said) = croupier(&["user", "unlock", "--data", data_arg, "--username", "ann"]);
    assert!(!ok && said.contains("are missing, not damaged"), "{said}");
    // The days were written before the secret, so before entries carried
    // MACs: the secret vouches for none of the entries before the gap, and
    // verify offers none to keep. Recovery refuses the gap whatever --keep names.
    let (_, report) = verify(BINARY, &data, &[]);
    assert_eq!(report["last_good_entry"], serde_json::Value::Null, "{report}");
    let keep = report["segments_end"].as_u64().expect("the segments' end").to_string();
    let (ok, said) = croupier(&[
        "recover",
        "--data",
        data_arg,
        "--keep",
        &keep,
        "--reason",
        "verify said so",
    ]);
    assert!(!ok && said.contains("entries are missing, not"), "{said}");
    assert!(
        !std::fs::read_dir(&data).expect("data").any(|e| e
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .starts_with("recovered-")),
        "nothing was copied or moved"
    );
}
