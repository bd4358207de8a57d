//! `croupier verify --data DIR`: check the journal's chain and its seal
//! under the secret, recompute every balance, and check the recall
//! archive's rounds against the journal.

use croupier_server::casino::tournaments::TournamentBooks;
use std::io::Write;

use croupier_ledger::{Database, MacCheck, Opened};
use croupier_server::casino::Replayer;
use croupier_server::runtime::archive::Archive;
use croupier_server::runtime::keys::default_dir;
use serde::Serialize;

use crate::verify_seal::{check_sealed, unvouched_why, ChainRead, SealCheck};
use crate::wire;
use crate::{Failure, Format, Invalid};

#[derive(clap::Args)]
pub struct Args {
    /// The data directory a table server writes.
    #[arg(long)]
    data: std::path::PathBuf,
    /// The folder of the secret the journal is sealed with (by default
    /// DATA-keys). Without the secret the seal is not checked, and a
    /// journal rewritten by someone who chained it again is not caught.
    #[arg(long)]
    keys: Option<std::path::PathBuf>,
    /// A journal head noted earlier (a copy of KEYS/journal-head.json, kept by
    /// an auditor): the journal must still hold that entry as it was. By
    /// default the head the server keeps beside the secret.
    #[arg(long)]
    head: Option<std::path::PathBuf>,
    /// Begins from the newest checkpoint the journal binds (checking its hash
    /// against the binding, and the chain and replay from it on) instead of
    /// replaying from the first entry: an incremental check, for an auditor
    /// who checked what came before. Without it every entry is replayed, and
    /// each bound checkpoint checked against the state the replay reaches.
    #[arg(long)]
    from_checkpoint: bool,
    /// The journal on a PostgreSQL server (postgres://...) that a casino of
    /// several nodes shares, with its checkpoints; --data is then a node's own
    /// data directory (its recall archive).
    #[arg(long, env = "CROUPIER_DATABASE", hide_env_values = true)]
    database: Option<String>,
    /// A folder the journal's segments were archived to (each a gaming
    /// day's entries, `DATA/segments/DAY.db`): looked in after the data
    /// directory's own `segments`. Give it once per folder.
    #[arg(long, value_name = "DIR")]
    segments: Vec<std::path::PathBuf>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Serialize)]
struct Report {
    entries: u64,
    transfers: u64,
    events: u64,
    accounts: usize,
    total: i128,
    ok: bool,
    /// Rounds rebuilt by replaying every request, when the replay succeeded.
    rounds_replayed: Option<u64>,
    /// The format the journal goes on in, when the replay succeeded (the
    /// newest this build writes: `journal_format_newest`).
    journal_format: Option<u32>,
    journal_format_newest: u32,
    /// How the entries read were stored: as text, and compressed under each
    /// of the database's dictionaries (0: none), which read back as hashed.
    records: croupier_ledger::compact::Read,
    /// The checkpoints of the casino's state: bound, checked, unusable.
    checkpoints: crate::verify_checkpoints::CheckpointCheck,
    /// The recall archive (`recall.db`), when there is one and the replay succeeded.
    recall: Option<RecallCheck>,
    /// Each tournament's money reconciled: fees, buy-ins, prizes, pool and
    /// vouchers against their accounts (Colorado 2213.01-.05).
    tournaments: Vec<TournamentBooks>,
    problem: Option<String>,
    /// Where the journal is broken, the last entry before the break: the
    /// entries up to it read, chain and replay, and (with the secret) the
    /// secret vouches for them (`croupier recover --keep`).
    last_good_entry: Option<u64>,
    /// The last entry the journal's segments hold (gaming days moved out of
    /// the live database), and the segments' files read, where they lay.
    segments_end: Option<u64>,
    segments_read: Vec<String>,
    /// The dictionary, damaged or lost, that the break is blamed on: put the
    /// database back from a copy; recovery cuts nothing for it.
    damaged_dictionary: Option<u8>,
    /// Every time `croupier recover` cut the journal: the entry it was
    /// journaled at, what it kept and cut, why, and what the secret had sealed.
    recoveries: Vec<Recovery>,
    /// The seal under the secret, and the head kept beside it.
    seal: SealCheck,
    balances: std::collections::BTreeMap<String, i128>,
}

#[derive(Serialize)]
struct Recovery {
    entry: u64,
    kept_through: u64,
    cut: u64,
    damage: String,
    sealed: String,
    reason: String,
    backup: String,
}

/// The recoveries journaled in `entry`.
fn recoveries_in(entry: &croupier_ledger::Entry) -> Vec<Recovery> {
    let mut found = Vec::new();
    for e in journal_events(&entry.record) {
        if let croupier_server::casino::JournalEvent::JournalRecovered {
            kept_through,
            cut,
            backup,
            reason,
            damage,
            sealed,
            ..
        } = e
        {
            found.push(Recovery {
                entry: entry.seq,
                kept_through,
                cut,
                damage,
                sealed,
                reason,
                backup,
            });
        }
    }
    found
}

/// The casino's events an entry's record holds (formats 1 and 2 hold none of these).
pub(crate) fn journal_events(
    record: &croupier_ledger::Record,
) -> impl Iterator<Item = croupier_server::casino::JournalEvent> + '_ {
    use croupier_server::casino::journal::{is_legacy, read_events, STREAM};
    record
        .events()
        .iter()
        .filter(|e| e.stream == STREAM && !is_legacy(e))
        .flat_map(|e| read_events(e).unwrap_or_default())
}

/// Where the journal breaks: the entry's number (0 where none is to blame), and why.
pub(crate) type Break = (u64, String);

/// The last entry the journal holds before entry `seq`: where it is sound up
/// to, when it breaks at `seq` (`None` where it breaks at its first).
pub(crate) fn last_before(storage: &mut Opened, seq: u64) -> Option<u64> {
    storage.last_before(seq).ok().flatten()
}

/// How a problem of the recall archive begins: the journal itself is sound.
const RECALL: &str = "recall archive:";

/// The recall archive against the replay: each archived round must be the
/// round the journal finished, as the replay rebuilds it.
#[derive(Serialize, Default)]
pub(crate) struct RecallCheck {
    /// Archived rounds identical to the replay's.
    rounds_matching: u64,
    /// Rounds the journal finished that are not archived yet (the next start archives them).
    rounds_not_archived: u64,
}

/// The rounds a replay rebuilt, the recall archive's check, its first
/// problem, and each tournament's books.
/// Rounds replayed, the recall archive's check, the first problem, the
/// tournaments' books, and the journal's format at its end.
type Replayed = (u64, Option<RecallCheck>, Option<String>, Vec<TournamentBooks>, u32);

/// The first tournament whose money does not reconcile.
fn tournament_problem(books: &[TournamentBooks]) -> Option<String> {
    books
        .iter()
        .find_map(|b| b.problem.as_ref().map(|p| format!("tournament {}: {p}", b.tournament)))
}

/// What one pass over the journal found.
pub(crate) struct Pass {
    /// The chain, the numbering and the balances.
    pub(crate) checked: croupier_ledger::VerifyReport,
    /// How far the chain holds, and the entries' MACs.
    pub(crate) chain: ChainRead,
    /// The first entry that does not read, if one does not.
    pub(crate) unreadable: Option<Break>,
    /// The dictionary whose damage stopped the read, if it was one: the
    /// entries under it may be sound, and are not for recovery to cut.
    pub(crate) dictionary: Option<u8>,
    /// The replay's rounds, recall check, problem and books; or where it failed.
    pub(crate) replayed: Result<Replayed, Break>,
    recoveries: Vec<Recovery>,
    /// The digest of the replay's state after each entry a kept checkpoint follows.
    taken: std::collections::BTreeMap<u64, String>,
    /// The checkpoints the entries replayed bind.
    bindings: Vec<croupier_server::casino::checkpoint::Binding>,
}

/// Reads the journal once, as it streams from the disk: checks each entry's
/// place in the chain and, given the journal's key, its MAC; replays its
/// requests, checks each round it finishes against `archive`, and notes its
/// recoveries. What it holds is the casino's state, never the journal: any
/// length verifies in the memory of the state (a progress bar and an
/// estimate go to standard error on a terminal).
pub(crate) fn one_pass(
    storage: &mut Opened,
    archive: Option<&Archive>,
    from: Option<&croupier_server::casino::checkpoint::Checkpoint>,
    targets: &std::collections::BTreeSet<u64>,
    key: Option<&[u8; 32]>,
) -> Result<Pass, Failure> {
    let after = from.map_or(0, |c| c.through);
    let total = storage.last().ok().flatten().map_or(0, |(seq, _)| seq);
    let bar = crate::sim_cmd::progress(total.saturating_sub(after), "entries");
    let mut check = RecallCheck::default();
    let mut problem: Option<String> = None;
    let mut finished = std::collections::HashSet::new();
    let mut on_final = |replayed: std::sync::Arc<croupier_server::casino::RoundRecord>| {
        let Some(archive) = archive else { return };
        if problem.is_some() {
            return;
        }
        match archive.round(&replayed.table, replayed.round) {
            Ok(Some(archived)) if archived == *replayed => check.rounds_matching += 1,
            Ok(Some(_)) => {
                problem = Some(format!(
                    "recall archive: round {} differs from the round the journal records",
                    replayed.id
                ))
            }
            Ok(None) => check.rounds_not_archived += 1,
            Err(e) => problem = Some(e),
        }
        finished.insert((replayed.table.clone(), replayed.round));
    };
    let cannot = |e: &dyn std::fmt::Display| anyhow::anyhow!("{e}");
    let (mut replayer, mut chain) = match from {
        Some(c) => {
            let (replayer, ledger) = Replayer::resumed(c, Some(&mut on_final)).map_err(|e| cannot(&e))?;
            (
                replayer,
                croupier_ledger::Verifier::from_state(&ledger).map_err(|e| cannot(&e))?,
            )
        }
        None => (
            Replayer::new(Some(&mut on_final)).map_err(|e| cannot(&e))?,
            croupier_ledger::Verifier::default(),
        ),
    };
    let mut replay_failed: Option<Break> = None;
    let mut recoveries = Vec::new();
    let mut taken = std::collections::BTreeMap::new();
    let mut macs = key.map(MacCheck::new);
    // Read past a break in the chain all the same: the recoveries are every readable entry's.
    let read = storage.each_with_macs(after, u64::MAX, &mut |entry, mac| {
        bar.inc(1);
        recoveries.extend(recoveries_in(&entry));
        if !chain.check(&entry) {
            return true;
        }
        // A MAC vouches for the entries before it only as far as the chain holds.
        if let Some(macs) = macs.as_mut() {
            macs.check(entry.seq, &entry.hash, mac.as_ref());
        }
        if replay_failed.is_none() {
            match replayer.entry(&entry) {
                Err(e) => replay_failed = Some(replay_failure(e)),
                Ok(()) if targets.contains(&entry.seq) => match replayer.casino().checkpoint() {
                    Ok(c) => {
                        taken.insert(entry.seq, c.digest());
                    }
                    Err(e) => replay_failed = Some(replay_failure(e)),
                },
                Ok(()) => {}
            }
        }
        true
    });
    bar.finish_and_clear();
    let mut dictionary = None;
    let unreadable = match read {
        Ok(()) => None,
        Err(croupier_ledger::StorageError::Unreadable { seq, why }) if seq > 0 => {
            Some((seq, format!("it cannot be read: {why}")))
        }
        Err(e @ croupier_ledger::StorageError::Dictionary { seq, id, .. }) => {
            dictionary = Some(id);
            Some((seq, e.to_string()))
        }
        // A segment not where it is looked for: told in the report, as a break is.
        Err(e @ croupier_ledger::StorageError::SegmentMissing { first, .. }) => Some((first, e.to_string())),
        Err(e) => return Err(anyhow::anyhow!("{e}").into()),
    };
    let bindings = replayer.bindings().to_vec();
    let replayed = match replay_failed {
        Some(failed) => Err(failed),
        None => {
            let casino = replayer.finish();
            let rounds = casino.tables().map(|t| t.table.round()).sum();
            let books = casino.tournament_books();
            let recall = match archive {
                None => None,
                Some(archive) => {
                    // From a checkpoint, the rounds before it are not replayed.
                    if problem.is_none() && from.is_none() {
                        archive
                            .each(|archived| {
                                if problem.is_some() {
                                    return;
                                }
                                match archived {
                                    Ok(r) if !finished.contains(&(r.table.clone(), r.round)) => {
                                        problem = Some(format!(
                                            "recall archive: round {} is archived but the journal has not finished it",
                                            r.id
                                        ))
                                    }
                                    Ok(_) => {}
                                    Err(e) => problem = Some(e),
                                }
                            })
                            .map_err(|e| anyhow::anyhow!("{e}"))?;
                    }
                    Some(check)
                }
            };
            let problem = problem.or_else(|| tournament_problem(&books));
            Ok((rounds, recall, problem, books, casino.journal_format()))
        }
    };
    let through = chain.through();
    Ok(Pass {
        chain: ChainRead { through, macs },
        checked: chain.finish(),
        unreadable,
        dictionary,
        replayed,
        recoveries,
        taken,
        bindings,
    })
}

/// A replay's failure: the entry it failed at (0 where none), and why.
fn replay_failure(e: croupier_server::casino::OpenError) -> (u64, String) {
    match e {
        croupier_server::casino::OpenError::Replay { seq, .. } => (seq, e.to_string()),
        other => (0, other.to_string()),
    }
}

pub fn run(args: Args) -> Result<(), Failure> {
    let database = Database::of(&args.data, args.database.as_deref()).map_err(Invalid::one)?;
    if !database.is_postgres() {
        crate::journal_at(&args.data)?;
    }
    let mut storage = database.open_read_only().map_err(|e| anyhow::anyhow!("{e}"))?;
    crate::read_segments_from(&mut storage, &args.segments)?;
    // With the secret, the segments' catalogue is trusted only as it sealed it.
    let keys_dir = args.keys.clone().unwrap_or_else(|| default_dir(&args.data));
    let key = match croupier_server::runtime::keys::Keys::read(&keys_dir) {
        Ok(Some(keys)) => Some(keys.journal_key()),
        _ => None,
    };
    if let Some(key) = key {
        storage.seal_with(key);
    }
    // A node's data directory of another journal holds another casino's archive and checkpoints.
    let first = storage.hash_of(1).map_err(|e| anyhow::anyhow!("{e}"))?;
    if let Ok(noted) = std::fs::read_to_string(args.data.join(croupier_server::runtime::setup::JOURNAL_OF_FILE)) {
        if first.is_some_and(|f| hex::encode(f) != noted.trim()) {
            return Err(Invalid::one(format!(
                "{} serves another journal (whose first entry's hash is {}): its recall archive and checkpoints are \
                 not this journal's; give the data directory of a node of this casino",
                args.data.display(),
                noted.trim()
            ))
            .into());
        }
    }
    let archive = Archive::open_read_only(&args.data).map_err(|e| anyhow::anyhow!("{e}"))?;
    let store = croupier_server::runtime::checkpoints::Store::bound_by(&args.data, database.clone());
    let from = match args.from_checkpoint {
        true => {
            Some(crate::verify_checkpoints::newest_bound(&store, &mut storage).map_err(|e| anyhow::anyhow!("{e}"))?)
        }
        false => None,
    };
    let targets = crate::verify_checkpoints::targets(&store);
    let pass = one_pass(
        &mut storage,
        archive.as_ref(),
        from.as_ref().map(|(c, _)| c),
        &targets,
        key.as_ref(),
    )?;
    let seal = check_sealed(&mut storage, &keys_dir, args.head.as_deref(), &pass.chain)?;
    // The bindings as the replay met them: every one in the entries it read.
    let bound = crate::verify_checkpoints::by_through(&pass.bindings);
    let (checkpoints, checkpoint_problem) =
        crate::verify_checkpoints::check(&store, &bound, &pass.taken, from.as_ref().map(|(_, b)| b));
    // An entry that cannot be read at all: the entries before it are still checked.
    let mut checked = pass.checked;
    if checked.first_problem.is_none() {
        checked.first_problem = pass.unreadable;
    }
    // With the chain intact and every entry read, the replay of every request counts.
    let mut replayed = None;
    let mut journal_format = None;
    let mut recall = None;
    let mut tournaments = Vec::new();
    let mut replay_failed_at = None;
    if checked.first_problem.is_none() {
        match pass.replayed {
            Ok((rounds, check, problem, books, format)) => {
                replayed = Some(rounds);
                journal_format = Some(format);
                recall = check;
                tournaments = books;
                checked.first_problem = checkpoint_problem.or(problem).map(|p| (0, p));
            }
            Err((seq, e)) => {
                replay_failed_at = Some(seq);
                checked.first_problem = Some((0, e));
            }
        }
    }
    // The entry before the first one the chain, a read or the replay refused.
    let broken_at = replay_failed_at
        .or(checked.first_problem.as_ref().map(|(seq, _)| *seq))
        .filter(|seq| *seq > 0);
    let damaged_dictionary = pass.dictionary;
    // The entries before the break read, chain and replay; with the secret,
    // a recovery keeps only those it vouches for.
    let sound_through = broken_at
        .filter(|_| damaged_dictionary.is_none())
        .and_then(|seq| last_before(&mut storage, seq));
    // Entries the secret sealed and the database no longer holds were taken
    // out: no recovery is offered, a copy is put back.
    let last_good_entry = sound_through
        .filter(|_| seal.sealed_beyond.is_none())
        .map(|sound| seal.vouched_through.map_or(sound, |vouched| sound.min(vouched)))
        .filter(|good| *good > 0);
    let report = Report {
        entries: checked.entries,
        transfers: checked.transfers,
        events: checked.events,
        accounts: checked.balances.len(),
        total: checked.balances.values().sum(),
        ok: checked.first_problem.is_none() && seal.problem.is_none(),
        rounds_replayed: replayed,
        journal_format,
        journal_format_newest: croupier_server::casino::JOURNAL_FORMAT,
        records: storage.records_read(),
        checkpoints,
        recall,
        tournaments,
        problem: checked.first_problem.as_ref().map(|(seq, why)| {
            if *seq == 0 {
                why.clone()
            } else {
                format!("entry {seq}: {why}")
            }
        }),
        last_good_entry,
        segments_end: storage.segments_end().ok().flatten().map(|(end, _)| end),
        segments_read: storage
            .sqlite()
            .map(|s| s.segments_read().iter().map(|p| p.display().to_string()).collect())
            .unwrap_or_default(),
        damaged_dictionary,
        recoveries: pass.recoveries,
        seal,
        balances: checked.balances.iter().map(|(a, b)| (a.name(), *b)).collect(),
    };
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Json => wire::write_json_line(&mut out, &report)?,
        Format::Text => {
            writeln!(
                out,
                "{} entries ({} transfers, {} events) over {} accounts",
                report.entries, report.transfers, report.events, report.accounts
            )?;
            for (account, balance) in &report.balances {
                writeln!(out, "  {account:<32} {balance:>16}")?;
            }
            writeln!(out, "total: {} (must be 0)", report.total)?;
            if let Some(format) = report.journal_format {
                writeln!(
                    out,
                    "journal format {format} (this build writes {}; an admin's journal_format request moves a journal on)",
                    report.journal_format_newest
                )?;
            }
            let under: Vec<String> = report
                .records
                .compressed
                .iter()
                .map(|(id, n)| match id {
                    0 => format!("{n} with no dictionary"),
                    id => format!("{n} under dictionary {id}"),
                })
                .collect();
            writeln!(
                out,
                "records read: {} as text, {} compressed{}",
                report.records.text,
                report.records.compressed.values().sum::<u64>(),
                if under.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", under.join(", "))
                }
            )?;
            for id in &report.records.one_copy_left {
                writeln!(
                    out,
                    "WARNING: dictionary {id} was read from its one sound copy: the other is damaged or missing; \
                     put back the database from a copy before the second goes"
                )?;
            }
            let c = &report.checkpoints;
            match (c.from, c.from_bound_by) {
                (Some(from), Some(by)) => writeln!(
                    out,
                    "begun from the checkpoint after entry {from}, its SHA-256 and length as entry {by} binds them: \
                     the entries after it were checked and replayed, {} among them",
                    match c.bound {
                        1 => "1 binding of a checkpoint (its own)".to_string(),
                        n => format!("{n} bindings of checkpoints"),
                    }
                )?,
                _ => writeln!(
                    out,
                    "checkpoints: {} bound in the journal; of those still kept (the two newest), {} bind the state \
                     the replay reached, byte for byte",
                    c.bound, c.matching
                )?,
            }
            for u in &c.unusable {
                writeln!(out, "  checkpoint file a start passes over: {u}")?;
            }
            if let Some(r) = &report.recall {
                writeln!(
                    out,
                    "recall archive: {} rounds as the journal records them, {} not archived yet of the rounds \
                     whose table has opened its next round (a table's latest round is archived when the next one \
                     opens; until then recall serves it from the table)",
                    r.rounds_matching, r.rounds_not_archived
                )?;
            }
            for b in &report.tournaments {
                writeln!(
                    out,
                    "tournament {}: fees {} (held {}), buy-ins {} + house {} = prizes {} + pool {} (held {}), vouchers {} (held {}){}: {}",
                    b.tournament,
                    b.fees,
                    b.fees_account,
                    b.buy_ins,
                    b.house_added,
                    b.prizes_paid,
                    b.pool,
                    b.pool_account,
                    b.vouchers_held,
                    b.vouchers_account,
                    if b.concluded { ", concluded" } else { "" },
                    b.problem.as_deref().unwrap_or("reconciled")
                )?;
            }
            for r in &report.recoveries {
                writeln!(
                    out,
                    "RECOVERED at entry {}: kept 1 to {}, cut {} ({}); sealed before: {}; reason: {}; copy: {}",
                    r.entry,
                    r.kept_through,
                    r.cut,
                    r.damage,
                    if r.sealed.is_empty() {
                        "not by the secret"
                    } else {
                        &r.sealed
                    },
                    r.reason,
                    r.backup
                )?;
            }
            match (&report.seal.problem, report.seal.checked) {
                (Some(p), _) => writeln!(out, "JOURNAL NOT AS SEALED: {p}")?,
                (None, true) => writeln!(
                    out,
                    "seal: the journal is as the secret in {} sealed it, {}",
                    report.seal.keys,
                    match report.seal.macs_from {
                        Some(1) => "each entry's MAC with it".to_string(),
                        Some(first) => format!(
                            "each entry's MAC from entry {first} on (the entries before it were written before \
                             entries carried MACs, and are vouched for through the chain)"
                        ),
                        None => "its head alone: no entry read carries a MAC (written before entries carried MACs)"
                            .to_string(),
                    }
                )?,
                (None, false) => writeln!(
                    out,
                    "seal: NOT CHECKED (no secret in {}; give --keys): a journal chained again by hand would pass",
                    report.seal.keys
                )?,
            }
            match &report.problem {
                None if report.seal.problem.is_some() => writeln!(
                    out,
                    "the chain is intact and every balance recomputes, but the journal is not as the secret sealed it: NOT VERIFIED"
                )?,
                None => writeln!(
                    out,
                    "journal verified: the chain is intact and every balance recomputes"
                )?,
                Some(p) if p.starts_with(RECALL) => writeln!(out, "RECALL ARCHIVE DOES NOT MATCH THE JOURNAL: {p}")?,
                Some(p) if p.contains("lie in the segment") => writeln!(out, "JOURNAL NOT READ WHOLE: {p}")?,
                Some(p) => writeln!(out, "JOURNAL BROKEN at {p}")?,
            }
            if !report.segments_read.is_empty() {
                writeln!(out, "read the segments {}", report.segments_read.join(", "))?;
            }
            let in_segments = broken_at.zip(report.segments_end).filter(|(at, end)| at <= end);
            match (report.last_good_entry, broken_at) {
                _ if report.damaged_dictionary.is_some() => writeln!(
                    out,
                    "put back the database from a copy: `croupier recover` cuts nothing for a damaged dictionary"
                )?,
                _ if report.problem.as_deref().is_some_and(|p| p.contains("which the journal lacks")) => writeln!(
                    out,
                    "entries are missing, not damaged (a segment taken out of the catalogue, or rows lost): put back the database and its segments from a backup; `croupier recover` cuts only a damaged end"
                )?,
                _ if in_segments.is_some() => writeln!(
                    out,
                    "the break lies in the segments (entries 1 to {}, gaming days moved out of the live database): put back that day's segment file from the archive or a backup, or remove a stray file of its name; `croupier recover` cuts only entries after the segments",
                    report.segments_end.unwrap_or(0)
                )?,
                (Some(good), _) if sound_through.is_some_and(|sound| sound > good) => writeln!(
                    out,
                    "entries 1 to {good} are sound and the secret vouches for them; entries {} to {} read and chain, \
                     but the secret does not vouch for them ({}): a copy of the database from before may hold them as \
                     they were written. {}",
                    good + 1,
                    sound_through.unwrap_or(good),
                    unvouched_why(&report.seal),
                    if database.is_postgres() {
                        "On PostgreSQL, put back the database from its backups (docs/commands.md: Several nodes on PostgreSQL)"
                            .to_string()
                    } else {
                        format!(
                            "With the server stopped, `croupier recover --data {} --keep {good} --reason ...` cuts the rest off \
                             (docs/security.md: Recovering a damaged journal)",
                            args.data.display()
                        )
                    }
                )?,
                (Some(good), _) if database.is_postgres() => writeln!(
                    out,
                    "entries 1 to {good} are sound; on PostgreSQL, put back the database from its backups (docs/commands.md: Several nodes on PostgreSQL)"
                )?,
                (Some(good), _) => writeln!(
                    out,
                    "entries 1 to {good} are sound; with the server stopped, `croupier recover --data {} --keep {good} --reason ...` cuts the rest off (docs/security.md: Recovering a damaged journal)",
                    args.data.display()
                )?,
                (None, Some(_)) if sound_through.is_some() => writeln!(
                    out,
                    "entries 1 to {} read and chain, but the secret vouches for none of them ({}): recovery cannot \
                     help; put back a copy of the database",
                    sound_through.unwrap_or(0),
                    unvouched_why(&report.seal)
                )?,
                (None, Some(_)) => writeln!(
                    out,
                    "no entry before the break is sound: recovery cannot help; put back a copy of the database"
                )?,
                (None, None) => {}
            }
        }
    }
    if let Some(p) = report.seal.problem {
        return Err(anyhow::anyhow!("the journal is not as it was sealed: {p}").into());
    }
    match report.problem {
        None => Ok(()),
        Some(p) if p.starts_with(RECALL) => Err(anyhow::anyhow!("the recall archive does not verify: {p}").into()),
        Some(p) => Err(anyhow::anyhow!("the journal does not verify: {p}").into()),
    }
}
