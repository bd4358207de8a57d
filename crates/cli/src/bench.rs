//! `croupier bench settle`: the engine's own settlement speed on one core.

use std::hint::black_box;
use std::io::Write;
use std::time::{Duration, Instant};

use croupier_core::{BetRequest, Book, BookResults, PlacedBet, Pocket, TableRules, BETS_PER_ROUND_MAX};
use serde::Serialize;

use crate::wire;
use crate::{Failure, Format, Invalid};

#[derive(clap::Subcommand)]
pub enum Which {
    /// Settle one round of N mixed legal bets from P players, over and over.
    Settle(SettleArgs),
    /// The simulator's flat-bet loop against a bare loop drawing the same pockets.
    Sim(SimArgs),
    /// A table server driven over real sockets: durable bets per second, latencies, fan-out.
    Load(crate::load::LoadArgs),
    /// What a history costs: bytes a bet on disk, serve's start and verify, their time and peak memory.
    History(crate::history::HistoryArgs),
    /// A casino's week on a simulated clock: resident memory and the journal's files after each gaming day.
    Week(crate::week::WeekArgs),
    /// The game integrity monitor on simulated wheels: fair ones' false alarms, biased ones' results to an alarm.
    Monitor(crate::monitor_bench::MonitorArgs),
}

#[derive(clap::Args)]
pub struct SimArgs {
    #[arg(long, default_value_t = 20_000_000)]
    spins: u64,
    #[arg(long, default_value = "european-casino")]
    profile: String,
    #[arg(long)]
    wheel: Option<String>,
    #[arg(long, default_value = "red")]
    spot: String,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Serialize)]
struct SimReport {
    profile: String,
    spot: String,
    spins: u64,
    bare_seconds: f64,
    sim_seconds: f64,
    bare_spins_per_second: f64,
    sim_spins_per_second: f64,
    /// Simulation speed over the bare loop's: the target is at least 0.8.
    ratio: f64,
    rtp: f64,
}

fn run_sim(args: SimArgs) -> Result<(), Failure> {
    if args.spins == 0 || args.spins > croupier_sim::SPINS_MAX {
        return Err(Invalid::one(format!("--spins must be 1 to {}", croupier_sim::SPINS_MAX)).into());
    }
    let profile = wire::load_profile(&args.profile)?;
    let wheel = wire::wheel_named(args.wheel.as_deref(), &profile)?;
    let rules = wire::table_rules(&profile, wheel, false)?;
    let units = rules.stake_units(&args.spot).map_err(|e| Invalid::one(e.to_string()))?;
    let payoff = croupier_sim::Payoff::new(&rules.ignoring_limits(), &args.spot, 100 * units)
        .map_err(|e| Invalid::one(e.to_string()))?;
    let seed = [0x5e; 32];
    // Warm up both loops, then time each on one thread.
    black_box(croupier_sim::bare_draws(
        payoff.pockets.len(),
        args.spins / 20 + 1,
        seed,
    ));
    black_box(croupier_sim::flat_single_thread(&payoff, args.spins / 20 + 1, seed));
    let start = Instant::now();
    black_box(croupier_sim::bare_draws(payoff.pockets.len(), args.spins, seed));
    let bare_seconds = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let totals = black_box(croupier_sim::flat_single_thread(&payoff, args.spins, seed));
    let sim_seconds = start.elapsed().as_secs_f64();
    let report = SimReport {
        profile: profile.name().to_string(),
        spot: args.spot,
        spins: args.spins,
        bare_seconds,
        sim_seconds,
        bare_spins_per_second: args.spins as f64 / bare_seconds,
        sim_spins_per_second: args.spins as f64 / sim_seconds,
        ratio: bare_seconds / sim_seconds,
        rtp: totals.rtp(),
    };
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Json => {
            wire::write_json_line(&mut out, &report)?;
        }
        Format::Text => {
            writeln!(
                out,
                "{} spins of a flat bet on {} ({}), one thread",
                report.spins, report.spot, report.profile
            )?;
            writeln!(out, "bare draws: {:.0} spins/s", report.bare_spins_per_second)?;
            writeln!(out, "simulation: {:.0} spins/s", report.sim_spins_per_second)?;
            writeln!(out, "ratio: {:.3} (target at least 0.8)", report.ratio)?;
        }
    }
    Ok(())
}

#[derive(clap::Args)]
pub struct SettleArgs {
    /// Bets in the round.
    #[arg(long, default_value_t = 1_000_000)]
    bets: usize,
    /// Players the bets belong to.
    #[arg(long, default_value_t = 100)]
    players: u32,
    /// The profile the bets are placed under.
    #[arg(long, default_value = "maryland")]
    profile: String,
    /// The wheel (default: the profile's).
    #[arg(long)]
    wheel: Option<String>,
    /// How long to measure, in seconds.
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Serialize)]
struct Report {
    profile: String,
    wheel: &'static str,
    bets: usize,
    players: u32,
    components: usize,
    rounds: u64,
    seconds: f64,
    bets_per_second: f64,
    components_per_second: f64,
    round_micros: f64,
    /// Everything handed back over all measured rounds, so the work cannot be optimised away.
    checksum: u64,
}

/// The players' count is bounded so per-player totals fit in memory.
pub const PLAYERS_MAX: u32 = 1_000_000;

/// Test data only: splitmix64 picks spots, stakes and players reproducibly.
struct Picker(u64);

impl Picker {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn place_some(rules: &TableRules<'_>, spot: &str, multiple: u64) -> Option<PlacedBet> {
    let request = |stake: u64| BetRequest {
        spot,
        stake_minor: i128::from(stake),
        zero_choice: None,
        coupon_minor: None,
    };
    let units = rules.stake_units(spot).ok()?;
    if let Ok(bet) = rules.place(&request(units * multiple * 100)) {
        return Some(bet);
    }
    // Under a profile with per-kind limits, play the minimum instead.
    let kind = croupier_core::Spot::parse(spot, rules.wheel()).ok()?.kind();
    let min = rules.profile().limit(kind)?.min.get();
    rules.place(&request(min)).ok()
}

pub fn run(which: Which) -> Result<(), Failure> {
    let args = match which {
        Which::Settle(args) => args,
        Which::Sim(args) => return run_sim(args),
        Which::Load(args) => return crate::load::run(args),
        Which::History(args) => return crate::history::run(args),
        Which::Week(args) => return crate::week::run(args),
        Which::Monitor(args) => return crate::monitor_bench::run(args),
    };
    if args.bets == 0 || args.bets > BETS_PER_ROUND_MAX {
        return Err(Invalid::one(format!("--bets must be 1 to {BETS_PER_ROUND_MAX}")).into());
    }
    if args.players == 0 || args.players > PLAYERS_MAX {
        return Err(Invalid::one(format!("--players must be 1 to {PLAYERS_MAX}")).into());
    }
    if !(args.seconds > 0.0 && args.seconds <= 600.0) {
        return Err(Invalid::one("--seconds must be more than 0 and at most 600").into());
    }
    let profile = wire::load_profile(&args.profile)?;
    let wheel = wire::wheel_named(args.wheel.as_deref(), &profile)?;
    let rules = wire::table_rules(&profile, wheel, false)?;

    // Place every distinct (spot, stake multiple) once, then fill the round from them.
    let spots = rules.legal_spots();
    let mut picker = Picker(0x0C0F_FEE5);
    let mut placed: Vec<PlacedBet> = Vec::new();
    for spot in &spots {
        for multiple in [1u64, 2, 5] {
            if let Some(bet) = place_some(&rules, spot, multiple) {
                placed.push(bet);
            }
        }
    }
    if placed.is_empty() {
        return Err(Invalid::one(format!("profile {} accepts none of the bench's bets", profile.name())).into());
    }
    let mut book = Book::new(wheel, args.players, args.bets);
    let mut chosen: Vec<(u32, usize)> = Vec::with_capacity(args.bets);
    for _ in 0..args.bets {
        let bet = picker.below(placed.len());
        let player = picker.below(args.players as usize) as u32;
        book.add(&rules, player, &placed[bet])
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        chosen.push((player, bet));
    }
    let components: usize = chosen.iter().map(|&(_, b)| placed[b].components().len()).sum();

    let pockets: Vec<Pocket> = wheel.bettable().iter().collect();
    let mut results = BookResults::default();

    // The compiled round must agree with bet-by-bet settlement before it is timed.
    for &pocket in [Pocket::ZERO, pockets[pockets.len() / 2]].iter() {
        book.settle(pocket, &mut results).map_err(|e| anyhow::anyhow!("{e}"))?;
        let mut per_player = vec![0u64; args.players as usize];
        for (i, &(player, bet)) in chosen.iter().enumerate() {
            let expected = rules.settle(&placed[bet], &[pocket]).returned.get();
            if results.returned[i] != expected {
                return Err(anyhow::anyhow!(
                    "bet {i} on {pocket}: book returned {}, rules {expected}",
                    results.returned[i]
                )
                .into());
            }
            per_player[player as usize] += expected;
        }
        if per_player != results.per_player {
            return Err(anyhow::anyhow!("per-player totals disagree on {pocket}").into());
        }
    }

    let budget = Duration::from_secs_f64(args.seconds);
    let mut rounds = 0u64;
    let mut checksum = 0u64;
    let start = Instant::now();
    while start.elapsed() < budget {
        let pocket = pockets[(rounds % pockets.len() as u64) as usize];
        book.settle(black_box(pocket), &mut results)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        checksum = checksum.wrapping_add(black_box(&results.per_player).iter().sum::<u64>());
        rounds += 1;
    }
    let seconds = start.elapsed().as_secs_f64();
    let report = Report {
        profile: profile.name().to_string(),
        wheel: wheel.name(),
        bets: args.bets,
        players: args.players,
        components,
        rounds,
        seconds,
        bets_per_second: args.bets as f64 * rounds as f64 / seconds,
        components_per_second: components as f64 * rounds as f64 / seconds,
        round_micros: seconds * 1e6 / rounds as f64,
        checksum,
    };
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Json => {
            wire::write_json_line(&mut out, &report)?;
        }
        Format::Text => {
            writeln!(
                out,
                "settled a round of {} bets ({} component bets) from {} players on the {} ({}), {} times in {:.2} s",
                report.bets,
                report.components,
                report.players,
                report.wheel,
                report.profile,
                report.rounds,
                report.seconds
            )?;
            writeln!(out, "round_micros: {:.1}", report.round_micros)?;
            writeln!(out, "components_per_second: {:.0}", report.components_per_second)?;
            writeln!(out, "bets_per_second: {:.0}", report.bets_per_second)?;
        }
    }
    Ok(())
}
