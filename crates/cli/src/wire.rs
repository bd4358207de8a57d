//! Wire formats: the JSON the command reads and writes. Core types are not
//! serialised directly; these structs are the one place the format lives.

use croupier_core::{Profile, TableRules, Wheel, ZeroChoice};
use serde::{Deserialize, Serialize};

use crate::Invalid;

/// The longest bet id accepted, in bytes.
pub const BET_ID_MAX_BYTES: usize = 128;

/// One input line of `croupier settle`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BetLine {
    pub id: String,
    pub spot: String,
    pub stake: serde_json::Number,
    #[serde(default)]
    pub zero_choice: Option<String>,
    /// A match play coupon matched by the stake (Colorado 2203(1)).
    #[serde(default)]
    pub coupon: Option<serde_json::Number>,
}

/// One output line of `croupier settle`.
#[derive(Serialize)]
pub struct SettledLine<'a> {
    pub id: &'a str,
    pub spot: &'a str,
    pub kind: &'static str,
    pub staked: u64,
    pub returned: u64,
    pub net: i128,
    pub result: &'static str,
    /// The pocket that decided the bet, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pocket: Option<&'static str>,
    /// 1-based index of the spin that decided the bet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spin: Option<usize>,
    /// Still on the layout in prison.
    #[serde(skip_serializing_if = "is_zero")]
    pub held: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub coupon: u64,
    /// Above the maximum: returned whatever the outcome (european-casino 3.12).
    #[serde(skip_serializing_if = "is_zero")]
    pub excess: u64,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub under_minimum: bool,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// A JSON number as whole minor units.
pub fn minor_units(field: &str, n: &serde_json::Number) -> Result<i128, String> {
    if let Some(v) = n.as_i64() {
        return Ok(i128::from(v));
    }
    if let Some(v) = n.as_u64() {
        return Ok(i128::from(v));
    }
    match n.as_f64() {
        Some(f) if f.is_finite() && f.fract() == 0.0 => Err(format!("{field} {n} is absurdly large")),
        _ => Err(format!("{field} {n} is not a whole number of minor units")),
    }
}

pub fn zero_choice(text: &str) -> Result<ZeroChoice, String> {
    ZeroChoice::parse(text).ok_or_else(|| format!("zero_choice {text:?} is not \"half\" or \"prison\""))
}

/// The table a command works on: a profile and one of its wheels.
#[derive(clap::Args)]
pub struct TableArgs {
    /// A profile name (see `croupier profiles`) or a profile file.
    #[arg(long)]
    pub profile: String,
    /// single-zero, double-zero, triple-zero, double-zero-as-single-zero or double-zero-covered (default: the profile's).
    #[arg(long)]
    pub wheel: Option<String>,
}

/// A profile, one of its wheels, and whether even-money bets play In Prison.
#[derive(clap::Args)]
pub struct PlayArgs {
    #[command(flatten)]
    pub table: TableArgs,
    /// Play In Prison on even-money bets (Colorado 2204(2)); the profile must offer it.
    #[arg(long)]
    pub in_prison: bool,
}

/// Writes one value as a line of JSON.
pub fn write_json_line(out: &mut impl std::io::Write, value: &impl Serialize) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"\n")
}

/// The profile named or given as a file, as an input error if it cannot be used.
pub fn load_profile(name_or_path: &str) -> Result<Profile, Invalid> {
    croupier_profiles::load(name_or_path).map_err(|e| Invalid::one(e.to_string()))
}

pub fn wheel_named(name: Option<&str>, profile: &Profile) -> Result<Wheel, Invalid> {
    match name {
        None => Ok(profile.spec().default_wheel),
        Some(name) => {
            Wheel::parse(name).ok_or_else(|| Invalid::one(format!("{name:?} is not a wheel: {}", Wheel::all_names())))
        }
    }
}

pub fn table_rules<'p>(profile: &'p Profile, wheel: Wheel, in_prison: bool) -> Result<TableRules<'p>, Invalid> {
    TableRules::new(profile, wheel, in_prison).map_err(|e| Invalid::one(e.to_string()))
}

/// A suffix that differs between calls in one process and between processes.
pub fn unique_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}
