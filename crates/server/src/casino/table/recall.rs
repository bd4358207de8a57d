//! A table's recall: each round recorded as its events come, kept within
//! [`RECALL_ROUNDS_MAX`] rounds and [`RECALL_BETS_KEPT`] bets, and read
//! back newest first. The records themselves are [`crate::casino::recall`]'s.

use std::collections::BTreeMap;
use std::sync::Arc;

use croupier_core::bonus::BonusDraw;
use croupier_core::round::Event;

use super::TableSlot;
use crate::casino::journal::event::LuckyNumber;
use crate::casino::journal::FORMAT_RECALL_BETS_KEPT;
use crate::casino::recall::{BetRecord, RoundRecord, RECALL_BETS_KEPT, RECALL_ROUNDS_MAX};

/// Lets go of the oldest of `rounds` (about to take a new one) until the
/// rest hold at most `bets` bets together, keeping the newest always: with
/// the round about to open, the one just played, which a dispute names by
/// default.
fn keep_within(rounds: &mut std::collections::VecDeque<Arc<RoundRecord>>, bets: usize) {
    let mut held: usize = rounds.iter().map(|r| r.bets.len()).sum();
    while rounds.len() > 1 && held > bets {
        if let Some(gone) = rounds.pop_front() {
            held -= gone.bets.len();
        }
    }
}

/// Keeps the recall record of the current round up to date, finding bets
/// through an index so a round of many bets settles in linear time.
pub(super) fn record_all(
    slot: &mut TableSlot,
    format: u32,
    at_ms: u64,
    events: &[Event],
    name_of: &dyn Fn(u64) -> String,
    before: &BTreeMap<String, i128>,
) {
    let table = slot.id.clone();
    let mut index: Option<std::collections::HashMap<String, usize>> = None;
    for e in events {
        if let Event::BettingOpened { round, .. } = e {
            // The round before is over: its record changes no more.
            if let (Some(finished), Some(last)) = (slot.finished.as_mut(), slot.rounds.back()) {
                finished.push(last.clone());
            }
            if slot.rounds.len() >= RECALL_ROUNDS_MAX {
                slot.rounds.pop_front();
            }
            if format >= FORMAT_RECALL_BETS_KEPT {
                keep_within(&mut slot.rounds, RECALL_BETS_KEPT);
            }
            // Bets still in prison ride into the new round's record.
            let carried: Vec<BetRecord> = slot
                .table
                .bets()
                .iter()
                .map(|b| BetRecord {
                    bet_id: b.bet_id.clone(),
                    player: name_of(b.player),
                    spot: b.bet.spot().notation(),
                    kind: b.bet.kind().name().to_string(),
                    stake: b.bet.stake().get(),
                    result: Some("prison".into()),
                    returned: None,
                    symbol: None,
                })
                .collect();
            slot.rounds.push_back(Arc::new(RoundRecord {
                id: format!("{table}/{round}"),
                table: table.clone(),
                round: *round,
                opened_at_ms: at_ms,
                pocket: None,
                no_spins: Vec::new(),
                bets: carried,
                settled: false,
                chips_before: before.clone(),
                chips_after: BTreeMap::new(),
                tournament: slot.points.as_ref().map(|p| p.tournament.clone()),
                bonus_targets: Vec::new(),
                bonus_lucky: Vec::new(),
            }));
            index = None;
            continue;
        }
        // The newest round is shared with no one yet: changing it copies nothing.
        let Some(r) = slot.rounds.back_mut().map(Arc::make_mut) else {
            continue;
        };
        let mut update = |bet_id: &str, result: &str, returned: Option<u64>| {
            let positions =
                index.get_or_insert_with(|| r.bets.iter().enumerate().map(|(i, b)| (b.bet_id.clone(), i)).collect());
            if let Some(&i) = positions.get(bet_id) {
                r.bets[i].result = Some(result.to_string());
                if returned.is_some() {
                    r.bets[i].returned = returned;
                }
            }
        };
        match e {
            Event::BetAccepted { bet, .. } => {
                r.bets.push(BetRecord {
                    bet_id: bet.bet_id.clone(),
                    player: name_of(bet.player),
                    spot: bet.bet.spot().notation(),
                    kind: bet.bet.kind().name().to_string(),
                    stake: bet.bet.stake().get(),
                    result: None,
                    returned: None,
                    symbol: None,
                });
                index = None;
            }
            Event::BetCancelled { bet_id, .. } => {
                r.bets.retain(|b| &b.bet_id != bet_id);
                index = None;
            }
            Event::NoSpin { reason, .. } => r.no_spins.push(reason.name().to_string()),
            Event::ResultRecorded { pocket, .. } => r.pocket = Some(pocket.label().to_string()),
            Event::BetSettled {
                bet_id,
                outcome,
                returned,
                ..
            } => update(bet_id, outcome.name(), Some(returned.get())),
            Event::BetReturned { bet_id, returned, .. } => update(bet_id, "returned", Some(returned.get())),
            Event::BetImprisoned { bet_id, .. } => update(bet_id, "prison", None),
            Event::RoundSettled { .. } => r.settled = true,
            Event::BonusDrawn { draw, .. } => match draw {
                BonusDraw::Targets(t) => r.bonus_targets = t.iter().map(|p| p.label().to_string()).collect(),
                BonusDraw::Lucky(l) => {
                    r.bonus_lucky = l
                        .numbers
                        .iter()
                        .map(|&(p, odds)| LuckyNumber {
                            pocket: p.label().to_string(),
                            odds,
                        })
                        .collect()
                }
            },
            Event::BonusWagerAccepted {
                wager_id,
                player,
                stake,
                ..
            } => {
                r.bets.push(BetRecord {
                    bet_id: wager_id.clone(),
                    player: name_of(*player),
                    spot: "bonus-spin-xtreme".into(),
                    kind: "bonus-spin-xtreme".into(),
                    stake: stake.get(),
                    result: None,
                    returned: None,
                    symbol: None,
                });
                index = None;
            }
            Event::BonusWagerReturned { wager_id, stake, .. } => update(wager_id, "returned", Some(stake.get())),
            Event::BonusWagerCollected { wager_id, .. } => update(wager_id, "lose", Some(0)),
            // An award and Community Pay add to what the wager returned.
            Event::BonusAwarded { wager_id, award, .. } | Event::CommunityPaid { wager_id, award, .. } => {
                let positions = index
                    .get_or_insert_with(|| r.bets.iter().enumerate().map(|(i, b)| (b.bet_id.clone(), i)).collect());
                if let Some(&i) = positions.get(wager_id.as_str()) {
                    let bet = &mut r.bets[i];
                    bet.returned = Some(bet.returned.unwrap_or(0) + award.get());
                    if award.get() > 0 {
                        bet.result = Some("win".into());
                    }
                    if let Event::BonusAwarded { symbol, .. } = e {
                        bet.symbol = Some(symbol.code());
                    }
                }
            }
            _ => {}
        }
    }
}

/// A table's rounds kept in memory for recall, and those handed to the archive.
impl TableSlot {
    /// The last `n` rounds, newest first.
    pub fn recall(&self, n: usize) -> Vec<&RoundRecord> {
        self.rounds.iter().rev().take(n).map(Arc::as_ref).collect()
    }

    /// The last `n` rounds `player` bet in at this table, newest first.
    pub fn recall_player(&self, player: &str, n: usize) -> Vec<&RoundRecord> {
        self.rounds
            .iter()
            .rev()
            .filter(|r| r.bets.iter().any(|b| b.player == player))
            .take(n)
            .map(Arc::as_ref)
            .collect()
    }

    pub fn round(&self, id: &str) -> Option<&RoundRecord> {
        self.rounds.iter().find(|r| r.id == id).map(Arc::as_ref)
    }

    /// From now on, keeps each round whose record becomes final for [`TableSlot::take_finished`].
    pub fn keep_finished(&mut self) {
        self.finished.get_or_insert_with(Vec::new);
    }

    /// The rounds whose records became final since the last call, oldest first.
    pub fn take_finished(&mut self) -> Vec<Arc<RoundRecord>> {
        self.finished.as_mut().map(std::mem::take).unwrap_or_default()
    }
}
