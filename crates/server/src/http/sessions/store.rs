//! The sessions file and what binds it. `sessions.db` (in the data
//! directory) holds a row per session and a seal: a MAC over the epoch and
//! the set of rows in the file. The epoch is 16 random bytes the server keeps
//! in the keys folder (`sessions-epoch.json`,
//! [`crate::runtime::keys::SESSIONS_EPOCH_FILE`]), new at every start and every
//! time a session ends. A file is taken only if its seal is of the epoch in
//! the keys folder and of exactly the rows in it; otherwise none of its rows is.
//!
//! The set is the XOR of an HMAC of each row's session under the sessions
//! key, so a sign-in or an end changes it without reading the other rows.
//! It never leaves the process (only the MAC over it is written): rows
//! copied in from another copy of the file change it unpredictably.
//!
//! A session ends in this order: the new epoch is written and flushed to
//! the keys folder first, then one transaction deletes the row (with any
//! an earlier write failed to delete) and seals the rest under the new
//! epoch. Stopped between the two, the file still holds the old epoch's
//! seal, and the next start drops every session in it: the failure is
//! "signed out", never "signed in again". A sign-in writes nothing beside
//! the secret: it is sealed under the epoch already there.

use std::path::{Path, PathBuf};

use hmac::{Hmac, Mac};
use rusqlite::{params, Connection, OptionalExtension};
use sha2::Sha256;

use super::{SessionKey, SESSIONS_FILE};
use crate::casino::Actor;

/// What the epoch's file holds: changed at every start and every end.
type Epoch = [u8; 16];

pub(super) fn hmac(key: &[u8; 32]) -> Hmac<Sha256> {
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

/// The MAC of a session's last use: without it, someone with the data
/// directory moved `seen_ms` forward and an idle session outlived its limit.
fn seen_mac(key: &[u8; 32], session: &SessionKey, seen_ms: u64) -> String {
    let mut mac = hmac(key);
    mac.update(b"croupier session last used\n");
    mac.update(session);
    mac.update(format!("\n{seen_ms}").as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// What a row adds to (and its deletion takes from) the set, by XOR.
fn element(key: &[u8; 32], session: &SessionKey) -> [u8; 32] {
    let mut mac = hmac(key);
    mac.update(b"croupier session in the file\n");
    mac.update(session);
    mac.finalize().into_bytes().into()
}

fn xor(set: &mut [u8; 32], element: &[u8; 32]) {
    for (s, e) in set.iter_mut().zip(element) {
        *s ^= e;
    }
}

/// The seal of a file: its rows' set under the epoch.
fn seal_mac(key: &[u8; 32], epoch: &Epoch, set: &[u8; 32]) -> Hmac<Sha256> {
    let mut mac = hmac(key);
    mac.update(b"croupier sessions' seal\n");
    mac.update(epoch);
    mac.update(set);
    mac
}

fn epoch_mac(key: &[u8; 32], epoch: &Epoch) -> Hmac<Sha256> {
    let mut mac = hmac(key);
    mac.update(b"croupier sessions' epoch\n");
    mac.update(epoch);
    mac
}

#[derive(serde::Serialize, serde::Deserialize)]
struct EpochFile {
    epoch: String,
    mac: String,
}

/// The epoch in `path`, if there is one. A file unreadable or not written
/// under `key` is an error: the caller drops every session, which is safe.
fn read_epoch(path: &Path, key: &[u8; 32]) -> Result<Option<Epoch>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let file: EpochFile =
        serde_json::from_str(&text).map_err(|e| format!("{} is not an epoch: {e}", path.display()))?;
    let epoch: Epoch = hex::decode(&file.epoch)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| format!("{} is not an epoch", path.display()))?;
    hex::decode(&file.mac)
        .ok()
        .filter(|m| epoch_mac(key, &epoch).verify_slice(m).is_ok())
        .ok_or_else(|| format!("{} was not written under this secret", path.display()))?;
    Ok(Some(epoch))
}

/// Writes `epoch` to `path` whole and flushed to the disk, the folder's
/// entry too: a power cut after this returns never finds the epoch before.
fn write_epoch(path: &Path, key: &[u8; 32], epoch: &Epoch) -> Result<(), String> {
    use std::io::Write;
    let failed = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    let file = EpochFile {
        epoch: hex::encode(epoch),
        mac: hex::encode(epoch_mac(key, epoch).finalize().into_bytes()),
    };
    let text = serde_json::to_string(&file).map_err(|e| e.to_string())?;
    let fresh = path.with_extension("json.new");
    let mut out = std::fs::File::create(&fresh).map_err(failed)?;
    out.write_all(text.as_bytes()).map_err(failed)?;
    out.sync_all().map_err(failed)?;
    std::fs::rename(&fresh, path).map_err(failed)?;
    #[cfg(unix)]
    if let Some(folder) = path.parent() {
        std::fs::File::open(folder).and_then(|f| f.sync_all()).map_err(failed)?;
    }
    Ok(())
}

fn new_epoch() -> Result<Epoch, String> {
    let mut epoch = [0u8; 16];
    croupier_rng::CasinoRng::from_os()
        .and_then(|mut r| r.fill(&mut epoch))
        .map_err(|e| format!("cannot make the sessions' epoch: {e}"))?;
    Ok(epoch)
}

/// A session as the file keeps it.
pub(super) struct Row {
    pub key: SessionKey,
    pub actor: Actor,
    pub started_ms: u64,
    pub seen_ms: u64,
}

/// `sessions.db`, and the epoch its seal is under.
pub(super) struct Store {
    conn: Connection,
    path: PathBuf,
    epoch_file: PathBuf,
    key: [u8; 32],
    epoch: Epoch,
    /// The XOR of the elements of the rows in the file, as last committed.
    set: [u8; 32],
    /// Sessions ended whose rows a write failed to delete (a full disk):
    /// over already, their rows go in the next write that commits.
    unforgotten: Vec<SessionKey>,
    /// A session ended while the keys folder refused the new epoch: a new
    /// one is written at the next write, until then the file's copies from
    /// this epoch hold the ended session.
    epoch_owed: bool,
}

impl Store {
    /// Opens the file in `dir` (made on a first run) and its epoch in
    /// `epoch_file`: the sessions in it that are bound to the epoch, and
    /// not `over` (started, last seen); every other row is deleted, and a
    /// new epoch begins.
    pub fn open(
        dir: &Path,
        key: [u8; 32],
        epoch_file: &Path,
        over: impl Fn(u64, u64) -> bool,
    ) -> Result<(Store, Vec<Row>), String> {
        let path = dir.join(SESSIONS_FILE);
        let failed = |e: rusqlite::Error| format!("cannot open {}: {e}", path.display());
        let conn = Connection::open(&path).map_err(failed)?;
        // A session lost to a power cut means signing in again, never lost money:
        // commits need not wait for the disk. One lost is also sealed under an epoch
        // flushed before it, so the file it leaves is refused rather than revived.
        conn.execute_batch(
            "PRAGMA journal_mode = WAL;
             PRAGMA synchronous = NORMAL;
             DROP TABLE IF EXISTS sessions;
             CREATE TABLE IF NOT EXISTS keyed_sessions (
                 session TEXT PRIMARY KEY,
                 actor TEXT NOT NULL,
                 started_ms BIGINT NOT NULL,
                 seen_ms BIGINT NOT NULL,
                 mac TEXT NOT NULL,
                 seen_mac TEXT
             );
             CREATE TABLE IF NOT EXISTS sessions_seal (
                 one INTEGER PRIMARY KEY CHECK (one = 1),
                 epoch TEXT NOT NULL,
                 mac TEXT NOT NULL
             );",
        )
        .map_err(failed)?;
        // A file from before last uses were sealed: its rows have no MAC of it.
        let has_seen_mac = conn
            .prepare("SELECT 1 FROM pragma_table_info('keyed_sessions') WHERE name = 'seen_mac'")
            .and_then(|mut s| s.exists([]))
            .map_err(failed)?;
        if !has_seen_mac {
            conn.execute_batch("ALTER TABLE keyed_sessions ADD COLUMN seen_mac TEXT")
                .map_err(failed)?;
        }
        let epoch = read_epoch(epoch_file, &key).unwrap_or_else(|e| {
            tracing::warn!("{e}: the sessions in {} are dropped", path.display());
            None
        });
        let seal: Option<(String, String)> = conn
            .query_row("SELECT epoch, mac FROM sessions_seal WHERE one = 1", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()
            .map_err(failed)?;
        type Stored = (String, String, i64, i64, String, Option<String>);
        let rows: Vec<Stored> = conn
            .prepare("SELECT session, actor, started_ms, seen_ms, mac, seen_mac FROM keyed_sessions")
            .and_then(|mut rows| {
                rows.query_map([], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?))
                })?
                .collect()
            })
            .map_err(failed)?;
        let decode = |hex_text: &str| -> Option<SessionKey> { hex::decode(hex_text).ok()?.try_into().ok() };
        let mut set = [0u8; 32];
        let mut whole = true;
        for (session, ..) in &rows {
            match decode(session) {
                Some(session) => xor(&mut set, &element(&key, &session)),
                None => whole = false,
            }
        }
        let bound = whole
            && epoch.is_some_and(|epoch| {
                seal.as_ref().is_some_and(|(sealed, mac)| {
                    *sealed == hex::encode(epoch)
                        && hex::decode(mac).is_ok_and(|m| seal_mac(&key, &epoch, &set).verify_slice(&m).is_ok())
                })
            });
        if !bound && !rows.is_empty() && seal.is_none() {
            // No seal at all: a file kept by a build before sessions were
            // bound (the first start after an upgrade), or put back from then.
            tracing::info!(
                "{}: its {} sessions were kept by a build that did not bind them to the secret (kept before \
                 this build was installed, or the file was put back from then): every session in it is \
                 dropped, and their holders sign in again",
                path.display(),
                rows.len()
            );
        } else if !bound && !rows.is_empty() {
            tracing::warn!(
                "{}: its {} sessions are not as this server last kept them (the file was put back from a copy \
                 made before a session ended, or changed, or {} is not the one it was kept with): every \
                 session in it is dropped, and their holders sign in again",
                path.display(),
                rows.len(),
                epoch_file.display()
            );
        }
        let mut kept = Vec::new();
        let mut dropped = Vec::new();
        for (session_text, actor_text, started, seen, mac, seen_sealed) in rows {
            let Some(session) = decode(&session_text) else {
                // No part of the set: deleted as it is written.
                conn.execute("DELETE FROM keyed_sessions WHERE session = ?1", params![session_text])
                    .map_err(failed)?;
                continue;
            };
            let (started, mut seen) = (started as u64, seen as u64);
            // A last use the secret did not seal counts from the session's start.
            if seen_sealed.as_deref() != Some(seen_mac(&key, &session, seen).as_str()) {
                seen = started;
            }
            let macked =
                hex::decode(&mac).is_ok_and(|m| row_mac(&key, &session, &actor_text, started).verify_slice(&m).is_ok());
            let actor = serde_json::from_str::<Actor>(&actor_text).ok().filter(|_| macked);
            match actor {
                Some(actor) if bound && !over(started, seen) => kept.push(Row {
                    key: session,
                    actor,
                    started_ms: started,
                    seen_ms: seen,
                }),
                None if bound => {
                    tracing::warn!("{}: a session not kept under the secret was dropped", path.display());
                    dropped.push(session);
                }
                _ => dropped.push(session),
            }
        }
        let mut store = Store {
            conn,
            path,
            epoch_file: epoch_file.to_path_buf(),
            key,
            epoch: epoch.unwrap_or_default(),
            set,
            unforgotten: Vec::new(),
            epoch_owed: false,
        };
        // A new epoch at every start: a copy of the file made before it is
        // refused, whatever ended while the server was stopped.
        store.epoch_owed = true;
        if let Err(e) = store.commit(&dropped, None) {
            tracing::warn!("{e}; the next start drops every session in it");
        }
        // A keys folder that takes no new epoch (mounted read-only, full) would
        // leave a copy of the file made this epoch able to bring back sessions
        // ended since: none is kept, and everyone signs in again.
        if store.epoch_owed && !kept.is_empty() {
            tracing::error!(
                "the keys folder takes no new sessions' epoch ({}): the {} sessions in {} are not kept, and their \
                 holders sign in again",
                epoch_file.display(),
                kept.len(),
                store.path.display()
            );
            kept.clear();
        }
        Ok((store, kept))
    }

    /// Ends the sessions `ended` and starts `added`, if any, in one
    /// transaction sealed under the epoch: a new one first if any session
    /// ends. The rows a failed write left are deleted with them; if this
    /// one fails too, they and `ended` wait for the next.
    pub fn commit(&mut self, ended: &[SessionKey], added: Option<&Row>) -> Result<(), String> {
        if !ended.is_empty() || self.epoch_owed {
            match new_epoch().and_then(|epoch| write_epoch(&self.epoch_file, &self.key, &epoch).map(|()| epoch)) {
                Ok(epoch) => {
                    self.epoch = epoch;
                    self.epoch_owed = false;
                }
                Err(e) => {
                    tracing::warn!(
                        "{e}: a copy of {} made since the last session ended could bring ended sessions back, \
                         until the keys folder takes a new epoch (tried again at the next change of sessions)",
                        self.path.display()
                    );
                    self.epoch_owed = true;
                }
            }
        }
        self.unforgotten.extend_from_slice(ended);
        let written = self.write(added);
        match written {
            Ok(set) => {
                self.set = set;
                self.unforgotten.clear();
                Ok(())
            }
            Err(e) => Err(format!("{} could not be written: {e}", self.path.display())),
        }
    }

    fn write(&self, added: Option<&Row>) -> rusqlite::Result<[u8; 32]> {
        let tx = self.conn.unchecked_transaction()?;
        let mut set = self.set;
        for session in &self.unforgotten {
            let deleted = tx.execute(
                "DELETE FROM keyed_sessions WHERE session = ?1",
                params![hex::encode(session)],
            )?;
            // Only a row that was there leaves the set.
            if deleted == 1 {
                xor(&mut set, &element(&self.key, session));
            }
        }
        if let Some(row) = added {
            let actor =
                serde_json::to_string(&row.actor).map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
            let mac = row_mac(&self.key, &row.key, &actor, row.started_ms)
                .finalize()
                .into_bytes();
            tx.execute(
                "INSERT INTO keyed_sessions (session, actor, started_ms, seen_ms, mac, seen_mac) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    hex::encode(row.key),
                    actor,
                    row.started_ms as i64,
                    row.seen_ms as i64,
                    hex::encode(mac),
                    seen_mac(&self.key, &row.key, row.seen_ms)
                ],
            )?;
            xor(&mut set, &element(&self.key, &row.key));
        }
        tx.execute(
            "INSERT OR REPLACE INTO sessions_seal (one, epoch, mac) VALUES (1, ?1, ?2)",
            params![
                hex::encode(self.epoch),
                hex::encode(seal_mac(&self.key, &self.epoch, &set).finalize().into_bytes())
            ],
        )?;
        tx.commit()?;
        Ok(set)
    }

    /// Whether a write failed to delete rows, or to begin an epoch, and waits for the next.
    pub fn owes(&self) -> bool {
        !self.unforgotten.is_empty() || self.epoch_owed
    }

    /// Notes a session's last use. Losing this write only shortens the session after a restart.
    pub fn seen(&self, session: &SessionKey, now_ms: u64) {
        let _ = self.conn.execute(
            "UPDATE keyed_sessions SET seen_ms = ?1, seen_mac = ?2 WHERE session = ?3",
            params![
                now_ms as i64,
                seen_mac(&self.key, session, now_ms),
                hex::encode(session)
            ],
        );
    }

    /// Makes the file refuse every write, as a full disk would, or take them again.
    #[cfg(test)]
    pub fn refuse_writes(&self, refuse: bool) {
        self.conn.pragma_update(None, "query_only", refuse).expect("query_only");
    }
}
