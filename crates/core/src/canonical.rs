//! Hash maps and sets written in their keys' order, so that the same state
//! always writes the same bytes: a checkpoint of the casino is hashed into
//! the journal, and an audit's replay must write it again byte for byte.
//! Use with `#[serde(with = "croupier_core::canonical::map")]` (or `set`).

/// A `HashMap` as a list of pairs in key order.
pub mod map {
    use std::collections::HashMap;
    use std::hash::{BuildHasher, Hash};

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<K, V, H, S>(map: &HashMap<K, V, H>, serializer: S) -> Result<S::Ok, S::Error>
    where
        K: Ord + Serialize,
        V: Serialize,
        S: Serializer,
    {
        let mut pairs: Vec<(&K, &V)> = map.iter().collect();
        pairs.sort_unstable_by(|a, b| a.0.cmp(b.0));
        serializer.collect_seq(pairs)
    }

    pub fn deserialize<'de, K, V, H, D>(deserializer: D) -> Result<HashMap<K, V, H>, D::Error>
    where
        K: Eq + Hash + Deserialize<'de>,
        V: Deserialize<'de>,
        H: BuildHasher + Default,
        D: Deserializer<'de>,
    {
        Ok(Vec::<(K, V)>::deserialize(deserializer)?.into_iter().collect())
    }
}

/// A `HashSet` as a list in order.
pub mod set {
    use std::collections::HashSet;
    use std::hash::{BuildHasher, Hash};

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<K, H, S>(set: &HashSet<K, H>, serializer: S) -> Result<S::Ok, S::Error>
    where
        K: Ord + Serialize,
        S: Serializer,
    {
        let mut keys: Vec<&K> = set.iter().collect();
        keys.sort_unstable();
        serializer.collect_seq(keys)
    }

    pub fn deserialize<'de, K, H, D>(deserializer: D) -> Result<HashSet<K, H>, D::Error>
    where
        K: Eq + Hash + Deserialize<'de>,
        H: BuildHasher + Default,
        D: Deserializer<'de>,
    {
        Ok(Vec::<K>::deserialize(deserializer)?.into_iter().collect())
    }
}
