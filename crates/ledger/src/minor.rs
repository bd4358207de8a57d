//! Money as the journal and the API write it: a whole number of minor units.

use croupier_core::Minor;
use serde::{Deserialize, Deserializer, Serializer};

pub fn serialize<S: Serializer>(amount: &Minor, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_u64(amount.get())
}

pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Minor, D::Error> {
    u64::deserialize(deserializer).map(Minor::new)
}

/// The same, for an amount that may be missing.
pub mod option {
    use croupier_core::Minor;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(amount: &Option<Minor>, serializer: S) -> Result<S::Ok, S::Error> {
        match amount {
            Some(a) => serializer.serialize_some(&a.get()),
            None => serializer.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Minor>, D::Error> {
        Option::<u64>::deserialize(deserializer).map(|a| a.map(Minor::new))
    }
}
