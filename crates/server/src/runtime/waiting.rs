//! A node that waits for the casino's lease (its journal on PostgreSQL,
//! held by another node) checks, while it waits, that it could take the
//! casino over: that the secret it was given seals the journal, that the
//! head kept beside the secret is not ahead of the journal, and that its
//! data directory serves this journal. What would refuse the takeover ends
//! the wait at once, saying so: a standby that could never take over must
//! not look like one that can. While it waits it keeps the head beside its
//! secret current, so that a journal put back later (a restore) is caught
//! by this node too, not only by the one that wrote last.

use std::path::Path;

use croupier_ledger::{check_head, check_seal, Database, Opened};

use super::journal_checks::{check_data_serves, distrusted};
use super::keys::{read_head, write_head, Keys};

/// How often the checks run while waiting.
pub const CHECKED_EVERY_MS: u64 = 1_000;

pub struct Waiting<'a> {
    database: &'a Database,
    data: &'a Path,
    keys_dir: &'a Path,
    reader: Option<Opened>,
    told: bool,
    /// A read that failed is told once, until one succeeds.
    failing: bool,
    checked: Option<std::time::Instant>,
}

impl<'a> Waiting<'a> {
    pub fn new(database: &'a Database, data: &'a Path, keys_dir: &'a Path) -> Waiting<'a> {
        Waiting {
            database,
            data,
            keys_dir,
            reader: None,
            told: false,
            failing: false,
            checked: None,
        }
    }

    /// Asked at each try for the lease: says once that this node waits, and
    /// runs the checks about once a second. Its error ends the wait.
    pub fn check(&mut self) -> Result<(), String> {
        if !self.told {
            tracing::info!(
                "standby: another node holds the casino's lease in {}; this node takes the casino over when it lets go",
                self.database.shown()
            );
            self.told = true;
        }
        if self
            .checked
            .is_some_and(|at| at.elapsed().as_millis() < u128::from(CHECKED_EVERY_MS))
        {
            return Ok(());
        }
        self.checked = Some(std::time::Instant::now());
        match self.read() {
            Ok(()) => {
                self.failing = false;
                Ok(())
            }
            Err(Check::Refused(why)) => Err(why),
            Err(Check::Unread(why)) => {
                // The database may be down a moment: the wait goes on, and says so once.
                if !self.failing {
                    tracing::warn!("standby: cannot read the journal to check it ({why}); trying again");
                }
                self.failing = true;
                self.reader = None;
                Ok(())
            }
        }
    }

    fn read(&mut self) -> Result<(), Check> {
        let unread = |e: &dyn std::fmt::Display| Check::Unread(e.to_string());
        if self.reader.is_none() {
            self.reader = Some(self.database.open_read_only().map_err(|e| unread(&e))?);
        }
        let Some(reader) = self.reader.as_mut() else {
            return Ok(());
        };
        let (seal, last) = reader.seal_and_last().map_err(|e| unread(&e))?;
        // Nothing sealed yet: a casino not made yet, nothing to hold this node to.
        let Some(seal) = seal else { return Ok(()) };
        let Some(keys) = Keys::read(self.keys_dir).map_err(Check::Refused)? else {
            return Err(Check::Refused(format!(
                "this node cannot take the casino over: the journal in {} is sealed, and there is no secret in {}: \
                 copy there the keys folder of the node that first served the casino (every node uses the same secret)",
                self.database.shown(),
                self.keys_dir.display()
            )));
        };
        let key = keys.journal_key();
        let refused = |e: &dyn std::fmt::Display| {
            Check::Refused(format!(
                "this node cannot take the casino over: {}",
                distrusted(self.database, self.data, self.keys_dir, e)
            ))
        };
        check_seal(Some(&seal), last, &key).map_err(|e| refused(&e))?;
        if let Some(head) = read_head(&keys.head_path()).map_err(Check::Refused)? {
            // An entry that could not be read this time is not an entry changed.
            let mut unreadable = None;
            let mut hash_of = |seq| match reader.hash_of(seq) {
                Ok(hash) => hash,
                Err(e) => {
                    unreadable = Some(e.to_string());
                    None
                }
            };
            let checked = check_head(&head, last.map(|(seq, _)| seq), &key, &mut hash_of);
            if let Some(why) = unreadable {
                return Err(Check::Unread(why));
            }
            checked.map_err(|e| refused(&e))?;
        }
        write_head(&keys.head_path(), &seal).map_err(Check::Refused)?;
        let first = reader.hash_of(1).map_err(|e| unread(&e))?;
        check_data_serves(self.data, self.database, first).map_err(Check::Refused)
    }
}

enum Check {
    /// Taking the casino over would be refused: the wait ends.
    Refused(String),
    /// The journal could not be read this time.
    Unread(String),
}
