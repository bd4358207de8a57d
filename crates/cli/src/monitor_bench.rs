//! `croupier bench monitor`: the game integrity monitor
//! ([`croupier_math::monitor`]) on simulated single-zero wheels: how many
//! fair wheels raise an alarm over their first 1,000,000 results, and how
//! many results it takes to find a wheel with one pocket at 1 in 36, a
//! favoured sector and a dealer's signature.
//!
//! Each wheel draws from its own ChaCha8 stream of one seed, so a run is
//! reproduced exactly by its seed and counts; the wheels run on every core.

use std::io::Write;
use std::time::Instant;

use croupier_core::Wheel;
use croupier_math::monitor::{monitored_order, Monitor, Test, FALSE_ALARM};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;

use crate::sim_cmd::progress;
use crate::wire;
use crate::{Failure, Format, Invalid};

/// The most wheels a scenario runs.
const WHEELS_MAX: u64 = 100_000;
/// The most results one wheel is spun.
const SPINS_MAX: u64 = 1_000_000_000;

#[derive(clap::Args)]
pub struct MonitorArgs {
    /// Fair wheels, each spun `--spins` times.
    #[arg(long, default_value_t = 1_000)]
    fair_wheels: u64,
    /// Results of each fair wheel.
    #[arg(long, default_value_t = 1_000_000)]
    spins: u64,
    /// Wheels of each bias, each spun until its first alarm or `--spins-max`.
    #[arg(long, default_value_t = 100)]
    biased_wheels: u64,
    /// The most results a biased wheel is spun without an alarm.
    #[arg(long, default_value_t = 20_000_000)]
    spins_max: u64,
    /// The seed of every wheel's stream.
    #[arg(long, default_value_t = 58)]
    seed: u64,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// How a simulated wheel draws its results, by position in wheel order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
enum Bias {
    /// Every pocket 1 in 37.
    Fair,
    /// Position 13 at 1/36 (weight 36 of 1296), the other 36 sharing the
    /// rest (35 each): exactly the chance at which a straight up breaks even.
    OnePocket,
    /// The 9 pockets at positions 5 to 13 (a quarter wheel) each 5% more
    /// likely than the other 28 (weights 21 and 20 of 749).
    Sector,
    /// One spin in 20 lands 10 to 16 pockets clockwise of the last result,
    /// each of those 7 alike; the others land anywhere.
    Signature,
}

impl Bias {
    fn describe(self) -> &'static str {
        match self {
            Bias::Fair => "fair wheel",
            Bias::OnePocket => "one pocket at 1/36 instead of 1/37",
            Bias::Sector => "a quarter-wheel sector (9 pockets) each 5% more likely",
            Bias::Signature => "dealer signature: 1 spin in 20 lands 10-16 pockets clockwise of the last",
        }
    }
}

/// The positions a weighted wheel draws from, each repeated by its weight.
fn table_of(weights: &[u32]) -> Vec<u8> {
    let mut table = Vec::new();
    for (p, &w) in weights.iter().enumerate() {
        table.extend(std::iter::repeat_n(p as u8, w as usize));
    }
    table
}

struct Draws {
    bias: Bias,
    k: usize,
    table: Vec<u8>,
}

impl Draws {
    fn new(bias: Bias, k: usize) -> Draws {
        let weights: Vec<u32> = match bias {
            Bias::OnePocket => (0..k).map(|p| if p == 13 { 36 } else { 35 }).collect(),
            Bias::Sector => (0..k).map(|p| if (5..14).contains(&p) { 21 } else { 20 }).collect(),
            Bias::Fair | Bias::Signature => vec![1; k],
        };
        Draws {
            bias,
            k,
            table: table_of(&weights),
        }
    }

    fn draw(&self, rng: &mut ChaCha8Rng, previous: Option<usize>) -> usize {
        if let (Bias::Signature, Some(p)) = (self.bias, previous) {
            if rng.random_range(0..20u32) == 0 {
                return (p + 10 + rng.random_range(0..7usize)) % self.k;
            }
        }
        usize::from(self.table[rng.random_range(0..self.table.len())])
    }
}

/// One wheel's run: its first alarm, if any, within `spins`.
#[derive(Clone, Debug)]
struct Run {
    alarm: Option<(u64, Test)>,
    spins: u64,
}

fn run_wheel(draws: &Draws, seed: u64, stream: u64, spins: u64, stop_at_alarm: bool) -> Run {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(stream);
    let mut monitor = Monitor::new(draws.k).expect("a single-zero wheel is monitored");
    let mut previous = None;
    for _ in 0..spins {
        let p = draws.draw(&mut rng, previous);
        previous = Some(p);
        let looked = monitor.record(p).expect("draws are positions on the wheel").is_some();
        if looked && stop_at_alarm && !monitor.alarms().is_empty() {
            break;
        }
    }
    Run {
        alarm: monitor.alarms().first().map(|a| (a.spins, a.test)),
        spins: monitor.spins(),
    }
}

#[derive(Serialize)]
struct Scenario {
    bias: Bias,
    description: &'static str,
    wheels: u64,
    /// Results each wheel was spun at most.
    spins_max: u64,
    /// Wheels that raised an alarm.
    alarmed: u64,
    /// Which test raised each wheel's first alarm.
    first_alarm_by_test: Vec<(&'static str, u64)>,
    /// Results to the first alarm of the wheels that raised one: the
    /// quantiles 10%, 50% and 90% (nearest rank), the least and the most.
    spins_to_alarm: Option<[u64; 5]>,
    seconds: f64,
}

#[derive(Serialize)]
struct Report {
    pockets: usize,
    false_alarm_bound: String,
    seed: u64,
    threads: usize,
    scenarios: Vec<Scenario>,
}

fn scenario(bias: Bias, wheels: u64, spins: u64, seed: u64, stream_base: u64) -> Scenario {
    let k = monitored_order(Wheel::SingleZero).len();
    let draws = Draws::new(bias, k);
    let bar = progress(wheels, &format!("wheels ({})", bias.describe()));
    let start = Instant::now();
    let runs: Vec<Run> = (0..wheels)
        .into_par_iter()
        .map(|w| {
            let run = run_wheel(&draws, seed, stream_base + w, spins, bias != Bias::Fair);
            bar.inc(1);
            run
        })
        .collect();
    bar.finish_and_clear();
    let mut found: Vec<u64> = runs.iter().filter_map(|r| r.alarm.map(|(at, _)| at)).collect();
    found.sort_unstable();
    let rank = |q: f64| found[((q * found.len() as f64).ceil() as usize).clamp(1, found.len()) - 1];
    let spins_to_alarm =
        (!found.is_empty()).then(|| [rank(0.1), rank(0.5), rank(0.9), found[0], found[found.len() - 1]]);
    debug_assert!(runs.iter().all(|r| r.spins <= spins));
    Scenario {
        bias,
        description: bias.describe(),
        wheels,
        spins_max: spins,
        alarmed: found.len() as u64,
        first_alarm_by_test: Test::ALL
            .iter()
            .map(|&t| {
                (
                    t.name(),
                    runs.iter().filter(|r| r.alarm.is_some_and(|(_, a)| a == t)).count() as u64,
                )
            })
            .collect(),
        spins_to_alarm,
        seconds: start.elapsed().as_secs_f64(),
    }
}

pub fn run(args: MonitorArgs) -> Result<(), Failure> {
    let mut wrong = Vec::new();
    for (name, value, max) in [
        ("--fair-wheels", args.fair_wheels, WHEELS_MAX),
        ("--biased-wheels", args.biased_wheels, WHEELS_MAX),
        ("--spins", args.spins, SPINS_MAX),
        ("--spins-max", args.spins_max, SPINS_MAX),
    ] {
        if value == 0 || value > max {
            wrong.push(format!("{name} must be 1 to {max}, not {value}"));
        }
    }
    if !wrong.is_empty() {
        return Err(Invalid(wrong).into());
    }
    let mut scenarios = vec![scenario(Bias::Fair, args.fair_wheels, args.spins, args.seed, 0)];
    for (i, bias) in [Bias::OnePocket, Bias::Sector, Bias::Signature].into_iter().enumerate() {
        let base = (i as u64 + 1) * WHEELS_MAX;
        scenarios.push(scenario(bias, args.biased_wheels, args.spins_max, args.seed, base));
    }
    let (num, den) = FALSE_ALARM;
    let report = Report {
        pockets: monitored_order(Wheel::SingleZero).len(),
        false_alarm_bound: format!("{num}/{den}"),
        seed: args.seed,
        threads: rayon::current_num_threads(),
        scenarios,
    };
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Json => wire::write_json_line(&mut out, &report)?,
        Format::Text => write_text(&mut out, &report)?,
    }
    Ok(())
}

fn write_text(out: &mut impl Write, report: &Report) -> std::io::Result<()> {
    writeln!(
        out,
        "game integrity monitor on a single-zero wheel ({} pockets), seed {}, {} threads",
        report.pockets, report.seed, report.threads
    )?;
    writeln!(
        out,
        "a fair wheel ever alarms with probability at most {} (all tests, all looks)",
        report.false_alarm_bound
    )?;
    for s in &report.scenarios {
        writeln!(out)?;
        writeln!(
            out,
            "{}: {} wheels, up to {} results each",
            s.description, s.wheels, s.spins_max
        )?;
        writeln!(out, "  alarmed: {} of {}", s.alarmed, s.wheels)?;
        let by: Vec<String> = s
            .first_alarm_by_test
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(t, n)| format!("{t} {n}"))
            .collect();
        if !by.is_empty() {
            writeln!(out, "  first alarm by test: {}", by.join(", "))?;
        }
        if let Some([p10, p50, p90, least, most]) = s.spins_to_alarm {
            writeln!(
                out,
                "  results to the first alarm: median {p50}, 10% {p10}, 90% {p90} (least {least}, most {most})"
            )?;
        }
        writeln!(out, "  {:.1} s", s.seconds)?;
    }
    Ok(())
}
