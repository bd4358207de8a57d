//! Who may do what: the casino's role policy, as one table.

use super::actor::Actor;
use crate::api::{ApiError, Role, Viewer};

/// Everything a role may or may not do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Act {
    CreateUser,
    /// Lock and unlock accounts, and set anyone's password.
    ManageUsers,
    /// Change one's own password (the old one checked first).
    ChangeOwnPassword,
    CreateTable,
    HandleCash,
    /// Requests only the server makes: logins recorded, the journal's format.
    RunTheServer,
    VoidRound,
    BuyIn,
    SellChips,
    LeaveTable,
    Tip,
    Bet,
    CancelBet,
    Inspect,
    Adjust,
    OpenTable,
    CloseTable,
    OpenBetting,
    NoMoreBets,
    /// Report a spin, or have the RNG draw one.
    Spin,
    DeclareEmergency,
    LiftEmergency,
    AnnulBets,
    /// Decide a dispute: a role that can be the profile's dispute authority
    /// (which the round checks besides, Colorado 2206(5)).
    DecideDispute,
    /// Read a table's operations log and report.
    ReadTableBooks,
    /// Follow every event at a table on its stream, every player's bets included.
    WatchTable,
    /// See every player's bets and balances in game recall.
    RecallEveryPlayer,
}

const ADMIN: &[Role] = &[Role::Admin];
/// Those who run a table.
const TABLE_STAFF: &[Role] = &[Role::Dealer, Role::PitSupervisor, Role::Admin];
const PIT: &[Role] = &[Role::PitSupervisor, Role::Admin];
const PLAYER: &[Role] = &[Role::Player];
/// Everyone who is not a player.
const STAFF: &[Role] = &[
    Role::Admin,
    Role::PitSupervisor,
    Role::Dealer,
    Role::Cashier,
    Role::Auditor,
];

/// Each act, the roles that may do it, and what it is in words (for the refusal).
pub const POLICY: &[(Act, &[Role], &str)] = &[
    (Act::CreateUser, ADMIN, "create users"),
    (
        Act::ManageUsers,
        ADMIN,
        "lock, unlock or set the password of another user",
    ),
    (Act::ChangeOwnPassword, &Role::ALL, "change their own password"),
    (Act::CreateTable, ADMIN, "create tables"),
    (Act::HandleCash, &[Role::Cashier], "handle cash"),
    (Act::RunTheServer, ADMIN, "record logins or set the journal's format"),
    (Act::VoidRound, ADMIN, "void rounds"),
    (Act::BuyIn, PLAYER, "buy in"),
    (Act::SellChips, TABLE_STAFF, "sell chips"),
    (Act::LeaveTable, PLAYER, "cash in colour chips"),
    (Act::Tip, PLAYER, "tip"),
    (Act::Bet, PLAYER, "bet"),
    (Act::CancelBet, PLAYER, "cancel bets"),
    (Act::Inspect, PIT, "record inspections"),
    (Act::Adjust, PIT, "record adjustments"),
    (Act::OpenTable, TABLE_STAFF, "open tables"),
    (Act::CloseTable, TABLE_STAFF, "close tables"),
    (Act::OpenBetting, TABLE_STAFF, "open betting"),
    (Act::NoMoreBets, TABLE_STAFF, "call no more bets"),
    (Act::Spin, TABLE_STAFF, "report spins"),
    (Act::DeclareEmergency, PIT, "declare emergencies"),
    (Act::LiftEmergency, PIT, "lift emergencies"),
    (Act::AnnulBets, PIT, "annul bets"),
    (Act::DecideDispute, PIT, "decide disputes"),
    (
        Act::ReadTableBooks,
        &[Role::Admin, Role::PitSupervisor, Role::Dealer, Role::Auditor],
        "read a table's log and report",
    ),
    (Act::WatchTable, STAFF, "follow every player's bets"),
    (Act::RecallEveryPlayer, STAFF, "see another player's rounds"),
];

/// The roles that may do `act`, and the act in words.
pub fn rule(act: Act) -> (&'static [Role], &'static str) {
    POLICY
        .iter()
        .find(|(a, _, _)| *a == act)
        .map_or((&[], "do this"), |(_, roles, what)| (*roles, *what))
}

pub fn allows(role: Role, act: Act) -> bool {
    rule(act).0.contains(&role)
}

/// `Ok` if `role` may do `act`; otherwise the refusal, naming the role.
/// A request that belongs to no act (none today) is refused to everyone.
pub fn require(role: Role, act: Act) -> Result<(), ApiError> {
    let (roles, what) = rule(act);
    if roles.contains(&role) {
        Ok(())
    } else {
        Err(ApiError::forbidden(what, role))
    }
}

/// How `actor` (`None`: no one signed in, a display board) sees a table's
/// stream and a write's answer: staff everything, a player their own.
pub fn viewer(actor: Option<&Actor>) -> Viewer<'_> {
    match actor {
        Some(a) if allows(a.role, Act::WatchTable) => Viewer::Staff,
        Some(a) if a.role == Role::Player => Viewer::Player(&a.username),
        _ => Viewer::Public,
    }
}

/// Whether a role, deciding a dispute, acts as the authority a profile
/// names (`dispute_authority`): the pit supervisor decides them
/// (Colorado 2206(5)), and an admin acts as the casino manager.
pub fn acts_as_authority(role: Role, authority: &str) -> bool {
    match role {
        Role::PitSupervisor => true,
        Role::Admin => authority.eq_ignore_ascii_case("casino manager"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_act_has_one_rule() {
        for (act, _, _) in POLICY {
            assert_eq!(POLICY.iter().filter(|(a, _, _)| a == act).count(), 1, "{act:?}");
        }
    }
}
