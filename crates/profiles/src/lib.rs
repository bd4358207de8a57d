//! Profile files: the TOML format, the profiles shipped in the binary, and
//! loading with validation.
//!
//! This crate is the edge between profile files and the core: it reads TOML
//! into plain structs, turns every string into a typed value with an error
//! naming its field, and hands the result to [`Profile::new`], which checks it
//! against the jurisdiction.

pub mod bonus;
pub mod posted;
pub mod tournament;

use std::collections::BTreeMap;
use std::path::Path;

use croupier_core::profile::{ChipsPastDay, PastDayValue};
use croupier_core::round::NoSpinReason;
use croupier_core::tournament::TournamentRules;
use croupier_core::{
    EvenMoneyOnZero, HalfRounding, Jurisdiction, Kind, Limits, Minor, NoSpinBets, OverMaximum, Paytable, Pocket,
    PocketSet, Profile, ProfileError, ProfileSpec, StakeRange, UnderMinimum, Wheel, ZeroChoice, ZeroRules,
};
use serde::Deserialize;

/// The profiles shipped with croupier, by name.
pub const BUILTIN: [(&str, &str); 5] = [
    ("colorado-2013", include_str!("../../../profiles/colorado-2013.toml")),
    ("colorado-2014", include_str!("../../../profiles/colorado-2014.toml")),
    ("maryland", include_str!("../../../profiles/maryland.toml")),
    (
        "european-casino",
        include_str!("../../../profiles/european-casino.toml"),
    ),
    (
        "low-limit-house",
        include_str!("../../../profiles/low-limit-house.toml"),
    ),
];

const JURISDICTIONS: &str = include_str!("../../../profiles/jurisdictions.toml");

/// The largest profile file read, in bytes.
pub const PROFILE_FILE_SIZE_MAX_BYTES: u64 = 1 << 20;

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("no profile named {name:?}; the profiles are {known} (or give a path to a profile file)")]
    Unknown { name: String, known: String },
    #[error("no bonus configuration named {name:?}; they are {known} (or give a path to a file)")]
    UnknownBonus { name: String, known: String },
    #[error("cannot read profile file {path}: {message}")]
    Io { path: String, message: String },
    #[error("profile {origin}: {message}")]
    Syntax { origin: String, message: String },
    #[error("profile {origin}: {error}")]
    Invalid { origin: String, error: ProfileError },
    #[error("jurisdiction table: {0}")]
    Jurisdictions(String),
    #[error("tournament file {origin}: {message}")]
    TournamentSyntax { origin: String, message: String },
    #[error("tournament file {origin}: {field}: {message}")]
    Tournament {
        origin: String,
        field: String,
        message: String,
    },
}

/// The text of a shipped profile, as written in its file.
pub fn builtin_text(name: &str) -> Option<&'static str> {
    BUILTIN.iter().find(|(n, _)| *n == name).map(|(_, text)| *text)
}

pub fn builtin_names() -> Vec<&'static str> {
    BUILTIN.iter().map(|(name, _)| *name).collect()
}

/// Loads a shipped profile by name, or a profile file by path. An argument
/// that names an existing file, or looks like a path, is read as a file.
pub fn load(name_or_path: &str) -> Result<Profile, LoadError> {
    if let Some(text) = builtin_text(name_or_path) {
        return parse(text, name_or_path);
    }
    let path = Path::new(name_or_path);
    let looks_like_path = name_or_path.contains('/') || name_or_path.ends_with(".toml");
    if path.is_file() || looks_like_path {
        return load_file(path);
    }
    Err(LoadError::Unknown {
        name: name_or_path.to_string(),
        known: builtin_names().join(", "),
    })
}

pub fn load_file(path: &Path) -> Result<Profile, LoadError> {
    let shown = path.display().to_string();
    let io = |e: std::io::Error| LoadError::Io {
        path: shown.clone(),
        message: e.to_string(),
    };
    let size = std::fs::metadata(path).map_err(io)?.len();
    if size > PROFILE_FILE_SIZE_MAX_BYTES {
        return Err(LoadError::Io {
            path: shown,
            message: format!("{size} bytes is larger than the {PROFILE_FILE_SIZE_MAX_BYTES} a profile may be"),
        });
    }
    let text = std::fs::read_to_string(path).map_err(io)?;
    parse(&text, &shown)
}

/// Parses and validates profile text; `origin` names it in errors.
pub fn parse(text: &str, origin: &str) -> Result<Profile, LoadError> {
    let file: ProfileFile = toml::from_str(text).map_err(|e| LoadError::Syntax {
        origin: origin.to_string(),
        message: e.to_string(),
    })?;
    let invalid = |error: ProfileError| LoadError::Invalid {
        origin: origin.to_string(),
        error,
    };
    let jurisdictions = jurisdictions()?;
    let jurisdiction = jurisdictions
        .into_iter()
        .find(|j| j.name == file.jurisdiction)
        .ok_or_else(|| {
            let known: Vec<String> = jurisdictions_names();
            invalid(ProfileError {
                field: "jurisdiction".into(),
                message: format!(
                    "{:?} is not a known jurisdiction ({})",
                    file.jurisdiction,
                    known.join(", ")
                ),
            })
        })?;
    let spec = file.into_spec().map_err(invalid)?;
    Profile::new(spec, jurisdiction).map_err(invalid)
}

fn jurisdictions_names() -> Vec<String> {
    jurisdictions()
        .map(|js| js.into_iter().map(|j| j.name).collect())
        .unwrap_or_default()
}

/// The jurisdictions shipped with croupier.
pub fn jurisdictions() -> Result<Vec<Jurisdiction>, LoadError> {
    let table: BTreeMap<String, JurisdictionFile> =
        toml::from_str(JURISDICTIONS).map_err(|e| LoadError::Jurisdictions(e.to_string()))?;
    table
        .into_iter()
        .map(|(name, j)| {
            j.into_jurisdiction(name)
                .map_err(|e| LoadError::Jurisdictions(e.to_string()))
        })
        .collect()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JurisdictionFile {
    title: String,
    wheels: Vec<String>,
    permitted: Vec<String>,
    permitted_trios: Vec<String>,
    minimum_payouts: BTreeMap<String, u32>,
    min_ball_revolutions: u8,
    in_prison_permitted: bool,
    half_back_permitted: bool,
    #[serde(default)]
    payouts_fixed: bool,
    #[serde(default)]
    adjustment_witness: bool,
    match_play_kinds: Vec<String>,
    #[serde(default)]
    bonuses: Vec<String>,
    #[serde(default)]
    ball_inspection_after: Vec<String>,
    #[serde(default)]
    ball_inspected_by: Option<String>,
    #[serde(default)]
    external_replacement_inspected_by_regulator: bool,
    #[serde(default)]
    double_zero_layout_covered: bool,
    #[serde(default)]
    operator_on_layout: bool,
    #[serde(default)]
    limits_on_layout: bool,
    #[serde(default)]
    licence_on_record: bool,
    #[serde(default)]
    hanging_ball_called_by_floor: bool,
}

impl JurisdictionFile {
    fn into_jurisdiction(self, name: String) -> Result<Jurisdiction, ProfileError> {
        let mut minimum_payouts = Paytable::default();
        for (kind, odds) in &self.minimum_payouts {
            minimum_payouts.set(kind_named(&format!("{name}.minimum_payouts"), kind)?, *odds);
        }
        let mut ball_inspection_after = Vec::with_capacity(self.ball_inspection_after.len());
        for reason in &self.ball_inspection_after {
            ball_inspection_after.push(NoSpinReason::parse(reason).ok_or_else(|| {
                bad(
                    &format!("{name}.ball_inspection_after"),
                    format!("{reason:?} is not a no-spin reason"),
                )
            })?);
        }
        let ball_inspected_by = match self.ball_inspected_by.as_deref() {
            None if ball_inspection_after.is_empty() => String::new(),
            Some(by @ ("pit supervisor" | "dealer")) => by.to_string(),
            other => {
                return Err(bad(
                    &format!("{name}.ball_inspected_by"),
                    format!("{other:?} is not \"pit supervisor\" or \"dealer\" (required with ball_inspection_after)"),
                ))
            }
        };
        Ok(Jurisdiction {
            ball_inspection_after,
            ball_inspected_by,
            external_replacement_inspected_by_regulator: self.external_replacement_inspected_by_regulator,
            double_zero_layout_covered: self.double_zero_layout_covered,
            operator_on_layout: self.operator_on_layout,
            limits_on_layout: self.limits_on_layout,
            licence_on_record: self.licence_on_record,
            hanging_ball_called_by_floor: self.hanging_ball_called_by_floor,
            wheels: wheels_named(&format!("{name}.wheels"), &self.wheels)?,
            permitted: kinds_named(&format!("{name}.permitted"), &self.permitted)?,
            permitted_trios: trios_named(&format!("{name}.permitted_trios"), &self.permitted_trios)?,
            minimum_payouts,
            min_ball_revolutions: self.min_ball_revolutions,
            in_prison_permitted: self.in_prison_permitted,
            half_back_permitted: self.half_back_permitted,
            payouts_fixed: self.payouts_fixed,
            adjustment_witness: self.adjustment_witness,
            match_play_kinds: kinds_named(&format!("{name}.match_play_kinds"), &self.match_play_kinds)?,
            bonuses: self.bonuses,
            title: self.title,
            name,
        })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProfileFile {
    name: String,
    title: String,
    source: String,
    jurisdiction: String,
    currency: String,
    wheels: Vec<String>,
    default_wheel: String,
    spots: Vec<String>,
    #[serde(default)]
    trios: Vec<String>,
    min_ball_revolutions: u8,
    verbal_bets: bool,
    no_spin_bets: String,
    #[serde(default)]
    no_spin_returned_for: Vec<String>,
    dispute_authority: String,
    #[serde(default)]
    number_display_length: Option<u8>,
    #[serde(default)]
    match_play: Vec<String>,
    #[serde(default)]
    house_rules: Vec<String>,
    #[serde(default)]
    tips_notice: Option<String>,
    paytable: BTreeMap<String, u32>,
    zero_rules: ZeroRulesFile,
    limits: LimitsFile,
    chips: ChipsFile,
    #[serde(default)]
    tournaments: Option<TournamentsFile>,
}

/// What a rule document says of tournaments (Colorado 2213).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TournamentsFile {
    conclude_within_months: u32,
    #[serde(default)]
    escrow_after_days: Option<u32>,
    #[serde(default)]
    fee_and_buy_ins_max: Option<u64>,
    #[serde(default)]
    rules_filed_days_before: Option<u32>,
    split_permitted: bool,
    vouchers_permitted: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ZeroRulesFile {
    even_money_on_zero: String,
    in_prison: bool,
    in_prison_default: String,
    half_rounding: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LimitsFile {
    over_maximum: String,
    under_minimum: String,
    #[serde(default)]
    per_kind: BTreeMap<String, RangeFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RangeFile {
    min: u64,
    max: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChipsFile {
    colours: Vec<String>,
    #[serde(default)]
    past_gaming_day: Option<PastDayFile>,
    #[serde(default)]
    past_gaming_day_confirmed_by: Vec<String>,
    /// When chips taken away from the table are revalued on their return:
    /// `"after_gaming_day"` (european-casino 5.4, the default) or
    /// `"always"` (the low-limit house: "removed from the table").
    #[serde(default)]
    taken_away_revalued: Option<String>,
}

/// `"table_minimum"`, or minor units each.
#[derive(Deserialize)]
#[serde(untagged)]
enum PastDayFile {
    Named(String),
    Each(u64),
}

impl ChipsFile {
    fn past_day(&self) -> Result<Option<ChipsPastDay>, ProfileError> {
        let value = match &self.past_gaming_day {
            None if self.past_gaming_day_confirmed_by.is_empty() && self.taken_away_revalued.is_none() => {
                return Ok(None)
            }
            None => {
                return Err(bad(
                    "chips.past_gaming_day",
                    "is not set, but chips.past_gaming_day_confirmed_by or chips.taken_away_revalued is: say what \
                     chips taken away from the table are cashed in at"
                        .to_string(),
                ))
            }
            Some(PastDayFile::Named(name)) if name == "table_minimum" => PastDayValue::TableMinimum,
            Some(PastDayFile::Each(each)) if *each > 0 => PastDayValue::Each(*each),
            Some(PastDayFile::Named(other)) => {
                return Err(bad(
                    "chips.past_gaming_day",
                    format!("{other:?} is not \"table_minimum\" or an amount in minor units"),
                ))
            }
            Some(PastDayFile::Each(_)) => {
                return Err(bad("chips.past_gaming_day", "an amount each is 1 or more".to_string()))
            }
        };
        if self.past_gaming_day_confirmed_by.is_empty() {
            return Err(bad(
                "chips.past_gaming_day_confirmed_by",
                "name who may confirm chips' face value past the gaming day (european-casino 5.5)".to_string(),
            ));
        }
        let always = match self.taken_away_revalued.as_deref() {
            None | Some("after_gaming_day") => false,
            Some("always") => true,
            Some(other) => {
                return Err(bad(
                    "chips.taken_away_revalued",
                    format!("{other:?} is not \"after_gaming_day\" or \"always\""),
                ))
            }
        };
        Ok(Some(ChipsPastDay {
            value,
            confirmed_by: self.past_gaming_day_confirmed_by.clone(),
            always,
        }))
    }
}

fn bad(field: &str, message: String) -> ProfileError {
    ProfileError {
        field: field.to_string(),
        message,
    }
}

fn kind_named(field: &str, name: &str) -> Result<Kind, ProfileError> {
    Kind::parse(name).ok_or_else(|| bad(&format!("{field}.{name}"), format!("{name:?} is not a kind of bet")))
}

fn kinds_named(field: &str, names: &[String]) -> Result<Vec<Kind>, ProfileError> {
    names
        .iter()
        .map(|n| Kind::parse(n).ok_or_else(|| bad(field, format!("{n:?} is not a kind of bet"))))
        .collect()
}

fn wheel_named(field: &str, name: &str) -> Result<Wheel, ProfileError> {
    Wheel::parse(name).ok_or_else(|| bad(field, format!("{name:?} is not a wheel ({})", Wheel::all_names())))
}

fn wheels_named(field: &str, names: &[String]) -> Result<Vec<Wheel>, ProfileError> {
    names.iter().map(|n| wheel_named(field, n)).collect()
}

fn trios_named(field: &str, groups: &[String]) -> Result<Vec<PocketSet>, ProfileError> {
    groups
        .iter()
        .map(|group| {
            let pockets: Option<Vec<Pocket>> = group.split('-').map(Pocket::parse).collect();
            match pockets {
                Some(p) if p.len() == 3 && PocketSet::of(&p).len() == 3 => Ok(PocketSet::of(&p)),
                _ => Err(bad(
                    field,
                    format!("{group:?} is not a group of three pockets like \"0-1-2\""),
                )),
            }
        })
        .collect()
}

fn choice<T>(field: &str, text: &str, options: &[(&str, T)]) -> Result<T, ProfileError>
where
    T: Copy,
{
    options
        .iter()
        .find(|(name, _)| *name == text)
        .map(|&(_, v)| v)
        .ok_or_else(|| {
            let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
            bad(field, format!("{text:?} is not one of {}", names.join(", ")))
        })
}

impl ProfileFile {
    fn into_spec(self) -> Result<ProfileSpec, ProfileError> {
        let mut paytable = Paytable::default();
        for (kind, odds) in &self.paytable {
            paytable.set(kind_named("paytable", kind)?, *odds);
        }
        let mut per_kind = Vec::new();
        for (kind, range) in &self.limits.per_kind {
            per_kind.push((
                kind_named("limits.per_kind", kind)?,
                StakeRange {
                    min: Minor::new(range.min),
                    max: Minor::new(range.max),
                },
            ));
        }
        let zero = ZeroRules {
            even_money_on_zero: choice(
                "zero_rules.even_money_on_zero",
                &self.zero_rules.even_money_on_zero,
                &[
                    ("lose", EvenMoneyOnZero::Lose),
                    ("half_back", EvenMoneyOnZero::HalfBack),
                ],
            )?,
            in_prison_offered: self.zero_rules.in_prison,
            in_prison_default: ZeroChoice::parse(&self.zero_rules.in_prison_default).ok_or_else(|| {
                bad(
                    "zero_rules.in_prison_default",
                    format!("{:?} is not one of half, prison", self.zero_rules.in_prison_default),
                )
            })?,
            half_rounding: HalfRounding::parse(&self.zero_rules.half_rounding).ok_or_else(|| {
                bad(
                    "zero_rules.half_rounding",
                    format!("{:?} is not one of down, up", self.zero_rules.half_rounding),
                )
            })?,
        };
        Ok(ProfileSpec {
            wheels: wheels_named("wheels", &self.wheels)?,
            default_wheel: wheel_named("default_wheel", &self.default_wheel)?,
            offered: kinds_named("spots", &self.spots)?,
            trios: trios_named("trios", &self.trios)?,
            paytable,
            zero,
            min_ball_revolutions: self.min_ball_revolutions,
            limits: Limits {
                per_kind,
                over_maximum: choice(
                    "limits.over_maximum",
                    &self.limits.over_maximum,
                    &[
                        ("refuse", OverMaximum::Refuse),
                        ("play_maximum_return_excess", OverMaximum::PlayMaximumReturnExcess),
                    ],
                )?,
                under_minimum: choice(
                    "limits.under_minimum",
                    &self.limits.under_minimum,
                    &[
                        ("refuse", UnderMinimum::Refuse),
                        ("settle_once", UnderMinimum::SettleOnce),
                    ],
                )?,
            },
            match_play: kinds_named("match_play", &self.match_play)?,
            chips_past_day: self.chips.past_day()?,
            chip_colours: self.chips.colours,
            number_display_length: self.number_display_length,
            verbal_bets: self.verbal_bets,
            no_spin_bets: choice(
                "no_spin_bets",
                &self.no_spin_bets,
                &[("stay", NoSpinBets::Stay), ("returned", NoSpinBets::Returned)],
            )?,
            no_spin_returned_for: self
                .no_spin_returned_for
                .iter()
                .map(|r| {
                    NoSpinReason::parse(r)
                        .ok_or_else(|| bad("no_spin_returned_for", format!("{r:?} is not a no-spin reason")))
                })
                .collect::<Result<_, _>>()?,
            dispute_authority: self.dispute_authority,
            house_rules: self.house_rules,
            tips_notice: self.tips_notice,
            tournaments: self.tournaments.map(|t| TournamentRules {
                conclude_within_months: t.conclude_within_months,
                escrow_after_days: t.escrow_after_days,
                fee_and_buy_ins_max: t.fee_and_buy_ins_max.map(Minor::new),
                rules_filed_days_before: t.rules_filed_days_before,
                split_permitted: t.split_permitted,
                vouchers_permitted: t.vouchers_permitted,
            }),
            name: self.name,
            title: self.title,
            source: self.source,
            currency: self.currency,
        })
    }
}
