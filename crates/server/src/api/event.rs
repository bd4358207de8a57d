//! What happened, as the API shows it: on the table streams, in answers
//! and in recall. The journal keeps events of its own (see
//! `casino::journal`); these views are rendered from them and may be
//! reworded or reshaped without touching a stored byte.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{Correction, OutcomeSource, Role};

/// A Roulette X lucky number and the odds it pays (Maryland ch.4 F).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct LuckyView {
    pub pocket: String,
    pub odds: u32,
}

macro_rules! event_view {
    ({ $($special:tt)* } $( $group:ident { $( $(#[$vm:meta])* $name:ident { $( $(#[$fm:meta])* $field:ident : $ty:ty ),* $(,)? } ),* $(,)? } )*) => {
        /// What happened, as everyone outside the core sees it.
        #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
        #[serde(tag = "type", rename_all = "snake_case")]
        pub enum EventView {
            $($special)*
            $( $( $(#[$vm])* $name { $( $(#[$fm])* $field: $ty ),* }, )* )*
        }
    };
}

// What happened, as everyone outside the core sees it: the plain events of
// `plain_events.rs`, and those shown otherwise than the journal keeps them.
crate::api::plain_events!(event_view! {
    /// A user's display name or role changed; what is left out stayed as it was.
    UserEdited {
        username: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        display_name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        role: Option<Role>,
    },
    UserCreated {
        username: String,
        role: Role,
    },
    TableCreated {
        table: String,
        profile: String,
        wheel: String,
        outcome: OutcomeSource,
    },
    /// Something that happened to a tournament: `record.what` names it
    /// (registered, started, rebought, eliminated, awarded, ended...).
    Tournament {
        tournament: String,
        #[schema(value_type = Object)]
        record: serde_json::Value,
    },
    /// The table plays `tournament`'s `event` in points from now on
    /// (Colorado 2214), or cash again when both are absent.
    TablePlay {
        table: String,
        tournament: Option<String>,
        event: Option<String>,
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
        /// Each purchase revalued, oldest first: its UTC day, its chips and
        /// what each was cashed in at (never above its face value).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        lots: Vec<RevaluedLot>,
    },
    /// The staff recorded that a player took their colour chips away from
    /// the table (european-casino 5.2): they play no more until cashed in.
    ChipsTakenAway {
        table: String,
        player: String,
        /// Their face value when taken.
        chips: u64,
        at_ms: u64,
        /// Who recorded it, and their licence: the staff's to see.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        licence: Option<String>,
    },
    /// A fill or credit slip requested, signed (its money moved) or voided,
    /// or the float counted: the table's staff's.
    FloatSlip {
        table: String,
        slip: super::report::SlipStep,
    },
    /// The table's limits from the next round on, per kind of bet, in minor units.
    LimitsSet {
        table: String,
        /// Who set them, with their licence: shown to the table's staff only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        licence: Option<String>,
        limits: Vec<crate::api::KindLimit>,
    },
    Result {
        table: String,
        round: u64,
        pocket: String,
        colour: String,
    },
    BetSettled {
        table: String,
        round: u64,
        bet_id: String,
        player: String,
        result: String,
        staked: u64,
        returned: u64,
        net: i64,
    },
    BetReturned {
        table: String,
        round: u64,
        bet_id: String,
        player: String,
        returned: u64,
        /// Why, as a code: `table_closed`, `annulled`, `round_voided`, or a no spin's reason.
        reason: String,
        /// Why, in words.
        why: String,
    },
    /// A bonus table's draw after no more bets (Maryland ch.3 F(16), (18)):
    /// Bonus Spin Xtreme's target numbers, or Roulette X's lucky numbers
    /// with the odds each pays.
    BonusDrawn {
        table: String,
        round: u64,
        targets: Vec<String>,
        lucky: Vec<LuckyView>,
    },
    /// A player's Bonus Spin Xtreme wager: `placed`, `returned`, `collected`
    /// (lost to the house, its shares to the meters), `awarded` (what the
    /// bonus wheel's `symbol` paid: "primary", "secondary", "blank" or an
    /// amount), or `community` (Community Pay for another's `for_wager`).
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
    },
    EmergencyDeclared {
        table: String,
        /// Who declared it: shown to the table's staff only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
        reason: String,
    },
    EmergencyLifted {
        table: String,
        /// Who lifted it: shown to the table's staff only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
    },
    /// A dispute decided (Colorado 2206(5)): a player sees it only with their own corrections.
    DisputeDecided {
        table: String,
        /// Who decided it: shown to the table's staff only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
        reason: String,
        corrections: Vec<Correction>,
        /// The round disputed, where the dispute named one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        round: Option<u64>,
    },
});

/// One purchase of colour chips revalued on its return (european-casino 5.4).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RevaluedLot {
    /// The UTC day (days since 1970) it was bought on.
    pub day: u64,
    pub chips: u64,
    /// What each chip was cashed in at, in minor units.
    pub unit: u64,
}
