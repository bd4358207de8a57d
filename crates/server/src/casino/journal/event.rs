//! What happened, as the journal keeps it (journal format 3). A stored
//! format: reasons are codes, not sentences, and nothing here is the API's;
//! [`crate::casino::views`] renders these as the API's event views. A change
//! to this type is a new journal format.

use croupier_core::round::{NoSpinReason, ReturnReason};
use croupier_core::{Outcome, Pocket};
use serde::{Deserialize, Serialize};

use crate::api::{OutcomeSource, Role};
use crate::casino::actor::stored_role;
use crate::casino::request::stored_outcome;
/// Kept here too: the journal's events hold limits as requests do.
pub use crate::casino::request::StoredLimit;

macro_rules! journal_event {
    ({ $($special:tt)* } $( $group:ident { $( $(#[$vm:meta])* $name:ident { $( $(#[$fm:meta])* $field:ident : $ty:ty ),* $(,)? } ),* $(,)? } )*) => {
        #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(tag = "type", rename_all = "snake_case")]
        pub enum JournalEvent {
            $($special)*
            $( $( $(#[$vm])* $name { $( $(#[$fm])* $field: $ty ),* }, )* )*
        }
    };
}

// What happened, as the journal keeps it: the plain events of
// `api/plain_events.rs`, and those the API shows otherwise, declared here.
crate::api::plain_events!(journal_event! {
    /// A user's display name or role changed (journal format 16); what is
    /// left out stayed as it was.
    UserEdited {
        username: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        display_name: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            with = "crate::casino::actor::stored_role::option"
        )]
        role: Option<Role>,
    },
    /// Something that happened to a tournament (journal format 7).
    Tournament {
        tournament: String,
        record: super::tournament::TournamentRecord,
    },
    /// A table plays a tournament's event in points, or cash again
    /// (`tournament` absent; journal format 8).
    TablePlay {
        table: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tournament: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        event: Option<String>,
    },
    UserCreated {
        username: String,
        #[serde(with = "stored_role")]
        role: Role,
    },
    TableCreated {
        table: String,
        profile: String,
        wheel: String,
        #[serde(with = "stored_outcome")]
        outcome: OutcomeSource,
    },
    /// Colour chips kept past the gaming day they were bought on, cashed in
    /// at `unit` each instead of their face value (european-casino 5.4).
    ChipsRevalued {
        table: String,
        player: String,
        /// What the chips were worth when bought.
        face: u64,
        /// What they were cashed in at.
        paid: u64,
        chips: u64,
        unit: u64,
        /// The UTC day (days since 1970) they were bought on.
        bought_day: u64,
        /// From format 14, each purchase revalued: its UTC day, its chips
        /// and what each was cashed in at (`chips`, `unit` and `bought_day`
        /// then sum them, give the least value and the oldest day).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        lots: Vec<(u64, u64, u64)>,
    },
    /// The staff recorded that a player took their colour chips away from
    /// the table (european-casino 5.2; the low-limit house's "Roulette
    /// Chips"): `chips` their face value then.
    ChipsTakenAway {
        table: String,
        player: String,
        chips: u64,
        at_ms: u64,
        by: String,
        licence: String,
    },
    LimitsSet {
        table: String,
        at_ms: u64,
        by: String,
        licence: String,
        limits: Vec<StoredLimit>,
    },
    Result {
        table: String,
        round: u64,
        pocket: String,
    },
    BetSettled {
        table: String,
        round: u64,
        bet_id: String,
        player: String,
        /// `win`, `lose`, `half`, `released` or `void`.
        result: String,
        staked: u64,
        returned: u64,
    },
    BetReturned {
        table: String,
        round: u64,
        bet_id: String,
        player: String,
        returned: u64,
        /// Why, as a code: `table_closed`, `annulled`, `round_voided`, or a no spin's reason.
        reason: String,
    },
    /// A bonus table's draw after no more bets (journal format 11):
    /// Bonus Spin Xtreme's targets, or Roulette X's lucky numbers.
    BonusDrawn {
        table: String,
        round: u64,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        targets: Vec<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        lucky: Vec<LuckyNumber>,
    },
    /// A Bonus Spin Xtreme wager's course (journal format 11): `placed`,
    /// `returned`, `collected` (its shares to the meters), `awarded` (the
    /// bonus wheel's symbol), `community` (Community Pay for `for_wager`).
    BonusWager {
        table: String,
        round: u64,
        wager_id: String,
        player: String,
        what: String,
        amount: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        symbol: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        for_wager: Option<String>,
        #[serde(default, skip_serializing_if = "is_zero")]
        to_primary: u64,
        #[serde(default, skip_serializing_if = "is_zero")]
        to_secondary: u64,
    },
    EmergencyDeclared {
        table: String,
        by: String,
        reason: String,
    },
    EmergencyLifted {
        table: String,
        by: String,
    },
    DisputeDecided {
        table: String,
        by: String,
        reason: String,
        corrections: Vec<CorrectionMade>,
        /// The round disputed (journal format 5 on).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        round: Option<u64>,
    },
    /// A fill or credit slip's course, or a count of the float (journal format 15).
    FloatSlip {
        table: String,
        slip: SlipRecord,
    },
});

/// A slip's step or a float's count, as the journal keeps it: who signed,
/// with their licence ("-" where none is recorded).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum SlipRecord {
    /// The pit asked: the first signature. `kind` is `fill` or `credit`.
    Requested {
        id: String,
        kind: String,
        amount: u64,
        by: String,
        licence: String,
    },
    /// The cage signed, the second signature: the money moved.
    Signed {
        id: String,
        kind: String,
        amount: u64,
        by: String,
        licence: String,
    },
    Voided {
        id: String,
        by: String,
        reason: String,
    },
    /// The float counted at `opening` or `closing`, beside the ledger's balance then.
    Counted {
        id: String,
        when: String,
        counted: u64,
        ledger: i64,
        by: String,
        licence: String,
    },
}

/// A Roulette X lucky number and the odds drawn for it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LuckyNumber {
    pub pocket: String,
    pub odds: u32,
}

impl From<&LuckyNumber> for crate::api::LuckyView {
    fn from(l: &LuckyNumber) -> crate::api::LuckyView {
        crate::api::LuckyView {
            pocket: l.pocket.clone(),
            odds: l.odds,
        }
    }
}

pub(super) fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A dispute's correction of a player's chips, as it was made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CorrectionMade {
    pub player: String,
    pub amount: i64,
}

/// The colour of the pocket a label names (`green` for a label that is none).
pub fn colour_of(label: &str) -> &'static str {
    match Pocket::parse(label).map(|p| p.colour()) {
        Some(croupier_core::Colour::Red) => "red",
        Some(croupier_core::Colour::Black) => "black",
        _ => "green",
    }
}

/// A return reason's code read back, for rendering; an unknown code is kept as it is.
pub fn return_reason(code: &str) -> Option<ReturnReason> {
    ReturnReason::parse(code)
}

/// A no spin's reason read back.
pub fn no_spin_reason(code: &str) -> Option<NoSpinReason> {
    NoSpinReason::parse(code)
}

/// An outcome's name read back.
pub fn outcome(name: &str) -> Option<Outcome> {
    [
        Outcome::Win,
        Outcome::Lose,
        Outcome::Half,
        Outcome::Prison,
        Outcome::Released,
        Outcome::Void,
    ]
    .into_iter()
    .find(|o| o.name() == name)
}
