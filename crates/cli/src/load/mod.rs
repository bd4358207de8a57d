//! `croupier bench load`: a table server driven over real sockets.
//!
//! Starts `croupier serve` as its own process on a fresh data directory on
//! the loopback interface,
//! seats terminals at tables, and for the given duration has every terminal
//! place bets over HTTP (each acknowledged only once durable) while a dealer
//! per table runs rounds on the RNG; every terminal listens to its table's
//! WebSocket stream. Then it runs a bare WebSocket echo on the same machine
//! and a bare write-and-flush loop on the same disk, for the limits to
//! compare with, beside the server's own journal writes during the run.
//!
//! `setup.rs` starts the server and seats the players; `drive.rs` runs the
//! dealers (`rounds.rs`) and the terminals (`terminals.rs`) and gathers what
//! they counted (`acks.rs`) with the machine's figures (`machine.rs`,
//! `disk.rs`, `echo.rs`); `report.rs` writes it against `targets.rs`.

use serde::Serialize;

use crate::{wire, Failure, Format, Invalid};

mod acks;
mod disk;
mod drive;
mod echo;
mod http;
mod machine;
mod report;
mod rounds;
mod setup;
mod targets;
mod terminals;
#[cfg(test)]
mod tests;

/// The bench admin's password, once the one-time one is changed.
const ADMIN_PASSWORD: &str = "bench-admin-password-1";
/// The password the bench's dealer and pit supervisor sign in with.
const STAFF_PASSWORD: &str = "bench-password-1";

/// Bounds on the load a run may ask for.
pub const TERMINALS_MAX: usize = 5_000;
pub const TABLES_MAX: usize = 64;
/// An hour: a history of 50 million bets takes about half of it. The run
/// keeps each acknowledgement's time (16 bytes a bet: 1.5 GiB at an hour).
pub const DURATION_MAX_SECONDS: f64 = 3_600.0;
/// The most bets per second a run may offer.
pub const RATE_MAX: f64 = 1_000_000.0;

#[derive(clap::Args)]
pub struct LoadArgs {
    #[arg(long, default_value_t = 4)]
    tables: usize,
    #[arg(long, default_value_t = 200)]
    terminals: usize,
    /// Seconds of betting to measure (at most an hour).
    #[arg(long, default_value_t = 10.0)]
    duration: f64,
    /// How long betting stays open each round, in milliseconds.
    #[arg(long, default_value_t = 1_500)]
    window_ms: u64,
    /// Every table's dealer opens, closes and spins at the same moments, so all
    /// the tables settle at once: the worst case. Without it the tables run as
    /// on a casino floor: each table's first round stays open a share of a
    /// betting window longer than the previous table's, and their rounds end
    /// spread over one window from then on.
    #[arg(long)]
    aligned: bool,
    /// Bets per second offered by all terminals together, each terminal on a fixed
    /// schedule (open loop: latency counts from when a bet was due, so a slow server
    /// cannot hide its queue). Without it every terminal bets again as soon as it has
    /// its answer (closed loop), which measures the most the server takes.
    #[arg(long)]
    rate: Option<f64>,
    /// How terminals send their bets: over the WebSocket each already holds for
    /// its table's events, or as HTTP requests.
    #[arg(long, value_enum, default_value_t = Via::Websocket)]
    via: Via,
    /// Keeps the server's data directory here (a new one) instead of removing
    /// it, its secret beside it in DIR-keys: a history written through the
    /// real server, to measure `serve`'s start and `croupier verify` on.
    #[arg(long, value_name = "DIR")]
    keep_data: Option<std::path::PathBuf>,
    /// Writes the casino's journal to this PostgreSQL database (an empty one)
    /// instead of SQLite in the data directory (`serve --database`).
    #[arg(long, env = "CROUPIER_DATABASE", hide_env_values = true)]
    database: Option<String>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Via {
    Websocket,
    Http,
}

pub fn run(args: LoadArgs) -> Result<(), Failure> {
    check(&args)?;
    let runtime = tokio::runtime::Runtime::new()?;
    let report = runtime.block_on(drive::drive(&args))?;
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Json => wire::write_json_line(&mut out, &report)?,
        Format::Text => report::write_text(&mut out, &report)?,
    }
    Ok(())
}

/// Refuses a load past the bounds above before anything starts.
fn check(args: &LoadArgs) -> Result<(), Failure> {
    if args.terminals == 0 || args.terminals > TERMINALS_MAX {
        return Err(Invalid::one(format!("--terminals must be 1 to {TERMINALS_MAX}")).into());
    }
    if args.tables == 0 || args.tables > TABLES_MAX || args.tables > args.terminals {
        return Err(Invalid::one(format!(
            "--tables must be 1 to {TABLES_MAX}, and no more than the terminals"
        ))
        .into());
    }
    if let Some(rate) = args.rate {
        if !(rate > 0.0 && rate <= RATE_MAX) {
            return Err(Invalid::one(format!("--rate must be more than 0 and at most {RATE_MAX}")).into());
        }
    }
    if !(args.duration > 0.0 && args.duration <= DURATION_MAX_SECONDS) {
        return Err(Invalid::one(format!(
            "--duration must be more than 0 and at most {DURATION_MAX_SECONDS}"
        ))
        .into());
    }
    Ok(())
}

fn io(e: impl std::fmt::Display) -> Failure {
    anyhow::anyhow!("{e}").into()
}

/// The limits a bench table posts before it opens (Maryland ch.1 G(3)):
/// 1.00 to 1,000.00 on every kind of bet, so that the bench's 1.00 bets
/// play anywhere.
pub(crate) fn bench_limits(
    profile_text: &str,
) -> Result<Vec<croupier_server::casino::journal::event::StoredLimit>, Failure> {
    croupier_server::casino::journal::event::StoredLimit::on_every_kind(
        profile_text,
        "double-zero",
        (100, 100_000),
        (100, 100_000),
    )
    .map_err(|e| Failure::Other(anyhow::anyhow!("the bench table's limits: {e}")))
}
