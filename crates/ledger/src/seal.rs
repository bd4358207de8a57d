//! The journal's seal: a keyed MAC of its head. The hash chain shows that no
//! entry changed since the one after it was written, but anyone who can
//! write the file can rewrite an entry and every hash after it, add an
//! entry, or cut the end off. The seal binds the chain to a secret kept
//! outside the data directory: HMAC-SHA256 under that secret of the last
//! entry's number and hash, written in the same transaction as the entries
//! (so a journal is never left sealed short of its end). Without the
//! secret no one can seal a changed chain; an entry added without it lies
//! past the seal, and a cut end leaves the seal past the journal.
//!
//! A copy of the seal kept outside the data directory too (the head file)
//! catches the one thing the seal in the database cannot: the whole
//! database put back as it was earlier.

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// A journal's head under the secret's MAC.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seal {
    /// The number of the last entry sealed.
    pub seq: u64,
    /// That entry's hash.
    pub hash: [u8; 32],
    pub mac: [u8; 32],
}

/// The MAC of a journal's head (`seq`, `hash`) under `key`, not yet finished.
fn head_mac(key: &[u8; 32], seq: u64, hash: &[u8; 32]) -> Hmac<Sha256> {
    // HMAC takes a key of any length: a 32-byte one never fails.
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(key) else {
        unreachable!("HMAC takes any key length");
    };
    mac.update(b"croupier journal seal\n");
    mac.update(seq.to_string().as_bytes());
    mac.update(b"\n");
    mac.update(hash);
    mac
}

impl Seal {
    /// The seal of the head `seq`, `hash` under `key`.
    pub fn new(key: &[u8; 32], seq: u64, hash: [u8; 32]) -> Seal {
        Seal {
            seq,
            hash,
            mac: head_mac(key, seq, &hash).finalize().into_bytes().into(),
        }
    }

    /// Whether `key` made this seal (compared in constant time).
    pub fn made_with(&self, key: &[u8; 32]) -> bool {
        head_mac(key, self.seq, &self.hash).verify_slice(&self.mac).is_ok()
    }
}

/// What is wrong with a journal's seal.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SealProblem {
    #[error("the journal has {entries} entries and no seal: it was written, or its seal removed, without the secret")]
    Missing { entries: u64 },
    #[error("the journal's seal was not made with this secret")]
    NotOurs,
    #[error("the journal ends at entry {last} but its seal is of entry {sealed}: entries were cut off its end")]
    Cut { last: u64, sealed: u64 },
    #[error(
        "entries {from} to {last} lie past the journal's seal (of entry {sealed}): they were added without the secret"
    )]
    Unsealed { from: u64, last: u64, sealed: u64 },
    #[error("entry {seq} is not the entry the seal was made on: the journal was rewritten")]
    Rewritten { seq: u64 },
    #[error("the head kept outside the data directory is of entry {head}, past the journal's end at entry {last}: the journal was put back as it was earlier, or cut. If it is a backup put back, entries {} to {head} are not in it: follow the backup procedure in docs/commands.md (print them from the old copy with croupier entries --from {}, then remove journal-head.json from the keys folder)", last + 1, last + 1)]
    BehindHead { head: u64, last: u64 },
    #[error("entry {seq} is not the entry the head kept outside the data directory names: the journal was rewritten")]
    NotTheHead { seq: u64 },
}

/// Checks `seal` against the journal whose last entry is `last` (its
/// number and hash), under `key`.
pub fn check_seal(seal: Option<&Seal>, last: Option<(u64, [u8; 32])>, key: &[u8; 32]) -> Result<(), SealProblem> {
    match (seal, last) {
        (None, None) => Ok(()),
        (None, Some((seq, _))) => Err(SealProblem::Missing { entries: seq }),
        (Some(seal), _) if !seal.made_with(key) => Err(SealProblem::NotOurs),
        (Some(seal), None) => Err(SealProblem::Cut {
            last: 0,
            sealed: seal.seq,
        }),
        (Some(seal), Some((seq, hash))) => {
            if seal.seq > seq {
                Err(SealProblem::Cut {
                    last: seq,
                    sealed: seal.seq,
                })
            } else if seal.seq < seq {
                Err(SealProblem::Unsealed {
                    from: seal.seq + 1,
                    last: seq,
                    sealed: seal.seq,
                })
            } else if seal.hash != hash {
                Err(SealProblem::Rewritten { seq })
            } else {
                Ok(())
            }
        }
    }
}

/// Checks a head kept outside the data directory (a seal copied there)
/// against the journal: it must be ours, and the journal must still hold
/// its entry as it was. `hash_of` gives an entry's hash by its number.
pub fn check_head(
    head: &Seal,
    last: Option<u64>,
    key: &[u8; 32],
    mut hash_of: impl FnMut(u64) -> Option<[u8; 32]>,
) -> Result<(), SealProblem> {
    if !head.made_with(key) {
        return Err(SealProblem::NotOurs);
    }
    let last = last.unwrap_or(0);
    if head.seq > last {
        return Err(SealProblem::BehindHead { head: head.seq, last });
    }
    if hash_of(head.seq) != Some(head.hash) {
        return Err(SealProblem::NotTheHead { seq: head.seq });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: [u8; 32] = [7; 32];

    #[test]
    fn a_seal_is_checked_against_the_journals_end() {
        let hash = [1; 32];
        let seal = Seal::new(&KEY, 5, hash);
        assert_eq!(check_seal(Some(&seal), Some((5, hash)), &KEY), Ok(()));
        assert_eq!(check_seal(None, None, &KEY), Ok(()));
        assert_eq!(
            check_seal(None, Some((5, hash)), &KEY),
            Err(SealProblem::Missing { entries: 5 })
        );
        assert_eq!(
            check_seal(Some(&seal), Some((5, hash)), &[8; 32]),
            Err(SealProblem::NotOurs)
        );
        assert_eq!(
            check_seal(Some(&seal), Some((4, hash)), &KEY),
            Err(SealProblem::Cut { last: 4, sealed: 5 })
        );
        assert_eq!(
            check_seal(Some(&seal), Some((7, hash)), &KEY),
            Err(SealProblem::Unsealed {
                from: 6,
                last: 7,
                sealed: 5
            })
        );
        assert_eq!(
            check_seal(Some(&seal), Some((5, [2; 32])), &KEY),
            Err(SealProblem::Rewritten { seq: 5 })
        );
        // A seal with its number changed is no longer the secret's.
        let moved = Seal { seq: 7, ..seal.clone() };
        assert_eq!(
            check_seal(Some(&moved), Some((7, hash)), &KEY),
            Err(SealProblem::NotOurs)
        );
    }

    #[test]
    fn a_head_kept_apart_catches_a_journal_put_back() {
        let head = Seal::new(&KEY, 9, [3; 32]);
        let hashes = |seq: u64| (seq <= 12).then_some(if seq == 9 { [3; 32] } else { [0; 32] });
        assert_eq!(check_head(&head, Some(12), &KEY, hashes), Ok(()));
        assert_eq!(
            check_head(&head, Some(8), &KEY, hashes),
            Err(SealProblem::BehindHead { head: 9, last: 8 })
        );
        assert_eq!(
            check_head(&head, Some(12), &KEY, |_| Some([0; 32])),
            Err(SealProblem::NotTheHead { seq: 9 })
        );
    }
}
