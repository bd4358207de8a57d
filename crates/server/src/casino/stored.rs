//! The journal's own forms of a request's parts: a spin, a dispute's
//! correction, a verbal bet, an outcome source. The API's words may change;
//! these do not.

use croupier_core::Minor;
use croupier_ledger::minor;
use serde::{Deserialize, Serialize};

use crate::api::{Correction, SpinView};

/// One bet of a verbal series as the journal keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredVerbalBet {
    pub bet_id: String,
    pub spot: String,
    #[serde(with = "minor")]
    pub stake: Minor,
}

/// A spin as the journal keeps it: a pocket with the ball's direction and
/// revolutions, or a no spin's reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Spin {
    Ball {
        pocket: String,
        direction: String,
        revolutions: u8,
    },
    NoSpin {
        no_spin: String,
    },
}

impl Spin {
    pub fn to_report(&self) -> Result<croupier_core::round::SpinReport, String> {
        use croupier_core::round::SpinReport;
        match self {
            Spin::Ball {
                pocket,
                direction,
                revolutions,
            } => SpinReport::dealer_entry(pocket, direction, *revolutions),
            Spin::NoSpin { no_spin } => SpinReport::dealer_no_spin(no_spin),
        }
    }

    pub fn from_report(report: croupier_core::round::SpinReport) -> Spin {
        use croupier_core::round::SpinReport;
        match report {
            SpinReport::Ball {
                pocket,
                opposite_direction,
                revolutions,
            } => Spin::Ball {
                pocket: pocket.label().to_string(),
                direction: if opposite_direction { "opposite" } else { "same" }.to_string(),
                revolutions,
            },
            SpinReport::NoSpin(reason) => Spin::NoSpin {
                no_spin: reason.name().to_string(),
            },
        }
    }
}

impl From<SpinView> for Spin {
    fn from(v: SpinView) -> Spin {
        match v {
            SpinView::Ball {
                pocket,
                direction,
                revolutions,
            } => Spin::Ball {
                pocket,
                direction,
                revolutions,
            },
            SpinView::NoSpin { no_spin } => Spin::NoSpin { no_spin },
        }
    }
}

/// A dispute's correction as the journal keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredCorrection {
    pub player: String,
    pub amount: i64,
}

impl From<Correction> for StoredCorrection {
    fn from(c: Correction) -> StoredCorrection {
        StoredCorrection {
            player: c.player,
            amount: c.amount,
        }
    }
}

/// An outcome source as the journal writes it.
pub mod stored_outcome {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::api::OutcomeSource;

    const NAMES: [(OutcomeSource, &str); 3] = [
        (OutcomeSource::Rng, "rng"),
        (OutcomeSource::Dealer, "dealer"),
        (OutcomeSource::Wheel, "wheel"),
    ];

    pub fn serialize<S: Serializer>(source: &OutcomeSource, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(NAMES.iter().find(|(s, _)| s == source).map_or("dealer", |(_, n)| n))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<OutcomeSource, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(deserializer)?;
        NAMES
            .iter()
            .find(|(_, n)| *n == text)
            .map(|(s, _)| *s)
            .ok_or_else(|| serde::de::Error::custom(format!("{text:?} is not an outcome source")))
    }
}
