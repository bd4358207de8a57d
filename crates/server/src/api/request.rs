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

macro_rules! client_request {
    ({ $($special:tt)* } $( $group:ident { $( $(#[$vm:meta])* $name:ident { $( $(#[$fm:meta])* $field:ident : $ty:ty ),* $(,)? } ),* $(,)? } )*) => {
        /// Everything a client may ask of the casino. The casino checks the
        /// caller's role against its policy for each. Requests only the server
        /// itself makes (recording logins, voiding an interrupted round, the
        /// journal's format) are not among them: no client can send one.
        #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
        #[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
        pub enum ClientRequest {
            $($special)*
            $( $( $(#[$vm])* $name { $( $(#[$fm])* $field: $ty ),* }, )* )*
        }
    };
}

// Everything a client may ask of the casino: the plain requests of
// `plain_requests.rs`, and those the casino takes otherwise, declared here.
crate::api::plain_requests!(client_request! {
    /// An admin changes a user's display name (empty clears it) or role; a
    /// field left out stays. A new role ends the user's sessions; a player
    /// holding money is not made staff, nor staff holding any a player.
    EditUser {
        username: String,
        #[serde(default)]
        display_name: Option<String>,
        #[serde(default)]
        role: Option<Role>,
    },
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
    CloseTable {
        table: String,
        /// The wheel's cover is on and locked (Maryland ch.2 F).
        #[serde(default)]
        wheel_cover_locked: bool,
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
    /// The pit's count of the float, `when` `opening` or `closing`.
    CountFloat {
        table: String,
        id: String,
        when: String,
        #[serde(with = "minor")]
        #[schema(value_type = u64)]
        amount: Minor,
    },
});

impl ClientRequest {
    /// The table a request is for; `None` for the cage's (users, cash, new tables).
    pub fn table(&self) -> Option<&str> {
        use crate::api::table_of;
        use ClientRequest as C;
        crate::api::plain_requests!(table_of! {
            ClientRequest, self,
                C::CreateUser { .. }
                | C::EditUser { .. }
                | C::ResetPassword { .. }
                | C::ChangePassword { .. }
                | C::CreateTable { .. }
                | C::CashIn { .. }
                | C::CashOut { .. }
                | C::CountDrawer { .. }
                | C::IssueCoupon { .. }
                | C::Tournament { .. } => None,
                C::TablePlay { table, .. }
                | C::Adjust { table, .. }
                | C::InspectBall { table, .. }
                | C::SetLimits { table, .. }
                | C::CloseTable { table, .. }
                | C::Spin { table, .. }
                | C::BuyIn { table, .. }
                | C::SellChips { table, .. }
                | C::Tip { table, .. }
                | C::Dispute { table, .. }
                | C::RequestFill { table, .. }
                | C::RequestCredit { table, .. }
                | C::CountFloat { table, .. } => Some(table),
                C::PlaceBet(bet) => Some(&bet.table),
                C::VerbalBets { table, .. } => Some(table),
        })
    }
}
