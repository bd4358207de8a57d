//! Who may do what: the casino's role policy, as one table.

use super::actor::Actor;
use super::request::Request;
use crate::api::{ApiError, Role, Viewer};

/// Everything a role may or may not do. Its names (snake_case) are what
/// `/api/me`'s `may` lists, for the pages to show a role what it may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Act {
    CreateUser,
    /// Lock and unlock accounts, and set anyone's password.
    ManageUsers,
    /// Change one's own password (the old one checked first).
    ChangeOwnPassword,
    CreateTable,
    /// Retire users, and change their display name or role (journal format 16).
    RetireOrEditUsers,
    /// Retire tables, and edit their label or betting window (journal format 16).
    RetireOrEditTables,
    /// Name the casino's operator, shown on every layout (Maryland ch.1 G(1)).
    NameOperator,
    /// Set the casino's gaming day: its time zone and the hour it starts.
    SetGamingDay,
    HandleCash,
    /// Count one's own drawer at shift end (house practice).
    CountDrawer,
    /// Void a mistaken cash-in or cash-out: a second person, never the
    /// cashier who made it (which the cage checks besides).
    VoidCageTransaction,
    /// Issue a match play coupon to a player for a table.
    IssueCoupon,
    /// Configure a tournament from its file.
    CreateTournament,
    /// Run a tournament as its director: entries, starts, ends, splits (2213.07(3)).
    DirectTournament,
    /// Agree to split a tournament's cash prizes, for one's own entry (2213.07(3)).
    AgreeSplit,
    /// Read a tournament's entries, standings and forms.
    ReadTournament,
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
    InspectBall,
    EnterVerbalBets,
    Adjust,
    /// Confirm, from one's own account, an adjustment made in one's
    /// presence as its security witness (Colorado 2212(2), Maryland ch.2 B;
    /// journal format 16).
    WitnessAdjustment,
    /// Post a table's limits (Colorado 2207, Maryland ch.1 G(3)).
    SetLimits,
    /// Confirm a player's colour chips at face value past the gaming day
    /// (european-casino 5.5); the profile names which supervisor.
    ConfirmChips,
    /// Record that a player took their colour chips away from the table
    /// (european-casino 5.2): the floor's supervisors, whom the dealer calls.
    RecordChipsTakenAway,
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
    /// Ask for a fill or credit slip, void one unsigned, count a float: the
    /// first signature (house practice).
    RequestSlip,
    /// Sign a slip the pit asked for: the cage's second signature.
    SignSlip,
    /// Read the slips waiting for a signature, at every table.
    ReadSlips,
    /// Read a table's operations log and report.
    ReadTableBooks,
    /// Read the casino's books of a gaming day, every table's and every dealer's.
    ReadCasinoBooks,
    /// Read the server's metrics (on its own listener, anyone who reaches it).
    ReadMetrics,
    /// Follow every event at a table on its stream, every player's bets included.
    WatchTable,
    /// See every player's bets and balances in game recall.
    RecallEveryPlayer,
    /// List the users, their roles and whether they are locked.
    ReadUsers,
    /// Look up another player's accounts and coupons (the cage's work).
    ReadPlayerAccounts,
    /// Read the cage's record of its cash and coupons: one's own, and an
    /// admin's or auditor's everyone's.
    ReadCageRecord,
    /// Read everyone's entries in the cage's record, not only one's own.
    ReadWholeCageRecord,
}

const ADMIN: &[Role] = &[Role::Admin];
/// Those who run a table.
const TABLE_STAFF: &[Role] = &[
    Role::Dealer,
    Role::PitSupervisor,
    Role::Floorperson,
    Role::FloorManager,
    Role::CasinoManager,
    Role::Admin,
];
/// The floor's supervisors, by each document's title, and the admin.
const PIT: &[Role] = &[
    Role::PitSupervisor,
    Role::Floorperson,
    Role::FloorManager,
    Role::CasinoManager,
    Role::Admin,
];
const PLAYER: &[Role] = &[Role::Player];
/// Everyone who is not a player.
const STAFF: &[Role] = &[
    Role::Admin,
    Role::PitSupervisor,
    Role::Floorperson,
    Role::FloorManager,
    Role::CasinoManager,
    Role::Dealer,
    Role::Cashier,
    Role::Auditor,
    Role::Security,
];
/// The pit and the cage.
const PIT_AND_CAGE: &[Role] = &[
    Role::Cashier,
    Role::PitSupervisor,
    Role::Floorperson,
    Role::FloorManager,
    Role::CasinoManager,
    Role::Admin,
];

/// Each act, the roles that may do it, and what it is in words (for the refusal).
pub const POLICY: &[(Act, &[Role], &str)] = &[
    (Act::CreateUser, ADMIN, "create users"),
    (
        Act::ManageUsers,
        ADMIN,
        "lock, unlock, or set the password or the licence of another user",
    ),
    (Act::ChangeOwnPassword, &Role::ALL, "change their own password"),
    (Act::CreateTable, ADMIN, "create tables"),
    (
        Act::RetireOrEditUsers,
        ADMIN,
        "retire users or change their display name or role",
    ),
    (Act::RetireOrEditTables, ADMIN, "retire or edit tables"),
    (Act::NameOperator, ADMIN, "name the casino's operator"),
    (Act::SetGamingDay, ADMIN, "set the casino's gaming day"),
    // An admin makes a cash-in or cash-out larger than a cashier's day allows.
    (Act::HandleCash, &[Role::Cashier, Role::Admin], "handle cash"),
    (Act::CountDrawer, &[Role::Cashier, Role::Admin], "count a cage drawer"),
    (Act::VoidCageTransaction, PIT, "void a cash-in or cash-out"),
    (Act::IssueCoupon, PIT_AND_CAGE, "issue match play coupons"),
    (Act::RunTheServer, ADMIN, "record logins or set the journal's format"),
    (Act::CreateTournament, ADMIN, "configure tournaments"),
    // The pit supervisor is the tournament director (Colorado 2213.07(3)(b)).
    (Act::DirectTournament, PIT, "direct tournaments"),
    (Act::AgreeSplit, PLAYER, "agree to split a tournament's prizes"),
    (
        Act::ReadTournament,
        &[
            Role::Admin,
            Role::PitSupervisor,
            Role::Floorperson,
            Role::FloorManager,
            Role::CasinoManager,
            Role::Auditor,
            Role::Cashier,
        ],
        "read a tournament's entries and forms",
    ),
    (Act::VoidRound, ADMIN, "void rounds"),
    (Act::BuyIn, PLAYER, "buy in"),
    (Act::SellChips, TABLE_STAFF, "sell chips"),
    (Act::LeaveTable, PLAYER, "cash in colour chips"),
    (Act::Tip, PLAYER, "tip"),
    (Act::Bet, PLAYER, "bet"),
    (Act::CancelBet, PLAYER, "cancel bets"),
    // The auditor is the regulator's: it records the Director's inspection
    // after an external part is replaced (Colorado 2212(4)), and no other.
    // Security inspects too: "a key manager, licensed member of the casino
    // security department, or pit supervisor shall: (a) Inspect" (Colorado
    // 2212(1)); "a floorperson or member of a facility operator's security
    // department shall" (Maryland ch.2 A).
    (
        Act::Inspect,
        &[
            Role::Security,
            Role::PitSupervisor,
            Role::Floorperson,
            Role::FloorManager,
            Role::CasinoManager,
            Role::Admin,
            Role::Auditor,
        ],
        "record inspections",
    ),
    (Act::InspectBall, TABLE_STAFF, "inspect the ball after a no spin"),
    (Act::EnterVerbalBets, TABLE_STAFF, "enter a player's verbal bets"),
    (Act::Adjust, PIT, "record adjustments"),
    // The security department member in whose presence the adjustment is
    // made (Colorado 2212(2), Maryland ch.2 B), and no one else.
    (
        Act::WitnessAdjustment,
        &[Role::Security],
        "confirm an adjustment as its security witness",
    ),
    (Act::SetLimits, PIT, "set table limits"),
    (Act::ConfirmChips, PIT, "confirm colour chips at face value"),
    // A supervisor's, called by the dealer who sees it (the low-limit house:
    // "the floor manager must be called"): a dealer alone could otherwise
    // devalue a player's chips to the rule's value.
    (
        Act::RecordChipsTakenAway,
        PIT,
        "record colour chips taken away from the table",
    ),
    (Act::OpenTable, TABLE_STAFF, "open tables"),
    (Act::CloseTable, TABLE_STAFF, "close tables"),
    (Act::OpenBetting, TABLE_STAFF, "open betting"),
    (Act::NoMoreBets, TABLE_STAFF, "call no more bets"),
    (Act::Spin, TABLE_STAFF, "report spins"),
    (Act::DeclareEmergency, PIT, "declare emergencies"),
    (Act::LiftEmergency, PIT, "lift emergencies"),
    (Act::AnnulBets, PIT, "annul bets"),
    (Act::DecideDispute, PIT, "decide disputes"),
    (Act::RequestSlip, PIT, "request, void or count a table's float slips"),
    // A second person, the cage's, makes the slip good: an admin only as
    // someone other than who asked.
    (
        Act::SignSlip,
        &[Role::Cashier, Role::Admin],
        "sign fill and credit slips",
    ),
    (
        Act::ReadSlips,
        &[
            Role::Cashier,
            Role::PitSupervisor,
            Role::Floorperson,
            Role::FloorManager,
            Role::CasinoManager,
            Role::Admin,
            Role::Auditor,
        ],
        "read the slips waiting for a signature",
    ),
    (
        Act::ReadMetrics,
        &[Role::Admin, Role::Auditor],
        "read the server's metrics",
    ),
    (
        Act::ReadTableBooks,
        &[
            Role::Security,
            Role::Admin,
            Role::PitSupervisor,
            Role::Floorperson,
            Role::FloorManager,
            Role::CasinoManager,
            Role::Dealer,
            Role::Auditor,
        ],
        "read a table's log and report",
    ),
    (
        Act::ReadCasinoBooks,
        &[
            Role::Admin,
            Role::PitSupervisor,
            Role::Floorperson,
            Role::FloorManager,
            Role::CasinoManager,
            Role::Auditor,
        ],
        "read the casino's books of a gaming day",
    ),
    (Act::WatchTable, STAFF, "follow every player's bets"),
    (Act::RecallEveryPlayer, STAFF, "see another player's rounds"),
    (Act::ReadUsers, &[Role::Admin, Role::Auditor], "list the users"),
    (
        Act::ReadPlayerAccounts,
        &[
            Role::Cashier,
            Role::Admin,
            Role::Auditor,
            Role::PitSupervisor,
            Role::Floorperson,
            Role::FloorManager,
            Role::CasinoManager,
        ],
        "look up a player's accounts",
    ),
    (
        Act::ReadCageRecord,
        &[
            Role::Cashier,
            Role::Admin,
            Role::Auditor,
            Role::PitSupervisor,
            Role::Floorperson,
            Role::FloorManager,
            Role::CasinoManager,
        ],
        "read the cage's record",
    ),
    (
        Act::ReadWholeCageRecord,
        &[Role::Admin, Role::Auditor],
        "read every cashier's entries in the cage's record",
    ),
];

impl Request {
    /// What the request does when `actor` asks it, for the role policy.
    pub fn act(&self, actor: &Actor) -> Act {
        use Request as R;
        match self {
            R::CreateUser { .. } => Act::CreateUser,
            R::SetPassword { username, .. } if *username == actor.username => Act::ChangeOwnPassword,
            R::LockUser { .. } | R::UnlockUser { .. } | R::SetPassword { .. } | R::SetLicence { .. } => {
                Act::ManageUsers
            }
            R::LoginFailed { .. }
            | R::LoginSucceeded { .. }
            | R::JournalFormat { .. }
            | R::Checkpoint { .. }
            | R::RecoverJournal { .. } => Act::RunTheServer,
            R::CreateTable { .. } => Act::CreateTable,
            R::RetireUser { .. } | R::EditUser { .. } => Act::RetireOrEditUsers,
            R::RetireTable { .. } | R::EditTable { .. } => Act::RetireOrEditTables,
            R::NameOperator { .. } => Act::NameOperator,
            R::SetGamingDay { .. } => Act::SetGamingDay,
            R::CashIn { .. } | R::CashOut { .. } => Act::HandleCash,
            R::CountDrawer { .. } => Act::CountDrawer,
            R::VoidCageTransaction { .. } => Act::VoidCageTransaction,
            R::IssueCoupon { .. } => Act::IssueCoupon,
            R::CreateTournament { .. } => Act::CreateTournament,
            R::Tournament {
                order: super::journal::tournament::TournamentOrder::AgreeSplit { .. },
                ..
            } => Act::AgreeSplit,
            R::Tournament { .. } | R::TablePlay { .. } => Act::DirectTournament,
            R::Inspect { .. } => Act::Inspect,
            R::Adjust { .. } | R::WithdrawAdjustment { .. } => Act::Adjust,
            R::WitnessAdjustment { .. } => Act::WitnessAdjustment,
            R::InspectBall { .. } => Act::InspectBall,
            R::SetLimits { .. } => Act::SetLimits,
            R::OpenTable { .. } => Act::OpenTable,
            R::CloseTable { .. } => Act::CloseTable,
            R::OpenBetting { .. } => Act::OpenBetting,
            R::NoMoreBets { .. } => Act::NoMoreBets,
            R::Spin { .. } | R::Draw { .. } => Act::Spin,
            R::WheelGame { .. } | R::DrawBonus { .. } | R::RecordPastPosting { .. } => Act::RunTheServer,
            R::BonusWager { .. } => Act::Bet,
            R::BuyIn { .. } => Act::BuyIn,
            R::SellChips { .. } => Act::SellChips,
            R::LeaveTable { .. } => Act::LeaveTable,
            R::ConfirmChips { .. } => Act::ConfirmChips,
            R::ChipsTakenAway { .. } => Act::RecordChipsTakenAway,
            R::Tip { .. } => Act::Tip,
            R::PlaceBet { .. } => Act::Bet,
            R::VerbalBets { .. } => Act::EnterVerbalBets,
            R::CancelBet { .. } => Act::CancelBet,
            R::DeclareEmergency { .. } => Act::DeclareEmergency,
            R::LiftEmergency { .. } => Act::LiftEmergency,
            R::AnnulBets { .. } => Act::AnnulBets,
            R::VoidRound { .. } => Act::VoidRound,
            R::Dispute { .. } => Act::DecideDispute,
            R::RequestSlip { .. } | R::VoidSlip { .. } | R::CountFloat { .. } => Act::RequestSlip,
            R::SignSlip { .. } => Act::SignSlip,
        }
    }
}

/// The roles that may do `act`, and the act in words.
pub fn rule(act: Act) -> (&'static [Role], &'static str) {
    POLICY
        .iter()
        .find(|(a, _, _)| *a == act)
        .map_or((&[], "do this"), |(_, roles, what)| (*roles, *what))
}

/// The names of every act `role` may do, in the policy's order: the pages
/// read them (`/api/me`'s `may`) rather than repeat the policy.
pub fn acts_of(role: Role) -> Vec<String> {
    POLICY
        .iter()
        .filter(|(_, roles, _)| roles.contains(&role))
        .filter_map(|(act, _, _)| match serde_json::to_value(act) {
            Ok(serde_json::Value::String(name)) => Some(name),
            _ => None,
        })
        .collect()
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

/// Whether a role, deciding a dispute up to journal format 4, acts as the
/// authority a profile names (`dispute_authority`): the pit supervisor
/// decided them whatever the profile named (Colorado 2206(5)), and an admin
/// acted as the casino manager. From format 5, [`dispute_deciders`] says.
pub fn acts_as_authority(role: Role, authority: &str) -> bool {
    match role {
        Role::PitSupervisor => true,
        Role::Admin => authority.eq_ignore_ascii_case("casino manager"),
        _ => false,
    }
}

/// Each person a profile may name to decide disputes (`dispute_authority`),
/// the role that is them from journal format 10 (each document's own
/// title), and the role that stood for them before, when the pit
/// supervisor stood for every floor title and the admin for the casino
/// manager. Only those who supervise the game decide its disputes: "the pit
/// supervisor, and not the dealer" (Colorado 2206(5)); a dealer, a cashier,
/// an auditor or a player is no one's dispute authority.
pub const DISPUTE_AUTHORITIES: &[(&str, &[Role], &[Role])] = &[
    // Colorado 2206(5); the european-casino glossary's pit boss controls the pit.
    ("pit supervisor", &[Role::PitSupervisor], &[Role::PitSupervisor]),
    ("pit boss", &[Role::PitSupervisor], &[Role::PitSupervisor]),
    ("floor supervisor", &[Role::PitSupervisor], &[Role::PitSupervisor]),
    // Maryland's floorperson (ch.2 A-B, ch.6 B(2)).
    ("floorperson", &[Role::Floorperson], &[Role::PitSupervisor]),
    ("floor person", &[Role::Floorperson], &[Role::PitSupervisor]),
    // low-limit-house: the floor manager (Irregularities (4)-(5)).
    ("floor manager", &[Role::FloorManager], &[Role::PitSupervisor]),
    // european-casino: "the casino manager's decision is final".
    ("casino manager", &[Role::CasinoManager], &[Role::Admin]),
    ("admin", &[Role::Admin], &[Role::Admin]),
];

/// The roles that decide disputes at a table whose profile names
/// `authority`, or why no one can: the name is compared without case, `_`
/// and `-` read as spaces (`pit_supervisor` is the pit supervisor).
pub fn dispute_deciders(authority: &str, format: u32) -> Result<&'static [Role], String> {
    let name = authority
        .to_lowercase()
        .replace(['_', '-'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let titled = format >= super::journal::FORMAT_AUTHORITY_TITLES;
    DISPUTE_AUTHORITIES
        .iter()
        .find(|(known, _, _)| *known == name)
        .map(|(_, now, before)| if titled { *now } else { *before })
        .ok_or_else(|| {
            let known: Vec<String> = DISPUTE_AUTHORITIES.iter().map(|(n, _, _)| format!("{n:?}")).collect();
            format!(
                "{authority:?} is no staff role that may decide disputes; name one of {} \
                 (not a dealer, cashier, auditor or player: Colorado 2206(5))",
                known.join(", ")
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every shipped profile names someone who decides disputes, as the
    /// roles that act as them (Colorado 2206(5): the pit supervisor, not
    /// the dealer; european-casino: the casino manager).
    #[test]
    fn every_shipped_profile_names_a_role_that_decides_disputes() {
        for name in croupier_profiles::builtin_names() {
            let profile = croupier_profiles::load(name).expect("a shipped profile");
            let roles = dispute_deciders(&profile.spec().dispute_authority, 10).expect(name);
            assert!(roles.iter().all(|r| allows(*r, Act::DecideDispute)), "{name}");
        }
        assert_eq!(dispute_deciders("Pit_Supervisor", 10), Ok(&[Role::PitSupervisor][..]));
        // Each document's own title, from format 10: european-casino's casino
        // manager, Maryland's floorperson, low-limit-house's floor manager.
        assert_eq!(dispute_deciders("casino manager", 10), Ok(&[Role::CasinoManager][..]));
        assert_eq!(dispute_deciders("floorperson", 10), Ok(&[Role::Floorperson][..]));
        assert_eq!(dispute_deciders("floor manager", 10), Ok(&[Role::FloorManager][..]));
        // Before: the admin stood for the casino manager, the pit supervisor for the floor.
        assert_eq!(dispute_deciders("casino manager", 9), Ok(&[Role::Admin][..]));
        assert_eq!(dispute_deciders("floorperson", 9), Ok(&[Role::PitSupervisor][..]));
        for nobody in ["player", "dealer", "cashier", "auditor", "the croupier", ""] {
            let why = dispute_deciders(nobody, 10).expect_err(nobody);
            assert!(
                why.contains(&format!("{nobody:?}")) && why.contains("pit supervisor"),
                "{why}"
            );
        }
    }

    /// The pages read a role's acts by name (`/api/me`'s `may`): the
    /// security member witnesses adjustments and inspects, and moves no money.
    #[test]
    fn a_role_reads_its_acts_by_name() {
        let security = acts_of(Role::Security);
        for act in ["witness_adjustment", "inspect", "read_table_books"] {
            assert!(security.iter().any(|a| a == act), "{act}: {security:?}");
        }
        // Colorado 2212(2): the adjustment is made by the pit "in the presence of"
        // security, not by security; and nothing that moves money.
        for act in [
            "adjust",
            "handle_cash",
            "bet",
            "sell_chips",
            "sign_slip",
            "request_slip",
            "decide_dispute",
        ] {
            assert!(!security.iter().any(|a| a == act), "{act}: {security:?}");
        }
        assert!(!acts_of(Role::PitSupervisor).iter().any(|a| a == "witness_adjustment"));
        assert_eq!(
            acts_of(Role::Admin).len(),
            acts_of(Role::Admin)
                .iter()
                .collect::<std::collections::BTreeSet<_>>()
                .len()
        );
    }

    #[test]
    fn every_act_has_one_rule() {
        for (act, _, _) in POLICY {
            assert_eq!(POLICY.iter().filter(|(a, _, _)| a == act).count(), 1, "{act:?}");
        }
    }
}
