//! Bonus configuration files: Roulette X Bonus and Bonus Spin Xtreme.

use std::path::Path;

use croupier_core::bonus::{BonusError, BonusSpinXtreme, BsxSymbol, RouletteX, Weighted, XPaytable};
use croupier_core::Minor;
use serde::Deserialize;

use crate::LoadError;

pub const BUILTIN_BONUS: [(&str, &str); 4] = [
    (
        "roulette-x-a",
        include_str!("../../../profiles/bonus/roulette-x-a.toml"),
    ),
    (
        "roulette-x-b",
        include_str!("../../../profiles/bonus/roulette-x-b.toml"),
    ),
    (
        "roulette-x-c",
        include_str!("../../../profiles/bonus/roulette-x-c.toml"),
    ),
    (
        "bonus-spin-xtreme",
        include_str!("../../../profiles/bonus/bonus-spin-xtreme.toml"),
    ),
];

/// A bonus configuration: the core's own type, as a table keeps it.
pub use croupier_core::bonus::TableBonus as Bonus;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry<T> {
    #[serde(alias = "count", alias = "odds", alias = "symbol")]
    value: T,
    weight: u32,
}

#[derive(Deserialize)]
#[serde(tag = "kind", deny_unknown_fields)]
enum BonusFile {
    #[serde(rename = "roulette-x")]
    RouletteX {
        name: String,
        paytable: String,
        lucky_count: Vec<Entry<u8>>,
        later_odds: Vec<Entry<u32>>,
    },
    #[serde(rename = "bonus-spin-xtreme")]
    BonusSpinXtreme {
        name: String,
        wager: u64,
        targets: Vec<Entry<u8>>,
        symbols: Vec<Entry<String>>,
        primary_reset: u64,
        secondary_reset: u64,
        primary_rate_per_mille: u32,
        secondary_rate_per_mille: u32,
        /// Community Pay (Maryland ch.4 D(5), E): the qualifying symbols.
        #[serde(default)]
        community: Vec<Community>,
        /// The table's betting positions.
        positions: u8,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Community {
    symbol: String,
    pays: u64,
}

fn weighted<T: Copy + PartialEq + std::fmt::Debug>(
    field: &str,
    entries: Vec<Entry<T>>,
) -> Result<Weighted<T>, BonusError> {
    Weighted::new(field, entries.into_iter().map(|e| (e.value, e.weight)).collect())
}

fn symbol(text: &str) -> Result<BsxSymbol, BonusError> {
    BsxSymbol::parse(text).ok_or_else(|| BonusError::Invalid {
        field: "symbols".into(),
        message: format!("{text:?} is not primary, secondary, blank or an amount in cents"),
    })
}

/// Parses and validates bonus configuration text; `origin` names it in errors.
pub fn parse(text: &str, origin: &str) -> Result<Bonus, LoadError> {
    let file: BonusFile = toml::from_str(text).map_err(|e| LoadError::Syntax {
        origin: origin.to_string(),
        message: e.to_string(),
    })?;
    let invalid = |e: BonusError| LoadError::Syntax {
        origin: origin.to_string(),
        message: e.to_string(),
    };
    match file {
        BonusFile::RouletteX {
            name,
            paytable,
            lucky_count,
            later_odds,
        } => {
            let paytable = XPaytable::parse(&paytable).ok_or_else(|| {
                invalid(BonusError::Invalid {
                    field: "paytable".into(),
                    message: format!("{paytable:?} is not A, B or C (Maryland ch.4 F)"),
                })
            })?;
            let count = weighted("lucky_count", lucky_count).map_err(invalid)?;
            let later = weighted("later_odds", later_odds).map_err(invalid)?;
            RouletteX::new(name, paytable, count, later)
                .map(Bonus::RouletteX)
                .map_err(invalid)
        }
        BonusFile::BonusSpinXtreme {
            name,
            wager,
            targets,
            symbols,
            primary_reset,
            secondary_reset,
            primary_rate_per_mille,
            secondary_rate_per_mille,
            community,
            positions,
        } => {
            let symbols: Vec<(BsxSymbol, u32)> = symbols
                .into_iter()
                .map(|e| symbol(&e.value).map(|s| (s, e.weight)))
                .collect::<Result<_, _>>()
                .map_err(invalid)?;
            BonusSpinXtreme::new(
                name,
                Minor::new(wager),
                weighted("targets", targets).map_err(invalid)?,
                Weighted::new("symbols", symbols).map_err(invalid)?,
                Minor::new(primary_reset),
                Minor::new(secondary_reset),
                primary_rate_per_mille,
                secondary_rate_per_mille,
            )
            .and_then(|config| {
                let community = community
                    .into_iter()
                    .map(|c| symbol(&c.symbol).map(|s| (s, Minor::new(c.pays))))
                    .collect::<Result<Vec<_>, _>>()?;
                config.with_community(community, positions)
            })
            .map(Bonus::BonusSpinXtreme)
            .map_err(invalid)
        }
    }
}

/// A shipped bonus configuration by name, or a file by path.
pub fn load(name_or_path: &str) -> Result<Bonus, LoadError> {
    if let Some((_, text)) = BUILTIN_BONUS.iter().find(|(n, _)| *n == name_or_path) {
        return parse(text, name_or_path);
    }
    let path = Path::new(name_or_path);
    if path.is_file() || name_or_path.contains('/') || name_or_path.ends_with(".toml") {
        let text = std::fs::read_to_string(path).map_err(|e| LoadError::Io {
            path: name_or_path.to_string(),
            message: e.to_string(),
        })?;
        return parse(&text, name_or_path);
    }
    let known: Vec<&str> = BUILTIN_BONUS.iter().map(|(n, _)| *n).collect();
    Err(LoadError::UnknownBonus {
        name: name_or_path.to_string(),
        known: known.join(", "),
    })
}
