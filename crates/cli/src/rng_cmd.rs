//! `croupier rng ...` and `croupier verify-fair`: the outcome generator as a
//! test lab sees it.

use std::io::{BufWriter, Write};

use croupier_core::Wheel;
use croupier_rng::{battery, fair, parse_seed, wheel_pockets, CasinoRng};
use serde::Serialize;

use crate::{Failure, Format, Invalid};

/// The most outcomes or bytes one call may write.
pub const COUNT_MAX: u64 = 1 << 40;
/// The most draws the battery runs on.
pub const BATTERY_SAMPLES_MAX: usize = 100_000_000;

#[derive(clap::Subcommand)]
pub enum Which {
    /// N outcomes from the production path, one pocket label per line.
    Pockets {
        #[arg(long)]
        wheel: String,
        #[arg(long)]
        count: u64,
        /// 64 hex digits: a fixed seed instead of the operating system's entropy.
        #[arg(long)]
        seed: Option<String>,
    },
    /// The generator's raw output before scaling, as bytes (for dieharder, PractRand).
    Raw {
        #[arg(long)]
        bytes: u64,
        #[arg(long)]
        seed: Option<String>,
    },
    /// The built-in battery: chi-square on pockets and pairs, runs, serial correlation, gaps.
    Test {
        #[arg(long, default_value = "single-zero")]
        wheel: String,
        #[arg(long, default_value_t = 2_000_000)]
        samples: usize,
        #[arg(long)]
        seed: Option<String>,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Provably fair play: a new server seed, its commitment, outcomes for a client seed, then the seed revealed.
    Fair {
        #[arg(long)]
        wheel: String,
        #[arg(long)]
        client_seed: String,
        #[arg(long, default_value_t = 10)]
        count: u64,
    },
}

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// The revealed server seed, in hex.
    #[arg(long)]
    server_seed: String,
    /// The SHA-256 commitment published before play, in hex.
    #[arg(long)]
    commitment: String,
    #[arg(long)]
    client_seed: String,
    /// The first nonce.
    #[arg(long, default_value_t = 0)]
    nonce: u64,
    /// How many consecutive nonces.
    #[arg(long, default_value_t = 1)]
    count: u64,
    #[arg(long)]
    wheel: String,
    /// The pockets the operator reported, to check against.
    #[arg(long, value_delimiter = ',')]
    pockets: Vec<String>,
}

fn wheel(name: &str) -> Result<Wheel, Invalid> {
    Wheel::parse(name).ok_or_else(|| Invalid::one(format!("{name:?} is not a wheel: {}", Wheel::all_names())))
}

fn generator(seed: Option<&str>) -> Result<CasinoRng, Failure> {
    match seed {
        Some(hex) => Ok(CasinoRng::from_seed(parse_seed(hex).map_err(Invalid::one)?)),
        None => CasinoRng::from_os().map_err(|e| anyhow::anyhow!("{e}").into()),
    }
}

fn rng_failure(e: croupier_rng::RngError) -> Failure {
    anyhow::anyhow!("{e}").into()
}

#[derive(Serialize)]
struct BatteryRow {
    test: &'static str,
    statistic: f64,
    degrees_of_freedom: Option<f64>,
    p_value: f64,
    pass: bool,
}

pub fn run(which: Which) -> Result<(), Failure> {
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    match which {
        Which::Pockets { wheel: w, count, seed } => {
            let pockets = wheel_pockets(wheel(&w)?);
            if count > COUNT_MAX {
                return Err(Invalid::one(format!("--count is at most {COUNT_MAX}")).into());
            }
            let mut rng = generator(seed.as_deref())?;
            for _ in 0..count {
                rng.cycle_between_games().map_err(rng_failure)?;
                let p = rng.pocket(&pockets).map_err(rng_failure)?;
                writeln!(out, "{p}")?;
            }
        }
        Which::Raw { bytes, seed } => {
            if bytes > COUNT_MAX {
                return Err(Invalid::one(format!("--bytes is at most {COUNT_MAX}")).into());
            }
            let mut rng = generator(seed.as_deref())?;
            let mut buf = vec![0u8; 1 << 16];
            let mut left = bytes;
            while left > 0 {
                let n = left.min(buf.len() as u64) as usize;
                rng.fill(&mut buf[..n]).map_err(rng_failure)?;
                out.write_all(&buf[..n])?;
                left -= n as u64;
            }
        }
        Which::Test {
            wheel: w,
            samples,
            seed,
            format,
        } => {
            let pockets = wheel_pockets(wheel(&w)?);
            if !(10_000..=BATTERY_SAMPLES_MAX).contains(&samples) {
                return Err(Invalid::one(format!("--samples must be 10000 to {BATTERY_SAMPLES_MAX}")).into());
            }
            let mut rng = generator(seed.as_deref())?;
            let k = pockets.len() as u32;
            let draws: Vec<u32> = (0..samples)
                .map(|_| rng.index(k))
                .collect::<Result<_, _>>()
                .map_err(rng_failure)?;
            let rows: Vec<BatteryRow> = battery::run(&draws, k)
                .into_iter()
                .map(|r| BatteryRow {
                    test: r.name,
                    statistic: r.statistic,
                    degrees_of_freedom: r.degrees_of_freedom,
                    p_value: r.p_value,
                    pass: r.pass,
                })
                .collect();
            let all_pass = rows.iter().all(|r| r.pass);
            match format {
                Format::Json => {
                    serde_json::to_writer_pretty(&mut out, &rows).map_err(anyhow::Error::from)?;
                    writeln!(out)?;
                }
                Format::Text => {
                    writeln!(
                        out,
                        "{samples} draws over {k} pockets ({w}); pass when {} <= p <= {}",
                        battery::P_MIN,
                        battery::P_MAX
                    )?;
                    for r in &rows {
                        writeln!(
                            out,
                            "{:<28} statistic {:>14.4}  p {:>8.4}  {}",
                            r.test,
                            r.statistic,
                            r.p_value,
                            if r.pass { "PASS" } else { "FAIL" }
                        )?;
                    }
                    writeln!(
                        out,
                        "{}",
                        if all_pass {
                            "all tests passed"
                        } else {
                            "SOME TESTS FAILED"
                        }
                    )?;
                }
            }
            out.flush()?;
            if !all_pass {
                return Err(anyhow::anyhow!("the battery found the output non-random").into());
            }
        }
        Which::Fair {
            wheel: w,
            client_seed,
            count,
        } => {
            let wheel = wheel(&w)?;
            if count > 1_000_000 {
                return Err(Invalid::one("--count is at most 1000000").into());
            }
            let mut seed = [0u8; 32];
            generator(None)?.fill(&mut seed).map_err(rng_failure)?;
            writeln!(out, "commitment (publish before play): {}", fair::commitment(&seed))?;
            for nonce in 0..count {
                writeln!(
                    out,
                    "nonce {nonce}: {}",
                    fair::pocket(&seed, &client_seed, nonce, wheel)
                )?;
            }
            writeln!(out, "server seed (reveal after play): {}", hex::encode(seed))?;
        }
    }
    out.flush()?;
    Ok(())
}

pub fn verify(args: VerifyArgs) -> Result<(), Failure> {
    let wheel = wheel(&args.wheel)?;
    let seed =
        hex::decode(args.server_seed.trim()).map_err(|e| Invalid::one(format!("--server-seed is not hex: {e}")))?;
    if args.count == 0 || args.count > 1_000_000 {
        return Err(Invalid::one("--count must be 1 to 1000000").into());
    }
    if !args.pockets.is_empty() && args.pockets.len() as u64 != args.count {
        return Err(Invalid::one(format!(
            "{} pockets given for {} nonces",
            args.pockets.len(),
            args.count
        ))
        .into());
    }
    let mut out = std::io::stdout().lock();
    let mut problems = Vec::new();
    if fair::verify_commitment(&seed, &args.commitment) {
        writeln!(out, "commitment: OK (SHA-256 of the server seed)")?;
    } else {
        problems.push(format!(
            "the commitment does not match: SHA-256 of the seed is {}",
            fair::commitment(&seed)
        ));
    }
    for i in 0..args.count {
        let nonce = args.nonce + i;
        let pocket = fair::pocket(&seed, &args.client_seed, nonce, wheel);
        match args.pockets.get(i as usize) {
            Some(reported) if reported.trim() != pocket.label() => {
                problems.push(format!("nonce {nonce}: reported {reported}, the seeds give {pocket}"));
                writeln!(out, "nonce {nonce}: {pocket} (reported {reported}: MISMATCH)")?;
            }
            Some(_) => writeln!(out, "nonce {nonce}: {pocket} (matches)")?,
            None => writeln!(out, "nonce {nonce}: {pocket}")?,
        }
    }
    if problems.is_empty() {
        writeln!(out, "verified")?;
        Ok(())
    } else {
        Err(anyhow::anyhow!("{}", problems.join("; ")).into())
    }
}
