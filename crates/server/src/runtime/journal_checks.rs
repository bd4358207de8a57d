//! The two refusals that opening a journal and waiting to take one over
//! share: a journal that is not as its secret sealed it, and a data
//! directory that serves another casino's journal. They are kept apart
//! from the opening ([`super::setup`]) so that the standby's wait
//! ([`super::waiting`]) checks the same things without going through it.

use std::path::Path;

use croupier_ledger::Database;

/// The refusal of a journal that is not as the secret sealed it, with the command that reports on it.
pub(crate) fn distrusted(database: &Database, data: &Path, keys_dir: &Path, e: &dyn std::fmt::Display) -> String {
    let on = match database {
        Database::Postgres(_) => format!(" --database {}", database.shown()),
        Database::Sqlite(_) => String::new(),
    };
    format!(
        "the journal in {} is not as it was written: {e} (croupier verify --data {} --keys {}{on} reports on it)",
        database.shown(),
        data.display(),
        keys_dir.display()
    )
}

/// The file of a data directory that names the journal it serves: the hash of its first entry.
pub const JOURNAL_OF_FILE: &str = "journal-of";

/// A data directory's recall archive, checkpoints and sessions are of one
/// journal: the one whose first entry's hash it noted when it first served
/// it (`first`: that hash, `None` while the journal is empty). A node's data
/// directory pointed at another casino's journal (another `--database`) is refused.
pub(crate) fn check_data_serves(data: &Path, database: &Database, first: Option<[u8; 32]>) -> Result<(), String> {
    let path = data.join(JOURNAL_OF_FILE);
    let noted = match std::fs::read_to_string(&path) {
        Ok(text) => Some(text.trim().to_string()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    match (noted, first.map(hex::encode)) {
        (Some(noted), Some(first)) if noted == first => Ok(()),
        (Some(noted), first) => Err(format!(
            "{} serves the journal whose first entry's hash is {noted}, and the journal in {} {}: a data \
             directory's recall archive, checkpoints and sessions are of one casino; give this journal a data directory of its own",
            data.display(),
            database.shown(),
            first.map_or_else(|| "is empty".to_string(), |f| format!("begins with {f}"))
        )),
        (None, Some(first)) => {
            std::fs::write(&path, format!("{first}\n")).map_err(|e| format!("cannot write {}: {e}", path.display()))
        }
        (None, None) => Ok(()),
    }
}
