//! Checkpoints through the binary: a server writes the casino's state as its
//! journal grows and binds each into the journal; a restart, even after
//! `kill -9`, opens from the newest and replays only what follows; a
//! checkpoint damaged or cut off is passed over, and nothing is lost.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use croupier_testkit::{data_dir, free_port, Server};
use serde_json::{json, Value};

const BINARY: &str = env!("CARGO_BIN_EXE_croupier");

fn start(data: &Path, every: &str) -> Server {
    Server::start_with(BINARY, data, free_port(), &["--checkpoint-every", every])
}

fn checkpoints(data: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(data.join("checkpoints"))
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    found.retain(|p| p.extension().is_some_and(|x| x == "ckpt"));
    found.sort();
    found
}

/// The checkpoints the journal binds: the entry each follows.
fn bound(data: &Path) -> Vec<u64> {
    let journal = rusqlite::Connection::open(data.join(croupier_ledger::storage::DATABASE_FILE)).expect("the journal");
    let mut stmt = journal
        .prepare("SELECT record FROM journal WHERE record LIKE '%checkpoint_taken%' ORDER BY seq")
        .expect("query");
    let records: Vec<String> = stmt
        .query_map([], |r| r.get(0))
        .expect("rows")
        .map(|r| r.expect("row"))
        .collect();
    records
        .iter()
        .filter_map(|text| {
            let at = text.find(r#""through":"#)? + r#""through":"#.len();
            text[at..].split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
        })
        .collect()
}

/// The staff and players, t1 inspected and opened, p1 and p2 seated at it
/// with 1,000.00 of cash bought in for 500.00 of chips.
fn seated(server: &Server) -> [String; 6] {
    let [admin, cashier, dealer, pit, p1, p2] = server.staff_and_players();
    server.inspect_and_open(&pit, &dealer, "t1");
    server.seat(&cashier, ("p1", &p1), "t1", 100_000, 50_000);
    server.seat(&cashier, ("p2", &p2), "t1", 100_000, 50_000);
    [admin, cashier, dealer, pit, p1, p2]
}

/// `rounds` RNG rounds at t1, p1 betting red and p2 on 17; what each holds after.
fn play(server: &Server, [dealer, p1, p2]: [&str; 3], rounds: usize, tag: &str) {
    for round in 0..rounds {
        server.ask(dealer, json!({"op": "open_betting", "table": "t1"}));
        server.ask(
            p1,
            json!({"op": "place_bet", "table": "t1", "bet_id": format!("{tag}{round}a"), "spot": "red", "stake": 1_000}),
        );
        server.ask(
            p2,
            json!({"op": "place_bet", "table": "t1", "bet_id": format!("{tag}{round}b"), "spot": "17", "stake": 100}),
        );
        server.ask(dealer, json!({"op": "no_more_bets", "table": "t1"}));
        let (status, body) = server.http("POST", "/api/tables/t1/draw", Some(dealer), None);
        assert_eq!(status, 200, "{body}");
    }
}

fn holdings(server: &Server, tokens: [&str; 2]) -> Vec<Value> {
    tokens
        .iter()
        .map(|t| {
            let (status, me) = server.http("GET", "/api/me", Some(t), None);
            assert_eq!(status, 200, "{me}");
            me["accounts"].clone()
        })
        .collect()
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let began = Instant::now();
    while !done() {
        assert!(began.elapsed() < Duration::from_secs(30), "waited 30 s for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_restart_opens_from_the_newest_checkpoint_and_passes_over_a_damaged_one() {
    let dir = data_dir();
    let data = dir.path();
    let mut server = start(data, "25");
    server.wait_line("croupier: opened by replaying the journal from its first entry");
    let [_, _, dealer, _, p1, p2] = seated(&server);
    // Written and bound by the server as the journal grows, the oldest removed.
    for (n, tag) in ["q", "r", "s"].iter().enumerate() {
        play(&server, [&dealer, &p1, &p2], 6, tag);
        wait_until("a checkpoint bound", || bound(data).len() > n);
    }
    // A file is written, then bound, then the oldest pruned: two once the writer is idle.
    wait_until("the two newest kept", || checkpoints(data).len() == 2);
    let before = holdings(&server, [&p1, &p2]);
    // A power cut: the newest checkpoint is used, and only what follows it replayed.
    server.kill();
    let newest = *bound(data).last().expect("a checkpoint bound");
    let server = start(data, "25");
    let line = server.wait_line("croupier: opened");
    let used: u64 = line
        .rsplit(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(used >= newest, "{line}: the newest bound is after entry {newest}");
    let (p1, p2) = (server.login("p1", "p1-password-1"), server.login("p2", "p2-password-1"));
    let dealer = server.login("dealer", "dealer-password-1");
    assert_eq!(
        holdings(&server, [&p1, &p2]),
        before,
        "a start from the checkpoint holds every cent"
    );
    play(&server, [&dealer, &p1, &p2], 3, "t");
    let after = holdings(&server, [&p1, &p2]);
    drop(server);
    // A damaged checkpoint is passed over for an older one, or for the whole journal.
    let damaged: Vec<(PathBuf, Vec<u8>)> = checkpoints(data)
        .into_iter()
        .map(|path| (damage(&path), path))
        .map(|(b, p)| (p, b))
        .collect();
    let server = start(data, "25");
    server.wait_line("croupier: opened by replaying the journal from its first entry");
    let (p1, p2) = (server.login("p1", "p1-password-1"), server.login("p2", "p2-password-1"));
    assert_eq!(
        holdings(&server, [&p1, &p2]),
        after,
        "the whole journal gives the same state"
    );
    // Replayed whole, the start writes a checkpoint at each interval it passes: the damaged
    // files go, overwritten or pruned, and the two kept are new and bound.
    wait_until("two new checkpoints after the damaged ones, both bound", || {
        let (kept, bound) = (checkpoints(data), bound(data));
        kept.len() == 2
            && kept.iter().all(|path| {
                let through = path.file_stem().and_then(|s| s.to_str()?.parse::<u64>().ok());
                let unchanged = damaged
                    .iter()
                    .any(|(was, bytes)| was == path && std::fs::read(path).ok().as_ref() == Some(bytes));
                through.is_some_and(|t| bound.contains(&t)) && !unchanged
            })
    });
    drop(server);
    // The audit replays every entry and finds each kept checkpoint's binding the state it
    // reaches, the damaged file's too, and names the file (the file is what is wrong).
    damage(&checkpoints(data)[0]);
    let mut distinct = bound(data);
    distinct.sort_unstable();
    distinct.dedup();
    let (passed, report) = croupier_testkit::verify(BINARY, data, &[]);
    assert!(passed, "{report}");
    let c = &report["checkpoints"];
    assert_eq!(
        (c["bound"].as_u64(), c["matching"].as_u64()),
        (Some(distinct.len() as u64), Some(2)),
        "each entry bound once or more; both kept files' bindings are the state replayed, the damaged one's too: {report}"
    );
    assert_eq!(
        c["unusable"].as_array().map(Vec::len),
        Some(1),
        "the damaged one: {report}"
    );
    // Incrementally, from the newest: its hash as bound, then the chain and the replay after it.
    let (passed, report) = croupier_testkit::verify(BINARY, data, &["--from-checkpoint"]);
    assert!(passed, "{report}");
    let newest = *bound(data).last().expect("bound");
    assert_eq!(report["checkpoints"]["from"].as_u64(), Some(newest), "{report}");
    assert_eq!(
        report["balances"],
        full_balances(data),
        "the same balances, every account"
    );
    // With no checkpoint to begin from, it says so.
    for path in checkpoints(data) {
        std::fs::remove_file(path).expect("removed");
    }
    let out = std::process::Command::new(BINARY)
        .args(["verify", "--from-checkpoint", "--data"])
        .arg(data)
        .output()
        .expect("verify runs");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(said.contains("no checkpoint can be begun from"), "{said}");
}

/// A writer far behind the journal (a whole interval unread: 40 entries
/// here) hands its replay to a thread of ordinary priority, which hands it
/// back once a read finds it caught up: under a load that leaves no core
/// idle, the low thread alone fell behind for good. The checkpoints written
/// on either thread are bound, and a start from the newest holds every cent.
#[test]
fn a_writer_far_behind_goes_on_at_ordinary_priority_and_hands_back_once_caught_up() {
    let dir = data_dir();
    let data = dir.path();
    let logs = data_dir();
    let log = logs.path().join("serve.log");
    let logged = |what: &str| std::fs::read_to_string(&log).unwrap_or_default().matches(what).count();
    let server = Server::start_with_log(BINARY, data, free_port(), &["--checkpoint-every", "40"], &log);
    let [_, _, dealer, _, p1, p2] = seated(&server);
    // Rounds come faster than the writer's poll: it wakes more than 40 entries behind.
    let began = Instant::now();
    let mut rounds = 0;
    while logged("entries without catching up with the journal") == 0 {
        assert!(
            began.elapsed() < Duration::from_secs(60),
            "never far behind: {rounds} rounds"
        );
        play(&server, [&dealer, &p1, &p2], 4, &format!("f{rounds}-"));
        rounds += 4;
    }
    wait_until("the replay handed back", || {
        logged("checkpoints: caught up with the journal at entry") >= logged("without catching up with the journal")
    });
    let played_to = *bound(data).last().expect("checkpoints bound");
    play(&server, [&dealer, &p1, &p2], 8, "g");
    wait_until("a checkpoint after the hand back", || {
        bound(data).last().is_some_and(|&newest| newest > played_to)
    });
    let said = std::fs::read_to_string(&log).expect("the log");
    assert!(!said.contains("no longer written"), "{said}");
    let before = holdings(&server, [&p1, &p2]);
    drop(server);
    let server = start(data, "40");
    let line = server.wait_line("croupier: opened");
    assert!(!line.contains("first entry"), "{line}: opened from a checkpoint");
    let (p1, p2) = (server.login("p1", "p1-password-1"), server.login("p2", "p2-password-1"));
    assert_eq!(
        holdings(&server, [&p1, &p2]),
        before,
        "every cent, from the newest checkpoint"
    );
    drop(server);
    let (passed, report) = croupier_testkit::verify(BINARY, data, &[]);
    assert!(passed, "{report}");
    assert_eq!(
        report["checkpoints"]["matching"].as_u64(),
        Some(checkpoints(data).len() as u64),
        "each kept checkpoint is the state the audit reaches at its entry: {report}"
    );
}

/// A start names the checkpoints it passes over, and why: a file the journal
/// never bound (what a stop between writing and binding leaves) is told
/// plainly, a bound file changed since is warned of.
#[test]
fn a_start_tells_a_checkpoint_never_bound_from_one_changed_since() {
    let dir = data_dir();
    let data = dir.path();
    let server = start(data, "25");
    let [_, _, dealer, _, p1, p2] = seated(&server);
    play(&server, [&dealer, &p1, &p2], 8, "n");
    wait_until("two checkpoints bound", || {
        let (kept, bound) = (checkpoints(data), bound(data));
        kept.len() == 2 && bound.len() >= 2
    });
    drop(server);
    let kept = checkpoints(data);
    let through = |path: &Path| -> u64 {
        path.file_stem()
            .and_then(|s| s.to_str()?.parse().ok())
            .expect("a checkpoint's name")
    };
    let (older, newest) = (through(&kept[0]), through(&kept[1]));
    // The newest's bytes under the next entry's name: an entry the journal reached, never bound.
    let never = newest + 1;
    std::fs::copy(&kept[1], kept[1].with_file_name(format!("{never:020}.ckpt"))).expect("copied");
    let mut bytes = std::fs::read(&kept[0]).expect("the older");
    bytes.push(b' ');
    std::fs::write(&kept[0], bytes).expect("changed");
    let logs = data_dir();
    let log = logs.path().join("serve.log");
    let server = Server::start_with_log(BINARY, data, free_port(), &["--checkpoint-every", "25"], &log);
    let opened = server.wait_line("croupier: opened");
    assert!(opened.ends_with(&format!(" {newest}")), "{opened}");
    drop(server);
    let said = std::fs::read_to_string(&log).expect("the log");
    assert!(
        said.contains(&format!(
            "INFO croupier_server::runtime::checkpoints::store: checkpoints in {}",
            data.join("checkpoints").display()
        )) && said.contains(&format!("the journal never bound (the server stopped between writing and binding them) are passed over: after entries {never}")),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            "that are not the files the journal bound (changed since) are passed over: after entries {older}"
        )),
        "{said}"
    );
}

/// Flips a byte in the middle of a checkpoint's file; its bytes after.
fn damage(path: &Path) -> Vec<u8> {
    let mut bytes = std::fs::read(path).expect("a checkpoint");
    let at = bytes.len() / 2;
    bytes[at] ^= 0x55;
    std::fs::write(path, &bytes).expect("damaged");
    bytes
}

fn full_balances(data: &Path) -> Value {
    croupier_testkit::verify(BINARY, data, &[]).1["balances"].clone()
}

/// What someone with the data directory (not the keys) can do to the
/// checkpoints: a link left as a write's file is removed, never written
/// through; files named after entries the journal has not reached are
/// removed, not kept over the real ones; and an entry changed before the
/// checkpoint a start opened from is found in the background and told on
/// `/healthz`.
#[test]
fn an_insider_with_the_data_directory_cannot_redirect_crowd_out_or_hide_behind_checkpoints() {
    let dir = data_dir();
    let data = dir.path();
    let server = start(data, "25");
    let [admin, cashier, dealer, pit, p1, p2] = server.staff_and_players();
    // No client binds a checkpoint: no such request for anyone, and none without signing in.
    let bind = json!({"op": "checkpoint", "through": 3, "digest": "0".repeat(64), "bytes": 1});
    for token in [Some(admin.as_str()), Some(cashier.as_str()), Some(p1.as_str()), None] {
        let (status, body) = server.http("POST", "/api/requests", token, Some(&bind));
        let expected = if token.is_some() { 400 } else { 401 };
        assert_eq!(status, expected, "{body}");
    }
    assert!(bound(data).is_empty(), "a client's binding was written");
    server.inspect_and_open(&pit, &dealer, "t1");
    server.seat(&cashier, ("p1", &p1), "t1", 100_000, 50_000);
    server.seat(&cashier, ("p2", &p2), "t1", 100_000, 50_000);
    play(&server, [&dealer, &p1, &p2], 6, "a");
    wait_until("a checkpoint bound", || !bound(data).is_empty());
    // A file outside the data directory, and links to it where the next writes go.
    let victim = dir.parent().join("victim.txt");
    std::fs::write(&victim, "keep me").expect("victim");
    let last = *bound(data).last().expect("bound");
    for n in last + 1..last + 200 {
        let link = data.join("checkpoints").join(format!("{n:020}.partial"));
        std::os::unix::fs::symlink(&victim, link).expect("a link");
    }
    for junk in [u64::MAX - 1, u64::MAX] {
        std::fs::write(data.join("checkpoints").join(format!("{junk:020}.ckpt")), "junk").expect("junk");
    }
    play(&server, [&dealer, &p1, &p2], 6, "b");
    // Bound, then the folder pruned: the writer removes the junk right after the binding.
    wait_until("a checkpoint after the links, and the junk removed", || {
        bound(data).len() >= 2
            && checkpoints(data)
                .iter()
                .all(|p| !p.to_string_lossy().contains("1844674407370955161"))
    });
    drop(server);
    assert_eq!(
        std::fs::read_to_string(&victim).expect("victim"),
        "keep me",
        "written through a link"
    );
    let kept = checkpoints(data);
    let newest = *bound(data).last().expect("bound");
    assert!(
        kept.iter().any(|p| p.ends_with(format!("{newest:020}.ckpt"))),
        "the newest bound checkpoint was removed for junk: {kept:?}"
    );
    assert!(
        kept.iter()
            .all(|p| !p.to_string_lossy().contains("1844674407370955161")),
        "{kept:?}"
    );
    // A file of zeros a terabyte long (sparse), and names this store never gives.
    let sparse = data.join("checkpoints").join(format!("{:020}.ckpt", newest + 5_000));
    std::fs::File::create(&sparse)
        .and_then(|f| f.set_len(1 << 40))
        .expect("a sparse file");
    for junk in ["0999.ckpt", "+99999999.ckpt"] {
        std::fs::write(data.join("checkpoints").join(junk), "junk").expect("junk");
    }
    // Files that begin as a checkpoint does, none bound by the journal (they would
    // take the start's three tries, or its memory): named after entries it has not
    // reached; named after entries between the newest checkpoint and its end; the
    // newest checkpoint copied under a newer name; and 3 GiB of holes.
    let ckpt = |n: u64| data.join("checkpoints").join(format!("{n:020}.ckpt"));
    for past in 1..=3u64 {
        std::fs::write(ckpt(newest + 1_000_000 + past), [0xa0u8]).expect("a file past the end");
    }
    for (n, junk) in [(newest + 2, vec![0xa0u8]), (newest + 3, vec![0xa0u8; 100])] {
        std::fs::write(ckpt(n), junk).expect("a file in range");
    }
    std::fs::copy(ckpt(newest), ckpt(newest + 4)).expect("a copy");
    let holes = ckpt(newest + 1);
    std::fs::write(&holes, [0xa0u8])
        .and_then(|()| std::fs::OpenOptions::new().write(true).open(&holes))
        .and_then(|f| f.set_len(3 << 30))
        .expect("a file of holes");
    // An entry before the newest checkpoint changed (its hash left as it was).
    let journal = rusqlite::Connection::open(data.join(croupier_ledger::storage::DATABASE_FILE)).expect("the journal");
    let changed = journal
        .execute(
            "UPDATE journal SET record = replace(record, '\"amount\":100000', '\"amount\":900000') WHERE seq < ?1",
            [newest as i64],
        )
        .expect("changed");
    assert!(changed > 0, "no entry to change");
    drop(journal);
    let server = start(data, "25");
    let line = server.wait_line("croupier: opened");
    assert!(line.ends_with(&format!("after journal entry {newest}")), "{line}");
    wait_until("the change found", || {
        let (_, health) = server.http("GET", "/healthz", None, None);
        health["history"]["why"]
            .as_str()
            .is_some_and(|w| w.contains("history was changed"))
    });
    let (status, health) = server.http("GET", "/healthz", None, None);
    assert_eq!((status, health["status"].as_str()), (200, Some("degraded")), "{health}");
    drop(server);
    // An auditor's incremental check begins where the start did, reading no planted file
    // (the 3 GiB of holes is not read: it is not the length any binding gives).
    let (passed, report) = croupier_testkit::verify(BINARY, data, &["--from-checkpoint"]);
    assert!(passed, "{report}");
    let from = report["checkpoints"]["from"].as_u64().unwrap_or(0);
    assert!(
        from >= newest && bound(data).contains(&from),
        "began from {from}, not the newest bound ({newest} or after): {report}"
    );
    // An entry before the checkpoint taken out: history that cannot be read is told as changed history is.
    let journal = rusqlite::Connection::open(data.join(croupier_ledger::storage::DATABASE_FILE)).expect("the journal");
    journal
        .execute("DELETE FROM journal WHERE seq = 3", [])
        .expect("taken out");
    drop(journal);
    let server = start(data, "25");
    wait_until("the missing entry told", || {
        let (_, health) = server.http("GET", "/healthz", None, None);
        health["history"]["why"]
            .as_str()
            .is_some_and(|w| w.contains("entry 4 cannot be read") && w.contains("lacks"))
    });
}
