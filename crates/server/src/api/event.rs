//! What happened, as the API shows it: on the table streams, in answers
//! and in recall. The journal keeps events of its own (see
//! `casino::journal`); these views are rendered from them and may be
//! reworded or reshaped without touching a stored byte.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{Correction, OutcomeSource, Role};

/// What happened, as everyone outside the core sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventView {
    UserCreated {
        username: String,
        role: Role,
    },
    LoginFailed {
        username: String,
        failures: u32,
        locked: bool,
    },
    LoginSucceeded {
        username: String,
    },
    JournalFormatSet {
        format: u32,
    },
    UserLocked {
        username: String,
    },
    UserUnlocked {
        username: String,
    },
    PasswordSet {
        username: String,
    },
    TableCreated {
        table: String,
        profile: String,
        wheel: String,
        outcome: OutcomeSource,
    },
    CashedIn {
        player: String,
        amount: u64,
    },
    CashedOut {
        player: String,
        amount: u64,
    },
    BoughtIn {
        table: String,
        player: String,
        amount: u64,
        colour: String,
        chip_value: u64,
    },
    /// Colour chips sold for cash at the table; the cash went into the drop box.
    ChipsSold {
        table: String,
        player: String,
        amount: u64,
        colour: String,
        chip_value: u64,
    },
    LeftTable {
        table: String,
        player: String,
        amount: u64,
        colour: String,
    },
    Tipped {
        table: String,
        player: String,
        amount: u64,
    },
    FloatFilled {
        table: String,
        amount: u64,
    },
    InspectionRecorded {
        table: String,
        at_ms: u64,
        by: String,
        licence: String,
    },
    AdjustmentRecorded {
        table: String,
        at_ms: u64,
        by: String,
        licence: String,
        replacement: bool,
        description: String,
    },
    TableOpened {
        table: String,
    },
    TableClosed {
        table: String,
    },
    BettingOpened {
        table: String,
        round: u64,
        deadline_ms: u64,
    },
    BetAccepted {
        table: String,
        round: u64,
        bet_id: String,
        player: String,
        spot: String,
        kind: String,
        stake: u64,
    },
    BetCancelled {
        table: String,
        round: u64,
        bet_id: String,
        player: String,
        returned: u64,
    },
    NoMoreBets {
        table: String,
        round: u64,
    },
    NoSpin {
        table: String,
        round: u64,
        reason: String,
    },
    SpinVoided {
        table: String,
        round: u64,
        pocket: String,
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
    BetImprisoned {
        table: String,
        round: u64,
        bet_id: String,
        player: String,
        held: u64,
    },
    RoundSettled {
        table: String,
        round: u64,
        pocket: Option<String>,
        staked: u64,
        returned: u64,
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
    BetsAnnulled {
        table: String,
        by: String,
        bet_ids: Vec<String>,
        reason: String,
    },
    DisputeDecided {
        table: String,
        by: String,
        reason: String,
        corrections: Vec<Correction>,
    },
}

impl EventView {
    /// Who an event is for: its table, and the player it belongs to (None: it is
    /// public at that table). None for events that are about no table.
    pub fn audience(&self) -> Option<(&str, Option<&str>)> {
        use EventView as E;
        match self {
            E::BoughtIn { table, player, .. }
            | E::ChipsSold { table, player, .. }
            | E::LeftTable { table, player, .. }
            | E::Tipped { table, player, .. }
            | E::BetAccepted { table, player, .. }
            | E::BetCancelled { table, player, .. }
            | E::BetSettled { table, player, .. }
            | E::BetReturned { table, player, .. }
            | E::BetImprisoned { table, player, .. } => Some((table, Some(player))),
            E::TableCreated { table, .. }
            | E::FloatFilled { table, .. }
            | E::InspectionRecorded { table, .. }
            | E::AdjustmentRecorded { table, .. }
            | E::TableOpened { table }
            | E::TableClosed { table }
            | E::BettingOpened { table, .. }
            | E::NoMoreBets { table, .. }
            | E::NoSpin { table, .. }
            | E::SpinVoided { table, .. }
            | E::Result { table, .. }
            | E::RoundSettled { table, .. }
            | E::EmergencyDeclared { table, .. }
            | E::EmergencyLifted { table, .. }
            | E::BetsAnnulled { table, .. }
            | E::DisputeDecided { table, .. } => Some((table, None)),
            E::UserCreated { .. }
            | E::LoginFailed { .. }
            | E::LoginSucceeded { .. }
            | E::JournalFormatSet { .. }
            | E::UserLocked { .. }
            | E::UserUnlocked { .. }
            | E::PasswordSet { .. }
            | E::CashedIn { .. }
            | E::CashedOut { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stream routing reads `audience`; it must name the same table and
    /// player as the event's own JSON, or a player's bet would reach the public.
    #[test]
    fn audience_agrees_with_the_events_json() {
        let t = || "t1".to_string();
        let p = || "p1".to_string();
        let events = [
            EventView::UserCreated {
                username: p(),
                role: Role::Player,
            },
            EventView::CashedIn { player: p(), amount: 1 },
            EventView::BoughtIn {
                table: t(),
                player: p(),
                amount: 1,
                colour: "pink".into(),
                chip_value: 1,
            },
            EventView::ChipsSold {
                table: t(),
                player: p(),
                amount: 1,
                colour: "pink".into(),
                chip_value: 1,
            },
            EventView::BetAccepted {
                table: t(),
                round: 1,
                bet_id: "b".into(),
                player: p(),
                spot: "17".into(),
                kind: "straight".into(),
                stake: 1,
            },
            EventView::BetSettled {
                table: t(),
                round: 1,
                bet_id: "b".into(),
                player: p(),
                result: "win".into(),
                staked: 1,
                returned: 36,
                net: 35,
            },
            EventView::BetImprisoned {
                table: t(),
                round: 1,
                bet_id: "b".into(),
                player: p(),
                held: 1,
            },
            EventView::Result {
                table: t(),
                round: 1,
                pocket: "17".into(),
                colour: "black".into(),
            },
            EventView::TableOpened { table: t() },
            EventView::BetsAnnulled {
                table: t(),
                by: "pit".into(),
                bet_ids: vec!["b".into()],
                reason: "pooled".into(),
            },
        ];
        for e in &events {
            let v = serde_json::to_value(e).expect("JSON");
            let from_json = v["table"].as_str().map(|table| (table, v["player"].as_str()));
            assert_eq!(e.audience(), from_json, "{v}");
        }
    }
}
