//! Sessions: bearer tokens and whom they belong to. They are kept in
//! `sessions.db` beside the journal, so terminals and consoles that were
//! signed in carry on after a restart, a `kill -9` included. A session is
//! found by its token's HMAC under a key from the server's secret, and each
//! row carries a MAC of what it says (whose it is, in which role, since
//! when): reading the file gives no one a session, and a row written or
//! changed by someone without the secret is not taken. A session ends when
//! its holder signs out, after an idle spell, after its lifetime however
//! busy, and when its user opens one too many (the oldest ends). Sessions
//! are not money and not history, so they live outside the journal.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use hmac::{Hmac, Mac};
use rusqlite::{params, Connection};
use sha2::Sha256;
use tokio::sync::watch;

use crate::api::{ApiError, ErrorCode};
use crate::casino::Actor;

/// The sessions file inside a data directory.
pub const SESSIONS_FILE: &str = "sessions.db";

/// How often a session's last use is written down: a restart may forget
/// up to this much of it, and no request waits on the disk more often.
pub const SEEN_WRITTEN_EVERY_MS: u64 = 60_000;

/// How a session is found: its token's HMAC under the sessions key. Whoever
/// holds a token for long (a table stream's socket) works this out once.
pub type SessionKey = [u8; 32];

/// How long sessions last, and how many a user holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionLimits {
    /// A session unused this long is over.
    pub idle_ms: u64,
    /// A session this old is over, however busy.
    pub lifetime_ms: u64,
    /// Sessions one user holds at once; signing in once more ends the oldest.
    pub per_user: usize,
}

impl Default for SessionLimits {
    fn default() -> SessionLimits {
        SessionLimits {
            idle_ms: 30 * 60 * 1_000,
            lifetime_ms: 12 * 60 * 60 * 1_000,
            per_user: 16,
        }
    }
}

/// A live session: who holds it, since when, its last use, and what tells
/// its sockets it is over.
struct Live {
    actor: Actor,
    started_ms: u64,
    seen_ms: u64,
    /// The last use written down.
    seen_written_ms: u64,
    /// Never sent on: dropped when the session ends, which every [`SessionEnd`] sees.
    over: watch::Sender<()>,
    /// Signed in with a password someone else chose: only changing it is taken.
    must_change: bool,
}

/// What a table stream's socket holds of its session: it says when the
/// session ends (signed out, locked, its password set, idle or too old), so
/// that the socket closes then rather than stream on.
pub struct SessionEnd(watch::Receiver<()>);

impl SessionEnd {
    /// Whether the session is over already.
    pub fn is_over(&self) -> bool {
        self.0.has_changed().is_err()
    }

    /// Waits until the session is over.
    pub async fn over(&mut self) {
        // Nothing is ever sent: `changed` returns only once the sender is gone.
        while self.0.changed().await.is_ok() {}
    }
}

impl Live {
    fn new(actor: Actor, started_ms: u64, seen_ms: u64) -> Live {
        Live {
            actor,
            started_ms,
            seen_ms,
            seen_written_ms: seen_ms,
            over: watch::Sender::new(()),
            must_change: false,
        }
    }

    fn over(&self, now_ms: u64, limits: &SessionLimits) -> bool {
        now_ms.saturating_sub(self.seen_ms) >= limits.idle_ms
            || now_ms.saturating_sub(self.started_ms) >= limits.lifetime_ms
    }
}

/// The live sessions, and where they are kept (nowhere for a server in memory).
pub struct Sessions {
    key: [u8; 32],
    limits: SessionLimits,
    live: Mutex<HashMap<SessionKey, Live>>,
    store: Option<Mutex<Connection>>,
    /// Sessions ended whose rows the store refused to delete (a full disk):
    /// over already, their rows are deleted at the next sweep that can.
    unforgotten: Mutex<Vec<SessionKey>>,
}

fn hmac(key: &[u8; 32]) -> Hmac<Sha256> {
    let Ok(mac) = Hmac::<Sha256>::new_from_slice(key) else {
        unreachable!("HMAC takes any key length");
    };
    mac
}

/// The MAC of a stored session: whose, in which role, since when.
fn row_mac(key: &[u8; 32], session: &SessionKey, actor: &str, started_ms: u64) -> Hmac<Sha256> {
    let mut mac = hmac(key);
    mac.update(b"croupier session\n");
    mac.update(session);
    mac.update(actor.as_bytes());
    mac.update(format!("\n{started_ms}").as_bytes());
    mac
}

impl Sessions {
    /// Sessions in memory only, under `key`.
    pub fn in_memory(key: [u8; 32], limits: SessionLimits) -> Sessions {
        Sessions {
            key,
            limits,
            live: Mutex::new(HashMap::new()),
            store: None,
            unforgotten: Mutex::new(Vec::new()),
        }
    }

    /// Opens the sessions kept in `dir` under `key`, creating the file on a
    /// first run. Sessions over by `now_ms`, and rows whose MAC is not the
    /// key's, are dropped. Sessions kept as a server before these keys kept
    /// them (by their token's SHA-256) are dropped: their holders sign in again.
    pub fn open(dir: &Path, key: [u8; 32], limits: SessionLimits, now_ms: u64) -> Result<Sessions, String> {
        let path = dir.join(SESSIONS_FILE);
        let failed = |e: rusqlite::Error| format!("cannot open {}: {e}", path.display());
        let conn = Connection::open(&path).map_err(failed)?;
        // A session lost to a power cut means signing in again, never lost money:
        // commits need not wait for the disk.
        conn.execute_batch(
            "PRAGMA journal_mode = WAL;
             PRAGMA synchronous = NORMAL;
             DROP TABLE IF EXISTS sessions;
             CREATE TABLE IF NOT EXISTS keyed_sessions (
                 session TEXT PRIMARY KEY,
                 actor TEXT NOT NULL,
                 started_ms BIGINT NOT NULL,
                 seen_ms BIGINT NOT NULL,
                 mac TEXT NOT NULL
             );",
        )
        .map_err(failed)?;
        let mut live = HashMap::new();
        let mut dropped = Vec::new();
        {
            let mut rows = conn
                .prepare("SELECT session, actor, started_ms, seen_ms, mac FROM keyed_sessions")
                .map_err(failed)?;
            let rows = rows
                .query_map([], |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, i64>(2)?,
                        row.get::<_, i64>(3)?,
                        row.get::<_, String>(4)?,
                    ))
                })
                .map_err(failed)?;
            for row in rows {
                let (session_hex, actor_text, started, seen, mac) = row.map_err(failed)?;
                let session: Option<SessionKey> = hex::decode(&session_hex).ok().and_then(|b| b.try_into().ok());
                let kept = session.filter(|s| {
                    hex::decode(&mac)
                        .is_ok_and(|m| row_mac(&key, s, &actor_text, started as u64).verify_slice(&m).is_ok())
                });
                let actor = serde_json::from_str::<Actor>(&actor_text).ok();
                let (Some(session), Some(actor)) = (kept, actor) else {
                    tracing::warn!("{}: a session not kept under the secret was dropped", path.display());
                    dropped.push(session_hex);
                    continue;
                };
                let held = Live::new(actor, started as u64, seen as u64);
                if held.over(now_ms, &limits) {
                    dropped.push(session_hex);
                } else {
                    live.insert(session, held);
                }
            }
        }
        for session in dropped {
            conn.execute("DELETE FROM keyed_sessions WHERE session = ?1", params![session])
                .map_err(failed)?;
        }
        Ok(Sessions {
            key,
            limits,
            live: Mutex::new(live),
            store: Some(Mutex::new(conn)),
            unforgotten: Mutex::new(Vec::new()),
        })
    }

    fn live(&self) -> std::sync::MutexGuard<'_, HashMap<SessionKey, Live>> {
        self.live.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn write(&self, sql: &str, params: impl rusqlite::Params) -> Result<(), ApiError> {
        let Some(store) = &self.store else { return Ok(()) };
        let conn = store.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        conn.execute(sql, params)
            .map(|_| ())
            .map_err(|e| ApiError::new(ErrorCode::Storage, format!("the session could not be kept: {e}")))
    }

    /// The key by which `token`'s session is found.
    pub fn key(&self, token: &str) -> SessionKey {
        let mut mac = hmac(&self.key);
        mac.update(b"croupier token\n");
        mac.update(token.as_bytes());
        mac.finalize().into_bytes().into()
    }

    /// How long sessions last.
    pub fn limits(&self) -> SessionLimits {
        self.limits
    }

    /// Starts a session for `actor` under `token`. If the user holds as many
    /// as they may already, their oldest ends.
    pub fn start(&self, token: &str, actor: Actor, now_ms: u64) -> Result<(), ApiError> {
        let key = self.key(token);
        let text = serde_json::to_string(&actor).map_err(ApiError::internal)?;
        let mac = row_mac(&self.key, &key, &text, now_ms).finalize().into_bytes();
        let oldest: Vec<SessionKey> = {
            let live = self.live();
            let mut theirs: Vec<(&SessionKey, &Live)> = live
                .iter()
                .filter(|(_, l)| l.actor.username == actor.username)
                .collect();
            theirs.sort_by_key(|(_, l)| l.started_ms);
            let over = (theirs.len() + 1).saturating_sub(self.limits.per_user);
            theirs.iter().take(over).map(|(k, _)| **k).collect()
        };
        for old in &oldest {
            self.forget(old)?;
        }
        self.write(
            "INSERT INTO keyed_sessions (session, actor, started_ms, seen_ms, mac) VALUES (?1, ?2, ?3, ?3, ?4)",
            params![hex::encode(key), text, now_ms as i64, hex::encode(mac)],
        )?;
        self.live().insert(key, Live::new(actor, now_ms, now_ms));
        // The store took a write: the rows it refused before go now.
        self.forget_pending();
        Ok(())
    }

    /// Who holds `token`, if its session is live at `now_ms`; the use keeps it alive.
    pub fn get(&self, token: &str, now_ms: u64) -> Option<Actor> {
        self.get_by_key(&self.key(token), now_ms)
    }

    /// Who holds the session of `key`, if it is live at `now_ms`; the use keeps it alive.
    pub fn get_by_key(&self, key: &SessionKey, now_ms: u64) -> Option<Actor> {
        self.use_session(key, now_ms, |live| live.actor.clone())
    }

    /// Who holds the session of `key`, if it is live at `now_ms`, and what
    /// says when it ends: taken together, so that a session that ends just
    /// after is seen ending.
    pub fn follow(&self, key: &SessionKey, now_ms: u64) -> Option<(Actor, SessionEnd)> {
        self.use_session(key, now_ms, |live| {
            (live.actor.clone(), SessionEnd(live.over.subscribe()))
        })
    }

    /// `take` of the session of `key`, if it is live at `now_ms`; the use keeps it alive.
    fn use_session<T>(&self, key: &SessionKey, now_ms: u64, take: impl FnOnce(&Live) -> T) -> Option<T> {
        let (taken, write_seen) = {
            let mut live = self.live();
            let held = live.get_mut(key)?;
            if held.over(now_ms, &self.limits) {
                drop(live);
                let _ = self.forget(key);
                return None;
            }
            held.seen_ms = held.seen_ms.max(now_ms);
            let write_seen = now_ms.saturating_sub(held.seen_written_ms) >= SEEN_WRITTEN_EVERY_MS;
            if write_seen {
                held.seen_written_ms = now_ms;
            }
            (take(held), write_seen)
        };
        if write_seen {
            // Losing this write only shortens the session after a restart.
            let _ = self.write(
                "UPDATE keyed_sessions SET seen_ms = ?1 WHERE session = ?2",
                params![now_ms as i64, hex::encode(key)],
            );
        }
        Some(taken)
    }

    /// Whether the session of `token` must change its password before anything else.
    pub fn must_change(&self, token: &str) -> bool {
        self.live().get(&self.key(token)).is_some_and(|l| l.must_change)
    }

    /// Marks the sessions whose holder `must` says signed in with a password
    /// someone else chose (a new session, or after a restart); returns how many.
    pub fn require_change(&self, must: impl Fn(&Actor) -> bool) -> usize {
        let mut live = self.live();
        let mut marked = 0;
        for held in live.values_mut().filter(|l| must(&l.actor)) {
            held.must_change = true;
            marked += 1;
        }
        marked
    }

    /// `username` chose their own password: their sessions are free of the demand.
    pub fn password_changed(&self, username: &str) {
        for held in self.live().values_mut().filter(|l| l.actor.username == username) {
            held.must_change = false;
        }
    }

    /// Ends the session of `token`.
    pub fn end(&self, token: &str) -> Result<(), ApiError> {
        self.forget(&self.key(token))
    }

    /// Ends a session at once, whatever the store says: dropping it tells
    /// every socket of the session that it is over. A row the store refuses
    /// to delete (a full disk) is deleted at the next write it takes (a
    /// sweep, a sign-in) or at the stop; a crash before then would leave it
    /// for the next start to find, live again until its idle or age limit.
    fn forget(&self, key: &SessionKey) -> Result<(), ApiError> {
        self.live().remove(key);
        let deleted = self.write(
            "DELETE FROM keyed_sessions WHERE session = ?1",
            params![hex::encode(key)],
        );
        if let Err(e) = deleted {
            tracing::warn!("{}; the session is over, and its row is deleted later", e.message);
            self.unforgotten.lock().unwrap_or_else(|p| p.into_inner()).push(*key);
        }
        Ok(())
    }

    /// Deletes the rows of ended sessions the store refused before: at every
    /// sweep, at a new session (the store took a write), and at the stop.
    pub fn forget_pending(&self) {
        let keys = std::mem::take(&mut *self.unforgotten.lock().unwrap_or_else(|p| p.into_inner()));
        for key in keys {
            if !self.live().contains_key(&key) {
                let _ = self.forget(&key);
            }
        }
    }

    /// Ends every session of `username`, but the one of `keep` (a token) if given.
    pub fn end_all_of(&self, username: &str, keep: Option<&str>) -> Result<usize, ApiError> {
        let kept = keep.map(|t| self.key(t));
        self.end_where(|key, live| live.actor.username == username && Some(*key) != kept)
    }

    /// Ends every session whose holder `still_valid` no longer accepts (an
    /// account locked, or one the journal does not know); returns how many.
    pub fn retain(&self, still_valid: impl Fn(&Actor) -> bool) -> Result<usize, ApiError> {
        self.end_where(|_, live| !still_valid(&live.actor))
    }

    /// Ends every session over at `now_ms` (idle too long, or too old); returns how many.
    pub fn sweep(&self, now_ms: u64) -> Result<usize, ApiError> {
        self.forget_pending();
        let limits = self.limits;
        self.end_where(|_, live| live.over(now_ms, &limits))
    }

    fn end_where(&self, ends: impl Fn(&SessionKey, &Live) -> bool) -> Result<usize, ApiError> {
        let ended: Vec<SessionKey> = self
            .live()
            .iter()
            .filter(|(key, live)| ends(key, live))
            .map(|(key, _)| *key)
            .collect();
        for key in &ended {
            self.forget(key)?;
        }
        Ok(ended.len())
    }
}

#[cfg(test)]
mod tests;
