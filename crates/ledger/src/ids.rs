//! The ids of the transfers a resend may still name, for telling a resend
//! from a conflict.
//!
//! Each transfer is kept as two 128-bit digests, of its id and of its whole
//! content. The index is split into `SHARDS` hash tables by a keyed hash of
//! the id's digest. A lookup touches one table and, most often, one slot,
//! where a B-tree of millions of ids touched a node on each of several levels,
//! each a cache miss. A table that fills up moves only its own entries, a
//! `SHARDS`-th of the whole, so the writer is never stopped to move them all.
//! The hash (foldhash) is keyed afresh for each index (`RandomState`), so ids chosen
//! to collide cannot pile up in one place.
//!
//! **The window.** A table's bets make nearly every transfer, under ids of
//! its rounds: `{table}/{round}/...` ([`round_of`]). A table never makes a
//! transfer for a round before its newest, so those ids are kept only for a
//! table's [`ROUNDS_REMEMBERED`] newest rounds; an id of an older round is
//! *expired*, refused as such, never made again. What is kept of the ids no
//! longer grows with the history: it is the ids a client chooses (cash,
//! buy-ins, leaves, tips, tournaments, fills, disputes), a few in a hundred,
//! and the window. Both the ledger and a journal's check use this index, so
//! a replay and a check forget and refuse exactly as the writer did.

use std::collections::BTreeMap;
use std::hash::BuildHasher;

use foldhash::fast::RandomState;
use foldhash::{HashMap, HashMapExt};

use hashbrown::hash_table::Entry;
use hashbrown::HashTable;

/// How many tables the index is split into.
const SHARD_BITS: u32 = 12;
const SHARDS: usize = 1 << SHARD_BITS;

/// How many of a table's newest rounds keep their transfers' ids. A table
/// makes its transfers in the round in play; this many is room to spare.
pub const ROUNDS_REMEMBERED: u64 = 16;

/// The words that begin ids of their own kind (`buyin/ID`, `fill/T/N`,
/// `tourney/ID/N/...`), never a table's round: their ids are kept for good.
/// The casino names no table so (`tourney` excepted, which the ledger keeps
/// for good under any table of that name).
pub const KINDS: [&str; 8] = ["buyin", "sale", "leave", "tip", "cashin", "cashout", "fill", "tourney"];

/// A transfer's id digest and its content digest.
pub type Digests = ([u8; 16], [u8; 16]);

/// The table and round an id belongs to: `{table}/{round}/...`, the table not
/// one of [`KINDS`] and the round in plain decimal (no sign, no leading zero).
/// Any other id belongs to no round and is kept for good.
pub fn round_of(id: &str) -> Option<(&str, u64)> {
    let mut parts = id.splitn(3, '/');
    let (table, round, _rest) = (parts.next()?, parts.next()?, parts.next()?);
    if table.is_empty() || KINDS.contains(&table) {
        return None;
    }
    let plain =
        !round.is_empty() && round.bytes().all(|b| b.is_ascii_digit()) && (round == "0" || !round.starts_with('0'));
    if !plain {
        return None;
    }
    Some((table, round.parse().ok()?))
}

/// What the index knows of an id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    /// No transfer was made under it: it may be.
    New,
    /// A transfer was, with this content digest.
    Made([u8; 16]),
    /// It is of a round before `oldest`, the oldest its table remembers: it
    /// may never be made (again).
    Expired { oldest: u64 },
}

/// A table's remembered rounds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Window {
    /// Rounds before this one are expired.
    oldest: u64,
    /// Each remembered round's transfers' id digests.
    rounds: BTreeMap<u64, Vec<[u8; 16]>>,
}

/// A table's window as a checkpoint writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowState {
    pub table: String,
    pub oldest: u64,
    /// Each remembered round and its transfers' digests, in order.
    pub rounds: Vec<(u64, Vec<Digests>)>,
}

pub struct TransferIds {
    keys: RandomState,
    shards: Vec<HashTable<Digests>>,
    windows: HashMap<Box<str>, Window>,
    /// Tables whose newest round rose since [`TransferIds::close_batch`].
    risen: Vec<Box<str>>,
}

impl Default for TransferIds {
    fn default() -> TransferIds {
        TransferIds {
            keys: RandomState::default(),
            shards: std::iter::repeat_with(HashTable::new).take(SHARDS).collect(),
            windows: HashMap::new(),
            risen: Vec::new(),
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

    /// The content digest of the transfer whose id has this digest, if it is remembered.
    fn get(&self, id: &[u8; 16]) -> Option<&[u8; 16]> {
        let (shard, hash) = self.place(id);
        self.shards[shard]
            .find(hash, |(k, _)| k == id)
            .map(|(_, content)| content)
    }

    /// What is known of `id`, whose digest is `digest`: as of the last
    /// [`TransferIds::close_batch`], for expiry.
    pub fn seen(&self, id: &str, digest: &[u8; 16]) -> Seen {
        if let Some((table, round)) = round_of(id) {
            if let Some(window) = self.windows.get(table) {
                if round < window.oldest {
                    return Seen::Expired { oldest: window.oldest };
                }
            }
        }
        match self.get(digest) {
            Some(content) => Seen::Made(*content),
            None => Seen::New,
        }
    }

    /// Records a transfer made; an id recorded before takes the new content.
    /// Its round's window moves on only at [`TransferIds::close_batch`].
    pub fn insert(&mut self, id: &str, digest: [u8; 16], content: [u8; 16]) {
        self.put(digest, content);
        if let Some((table, round)) = round_of(id) {
            let window = match self.windows.get_mut(table) {
                Some(w) => w,
                None => self.windows.entry(table.into()).or_default(),
            };
            let newest = window.rounds.last_key_value().map(|(r, _)| *r);
            window.rounds.entry(round).or_default().push(digest);
            if newest.is_none_or(|n| round > n) {
                self.risen.push(table.into());
            }
        }
    }

    /// One probe finds the id's slot or the free one it goes in.
    fn put(&mut self, id: [u8; 16], content: [u8; 16]) {
        let (shard, hash) = self.place(&id);
        let keys = &self.keys;
        match self.shards[shard].entry(hash, |(k, _)| *k == id, |(k, _)| keys.hash_one(k)) {
            Entry::Occupied(mut recorded) => recorded.get_mut().1 = content,
            Entry::Vacant(free) => {
                free.insert((id, content));
            }
        }
    }

    /// Ends a batch (a journal entry): each table whose newest round rose
    /// forgets the ids of its rounds older than its [`ROUNDS_REMEMBERED`]
    /// newest, which are expired from now on.
    pub fn close_batch(&mut self) {
        for table in std::mem::take(&mut self.risen) {
            let Some(window) = self.windows.get_mut(&table) else {
                continue;
            };
            let Some(newest) = window.rounds.last_key_value().map(|(r, _)| *r) else {
                continue;
            };
            let oldest = newest.saturating_sub(ROUNDS_REMEMBERED - 1);
            if oldest <= window.oldest {
                continue;
            }
            window.oldest = oldest;
            let kept = window.rounds.split_off(&oldest);
            let gone = std::mem::replace(&mut window.rounds, kept);
            for id in gone.into_values().flatten() {
                let (shard, hash) = self.place(&id);
                if let Ok(found) = self.shards[shard].find_entry(hash, |(k, _)| *k == id) {
                    found.remove();
                }
            }
        }
    }

    /// The ids kept for good (of no table's round), with their contents, in
    /// order of their id's digest, and each table's window, in the tables'
    /// order: the same history gives the same lists, whatever the order the
    /// ids came in.
    pub fn sorted(&self) -> (Vec<Digests>, Vec<WindowState>) {
        let windowed: foldhash::HashSet<&[u8; 16]> = self
            .windows
            .values()
            .flat_map(|w| w.rounds.values().flatten())
            .collect();
        let mut kept: Vec<Digests> = self
            .shards
            .iter()
            .flat_map(|s| s.iter().copied())
            .filter(|(id, _)| !windowed.contains(id))
            .collect();
        kept.sort_unstable();
        let mut windows: Vec<WindowState> = self
            .windows
            .iter()
            .map(|(table, w)| WindowState {
                table: table.to_string(),
                oldest: w.oldest,
                rounds: w
                    .rounds
                    .iter()
                    .map(|(round, ids)| {
                        let mut pairs: Vec<Digests> =
                            ids.iter().filter_map(|id| self.get(id).map(|c| (*id, *c))).collect();
                        pairs.sort_unstable();
                        pairs.dedup();
                        (*round, pairs)
                    })
                    .collect(),
            })
            .collect();
        windows.sort_unstable_by(|a, b| a.table.cmp(&b.table));
        (kept, windows)
    }

    /// The index [`TransferIds::sorted`] gave.
    pub fn from_sorted(kept: Vec<Digests>, windows: Vec<WindowState>) -> TransferIds {
        let mut ids = TransferIds::default();
        for (id, content) in kept {
            ids.put(id, content);
        }
        for w in windows {
            let mut window = Window {
                oldest: w.oldest,
                rounds: BTreeMap::new(),
            };
            for (round, pairs) in w.rounds {
                let digests = window.rounds.entry(round).or_default();
                for (id, content) in pairs {
                    digests.push(id);
                    ids.put(id, content);
                }
            }
            ids.windows.insert(w.table.into(), window);
        }
        ids
    }

    /// How many transfers are remembered.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.shards.iter().map(HashTable::len).sum()
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn digest(n: u64) -> [u8; 16] {
        let mut d = [0u8; 16];
        d[..8].copy_from_slice(&n.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes());
        d[8..].copy_from_slice(&n.to_le_bytes());
        d
    }

    fn id_digest(id: &str) -> [u8; 16] {
        crate::id_digest(id)
    }

    #[test]
    fn every_id_is_found_with_its_content_as_the_tables_grow() {
        let mut ids = TransferIds::default();
        for n in 0..200_000u64 {
            ids.put(digest(n), digest(n + 1));
        }
        assert_eq!(ids.len(), 200_000);
        for n in 0..200_000u64 {
            assert_eq!(ids.get(&digest(n)), Some(&digest(n + 1)), "id {n}");
        }
        assert!(ids.get(&digest(200_000)).is_none());
        // Spread over the shards: none holds more than four times its share.
        let most = ids.shards.iter().map(HashTable::len).max().unwrap_or(0);
        assert!(most < 4 * 200_000 / SHARDS, "a shard holds {most}");
    }

    #[test]
    fn an_id_recorded_again_takes_the_new_content_and_is_counted_once() {
        let mut ids = TransferIds::default();
        assert!(ids.is_empty());
        ids.put(digest(7), digest(1));
        ids.put(digest(7), digest(2));
        assert_eq!(ids.len(), 1);
        assert_eq!(ids.get(&digest(7)), Some(&digest(2)));
    }

    #[test]
    fn a_round_is_a_tables_plain_number_and_no_kind_of_its_own() {
        assert_eq!(round_of("t1/5/b1/stake"), Some(("t1", 5)));
        assert_eq!(round_of("t1/0/lost"), Some(("t1", 0)));
        assert_eq!(round_of("t1/18446744073709551615/x"), Some(("t1", u64::MAX)));
        for unscoped in [
            "t1/05/b1/stake",
            "t1/+5/x",
            "t1/5",
            "t1/dispute/3/0",
            "/5/x",
            "t1//x",
            "t1/18446744073709551616/x",
            "buyin/5/x",
            "leave/7/day",
            "fill/t1/9",
            "tourney/3/1/back/e",
            "cashin/1/2",
            "b1",
        ] {
            assert_eq!(round_of(unscoped), None, "{unscoped}");
        }
    }

    #[test]
    fn a_tables_rounds_past_the_window_are_forgotten_and_expired() {
        let mut ids = TransferIds::default();
        let make = |ids: &mut TransferIds, id: &str| {
            ids.insert(id, id_digest(id), digest(1));
            ids.close_batch();
        };
        make(&mut ids, "buyin/a");
        for round in 1..=ROUNDS_REMEMBERED {
            make(&mut ids, &format!("t1/{round}/b/stake"));
        }
        // The window is full: nothing is forgotten yet.
        assert_eq!(
            ids.seen("t1/1/b/stake", &id_digest("t1/1/b/stake")),
            Seen::Made(digest(1))
        );
        make(&mut ids, &format!("t1/{}/b/stake", ROUNDS_REMEMBERED + 2));
        assert_eq!(ids.len(), 1 + ROUNDS_REMEMBERED as usize - 1);
        for round in 1..=2 {
            let id = format!("t1/{round}/b/stake");
            assert_eq!(ids.seen(&id, &id_digest(&id)), Seen::Expired { oldest: 3 }, "{id}");
        }
        // Another table's rounds, and the ids kept for good, are untouched.
        assert_eq!(ids.seen("buyin/a", &id_digest("buyin/a")), Seen::Made(digest(1)));
        assert_eq!(ids.seen("t2/1/b/stake", &id_digest("t2/1/b/stake")), Seen::New);
    }

    #[test]
    fn a_batch_is_judged_by_the_window_before_it() {
        let mut ids = TransferIds::default();
        ids.insert("t1/100/b/stake", id_digest("t1/100/b/stake"), digest(1));
        ids.insert("t1/1/b/stake", id_digest("t1/1/b/stake"), digest(1));
        // Until the batch ends, round 1 is not expired.
        assert_eq!(ids.seen("t1/2/b/stake", &id_digest("t1/2/b/stake")), Seen::New);
        ids.close_batch();
        assert_eq!(ids.len(), 1);
        assert_eq!(
            ids.seen("t1/1/b/stake", &id_digest("t1/1/b/stake")),
            Seen::Expired { oldest: 85 }
        );
    }

    /// Ids as a casino makes them: clients' ids at random, and tables'
    /// rounds that never go back.
    fn history() -> impl Strategy<Value = Vec<Vec<String>>> {
        let one = prop_oneof![
            (0u8..3, 0u64..3, 0u8..3).prop_map(|(t, step, b)| format!("t{t}/+{step}/b{b}/stake")),
            (0u8..40).prop_map(|c| format!("buyin/c{c}")),
        ];
        proptest::collection::vec(proptest::collection::vec(one, 1..4), 0..120)
    }

    proptest! {
        /// The index answers as a map of every id ever made does, for every
        /// id of no round or of a remembered round; a round it forgot is
        /// older than its table's window. What it holds stays within the
        /// ids kept for good and the windows.
        #[test]
        fn it_answers_as_a_map_of_every_id_does_within_the_window(batches in history()) {
            let mut ids = TransferIds::default();
            let mut all: std::collections::BTreeMap<String, [u8; 16]> = Default::default();
            let mut newest: std::collections::BTreeMap<String, u64> = Default::default();
            for (n, batch) in batches.iter().enumerate() {
                for id in batch {
                    // A table's round goes up by `step` from its newest.
                    let id = match id.split_once("/+") {
                        Some((table, rest)) => {
                            let (step, rest) = rest.split_once('/').unwrap_or((rest, ""));
                            let round = newest.get(table).copied().unwrap_or(1) + step.parse::<u64>().unwrap_or(0);
                            newest.insert(table.to_string(), round);
                            format!("{table}/{round}/{rest}")
                        }
                        None => id.clone(),
                    };
                    if all.contains_key(&id) {
                        continue;
                    }
                    prop_assert_eq!(ids.seen(&id, &id_digest(&id)), Seen::New);
                    ids.insert(&id, id_digest(&id), digest(n as u64));
                    all.insert(id, digest(n as u64));
                }
                ids.close_batch();
            }
            let mut windowed = 0;
            for (id, content) in &all {
                let seen = ids.seen(id, &id_digest(id));
                match round_of(id) {
                    Some((table, round)) if round + ROUNDS_REMEMBERED <= newest[table] => {
                        prop_assert!(matches!(seen, Seen::Expired { .. }), "{} {:?}", id, seen);
                    }
                    Some(_) => {
                        windowed += 1;
                        prop_assert_eq!(seen, Seen::Made(*content));
                    }
                    None => prop_assert_eq!(seen, Seen::Made(*content)),
                }
            }
            let kept = all.keys().filter(|id| round_of(id).is_none()).count();
            prop_assert_eq!(ids.len(), kept + windowed);
            // Written out and read back, it is the same index.
            let (kept_list, windows) = ids.sorted();
            let again = TransferIds::from_sorted(kept_list.clone(), windows.clone());
            prop_assert_eq!(again.sorted(), (kept_list, windows));
            for id in all.keys() {
                prop_assert_eq!(again.seen(id, &id_digest(id)), ids.seen(id, &id_digest(id)));
            }
        }
    }
}
