//! The requests a casino executes and the events it reports: the one place
//! these formats are defined. Requests are journaled as they are executed;
//! event views go to the journal, the table streams and game recall.

use croupier_core::round::{Event, NoSpinReason, SpinReport};
use croupier_core::{Colour, Pocket};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::users::Role;

/// Who is acting.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Actor {
    pub username: String,
    pub role: Role,
    /// A licence number, for the logs that require one (Colorado 2212(5)).
    #[serde(default)]
    pub licence: String,
}

impl Actor {
    /// Someone with a role and no licence, for tests.
    #[cfg(test)]
    pub(crate) fn named(name: &str, role: Role) -> Actor {
        Actor {
            username: name.into(),
            role,
            licence: String::new(),
        }
    }

    /// The server itself (recovery after a restart).
    pub fn system() -> Actor {
        Actor {
            username: "system".into(),
            role: Role::Admin,
            licence: "-".into(),
        }
    }
}

/// How a table learns its outcomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeSource {
    Rng,
    Dealer,
    Wheel,
}

/// A spin as reported: a pocket with the ball's direction and revolutions, or a no spin.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum SpinView {
    Ball {
        pocket: String,
        direction: String,
        revolutions: u8,
    },
    NoSpin {
        no_spin: String,
    },
}

impl SpinView {
    pub fn to_report(&self) -> Result<SpinReport, String> {
        match self {
            SpinView::Ball {
                pocket,
                direction,
                revolutions,
            } => SpinReport::dealer_entry(pocket, direction, *revolutions),
            SpinView::NoSpin { no_spin } => SpinReport::dealer_no_spin(no_spin),
        }
    }

    pub fn from_report(report: SpinReport) -> SpinView {
        match report {
            SpinReport::Ball {
                pocket,
                opposite_direction,
                revolutions,
            } => SpinView::Ball {
                pocket: pocket.label().to_string(),
                direction: if opposite_direction { "opposite" } else { "same" }.to_string(),
                revolutions,
            },
            SpinReport::NoSpin(reason) => SpinView::NoSpin {
                no_spin: reason.name().to_string(),
            },
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Correction {
    pub player: String,
    /// Positive: paid to the player; negative: collected from the player.
    pub amount: i64,
}

/// Everything a casino can be asked to do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Request {
    CreateUser {
        username: String,
        role: Role,
        password_hash: String,
    },
    LoginFailed {
        username: String,
    },
    LoginSucceeded {
        username: String,
    },
    /// From this entry on, the journal is in `format` (see
    /// [`crate::casino::JOURNAL_FORMAT`]). Only the server makes it, when it
    /// opens a journal in an older format.
    JournalFormat {
        format: u32,
    },
    CreateTable {
        table: String,
        /// The profile file's text, so the journal replays whatever happens to files.
        profile_text: String,
        wheel: String,
        in_prison: bool,
        betting_window_ms: u64,
        outcome: OutcomeSource,
        /// Electronic terminals with no central screen showing the felt:
        /// players may share chip colours (Colorado 2203(3)).
        #[serde(default)]
        shared_colours: bool,
        /// For a wheel table: the automated wheel's SlingShot 2 address (HOST:PORT).
        #[serde(default)]
        wheel_address: Option<String>,
    },
    Inspect {
        table: String,
        no_magnet_or_contrivance: bool,
        wheel_level_and_rotating_freely: bool,
        parts_secure: bool,
        ball_non_magnetic: bool,
        layout_and_signage_comply: bool,
    },
    Adjust {
        table: String,
        replacement: bool,
        description: String,
    },
    OpenTable {
        table: String,
    },
    CloseTable {
        table: String,
    },
    OpenBetting {
        table: String,
    },
    NoMoreBets {
        table: String,
    },
    /// The outcome, as keyed by a dealer, read from a wheel, or drawn by the RNG.
    Spin {
        table: String,
        spin: SpinView,
    },
    CashIn {
        id: String,
        player: String,
        amount: u64,
    },
    CashOut {
        id: String,
        player: String,
        amount: u64,
    },
    BuyIn {
        id: String,
        table: String,
        amount: u64,
        chip_value: u64,
    },
    /// A dealer sells `player` colour chips for cash at the table: the cash
    /// goes into the table's drop box (Colorado 2202), the chips to the player.
    SellChips {
        id: String,
        table: String,
        player: String,
        amount: u64,
        chip_value: u64,
    },
    LeaveTable {
        id: String,
        table: String,
    },
    Tip {
        id: String,
        table: String,
        amount: u64,
    },
    PlaceBet {
        table: String,
        bet_id: String,
        spot: String,
        stake: u64,
        #[serde(default)]
        zero_choice: Option<String>,
        #[serde(default)]
        coupon: Option<u64>,
    },
    CancelBet {
        table: String,
        bet_id: String,
    },
    DeclareEmergency {
        table: String,
        reason: String,
    },
    LiftEmergency {
        table: String,
    },
    Dispute {
        table: String,
        reason: String,
        corrections: Vec<Correction>,
    },
    AnnulBets {
        table: String,
        bet_ids: Vec<String>,
        reason: String,
    },
    VoidRound {
        table: String,
        reason: String,
    },
}

impl Request {
    /// The table a request is for; `None` for the casino's own (users,
    /// logins, cash, new tables).
    pub fn table(&self) -> Option<&str> {
        use Request as R;
        match self {
            R::CreateUser { .. }
            | R::LoginFailed { .. }
            | R::LoginSucceeded { .. }
            | R::JournalFormat { .. }
            | R::CreateTable { .. }
            | R::CashIn { .. }
            | R::CashOut { .. } => None,
            R::Inspect { table, .. }
            | R::Adjust { table, .. }
            | R::OpenTable { table }
            | R::CloseTable { table }
            | R::OpenBetting { table }
            | R::NoMoreBets { table }
            | R::Spin { table, .. }
            | R::BuyIn { table, .. }
            | R::SellChips { table, .. }
            | R::LeaveTable { table, .. }
            | R::Tip { table, .. }
            | R::PlaceBet { table, .. }
            | R::CancelBet { table, .. }
            | R::DeclareEmergency { table, .. }
            | R::LiftEmergency { table }
            | R::Dispute { table, .. }
            | R::AnnulBets { table, .. }
            | R::VoidRound { table, .. } => Some(table),
        }
    }
}

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
            | E::CashedIn { .. }
            | E::CashedOut { .. } => None,
        }
    }
}

fn colour_name(pocket: Pocket) -> &'static str {
    match pocket.colour() {
        Colour::Red => "red",
        Colour::Black => "black",
        Colour::Green => "green",
    }
}

/// A core event as seen outside, with player numbers turned into names.
pub fn view(table: &str, event: &Event, name_of: &dyn Fn(u64) -> String) -> EventView {
    let t = table.to_string();
    match event {
        Event::InspectionRecorded(i) => EventView::InspectionRecorded {
            table: t,
            at_ms: i.at_ms,
            by: i.by.name.clone(),
            licence: i.by.licence.clone(),
        },
        Event::AdjustmentRecorded(a) => EventView::AdjustmentRecorded {
            table: t,
            at_ms: a.at_ms,
            by: a.by.name.clone(),
            licence: a.by.licence.clone(),
            replacement: a.replacement,
            description: a.description.clone(),
        },
        Event::TableOpened { .. } => EventView::TableOpened { table: t },
        Event::TableClosed { .. } => EventView::TableClosed { table: t },
        Event::BettingOpened { round, deadline_ms, .. } => EventView::BettingOpened {
            table: t,
            round: *round,
            deadline_ms: *deadline_ms,
        },
        Event::BetAccepted { round, bet, .. } => EventView::BetAccepted {
            table: t,
            round: *round,
            bet_id: bet.bet_id.clone(),
            player: name_of(bet.player),
            spot: bet.bet.spot().notation(),
            kind: bet.bet.kind().name().to_string(),
            stake: bet.bet.stake().get(),
        },
        Event::BetCancelled {
            round,
            bet_id,
            player,
            returned,
            ..
        } => EventView::BetCancelled {
            table: t,
            round: *round,
            bet_id: bet_id.clone(),
            player: name_of(*player),
            returned: returned.get(),
        },
        Event::NoMoreBets { round, .. } => EventView::NoMoreBets {
            table: t,
            round: *round,
        },
        Event::NoSpin { round, reason, .. } => EventView::NoSpin {
            table: t,
            round: *round,
            reason: reason_name(*reason),
        },
        Event::SpinVoided { round, pocket, .. } => EventView::SpinVoided {
            table: t,
            round: *round,
            pocket: pocket.label().to_string(),
        },
        Event::ResultRecorded { round, pocket, .. } => EventView::Result {
            table: t,
            round: *round,
            pocket: pocket.label().to_string(),
            colour: colour_name(*pocket).to_string(),
        },
        Event::BetSettled {
            round,
            bet_id,
            player,
            outcome,
            staked,
            returned,
        } => EventView::BetSettled {
            table: t,
            round: *round,
            bet_id: bet_id.clone(),
            player: name_of(*player),
            result: outcome.name().to_string(),
            staked: staked.get(),
            returned: returned.get(),
            net: returned.get() as i64 - staked.get() as i64,
        },
        Event::BetReturned {
            round,
            bet_id,
            player,
            returned,
            why,
        } => EventView::BetReturned {
            table: t,
            round: *round,
            bet_id: bet_id.clone(),
            player: name_of(*player),
            returned: returned.get(),
            why: why.clone(),
        },
        Event::BetImprisoned {
            round,
            bet_id,
            player,
            held,
        } => EventView::BetImprisoned {
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
        } => EventView::RoundSettled {
            table: t,
            round: *round,
            pocket: pocket.map(|p| p.label().to_string()),
            staked: staked.get(),
            returned: returned.get(),
        },
        Event::EmergencyDeclared { by, reason, .. } => EventView::EmergencyDeclared {
            table: t,
            by: by.name.clone(),
            reason: reason.clone(),
        },
        Event::EmergencyLifted { by, .. } => EventView::EmergencyLifted {
            table: t,
            by: by.name.clone(),
        },
        Event::BetsAnnulled {
            by, bet_ids, reason, ..
        } => EventView::BetsAnnulled {
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
        } => EventView::DisputeDecided {
            table: t,
            by: by.name.clone(),
            reason: reason.clone(),
            corrections: corrections
                .iter()
                .map(|&(p, amount)| Correction {
                    player: name_of(p),
                    amount: amount as i64,
                })
                .collect(),
        },
    }
}

fn reason_name(reason: NoSpinReason) -> String {
    reason.name().to_string()
}

/// Why a request was refused: a stable code for programs and a sentence for people.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    pub code: &'static str,
    pub message: String,
}

impl ApiError {
    pub fn new(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            message: message.into(),
        }
    }

    pub fn forbidden(what: &str, role: Role) -> ApiError {
        ApiError::new("forbidden", format!("a {} may not {what}", role.name()))
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
