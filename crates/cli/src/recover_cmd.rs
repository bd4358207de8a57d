//! `croupier recover --data DIR --keep N --reason TEXT`: with the server
//! stopped, cut a damaged end off the journal, which otherwise keeps the
//! casino from opening. Only a journal that does not verify is recovered,
//! and only back to an entry up to which it reads, chains and replays. A
//! complete copy of the database is made first, in a folder of its own
//! beside it; then, in one transaction, the entries after N go and the
//! journal is sealed at N under the secret. The recall archive, derived
//! from the journal, moves into the copy's folder and is written again at
//! the next start. The cut itself is journaled (`journal_recovered`: the
//! entries kept, how many went, the last one's hash, the copy, the
//! reason), so whoever reads the journal later sees that it was cut.

use std::path::{Path, PathBuf};

use croupier_ledger::storage::DATABASE_FILE;
use croupier_ledger::{check_head, check_seal, SqliteStorage, Storage};
use croupier_server::casino::{Request, RECOVERY_REASON_MAX};
use croupier_server::runtime::archive::ARCHIVE_FILE;
use croupier_server::runtime::keys::{default_dir, read_head, write_head, Keys};
use croupier_server::runtime::setup::lock_data;

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
}

fn failed(e: impl std::fmt::Display) -> Failure {
    anyhow::anyhow!("{e}").into()
}

/// What is wrong with the journal as it stands, if anything: the reason a
/// recovery may cut it.
fn damage(storage: &mut SqliteStorage, keys: &Keys) -> Result<Option<String>, Failure> {
    let entries = match storage.load() {
        Ok(entries) => entries,
        Err(e) => return Ok(Some(e.to_string())),
    };
    if let Some((seq, why)) = croupier_ledger::verify(&entries).first_problem {
        return Ok(Some(format!("entry {seq}: {why}")));
    }
    if let Err(e) = croupier_server::casino::replay(&entries) {
        return Ok(Some(e.to_string()));
    }
    let key = keys.journal_key();
    let last = entries.last().map(|e| (e.seq, e.hash));
    let seal = storage.seal().map_err(failed)?;
    if let Err(e) = check_seal(seal.as_ref(), last, &key) {
        return Ok(Some(e.to_string()));
    }
    if let Some(head) = read_head(&keys.head_path()).map_err(Invalid::one)? {
        let hash_of = |seq: u64| entries.get(seq.wrapping_sub(1) as usize).map(|e| e.hash);
        if let Err(e) = check_head(&head, last.map(|(seq, _)| seq), &key, hash_of) {
            return Ok(Some(e.to_string()));
        }
    }
    Ok(None)
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
    } = args;
    if !data.join(DATABASE_FILE).is_file() {
        return Err(Invalid::one(format!("no journal at {}", data.join(DATABASE_FILE).display())).into());
    }
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
    let mut storage = SqliteStorage::open(&data).map_err(failed)?;
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
    let Some(damage) = damage(&mut storage, &keys)? else {
        return Err(Invalid::one(
            "the journal verifies as it stands: recovery cuts off only a damaged end, and nothing here is damaged",
        )
        .into());
    };
    // The entries kept must be sound by themselves.
    let kept = storage.load_through(keep).map_err(|e| {
        Invalid::one(format!(
            "the entries up to {keep} cannot all be read ({e}): keep fewer (croupier verify names the last good entry)"
        ))
    })?;
    if kept.len() as u64 != keep || kept.last().map(|e| e.seq) != Some(keep) {
        return Err(Invalid::one(format!("the entries up to {keep} are not all there: keep fewer")).into());
    }
    if let Some((seq, why)) = croupier_ledger::verify(&kept).first_problem {
        return Err(Invalid::one(format!(
            "entry {seq}, which would be kept, is broken ({why}): keep fewer (croupier verify names the last good entry)"
        ))
        .into());
    }
    if let Err(e) = croupier_server::casino::replay(&kept) {
        return Err(Invalid::one(format!(
            "the entries kept do not replay ({e}): keep fewer (croupier verify names the last good entry)"
        ))
        .into());
    }
    drop(kept);

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
    let cut = storage.cut_after(keep, &keys.journal_key()).map_err(failed)?;
    let seal = storage
        .seal()
        .map_err(failed)?
        .ok_or_else(|| failed("the journal has no seal after the cut"))?;
    write_head(&keys.head_path(), &seal).map_err(failed)?;
    drop(storage);
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
    println!(
        "croupier: the cut is journaled with its reason; bets and money in the entries cut are not in the journal: settle them from the copy"
    );
    Ok(())
}
