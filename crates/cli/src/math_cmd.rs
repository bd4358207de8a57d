//! `croupier math`: exact game math for a profile.

use std::io::Write;

use croupier_math::{bet_math, fraction_text, profile_math, to_f64, BetMath};
use serde::Serialize;

use crate::wire;
use crate::{Failure, Format, Invalid};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    play: wire::PlayArgs,
    /// Under In Prison, the player's choice on zero (default: the profile's).
    #[arg(long)]
    zero_choice: Option<String>,
    /// The math of one spot instead of one row per kind, e.g. complete:17.
    #[arg(long)]
    spot: Option<String>,
    /// The exact RTP of a bonus variant under its weights: roulette-x-a, -b, -c,
    /// bonus-spin-xtreme, or a bonus configuration file.
    #[arg(long, conflicts_with = "spot")]
    bonus: Option<String>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Serialize)]
struct Row {
    kind: &'static str,
    spot: String,
    pockets: u32,
    payout: String,
    hit_frequency: f64,
    hit_frequency_exact: String,
    house_edge: String,
    house_edge_percent: f64,
    rtp: String,
    rtp_percent: f64,
    variance: f64,
    variance_exact: String,
    std_dev: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    zero_choice: Option<&'static str>,
}

impl From<&BetMath> for Row {
    fn from(m: &BetMath) -> Row {
        Row {
            kind: m.kind.name(),
            spot: m.spot.clone(),
            pockets: m.pockets,
            payout: m.payout.clone(),
            hit_frequency: to_f64(m.hit_frequency),
            hit_frequency_exact: fraction_text(m.hit_frequency),
            house_edge: fraction_text(m.house_edge),
            house_edge_percent: m.house_edge_percent(),
            rtp: fraction_text(m.rtp()),
            rtp_percent: to_f64(m.rtp()) * 100.0,
            variance: to_f64(m.variance),
            variance_exact: fraction_text(m.variance),
            std_dev: m.std_dev(),
            zero_choice: m.zero_choice.map(|c| c.name()),
        }
    }
}

pub fn run(args: Args) -> Result<(), Failure> {
    let profile = wire::load_profile(&args.play.table.profile)?;
    let wheel = wire::wheel_named(args.play.table.wheel.as_deref(), &profile)?;
    let rules = wire::table_rules(&profile, wheel, args.play.in_prison)?;
    let choice = args
        .zero_choice
        .as_deref()
        .map(wire::zero_choice)
        .transpose()
        .map_err(Invalid::one)?;
    if choice.is_some() && !args.play.in_prison {
        return Err(Invalid::one("--zero-choice needs --in-prison").into());
    }
    if let Some(bonus) = &args.bonus {
        return bonus_math(&profile, wheel, bonus, args.format);
    }
    let rows = match &args.spot {
        Some(spot) => vec![bet_math(&rules, spot, choice).map_err(|e| Invalid::one(format!("spot {spot:?}: {e}")))?],
        None => profile_math(&rules, choice).map_err(|e| Invalid::one(e.to_string()))?,
    };
    let rows: Vec<Row> = rows.iter().map(Row::from).collect();
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut out, &rows).map_err(anyhow::Error::from)?;
            writeln!(out)?;
        }
        Format::Text => {
            writeln!(out, "{} on the {}", profile.spec().title, wheel.description())?;
            if args.play.in_prison {
                writeln!(out, "In Prison on even-money bets (Colorado 2204(2))")?;
            }
            writeln!(out)?;
            writeln!(
                out,
                "{:<11} {:<18} {:>7} {:<10} {:>9} {:>12} {:>8} {:>10} {:>8}",
                "kind", "spot", "pockets", "payout", "hit", "house edge", "edge %", "variance", "std dev"
            )?;
            for r in &rows {
                let payout = if r.payout.len() > 10 {
                    "(parts)".to_string()
                } else {
                    r.payout.clone()
                };
                let spot = if r.spot.len() > 18 {
                    format!("{}…", &r.spot[..17])
                } else {
                    r.spot.clone()
                };
                writeln!(
                    out,
                    "{:<11} {:<18} {:>7} {:<10} {:>8.4}% {:>12} {:>7.4}% {:>10.4} {:>8.4}{}",
                    r.kind,
                    spot,
                    r.pockets,
                    payout,
                    r.hit_frequency * 100.0,
                    r.house_edge,
                    r.house_edge_percent,
                    r.variance,
                    r.std_dev,
                    r.zero_choice.map(|c| format!("  (zero: {c})")).unwrap_or_default()
                )?;
            }
            writeln!(out)?;
            writeln!(out, "Figures per unit staked; house edge is the exact expected loss.")?;
        }
    }
    Ok(())
}

#[derive(Serialize)]
struct BonusRow {
    bonus: String,
    kind: &'static str,
    wheel: &'static str,
    wager: &'static str,
    rtp: String,
    rtp_percent: f64,
    house_edge: String,
    house_edge_percent: f64,
    note: String,
}

fn bonus_math(
    profile: &croupier_core::Profile,
    wheel: croupier_core::Wheel,
    name: &str,
    format: Format,
) -> Result<(), Failure> {
    use croupier_profiles::bonus::Bonus;
    let bonus = croupier_profiles::bonus::load(name).map_err(|e| Invalid::one(e.to_string()))?;
    let (kind, bonus_name, (num, den), wager, note) = match &bonus {
        Bonus::RouletteX(x) => {
            if !x.paytable.allows(wheel) {
                return Err(Invalid::one(format!(
                    "Roulette X paytable {:?} is not used on the {} (Maryland ch.4 F)",
                    x.paytable,
                    wheel.name()
                ))
                .into());
            }
            (
                "roulette-x",
                x.name.clone(),
                x.straight_rtp(wheel),
                "straight",
                format!(
                    "straights pay {} to 1, the first lucky number {} to 1, the others as drawn; other bets pay the profile's paytable",
                    x.paytable.straight_odds(),
                    x.paytable.first_odds()
                ),
            )
        }
        Bonus::BonusSpinXtreme(b) => (
            "bonus-spin-xtreme",
            b.name.clone(),
            b.rtp(wheel),
            "$5 progressive",
            format!(
                "long run, meters at reset plus their rates of progression, and Community Pay with all {} positions wagering",
                b.positions
            ),
        ),
    };
    if !profile.jurisdiction().bonuses.iter().any(|b| b == kind) {
        return Err(Invalid::one(format!("{} does not permit {kind}", profile.jurisdiction().title)).into());
    }
    let rtp = croupier_math::Fraction::new(num as i128, den as i128);
    let edge = croupier_math::Fraction::from_integer(1) - rtp;
    let row = BonusRow {
        bonus: bonus_name,
        kind,
        wheel: wheel.name(),
        wager,
        rtp: fraction_text(rtp),
        rtp_percent: to_f64(rtp) * 100.0,
        house_edge: fraction_text(edge),
        house_edge_percent: to_f64(edge) * 100.0,
        note: if to_f64(rtp) >= 1.0 {
            format!("{note}. WARNING: the return is above 100%: the house loses on this wager as configured")
        } else {
            note
        },
    };
    let mut out = std::io::stdout().lock();
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut out, &[&row]).map_err(anyhow::Error::from)?;
            writeln!(out)?;
        }
        Format::Text => {
            writeln!(
                out,
                "{} ({}) on the {}, {} wager",
                row.bonus, row.kind, row.wheel, row.wager
            )?;
            writeln!(out, "rtp: {} = {:.4}%", row.rtp, row.rtp_percent)?;
            writeln!(out, "house edge: {} = {:.4}%", row.house_edge, row.house_edge_percent)?;
            writeln!(out, "{}", row.note)?;
        }
    }
    Ok(())
}
