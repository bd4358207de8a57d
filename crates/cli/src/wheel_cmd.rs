//! `croupier wheel emulate` and `croupier wheel monitor`.

use std::io::{BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use croupier_core::{Pocket, Wheel};
use croupier_rng::parse_seed;
use croupier_wheel::emulator::{serve, EmulatorConfig, Scripted};
use croupier_wheel::monitor::{follow, GameResult};
use croupier_wheel::slingshot2;
use serde::Serialize;

use crate::{Failure, Format, Invalid};

#[derive(clap::Subcommand)]
pub enum Which {
    /// Run a wheel emulator speaking SlingShot 2 on a TCP port.
    Emulate {
        #[arg(long, default_value = "127.0.0.1:7000")]
        listen: String,
        #[arg(long, default_value = "double-zero")]
        wheel: String,
        /// Milliseconds between frames (the real wheel: 500).
        #[arg(long, default_value_t = 500)]
        frame_ms: u64,
        /// Stop after this many games (default: run until stopped).
        #[arg(long)]
        games: Option<u64>,
        /// Wait for the host's "*u 1" before each next game.
        #[arg(long)]
        manual: bool,
        /// Outcomes to play first: pocket labels, or same_direction, ball_not_sensed, sensor_fault, void_game.
        #[arg(long, value_delimiter = ',')]
        script: Vec<String>,
        /// Faults per thousand games once the script is played.
        #[arg(long, default_value_t = 0)]
        faults_per_mille: u16,
        #[arg(long)]
        seed: Option<String>,
    },
    /// Read an automated wheel's status stream and print each finished game.
    Monitor {
        #[arg(long, default_value = "slingshot2")]
        protocol: String,
        /// The wheel's TCP address.
        #[arg(long, conflicts_with = "device")]
        connect: Option<String>,
        /// A serial device (configured beforehand, e.g. with stty) or any file or pipe.
        #[arg(long)]
        device: Option<String>,
        #[arg(long)]
        games: Option<u64>,
        #[arg(long, value_enum, default_value_t = Format::Json)]
        format: Format,
    },
}

#[derive(Serialize)]
struct GameLine {
    game: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    pocket: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    no_spin: Option<&'static str>,
}

fn scripted(item: &str) -> Result<Scripted, String> {
    let flag = match item.trim() {
        "same_direction" => slingshot2::WARN_SAME_DIRECTION,
        "ball_not_sensed" => slingshot2::WARN_BALL_NOT_SENSED,
        "sensor_fault" => slingshot2::WARN_SENSOR_FAULT,
        "void_game" => slingshot2::WARN_VOID_GAME,
        label => {
            return Pocket::parse(label)
                .map(Scripted::Pocket)
                .ok_or_else(|| format!("script item {label:?} is neither a pocket nor a fault"))
        }
    };
    Ok(Scripted::Warnings(flag))
}

pub fn run(which: Which) -> Result<(), Failure> {
    match which {
        Which::Emulate {
            listen,
            wheel,
            frame_ms,
            games,
            manual,
            script,
            faults_per_mille,
            seed,
        } => {
            let wheel = Wheel::parse(&wheel).ok_or_else(|| Invalid::one(format!("{wheel:?} is not a wheel")))?;
            if wheel == Wheel::TripleZero {
                return Err(Invalid::one(
                    "the SlingShot 2 format has two characters for a number: it cannot report 000",
                )
                .into());
            }
            let script = script
                .iter()
                .map(|s| scripted(s))
                .collect::<Result<Vec<_>, _>>()
                .map_err(Invalid::one)?;
            for s in &script {
                if let Scripted::Pocket(p) = s {
                    if !wheel.pockets().contains(*p) {
                        return Err(Invalid::one(format!("pocket {p} is not on the {}", wheel.name())).into());
                    }
                }
            }
            if faults_per_mille > 1000 {
                return Err(Invalid::one("--faults-per-mille is at most 1000").into());
            }
            let seed = seed.as_deref().map(parse_seed).transpose().map_err(Invalid::one)?;
            let listener =
                TcpListener::bind(&listen).map_err(|e| Invalid::one(format!("cannot listen on {listen}: {e}")))?;
            eprintln!(
                "croupier: SlingShot 2 emulator on {} ({})",
                listener.local_addr()?,
                wheel.description()
            );
            serve(
                listener,
                EmulatorConfig {
                    wheel,
                    frame_ms,
                    games,
                    manual_start: manual,
                    script,
                    seed,
                    fault_per_mille: faults_per_mille,
                },
                |game| eprintln!("croupier: played {game:?}"),
            )?;
            Ok(())
        }
        Which::Monitor {
            protocol,
            connect,
            device,
            games,
            format,
        } => {
            if protocol != "slingshot2" {
                return Err(Invalid::one(format!("protocol {protocol:?} is not supported; use slingshot2")).into());
            }
            let input: Box<dyn std::io::Read> = match (connect, device) {
                (Some(address), None) => {
                    let stream = TcpStream::connect(&address)
                        .map_err(|e| Invalid::one(format!("cannot connect to {address}: {e}")))?;
                    // The wheel sends a frame every half second; silence means it is gone.
                    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
                    Box::new(stream)
                }
                (None, Some(path)) => {
                    Box::new(std::fs::File::open(&path).map_err(|e| Invalid::one(format!("cannot open {path}: {e}")))?)
                }
                _ => return Err(Invalid::one("give --connect HOST:PORT or --device PATH").into()),
            };
            let mut out = std::io::stdout().lock();
            let debouncer = follow(BufReader::new(input), games, |game| {
                let line = match game.result {
                    GameResult::Pocket { game, pocket } => GameLine {
                        game,
                        pocket: Some(pocket.label()),
                        no_spin: None,
                    },
                    GameResult::NoSpin { game, reason } => GameLine {
                        game,
                        pocket: None,
                        no_spin: Some(reason.name()),
                    },
                };
                match format {
                    Format::Json => {
                        serde_json::to_writer(&mut out, &line)?;
                        writeln!(out)?;
                    }
                    Format::Text => match (line.pocket, line.no_spin) {
                        (Some(p), _) => writeln!(out, "game {:03}: {p}", line.game)?,
                        (_, reason) => writeln!(out, "game {:03}: no spin ({})", line.game, reason.unwrap_or("?"))?,
                    },
                }
                out.flush()
            })?;
            if debouncer.rejected_lines > 0 || debouncer.disagreements > 0 {
                eprintln!(
                    "croupier: {} unreadable lines, {} bare numbers that disagreed with the result frame",
                    debouncer.rejected_lines, debouncer.disagreements
                );
            }
            Ok(())
        }
    }
}
