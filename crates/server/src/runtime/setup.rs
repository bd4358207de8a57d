//! Opening a data directory for a server: one process at a time, the
//! journal's seal checked against the secret, the journal recovered and
//! replayed, the writers started, and on a first run an admin and two
//! tables to play on.

use std::path::Path;
use std::sync::Arc;

use croupier_ledger::{check_head, check_seal, Database, Opened as Journal, SealProblem};

use super::archive::{Archive, Archiver};
use super::checkpoints::{open_newest, CheckpointWriter, Store};
use super::clock::{Clock, WallClock};
use super::committer::{Committer, Pipeline, COMMIT_SPACING_US};
use super::floor::Floor;
use super::journal_checks::{check_data_serves, distrusted};
use super::keys::{read_head, HeadKeeper, Keys};
use super::passwords::hash_password;
use super::reply::Publish;
use super::{lower_this_threads_priority, start, Parts};
use crate::api::{EventView, OutcomeSource, Role};
use crate::casino::journal::event::StoredLimit;
use crate::casino::{Actor, Casino, Request, User};

/// How often the WAL is copied into the database, beside the writer. Each
/// checkpoint ends with a flush of the database file, and the writer's next
/// flush of the WAL waits until the disk has taken everything the checkpoint
/// wrote: the wait grows with the copy. At 20,000 bets a second the log grows
/// by about 20 MB a second; copied every 2 s, each copy held the journal's
/// writes up to 60-150 ms, so copies are small and often instead.
pub const CHECKPOINT_EVERY_MS: u64 = 200;

/// Takes the data directory for this process alone: one writer per journal.
/// The lock lasts as long as the returned file is open.
pub fn lock_data(data: &Path) -> Result<std::fs::File, String> {
    std::fs::create_dir_all(data).map_err(|e| format!("cannot create {}: {e}", data.display()))?;
    let path = data.join("croupier.lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    file.try_lock().map_err(|_| {
        format!(
            "{} is in use by another croupier process (a running server?)",
            data.display()
        )
    })?;
    Ok(file)
}

/// Opens the journal in `database` (of the data directory `data`), sealed
/// with the secret in `keys_dir`: the seal (and the head kept beside the
/// secret) must match the journal, or nothing opens. A journal written
/// before seals is sealed now, with a secret made now if there is none; a
/// journal with no entries yet alike. On PostgreSQL this waits for the
/// casino's lease while another node holds it.
pub fn open_journal(database: &Database, data: &Path, keys_dir: &Path) -> Result<(Journal, Keys), String> {
    open_journal_waiting(database, data, keys_dir, true)
}

/// [`open_journal`]; unless `wait`, a journal on PostgreSQL whose lease another
/// node holds is refused at once (`croupier user` on a casino that is running).
pub fn open_journal_waiting(
    database: &Database,
    data: &Path,
    keys_dir: &Path,
    wait: bool,
) -> Result<(Journal, Keys), String> {
    open_journal_leased(database, data, keys_dir, wait, croupier_ledger::pg::LEASE_TIMEOUT_MS)
}

/// [`open_journal_waiting`], holding the lease on PostgreSQL with the timeout `lease_timeout_ms`.
pub fn open_journal_leased(
    database: &Database,
    data: &Path,
    keys_dir: &Path,
    wait: bool,
    lease_timeout_ms: u64,
) -> Result<(Journal, Keys), String> {
    let cannot = |e: &dyn std::fmt::Display| format!("cannot open {}: {e}", database.shown());
    let mut waiting = super::waiting::Waiting::new(database, data, keys_dir);
    let mut check = || {
        match wait {
        true => waiting.check(),
        false => Err(format!(
            "a node holds the casino (its lease in {}): do this from the admin page while it runs, or stop every node first",
            database.shown()
        )),
    }
    };
    let mut storage = database
        .open_leased(lease_timeout_ms, &mut check)
        .map_err(|e| match e {
            // The wait's own refusal says everything.
            croupier_ledger::StorageError::NotTakenOver(why) => why,
            e => cannot(&e),
        })?;
    if database.is_postgres() {
        tracing::info!("holding the casino's lease in {}", database.shown());
    }
    let (seal, last) = storage.seal_and_last().map_err(|e| cannot(&e))?;
    let (keys, created) = Keys::open(keys_dir, data, seal.is_none())?;
    let key = keys.journal_key();
    let distrusted = |e: &dyn std::fmt::Display| distrusted(database, data, keys_dir, e);
    match check_seal(seal.as_ref(), last, &key) {
        Ok(()) => {}
        Err(SealProblem::Missing { entries }) if created => {
            storage.seal_now(&key).map_err(|e| cannot(&e))?;
            tracing::info!(
                "sealed the journal's {entries} entries with the new secret in {}",
                keys_dir.display()
            );
        }
        Err(e) => return Err(distrusted(&e)),
    }
    if let Some(head) = read_head(&keys.head_path())? {
        let mut unreadable = None;
        let checked = check_head(&head, last.map(|(seq, _)| seq), &key, |seq| {
            match storage.hash_of(seq) {
                Ok(hash) => hash,
                Err(e) => {
                    unreadable = Some(e);
                    None
                }
            }
        });
        if let Some(e) = unreadable {
            return Err(cannot(&e));
        }
        checked.map_err(|e| match last {
            // An empty journal where the head names entries: most likely not this casino's journal at all.
            None => format!(
                "{}. The journal in {} is empty: if this casino's journal is elsewhere, give it (--database \
                 postgres://... for one on PostgreSQL, or the --data it was in)",
                distrusted(&e),
                database.shown()
            ),
            Some(_) => distrusted(&e),
        })?;
    }
    storage.seal_with(key);
    // With the key: a catalogue row it did not seal is refused as such first.
    if let Some((first, last)) = storage.missing_before_live().map_err(|e| cannot(&e))? {
        let why = format!(
            "entries {first} to {last} are missing, not damaged: neither the segments' catalogue nor the live rows hold them \
             (a segment taken out of the catalogue, or rows lost); put back the database and its segments from a backup"
        );
        return Err(distrusted(&why));
    }
    Ok((storage, keys))
}

pub use super::journal_checks::JOURNAL_OF_FILE;

/// The file of a node's data directory whose journal is on PostgreSQL: where (no password).
pub const JOURNAL_IN_FILE: &str = "journal-in";

/// Where the journal of the node whose data directory is `data` is, if it
/// is on PostgreSQL (the commands that work on SQLite's refuse it).
pub fn journal_elsewhere(data: &Path) -> Option<String> {
    std::fs::read_to_string(data.join(JOURNAL_IN_FILE))
        .ok()
        .map(|text| text.trim().to_string())
}

/// A data directory open for serving.
pub struct Opened {
    pub floor: Floor,
    /// The admin made on a first run, and its one-time password.
    pub admin_password: Option<(String, String)>,
    /// What recovery did: the rounds interrupted by the last stop, voided.
    pub recovered: Vec<EventView>,
    /// The users the journal knows, as they are now.
    pub users: Vec<User>,
    /// The data directory's lock, held while the server runs.
    pub lock: std::fs::File,
    /// The secret the journal and the sessions are sealed with.
    pub keys: Keys,
    /// Keeps the journal's head beside the secret while the server runs.
    pub head: HeadKeeper,
    /// Writes checkpoints of the casino's state while the server runs.
    pub checkpoints: CheckpointWriter,
    /// The entry the checkpoint the casino opened from follows (`None`: the whole journal was replayed).
    pub from_checkpoint: Option<u64>,
}

/// Opens `data`, recovers, and starts the writers on the current async
/// runtime (a multi-thread one). Durable events are shown through `shown`.
pub fn open(
    data: &Path,
    database: &Database,
    keys_dir: &Path,
    shown: Arc<dyn Publish>,
    checkpoint_every: u64,
    lease_timeout_ms: u64,
) -> Result<Opened, String> {
    let wall = |last_ms| -> Arc<dyn Clock> { Arc::new(WallClock::after(last_ms)) };
    open_leased_on_clock(
        data,
        database,
        keys_dir,
        shown,
        (checkpoint_every, lease_timeout_ms),
        &wall,
    )
}

/// [`open`] on the clock `clock` makes from the journal's last time: the
/// machine's for a server, one a simulation moves (`croupier bench week`).
pub fn open_on_clock(
    data: &Path,
    database: &Database,
    keys_dir: &Path,
    shown: Arc<dyn Publish>,
    checkpoint_every: u64,
    clock: &dyn Fn(u64) -> Arc<dyn Clock>,
) -> Result<Opened, String> {
    let every = (checkpoint_every, croupier_ledger::pg::LEASE_TIMEOUT_MS);
    open_leased_on_clock(data, database, keys_dir, shown, every, clock)
}

/// [`open_on_clock`]; `(checkpoint_every, lease_timeout_ms)`: a checkpoint
/// every so many entries, and on PostgreSQL the lease's timeout.
fn open_leased_on_clock(
    data: &Path,
    database: &Database,
    keys_dir: &Path,
    shown: Arc<dyn Publish>,
    (checkpoint_every, lease_timeout_ms): (u64, u64),
    clock: &dyn Fn(u64) -> Arc<dyn Clock>,
) -> Result<Opened, String> {
    let lock = lock_data(data)?;
    let cannot = |e: &dyn std::fmt::Display| format!("cannot open {}: {e}", database.shown());
    // A node's data directory says where its journal is, so that nothing
    // opens (or makes) one in SQLite there by mistake.
    match (database, journal_elsewhere(data)) {
        (Database::Sqlite(_), Some(url)) => {
            return Err(format!(
                "{} is a node's data directory of a casino whose journal is on PostgreSQL ({url}): give --database \
                 (or CROUPIER_DATABASE)",
                data.display()
            ))
        }
        (Database::Postgres(_), _) => std::fs::write(data.join(JOURNAL_IN_FILE), format!("{}\n", database.shown()))
            .map_err(|e| format!("cannot write {}: {e}", data.join(JOURNAL_IN_FILE).display()))?,
        (Database::Sqlite(_), None) => {}
    }
    let (mut storage, keys) = open_journal_leased(database, data, keys_dir, true, lease_timeout_ms)?;
    // On PostgreSQL the casino is this node's only while the database confirms its lease.
    let lease = storage.lease_watch();
    // On PostgreSQL the lease is this connection's: the head keeper watches that it stays so.
    let writer = match &mut storage {
        Journal::Postgres(pg) => Some(pg.backend().map_err(|e| cannot(&e))?),
        Journal::Sqlite(_) => None,
    };
    let first_entry = storage.hash_of(1).map_err(|e| cannot(&e))?;
    check_data_serves(data, database, first_entry)?;
    // The writer commits; copying SQLite's log into the database happens beside it,
    // at low priority: it is no answer's work.
    if let Journal::Sqlite(sqlite) = &mut storage {
        sqlite
            .checkpoint_in_background(
                data,
                std::time::Duration::from_millis(CHECKPOINT_EVERY_MS),
                lower_this_threads_priority,
            )
            .map_err(|e| cannot(&e))?;
    }
    let entries = storage.last().map_err(|e| cannot(&e))?.map_or(0, |(seq, _)| seq);
    let (mut pipeline, committer) =
        Committer::start_spaced(storage, std::time::Duration::from_micros(COMMIT_SPACING_US))
            .map_err(|e| cannot(&e))?;
    // Every entry is replayed at a start: on a long history, say how far it is.
    let began = std::time::Instant::now();
    pipeline.report_progress(Box::new(move |read| {
        let seconds = began.elapsed().as_secs_f64();
        let left = seconds * (entries.saturating_sub(read) as f64) / (read as f64);
        tracing::info!(
            "opening the journal: {read} of {entries} entries replayed in {seconds:.0} s, about {left:.0} s left"
        );
    }));
    // The clock starts no earlier than the journal's last entry.
    let clock = clock(pipeline.last_at_ms().unwrap_or(0));
    let archive = Arc::new(Archive::open(data, keys.archive_key())?);
    let archiver = Archiver::start(archive.clone())?;
    // Finished rounds the archive lacks (a power cut, a failed write) are archived
    // again; the newest checkpoint spares replaying what came before it.
    let store = Store::bound_by(data, database.clone());
    let mut first = Some(pipeline);
    let mut streams = || match first.take() {
        Some(p) => Ok(p),
        None => committer.reload().map_err(|e| e.to_string()),
    };
    let (mut casino, recovered, from_checkpoint) =
        open_newest(Some(&store), &mut streams, clock.now_ms(), &mut |r| archiver.offer(r))?;
    let admin_password = first_run(&mut casino, clock.now_ms())?;
    if first_entry.is_none() {
        let mut reader = database.open_read_only().map_err(|e| cannot(&e))?;
        check_data_serves(data, database, reader.hash_of(1).map_err(|e| cannot(&e))?)?;
    }
    let users = casino.users();
    // Wheel tables follow their wheels from the start.
    let wheels: Vec<(String, String)> = casino
        .tables()
        .filter_map(|s| s.wheel_address.clone().map(|a| (s.id.clone(), a)))
        .collect();
    let floor = start(
        casino,
        Parts {
            committer,
            archive,
            archiver,
            clock,
            shown,
            runtime: tokio::runtime::Handle::current(),
            checkpoints: Some(store.clone()),
        },
    )?;
    let checkpoints = CheckpointWriter::start(
        store,
        floor.clone(),
        from_checkpoint.clone(),
        checkpoint_every,
        keys.journal_key(),
    )?;
    floor.health().watch_disk(data);
    if database.is_postgres() {
        floor.health().stop_on_failed_write();
    }
    if let Some(lease) = lease {
        floor.health().watch_lease(lease)?;
    }
    for (table, address) in wheels {
        super::floor::wheel::follow(floor.clone(), table, address);
    }
    let head = HeadKeeper::start(database, &keys, floor.health().clone(), writer)?;
    Ok(Opened {
        floor,
        admin_password,
        recovered,
        users,
        lock,
        keys,
        head,
        checkpoints,
        from_checkpoint: from_checkpoint.map(|used| used.through),
    })
}

/// With no admin yet: an admin with a one-time password; with no tables yet:
/// two tables to play on.
fn first_run(casino: &mut Casino<Pipeline>, at: u64) -> Result<Option<(String, String)>, String> {
    let system = Actor::system();
    let run = |casino: &mut Casino<Pipeline>, r: Request| {
        casino.execute(at, &system, r).map(|_| ()).map_err(|e| e.to_string())
    };
    let mut admin_password = None;
    if !casino.users().iter().any(|u| u.role == Role::Admin) {
        let mut secret = [0u8; 12];
        croupier_rng::CasinoRng::from_os()
            .and_then(|mut r| r.fill(&mut secret))
            .map_err(|e| e.to_string())?;
        let password = hex::encode(secret);
        let hash = hash_password(&password).map_err(|e| e.to_string())?;
        let username = if casino.user("admin").is_some() {
            "admin2"
        } else {
            "admin"
        };
        run(
            casino,
            Request::CreateUser {
                username: username.into(),
                role: Role::Admin,
                password_hash: hash.clone(),
                licence: None,
            },
        )?;
        // Printed once, it lands in the service's log: the admin changes it
        // before doing anything else.
        run(
            casino,
            Request::SetPassword {
                username: username.into(),
                password_hash: hash,
                must_change: true,
            },
        )?;
        admin_password = Some((username.to_string(), password));
    }
    if casino.tables().next().is_none() {
        for (table, profile, wheel, outcome) in [
            ("t1", "maryland", "double-zero", OutcomeSource::Rng),
            // One currency: both first tables play in US dollars.
            ("t2", "colorado-2014", "single-zero", OutcomeSource::Dealer),
        ] {
            let profile_text = croupier_profiles::builtin_text(profile)
                .ok_or("shipped profile missing")?
                .to_string();
            // Colorado 2207, Maryland ch.1 G(3): posted as a casino would, 1.00
            // to 100.00 on each inside bet, 5.00 to 500.00 on each outside bet.
            let limits = StoredLimit::on_every_kind(&profile_text, wheel, (100, 10_000), (500, 50_000))?;
            run(
                casino,
                Request::CreateTable {
                    bonus_text: None,
                    table: table.into(),
                    profile_text,
                    wheel: wheel.into(),
                    in_prison: false,
                    betting_window_ms: 30_000,
                    outcome,
                    shared_colours: false,
                    wheel_address: None,
                },
            )?;
            run(
                casino,
                Request::SetLimits {
                    table: table.into(),
                    limits,
                },
            )?;
        }
    }
    Ok(admin_password)
}
