//! The ids of every transfer ever made, for telling a resend from a conflict.
//!
//! Each transfer is kept as two 128-bit digests, of its id and of its whole
//! content. The index is split into `SHARDS` hash tables by a keyed hash of
//! the id's digest. A lookup touches one table and, most often, one slot,
//! where a B-tree of millions of ids touched a node on each of several levels,
//! each a cache miss. A table that fills up moves only its own entries, a
//! `SHARDS`-th of the whole, so the writer is never stopped to move them all.
//! The hash (foldhash) is keyed afresh for each index (`RandomState`), so ids chosen
//! to collide cannot pile up in one place.

use std::hash::BuildHasher;

use foldhash::fast::RandomState;

use hashbrown::hash_table::Entry;
use hashbrown::HashTable;

/// How many tables the index is split into.
const SHARD_BITS: u32 = 12;
const SHARDS: usize = 1 << SHARD_BITS;

/// A transfer's id digest and its content digest.
pub type Digests = ([u8; 16], [u8; 16]);

pub struct TransferIds {
    keys: RandomState,
    shards: Vec<HashTable<Digests>>,
}

impl Default for TransferIds {
    fn default() -> TransferIds {
        TransferIds {
            keys: RandomState::default(),
            shards: std::iter::repeat_with(HashTable::new).take(SHARDS).collect(),
        }
    }
}

impl TransferIds {
    /// The shard and the hash a table places the id by. A table uses the
    /// hash's low bits for the slot and its top 7 bits as a tag, so the shard
    /// is chosen by bits from the middle, which neither uses.
    fn place(&self, id: &[u8; 16]) -> (usize, u64) {
        let hash = self.keys.hash_one(id);
        (((hash >> 32) as usize) & (SHARDS - 1), hash)
    }

    /// The content digest of the transfer whose id has this digest.
    pub fn get(&self, id: &[u8; 16]) -> Option<&[u8; 16]> {
        let (shard, hash) = self.place(id);
        self.shards[shard]
            .find(hash, |(k, _)| k == id)
            .map(|(_, content)| content)
    }

    pub fn contains(&self, id: &[u8; 16]) -> bool {
        self.get(id).is_some()
    }

    /// Records a transfer; an id recorded before takes the new content. One
    /// probe finds the id's slot or the free one it goes in.
    pub fn insert(&mut self, id: [u8; 16], content: [u8; 16]) {
        let (shard, hash) = self.place(&id);
        let keys = &self.keys;
        match self.shards[shard].entry(hash, |(k, _)| *k == id, |(k, _)| keys.hash_one(k)) {
            Entry::Occupied(mut recorded) => recorded.get_mut().1 = content,
            Entry::Vacant(free) => {
                free.insert((id, content));
            }
        }
    }

    /// Every transfer's digests, in order of their id's digest: the same
    /// ids give the same list, whatever the order they came in.
    pub fn sorted(&self) -> Vec<Digests> {
        let mut all: Vec<Digests> = self.shards.iter().flat_map(|s| s.iter().copied()).collect();
        all.sort_unstable();
        all
    }

    /// How many transfers are recorded.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.shards.iter().map(HashTable::len).sum()
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Extend<Digests> for TransferIds {
    fn extend<I: IntoIterator<Item = Digests>>(&mut self, digests: I) {
        for (id, content) in digests {
            self.insert(id, content);
        }
    }
}

impl FromIterator<Digests> for TransferIds {
    fn from_iter<I: IntoIterator<Item = Digests>>(digests: I) -> TransferIds {
        let mut ids = TransferIds::default();
        ids.extend(digests);
        ids
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    fn digest(n: u64) -> [u8; 16] {
        let mut d = [0u8; 16];
        d[..8].copy_from_slice(&n.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes());
        d[8..].copy_from_slice(&n.to_le_bytes());
        d
    }

    #[test]
    fn every_id_is_found_with_its_content_as_the_tables_grow() {
        let mut ids = TransferIds::default();
        for n in 0..200_000u64 {
            ids.insert(digest(n), digest(n + 1));
        }
        assert_eq!(ids.len(), 200_000);
        for n in 0..200_000u64 {
            assert_eq!(ids.get(&digest(n)), Some(&digest(n + 1)), "id {n}");
        }
        assert!(!ids.contains(&digest(200_000)));
        // Spread over the shards: none holds more than four times its share.
        let most = ids.shards.iter().map(HashTable::len).max().unwrap_or(0);
        assert!(most < 4 * 200_000 / SHARDS, "a shard holds {most}");
    }

    #[test]
    fn an_id_recorded_again_takes_the_new_content_and_is_counted_once() {
        let mut ids = TransferIds::default();
        assert!(ids.is_empty());
        ids.insert(digest(7), digest(1));
        ids.insert(digest(7), digest(2));
        assert_eq!(ids.len(), 1);
        assert_eq!(ids.get(&digest(7)), Some(&digest(2)));
    }

    proptest! {
        /// The index answers as the B-tree it replaced does, for any ids, repeated or not.
        #[test]
        fn it_answers_as_a_map_does(pairs in proptest::collection::vec((any::<[u8; 16]>(), any::<[u8; 16]>()), 0..300), probes in proptest::collection::vec(any::<[u8; 16]>(), 0..20)) {
            let ids: TransferIds = pairs.iter().copied().collect();
            let map: BTreeMap<[u8; 16], [u8; 16]> = pairs.iter().copied().collect();
            prop_assert_eq!(ids.len(), map.len());
            for (id, _) in &pairs {
                prop_assert_eq!(ids.get(id), map.get(id));
            }
            for id in &probes {
                prop_assert_eq!(ids.get(id), map.get(id));
            }
        }
    }
}
