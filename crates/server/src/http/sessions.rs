//! Sessions: bearer tokens and whom they belong to. They are kept in
//! `sessions.db` beside the journal, so terminals and consoles that were signed
//! in carry on after a restart, a `kill -9` included. Only each token's SHA-256
//! is stored: reading the file gives no one a session. Sessions are not money
//! and not history, so they live outside the journal.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use rusqlite::{params, Connection};
use sha2::{Digest, Sha256};

use crate::api::{ApiError, ErrorCode};
use crate::casino::Actor;

/// The sessions file inside a data directory.
pub const SESSIONS_FILE: &str = "sessions.db";

type Digest32 = [u8; 32];

/// How a session is found: its token's SHA-256. Whoever holds a token for
/// long (a table stream's socket) works this out once.
pub type SessionKey = Digest32;

fn digest(token: &str) -> Digest32 {
    Sha256::digest(token.as_bytes()).into()
}

/// The live sessions, and where they are kept (nowhere for a server in memory).
#[derive(Default)]
pub struct Sessions {
    live: Mutex<HashMap<Digest32, Actor>>,
    store: Option<Mutex<Connection>>,
}

impl Sessions {
    /// Opens the sessions kept in `dir`, creating the file on a first run.
    pub fn open(dir: &Path) -> Result<Sessions, String> {
        let path = dir.join(SESSIONS_FILE);
        let failed = |e: rusqlite::Error| format!("cannot open {}: {e}", path.display());
        let conn = Connection::open(&path).map_err(failed)?;
        // A session lost to a power cut means signing in again, never lost money:
        // commits need not wait for the disk.
        conn.execute_batch(
            "PRAGMA journal_mode = WAL;
             PRAGMA synchronous = NORMAL;
             CREATE TABLE IF NOT EXISTS sessions (
                 token_sha256 TEXT PRIMARY KEY,
                 actor TEXT NOT NULL,
                 started_ms BIGINT NOT NULL
             );",
        )
        .map_err(failed)?;
        let mut live = HashMap::new();
        {
            let mut rows = conn
                .prepare("SELECT token_sha256, actor FROM sessions")
                .map_err(failed)?;
            let rows = rows
                .query_map([], |row| Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?)))
                .map_err(failed)?;
            for row in rows {
                let (key, actor) = row.map_err(failed)?;
                let unreadable = |why: String| format!("{}: a session is unreadable: {why}", path.display());
                let key: Digest32 = hex::decode(&key)
                    .map_err(|e| unreadable(e.to_string()))?
                    .try_into()
                    .map_err(|_| unreadable("its token digest is not 32 bytes".into()))?;
                let actor: Actor = serde_json::from_str(&actor).map_err(|e| unreadable(e.to_string()))?;
                live.insert(key, actor);
            }
        }
        Ok(Sessions {
            live: Mutex::new(live),
            store: Some(Mutex::new(conn)),
        })
    }

    fn live(&self) -> std::sync::MutexGuard<'_, HashMap<Digest32, Actor>> {
        self.live.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn write(&self, sql: &str, params: impl rusqlite::Params) -> Result<(), ApiError> {
        let Some(store) = &self.store else { return Ok(()) };
        let conn = store.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        conn.execute(sql, params)
            .map(|_| ())
            .map_err(|e| ApiError::new(ErrorCode::Storage, format!("the session could not be kept: {e}")))
    }

    /// Starts a session for `actor` under `token`.
    pub fn start(&self, token: &str, actor: Actor, now_ms: u64) -> Result<(), ApiError> {
        let key = digest(token);
        let text = serde_json::to_string(&actor).map_err(ApiError::internal)?;
        self.write(
            "INSERT INTO sessions (token_sha256, actor, started_ms) VALUES (?1, ?2, ?3)",
            params![hex::encode(key), text, now_ms as i64],
        )?;
        self.live().insert(key, actor);
        Ok(())
    }

    /// Who holds `token`, if its session is live.
    pub fn get(&self, token: &str) -> Option<Actor> {
        self.get_by_key(&Sessions::key(token))
    }

    /// The key by which `token`'s session is found.
    pub fn key(token: &str) -> SessionKey {
        digest(token)
    }

    /// Who holds the session of `key`, if it is live.
    pub fn get_by_key(&self, key: &SessionKey) -> Option<Actor> {
        self.live().get(key).cloned()
    }

    /// Ends the session of `token`.
    pub fn end(&self, token: &str) -> Result<(), ApiError> {
        self.forget(&digest(token))
    }

    fn forget(&self, key: &Digest32) -> Result<(), ApiError> {
        self.write(
            "DELETE FROM sessions WHERE token_sha256 = ?1",
            params![hex::encode(key)],
        )?;
        self.live().remove(key);
        Ok(())
    }

    /// Ends every session of `username`, but the one of `keep` (a token) if given.
    pub fn end_all_of(&self, username: &str, keep: Option<&str>) -> Result<usize, ApiError> {
        let kept = keep.map(digest);
        let ended: Vec<Digest32> = self
            .live()
            .iter()
            .filter(|(key, actor)| actor.username == username && Some(**key) != kept)
            .map(|(key, _)| *key)
            .collect();
        for key in &ended {
            self.forget(key)?;
        }
        Ok(ended.len())
    }

    /// Ends every session whose holder `still_valid` no longer accepts (an
    /// account locked, or one the journal does not know); returns how many.
    pub fn retain(&self, still_valid: impl Fn(&Actor) -> bool) -> Result<usize, ApiError> {
        let ended: Vec<Digest32> = self
            .live()
            .iter()
            .filter(|(_, actor)| !still_valid(actor))
            .map(|(key, _)| *key)
            .collect();
        for key in &ended {
            self.forget(key)?;
        }
        Ok(ended.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Role;

    fn who(name: &str, role: Role) -> Actor {
        Actor::new(name, role, "")
    }

    #[test]
    fn sessions_outlive_a_reopening_and_the_file_holds_no_token() {
        let tmp = tempfile::tempdir().expect("a temporary folder");
        let dir = tmp.path().to_path_buf();
        {
            let sessions = Sessions::open(&dir).expect("open");
            sessions.start("token-a", who("alice", Role::Player), 1).expect("a");
            sessions.start("token-b", who("bob", Role::Dealer), 2).expect("b");
            sessions.start("token-c", who("carol", Role::Player), 3).expect("c");
            sessions.end("token-b").expect("end");
            assert_eq!(sessions.get("token-b"), None);
        }
        let bytes = std::fs::read(dir.join(SESSIONS_FILE)).expect("file");
        let wal = std::fs::read(dir.join(format!("{SESSIONS_FILE}-wal"))).unwrap_or_default();
        for file in [&bytes, &wal] {
            assert!(!file.windows(7).any(|w| w == b"token-a"), "a token was stored");
        }
        let reopened = Sessions::open(&dir).expect("reopen");
        assert_eq!(reopened.get("token-a"), Some(who("alice", Role::Player)));
        assert_eq!(reopened.get("token-b"), None, "an ended session stays ended");
        assert_eq!(reopened.retain(|a| a.username != "carol").expect("retain"), 1);
        assert_eq!(reopened.get("token-c"), None);
        drop(reopened);
        assert_eq!(Sessions::open(&dir).expect("again").get("token-c"), None);
    }
}
