//! What happened, as the API shows it: on the table streams, in answers
//! and in recall. The journal keeps events of its own (see
//! `casino::journal`); these views are rendered from them and may be
//! reworded or reshaped without touching a stored byte.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{Correction, OutcomeSource, Role};

/// A Roulette X lucky number and the odds it pays (Maryland ch.4 F).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct LuckyView {
    pub pocket: String,
    pub odds: u32,
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
    /// A checkpoint of the casino's state after entry `through` (its
    /// SHA-256 `digest` and length in `bytes`) is bound into the journal:
    /// a start replays only what follows it.
    CheckpointTaken {
        through: u64,
        digest: String,
        bytes: u64,
    },
    /// The journal's damaged end was cut off by `croupier recover`: the
    /// entries after `kept_through` are kept only in the copy `backup`.
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
    PasswordSet {
        username: String,
    },
    /// A staff member's licence number recorded (Colorado 2212(5), Maryland ch.2 E).
    LicenceSet {
        username: String,
        licence: String,
    },
    /// The casino's operator named, for every layout (Maryland ch.1 G(1)).
    OperatorNamed {
        name: String,
    },
    /// The casino's gaming day: its time zone and the local time it starts.
    GamingDaySet {
        time_zone: String,
        starts_at: String,
    },
    TableCreated {
        table: String,
        profile: String,
        wheel: String,
        outcome: OutcomeSource,
    },
    /// A tournament configured from its file (Colorado 2213).
    TournamentCreated {
        tournament: String,
        name: String,
        profile: String,
    },
    /// Something that happened to a tournament: `record.what` names it
    /// (registered, started, rebought, eliminated, awarded, ended...).
    Tournament {
        tournament: String,
        #[schema(value_type = Object)]
        record: serde_json::Value,
    },
    /// The table plays `tournament`'s `event` in points from now on
    /// (Colorado 2214), or cash again when both are absent.
    TablePlay {
        table: String,
        tournament: Option<String>,
        event: Option<String>,
    },
    CashedIn {
        player: String,
        amount: u64,
    },
    CashedOut {
        player: String,
        amount: u64,
    },
    DrawerCounted {
        id: String,
        cashier: String,
        counted: u64,
        expected: i64,
    },
    CageTransactionVoided {
        id: String,
        transaction: String,
        kind: String,
        player: String,
        amount: u64,
        made_by: String,
        reason: String,
    },
    /// A match play coupon issued to a player for a table: theirs to play once.
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
        /// Each purchase revalued, oldest first: its UTC day, its chips and
        /// what each was cashed in at (never above its face value).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        lots: Vec<RevaluedLot>,
    },
    /// A player's bet sent after no more bets was refused and logged for the
    /// casino's management (low-limit-house Irregularities (4); format 15).
    PastPosting {
        table: String,
        player: String,
        spot: String,
        stake: u64,
        at_ms: u64,
    },
    /// The staff recorded that a player took their colour chips away from
    /// the table (european-casino 5.2): they play no more until cashed in.
    ChipsTakenAway {
        table: String,
        player: String,
        /// Their face value when taken.
        chips: u64,
        at_ms: u64,
        /// Who recorded it, and their licence: the staff's to see.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        licence: Option<String>,
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
    /// A fill or credit slip requested, signed (its money moved) or voided,
    /// or the float counted: the table's staff's.
    FloatSlip {
        table: String,
        slip: super::report::SlipStep,
    },
    InspectionRecorded {
        table: String,
        at_ms: u64,
        by: String,
        licence: String,
        /// The regulator's inspection after an external part was replaced
        /// (Colorado 2212(4)).
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
        /// An external part of the wheel (Colorado 2212(2), (4)).
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
    /// (european-casino 3.5): who, for whom, which bets.
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
    /// B-C).
    BallInspected {
        table: String,
        at_ms: u64,
        by: String,
        licence: String,
        reason: String,
        damaged: bool,
    },
    /// The table's limits from the next round on, per kind of bet, in minor units.
    LimitsSet {
        table: String,
        /// Who set them, with their licence: shown to the table's staff only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        licence: Option<String>,
        limits: Vec<crate::api::KindLimit>,
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
        /// Under the table's minimum, taken to be paid or collected once and
        /// no more (european-casino 3.13); present only when true.
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
    /// A bonus table's draw after no more bets (Maryland ch.3 F(16), (18)):
    /// Bonus Spin Xtreme's target numbers, or Roulette X's lucky numbers
    /// with the odds each pays.
    BonusDrawn {
        table: String,
        round: u64,
        targets: Vec<String>,
        lucky: Vec<LuckyView>,
    },
    /// A player's Bonus Spin Xtreme wager: `placed`, `returned`, `collected`
    /// (lost to the house, its shares to the meters), `awarded` (what the
    /// bonus wheel's `symbol` paid: "primary", "secondary", "blank" or an
    /// amount), or `community` (Community Pay for another's `for_wager`).
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
        /// Who declared it: shown to the table's staff only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
        reason: String,
    },
    EmergencyLifted {
        table: String,
        /// Who lifted it: shown to the table's staff only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
    },
    BetsAnnulled {
        table: String,
        by: String,
        bet_ids: Vec<String>,
        reason: String,
    },
    /// A dispute decided (Colorado 2206(5)): a player sees it only with their own corrections.
    DisputeDecided {
        table: String,
        /// Who decided it: shown to the table's staff only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
        reason: String,
        corrections: Vec<Correction>,
        /// The round disputed, where the dispute named one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        round: Option<u64>,
    },
}

/// One purchase of colour chips revalued on its return (european-casino 5.4).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RevaluedLot {
    /// The UTC day (days since 1970) it was bought on.
    pub day: u64,
    pub chips: u64,
    /// What each chip was cashed in at, in minor units.
    pub unit: u64,
}
