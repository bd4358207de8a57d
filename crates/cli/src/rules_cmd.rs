//! `croupier profiles` and `croupier rules`: what a profile is and the house
//! rules a casino posts for it (Colorado 2208).

use std::io::Write;

use croupier_core::Wheel;
use serde::Serialize;

use crate::wire;
use crate::{Failure, Format};

#[derive(clap::Args)]
pub struct Args {
    /// A profile, and with --wheel only that wheel's rules (default: every wheel the profile offers).
    #[command(flatten)]
    table: wire::TableArgs,
}

#[derive(Serialize)]
struct ProfileLine {
    name: &'static str,
    title: String,
    jurisdiction: String,
    wheels: Vec<&'static str>,
    default_wheel: &'static str,
}

pub fn profiles(format: Format) -> Result<(), Failure> {
    let mut lines = Vec::new();
    for name in croupier_profiles::builtin_names() {
        let p = wire::load_profile(name)?;
        lines.push(ProfileLine {
            name,
            title: p.spec().title.clone(),
            jurisdiction: p.jurisdiction().title.clone(),
            wheels: p.spec().wheels.iter().map(|w| w.name()).collect(),
            default_wheel: p.spec().default_wheel.name(),
        });
    }
    let mut out = std::io::stdout().lock();
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut out, &lines).map_err(anyhow::Error::from)?;
            writeln!(out)?;
        }
        Format::Text => {
            for l in &lines {
                writeln!(out, "{:<16} {}  [{}]", l.name, l.title, l.wheels.join(", "))?;
            }
        }
    }
    Ok(())
}

pub fn run(args: Args) -> Result<(), Failure> {
    let profile = wire::load_profile(&args.table.profile)?;
    let wheels: Vec<Wheel> = match &args.table.wheel {
        Some(_) => {
            let wheel = wire::wheel_named(args.table.wheel.as_deref(), &profile)?;
            wire::table_rules(&profile, wheel, false)?;
            vec![wheel]
        }
        None => profile.spec().wheels.clone(),
    };
    let mut out = std::io::stdout().lock();
    croupier_profiles::posted::write_house_rules(&mut out, &profile, &wheels)?;
    Ok(())
}
