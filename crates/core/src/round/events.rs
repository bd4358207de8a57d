//! What a table's commands cause: the events, which alone change a table
//! and which its journal keeps, and why a bet was handed back.

use super::{Adjustment, Inspection, Person, PlayerId, RoundBet, RoundId};
use crate::bonus::{BonusDraw, BsxSymbol};
use crate::money::Minor;
use crate::no_spin::NoSpinReason;
use crate::pocket::Pocket;
use crate::profile::StakeRange;
use crate::settle::Outcome;
use crate::spot::Kind;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Event {
    InspectionRecorded(Inspection),
    AdjustmentRecorded(Adjustment),
    LimitsSet {
        at_ms: u64,
        by: Person,
        limits: Vec<(Kind, StakeRange)>,
    },
    TableOpened {
        at_ms: u64,
    },
    TableClosed {
        at_ms: u64,
    },
    BettingOpened {
        at_ms: u64,
        round: RoundId,
        deadline_ms: u64,
    },
    BetAccepted {
        at_ms: u64,
        round: RoundId,
        bet: RoundBet,
    },
    BetCancelled {
        at_ms: u64,
        round: RoundId,
        bet_id: String,
        player: PlayerId,
        returned: Minor,
    },
    NoMoreBets {
        at_ms: u64,
        round: RoundId,
    },
    NoSpin {
        at_ms: u64,
        round: RoundId,
        reason: NoSpinReason,
    },
    SpinVoided {
        at_ms: u64,
        round: RoundId,
        pocket: Pocket,
    },
    ResultRecorded {
        at_ms: u64,
        round: RoundId,
        pocket: Pocket,
    },
    /// Settled bets, losers first, then winners (Colorado 2205(4), Maryland ch.5 F).
    BetSettled {
        round: RoundId,
        bet_id: String,
        player: PlayerId,
        outcome: Outcome,
        staked: Minor,
        returned: Minor,
    },
    /// Returned with nothing won or lost: no spin under "returned", annulled, table closed.
    BetReturned {
        round: RoundId,
        bet_id: String,
        player: PlayerId,
        returned: Minor,
        why: ReturnReason,
    },
    /// Left in prison for the next round.
    BetImprisoned {
        round: RoundId,
        bet_id: String,
        player: PlayerId,
        held: Minor,
    },
    RoundSettled {
        at_ms: u64,
        round: RoundId,
        pocket: Option<Pocket>,
        staked: Minor,
        returned: Minor,
    },
    EmergencyDeclared {
        at_ms: u64,
        by: Person,
        reason: String,
    },
    /// A croupier entered a player's series of verbal bets (european-casino
    /// 3.5): the bets follow as accepted.
    SeriesEntered {
        at_ms: u64,
        by: Person,
        player: PlayerId,
        bet_ids: Vec<String>,
    },
    /// The ball was inspected after a no spin for `reason`; `damaged`: it was replaced.
    BallInspected {
        at_ms: u64,
        by: Person,
        reason: NoSpinReason,
        damaged: bool,
    },
    EmergencyLifted {
        at_ms: u64,
        by: Person,
    },
    BetsAnnulled {
        at_ms: u64,
        by: Person,
        bet_ids: Vec<String>,
        reason: String,
    },
    DisputeDecided {
        at_ms: u64,
        by: Person,
        reason: String,
        corrections: Vec<(PlayerId, i128)>,
    },
    /// The round's bonus draw (Maryland ch.3 F(16), (18)).
    BonusDrawn {
        at_ms: u64,
        round: RoundId,
        draw: BonusDraw,
    },
    BonusWagerAccepted {
        at_ms: u64,
        round: RoundId,
        wager_id: String,
        player: PlayerId,
        stake: Minor,
    },
    /// Back whole: the round was void or the table closed.
    BonusWagerReturned {
        round: RoundId,
        wager_id: String,
        player: PlayerId,
        stake: Minor,
    },
    /// Collected on a result, its shares fed to the meters (ch.4 D(3)(a)).
    BonusWagerCollected {
        round: RoundId,
        wager_id: String,
        player: PlayerId,
        stake: Minor,
        to_primary: Minor,
        to_secondary: Minor,
    },
    /// A wager on a target paid what the bonus wheel's symbol awards (ch.4 D(1)-(4)).
    BonusAwarded {
        round: RoundId,
        wager_id: String,
        player: PlayerId,
        symbol: BsxSymbol,
        award: Minor,
    },
    /// Community Pay to another wager for `for_wager`'s qualifying symbol (ch.4 D(5), E).
    CommunityPaid {
        round: RoundId,
        wager_id: String,
        player: PlayerId,
        for_wager: String,
        award: Minor,
    },
}

/// Why a bet was returned with nothing won or lost. A code, not a
/// sentence: whoever shows it to a person says it in their own words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ReturnReason {
    /// The table closed with the bet on the layout.
    TableClosed,
    /// Annulled as a collective bet (european-casino 3.7).
    Annulled,
    /// The round was void before its result (the server stopped, or an admin voided it).
    RoundVoided,
    /// A no spin, where the profile returns the bets (european-casino 4.5-4.8).
    NoSpin(NoSpinReason),
    /// Under the table's minimum, its player's once already used
    /// (european-casino 3.13).
    UnderMinimum,
}

impl ReturnReason {
    /// A stable code: `table_closed`, `annulled`, `round_voided`, or the
    /// no spin's own reason (`same_direction`...).
    pub fn code(self) -> &'static str {
        match self {
            ReturnReason::TableClosed => "table_closed",
            ReturnReason::Annulled => "annulled",
            ReturnReason::RoundVoided => "round_voided",
            ReturnReason::UnderMinimum => "under_minimum",
            ReturnReason::NoSpin(reason) => reason.name(),
        }
    }

    pub fn parse(code: &str) -> Option<ReturnReason> {
        match code {
            "table_closed" => Some(ReturnReason::TableClosed),
            "annulled" => Some(ReturnReason::Annulled),
            "round_voided" => Some(ReturnReason::RoundVoided),
            "under_minimum" => Some(ReturnReason::UnderMinimum),
            other => NoSpinReason::parse(other).map(ReturnReason::NoSpin),
        }
    }
}
