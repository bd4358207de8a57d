//! Why a request was refused: one code per kind of refusal, each with its
//! HTTP status, and a sentence for the person.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

macro_rules! error_codes {
    ($($(#[$doc:meta])* $variant:ident = $name:literal => $status:literal,)*) => {
        /// Every refusal's stable code. Programs branch on it; the sentence
        /// beside it is for people and may be reworded.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
        pub enum ErrorCode {
            $($(#[$doc])* #[serde(rename = $name)] $variant,)*
        }

        impl ErrorCode {
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The code as the API writes it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $name,)*
                }
            }

            /// The HTTP status an answer with this code carries.
            pub fn status(self) -> u16 {
                match self {
                    $(ErrorCode::$variant => $status,)*
                }
            }
        }
    };
}

error_codes! {
    /// No session, or one that is over.
    Unauthenticated = "unauthenticated" => 401,
    /// The account is locked.
    Locked = "locked" => 401,
    /// The caller's role may not do this.
    Forbidden = "forbidden" => 403,
    /// The current password given to change it is wrong.
    WrongPassword = "wrong_password" => 403,
    /// More than the caller's role may do alone: someone above makes it.
    OverRoleLimit = "over_role_limit" => 403,
    /// Signed in with a password someone else chose: change it first.
    PasswordChangeNeeded = "password_change_needed" => 403,
    NoTable = "no_table" => 404,
    NoPlayer = "no_player" => 404,
    NoUser = "no_user" => 404,
    NoRound = "no_round" => 404,
    NoTournament = "no_tournament" => 404,
    /// No such page or API route.
    NotFound = "not_found" => 404,
    MethodNotAllowed = "method_not_allowed" => 405,
    /// The body is not the JSON the request needs.
    BadRequest = "bad_request" => 400,
    TooLarge = "too_large" => 413,
    /// A body that did not arrive whole within the time a body is given.
    BodyTooSlow = "body_too_slow" => 408,
    UnsupportedMediaType = "unsupported_media_type" => 415,
    /// Too many requests in flight on one socket, or sign-ins waiting.
    Busy = "busy" => 429,
    /// Too many sign-ins tried: wait as long as `Retry-After` says.
    TooManyAttempts = "too_many_attempts" => 429,
    /// The journal could not be written: nothing changed.
    Storage = "storage" => 503,
    /// The journal's write was sent and its answer lost (the database's
    /// connection dropped during the commit, a disk's flush failed): it may
    /// or may not have been made. Send the request again with the same id:
    /// it acts at most once, and is answered as done if it was.
    OutcomeUnknown = "outcome_unknown" => 503,
    Internal = "internal" => 503,
    /// The casino has stopped.
    Unavailable = "unavailable" => 503,
    /// The journal cannot be written (a full disk): the casino is paused
    /// and resumes by itself once it can; nothing acknowledged is lost.
    Paused = "paused" => 503,
    // The casino's own refusals.
    BadUsername = "bad_username" => 422,
    BadPassword = "bad_password" => 422,
    Exists = "exists" => 422,
    /// A tournament file its profile's rules refuse, naming the field and clause.
    BadTournament = "bad_tournament" => 422,
    /// A tournament's rules refuse the order (the clause is named).
    TournamentRefused = "tournament_refused" => 422,
    Full = "full" => 422,
    BadFormat = "bad_format" => 422,
    BadTable = "bad_table" => 422,
    /// An adjustment without the security member who witnessed it.
    WitnessRequired = "witness_required" => 422,
    /// An adjustment naming as its witness someone who cannot be: not a
    /// user of the security role, locked, the adjuster, or a licence typed
    /// where the record's is logged (journal format 16).
    BadWitness = "bad_witness" => 422,
    /// An adjustment confirmed by someone other than the witness it names.
    NotTheWitness = "not_the_witness" => 403,
    /// No adjustment of that number at the table.
    NoAdjustment = "no_adjustment" => 404,
    /// An adjustment already witnessed or withdrawn.
    AdjustmentClosed = "adjustment_closed" => 409,
    /// An inspection while an adjustment awaits its witness (Colorado 2212(3), Maryland ch.2 C).
    AdjustmentNotWitnessed = "adjustment_not_witnessed" => 409,
    /// A table closed without its wheel cover locked.
    CoverNotLocked = "cover_not_locked" => 422,
    /// Maryland ch.1 G(1): a table opens once the operator's name is on its layout.
    OperatorNotNamed = "operator_not_named" => 409,
    /// Maryland ch.1 G(3): a table opens once its limits are posted on every kind of bet it takes.
    LimitsNotPosted = "limits_not_posted" => 409,
    /// A bonus table's spin before its bonus numbers are drawn (Maryland ch.3 F(16), (18)).
    BonusNotDrawn = "bonus_not_drawn" => 409,
    /// A second Bonus Spin Xtreme wager at one position in a round (Maryland ch.3 F(17)(a)).
    BonusWagerPlaced = "bonus_wager_placed" => 409,
    /// A retired table or user: it takes no request that moves money, opens
    /// a table or signs in; its history stays readable.
    Retired = "retired" => 409,
    /// A table or user still holding money, or staff with a duty open: it
    /// cannot be retired (or, a player, made staff) until it is settled.
    /// A player is retired only once locked, so nothing is played for them meanwhile.
    NotLocked = "not_locked" => 409,
    MoneyHeld = "money_held" => 409,
    /// A licence number that cannot be recorded.
    BadLicence = "bad_licence" => 422,
    /// An inspection or adjustment by staff with no licence on record (Colorado 2212(5), Maryland ch.2 E(6)).
    LicenceNotRecorded = "licence_not_recorded" => 403,
    /// A match play coupon past its end.
    CouponExpired = "coupon_expired" => 422,
    /// Table limits out of bounds, or set while a round is under way.
    BadLimits = "bad_limits" => 422,
    BadProfile = "bad_profile" => 422,
    BadWheel = "bad_wheel" => 422,
    BadAccount = "bad_account" => 422,
    /// The ledger refused the transfers (a conflicting resend, too little money).
    Refused = "refused" => 422,
    NotSeated = "not_seated" => 422,
    BetsOnLayout = "bets_on_layout" => 422,
    /// The player's colour chips were taken away from the table: they are
    /// cashed in before the player bets, buys or tips here again
    /// (european-casino 5.2, 5.4).
    ChipsAway = "chips_away" => 422,
    BadAmount = "bad_amount" => 422,
    ChipValue = "chip_value" => 422,
    NoColour = "no_colour" => 422,
    BadStake = "bad_stake" => 422,
    BadZeroChoice = "bad_zero_choice" => 422,
    BadSpin = "bad_spin" => 422,
    InsufficientChips = "insufficient_chips" => 422,
    NotRng = "not_rng" => 422,
    /// Not a table whose outcomes come from an automated wheel.
    NotWheel = "not_wheel" => 422,
    /// A result entered at a table whose results come from the RNG or a wheel.
    NotDealerTable = "not_dealer_table" => 422,
    // The round's refusals (the core's).
    TableClosed = "table_closed" => 422,
    NotInspected = "not_inspected" => 422,
    InspectionFailed = "inspection_failed" => 422,
    /// A no spin's ball is to be inspected before the next spin (Colorado 2206(4), Maryland ch.6 B-C).
    BallInspectionRequired = "ball_inspection_required" => 422,
    /// No no spin's ball awaits inspection.
    NoBallToInspect = "no_ball_to_inspect" => 422,
    /// An external part was replaced: the regulator inspects first (Colorado 2212(4)).
    RegulatorInspectionRequired = "regulator_inspection_required" => 422,
    AlreadyOpen = "already_open" => 422,
    RoundUnderWay = "round_under_way" => 422,
    BettingNotOpen = "betting_not_open" => 422,
    PastPosting = "past_posting" => 422,
    NoSuchBet = "no_such_bet" => 422,
    DuplicateBet = "duplicate_bet" => 422,
    BadBetId = "bad_bet_id" => 422,
    RoundFull = "round_full" => 422,
    /// A player's share of a round is used: so many bets placed in it.
    TooManyBets = "too_many_bets" => 422,
    NotSpinning = "not_spinning" => 422,
    Emergency = "emergency" => 422,
    NoEmergency = "no_emergency" => 422,
    PocketNotOnWheel = "pocket_not_on_wheel" => 422,
    BadText = "bad_text" => 422,
    TimeWentBackwards = "time_went_backwards" => 422,
    /// A dispute's correction the disputed round cannot account for.
    BadCorrection = "bad_correction" => 422,
    // A bet's refusals (the core's).
    EmptySpot = "empty_spot" => 422,
    UnknownPocket = "unknown_pocket" => 422,
    UnknownSpot = "unknown_spot" => 422,
    RepeatedPocket = "repeated_pocket" => 422,
    NotOnLayout = "not_on_layout" => 422,
    GreenNeedsTripleZero = "green_needs_triple_zero" => 422,
    NeighbourNotBettable = "neighbour_not_bettable" => 422,
    StakeNotPositive = "stake_not_positive" => 422,
    StakeTooLarge = "stake_too_large" => 422,
    NotOffered = "not_offered" => 422,
    StakeIndivisible = "stake_indivisible" => 422,
    UnderMinimum = "under_minimum" => 422,
    OverMaximum = "over_maximum" => 422,
    ZeroChoiceWithoutInPrison = "zero_choice_without_in_prison" => 422,
    ZeroChoiceNotEvenMoney = "zero_choice_not_even_money" => 422,
    CouponNotAccepted = "coupon_not_accepted" => 422,
    CouponNotMatched = "coupon_not_matched" => 422,
    CouponWithZeroChoice = "coupon_with_zero_choice" => 422,
    /// No such coupon was issued to the player for the table.
    CouponNotIssued = "coupon_not_issued" => 422,
    /// The coupon was played already.
    CouponUsed = "coupon_used" => 422,
    /// A coupon's id is not one a coupon can have.
    BadCoupon = "bad_coupon" => 422,
    /// No slip of that id at the table.
    NoSlip = "no_slip" => 404,
    /// A slip signed twice by one person: its two signatures are two people's.
    SameSigner = "same_signer" => 403,
    /// A credit slip for more than the table's float holds.
    InsufficientFloat = "insufficient_float" => 422,
    /// A slip already signed or voided.
    SlipClosed = "slip_closed" => 409,
    /// No cash-in or cash-out of that reference in the cage's record of the gaming day.
    NoCageTransaction = "no_cage_transaction" => 404,
    /// A cash-in or cash-out voided already.
    AlreadyVoided = "already_voided" => 409,
    /// A cash-in voided after the player's wallet spent it.
    WalletSpent = "wallet_spent" => 422,
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for ErrorCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// A refusal: a stable code for programs and a sentence for people.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    /// For a refusal that passes with time: how many seconds to wait (`Retry-After`).
    pub retry_after_s: Option<u64>,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            message: message.into(),
            retry_after_s: None,
        }
    }

    /// A refusal that passes with time: try again in `seconds`.
    pub fn wait(code: ErrorCode, message: impl Into<String>, seconds: u64) -> ApiError {
        ApiError {
            retry_after_s: Some(seconds),
            ..ApiError::new(code, message)
        }
    }

    pub fn forbidden(what: &str, role: crate::api::Role) -> ApiError {
        ApiError::new(ErrorCode::Forbidden, format!("{} may not {what}", a_role(role)))
    }

    pub fn stopped() -> ApiError {
        ApiError::new(ErrorCode::Unavailable, "the casino has stopped")
    }

    pub fn internal(why: impl std::fmt::Display) -> ApiError {
        ApiError::new(ErrorCode::Internal, why.to_string())
    }
}

/// A role with its article: "a dealer", "an admin".
pub fn a_role(role: crate::api::Role) -> String {
    let name = role.name();
    let article = if name.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {name}")
}

/// Every refusal's body, whatever refused it: the casino, a session check,
/// or a body that is not the request's JSON.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ErrorBody {
    pub error: ErrorCode,
    pub message: String,
}

impl From<ApiError> for ErrorBody {
    fn from(e: ApiError) -> ErrorBody {
        ErrorBody {
            error: e.code,
            message: e.message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_written_as_serde_writes_it_and_names_one_kind() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            let json = serde_json::to_value(code).expect("serialises");
            assert_eq!(json.as_str(), Some(code.as_str()));
            assert!(seen.insert(code.as_str()), "{code} twice");
            assert!((400..600).contains(&code.status()), "{code}");
            let back: ErrorCode = serde_json::from_value(json).expect("reads back");
            assert_eq!(back, *code);
        }
    }
}
