//! `croupier sim`: Monte Carlo on every core.

use std::io::Write;
use std::time::Instant;

use croupier_rng::seed_from_text;
use croupier_sim::{flat, plot, sessions, Payoff, SessionSpec, STRATEGIES};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;

use crate::wire;
use crate::{Failure, Format, Invalid};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    play: wire::PlayArgs,
    /// Flat bet on this spot every spin (the default for strategies: red).
    #[arg(long)]
    spot: Option<String>,
    /// flat, martingale, dalembert, fibonacci, paroli or labouchere: sessions with a bankroll.
    #[arg(long)]
    strategy: Option<String>,
    /// Spins in all (flat), or per session (strategy).
    #[arg(long)]
    spins: u64,
    #[arg(long, default_value_t = 1000)]
    sessions: u64,
    /// Each session's starting bankroll, in minor units.
    #[arg(long, default_value_t = 100_000)]
    bankroll: u64,
    /// The base stake, in minor units.
    #[arg(long, default_value_t = 100)]
    stake: u64,
    /// Table maximum per bet, in minor units (default: the profile's limit, else 100 base stakes).
    #[arg(long)]
    table_max: Option<u64>,
    /// 64 hex digits, or any text (hashed into a seed).
    #[arg(long)]
    seed: String,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Write an SVG of bankroll paths and final bankrolls.
    #[arg(long)]
    plot: Option<std::path::PathBuf>,
}

#[derive(Serialize)]
struct FlatReport {
    mode: &'static str,
    spot: String,
    spins: u64,
    seconds: f64,
    spins_per_second: f64,
    staked: u128,
    returned: u128,
    rtp: f64,
    rtp_ci95: [f64; 2],
    expected_rtp: f64,
    threads: usize,
}

#[derive(Serialize)]
struct SessionsReport {
    mode: &'static str,
    strategy: String,
    spot: String,
    sessions: u64,
    spins: u64,
    seconds: f64,
    spins_per_second: f64,
    rtp: f64,
    bankroll: u64,
    mean_final_bankroll: f64,
    median_final_bankroll: u64,
    p05_final_bankroll: u64,
    p95_final_bankroll: u64,
    ruined_fraction: f64,
    ahead_fraction: f64,
    mean_spins_played: f64,
    threads: usize,
}

pub(crate) fn progress(total: u64, unit: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr_with_hz(4));
    let template = format!("{{spinner}} {{bar:40}} {{pos}}/{{len}} {unit} ({{per_sec}}, eta {{eta}})");
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    bar
}

pub fn run(args: Args) -> Result<(), Failure> {
    let profile = wire::load_profile(&args.play.table.profile)?;
    let wheel = wire::wheel_named(args.play.table.wheel.as_deref(), &profile)?;
    let rules = wire::table_rules(&profile, wheel, args.play.in_prison)?;
    if args.spins == 0 || args.spins > croupier_sim::SPINS_MAX {
        return Err(Invalid::one(format!("--spins must be 1 to {}", croupier_sim::SPINS_MAX)).into());
    }
    let spot = args.spot.clone().unwrap_or_else(|| "red".to_string());
    let units = rules
        .stake_units(&spot)
        .map_err(|e| Invalid::one(format!("spot {spot:?}: {e}")))?;
    if args.stake == 0 || !args.stake.is_multiple_of(units) {
        return Err(Invalid::one(format!("--stake must be a positive multiple of {units} for {spot}")).into());
    }
    let payoff = Payoff::new(&rules, &spot, args.stake).map_err(|e| Invalid::one(format!("spot {spot:?}: {e}")))?;
    let seed = seed_from_text(&args.seed);
    let threads = rayon::current_num_threads();
    let mut out = std::io::stdout().lock();

    if args.strategy.is_none() && args.plot.is_some() {
        return Err(Invalid::one(
            "--plot draws the bankroll of each session of a --strategy; a flat bet over --spins has no sessions \
             (for a flat bet's sessions: --strategy flat --sessions N)",
        )
        .into());
    }
    let Some(strategy_name) = args.strategy.as_deref() else {
        let expected = croupier_math::bet_math(&rules, &spot, None)
            .map(|m| croupier_math::to_f64(m.rtp()))
            .map_err(|e| Invalid::one(e.to_string()))?;
        let bar = progress(args.spins, "spins");
        let start = Instant::now();
        let totals = flat(&payoff, args.spins, seed, &|n| bar.inc(n));
        let seconds = start.elapsed().as_secs_f64();
        bar.finish_and_clear();
        let (lo, hi) = totals.rtp_ci95();
        let report = FlatReport {
            mode: "flat",
            spot,
            spins: totals.bets,
            seconds,
            spins_per_second: totals.bets as f64 / seconds,
            staked: totals.staked,
            returned: totals.returned,
            rtp: totals.rtp(),
            rtp_ci95: [lo, hi],
            expected_rtp: expected,
            threads,
        };
        match args.format {
            Format::Json => {
                wire::write_json_line(&mut out, &report)?;
            }
            Format::Text => {
                writeln!(
                    out,
                    "flat bet on {} over {} spins ({} threads, {:.2} s, {:.0} spins/s)",
                    report.spot, report.spins, threads, seconds, report.spins_per_second
                )?;
                writeln!(
                    out,
                    "rtp: {:.6} (95% CI {:.6} - {:.6}); exact: {:.6}",
                    report.rtp, lo, hi, expected
                )?;
            }
        }
        return Ok(());
    };

    let strategy = STRATEGIES
        .iter()
        .find(|(name, _)| *name == strategy_name)
        .map(|&(_, s)| s)
        .ok_or_else(|| {
            let names: Vec<&str> = STRATEGIES.iter().map(|(n, _)| *n).collect();
            Invalid::one(format!("strategy {strategy_name:?} is not one of {}", names.join(", ")))
        })?;
    if args.sessions == 0 || args.sessions > croupier_sim::SESSIONS_MAX {
        return Err(Invalid::one(format!("--sessions must be 1 to {}", croupier_sim::SESSIONS_MAX)).into());
    }
    let kind = croupier_core::Spot::parse(&spot, wheel)
        .map(|s| s.kind())
        .map_err(|e| Invalid::one(e.to_string()))?;
    let limit = profile.limit(kind);
    let table_max = args
        .table_max
        .or(limit.map(|l| l.max.get()))
        .unwrap_or(args.stake * 100);
    let table_min = limit.map(|l| l.min.get()).unwrap_or(args.stake).max(args.stake);
    if table_max < table_min {
        return Err(Invalid::one(format!(
            "the table maximum {table_max} is below the minimum bet {table_min}"
        ))
        .into());
    }
    let spec = SessionSpec {
        strategy,
        spins: args.spins,
        bankroll: args.bankroll,
        table_min,
        table_max,
    };
    let bar = progress(args.sessions, "sessions");
    let start = Instant::now();
    let record = if args.plot.is_some() {
        plot::PATHS_DRAWN_MAX as u64
    } else {
        0
    };
    let results = sessions(&payoff, spec, args.sessions, record, seed, &|n| bar.inc(n));
    let seconds = start.elapsed().as_secs_f64();
    bar.finish_and_clear();

    let mut finals: Vec<u64> = results.iter().map(|r| r.final_bankroll).collect();
    finals.sort_unstable();
    let n = finals.len();
    let quantile = |q: f64| finals[((n - 1) as f64 * q).round() as usize];
    let spins: u64 = results.iter().map(|r| r.spins_played).sum();
    let staked: u128 = results.iter().map(|r| r.staked).sum();
    let returned: u128 = results.iter().map(|r| r.returned).sum();
    let report = SessionsReport {
        mode: "sessions",
        strategy: strategy_name.to_string(),
        spot,
        sessions: args.sessions,
        spins,
        seconds,
        spins_per_second: spins as f64 / seconds,
        rtp: if staked == 0 {
            0.0
        } else {
            returned as f64 / staked as f64
        },
        bankroll: args.bankroll,
        mean_final_bankroll: finals.iter().map(|&f| f as f64).sum::<f64>() / n as f64,
        median_final_bankroll: quantile(0.5),
        p05_final_bankroll: quantile(0.05),
        p95_final_bankroll: quantile(0.95),
        ruined_fraction: results.iter().filter(|r| r.ruined).count() as f64 / n as f64,
        ahead_fraction: finals.iter().filter(|&&f| f > args.bankroll).count() as f64 / n as f64,
        mean_spins_played: spins as f64 / n as f64,
        threads,
    };
    if let Some(path) = &args.plot {
        let title = format!(
            "{} on {} - {} sessions of up to {} spins, bankroll {}",
            report.strategy,
            report.spot,
            report.sessions,
            args.spins,
            args.bankroll as f64 / 100.0
        );
        plot::sessions_svg(path, &title, &results, args.bankroll).map_err(|e| anyhow::anyhow!(e))?;
    }
    match args.format {
        Format::Json => {
            wire::write_json_line(&mut out, &report)?;
        }
        Format::Text => {
            writeln!(
                out,
                "{} on {}: {} sessions, {} spins ({} threads, {:.2} s)",
                report.strategy, report.spot, report.sessions, spins, threads, seconds
            )?;
            writeln!(out, "rtp: {:.6}", report.rtp)?;
            // In money, as the plot draws it; the JSON keeps minor units.
            writeln!(
                out,
                "final bankroll: mean {}, median {}, 5% {}, 95% {} (start {})",
                money(report.mean_final_bankroll),
                money(report.median_final_bankroll as f64),
                money(report.p05_final_bankroll as f64),
                money(report.p95_final_bankroll as f64),
                money(args.bankroll as f64)
            )?;
            writeln!(
                out,
                "ruined: {:.2}%, ahead: {:.2}%",
                report.ruined_fraction * 100.0,
                report.ahead_fraction * 100.0
            )?;
            if let Some(path) = &args.plot {
                writeln!(out, "plot: {}", path.display())?;
            }
        }
    }
    Ok(())
}

/// Minor units as major units with two decimals (1234.5 -> "12.35").
fn money(minor: f64) -> String {
    format!("{:.2}", minor / 100.0)
}
