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
//!
//! A row's MAC says a session was started; it cannot say the session has
//! not ended since. A copy of the file put back (with the server stopped,
//! or swapped in while it runs: the file is read only at a start) would
//! bring back sessions ended by a sign-out, a password changed, a lock or a
//! reset. So the file is bound to an epoch kept beside the secret, which
//! someone who can write the data directory cannot write, changed at every
//! start and whenever a session ends ([`store`]): a file sealed under
//! another epoch is a copy from before, and no session in it is taken.
//! Which of its sessions are still live the server cannot tell, so it
//! drops them all, says so in the log naming the file, and everyone signs
//! in again: a session ended never comes back, and the cost of a copy put
//! back is one sign-in each. A file deleted is the same, with nothing to
//! say. A start is a new epoch too: it ends the sessions over while the
//! server was stopped, and those of accounts locked meanwhile. The epoch
//! is random rather than a count, so an epoch file lost (a new one is made)
//! matches no copy of the file. Ends happen at the rate people sign out and
//! are swept (one epoch a sweep, however many it ends), so each may write
//! and flush a small file; a sign-in, which may be many, writes only the
//! sessions file. The set of rows is sealed, not a session's last use: a
//! copy taken since the last end holds no session ended, and is taken.

mod store;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use hmac::Mac;
use tokio::sync::watch;

use crate::api::{ApiError, ErrorCode};
use crate::casino::Actor;
use store::{hmac, Row, Store};

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
        over(self.started_ms, self.seen_ms, now_ms, limits)
    }
}

/// Whether a session started at `started_ms` and last used at `seen_ms` is over at `now_ms`.
fn over(started_ms: u64, seen_ms: u64, now_ms: u64, limits: &SessionLimits) -> bool {
    now_ms.saturating_sub(seen_ms) >= limits.idle_ms || now_ms.saturating_sub(started_ms) >= limits.lifetime_ms
}

/// The live sessions, and where they are kept (nowhere for a server in memory).
pub struct Sessions {
    key: [u8; 32],
    limits: SessionLimits,
    live: Mutex<HashMap<SessionKey, Live>>,
    store: Option<Mutex<Store>>,
}

impl Sessions {
    /// Sessions in memory only, under `key`.
    pub fn in_memory(key: [u8; 32], limits: SessionLimits) -> Sessions {
        Sessions {
            key,
            limits,
            live: Mutex::new(HashMap::new()),
            store: None,
        }
    }

    /// Opens the sessions kept in `dir` under `key`, creating the file on a
    /// first run, bound to the epoch in `epoch_file` (in the keys folder).
    /// Sessions over by `now_ms`, and rows whose MAC is not the key's, are
    /// dropped; so is every session of a file not sealed under the epoch
    /// (a copy put back), and of a file kept as a server before epochs kept
    /// them: their holders sign in again.
    pub fn open(
        dir: &Path,
        key: [u8; 32],
        epoch_file: &Path,
        limits: SessionLimits,
        now_ms: u64,
    ) -> Result<Sessions, String> {
        let (store, rows) = Store::open(dir, key, epoch_file, |started_ms, seen_ms| {
            over(started_ms, seen_ms, now_ms, &limits)
        })?;
        let live = rows
            .into_iter()
            .map(|row| (row.key, Live::new(row.actor, row.started_ms, row.seen_ms)))
            .collect();
        Ok(Sessions {
            key,
            limits,
            live: Mutex::new(live),
            store: Some(Mutex::new(store)),
        })
    }

    fn live(&self) -> std::sync::MutexGuard<'_, HashMap<SessionKey, Live>> {
        self.live.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn store(&self) -> Option<std::sync::MutexGuard<'_, Store>> {
        self.store
            .as_ref()
            .map(|store| store.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
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
        // The oldest end at once; their rows go in the transaction that keeps this one.
        let ended = self.drop_live(&oldest);
        if let Some(mut store) = self.store() {
            let row = Row {
                key,
                actor: actor.clone(),
                started_ms: now_ms,
                seen_ms: now_ms,
            };
            store
                .commit(&ended, Some(&row))
                .map_err(|e| ApiError::new(ErrorCode::Storage, format!("the session could not be kept: {e}")))?;
        }
        self.live().insert(key, Live::new(actor, now_ms, now_ms));
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
                self.end_keys(&[*key]);
                return None;
            }
            held.seen_ms = held.seen_ms.max(now_ms);
            let write_seen = now_ms.saturating_sub(held.seen_written_ms) >= SEEN_WRITTEN_EVERY_MS;
            if write_seen {
                held.seen_written_ms = now_ms;
            }
            (take(held), write_seen)
        };
        // The store is locked only to write: a request waits on no end's flush.
        if write_seen {
            if let Some(store) = self.store() {
                store.seen(key, now_ms);
            }
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
        self.end_keys(&[self.key(token)]);
        Ok(())
    }

    /// Drops the sessions of `keys` from the live ones, which tells every
    /// socket of theirs that they are over: those that were live.
    fn drop_live(&self, keys: &[SessionKey]) -> Vec<SessionKey> {
        let mut live = self.live();
        keys.iter().filter(|key| live.remove(*key).is_some()).copied().collect()
    }

    /// Ends sessions at once, whatever the store says. A file that refuses
    /// to delete their rows (a full disk) has them deleted at the next
    /// write it takes (a sign-in, a sweep) or at the stop; the new epoch,
    /// written first, makes the file refused whole at a start meanwhile.
    fn end_keys(&self, keys: &[SessionKey]) {
        let ended = self.drop_live(keys);
        if ended.is_empty() {
            return;
        }
        if let Some(mut store) = self.store() {
            if let Err(e) = store.commit(&ended, None) {
                tracing::warn!("{e}; the sessions are over, and their rows are deleted later");
            }
        }
    }

    /// Deletes the rows of ended sessions the store refused before, and
    /// writes the epoch the keys folder refused: at every sweep and at the stop.
    pub fn forget_pending(&self) {
        if let Some(mut store) = self.store().filter(|store| store.owes()) {
            if let Err(e) = store.commit(&[], None) {
                tracing::warn!("{e}; tried again at the next sweep");
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

    /// Ends every session `ends` says, all under one new epoch.
    fn end_where(&self, ends: impl Fn(&SessionKey, &Live) -> bool) -> Result<usize, ApiError> {
        let ended: Vec<SessionKey> = self
            .live()
            .iter()
            .filter(|(key, live)| ends(key, live))
            .map(|(key, _)| *key)
            .collect();
        self.end_keys(&ended);
        Ok(ended.len())
    }
}

#[cfg(test)]
mod tests;
