//! Who is acting, as the journal records it with each request.

use serde::{Deserialize, Serialize};

use crate::api::Role;

/// Who is acting.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Actor {
    pub username: String,
    #[serde(with = "stored_role")]
    pub role: Role,
    /// A licence number, for the logs that require one (Colorado 2212(5)).
    #[serde(default)]
    pub licence: String,
}

impl Actor {
    pub fn new(username: &str, role: Role, licence: &str) -> Actor {
        Actor {
            username: username.into(),
            role,
            licence: licence.into(),
        }
    }

    /// The server itself (recovery after a restart, recording logins).
    pub fn system() -> Actor {
        Actor::new("system", Role::Admin, "-")
    }
}

/// A role as the journal writes it: the journal's own spelling, which the
/// API's may leave without changing a stored byte.
pub mod stored_role {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::api::Role;

    const NAMES: [(Role, &str); 10] = [
        (Role::Admin, "admin"),
        (Role::PitSupervisor, "pit_supervisor"),
        (Role::Floorperson, "floorperson"),
        (Role::FloorManager, "floor_manager"),
        (Role::CasinoManager, "casino_manager"),
        (Role::Dealer, "dealer"),
        (Role::Cashier, "cashier"),
        (Role::Auditor, "auditor"),
        (Role::Security, "security"),
        (Role::Player, "player"),
    ];

    pub fn name(role: Role) -> &'static str {
        NAMES.iter().find(|(r, _)| *r == role).map_or("player", |(_, n)| n)
    }

    pub fn serialize<S: Serializer>(role: &Role, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(name(*role))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Role, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(deserializer)?;
        NAMES
            .iter()
            .find(|(_, n)| *n == text)
            .map(|(r, _)| *r)
            .ok_or_else(|| serde::de::Error::custom(format!("{text:?} is not a role")))
    }

    /// A role that may be left out, stored by the same names.
    pub mod option {
        use serde::{Deserialize, Deserializer, Serializer};

        use crate::api::Role;

        pub fn serialize<S: Serializer>(role: &Option<Role>, serializer: S) -> Result<S::Ok, S::Error> {
            match role {
                Some(role) => super::serialize(role, serializer),
                None => serializer.serialize_none(),
            }
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Role>, D::Error> {
            #[derive(Deserialize)]
            struct Stored(#[serde(with = "super")] Role);
            Ok(Option::<Stored>::deserialize(deserializer)?.map(|Stored(role)| role))
        }
    }
}
