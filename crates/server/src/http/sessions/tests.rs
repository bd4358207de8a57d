//! Sessions kept and ended: the file, a full disk, rows changed.

use super::*;
use crate::api::Role;

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

#[test]
fn signing_out_on_a_full_disk_ends_the_session_at_once_and_its_row_later() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let dir = tmp.path().to_path_buf();
    let limits = SessionLimits::default();
    let read_only = |sessions: &Sessions, on: bool| {
        let store = sessions.store.as_ref().expect("stored");
        let conn = store.lock().expect("store");
        conn.pragma_update(None, "query_only", on).expect("pragma");
    };
    {
        let sessions = Sessions::open(&dir, KEY, limits, 0).expect("open");
        sessions.start("token-a", who("alice", Role::Player), 1).expect("a");
        // The store refuses every write, as a full disk would.
        read_only(&sessions, true);
        sessions.end("token-a").expect("signed out all the same");
        assert_eq!(sessions.get("token-a", 2), None, "over at once");
        // Room again: the next sign-in deletes the row.
        read_only(&sessions, false);
        sessions.start("token-b", who("bob", Role::Player), 3).expect("b");
    }
    let reopened = Sessions::open(&dir, KEY, limits, 4).expect("reopen");
    assert_eq!(reopened.get("token-a", 5), None, "it does not live again");
}

#[test]
fn sessions_outlive_a_reopening_and_the_file_holds_no_token() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let dir = tmp.path().to_path_buf();
    let limits = SessionLimits::default();
    {
        let sessions = Sessions::open(&dir, KEY, limits, 0).expect("open");
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
    let reopened = Sessions::open(&dir, KEY, limits, 5).expect("reopen");
    assert_eq!(reopened.get("token-a", 6), Some(who("alice", Role::Player)));
    assert_eq!(reopened.get("token-b", 6), None, "an ended session stays ended");
    assert_eq!(reopened.retain(|a| a.username != "carol").expect("retain"), 1);
    assert_eq!(reopened.get("token-c", 6), None);
    drop(reopened);
    assert_eq!(
        Sessions::open(&dir, KEY, limits, 7).expect("again").get("token-c", 8),
        None
    );
    // Under another secret no session is taken.
    assert_eq!(
        Sessions::open(&dir, [4; 32], limits, 9)
            .expect("other")
            .get("token-a", 9),
        None
    );
}

// The brief: a row written into sessions.db is not a session, and one
// changed to another user or role is not taken either.
#[test]
fn a_row_written_or_changed_without_the_secret_is_no_session() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let dir = tmp.path().to_path_buf();
    let limits = SessionLimits::default();
    let sessions = Sessions::open(&dir, KEY, limits, 0).expect("open");
    sessions.start("mine", who("mallory", Role::Player), 1).expect("start");
    drop(sessions);
    let db = Connection::open(dir.join(SESSIONS_FILE)).expect("db");
    let admin = serde_json::to_string(&who("admin", Role::Admin)).expect("JSON");
    // The token's SHA-256, as sessions were once kept, and a row copied with another actor.
    let sha = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(b"forged"));
    db.execute(
        "INSERT INTO keyed_sessions (session, actor, started_ms, seen_ms, mac)
         SELECT ?1, actor, started_ms, seen_ms, mac FROM keyed_sessions",
        params![sha],
    )
    .expect("forged row");
    db.execute(
        "UPDATE keyed_sessions SET actor = ?1 WHERE session != ?2",
        params![admin, sha],
    )
    .expect("changed role");
    let sessions = Sessions::open(&dir, KEY, limits, 2).expect("reopen");
    assert_eq!(sessions.get("forged", 3), None);
    assert_eq!(sessions.get("mine", 3), None);
    let left: i64 = db
        .query_row("SELECT COUNT(*) FROM keyed_sessions", [], |r| r.get(0))
        .expect("count");
    assert_eq!(left, 0, "both rows dropped");
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
