//! Journal formats 1 and 2: each entry's body a JSON string holding
//! `{at_ms, actor, request, events}`, the events being the API's event views
//! of the time, English included. Frozen here: a server still writes them
//! while it opens such a journal (up to the entry that moves it on to the
//! current format), and they must come out byte for byte as they were.

use serde::{Deserialize, Serialize};

use super::event::{colour_of, JournalEvent};
use crate::api::{OutcomeSource, Role};
use crate::casino::actor::stored_role;
use crate::casino::request::{stored_outcome, Request, StoredCorrection};

/// An event as formats 1 and 2 write it: the API's event view of the
/// time, kept here unchanged so that those journals replay to their bytes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LegacyEvent {
    /// Never in a journal of formats 1 and 2, which refuse tournaments.
    Tournament {
        tournament: String,
    },
    UserCreated {
        username: String,
        #[serde(with = "stored_role")]
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
    JournalRecovered {
        kept_through: u64,
        cut: u64,
        cut_head: String,
        backup: String,
        reason: String,
        /// What `croupier verify` found broken, at the entry after `kept_through`.
        damage: String,
        /// The entry and hash the secret had sealed ("" where the seal was not the secret's).
        sealed: String,
    },
    TableCreated {
        table: String,
        profile: String,
        wheel: String,
        #[serde(with = "stored_outcome")]
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
    /// Never written by formats 1 and 2 (which had no coupons to issue):
    /// here so that every event has a form in every format.
    CouponIssued {
        id: String,
        player: String,
        table: String,
        value: u64,
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
    LimitsSet {
        table: String,
        at_ms: u64,
        by: String,
        licence: String,
        limits: Vec<super::event::StoredLimit>,
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
        corrections: Vec<StoredCorrection>,
    },
}

/// What formats 1 and 2 said for a returned bet.
fn why(reason: &str, request: &Request) -> String {
    match (reason, request) {
        ("table_closed", _) => "the table closed".to_string(),
        ("annulled", _) => "annulled as a collective bet (european-casino 3.7)".to_string(),
        // A voided round's bets went back with the void's own reason.
        ("round_voided", Request::VoidRound { reason, .. }) => reason.clone(),
        (no_spin, _) => format!("no spin ({no_spin})"),
    }
}

/// An event as formats 1 and 2 write it, for the request that caused it.
pub fn render(event: &JournalEvent, request: &Request) -> LegacyEvent {
    use JournalEvent as J;
    use LegacyEvent as L;
    match event.clone() {
        // Never written: tournaments are refused before format 7, tables'
        // play in points before format 8.
        J::TournamentCreated { tournament, .. } | J::Tournament { tournament, .. } => L::Tournament { tournament },
        J::TablePlay { tournament, .. } => L::Tournament {
            tournament: tournament.unwrap_or_default(),
        },
        J::UserCreated { username, role } => L::UserCreated { username, role },
        J::LoginFailed {
            username,
            failures,
            locked,
        } => L::LoginFailed {
            username,
            failures,
            locked,
        },
        J::LoginSucceeded { username } => L::LoginSucceeded { username },
        J::JournalFormatSet { format } => L::JournalFormatSet { format },
        // Never in formats 1 and 2: a journal is moved on to the current
        // format before it is recovered.
        J::JournalRecovered {
            kept_through,
            cut,
            cut_head,
            backup,
            reason,
            damage,
            sealed,
        } => L::JournalRecovered {
            kept_through,
            cut,
            cut_head,
            backup,
            reason,
            damage,
            sealed,
        },
        // Formats 1 and 2 had no such requests; a journal still in them shows
        // an account's lock or password as the login events it knew.
        J::UserLocked { username } => L::LoginFailed {
            username,
            failures: 0,
            locked: true,
        },
        J::UserUnlocked { username } | J::PasswordSet { username } | J::LicenceSet { username, .. } => {
            L::LoginSucceeded { username }
        }
        // Never written before formats 10 and 14.
        J::ChipsConfirmed { table, player, .. }
        | J::ChipsRevalued { table, player, .. }
        | J::ChipsTakenAway { table, player, .. } => L::LeftTable {
            table,
            player,
            amount: 0,
            colour: String::new(),
        },
        // Never written before formats 11, 15 and 16.
        J::BonusDrawn { table, .. }
        | J::PastPosting { table, .. }
        | J::FloatSlip { table, .. }
        | J::AdjustmentWitnessed { table, .. }
        | J::AdjustmentWithdrawn { table, .. } => L::TableOpened { table },
        J::BonusWager { table, player, .. } => L::LeftTable {
            table,
            player,
            amount: 0,
            colour: String::new(),
        },
        // Never written: checkpoints are taken from format 12.
        J::CheckpointTaken { .. } => L::JournalFormatSet {
            format: super::FORMAT_CHECKPOINTS,
        },
        // Never written: the operator is named from format 10.
        J::OperatorNamed { name } => L::LoginSucceeded { username: name },
        // Never written before format 14.
        J::GamingDaySet { time_zone, .. } => L::LoginSucceeded { username: time_zone },
        // Never written before format 15.
        J::DrawerCounted { cashier, .. } => L::LoginSucceeded { username: cashier },
        J::CageTransactionVoided { player, .. } => L::LoginSucceeded { username: player },
        J::TableCreated {
            table,
            profile,
            wheel,
            outcome,
        } => L::TableCreated {
            table,
            profile,
            wheel,
            outcome,
        },
        J::CashedIn { player, amount } => L::CashedIn { player, amount },
        J::CashedOut { player, amount } => L::CashedOut { player, amount },
        J::CouponIssued {
            id,
            player,
            table,
            value,
            ..
        } => L::CouponIssued {
            id,
            player,
            table,
            value,
        },
        J::BoughtIn {
            table,
            player,
            amount,
            colour,
            chip_value,
        } => L::BoughtIn {
            table,
            player,
            amount,
            colour,
            chip_value,
        },
        J::ChipsSold {
            table,
            player,
            amount,
            colour,
            chip_value,
        } => L::ChipsSold {
            table,
            player,
            amount,
            colour,
            chip_value,
        },
        J::LeftTable {
            table,
            player,
            amount,
            colour,
        } => L::LeftTable {
            table,
            player,
            amount,
            colour,
        },
        J::Tipped { table, player, amount } => L::Tipped { table, player, amount },
        J::FloatFilled { table, amount } => L::FloatFilled { table, amount },
        J::LimitsSet {
            table,
            at_ms,
            by,
            licence,
            limits,
        } => L::LimitsSet {
            table,
            at_ms,
            by,
            licence,
            limits,
        },
        // A ball's inspection is never written before format 9.
        J::InspectionRecorded {
            table,
            at_ms,
            by,
            licence,
            ..
        }
        | J::BallInspected {
            table,
            at_ms,
            by,
            licence,
            ..
        }
        // Nor is a verbal series.
        | J::VerbalSeries {
            table,
            at_ms,
            by,
            licence,
            ..
        } => L::InspectionRecorded {
            table,
            at_ms,
            by,
            licence,
        },
        J::AdjustmentRecorded {
            table,
            at_ms,
            by,
            licence,
            replacement,
            description,
            ..
        } => L::AdjustmentRecorded {
            table,
            at_ms,
            by,
            licence,
            replacement,
            description,
        },
        J::TableOpened { table } => L::TableOpened { table },
        J::TableClosed { table } => L::TableClosed { table },
        J::BettingOpened {
            table,
            round,
            deadline_ms,
        } => L::BettingOpened {
            table,
            round,
            deadline_ms,
        },
        J::BetAccepted {
            table,
            round,
            bet_id,
            player,
            spot,
            kind,
            stake,
            ..
        } => L::BetAccepted {
            table,
            round,
            bet_id,
            player,
            spot,
            kind,
            stake,
        },
        J::BetCancelled {
            table,
            round,
            bet_id,
            player,
            returned,
        } => L::BetCancelled {
            table,
            round,
            bet_id,
            player,
            returned,
        },
        J::NoMoreBets { table, round } => L::NoMoreBets { table, round },
        J::NoSpin { table, round, reason } => L::NoSpin { table, round, reason },
        J::SpinVoided { table, round, pocket } => L::SpinVoided { table, round, pocket },
        J::Result { table, round, pocket } => L::Result {
            table,
            round,
            colour: colour_of(&pocket).to_string(),
            pocket,
        },
        J::BetSettled {
            table,
            round,
            bet_id,
            player,
            result,
            staked,
            returned,
        } => L::BetSettled {
            table,
            round,
            bet_id,
            player,
            result,
            staked,
            returned,
            net: returned as i64 - staked as i64,
        },
        J::BetReturned {
            table,
            round,
            bet_id,
            player,
            returned,
            reason,
        } => L::BetReturned {
            table,
            round,
            bet_id,
            player,
            returned,
            why: why(&reason, request),
        },
        J::BetImprisoned {
            table,
            round,
            bet_id,
            player,
            held,
        } => L::BetImprisoned {
            table,
            round,
            bet_id,
            player,
            held,
        },
        J::RoundSettled {
            table,
            round,
            pocket,
            staked,
            returned,
        } => L::RoundSettled {
            table,
            round,
            pocket,
            staked,
            returned,
        },
        J::EmergencyDeclared { table, by, reason } => L::EmergencyDeclared { table, by, reason },
        J::EmergencyLifted { table, by } => L::EmergencyLifted { table, by },
        J::BetsAnnulled {
            table,
            by,
            bet_ids,
            reason,
        } => L::BetsAnnulled {
            table,
            by,
            bet_ids,
            reason,
        },
        J::DisputeDecided {
            table,
            by,
            reason,
            corrections,
            round: _,
        } => L::DisputeDecided {
            table,
            by,
            reason,
            corrections: corrections
                .into_iter()
                .map(|c| StoredCorrection {
                    player: c.player,
                    amount: c.amount,
                })
                .collect(),
        },
    }
}
