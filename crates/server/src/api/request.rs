//! What clients send: the requests, and the small values inside them.

use croupier_core::Minor;
use croupier_ledger::minor;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::TournamentOrder;

pub use super::role::Role;

/// How a table learns its outcomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeSource {
    Rng,
    Dealer,
    Wheel,
}

/// A spin as reported: a pocket with the ball's direction and revolutions, or a no spin.
/// Read by hand (`Deserialize` below) so that a spin missing a field is
/// refused naming it, never read as another kind of spin or defaulted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(untagged)]
pub enum SpinView {
    Ball {
        pocket: String,
        /// `opposite` or `same`: the ball against the wheel's rotation.
        direction: String,
        revolutions: u8,
    },
    NoSpin {
        /// A no spin's reason: `same_direction`, `too_few_revolutions`, ...
        no_spin: String,
    },
}

impl<'de> Deserialize<'de> for SpinView {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        // Read as a map of any values, so that what is missing, mistyped or
        // unknown can be named (a tagged request keeps no path to the field
        // serde refused), and nothing but an object is a spin.
        let mut fields = std::collections::BTreeMap::<String, serde_json::Value>::deserialize(deserializer)?;
        let mut text = |name: &str| match fields.remove(name) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(serde_json::Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(D::Error::custom(format!("the spin's {name} is text, not {other}"))),
        };
        let (pocket, direction, no_spin) = (text("pocket")?, text("direction")?, text("no_spin")?);
        let revolutions = fields.remove("revolutions");
        if let Some(unknown) = fields.keys().next() {
            return Err(D::Error::custom(format!(
                "unknown field `{unknown}`: a spin has a pocket, direction and revolutions, or a no_spin"
            )));
        }
        let revolutions = match revolutions {
            None | Some(serde_json::Value::Null) => None,
            Some(typed) => Some(typed.as_u64().and_then(|n| u8::try_from(n).ok()).ok_or_else(|| {
                D::Error::custom(format!(
                    "the revolutions counted are a whole number from 0 to 255, not {typed}"
                ))
            })?),
        };
        match (pocket, direction, revolutions, no_spin) {
            (None, None, None, Some(no_spin)) => Ok(SpinView::NoSpin { no_spin }),
            (_, _, _, Some(_)) => Err(D::Error::custom(
                "a spin is a pocket with the ball's direction and revolutions, or a no_spin with its reason, not both",
            )),
            (Some(pocket), Some(direction), Some(revolutions), None) => Ok(SpinView::Ball {
                pocket,
                direction,
                revolutions,
            }),
            (pocket, direction, revolutions, None) => {
                let missing: Vec<&str> = [
                    ("pocket", pocket.is_none()),
                    ("direction", direction.is_none()),
                    ("revolutions", revolutions.is_none()),
                ]
                .into_iter()
                .filter_map(|(name, absent)| absent.then_some(name))
                .collect();
                Err(D::Error::custom(format!(
                    "a spin names its pocket, the ball's direction and the revolutions counted (or a no_spin with its reason): {} missing",
                    missing.join(", ")
                )))
            }
        }
    }
}

/// One bet of a verbal series: its id, spot and stake in minor units.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VerbalBet {
    pub bet_id: String,
    pub spot: String,
    #[serde(with = "minor")]
    #[schema(value_type = u64)]
    pub stake: Minor,
}

/// A table's limit for one kind of bet, in minor units (`set_limits`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct KindLimit {
    pub kind: String,
    pub min: u64,
    pub max: u64,
}

/// A dispute's correction of one player's chips at the table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Correction {
    pub player: String,
    /// Positive: paid to the player; negative: collected from the player.
    pub amount: i64,
}

/// A bet: the request a terminal sends most, read on its own where it
/// comes alone (a table stream reads a bet without the buffering a request
/// tagged by its `op` costs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlaceBet {
    /// The request's tag, when a bet is read on its own; the general
    /// request reads it as its `op` and leaves it out here.
    #[serde(default, skip_serializing)]
    #[schema(ignore)]
    pub op: Option<BetOp>,
    pub table: String,
    /// The client's id for the bet: a resend with the same id places nothing twice.
    pub bet_id: String,
    /// Spot notation: `17`, `17-18`, `red`, `dozen2`, `neighbours:17`, `complete:17`...
    pub spot: String,
    #[serde(with = "minor")]
    #[schema(value_type = u64)]
    pub stake: Minor,
    /// `half` or `prison`, where the table offers In Prison.
    #[serde(default)]
    pub zero_choice: Option<String>,
    /// A match play coupon's value, matched by the stake.
    #[serde(default, with = "minor::option")]
    #[schema(value_type = Option<u64>)]
    pub coupon: Option<Minor>,
    /// The match play coupon played, as issued to this player for this
    /// table (`issue_coupon`); its value is the coupon's. Each is played once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coupon_id: Option<String>,
}

/// The one `op` a bet read on its own takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BetOp {
    #[serde(rename = "place_bet")]
    PlaceBet,
}

/// Everything a client may ask of the casino. The casino checks the
/// caller's role against its policy for each. Requests only the server
/// itself makes (recording logins, voiding an interrupted round, the
/// journal's format) are not among them: no client can send one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientRequest {
    CreateUser {
        username: String,
        role: Role,
        /// The new user's password, as they will type it: the server keeps only its hash.
        password: String,
        /// The admin chose it: the user changes it at their first sign-in (the admin page's default).
        #[serde(default)]
        must_change_password: bool,
        /// A staff member's licence number, kept on their record: the logs
        /// take it from there, not from what is typed at sign-in.
        #[serde(default)]
        licence: Option<String>,
    },
    /// An admin records a staff member's licence number (Colorado 2212(5), Maryland ch.2 E).
    SetLicence {
        username: String,
        licence: String,
    },
    /// An admin locks an account: it signs in no more, and its sessions end.
    LockUser {
        username: String,
    },
    /// An admin unlocks an account.
    UnlockUser {
        username: String,
    },
    /// An admin sets another user's password; that user's sessions end.
    ResetPassword {
        username: String,
        password: String,
    },
    /// A user changes their own password, giving the old one; their other sessions end.
    ChangePassword {
        password: String,
        new_password: String,
    },
    /// An admin names the casino's operator, shown on every table's layout
    /// (Maryland ch.1 G(1): "the name or logo of the facility operator").
    NameOperator {
        name: String,
    },
    /// An admin sets the casino's gaming day (journal format 14): the day its
    /// books close and its daily limits begin again, in `time_zone` (an IANA
    /// name, `America/Denver`) from `starts_at` (`HH:MM`, local). A UTC day
    /// from midnight until set.
    SetGamingDay {
        time_zone: String,
        starts_at: String,
    },
    CreateTable {
        table: String,
        /// The profile file's text.
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
        /// A bonus configuration file's text (Roulette X or Bonus Spin
        /// Xtreme), where the profile's document permits it.
        #[serde(default)]
        bonus_text: Option<String>,
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
        /// The security department member present (Colorado 2212(2),
        /// Maryland ch.2 B). From journal format 16 their username: a
        /// security user with a licence on record, who confirms the
        /// adjustment from their own account (`witness_adjustment`), and
        /// `witness_licence` is left out (their record's is logged). Up to
        /// format 15 their name and licence as typed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        witness: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        witness_licence: Option<String>,
        /// The part is external to the wheel: replacing one calls for the
        /// regulator's inspection where the rules say so (Colorado 2212(4)).
        #[serde(default)]
        external: bool,
    },
    /// The security witness named by an adjustment confirms it, signed in
    /// as themselves (Colorado 2212(2), Maryland ch.2 B; journal format 16).
    /// `adjustment`: its number at the table, as the log shows it.
    WitnessAdjustment {
        table: String,
        adjustment: u64,
    },
    /// The pit withdraws an adjustment its witness has not confirmed, with
    /// the reason (journal format 16): the log keeps it, unwitnessed.
    WithdrawAdjustment {
        table: String,
        adjustment: u64,
        reason: String,
    },
    /// The ball of a no spin that calls for it, inspected before it goes back
    /// into the wheel (Colorado 2206(4), Maryland ch.6 B-C); `damaged`: it
    /// was replaced with a new one.
    InspectBall {
        table: String,
        #[serde(default)]
        damaged: bool,
    },
    /// The table's limits per kind of bet, set by the pit between rounds.
    SetLimits {
        table: String,
        limits: Vec<KindLimit>,
    },
    OpenTable {
        table: String,
    },
    CloseTable {
        table: String,
        /// The wheel's cover is on and locked (Maryland ch.2 F).
        #[serde(default)]
        wheel_cover_locked: bool,
    },
    OpenBetting {
        table: String,
    },
    NoMoreBets {
        table: String,
    },
    /// The outcome, as keyed by a dealer.
    Spin {
        table: String,
        spin: SpinView,
    },
    CashIn {
        id: String,
        player: String,
        #[serde(with = "minor")]
        #[schema(value_type = u64)]
        amount: Minor,
    },
    CashOut {
        id: String,
        player: String,
        #[serde(with = "minor")]
        #[schema(value_type = u64)]
        amount: Minor,
    },
    /// A cashier's count of their own drawer at shift end, in minor units
    /// (0 allowed), kept beside what the cage's record says it holds.
    /// `id`: 1 to 64 of A-Z, a-z, 0-9, '-', '_', '.'.
    CountDrawer {
        id: String,
        #[serde(with = "minor")]
        #[schema(value_type = u64)]
        amount: Minor,
    },
    /// A mistaken cash-in or cash-out, `transaction` its reference, undone
    /// by the reverse transfer: the pit's or an admin's, never its cashier's.
    VoidCageTransaction {
        id: String,
        transaction: String,
        reason: String,
    },
    /// A tournament from its file's text (TOML, as `croupier tournament
    /// check` reads it): checked against its profile, each refusal naming
    /// its clause (Colorado 2213-2214). An admin's.
    CreateTournament {
        config: String,
    },
    /// An order to a tournament: the director's (a pit supervisor's or an
    /// admin's), or a player's agreement to a split for their own entry.
    Tournament {
        tournament: String,
        order: TournamentOrder,
    },
    /// A table switches to the tournament event it was given (`tournament`
    /// named), its chips then points with no cash value (Colorado 2214(1)),
    /// or back to cash play (`tournament` absent) once the event is over:
    /// never both at once, and only between rounds.
    TablePlay {
        table: String,
        #[serde(default)]
        tournament: Option<String>,
    },
    /// A match play coupon issued to `player` for `table` (Colorado
    /// 2203(1): "valid" coupons only): the player may play it once, on a
    /// bet the table's profile takes coupons on, matched by an equal stake.
    IssueCoupon {
        /// The coupon's own number, unique in the casino.
        id: String,
        player: String,
        table: String,
        #[serde(with = "minor")]
        #[schema(value_type = u64)]
        value: Minor,
        /// When the coupon stops being valid (Unix ms), if it has an end
        /// (Colorado 2203(1): valid coupons); written only when set.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expires_at_ms: Option<u64>,
    },
    BuyIn {
        id: String,
        table: String,
        #[serde(with = "minor")]
        #[schema(value_type = u64)]
        amount: Minor,
        #[serde(with = "minor")]
        #[schema(value_type = u64)]
        chip_value: Minor,
    },
    /// A dealer sells `player` colour chips for cash at the table: the cash
    /// goes into the table's drop box (Colorado 2202), the chips to the player.
    SellChips {
        id: String,
        table: String,
        player: String,
        #[serde(with = "minor")]
        #[schema(value_type = u64)]
        amount: Minor,
        #[serde(with = "minor")]
        #[schema(value_type = u64)]
        chip_value: Minor,
    },
    LeaveTable {
        id: String,
        table: String,
    },
    /// A supervisor confirms a player's colour chips at their face value
    /// past the gaming day they were bought on (european-casino 5.5; the
    /// low-limit house's floor manager): they are not cashed at the table
    /// minimum, or at $1 each, when the player leaves.
    ConfirmChips {
        table: String,
        player: String,
    },
    /// The dealer or a supervisor records that a seated player took their
    /// colour chips away from the table (european-casino 5.2): they play no
    /// more until cashed in, and come back as the profile values chips
    /// taken away (5.4; the low-limit house's $1 each), unless confirmed.
    ChipsTakenAway {
        table: String,
        player: String,
    },
    Tip {
        id: String,
        table: String,
        #[serde(with = "minor")]
        #[schema(value_type = u64)]
        amount: Minor,
    },
    PlaceBet(PlaceBet),
    /// A player's announced series of verbal bets, entered by the croupier:
    /// all of it is taken, or none (european-casino 3.5-3.6), at a table
    /// whose profile takes verbal bets.
    VerbalBets {
        table: String,
        player: String,
        bets: Vec<VerbalBet>,
    },
    CancelBet {
        table: String,
        bet_id: String,
    },
    /// A player's $5 Bonus Spin Xtreme wager at their position, before no
    /// more bets (Maryland ch.3 F(16)-(17)): one a round; `wager_id` as a bet's id.
    BonusWager {
        table: String,
        wager_id: String,
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
        /// Each a player who bet in the disputed round, once: paid (positive)
        /// or collected (negative), so that the round gives them in all
        /// between nothing and the most their bets there could return.
        corrections: Vec<Correction>,
        /// The round disputed, by its number at this table; left out: the
        /// table's last settled round.
        #[serde(default)]
        round: Option<u64>,
        /// The client's id for this decision, chosen when the form is filled
        /// (1 to 64 of A-Z, a-z, 0-9, '-', '_', '.'): the same dispute sent
        /// again under it decides nothing twice. Required from journal format 14.
        #[serde(default)]
        id: Option<String>,
    },
    AnnulBets {
        table: String,
        bet_ids: Vec<String>,
        reason: String,
    },
    /// The pit's fill slip: chips from the cage to the float, once the cage
    /// signs it (`sign_slip`). `id`: 1 to 64 of A-Z, a-z, 0-9, '-', '_', '.'.
    RequestFill {
        table: String,
        id: String,
        #[serde(with = "minor")]
        #[schema(value_type = u64)]
        amount: Minor,
    },
    /// The pit's credit slip: chips from the float back to the cage, between rounds.
    RequestCredit {
        table: String,
        id: String,
        #[serde(with = "minor")]
        #[schema(value_type = u64)]
        amount: Minor,
    },
    /// The cage's second signature on an open slip: its money moves.
    SignSlip {
        table: String,
        id: String,
    },
    VoidSlip {
        table: String,
        id: String,
        reason: String,
    },
    /// The pit's count of the float, `when` `opening` or `closing`.
    CountFloat {
        table: String,
        id: String,
        when: String,
        #[serde(with = "minor")]
        #[schema(value_type = u64)]
        amount: Minor,
    },
}

impl ClientRequest {
    /// The table a request is for; `None` for the cage's (users, cash, new tables).
    pub fn table(&self) -> Option<&str> {
        use ClientRequest as C;
        match self {
            C::CreateUser { .. }
            | C::SetLicence { .. }
            | C::LockUser { .. }
            | C::UnlockUser { .. }
            | C::ResetPassword { .. }
            | C::ChangePassword { .. }
            | C::NameOperator { .. }
            | C::SetGamingDay { .. }
            | C::CreateTable { .. }
            | C::CashIn { .. }
            | C::CashOut { .. }
            | C::CountDrawer { .. }
            | C::VoidCageTransaction { .. }
            | C::IssueCoupon { .. }
            | C::CreateTournament { .. }
            | C::Tournament { .. } => None,
            C::TablePlay { table, .. }
            | C::Inspect { table, .. }
            | C::Adjust { table, .. }
            | C::WitnessAdjustment { table, .. }
            | C::WithdrawAdjustment { table, .. }
            | C::InspectBall { table, .. }
            | C::SetLimits { table, .. }
            | C::OpenTable { table }
            | C::CloseTable { table, .. }
            | C::OpenBetting { table }
            | C::NoMoreBets { table }
            | C::Spin { table, .. }
            | C::BonusWager { table, .. }
            | C::BuyIn { table, .. }
            | C::SellChips { table, .. }
            | C::LeaveTable { table, .. }
            | C::ConfirmChips { table, .. }
            | C::ChipsTakenAway { table, .. }
            | C::Tip { table, .. }
            | C::CancelBet { table, .. }
            | C::DeclareEmergency { table, .. }
            | C::LiftEmergency { table }
            | C::Dispute { table, .. }
            | C::AnnulBets { table, .. }
            | C::RequestFill { table, .. }
            | C::RequestCredit { table, .. }
            | C::SignSlip { table, .. }
            | C::VoidSlip { table, .. }
            | C::CountFloat { table, .. } => Some(table),
            C::PlaceBet(bet) => Some(&bet.table),
            C::VerbalBets { table, .. } => Some(table),
        }
    }
}
