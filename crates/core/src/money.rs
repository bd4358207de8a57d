//! Money: integer minor units (cents), never floats.

use std::fmt;

/// The largest stake one bet may carry, in minor units (10,000,000.00 in a
/// two-decimal currency). Anything larger is refused as absurd. The bound is
/// what makes the settlement arithmetic provably free of overflow: the
/// largest return is this times the largest payout plus one.
pub const STAKE_MAX_MINOR: u64 = 1_000_000_000;

/// The largest payout any paytable may state, "N to 1".
pub const PAYOUT_MAX_TO_ONE: u32 = 10_000;

/// An amount of money in minor units. Arithmetic is checked.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize, serde::Deserialize)]
pub struct Minor(u64);

impl Minor {
    pub const ZERO: Minor = Minor(0);

    pub const fn new(minor: u64) -> Minor {
        Minor(minor)
    }

    pub const fn get(self) -> u64 {
        self.0
    }

    pub fn checked_add(self, other: Minor) -> Option<Minor> {
        self.0.checked_add(other.0).map(Minor)
    }

    pub fn checked_sub(self, other: Minor) -> Option<Minor> {
        self.0.checked_sub(other.0).map(Minor)
    }

    pub fn checked_mul(self, factor: u64) -> Option<Minor> {
        self.0.checked_mul(factor).map(Minor)
    }

    /// `self - other` as a signed amount (the net of a bet).
    pub fn signed_diff(self, other: Minor) -> i128 {
        i128::from(self.0) - i128::from(other.0)
    }
}

impl fmt::Debug for Minor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}m", self.0)
    }
}

impl fmt::Display for Minor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:02}", self.0 / 100, self.0 % 100)
    }
}

/// A stake: a positive amount of money no larger than [`STAKE_MAX_MINOR`].
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, serde::Serialize, serde::Deserialize)]
pub struct Stake(Minor);

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StakeError {
    #[error("stake must be positive, got {0}")]
    NotPositive(i128),
    #[error("stake {0} is larger than the largest allowed stake {max}", max = STAKE_MAX_MINOR)]
    TooLarge(i128),
}

impl Stake {
    pub fn new(minor: i128) -> Result<Stake, StakeError> {
        if minor <= 0 {
            return Err(StakeError::NotPositive(minor));
        }
        if minor > i128::from(STAKE_MAX_MINOR) {
            return Err(StakeError::TooLarge(minor));
        }
        Ok(Stake(Minor(minor as u64)))
    }

    pub fn minor(self) -> Minor {
        self.0
    }

    pub fn get(self) -> u64 {
        self.0 .0
    }
}

/// How half of an odd stake is rounded when a rule hands half back (In
/// Prison's "take back half", or half back on zero). Minor units cannot be
/// split, so the profile says which way the odd unit goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum HalfRounding {
    /// The player receives floor(stake / 2); the odd minor unit stays with the house.
    Down,
    /// The player receives ceil(stake / 2); the odd minor unit goes to the player.
    Up,
}

impl HalfRounding {
    pub fn half_of(self, stake: Minor) -> Minor {
        match self {
            HalfRounding::Down => Minor(stake.0 / 2),
            HalfRounding::Up => Minor(stake.0.div_ceil(2)),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            HalfRounding::Down => "down",
            HalfRounding::Up => "up",
        }
    }

    pub fn parse(text: &str) -> Option<HalfRounding> {
        match text {
            "down" => Some(HalfRounding::Down),
            "up" => Some(HalfRounding::Up),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stake_bounds() {
        assert!(Stake::new(0).is_err());
        assert!(Stake::new(-5).is_err());
        assert!(Stake::new(1).is_ok());
        assert!(Stake::new(i128::from(STAKE_MAX_MINOR)).is_ok());
        assert!(Stake::new(i128::from(STAKE_MAX_MINOR) + 1).is_err());
    }

    #[test]
    fn largest_return_cannot_overflow() {
        // The bound the settlement hot path relies on.
        let largest = STAKE_MAX_MINOR.checked_mul(u64::from(PAYOUT_MAX_TO_ONE) + 1);
        assert!(largest.is_some());
    }

    #[test]
    fn half_of_an_odd_stake() {
        assert_eq!(HalfRounding::Down.half_of(Minor::new(501)), Minor::new(250));
        assert_eq!(HalfRounding::Up.half_of(Minor::new(501)), Minor::new(251));
        assert_eq!(HalfRounding::Down.half_of(Minor::new(500)), Minor::new(250));
        assert_eq!(HalfRounding::Up.half_of(Minor::new(500)), Minor::new(250));
    }
}
