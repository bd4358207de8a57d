//! The pure rules core of croupier.
//!
//! Wheels, pockets, spots, payouts, zero rules, profiles and settlement. No
//! I/O, no clock, no randomness, no async: the winning pocket is an argument,
//! so every rule is testable and every round replayable.

pub mod bonus;
pub mod canonical;
pub mod money;
pub mod no_spin;
pub mod pocket;
pub mod profile;
pub mod round;
pub mod settle;
pub mod spot;
pub mod tournament;
pub mod wheel;

pub use money::{HalfRounding, Minor, Stake, StakeError, PAYOUT_MAX_TO_ONE, STAKE_MAX_MINOR};
pub use pocket::{Colour, Pocket, PocketSet, POCKET_COUNT_MAX};
pub use profile::{
    EvenMoneyOnZero, Jurisdiction, Limits, NoSpinBets, OverMaximum, Paytable, Profile, ProfileError, ProfileSpec,
    StakeRange, UnderMinimum, ZeroChoice, ZeroRules,
};
pub use settle::{
    BetError, BetRequest, Book, BookError, BookResults, Component, Outcome, PlacedBet, RulesError, Settlement,
    TableRules, BETS_PER_ROUND_MAX,
};
pub use spot::{inside_spots, Kind, Spot, SpotError, ALL_KINDS, KIND_COUNT};
pub use wheel::{Layout, Wheel, ALL_WHEELS};
