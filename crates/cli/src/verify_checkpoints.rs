//! `croupier verify` and the casino's checkpoints: which the journal binds,
//! which a check can begin from (`--from-checkpoint`), and whether each bound
//! one is the state the journal's entries give (a replay from the first entry).

use std::collections::{BTreeMap, BTreeSet};

use croupier_ledger::Opened;
use croupier_server::casino::checkpoint::{digest_of, Binding, Checkpoint};
use croupier_server::runtime::checkpoints::Store;
use serde::Serialize;

/// The checkpoints the journal binds after entry `after`, by the entry each
/// state follows (the last binding where one was bound twice). A query of
/// its own, for `--from-checkpoint` to choose where to begin before the pass:
/// a checkpoint is always bound after the entry it follows, so the query
/// reads only the journal's end.
pub(crate) fn bound_after(storage: &mut Opened, after: u64) -> BTreeMap<u64, Binding> {
    let mut bound = BTreeMap::new();
    let _ = croupier_server::runtime::checkpoints::each_binding(storage, after, false, &mut |b| {
        bound.insert(b.through, b);
        true
    });
    bound
}

/// The bindings a replay found, by the entry each state follows.
pub(crate) fn by_through(bindings: &[Binding]) -> BTreeMap<u64, Binding> {
    bindings.iter().map(|b| (b.through, b.clone())).collect()
}

/// What verify found of the checkpoints.
#[derive(Serialize, Default)]
pub(crate) struct CheckpointCheck {
    /// The checkpoint the check began from (`--from-checkpoint`): the entries
    /// up to it were checked when it was bound, and are not read again.
    pub from: Option<u64>,
    /// The entry that binds it.
    pub from_bound_by: Option<u64>,
    /// The checkpoints the journal binds.
    pub bound: usize,
    /// Of those kept in the data directory, the ones whose binding is the
    /// state the replay reached, byte for byte (whether the file itself is
    /// sound is `unusable`'s to say).
    pub matching: usize,
    /// Checkpoint files a start cannot use, and why (a start passes over them).
    pub unusable: Vec<String>,
}

/// The newest checkpoint file the journal binds, as it binds it, with its
/// binding. As a start does (`Store::bound`), only files a binding names, of
/// the length it binds, are read: a file planted or stuffed is never read.
pub(crate) fn newest_bound(store: &Store, storage: &mut Opened) -> Result<(Checkpoint, Binding), String> {
    let listed = store.list();
    let oldest = listed.last().copied().unwrap_or(u64::MAX);
    let bound = bound_after(storage, oldest);
    let tried = store.bound(listed.len());
    let mut why = Vec::new();
    for through in &tried {
        match (store.read(*through), bound.get(through)) {
            (Err(e), _) => why.push(e),
            (Ok(_), None) => why.push(format!("the journal binds no checkpoint after entry {through}")),
            (Ok(c), Some(b)) if c.digest() != b.digest || c.bytes.len() as u64 != b.bytes => why.push(format!(
                "the checkpoint after entry {through} is not the one entry {} binds",
                b.entry
            )),
            (Ok(c), Some(b)) => return Ok((c, b.clone())),
        }
    }
    for through in listed.iter().filter(|t| !tried.contains(t)) {
        why.push(match bound.get(through) {
            Some(b) => format!(
                "the checkpoint after entry {through} is not the length entry {} binds ({} bytes)",
                b.entry, b.bytes
            ),
            None => format!("the journal binds no checkpoint after entry {through}"),
        });
    }
    if why.is_empty() {
        why.push("the data directory holds no checkpoint".into());
    }
    Err(format!("no checkpoint can be begun from: {}", why.join("; ")))
}

/// The checkpoints against the replay: `taken` holds the digest of the
/// replay's state after each entry in `bound` it passed. Gives the report and
/// the first problem: a bound checkpoint the entries before it do not give.
pub(crate) fn check(
    store: &Store,
    bound: &BTreeMap<u64, Binding>,
    taken: &BTreeMap<u64, String>,
    from: Option<&Binding>,
) -> (CheckpointCheck, Option<String>) {
    let from_bound_by = from.map(|b| b.entry);
    let from = from.map(|b| b.through);
    let mut report = CheckpointCheck {
        from,
        from_bound_by,
        bound: bound.len(),
        ..CheckpointCheck::default()
    };
    let mut problem = None;
    for (through, binding) in bound {
        match taken.get(through) {
            Some(d) if *d == binding.digest => report.matching += 1,
            Some(_) => {
                problem.get_or_insert(format!(
                    "entry {} binds a checkpoint after entry {through} that is not the state the entries up to it give",
                    binding.entry
                ));
            }
            None => {}
        }
    }
    // From a checkpoint, the entries before it (and older bindings) are not read.
    for through in store.list().into_iter().filter(|t| from.is_none_or(|f| *t >= f)) {
        let why = match (store.read(through), bound.get(&through)) {
            (Err(e), _) => Some(e),
            (Ok(_), None) => Some("the journal does not bind it".to_string()),
            (Ok(c), Some(b)) if digest_of(&c.bytes) != b.digest => {
                Some(format!("it is not the one entry {} binds", b.entry))
            }
            _ => None,
        };
        if let Some(why) = why {
            report
                .unusable
                .push(format!("the checkpoint after entry {through}: {why}"));
        }
    }
    (report, problem)
}

/// Where the pass takes the replay's state: after each entry a checkpoint
/// kept in the data directory follows. Those no longer kept are of no use to
/// a start, and each would cost a writing of the whole state.
pub(crate) fn targets(store: &Store) -> BTreeSet<u64> {
    store.list().into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binding(entry: u64, through: u64, digest: &str) -> Binding {
        Binding {
            entry,
            through,
            digest: digest.into(),
            bytes: 10,
        }
    }

    /// A bound checkpoint that is not the state the entries before it give
    /// is a journal that lies: verify fails, naming the entry that binds it.
    #[test]
    fn a_binding_of_another_state_than_the_replays_is_a_problem() {
        let store = Store::of(std::path::Path::new("/nonexistent/croupier-data"));
        let bound: BTreeMap<u64, Binding> = [(40, binding(51, 40, "aa")), (90, binding(101, 90, "bb"))].into();
        let taken: BTreeMap<u64, String> = [(40, "aa".to_string()), (90, "cc".to_string())].into();
        let (report, problem) = check(&store, &bound, &taken, None);
        assert_eq!((report.bound, report.matching), (2, 1));
        let problem = problem.expect("a problem");
        assert!(
            problem.contains("entry 101 binds a checkpoint after entry 90"),
            "{problem}"
        );
        let (_, none) = check(
            &store,
            &bound,
            &[(40, "aa".to_string())].into(),
            Some(&binding(51, 40, "aa")),
        );
        assert_eq!(none, None, "a binding the replay did not reach is not judged");
    }
}
