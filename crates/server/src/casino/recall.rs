//! Game recall: each round's record, kept by its table (the newest
//! [`RECALL_ROUNDS_MAX`]) and, once final, in the recall archive. A stored
//! format too: the archive keeps records as JSON, and `croupier verify`
//! compares each with the round the journal replays.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::journal::event::LuckyNumber;
use crate::api::bodies::{RecalledBet, RecalledRound};

/// Rounds kept in memory per table for game recall and disputes, the
/// newest; every round before them is in the recall archive.
pub const RECALL_ROUNDS_MAX: usize = 100;
/// From journal format 13 ([`FORMAT_RECALL_BETS_KEPT`]), the most bets a
/// table's kept rounds hold together, but for the round in play; the round
/// before it is kept whatever it holds: 100 rounds of 100 bets.
pub const RECALL_BETS_KEPT: usize = 10_000;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BetRecord {
    pub bet_id: String,
    pub player: String,
    pub spot: String,
    pub kind: String,
    pub stake: u64,
    pub result: Option<String>,
    pub returned: Option<u64>,
    /// Where the bonus wheel stopped for a Bonus Spin Xtreme wager on a
    /// target: `primary`, `secondary`, `blank` or an amount.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
}

/// A round as game recall keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundRecord {
    pub id: String,
    pub table: String,
    pub round: u64,
    pub opened_at_ms: u64,
    pub pocket: Option<String>,
    pub no_spins: Vec<String>,
    pub bets: Vec<BetRecord>,
    pub settled: bool,
    /// Each player's chips at the table when betting opened, and when the round settled.
    pub chips_before: BTreeMap<String, i128>,
    pub chips_after: BTreeMap<String, i128>,
    /// The tournament whose event the round was played for, in points
    /// (Colorado 2214): its stakes are points, not money.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<String>,
    /// A Bonus Spin Xtreme table's target numbers for the round. Its
    /// wagers are among `bets`, of kind `bonus-spin-xtreme`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bonus_targets: Vec<String>,
    /// A Roulette X table's lucky numbers for the round, with their odds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bonus_lucky: Vec<LuckyNumber>,
}

impl From<&RoundRecord> for RecalledRound {
    fn from(r: &RoundRecord) -> RecalledRound {
        RecalledRound {
            id: r.id.clone(),
            table: r.table.clone(),
            round: r.round,
            opened_at_ms: r.opened_at_ms,
            pocket: r.pocket.clone(),
            no_spins: r.no_spins.clone(),
            bets: r
                .bets
                .iter()
                .map(|b| RecalledBet {
                    bet_id: b.bet_id.clone(),
                    player: b.player.clone(),
                    spot: b.spot.clone(),
                    kind: b.kind.clone(),
                    stake: b.stake,
                    result: b.result.clone(),
                    returned: b.returned,
                    symbol: b.symbol.clone(),
                })
                .collect(),
            settled: r.settled,
            chips_before: r.chips_before.clone(),
            chips_after: r.chips_after.clone(),
            tournament: r.tournament.clone(),
            bonus_targets: r.bonus_targets.clone(),
            bonus_lucky: r.bonus_lucky.iter().map(Into::into).collect(),
        }
    }
}

/// The newest `n` rounds of several lists, each newest first.
pub fn newest<'a>(lists: impl Iterator<Item = Vec<&'a RoundRecord>>, n: usize) -> Vec<&'a RoundRecord> {
    let mut rounds: Vec<&RoundRecord> = lists.flatten().collect();
    rounds.sort_by_key(|r| std::cmp::Reverse(r.opened_at_ms));
    rounds.truncate(n);
    rounds
}
