//! What game recall answers: a round as it was played, its bets and the
//! chips before and after, whole for staff and a player's own for a player.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A bet as game recall shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RecalledBet {
    pub bet_id: String,
    pub player: String,
    pub spot: String,
    pub kind: String,
    pub stake: u64,
    pub result: Option<String>,
    pub returned: Option<u64>,
    /// Where the bonus wheel stopped for a Bonus Spin Xtreme wager on a
    /// target: `primary`, `secondary`, `blank` or an amount in minor units.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
}

/// A round as game recall shows it: its bets, outcome, settlements, and
/// each player's chips at the table when betting opened and when it settled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RecalledRound {
    pub id: String,
    pub table: String,
    pub round: u64,
    pub opened_at_ms: u64,
    pub pocket: Option<String>,
    pub no_spins: Vec<String>,
    pub bets: Vec<RecalledBet>,
    pub settled: bool,
    pub chips_before: BTreeMap<String, i128>,
    pub chips_after: BTreeMap<String, i128>,
    /// Played for this tournament's event, in points (Colorado 2214).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<String>,
    /// A Bonus Spin Xtreme table's target numbers for the round.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bonus_targets: Vec<String>,
    /// A Roulette X table's lucky numbers for the round, with their odds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bonus_lucky: Vec<crate::api::LuckyView>,
}

impl RecalledRound {
    /// The round as `player` may see it: their own bets and balances only.
    pub fn redacted_for(mut self, player: &str) -> RecalledRound {
        self.bets.retain(|b| b.player == player);
        self.chips_before.retain(|p, _| p == player);
        self.chips_after.retain(|p, _| p == player);
        self
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Rounds {
    pub rounds: Vec<RecalledRound>,
}
