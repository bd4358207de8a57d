//! What happened, as the journal keeps it (journal format 3). A stored
//! format: reasons are codes, not sentences, and nothing here is the API's;
//! [`crate::casino::views`] renders these as the API's event views. A change
//! to this type is a new journal format.

use croupier_core::round::{NoSpinReason, ReturnReason};
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
    /// A checkpoint of the state after entry `through` is bound into the
    /// chain (see `Request::Checkpoint`).
    CheckpointTaken {
        through: u64,
        digest: String,
        bytes: u64,
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
    /// The casino's gaming day, from this entry on (format 14).
    GamingDaySet {
        time_zone: String,
        starts_at: String,
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
    /// A cashier counted their drawer: `counted` beside the `expected` of
    /// the cage's record (journal format 15).
    DrawerCounted {
        id: String,
        cashier: String,
        counted: u64,
        expected: i64,
    },
    /// A cash-in or cash-out (`kind`) voided by the reverse transfer (journal format 15).
    CageTransactionVoided {
        id: String,
        transaction: String,
        kind: String,
        player: String,
        amount: u64,
        made_by: String,
        reason: String,
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
        /// From format 14, each purchase revalued: its UTC day, its chips
        /// and what each was cashed in at (`chips`, `unit` and `bought_day`
        /// then sum them, give the least value and the oldest day).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        lots: Vec<(u64, u64, u64)>,
    },
    /// The staff recorded that a player took their colour chips away from
    /// the table (european-casino 5.2; the low-limit house's "Roulette
    /// Chips"): `chips` their face value then.
    ChipsTakenAway {
        table: String,
        player: String,
        chips: u64,
        at_ms: u64,
        by: String,
        licence: String,
    },
    /// A player's bet sent after no more bets: refused, and logged for the
    /// casino's management (low-limit-house Irregularities (4); format 15).
    PastPosting {
        table: String,
        player: String,
        spot: String,
        stake: u64,
        at_ms: u64,
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
        /// Its number at the table and the security member named to
        /// confirm it from their own account (journal format 16); absent
        /// where the witness was typed, or none named.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        adjustment: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        awaiting_witness: Option<String>,
    },
    /// The security witness an adjustment named confirmed it from their own
    /// account (Colorado 2212(2), Maryland ch.2 B; journal format 16): `by`
    /// is the witness, `licence` their licence on record.
    AdjustmentWitnessed {
        table: String,
        at_ms: u64,
        adjustment: u64,
        by: String,
        licence: String,
    },
    /// The pit withdrew an adjustment its witness had not confirmed, and why
    /// (journal format 16).
    AdjustmentWithdrawn {
        table: String,
        at_ms: u64,
        adjustment: u64,
        by: String,
        licence: String,
        reason: String,
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
    /// A bonus table's draw after no more bets (journal format 11):
    /// Bonus Spin Xtreme's targets, or Roulette X's lucky numbers.
    BonusDrawn {
        table: String,
        round: u64,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        targets: Vec<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        lucky: Vec<LuckyNumber>,
    },
    /// A Bonus Spin Xtreme wager's course (journal format 11): `placed`,
    /// `returned`, `collected` (its shares to the meters), `awarded` (the
    /// bonus wheel's symbol), `community` (Community Pay for `for_wager`).
    BonusWager {
        table: String,
        round: u64,
        wager_id: String,
        player: String,
        what: String,
        amount: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        symbol: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        for_wager: Option<String>,
        #[serde(default, skip_serializing_if = "is_zero")]
        to_primary: u64,
        #[serde(default, skip_serializing_if = "is_zero")]
        to_secondary: u64,
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
    /// A fill or credit slip's course, or a count of the float (journal format 15).
    FloatSlip {
        table: String,
        slip: SlipRecord,
    },
}

/// A slip's step or a float's count, as the journal keeps it: who signed,
/// with their licence ("-" where none is recorded).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum SlipRecord {
    /// The pit asked: the first signature. `kind` is `fill` or `credit`.
    Requested {
        id: String,
        kind: String,
        amount: u64,
        by: String,
        licence: String,
    },
    /// The cage signed, the second signature: the money moved.
    Signed {
        id: String,
        kind: String,
        amount: u64,
        by: String,
        licence: String,
    },
    Voided {
        id: String,
        by: String,
        reason: String,
    },
    /// The float counted at `opening` or `closing`, beside the ledger's balance then.
    Counted {
        id: String,
        when: String,
        counted: u64,
        ledger: i64,
        by: String,
        licence: String,
    },
}

/// A table's limit for one kind of bet, as the journal keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredLimit {
    pub kind: String,
    pub min: u64,
    pub max: u64,
}

impl StoredLimit {
    /// A limit on every kind of bet a table of `profile_text` on `wheel`
    /// takes, as its sign shows them (Colorado 2207, Maryland ch.1 G(3)):
    /// `inside` on each inside bet, `outside` on each outside bet, each a
    /// (minimum, maximum) in minor units. Composite bets (neighbours,
    /// complete) keep the limits of the bets they stand for.
    pub fn on_every_kind(
        profile_text: &str,
        wheel: &str,
        inside: (u64, u64),
        outside: (u64, u64),
    ) -> Result<Vec<StoredLimit>, String> {
        let profile = croupier_profiles::parse(profile_text, "table").map_err(|e| e.to_string())?;
        let wheel = croupier_core::Wheel::parse(wheel).ok_or_else(|| format!("{wheel:?} is not a wheel"))?;
        Ok(profile
            .kinds_on(wheel)
            .into_iter()
            .filter(|k| !k.is_composite())
            .map(|k| {
                let (min, max) = if k.is_inside() { inside } else { outside };
                StoredLimit {
                    kind: k.name().to_string(),
                    min,
                    max,
                }
            })
            .collect())
    }
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

/// A Roulette X lucky number and the odds drawn for it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LuckyNumber {
    pub pocket: String,
    pub odds: u32,
}

impl From<&LuckyNumber> for crate::api::LuckyView {
    fn from(l: &LuckyNumber) -> crate::api::LuckyView {
        crate::api::LuckyView {
            pocket: l.pocket.clone(),
            odds: l.odds,
        }
    }
}

pub(super) fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A dispute's correction of a player's chips, as it was made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CorrectionMade {
    pub player: String,
    pub amount: i64,
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
