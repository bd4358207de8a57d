//! `croupier recover --data DIR --keep N --reason TEXT`: with the server
//! stopped, cut a damaged end off the journal, which otherwise keeps the
//! casino from opening. Only a journal that breaks (an entry that does not
//! read, chain or replay) is recovered, and only back to the last entry
//! before the break, which N must name: no sound entry is cut. N must be an
//! entry the secret vouches for (its MAC holds, or the seal or the head kept
//! beside the secret is at it, [`croupier_ledger::macs`]): a forgery chained
//! up to a break made on purpose is never sealed. Where the secret vouches
//! only for an earlier entry, N must name that one, and the entries it does
//! not vouch for go with the damaged end. A journal that reads, chains and
//! replays but is not what the secret sealed was rewritten, cut or put
//! back, and is not sealed again. A complete copy of
//! the database is made first, in a folder of its own beside it; then, in
//! one transaction, the entries after N go and the journal is sealed at N
//! under the secret. The recall archive, derived from the journal, moves
//! into the copy's folder and is written again at the next start. The cut
//! is journaled (`journal_recovered`: the entries kept, how many went, the
//! last one's hash, the damage, what the secret had sealed, the copy, the
//! reason), and `croupier verify` lists every recovery.

use std::path::{Path, PathBuf};

use croupier_ledger::storage::DATABASE_FILE;
use croupier_ledger::{Opened, SqliteStorage};
use croupier_server::casino::{Request, RECOVERY_REASON_MAX};
use croupier_server::runtime::archive::ARCHIVE_FILE;
use croupier_server::runtime::keys::{default_dir, write_head, Keys};
use croupier_server::runtime::setup::lock_data;

use crate::verify_cmd::{last_before, one_pass, Break, Pass};
use crate::verify_seal::{check_sealed, unvouched_why};
use crate::{Failure, Invalid};

#[derive(clap::Args)]
pub struct Args {
    /// The stopped server's data directory.
    #[arg(long)]
    data: PathBuf,
    /// The folder of the secret the journal is sealed with (by default DATA-keys).
    #[arg(long)]
    keys: Option<PathBuf>,
    /// The last entry to keep: `croupier verify` names it (last good entry).
    #[arg(long)]
    keep: u64,
    /// Why, for the journal: what was damaged, who decided, the incident's reference.
    #[arg(long)]
    reason: String,
    /// A folder the journal's segments were archived to: the whole journal is read to find where it breaks.
    #[arg(long, value_name = "DIR")]
    segments: Vec<PathBuf>,
}

fn failed(e: impl std::fmt::Display) -> Failure {
    anyhow::anyhow!("{e}").into()
}

/// Where the journal first breaks, reading, chaining or replaying, as `pass`
/// found: the entry and why; `None` where it reads, chains and replays whole.
fn first_break(pass: &Pass) -> Result<Option<Break>, Failure> {
    if let (Some(_), Some((_, why))) = (pass.dictionary, &pass.unreadable) {
        return Err(Invalid::one(format!("{why}: recovery cuts nothing for it")).into());
    }
    let chain = pass.checked.first_problem.clone().or(pass.unreadable.clone());
    // The replay stops where the chain breaks; where it fails first, it is the break.
    Ok(match &pass.replayed {
        Err((seq, why)) if chain.as_ref().is_none_or(|(at, _)| seq < at) => Some((*seq, why.clone())),
        _ => chain,
    })
}

/// Moves the recall archive's files into `folder`, if there are any.
fn move_archive(data: &Path, folder: &Path) -> Result<bool, Failure> {
    let mut moved = false;
    for suffix in ["", "-wal", "-shm"] {
        let name = format!("{ARCHIVE_FILE}{suffix}");
        let from = data.join(&name);
        if from.exists() {
            std::fs::rename(&from, folder.join(&name))
                .map_err(|e| failed(format!("cannot move {} aside: {e}", from.display())))?;
            moved = true;
        }
    }
    Ok(moved)
}

pub fn run(args: Args) -> Result<(), Failure> {
    let Args {
        data,
        keys,
        keep,
        reason,
        segments,
    } = args;
    crate::journal_at(&data)?;
    if reason.trim().is_empty() || reason.len() > RECOVERY_REASON_MAX {
        return Err(Invalid::one(format!(
            "--reason says why the journal is cut, in 1 to {RECOVERY_REASON_MAX} bytes"
        ))
        .into());
    }
    if keep == 0 {
        return Err(Invalid::one(
            "--keep 0 would cut the whole journal, users and money with it: keep at least the first entry",
        )
        .into());
    }
    let _lock = lock_data(&data).map_err(Invalid::one)?;
    let keys_dir = keys.unwrap_or_else(|| default_dir(&data));
    let keys = Keys::read(&keys_dir).map_err(Invalid::one)?.ok_or_else(|| {
        Invalid::one(format!(
            "no secret in {}: the journal is sealed again with it; give --keys",
            keys_dir.display()
        ))
    })?;
    // Recovery cuts a journal in SQLite (one node's data directory); on
    // PostgreSQL it is the database's administrator's, from its own backups.
    let mut journal = Opened::Sqlite(SqliteStorage::open(&data).map_err(failed)?);
    crate::read_segments_from(&mut journal, &segments)?;
    // The segments' catalogue is trusted only as the secret sealed it.
    journal.seal_with(keys.journal_key());
    let Some(storage) = journal.sqlite() else {
        return Err(failed("not a journal in SQLite"));
    };
    // The last entry as stored, read whatever else is wrong with it.
    let Some((last_seq, last_hash)) = storage.last_as_stored().map_err(failed)? else {
        return Err(Invalid::one("the journal has no entries: there is nothing to recover").into());
    };
    if keep > last_seq {
        return Err(Invalid::one(format!(
            "the journal ends at entry {last_seq}: --keep {keep} is past its end"
        ))
        .into());
    }
    // One pass as verify's, in the memory of the state: a journal of any
    // length, each entry's MAC checked under the secret as the chain takes it.
    let pass = one_pass(
        &mut journal,
        None,
        None,
        &std::collections::BTreeSet::new(),
        Some(&keys.journal_key()),
    )?;
    let broken = first_break(&pass)?;
    let seal_check = check_sealed(&mut journal, &keys_dir, None, &pass.chain)?;
    // The secret sealed entries the database no longer holds: they were taken
    // out, and a damaged entry left before them would have a recovery erase
    // them for good (the copy lacks them too).
    if let Some((end, sealed)) = seal_check.sealed_beyond {
        return Err(Invalid::one(format!(
            "the secret sealed the journal at entry {sealed}, but the database ends at entry {end}: entries {} to \
             {sealed} were taken out of it, not damaged (a seal is written with its entries). Recovery cuts only a \
             damaged end and does not seal a journal whose end was removed; put back the database from a copy",
            end + 1
        ))
        .into());
    }
    let Some((broken_at, why)) = broken else {
        // Reads, chains and replays: there is no damaged end to cut. A seal
        // that does not match means rewritten, cut or put back, not damaged.
        return Err(Invalid::one(match seal_check.problem {
            Some(p) => format!(
                "the journal reads, chains and replays, but is not what the secret sealed ({p}): it was rewritten, \
                 cut off or put back. Recovery cuts only a damaged end and does not seal such a journal again; \
                 put back the database the seal was made on"
            ),
            None => {
                "the journal verifies as it stands: recovery cuts off only a damaged end, and nothing here is damaged"
                    .into()
            }
        })
        .into());
    };
    let mut damage = if broken_at == 0 {
        why
    } else {
        format!("entry {broken_at}: {why}")
    };
    let Some(last_good) = last_before(&mut journal, broken_at.max(1)) else {
        return Err(Invalid::one(format!(
            "the journal breaks at its first entry ({damage}): nothing before the break is sound; put back a copy"
        ))
        .into());
    };
    // A segment is a gaming day sealed and archived: it is put back, never cut.
    if let Some((end, _)) = journal.segments_end().map_err(failed)? {
        if last_good < end {
            return Err(Invalid::one(format!(
                "the journal breaks at {damage}, inside its segments (which hold entries 1 to {end}): a recovery \
                 cuts only entries after them; put back that segment's file from the archive or a backup"
            ))
            .into());
        }
    }
    // A damaged end is rows that are there; entries that are nowhere (a
    // segment taken out of the catalogue, rows lost) are put back, not cut.
    let Some(storage) = journal.sqlite() else {
        return Err(failed("not a journal in SQLite"));
    };
    if !storage.live_holds(last_good + 1).map_err(failed)? {
        return Err(Invalid::one(format!(
            "the journal breaks at {damage}: entry {} is not in the database at all, so entries are missing, not \
             damaged (a segment taken out of the catalogue, or rows lost): a recovery cuts only a damaged end; put \
             back the database and its segments from a backup",
            last_good + 1
        ))
        .into());
    }
    // Only an entry the secret vouches for is sealed again: the entries up to
    // the break may be a forgery chained up to a break made on purpose.
    let vouched = seal_check.vouched_through.unwrap_or(0);
    let target = last_good.min(vouched);
    let last_sound = if target < last_good {
        format!("the last sound entry the secret vouches for is {target}")
    } else {
        format!("the last sound entry is {target}")
    };
    if keep > last_good {
        return Err(Invalid::one(format!(
            "the journal breaks at {damage}; {last_sound}, and --keep names it, not {keep}: recovery cuts no sound entry"
        ))
        .into());
    }
    if keep > vouched {
        return Err(Invalid::one(format!(
            "the journal breaks at {damage}, and entry {keep} reads and chains, but the secret does not vouch for it: \
             {}. {}",
            unvouched_why(&seal_check),
            match vouched {
                0 => "The secret vouches for no entry before the break: recovery seals nothing it did not write; \
                      put back a copy of the database"
                    .to_string(),
                v => format!(
                    "The newest entry the secret vouches for is {v}: --keep {v} cuts every entry after it (the copy \
                     keeps them); or put back a copy of the database from before"
                ),
            }
        ))
        .into());
    }
    if keep != target {
        return Err(Invalid::one(format!(
            "the journal breaks at {damage}; {last_sound}, and --keep names it, not {keep}: recovery cuts no sound entry"
        ))
        .into());
    }
    if keep < last_good {
        // What goes beyond the break, and why: the secret does not vouch for it.
        damage = format!(
            "entries {} to {last_good} are not the secret's ({}); {damage}",
            keep + 1,
            unvouched_why(&seal_check)
        );
        if let Some((end, _)) = journal.segments_end().map_err(failed)? {
            if keep < end {
                return Err(Invalid::one(format!(
                    "the secret vouches for entries up to {keep} alone, inside the journal's segments (which hold \
                     entries 1 to {end}): a recovery cuts only entries after them; put back a copy of the database \
                     and its segments"
                ))
                .into());
            }
        }
    }
    let Some(storage) = journal.sqlite() else {
        return Err(failed("not a journal in SQLite"));
    };
    // What the secret vouched for: where the seal was, and its hash.
    let sealed = storage
        .seal()
        .map_err(failed)?
        .filter(|seal| seal.made_with(&keys.journal_key()))
        .map_or_else(String::new, |seal| {
            format!("entry {}, hash {}", seal.seq, hex::encode(seal.hash))
        });

    // A complete copy first: the entries cut are kept there, for the dispute
    // and the regulator's report that follow.
    let at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(failed)?
        .as_millis();
    let folder_name = format!("recovered-{at}");
    let folder = data.join(&folder_name);
    std::fs::create_dir(&folder).map_err(|e| failed(format!("cannot create {}: {e}", folder.display())))?;
    storage.copy_into(&folder.join(DATABASE_FILE)).map_err(failed)?;
    let archive_moved = move_archive(&data, &folder)?;
    // Checkpoints of states the cut takes away go with the copy.
    let checkpoints_moved = croupier_server::runtime::checkpoints::Store::of(&data)
        .move_after(
            keep,
            &folder.join(croupier_server::runtime::checkpoints::CHECKPOINTS_DIR),
        )
        .map_err(failed)?;
    let cut = storage.cut_after(keep, &keys.journal_key()).map_err(failed)?;
    let seal = storage
        .seal()
        .map_err(failed)?
        .ok_or_else(|| failed("the journal has no seal after the cut"))?;
    write_head(&keys.head_path(), &seal).map_err(failed)?;
    drop(journal);
    crate::user_cmd::offline_locked(
        &data,
        Some(&keys_dir),
        Request::RecoverJournal {
            kept_through: keep,
            cut,
            cut_head: if cut > 0 {
                last_hash.chars().take(64).collect()
            } else {
                String::new()
            },
            backup: folder_name,
            reason: reason.clone(),
            damage: damage.chars().take(RECOVERY_REASON_MAX / 4).collect(),
            sealed,
        },
    )?;
    println!("croupier: the journal in {} was damaged: {damage}", data.display());
    println!(
        "croupier: kept entries 1 to {keep}; cut {cut} after them; the database as it was is copied to {}",
        folder.display()
    );
    if archive_moved {
        println!("croupier: the recall archive moved there too; the next start writes it again from the journal");
    }
    if checkpoints_moved > 0 {
        println!("croupier: {checkpoints_moved} checkpoints of the state after entry {keep} moved there too");
    }
    println!(
        "croupier: the cut is journaled with its reason; bets and money in the entries cut are not in the journal: settle them from the copy"
    );
    Ok(())
}
