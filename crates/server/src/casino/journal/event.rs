//! What happened, as the journal keeps it (journal format 3). A stored
//! format: reasons are codes, not sentences, and nothing here is the API's;
//! [`crate::casino::views`] renders these as the API's event views. A change
//! to this type is a new journal format.

use croupier_core::round::{Event, NoSpinReason, ReturnReason};
use croupier_core::{Outcome, Pocket};
use serde::{Deserialize, Serialize};

use crate::api::{OutcomeSource, Role};
use crate::casino::actor::stored_role;
use crate::casino::request::stored_outcome;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum JournalEvent {
    /// A tournament configured from its file (journal format 7).
    TournamentCreated {
        tournament: String,
        name: String,
        profile: String,
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
    /// The journal's damaged end was cut off after `kept_through` (see
    /// `Request::RecoverJournal`).
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
    UserLocked {
        username: String,
    },
    UserUnlocked {
        username: String,
    },
    /// A password set; the journal's request holds its hash, never the event.
    PasswordSet {
        username: String,
    },
    LicenceSet {
        username: String,
        licence: String,
    },
    OperatorNamed {
        name: String,
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
    CouponIssued {
        id: String,
        player: String,
        table: String,
        value: u64,
        /// Played only before this instant (Unix ms); absent: no end.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expires_at_ms: Option<u64>,
    },
    BoughtIn {
        table: String,
        player: String,
        amount: u64,
        colour: String,
        chip_value: u64,
    },
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
    /// A supervisor confirmed a player's colour chips at their face value
    /// past the gaming day (european-casino 5.5).
    ChipsConfirmed {
        table: String,
        player: String,
        at_ms: u64,
        by: String,
        licence: String,
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
        /// The regulator's inspection after an external part was replaced
        /// (Colorado 2212(4); journal format 9); written only when it is.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        regulator: bool,
    },
    AdjustmentRecorded {
        table: String,
        at_ms: u64,
        by: String,
        licence: String,
        replacement: bool,
        description: String,
        /// The security member present, and their licence; absent where none was recorded.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        witness: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        witness_licence: Option<String>,
        /// An external part (journal format 9); written only when it is.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        external: bool,
    },
    /// A croupier entered a player's announced series of verbal bets
    /// (european-casino 3.5; journal format 9): who, for whom, which bets.
    VerbalSeries {
        table: String,
        at_ms: u64,
        by: String,
        licence: String,
        player: String,
        bet_ids: Vec<String>,
    },
    /// A no spin's ball inspected before it goes back into the wheel, and
    /// whether it was damaged and replaced (Colorado 2206(4), Maryland ch.6
    /// B-C; journal format 9).
    BallInspected {
        table: String,
        at_ms: u64,
        by: String,
        licence: String,
        reason: String,
        damaged: bool,
    },
    LimitsSet {
        table: String,
        at_ms: u64,
        by: String,
        licence: String,
        limits: Vec<StoredLimit>,
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
        /// Under the table's minimum, taken to be settled once
        /// (european-casino 3.13); written only when true.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        under_minimum: bool,
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
        /// A no spin's reason code (`same_direction`, ...).
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
        corrections: Vec<CorrectionMade>,
        /// The round disputed (journal format 5 on).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        round: Option<u64>,
    },
}

/// A table's limit for one kind of bet, as the journal keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredLimit {
    pub kind: String,
    pub min: u64,
    pub max: u64,
}

impl From<crate::api::KindLimit> for StoredLimit {
    fn from(l: crate::api::KindLimit) -> StoredLimit {
        StoredLimit {
            kind: l.kind,
            min: l.min,
            max: l.max,
        }
    }
}

/// A dispute's correction of a player's chips, as it was made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CorrectionMade {
    pub player: String,
    pub amount: i64,
}

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
