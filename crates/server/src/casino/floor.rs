//! A table as the floor overview shows it (`GET /api/floor`), read on the
//! table's writer: its game now, its dealer on duty, its posted limits, its
//! float and today's books, and what wants the pit. The runtime adds the
//! game integrity monitor's alarms, which the casino does not keep.

use croupier_core::round::Phase;
use croupier_ledger::TableAccount;

use super::directory::Directory;
use super::journal::JournalEvent;
use super::table::TableSlot;
use crate::api::bodies::{FloorAlerts, FloorTable, PostedLimit};

/// `slot` on the floor as of `now_ms`.
pub fn floor_table(slot: &TableSlot, dir: &Directory, now_ms: u64) -> FloorTable {
    let today = dir.gaming_day(now_ms);
    let books = slot.books_of(today);
    let profile = slot.table.profile();
    let wheel = slot.table.config().wheel;
    let phase = slot.table.phase();
    let disputes_today = slot
        .log
        .iter()
        .filter(|(at_ms, event, _)| {
            matches!(event, JournalEvent::DisputeDecided { .. }) && dir.gaming_day(*at_ms) == today
        })
        .count() as u64;
    FloorTable {
        table: slot.id.clone(),
        profile: slot.profile_name.clone(),
        jurisdiction: profile.jurisdiction().title.clone(),
        wheel: wheel.name().to_string(),
        outcome: slot.outcome,
        currency: profile.spec().currency.clone(),
        phase: phase_code(phase).to_string(),
        deadline_ms: match phase {
            Phase::BettingOpen { deadline_ms } => Some(deadline_ms),
            _ => None,
        },
        round: slot.table.round(),
        dealer: slot.dealer_on_duty().map(str::to_string),
        players: slot.colours.len() as u64,
        limits: profile
            .kinds_on(wheel)
            .into_iter()
            .filter(|k| !slot.table.bonus_refuses(*k))
            .map(|k| {
                let limit = profile.limit(k);
                PostedLimit {
                    kind: k.name().to_string(),
                    inside: k.is_inside(),
                    min: limit.map(|r| r.min.get()),
                    max: limit.map(|r| r.max.get()),
                }
            })
            .collect(),
        float: slot.own_balance(TableAccount::Float) as i64,
        drop: books.drop(),
        win: books.win() as i64,
        rounds_today: books.rounds,
        alerts: FloorAlerts {
            emergency: slot.table.emergency(),
            integrity_alarms: 0,
            disputes_today,
            slips_open: slot.slip_views(None).iter().filter(|s| s.state == "open").count() as u64,
            ball_to_inspect: slot.table.ball_awaits_inspection().map(|r| r.name().to_string()),
            awaits_regulator: slot.table.awaits_regulator(),
            not_inspected: !slot.table.inspected(),
        },
    }
}

/// A table's phase as the pages and the display board name it.
pub fn phase_code(phase: Phase) -> &'static str {
    match phase {
        Phase::Closed => "closed",
        Phase::Open => "open",
        Phase::BettingOpen { .. } => "betting",
        Phase::NoMoreBets => "closed-betting",
    }
}
