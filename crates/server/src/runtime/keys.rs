//! The server's secret and what it keeps outside the data directory. The
//! secret (32 random bytes, made on a first run) seals the journal and the
//! sessions: someone who can write the data directory but not the keys
//! folder can change neither unseen. The keys folder also holds the
//! journal's head (a copy of its seal, kept up to date within a second), so
//! that a database put back as it was earlier is caught too, and the
//! sessions' epoch, which does the same for `sessions.db` (`http/sessions`).
//! By default the keys folder is the data directory's sibling, `DATA-keys`;
//! a casino keeps it on another disk or mount, and backs it up apart from
//! the data.

use std::io::Write;
use std::path::{Path, PathBuf};

use croupier_ledger::Seal;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The secret's file in the keys folder: 64 hex digits.
pub const SECRET_FILE: &str = "secret";
/// The journal's head in the keys folder.
pub const HEAD_FILE: &str = "journal-head.json";
/// The sessions' epoch in the keys folder: what binds `sessions.db` (`http/sessions/store.rs`).
pub const SESSIONS_EPOCH_FILE: &str = "sessions-epoch.json";
/// How often the head kept outside the data directory is brought up to date.
pub const HEAD_EVERY_MS: u64 = 1_000;

/// The keys folder a data directory has when none is given: its sibling `DATA-keys`.
pub fn default_dir(data: &Path) -> PathBuf {
    let trimmed = data.components().as_path();
    let mut name = trimmed.as_os_str().to_owned();
    name.push("-keys");
    PathBuf::from(name)
}

/// The secret, and the folder it came from.
pub struct Keys {
    dir: PathBuf,
    secret: [u8; 32],
}

fn derived(secret: &[u8; 32], purpose: &str) -> [u8; 32] {
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret) else {
        unreachable!("HMAC takes any key length");
    };
    mac.update(b"croupier key for ");
    mac.update(purpose.as_bytes());
    mac.finalize().into_bytes().into()
}

impl Keys {
    /// The secret in `dir`. Where there is none, one is made if `may_create`
    /// (a journal not sealed yet); otherwise that is an error. Refuses a keys
    /// folder inside `data`: the secret must not be where the journal is.
    /// Also says whether the secret was made now.
    pub fn open(dir: &Path, data: &Path, may_create: bool) -> Result<(Keys, bool), String> {
        let path = dir.join(SECRET_FILE);
        let created = if path.exists() {
            false
        } else if may_create {
            make_secret(dir)?;
            true
        } else {
            return Err(format!(
                "the journal is sealed, and there is no secret at {}: give --keys the folder that holds it",
                path.display()
            ));
        };
        let (data_at, dir_at) = (canonical(data)?, canonical(dir)?);
        if dir_at.starts_with(&data_at) {
            return Err(format!(
                "the keys folder {} is inside the data directory {}: the secret must be kept apart from the journal it seals",
                dir.display(),
                data.display()
            ));
        }
        Ok((Keys::read_secret(dir)?, created))
    }

    /// The secret in `dir`, if there is one (for `croupier verify`, which makes none).
    pub fn read(dir: &Path) -> Result<Option<Keys>, String> {
        if !dir.join(SECRET_FILE).exists() {
            return Ok(None);
        }
        Keys::read_secret(dir).map(Some)
    }

    fn read_secret(dir: &Path) -> Result<Keys, String> {
        let path = dir.join(SECRET_FILE);
        let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let secret = hex::decode(text.trim())
            .ok()
            .and_then(|b| <[u8; 32]>::try_from(b).ok())
            .ok_or_else(|| format!("{} is not a secret: it should hold 64 hex digits", path.display()))?;
        warn_if_others_may_read(&path);
        Ok(Keys {
            dir: dir.to_path_buf(),
            secret,
        })
    }

    /// The folder the secret is in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The key the journal is sealed with.
    pub fn journal_key(&self) -> [u8; 32] {
        derived(&self.secret, "the journal's seal")
    }

    /// The key recall's archived rounds are kept under.
    pub fn archive_key(&self) -> [u8; 32] {
        derived(&self.secret, "the recall archive")
    }

    /// The key sessions are kept under.
    pub fn sessions_key(&self) -> [u8; 32] {
        derived(&self.secret, "sessions")
    }

    /// Where the journal's head is kept.
    pub fn head_path(&self) -> PathBuf {
        self.dir.join(HEAD_FILE)
    }

    /// Where the sessions' epoch is kept.
    pub fn sessions_epoch_path(&self) -> PathBuf {
        self.dir.join(SESSIONS_EPOCH_FILE)
    }
}

fn canonical(path: &Path) -> Result<PathBuf, String> {
    path.canonicalize()
        .map_err(|e| format!("cannot find {}: {e}", path.display()))
}

/// Makes the keys folder (readable by this user alone) and a new secret in it.
fn make_secret(dir: &Path) -> Result<(), String> {
    let failed = |e: std::io::Error| format!("cannot make the secret in {}: {e}", dir.display());
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir).map_err(failed)?;
    let mut secret = [0u8; 32];
    croupier_rng::CasinoRng::from_os()
        .and_then(|mut r| r.fill(&mut secret))
        .map_err(|e| format!("cannot make a secret: {e}"))?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(dir.join(SECRET_FILE)).map_err(failed)?;
    writeln!(file, "{}", hex::encode(secret)).map_err(failed)?;
    file.sync_all().map_err(failed)?;
    Ok(())
}

fn warn_if_others_may_read(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(meta) = std::fs::metadata(path) {
            if meta.permissions().mode() & 0o077 != 0 {
                tracing::warn!("{} may be read by other users: chmod 600 it", path.display());
            }
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}

/// The journal's head as the keys folder keeps it.
#[derive(serde::Serialize, serde::Deserialize)]
struct HeadFile {
    seq: u64,
    hash: String,
    mac: String,
}

/// The head kept in `path`, if there is one.
pub fn read_head(path: &Path) -> Result<Option<Seal>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let bad = || format!("{} is not a journal head", path.display());
    let head: HeadFile = serde_json::from_str(&text).map_err(|_| bad())?;
    let bytes = |h: &str| hex::decode(h).ok().and_then(|b| <[u8; 32]>::try_from(b).ok());
    Ok(Some(Seal {
        seq: head.seq,
        hash: bytes(&head.hash).ok_or_else(bad)?,
        mac: bytes(&head.mac).ok_or_else(bad)?,
    }))
}

/// Writes `seal` as the head in `path`, whole or not at all.
pub fn write_head(path: &Path, seal: &Seal) -> Result<(), String> {
    let head = HeadFile {
        seq: seal.seq,
        hash: hex::encode(seal.hash),
        mac: hex::encode(seal.mac),
    };
    let text = serde_json::to_string(&head).map_err(|e| e.to_string())?;
    let fresh = path.with_extension("json.new");
    std::fs::write(&fresh, text)
        .and_then(|()| std::fs::rename(&fresh, path))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Why the head keeper could not copy the head.
enum NotKept {
    /// The journal or the keys folder could not be read or written this time.
    Failed(String),
    /// The journal is not the one this node kept the head of: cut back, or
    /// changed, under the running node.
    Changed(String),
}

/// Copies the journal's seal to the keys folder now, if it moved on since
/// `last`. A seal that went back, or entries this node saw that are no
/// longer as they were, are never copied: the journal was changed under it.
fn copy_head(
    journal: &mut croupier_ledger::Opened,
    key: &[u8; 32],
    path: &Path,
    last: &mut Option<Seal>,
) -> Result<(), NotKept> {
    let failed = |e: &dyn std::fmt::Display| NotKept::Failed(e.to_string());
    let (seal, end) = journal.seal_and_last().map_err(|e| failed(&e))?;
    let Some(seal) = seal else {
        return Ok(());
    };
    // The journal ends where its seal says, and the seal is the secret's:
    // entries cut off its end, or added without the secret, are caught here too.
    if let Err(problem) = croupier_ledger::check_seal(Some(&seal), end, key) {
        return Err(NotKept::Changed(format!(
            "the journal was changed under this node: {problem}"
        )));
    }
    if let Some(kept) = last.as_ref().filter(|kept| **kept != seal) {
        let still = journal.hash_of(kept.seq).map_err(|e| failed(&e))?;
        if seal.seq < kept.seq || still != Some(kept.hash) {
            return Err(NotKept::Changed(format!(
                "the journal was changed under this node: its seal went from entry {} to entry {}, and entry {} is {}",
                kept.seq,
                seal.seq,
                kept.seq,
                if still.is_some() { "no longer as it was" } else { "gone" }
            )));
        }
    }
    if last.as_ref() != Some(&seal) {
        write_head(path, &seal).map_err(NotKept::Failed)?;
        *last = Some(seal);
    }
    Ok(())
}

/// Keeps the journal's head in the keys folder up to date: a thread that
/// copies the seal every [`HEAD_EVERY_MS`], at low priority. Dropping it
/// (the server stopping) copies it a last time. On PostgreSQL it also
/// watches the casino's lease: once the process holding it on the database
/// server is no longer this node's writer (its connection ended: a network
/// cut, the database restarted), the node has lost the casino, and says so.
pub struct HeadKeeper {
    stop: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl HeadKeeper {
    pub fn start(
        journal: &croupier_ledger::Database,
        keys: &Keys,
        health: super::health::Health,
        writer: Option<croupier_ledger::pg::Backend>,
    ) -> Result<HeadKeeper, String> {
        let mut conn = Some(
            journal
                .open_read_only()
                .map_err(|e| format!("cannot open {}: {e}", journal.shown()))?,
        );
        let database = journal.clone();
        let path = keys.head_path();
        let key = keys.journal_key();
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("journal-head".into())
            .spawn(move || {
                super::lower_this_threads_priority();
                // The head on disk is where the journal was when the node opened (checked
                // then): the first copy is held to it, never moving it back.
                let mut last = read_head(&path).ok().flatten();
                loop {
                    let wait = stopped.recv_timeout(std::time::Duration::from_millis(HEAD_EVERY_MS));
                    // A connection lost (the database restarted) is made again at once.
                    if conn.is_none() {
                        conn = database.open_read_only().ok();
                    }
                    // The lease first, whatever the head's copy does; asked again at once
                    // on a new connection where this one failed.
                    if let Some(writer) = &writer {
                        let mut asked = conn.as_mut().map(|reader| reader.lease_holder());
                        if !matches!(asked, Some(Ok(_))) {
                            conn = database.open_read_only().ok();
                            asked = conn.as_mut().map(|reader| reader.lease_holder());
                        }
                        match asked {
                            Some(Ok(holder)) if holder.as_ref() != Some(writer) => health.lease_lost(&format!(
                                "this node lost the casino's lease in {}: its connection to the database ended, and {}; \
                                 started again, it waits its turn",
                                database.shown(),
                                match holder {
                                    Some(_) => "another node holds the casino now",
                                    None => "no node holds the casino now",
                                }
                            )),
                            Some(Ok(_)) => {}
                            _ => conn = None,
                        }
                    }
                    match conn.as_mut().map(|reader| copy_head(reader, &key, &path, &mut last)) {
                        Some(Ok(())) => health.head_kept(),
                        Some(Err(NotKept::Changed(why))) => health.lease_lost(&format!(
                            "{why}; `croupier verify` says where, and a node started again refuses the journal \
                             until it is put right (docs/commands.md: Backups)"
                        )),
                        Some(Err(NotKept::Failed(e))) => {
                            health.head_not_kept(&e);
                            conn = None;
                        }
                        None => health.head_not_kept(&format!("cannot read the journal in {}", database.shown())),
                    }
                    if !matches!(wait, Err(std::sync::mpsc::RecvTimeoutError::Timeout)) {
                        break;
                    }
                }
            })
            .map_err(|e| format!("cannot start the journal's head keeper: {e}"))?;
        Ok(HeadKeeper {
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for HeadKeeper {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_live_beside_the_data_never_inside_it() {
        assert_eq!(
            default_dir(Path::new("croupier-data")),
            PathBuf::from("croupier-data-keys")
        );
        assert_eq!(
            default_dir(Path::new("/srv/casino/data/")),
            PathBuf::from("/srv/casino/data-keys")
        );
        let tmp = tempfile::tempdir().expect("dir");
        let data = tmp.path().join("data");
        std::fs::create_dir_all(&data).expect("data");
        let inside = data.join("keys");
        let refused = Keys::open(&inside, &data, true).err().expect("refused");
        assert!(refused.contains("inside the data directory"), "{refused}");
        // A sealed journal with no secret found is refused, and no secret is made.
        let apart = tmp.path().join("keys");
        let refused = Keys::open(&apart, &data, false).err().expect("refused");
        assert!(refused.contains("give --keys"), "{refused}");
        assert!(!apart.exists());
        let (keys, created) = Keys::open(&apart, &data, true).expect("made");
        assert!(created);
        let (again, created) = Keys::open(&apart, &data, true).expect("read");
        assert!(!created);
        assert_eq!(keys.journal_key(), again.journal_key());
        assert_ne!(keys.journal_key(), keys.sessions_key());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(apart.join(SECRET_FILE))
                .expect("secret")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        std::fs::write(apart.join(SECRET_FILE), "not hex").expect("spoiled");
        assert!(Keys::read(&apart).err().expect("refused").contains("64 hex digits"));
    }

    #[test]
    fn a_head_is_written_whole_and_read_back() {
        let tmp = tempfile::tempdir().expect("dir");
        let path = tmp.path().join(HEAD_FILE);
        assert_eq!(read_head(&path), Ok(None));
        let seal = Seal::new(&[1; 32], 42, [9; 32]);
        write_head(&path, &seal).expect("written");
        assert_eq!(read_head(&path), Ok(Some(seal)));
        std::fs::write(&path, "{}").expect("spoiled");
        assert!(read_head(&path).is_err());
    }
}
