//! The roles people have: what each may do is the casino's policy (`casino/policy.rs`).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A user's role: what they may do is the casino's policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Admin,
    PitSupervisor,
    /// Maryland's floor supervisor (ch.2 A-B, ch.6 B(2)): the pit's work,
    /// and the disputes of a profile that names the floorperson.
    Floorperson,
    /// The low-limit house's floor supervisor: the pit's work, the disputes
    /// of a profile that names the floor manager, and the hanging ball's no
    /// spin (Irregularities (5)).
    FloorManager,
    /// The european-casino house's manager: the pit's work, and the
    /// disputes of a profile that names the casino manager ("the casino
    /// manager's decision is final").
    CasinoManager,
    Dealer,
    Cashier,
    Auditor,
    /// A licensed member of the casino's security department (Colorado
    /// 2212(1)-(2), Maryland ch.2 A-B): inspects a table before it opens,
    /// and confirms from their own account an adjustment made in their
    /// presence (journal format 16). Moves no money.
    Security,
    Player,
}

impl Role {
    /// Every role, in the order the API documents them.
    pub const ALL: [Role; 10] = [
        Role::Admin,
        Role::PitSupervisor,
        Role::Floorperson,
        Role::FloorManager,
        Role::CasinoManager,
        Role::Dealer,
        Role::Cashier,
        Role::Auditor,
        Role::Security,
        Role::Player,
    ];

    /// Those who supervise the game on the floor, by each document's title.
    pub const SUPERVISORS: [Role; 4] = [
        Role::PitSupervisor,
        Role::Floorperson,
        Role::FloorManager,
        Role::CasinoManager,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::PitSupervisor => "pit_supervisor",
            Role::Floorperson => "floorperson",
            Role::FloorManager => "floor_manager",
            Role::CasinoManager => "casino_manager",
            Role::Dealer => "dealer",
            Role::Cashier => "cashier",
            Role::Auditor => "auditor",
            Role::Security => "security",
            Role::Player => "player",
        }
    }

    /// A supervisor of the game on the floor, whatever the document calls them.
    pub fn supervises(self) -> bool {
        Role::SUPERVISORS.contains(&self)
    }

    pub fn parse(name: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.name() == name)
    }
}
