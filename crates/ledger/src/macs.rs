//! Each entry's MAC under the secret: which entries the key holder wrote.
//!
//! The seal vouches for the journal's head alone. Someone with the data
//! directory but not the secret could rewrite an old entry and chain the
//! journal again up to the entry before the last: only the last entry's link
//! then breaks, as a disk fault at the end would break it, and cutting that
//! entry off would have sealed the forgery under the secret. So every entry
//! the key holder writes carries a MAC beside it: HMAC-SHA256, under a key
//! derived from the journal's, of the entry's number and hash. The hash covers
//! the hash before it, so a MAC that holds on entry n vouches for entries 1 to
//! n, as the chain runs; without the secret no one makes one, and one copied
//! from another entry names that entry's number and hash, not this one's.
//!
//! A MAC is kept to its first [`MAC_BYTES`] bytes, as RFC 4868 keeps
//! HMAC-SHA-256 for IPsec (128 bits): a guess holds once in 2^128, and every
//! byte is paid on each entry the journal keeps. Entries written before MACs
//! (a journal of an earlier layout) carry none; from the first entry that
//! carries one, every entry after it must.

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// How many bytes of the HMAC each entry keeps.
pub const MAC_BYTES: usize = 16;

/// An entry's MAC as stored beside it.
pub type EntryMac = [u8; MAC_BYTES];

/// The key entries' MACs are made under, derived from the journal's key:
/// the seal, the segments' catalogue and the entries each MAC under their own
/// words, and the entries under a key of their own besides.
#[derive(Clone)]
pub struct EntryKey {
    /// HMAC already keyed: each MAC starts from a copy of it.
    keyed: Hmac<Sha256>,
}

impl std::fmt::Debug for EntryKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EntryKey(..)")
    }
}

/// HMAC-SHA256 under `key`: HMAC takes a key of any length, so this never fails.
fn keyed(key: &[u8]) -> Hmac<Sha256> {
    let Ok(mac) = Hmac::<Sha256>::new_from_slice(key) else {
        unreachable!("HMAC takes any key length");
    };
    mac
}

impl EntryKey {
    /// The entries' key of the journal whose key is `journal_key`.
    pub fn of(journal_key: &[u8; 32]) -> EntryKey {
        let mut derive = keyed(journal_key);
        derive.update(b"croupier journal entry MAC key");
        let key: [u8; 32] = derive.finalize().into_bytes().into();
        EntryKey { keyed: keyed(&key) }
    }

    fn started(&self, seq: u64, hash: &[u8; 32]) -> Hmac<Sha256> {
        let mut mac = self.keyed.clone();
        // Fixed widths: the number as 8 bytes, then the hash.
        mac.update(&seq.to_be_bytes());
        mac.update(hash);
        mac
    }

    /// The MAC of entry `seq`, whose hash is `hash`.
    pub fn mac(&self, seq: u64, hash: &[u8; 32]) -> EntryMac {
        let whole = self.started(seq, hash).finalize().into_bytes();
        let mut kept = [0; MAC_BYTES];
        kept.copy_from_slice(&whole[..MAC_BYTES]);
        kept
    }

    /// Whether `mac` is entry `seq`'s under this key (compared in constant time).
    pub fn vouches(&self, seq: u64, hash: &[u8; 32], mac: &EntryMac) -> bool {
        self.started(seq, hash).verify_truncated_left(mac).is_ok()
    }
}

/// What is wrong with the entries' MACs.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MacProblem {
    #[error("entry {seq}'s MAC under the secret does not match it: entry {seq}, or one before it, was rewritten without the secret")]
    NotOurs { seq: u64 },
    #[error("entry {seq} carries no MAC under the secret, where every entry from {first} on does: it was added without the secret, or its MAC removed")]
    Missing { seq: u64, first: u64 },
}

/// The MACs of a journal's entries, checked as it is walked in order. Only
/// an entry whose place in the chain was checked is given: a MAC vouches for
/// the entries before it only as far as the chain holds.
#[derive(Debug)]
pub struct MacCheck {
    key: EntryKey,
    /// The first entry given that carries a MAC.
    first: Option<u64>,
    /// The newest entry whose MAC holds (0: none).
    vouched: u64,
    problem: Option<MacProblem>,
}

impl MacCheck {
    pub fn new(journal_key: &[u8; 32]) -> MacCheck {
        MacCheck {
            key: EntryKey::of(journal_key),
            first: None,
            vouched: 0,
            problem: None,
        }
    }

    /// Checks the next entry's MAC. The first problem is kept; what the
    /// MACs after it vouch for is still noted.
    pub fn check(&mut self, seq: u64, hash: &[u8; 32], mac: Option<&EntryMac>) {
        match (mac, self.first) {
            (Some(mac), _) => {
                self.first.get_or_insert(seq);
                if self.key.vouches(seq, hash, mac) {
                    self.vouched = seq;
                } else {
                    self.problem.get_or_insert(MacProblem::NotOurs { seq });
                }
            }
            (None, Some(first)) => {
                self.problem.get_or_insert(MacProblem::Missing { seq, first });
            }
            (None, None) => {}
        }
    }

    /// The newest entry whose MAC holds: with the chain, it vouches for every
    /// entry up to it (0: none).
    pub fn vouched(&self) -> u64 {
        self.vouched
    }

    /// The first entry checked that carries a MAC.
    pub fn first(&self) -> Option<u64> {
        self.first
    }

    /// The first MAC that does not hold, or is missing.
    pub fn problem(&self) -> Option<&MacProblem> {
        self.problem.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: [u8; 32] = [7; 32];

    #[test]
    fn an_entrys_mac_holds_for_its_number_and_hash_under_its_key_alone() {
        let key = EntryKey::of(&KEY);
        let mac = key.mac(5, &[1; 32]);
        assert!(key.vouches(5, &[1; 32], &mac));
        assert!(!key.vouches(6, &[1; 32], &mac), "another number");
        assert!(!key.vouches(5, &[2; 32], &mac), "another hash");
        assert!(!EntryKey::of(&[8; 32]).vouches(5, &[1; 32], &mac), "another key");
        // Not the seal's MAC of the same head: each is made under its own key.
        let seal = crate::Seal::new(&KEY, 5, [1; 32]);
        assert_ne!(&seal.mac[..MAC_BYTES], &mac[..]);
    }

    #[test]
    fn the_check_names_the_first_mac_that_fails_or_is_missing_and_what_the_rest_vouch_for() {
        let key = EntryKey::of(&KEY);
        let hash = |seq: u64| [seq as u8; 32];
        let walk = |macs: &[Option<EntryMac>]| {
            let mut check = MacCheck::new(&KEY);
            for (i, mac) in macs.iter().enumerate() {
                let seq = i as u64 + 1;
                check.check(seq, &hash(seq), mac.as_ref());
            }
            (check.vouched(), check.problem().cloned(), check.first())
        };
        let good = |seq: u64| Some(key.mac(seq, &hash(seq)));
        // Entries before MACs, then every one with its MAC.
        assert_eq!(walk(&[None, None, good(3), good(4)]), (4, None, Some(3)));
        // A forged entry's MAC fails, and so does every one chained after it.
        let forged = Some(key.mac(2, &[9; 32]));
        assert_eq!(
            walk(&[good(1), forged, Some([0; MAC_BYTES]), good(4)]),
            (4, Some(MacProblem::NotOurs { seq: 2 }), Some(1))
        );
        assert_eq!(
            walk(&[good(1), good(2), None, None]),
            (2, Some(MacProblem::Missing { seq: 3, first: 1 }), Some(1))
        );
        assert_eq!(walk(&[None, None]), (0, None, None));
    }
}
