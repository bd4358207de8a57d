//! `croupier tournament`: check a tournament's configuration against its
//! profile, and print the written rules it gives its players and the
//! Division (Colorado 2213.06-.08).

use std::io::Write;
use std::path::PathBuf;

use croupier_core::tournament::TournamentConfig;
use croupier_core::{Minor, Profile};
use croupier_profiles::tournament::{describe_prize, parse_tournament, written_rules, TOURNAMENT_FILE_SIZE_MAX_BYTES};
use serde::Serialize;

use crate::tournament_forms::FormsFormat;
use crate::{Failure, Format, Invalid};

#[derive(clap::Subcommand)]
pub enum Which {
    /// Check a tournament file against its profile's rules; every refusal names its clause.
    Check {
        #[arg(long)]
        config: PathBuf,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Print the written rules of a tournament (2213.06-.08), for the players and the Division.
    Rules {
        #[arg(long)]
        config: PathBuf,
    },
    /// Run a tournament's commands (JSON lines) through the rules, as a test
    /// lab does, and print its forms: entries (2213.01), prize payouts
    /// (2213.02), proceeds by month and the prize pool's account (2213.05).
    Forms {
        #[arg(long)]
        config: PathBuf,
        /// One command per line: {"command":"register","day":"2026-12-10","player":"ann",...}.
        #[arg(long)]
        script: PathBuf,
        #[arg(long, value_enum, default_value_t = FormsFormat::Text)]
        format: FormsFormat,
    },
}

fn load(path: &PathBuf) -> Result<(Profile, TournamentConfig), Failure> {
    let shown = path.display().to_string();
    let size = std::fs::metadata(path)
        .map_err(|e| Invalid::one(format!("{shown}: {e}")))?
        .len();
    if size > TOURNAMENT_FILE_SIZE_MAX_BYTES as u64 {
        return Err(Invalid::one(format!(
            "{shown}: {size} bytes is larger than the {TOURNAMENT_FILE_SIZE_MAX_BYTES} a tournament file may be"
        ))
        .into());
    }
    let text = std::fs::read_to_string(path).map_err(|e| Invalid::one(format!("{shown}: {e}")))?;
    parse_tournament(&text, &shown, croupier_profiles::load).map_err(|e| Invalid::one(e.to_string()).into())
}

#[derive(Serialize)]
struct Checked {
    id: String,
    name: String,
    profile: String,
    first_day: String,
    last_day: String,
    events: Vec<EventLine>,
    /// Every fee and buy-in one entry may pay (2213.05).
    most_one_entry_pays_minor: u64,
    cap_minor: Option<u64>,
    escrow_required: bool,
    escrowed_minor: u64,
}

#[derive(Serialize)]
struct EventLine {
    name: String,
    day: String,
    entry_fee_minor: u64,
    buy_in_minor: u64,
    starting_points: u64,
    rebuys_max: u32,
    prizes: Vec<String>,
}

pub fn run(which: Which) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    match which {
        Which::Forms { config, script, format } => {
            let (profile, config) = load(&config)?;
            crate::tournament_forms::run(&profile, config, &script, format, &mut out)?;
        }
        Which::Rules { config } => {
            let (profile, config) = load(&config)?;
            write!(out, "{}", written_rules(&config, &profile))?;
        }
        Which::Check { config, format } => {
            let (profile, config) = load(&config)?;
            let spec = config.spec();
            let currency = &profile.spec().currency;
            let checked = Checked {
                id: spec.id.clone(),
                name: spec.name.clone(),
                profile: profile.spec().name.clone(),
                first_day: spec.first_day.to_string(),
                last_day: spec.last_day.to_string(),
                events: spec
                    .events
                    .iter()
                    .map(|e| EventLine {
                        name: e.name.clone(),
                        day: e.day.to_string(),
                        entry_fee_minor: e.entry_fee.get(),
                        buy_in_minor: e.buy_in.get(),
                        starting_points: e.starting_points,
                        rebuys_max: e.rebuys.max,
                        prizes: e.prizes.iter().map(|p| describe_prize(&config, p, currency)).collect(),
                    })
                    .collect(),
                most_one_entry_pays_minor: config.most_one_entry_pays(),
                cap_minor: config.rules().fee_and_buy_ins_max.map(Minor::get),
                escrow_required: config.escrow_required(),
                escrowed_minor: spec.escrowed.get(),
            };
            match format {
                Format::Json => {
                    serde_json::to_writer_pretty(&mut out, &checked).map_err(anyhow::Error::from)?;
                    writeln!(out)?;
                }
                Format::Text => {
                    writeln!(
                        out,
                        "{} ({}) under {}: {} to {}, {} event(s). It passes every check.",
                        checked.name,
                        checked.id,
                        checked.profile,
                        checked.first_day,
                        checked.last_day,
                        checked.events.len()
                    )?;
                    for e in &checked.events {
                        writeln!(
                            out,
                            "  {} on {}: fee {}, buy-in {}, {} points, {} re-buy(s); {} prize(s)",
                            e.name,
                            e.day,
                            Minor::new(e.entry_fee_minor),
                            Minor::new(e.buy_in_minor),
                            e.starting_points,
                            e.rebuys_max,
                            e.prizes.len()
                        )?;
                    }
                    let cap = checked.cap_minor.map_or("no cap in this profile".to_string(), |c| {
                        format!("at most {} (2213.05)", Minor::new(c))
                    });
                    writeln!(
                        out,
                        "  One entry may pay {} in fees and buy-ins: {cap}.",
                        Minor::new(checked.most_one_entry_pays_minor)
                    )?;
                    if checked.escrow_required {
                        writeln!(
                            out,
                            "  Prizes escrowed before the start: {} (2213(1)).",
                            Minor::new(checked.escrowed_minor)
                        )?;
                    }
                }
            }
        }
    }
    Ok(())
}
