//! Sessions kept, ended and bound to their epoch: the file, a full disk,
//! a copy put back, rows changed.

use super::*;
use crate::api::Role;
use crate::runtime::keys::SESSIONS_EPOCH_FILE;
use rusqlite::params;

const KEY: [u8; 32] = [3; 32];
const MINUTE: u64 = 60_000;

fn who(name: &str, role: Role) -> Actor {
    Actor::new(name, role, "")
}

/// Every way a session ends tells the sockets that follow it, and only
/// theirs: signing out, an admin's lock or reset (`end_all_of`), a
/// password changed, which keeps the session it was changed from, and
/// the sweep of sessions over.
#[test]
fn a_session_that_ends_tells_the_sockets_that_follow_it() {
    let sessions = Sessions::in_memory(KEY, SessionLimits::default());
    for (token, name) in [
        ("a1", "alice"),
        ("a2", "alice"),
        ("a3", "alice"),
        ("b1", "bob"),
        ("c1", "cy"),
    ] {
        sessions.start(token, who(name, Role::Player), 1).expect("start");
    }
    let follow = |token: &str| sessions.follow(&sessions.key(token), 2).expect("live").1;
    let [a1, a2, a3, b1] = ["a1", "a2", "a3", "b1"].map(follow);
    assert!(sessions.follow(&sessions.key("nobody's"), 2).is_none());
    assert!(![&a1, &a2, &a3, &b1].iter().any(|s| s.is_over()));
    sessions.end("a1").expect("sign out");
    assert!(a1.is_over() && !a2.is_over() && !b1.is_over());
    assert_eq!(sessions.end_all_of("alice", Some("a2")).expect("end"), 1);
    assert!(
        a3.is_over() && !a2.is_over(),
        "the session that changed the password goes on"
    );
    assert_eq!(sessions.end_all_of("alice", None).expect("lock"), 1);
    assert!(a2.is_over() && !b1.is_over());
    sessions.retain(|a| a.username != "bob").expect("retain");
    assert!(b1.is_over());
    let c1 = follow("c1");
    sessions.sweep(SessionLimits::default().idle_ms + 2).expect("sweep");
    assert!(c1.is_over(), "idle too long");
}

/// A data directory and a keys folder apart, in a temporary folder.
struct Folders {
    _tmp: tempfile::TempDir,
    data: std::path::PathBuf,
    keys: std::path::PathBuf,
}

impl Folders {
    fn new() -> Folders {
        let tmp = tempfile::tempdir().expect("a temporary folder");
        let (data, keys) = (tmp.path().join("data"), tmp.path().join("keys"));
        std::fs::create_dir_all(&data).expect("data");
        std::fs::create_dir_all(&keys).expect("keys");
        Folders { _tmp: tmp, data, keys }
    }

    fn epoch(&self) -> std::path::PathBuf {
        self.keys.join(SESSIONS_EPOCH_FILE)
    }

    fn open_under(&self, key: [u8; 32], now_ms: u64) -> Sessions {
        Sessions::open(&self.data, key, &self.epoch(), SessionLimits::default(), now_ms).expect("open")
    }

    fn open(&self, now_ms: u64) -> Sessions {
        self.open_under(KEY, now_ms)
    }

    /// A copy of the sessions file, taken with no server on it.
    fn copy(&self) -> Vec<u8> {
        std::fs::read(self.data.join(SESSIONS_FILE)).expect("the file")
    }

    /// Puts `copy` back as the sessions file, with its log files gone.
    fn put_back(&self, copy: &[u8]) {
        for log in ["-wal", "-shm"] {
            let _ = std::fs::remove_file(self.data.join(format!("{SESSIONS_FILE}{log}")));
        }
        std::fs::write(self.data.join(SESSIONS_FILE), copy).expect("put back");
    }

    fn sql(&self) -> rusqlite::Connection {
        rusqlite::Connection::open(self.data.join(SESSIONS_FILE)).expect("db")
    }
}

fn refuse_writes(sessions: &Sessions, refuse: bool) {
    sessions.store().expect("stored").refuse_writes(refuse);
}

#[test]
fn signing_out_on_a_full_disk_ends_the_session_at_once_and_its_row_later() {
    let folders = Folders::new();
    {
        let sessions = folders.open(0);
        sessions.start("token-a", who("alice", Role::Player), 1).expect("a");
        // The store refuses every write, as a full disk would.
        refuse_writes(&sessions, true);
        sessions.end("token-a").expect("signed out all the same");
        assert_eq!(sessions.get("token-a", 2), None, "over at once");
        // Room again: the next sign-in deletes the row.
        refuse_writes(&sessions, false);
        sessions.start("token-b", who("bob", Role::Player), 3).expect("b");
    }
    let reopened = folders.open(4);
    assert_eq!(reopened.get("token-a", 5), None, "it does not live again");
    assert!(reopened.get("token-b", 5).is_some(), "the file is the server's own");
}

// The brief (issue 56, 9): the new epoch is written before the file; a
// stop between the two signs everyone out, and brings back no one.
#[test]
fn an_end_the_file_did_not_take_signs_everyone_out_at_the_next_start() {
    let folders = Folders::new();
    {
        let sessions = folders.open(0);
        sessions.start("token-a", who("alice", Role::Player), 1).expect("a");
        sessions.start("token-b", who("bob", Role::Player), 1).expect("b");
        refuse_writes(&sessions, true);
        sessions.end("token-a").expect("signed out");
        // Stopped here, as by a power cut: no write comes after.
    }
    let reopened = folders.open(2);
    assert_eq!(reopened.get("token-a", 3), None, "the ended session stays ended");
    assert_eq!(reopened.get("token-b", 3), None, "everyone signs in again");
}

/// Sessions of alice and bob, the file copied, a restart, alice signed
/// out, the file copied again: (folders, the copy before, the one after).
fn signed_out_between_two_copies() -> (Folders, Vec<u8>, Vec<u8>) {
    let folders = Folders::new();
    let sessions = folders.open(0);
    sessions.start("token-a", who("alice", Role::Player), 1).expect("a");
    sessions.start("token-b", who("bob", Role::Player), 1).expect("b");
    drop(sessions);
    let before = folders.copy();
    let sessions = folders.open(2);
    assert!(sessions.get("token-a", 3).is_some(), "a restart ends no session");
    sessions.end("token-a").expect("signed out");
    drop(sessions);
    let after = folders.copy();
    (folders, before, after)
}

// The brief (issue 56, 9): a copy of sessions.db put back brought back
// sessions ended since it was made.
#[test]
fn a_copy_of_the_file_put_back_brings_back_no_session() {
    let (folders, before, _) = signed_out_between_two_copies();
    folders.put_back(&before);
    let sessions = folders.open(4);
    assert_eq!(sessions.get("token-a", 5), None, "the session signed out came back");
    assert_eq!(sessions.get("token-b", 5), None, "every session of the copy is dropped");
    let left: i64 = folders
        .sql()
        .query_row("SELECT COUNT(*) FROM keyed_sessions", [], |r| r.get(0))
        .expect("count");
    assert_eq!(left, 0, "its rows are deleted");
    drop(sessions);

    // Deleted, the file holds no one; an epoch file lost or not the
    // secret's drops every session of the file too.
    std::fs::remove_file(folders.data.join(SESSIONS_FILE)).expect("deleted");
    let sessions = folders.open(8);
    sessions.start("token-c", who("cy", Role::Player), 8).expect("c");
    drop(sessions);
    std::fs::remove_file(folders.epoch()).expect("epoch lost");
    assert_eq!(folders.open(9).get("token-c", 9), None, "no epoch");
    let sessions = folders.open(10);
    sessions.start("token-d", who("dee", Role::Player), 10).expect("d");
    drop(sessions);
    std::fs::write(folders.epoch(), r#"{"epoch":"00","mac":"00"}"#).expect("spoiled");
    assert_eq!(folders.open(11).get("token-d", 11), None, "not an epoch");
}

// The rows of an old copy under the seal of the file as the server left
// it: the seal is of the epoch, but not of those rows.
#[test]
fn an_old_copys_rows_under_the_newest_seal_bring_back_no_session() {
    let (folders, before, after) = signed_out_between_two_copies();
    let newest = folders.data.join("newest.db");
    std::fs::write(&newest, &after).expect("the newest");
    folders.put_back(&before);
    let db = folders.sql();
    db.execute("ATTACH ?1 AS newest", params![newest.to_str().expect("path")])
        .expect("attach");
    db.execute_batch(
        "UPDATE sessions_seal SET (epoch, mac) = (SELECT epoch, mac FROM newest.sessions_seal); DETACH newest;",
    )
    .expect("spliced");
    drop(db);
    let sessions = folders.open(4);
    assert_eq!(sessions.get("token-a", 5), None, "spliced under the newest seal");
    assert_eq!(sessions.get("token-b", 5), None, "every session of the file is dropped");
}

#[test]
fn sessions_outlive_a_reopening_and_the_file_holds_no_token() {
    let folders = Folders::new();
    let dir = folders.data.clone();
    {
        let sessions = folders.open(0);
        sessions.start("token-a", who("alice", Role::Player), 1).expect("a");
        sessions.start("token-b", who("bob", Role::Dealer), 2).expect("b");
        sessions.start("token-c", who("carol", Role::Player), 3).expect("c");
        sessions.end("token-b").expect("end");
        assert_eq!(sessions.get("token-b", 4), None);
    }
    let bytes = std::fs::read(dir.join(SESSIONS_FILE)).expect("file");
    let wal = std::fs::read(dir.join(format!("{SESSIONS_FILE}-wal"))).unwrap_or_default();
    for file in [&bytes, &wal] {
        assert!(!file.windows(7).any(|w| w == b"token-a"), "a token was stored");
    }
    let reopened = folders.open(5);
    assert_eq!(reopened.get("token-a", 6), Some(who("alice", Role::Player)));
    assert_eq!(reopened.get("token-b", 6), None, "an ended session stays ended");
    assert_eq!(reopened.retain(|a| a.username != "carol").expect("retain"), 1);
    assert_eq!(reopened.get("token-c", 6), None);
    drop(reopened);
    assert_eq!(folders.open(7).get("token-c", 8), None);
    // Under another secret no session is taken.
    assert_eq!(folders.open_under([4; 32], 9).get("token-a", 9), None);
}

// The brief: a row written into sessions.db is not a session, and one
// changed to another user or role is not taken either.
#[test]
fn a_row_written_or_changed_without_the_secret_is_no_session() {
    let folders = Folders::new();
    let sessions = folders.open(0);
    sessions.start("mine", who("mallory", Role::Player), 1).expect("start");
    sessions.start("theirs", who("trent", Role::Player), 1).expect("start");
    drop(sessions);
    let db = folders.sql();
    let count = || -> i64 {
        db.query_row("SELECT COUNT(*) FROM keyed_sessions", [], |r| r.get(0))
            .expect("count")
    };
    let admin = serde_json::to_string(&who("admin", Role::Admin)).expect("JSON");
    // A row changed to another actor: the file's set of rows is as it
    // was, and that row alone is dropped by its MAC.
    db.execute(
        "UPDATE keyed_sessions SET actor = ?1 WHERE session = ?2",
        params![
            admin,
            hex::encode(Sessions::in_memory(KEY, SessionLimits::default()).key("mine"))
        ],
    )
    .expect("changed role");
    let sessions = folders.open(2);
    assert_eq!(sessions.get("mine", 3), None);
    assert!(sessions.get("theirs", 3).is_some(), "the other row is the server's own");
    drop(sessions);
    assert_eq!(count(), 1, "the changed row dropped");
    // The token's SHA-256, as sessions were once kept, a row copied with
    // another actor: no session, and the file is no longer the server's.
    let sha = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(b"forged"));
    db.execute(
        "INSERT INTO keyed_sessions (session, actor, started_ms, seen_ms, mac)
         SELECT ?1, ?2, started_ms, seen_ms, mac FROM keyed_sessions",
        params![sha, admin],
    )
    .expect("forged row");
    let sessions = folders.open(4);
    assert_eq!(sessions.get("forged", 5), None);
    assert_eq!(sessions.get("theirs", 5), None);
    assert_eq!(count(), 0, "every row dropped");
}

#[test]
fn a_session_ends_when_idle_when_old_and_when_its_user_holds_too_many() {
    let limits = SessionLimits {
        idle_ms: 30 * MINUTE,
        lifetime_ms: 12 * 60 * MINUTE,
        per_user: 3,
    };
    let sessions = Sessions::in_memory(KEY, limits);
    sessions.start("t", who("ann", Role::Player), 0).expect("start");
    // Used every 29 minutes it lives on, until its lifetime is up.
    let mut now = 0;
    while now + 29 * MINUTE < limits.lifetime_ms {
        now += 29 * MINUTE;
        assert!(sessions.get("t", now).is_some(), "alive at {now}");
    }
    assert_eq!(sessions.get("t", limits.lifetime_ms), None, "over at its lifetime");
    // Unused for 30 minutes, it is over; the sweep finds those no one asks about.
    sessions.start("u", who("ann", Role::Player), 0).expect("start");
    sessions.start("v", who("bob", Role::Player), 0).expect("start");
    assert_eq!(sessions.get("u", 30 * MINUTE), None);
    assert_eq!(sessions.sweep(30 * MINUTE).expect("sweep"), 1);
    assert_eq!(sessions.get("v", 30 * MINUTE + 1), None);
    // A fourth sign-in of one user ends their oldest session, nobody else's.
    for (i, token) in ["a", "b", "c", "d"].iter().enumerate() {
        sessions.start(token, who("cy", Role::Player), i as u64).expect("start");
    }
    sessions.start("e", who("dee", Role::Player), 9).expect("start");
    assert_eq!(sessions.get("a", 10), None, "the oldest ended");
    for token in ["b", "c", "d", "e"] {
        assert!(sessions.get(token, 10).is_some(), "{token}");
    }
}

// A session's last use moved forward in the file by someone without the
// secret once let an idle session outlive its limit across a restart: a
// last use the secret did not seal counts from the session's start.
#[test]
fn a_last_use_moved_forward_without_the_secret_keeps_no_idle_session_alive() {
    let folders = Folders::new();
    let sessions = folders.open(0);
    sessions.start("token-a", who("ann", Role::Player), 0).expect("a");
    sessions.start("token-b", who("bob", Role::Player), 0).expect("b");
    // bob uses his after 20 minutes: that last use is written under the secret.
    assert!(sessions.get("token-b", 20 * MINUTE).is_some());
    drop(sessions);
    folders
        .sql()
        .execute(
            "UPDATE keyed_sessions SET seen_ms = ?1 WHERE session != (SELECT session FROM keyed_sessions \
             WHERE seen_ms = ?2 LIMIT 1)",
            params![(44 * MINUTE) as i64, (20 * MINUTE) as i64],
        )
        .expect("moved forward");
    let sessions = folders.open(45 * MINUTE);
    assert_eq!(sessions.get("token-a", 45 * MINUTE), None, "idle since its start");
    assert!(
        sessions.get("token-b", 45 * MINUTE).is_some(),
        "its sealed last use stands"
    );
}

// A keys folder that takes no new epoch (mounted read-only, full) once let a
// copy of the file made this epoch bring back a session signed out since:
// no session is kept through such a start.
#[test]
fn a_keys_folder_that_takes_no_new_epoch_keeps_no_session_through_a_start() {
    let folders = Folders::new();
    let sessions = folders.open(0);
    sessions.start("token-a", who("ann", Role::Player), 0).expect("a");
    drop(sessions);
    std::fs::create_dir(folders.epoch().with_extension("json.new")).expect("the epoch's way blocked");
    let sessions = folders.open(MINUTE);
    assert_eq!(sessions.get("token-a", MINUTE), None, "no session kept");
}
