//! Core events in the journal's own forms, player numbers turned into names.

use croupier_core::bonus::BonusDraw;
use croupier_core::round::Event;
use croupier_core::Minor;

use super::event::{CorrectionMade, JournalEvent, LuckyNumber, StoredLimit};

/// A core event at `table`, with player numbers turned into names.
pub fn from_core(table: &str, event: &Event, name_of: &dyn Fn(u64) -> String) -> JournalEvent {
    let t = table.to_string();
    match event {
        Event::InspectionRecorded(i) => JournalEvent::InspectionRecorded {
            table: t,
            at_ms: i.at_ms,
            by: i.by.name.clone(),
            licence: i.by.licence.clone(),
            regulator: i.by_regulator,
        },
        Event::SeriesEntered {
            at_ms,
            by,
            player,
            bet_ids,
        } => JournalEvent::VerbalSeries {
            table: t,
            at_ms: *at_ms,
            by: by.name.clone(),
            licence: by.licence.clone(),
            player: name_of(*player),
            bet_ids: bet_ids.clone(),
        },
        Event::BallInspected {
            at_ms,
            by,
            reason,
            damaged,
        } => JournalEvent::BallInspected {
            table: t,
            at_ms: *at_ms,
            by: by.name.clone(),
            licence: by.licence.clone(),
            reason: reason.name().to_string(),
            damaged: *damaged,
        },
        Event::AdjustmentRecorded(a) => JournalEvent::AdjustmentRecorded {
            table: t,
            at_ms: a.at_ms,
            by: a.by.name.clone(),
            licence: a.by.licence.clone(),
            replacement: a.replacement,
            description: a.description.clone(),
            witness: a.witness.as_ref().map(|w| w.name.clone()),
            witness_licence: a.witness.as_ref().map(|w| w.licence.clone()),
            external: a.external,
            adjustment: a.awaiting_witness.as_ref().map(|w| w.adjustment),
            awaiting_witness: a.awaiting_witness.as_ref().map(|w| w.witness.clone()),
        },
        Event::LimitsSet { at_ms, by, limits } => JournalEvent::LimitsSet {
            table: t,
            at_ms: *at_ms,
            by: by.name.clone(),
            licence: by.licence.clone(),
            limits: limits
                .iter()
                .map(|(kind, range)| StoredLimit {
                    kind: kind.name().to_string(),
                    min: range.min.get(),
                    max: range.max.get(),
                })
                .collect(),
        },
        Event::BonusDrawn { round, draw, .. } => {
            let (targets, lucky) = match draw {
                BonusDraw::Targets(t) => (t.iter().map(|p| p.label().to_string()).collect(), vec![]),
                BonusDraw::Lucky(l) => (
                    vec![],
                    l.numbers
                        .iter()
                        .map(|&(p, odds)| LuckyNumber {
                            pocket: p.label().to_string(),
                            odds,
                        })
                        .collect(),
                ),
            };
            JournalEvent::BonusDrawn {
                table: t,
                round: *round,
                targets,
                lucky,
            }
        }
        Event::BonusWagerAccepted {
            round,
            wager_id,
            player,
            stake,
            ..
        } => Wager::new(t, *round, wager_id, name_of(*player), ("placed", *stake)).into(),
        Event::BonusWagerReturned {
            round,
            wager_id,
            player,
            stake,
        } => Wager::new(t, *round, wager_id, name_of(*player), ("returned", *stake)).into(),
        Event::BonusWagerCollected {
            round,
            wager_id,
            player,
            stake,
            to_primary,
            to_secondary,
        } => Wager {
            to_primary: to_primary.get(),
            to_secondary: to_secondary.get(),
            ..Wager::new(t, *round, wager_id, name_of(*player), ("collected", *stake))
        }
        .into(),
        Event::BonusAwarded {
            round,
            wager_id,
            player,
            symbol,
            award,
        } => Wager {
            symbol: Some(symbol.code()),
            ..Wager::new(t, *round, wager_id, name_of(*player), ("awarded", *award))
        }
        .into(),
        Event::CommunityPaid {
            round,
            wager_id,
            player,
            for_wager,
            award,
        } => Wager {
            for_wager: Some(for_wager.clone()),
            ..Wager::new(t, *round, wager_id, name_of(*player), ("community", *award))
        }
        .into(),
        Event::TableOpened { .. } => JournalEvent::TableOpened { table: t },
        Event::TableClosed { .. } => JournalEvent::TableClosed { table: t },
        Event::BettingOpened { round, deadline_ms, .. } => JournalEvent::BettingOpened {
            table: t,
            round: *round,
            deadline_ms: *deadline_ms,
        },
        Event::BetAccepted { round, bet, .. } => JournalEvent::BetAccepted {
            table: t,
            round: *round,
            bet_id: bet.bet_id.clone(),
            player: name_of(bet.player),
            spot: bet.bet.spot().notation(),
            kind: bet.bet.kind().name().to_string(),
            stake: bet.bet.stake().get(),
            under_minimum: bet.bet.under_minimum(),
        },
        Event::BetCancelled {
            round,
            bet_id,
            player,
            returned,
            ..
        } => JournalEvent::BetCancelled {
            table: t,
            round: *round,
            bet_id: bet_id.clone(),
            player: name_of(*player),
            returned: returned.get(),
        },
        Event::NoMoreBets { round, .. } => JournalEvent::NoMoreBets {
            table: t,
            round: *round,
        },
        Event::NoSpin { round, reason, .. } => JournalEvent::NoSpin {
            table: t,
            round: *round,
            reason: reason.name().to_string(),
        },
        Event::SpinVoided { round, pocket, .. } => JournalEvent::SpinVoided {
            table: t,
            round: *round,
            pocket: pocket.label().to_string(),
        },
        Event::ResultRecorded { round, pocket, .. } => JournalEvent::Result {
            table: t,
            round: *round,
            pocket: pocket.label().to_string(),
        },
        Event::BetSettled {
            round,
            bet_id,
            player,
            outcome,
            staked,
            returned,
        } => JournalEvent::BetSettled {
            table: t,
            round: *round,
            bet_id: bet_id.clone(),
            player: name_of(*player),
            result: outcome.name().to_string(),
            staked: staked.get(),
            returned: returned.get(),
        },
        Event::BetReturned {
            round,
            bet_id,
            player,
            returned,
            why,
        } => JournalEvent::BetReturned {
            table: t,
            round: *round,
            bet_id: bet_id.clone(),
            player: name_of(*player),
            returned: returned.get(),
            reason: why.code().to_string(),
        },
        Event::BetImprisoned {
            round,
            bet_id,
            player,
            held,
        } => JournalEvent::BetImprisoned {
            table: t,
            round: *round,
            bet_id: bet_id.clone(),
            player: name_of(*player),
            held: held.get(),
        },
        Event::RoundSettled {
            round,
            pocket,
            staked,
            returned,
            ..
        } => JournalEvent::RoundSettled {
            table: t,
            round: *round,
            pocket: pocket.map(|p| p.label().to_string()),
            staked: staked.get(),
            returned: returned.get(),
        },
        Event::EmergencyDeclared { by, reason, .. } => JournalEvent::EmergencyDeclared {
            table: t,
            by: by.name.clone(),
            reason: reason.clone(),
        },
        Event::EmergencyLifted { by, .. } => JournalEvent::EmergencyLifted {
            table: t,
            by: by.name.clone(),
        },
        Event::BetsAnnulled {
            by, bet_ids, reason, ..
        } => JournalEvent::BetsAnnulled {
            table: t,
            by: by.name.clone(),
            bet_ids: bet_ids.clone(),
            reason: reason.clone(),
        },
        Event::DisputeDecided {
            by,
            reason,
            corrections,
            ..
        } => JournalEvent::DisputeDecided {
            table: t,
            by: by.name.clone(),
            reason: reason.clone(),
            corrections: corrections
                .iter()
                .map(|&(p, amount)| CorrectionMade {
                    player: name_of(p),
                    amount: amount as i64,
                })
                .collect(),
            round: None,
        },
    }
}

/// A Bonus Spin Xtreme wager's event (journal format 11), built field by field.
struct Wager {
    table: String,
    round: u64,
    wager_id: String,
    player: String,
    what: &'static str,
    amount: u64,
    symbol: Option<String>,
    for_wager: Option<String>,
    to_primary: u64,
    to_secondary: u64,
}

impl Wager {
    fn new(table: String, round: u64, wager_id: &str, player: String, (what, amount): (&'static str, Minor)) -> Wager {
        Wager {
            table,
            round,
            wager_id: wager_id.to_string(),
            player,
            what,
            amount: amount.get(),
            symbol: None,
            for_wager: None,
            to_primary: 0,
            to_secondary: 0,
        }
    }
}

impl From<Wager> for JournalEvent {
    fn from(w: Wager) -> JournalEvent {
        JournalEvent::BonusWager {
            table: w.table,
            round: w.round,
            wager_id: w.wager_id,
            player: w.player,
            what: w.what.to_string(),
            amount: w.amount,
            symbol: w.symbol,
            for_wager: w.for_wager,
            to_primary: w.to_primary,
            to_secondary: w.to_secondary,
        }
    }
}
