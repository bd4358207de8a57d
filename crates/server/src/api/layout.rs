//! What a table's felt looks like and what its posted rules say, as the
//! terminal draws it: its spots, kinds of bet and limits, its bonus.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{OutcomeSource, Role};

/// A table's bonus and its paytable, posted at the table.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct LayoutBonus {
    /// `roulette-x` or `bonus-spin-xtreme`.
    pub kind: String,
    pub name: String,
    /// The Bonus Spin Xtreme wager, in minor units.
    pub wager: Option<u64>,
    /// The paytable and its rules, line by line, as the table posts them.
    pub rules: Vec<String>,
}

/// A bet on a table's layout, with the pockets it covers.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct LayoutSpot {
    pub spot: String,
    pub kind: String,
    pub covers: Vec<String>,
    /// A stake must be a multiple of this many units (neighbours, complete).
    pub units: u64,
    /// The bets a composite bet stands for, each with its share of the units:
    /// what the dealer lays out on the felt for it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<LayoutPart>,
}

/// One bet of a composite bet, and the units of its stake that play on it.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct LayoutPart {
    pub spot: String,
    pub units: u64,
}

/// A kind of bet the table offers, its payout and its limits.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct LayoutKind {
    pub kind: String,
    pub description: String,
    /// A bet on the numbers themselves (Colorado 2201(6)), not an outside bet.
    pub inside: bool,
    pub pays: Option<u32>,
    pub min: Option<u64>,
    pub max: Option<u64>,
    /// A match play coupon may be played on a bet of this kind (the
    /// profile's `match_play`, Colorado 2203(1)); absent where none may.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub match_play: bool,
}

/// What a table's felt looks like and what its posted rules say.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Layout {
    pub table: String,
    pub profile: String,
    pub title: String,
    pub currency: String,
    pub wheel: String,
    pub wheel_description: String,
    /// `single-zero`, `double-zero`, `triple-zero` or `double-zero-covered`.
    pub layout: String,
    pub bettable: Vec<String>,
    pub order: Vec<String>,
    pub pocket_colours: BTreeMap<String, String>,
    pub outcome: OutcomeSource,
    pub in_prison: bool,
    pub betting_window_ms: u64,
    pub chip_colours: Vec<String>,
    pub kinds: Vec<LayoutKind>,
    pub spots: Vec<LayoutSpot>,
    /// The no spins keyed at the table (from journal format 9 an emergency is
    /// declared and an automated wheel's sensor reports are its own).
    pub no_spin_reasons: Vec<String>,
    /// Those of them only the pit calls: a supervisor's command.
    pub pit_no_spin_reasons: Vec<String>,
    pub min_ball_revolutions: u8,
    pub dispute_authority: String,
    /// The roles that decide this table's disputes (Colorado 2206(5)).
    #[serde(default)]
    pub dispute_roles: Vec<Role>,
    /// The roles that may confirm colour chips at face value past the gaming day (european-casino 5.5).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chips_confirmed_by: Vec<Role>,
    /// The croupier takes a player's announced series of verbal bets
    /// (european-casino 3.5-3.6); `false` where every wager is made with chips.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub verbal_bets: bool,
    pub house_rules: String,
    /// The restriction on tip wagers, posted at the table (Colorado 2207).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tips_notice: Option<String>,
    /// The casino's operator, whose name the layout shows (Maryland ch.1 G(1)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operator: Option<String>,
    /// What colour chips kept past the gaming day are cashed in at, and who
    /// confirms their face value (european-casino 5.4-5.5), posted at the table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chips_notice: Option<String>,
    /// The table's bonus and its paytable (Maryland ch.4 D-F).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bonus: Option<LayoutBonus>,
}
