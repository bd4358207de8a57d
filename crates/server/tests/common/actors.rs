//! The people a test casino's requests come from, each in their role, all
//! signing with licence L-77.

use croupier_server::api::Role;
use croupier_server::casino::Actor;

pub fn actor(name: &str, role: Role) -> Actor {
    Actor::new(name, role, "L-77")
}

pub fn admin() -> Actor {
    actor("admin", Role::Admin)
}

pub fn dealer() -> Actor {
    actor("dealer", Role::Dealer)
}

pub fn pit() -> Actor {
    actor("pit", Role::PitSupervisor)
}

/// Maryland's floorperson, who decides its disputes from journal format 10.
pub fn floor() -> Actor {
    actor("floorperson", Role::Floorperson)
}

pub fn cashier() -> Actor {
    actor("cashier", Role::Cashier)
}

pub fn alice() -> Actor {
    actor("alice", Role::Player)
}

pub fn bob() -> Actor {
    actor("bob", Role::Player)
}
