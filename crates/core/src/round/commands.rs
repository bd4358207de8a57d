//! What is asked of a table: the commands, the records of people and the
//! wheel they carry, the spin as reported, and why a command is refused.

use super::{PlayerId, BET_ID_MAX_BYTES, ROUND_BETS_MAX, TEXT_MAX_BYTES};
use crate::bonus::{BonusDraw, BsxSymbol};
use crate::no_spin::NoSpinReason;
use crate::pocket::Pocket;
use crate::profile::{StakeRange, ZeroChoice};
use crate::settle::BetError;
use crate::spot::Kind;

/// A person acting on the table, as the logs require (Colorado 2212(5), Maryland ch.2 E(6)).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Person {
    pub name: String,
    pub role: String,
    pub licence: String,
}

/// The pre-opening inspection (Colorado 2212(1)(a)-(e), Maryland ch.2 A(1)-(5)).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Inspection {
    pub at_ms: u64,
    pub by: Person,
    pub no_magnet_or_contrivance: bool,
    pub wheel_level_and_rotating_freely: bool,
    pub parts_secure: bool,
    pub ball_non_magnetic: bool,
    /// Required when a double-zero wheel is used as single zero.
    pub layout_and_signage_comply: bool,
    /// Made by the regulator (the Director or designee), as a replaced
    /// external movable part requires (Colorado 2212(4)).
    pub by_regulator: bool,
}

/// An adjustment or replacement of the wheel's movable parts (Colorado 2212(2)-(5), Maryland ch.2 B-E).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Adjustment {
    pub at_ms: u64,
    pub by: Person,
    pub replacement: bool,
    pub description: String,
    /// The security department member present (Colorado 2212(2), Maryland ch.2 B).
    pub witness: Option<Person>,
    /// The part adjusted or replaced is external to the wheel (Colorado 2212(2), (4)).
    pub external: bool,
    /// The security member named to confirm it from their own account, and
    /// its number at the table: the server keeps it awaiting them. Written
    /// only when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub awaiting_witness: Option<AwaitedWitness>,
}

/// An adjustment's number at its table and the security member (a
/// username) who is to confirm it (Colorado 2212(2), Maryland ch.2 B).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AwaitedWitness {
    pub adjustment: u64,
    pub witness: String,
}

/// What the dealer, the RNG or the automated wheel reports for a spin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SpinReport {
    /// The ball came to rest in `pocket`.
    Ball {
        pocket: Pocket,
        /// The ball ran opposite to the rotor.
        opposite_direction: bool,
        revolutions: u8,
    },
    NoSpin(NoSpinReason),
}

impl SpinReport {
    /// What a dealer keys for a manual wheel: the pocket, the ball's
    /// direction against the rotor ("opposite" or "same") and the
    /// revolutions counted, or a no spin with its reason.
    pub fn dealer_entry(pocket: &str, direction: &str, revolutions: u8) -> Result<SpinReport, String> {
        let pocket = Pocket::parse(pocket.trim()).ok_or_else(|| format!("{pocket:?} is not a pocket"))?;
        let opposite_direction = match direction.trim() {
            "opposite" => true,
            "same" => false,
            other => return Err(format!("direction {other:?} is not \"opposite\" or \"same\"")),
        };
        Ok(SpinReport::Ball {
            pocket,
            opposite_direction,
            revolutions,
        })
    }

    /// A dealer's no spin, by reason name (`same_direction`, `foreign_object`, ...).
    pub fn dealer_no_spin(reason: &str) -> Result<SpinReport, String> {
        NoSpinReason::parse(reason.trim())
            .map(SpinReport::NoSpin)
            .ok_or_else(|| format!("{reason:?} is not a no-spin reason"))
    }
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Command {
    RecordInspection(Inspection),
    RecordAdjustment(Adjustment),
    Open {
        at_ms: u64,
    },
    Close {
        at_ms: u64,
    },
    OpenBetting {
        at_ms: u64,
    },
    PlaceBet {
        at_ms: u64,
        bet_id: String,
        player: PlayerId,
        spot: String,
        stake_minor: i128,
        zero_choice: Option<ZeroChoice>,
        coupon_minor: Option<i128>,
    },
    CancelBet {
        at_ms: u64,
        bet_id: String,
        player: PlayerId,
    },
    NoMoreBets {
        at_ms: u64,
    },
    Spin {
        at_ms: u64,
        report: SpinReport,
    },
    DeclareEmergency {
        at_ms: u64,
        by: Person,
        reason: String,
    },
    LiftEmergency {
        at_ms: u64,
        by: Person,
    },
    /// Bets found to be pooled to beat the table maximum are annulled and
    /// returned (european-casino 3.7-3.8).
    AnnulBets {
        at_ms: u64,
        by: Person,
        bet_ids: Vec<String>,
        reason: String,
    },
    /// The table's limits, per kind of bet, posted between rounds (Colorado
    /// 2207, Maryland ch.1 G(3), european-casino glossary TABLE SIGN).
    SetLimits {
        at_ms: u64,
        by: Person,
        limits: Vec<(Kind, StakeRange)>,
    },
    /// A round interrupted before its result was recorded (the server
    /// stopped): the spin is void and every bet is returned.
    VoidRound {
        at_ms: u64,
        reason: String,
    },
    /// A disputed play decided by the profile's dispute authority
    /// (Colorado 2206(5)): who, why, and the correcting amounts.
    DecideDispute {
        at_ms: u64,
        by: Person,
        reason: String,
        corrections: Vec<(PlayerId, i128)>,
    },
    /// A player's announced series of verbal bets, entered by the croupier:
    /// every bet of it is accepted, or none (european-casino 3.5-3.6).
    PlaceSeries {
        at_ms: u64,
        /// The croupier who entered it, for the table's log.
        by: Person,
        player: PlayerId,
        /// Each bet's id, spot and stake.
        bets: Vec<(String, String, i128)>,
    },
    /// The ball of a no spin that calls for it is inspected before it goes
    /// back into the wheel (Colorado 2206(4), Maryland ch.6 B-C); a damaged
    /// one is replaced.
    InspectBall {
        at_ms: u64,
        by: Person,
        damaged: bool,
    },
    /// The RNG's draw for a bonus table's round, after no more bets
    /// (Maryland ch.3 F(16), (18)).
    DrawBonus {
        at_ms: u64,
        draw: BonusDraw,
    },
    /// A player's Bonus Spin Xtreme wager at their position (Maryland ch.3 F(16)-(17)).
    PlaceBonusWager {
        at_ms: u64,
        wager_id: String,
        player: PlayerId,
    },
    /// [`Command::Spin`] at a table with Bonus Spin Xtreme wagers: the
    /// bonus wheel's symbol drawn for each wager, in the order placed.
    BonusSpin {
        at_ms: u64,
        report: SpinReport,
        symbols: Vec<BsxSymbol>,
    },
}

/// Why a command is refused. Each message is for the person who sent it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    #[error("the table is closed")]
    Closed,
    #[error("the table cannot open until a passing inspection is recorded (Colorado 2212(1), Maryland ch.2 A)")]
    NotInspected,
    #[error("the inspection did not pass; not confirmed: {}", .0.join("; "))]
    InspectionFailed(Vec<&'static str>),
    #[error("the table is already open")]
    AlreadyOpen,
    #[error("a round is under way")]
    RoundUnderWay,
    #[error("betting is not open")]
    BettingNotOpen,
    #[error("too late: no more bets has been called, so the bet is not taken (past posting)")]
    PastPosting,
    #[error("no bet {0} of this player in this round")]
    NoSuchBet(String),
    #[error("bet id {0} is already used in this round")]
    DuplicateBet(String),
    #[error("bet id must be 1 to {BET_ID_MAX_BYTES} bytes")]
    BadBetId,
    #[error("{0}")]
    Bet(#[from] BetError),
    #[error("a round holds at most {ROUND_BETS_MAX} bets")]
    RoundFull,
    #[error("no round is waiting for its result: a result is reported once a round, after no more bets")]
    NotSpinning,
    #[error("an emergency is declared: no spin and no payment until it is lifted (european-casino 6.1-6.2)")]
    Emergency,
    #[error("no emergency is declared")]
    NoEmergency,
    #[error("pocket {0} is not on this wheel")]
    PocketNotOnWheel(Pocket),
    #[error("only the {authority} decides disputes ({role} may not)")]
    NotDisputeAuthority { authority: String, role: String },
    #[error("{0} must be 1 to {TEXT_MAX_BYTES} bytes")]
    BadText(&'static str),
    #[error("limits are set between rounds, when no round is under way")]
    LimitsInRound,
    #[error("limits.{kind}: {why}")]
    BadLimits { kind: String, why: String },
    #[error("time went backwards: {at_ms} is before {last_ms}")]
    TimeWentBackwards { at_ms: u64, last_ms: u64 },
    #[error("no ball awaits inspection: a ball is inspected after a no spin that calls for it")]
    NoBallToInspect,
    #[error(
        "an external movable part was replaced: the Director or designee inspects the wheel before the table \
         reopens (Colorado 2212(4))"
    )]
    RegulatorInspectionRequired,
    #[error("this table offers no such bonus")]
    BonusNotOffered,
    #[error("the round's bonus numbers are drawn after no more bets, before the spin: it waits for them")]
    BonusNotDrawn,
    #[error("the bonus draw: {0}")]
    BadBonusDraw(String),
    #[error("one Bonus Spin Xtreme wager a position a round: you have placed yours (Maryland ch.3 F(17)(a))")]
    BonusWagerPlaced,
    #[error("all {0} betting positions have a Bonus Spin Xtreme wager this round")]
    PositionsFull(u8),
    #[error("{wagers} Bonus Spin Xtreme wagers need as many bonus wheel symbols, not {symbols}")]
    BonusSymbols { wagers: usize, symbols: usize },
    #[error("at a Roulette X table: {0}")]
    NotAtRouletteX(String),
}
