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

use std::io::Write;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde::Serialize;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use crate::{wire, Failure, Format, Invalid};

/// The bench admin's password, once the one-time one is changed.
const ADMIN_PASSWORD: &str = "bench-admin-password-1";

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

#[derive(Serialize)]
struct Report {
    via: Via,
    tables: usize,
    terminals: usize,
    /// Offered bets per second (open loop), or none (closed loop).
    offered_rate: Option<f64>,
    /// Whether every table's rounds ran at the same moments (`--aligned`).
    aligned: bool,
    seconds: f64,
    bets_accepted: u64,
    bets_per_second: f64,
    /// Bets refused because betting was closed to the terminal when they
    /// arrived: between rounds, or its player's share of the round placed.
    bets_refused_betting_closed: u64,
    /// Bets refused for any other reason (none are expected).
    bets_refused_other: u64,
    ack_p50_ms: f64,
    ack_p99_ms: f64,
    /// How the slow acknowledgements fell over the run.
    ack_behind: Behind,
    rounds: u64,
    /// From the first terminal seeing a round's result to the last seeing its settlement end.
    settlement_fanout_p50_ms: f64,
    settlement_fanout_max_ms: f64,
    /// From the dealer asking for the result to the last terminal's settlement message.
    settlement_whole_p50_ms: f64,
    settlement_whole_max_ms: f64,
    echo_messages_per_second: f64,
    echo_p99_ms: f64,
    /// The server's journal writes during the run, from its `/metrics`.
    journal: JournalFlushes,
    /// A bare write-and-flush loop on the same disk after the run.
    bare_flush: BareFlushes,
    /// Where the machine's processor time went during the run (Linux only).
    cpu: Option<CpuShares>,
    /// The server's resident memory over the run (Linux only): whether
    /// what it holds grows with the bets it has taken.
    server_memory: Option<ServerMemory>,
    /// How fast one core of the machine was, just before and just after the run.
    processor: ProcessorSpeed,
    /// The run against the server's targets (stated for `TARGET_TERMINALS`
    /// terminals on `TARGET_CORES` cores, with the load generator beside the server).
    targets: [Target; 3],
}

/// The server's resident memory, read once a second over the run.
#[derive(Serialize, Debug, Clone, PartialEq)]
struct ServerMemory {
    /// Resident at the end of each tenth of the run, in bytes.
    tenths: Vec<u64>,
    /// Its high-water mark at the end. The server's allocator keeps what it
    /// frees for reuse, so resident memory is close to this mark.
    peak_bytes: u64,
}

impl ServerMemory {
    /// From `(seconds into the run, resident bytes)` readings and the peak.
    fn of(readings: &[(f64, u64)], seconds: f64, peak_bytes: u64) -> Option<ServerMemory> {
        if readings.is_empty() || seconds <= 0.0 {
            return None;
        }
        let tenths = (1..=10)
            .map(|tenth| {
                let until = seconds * f64::from(tenth) / 10.0;
                readings
                    .iter()
                    .take_while(|(at, _)| *at <= until + 1e-9)
                    .last()
                    .map_or(0, |(_, bytes)| *bytes)
            })
            .collect();
        Some(ServerMemory { tenths, peak_bytes })
    }
}

/// A shared machine's speed varies from minute to minute; two runs' figures
/// mean little side by side without it. The bench times a fixed piece of the
/// server's kind of work on one thread (`SPEED_PROBE_BETS` bets written as
/// JSON and read back) before it starts the server and again after the run:
/// the same work, so a larger figure means a slower machine at that time.
#[derive(Serialize, Debug, Clone, Copy)]
struct ProcessorSpeed {
    before_ms: f64,
    after_ms: f64,
}

/// Bets in the speed probe: some 50-100 ms of one core on this project's machine.
pub const SPEED_PROBE_BETS: usize = 200_000;

/// The probe's bet, shaped like a terminal's.
#[derive(Serialize, serde::Deserialize)]
struct ProbeBet<'a> {
    table: &'a str,
    bet_id: String,
    spot: &'a str,
    stake: u64,
}

/// Milliseconds one thread takes to write `bets` bets as JSON and read them
/// back: the fastest of three tries, the machine's speed at best just then.
fn speed_probe(bets: usize) -> f64 {
    let spots = ["17", "red", "1-2-4-5", "0-00", "25-36"];
    (0..3)
        .map(|_| {
            let start = Instant::now();
            let mut staked = 0u64;
            for i in 0..bets {
                let bet = ProbeBet {
                    table: "probe",
                    bet_id: format!("b{i}"),
                    spot: spots[i % spots.len()],
                    stake: i as u64 % 500 + 100,
                };
                let text = serde_json::to_string(&bet).unwrap_or_default();
                staked += serde_json::from_str::<ProbeBet>(&text).map_or(0, |b| b.stake);
            }
            std::hint::black_box(staked);
            start.elapsed().as_secs_f64() * 1000.0
        })
        .fold(f64::INFINITY, f64::min)
}

/// How long each table's first round stays open for bets. Every table opens
/// at the start of the run; unless `aligned`, each first round stays open a
/// share of a window longer than the previous table's, so that the tables'
/// rounds end spread evenly over one window, as independent tables' would,
/// with no table closed for longer than the others.
fn first_windows(tables: usize, window_ms: u64, aligned: bool) -> Vec<Duration> {
    (0..tables)
        .map(|i| match aligned {
            true => Duration::from_millis(window_ms),
            false => Duration::from_millis(window_ms + window_ms * i as u64 / tables as u64),
        })
        .collect()
}

/// An acknowledgement later than this misses the server's target for its p99.
pub const ACK_TARGET_MS: f64 = 50.0;
/// The durable bets a second the server's target asks for.
pub const RATE_TARGET: f64 = 20_000.0;
/// Every terminal's settlement message within this long of a round's result.
pub const SETTLEMENT_TARGET_MS: f64 = 100.0;
/// The machine and the load the targets are stated for.
pub const TARGET_TERMINALS: usize = 1_000;
pub const TARGET_CORES: usize = 2;

/// One of the server's targets, and how the run stood against it.
#[derive(Serialize, Debug, PartialEq)]
struct Target {
    target: &'static str,
    measured: f64,
    met: bool,
}

/// The run against the targets: the durable bets a second, the p99 of the
/// acknowledgements, and the slowest round's settlement (from its result to
/// the last terminal's settlement message).
fn targets(bets_per_second: f64, ack_p99_ms: f64, settlement_max_ms: f64) -> [Target; 3] {
    [
        Target {
            target: "at least 20,000 durable bets a second",
            measured: bets_per_second,
            met: bets_per_second >= RATE_TARGET,
        },
        Target {
            target: "acknowledgement p99 under 50 ms",
            measured: ack_p99_ms,
            met: ack_p99_ms < ACK_TARGET_MS,
        },
        Target {
            target: "every round settled at every terminal within 100 ms of its result",
            measured: settlement_max_ms,
            met: settlement_max_ms <= SETTLEMENT_TARGET_MS,
        },
    ]
}

/// The server's journal writes (entries written and flushed) during the run,
/// from the histogram its `/metrics` keeps: each figure is a bucket's bound.
#[derive(Serialize, Default, Debug, PartialEq)]
struct JournalFlushes {
    flushes: u64,
    p50_ms_at_most: f64,
    p99_ms_at_most: f64,
    slowest_ms_over: f64,
    /// Time that lay `ACK_TARGET_MS` or more before the end of a write: a bet
    /// arriving then waited at least that long for the write after it. A lower
    /// bound, each write counted at its bucket's lower bound.
    stalled_ms_at_least: f64,
}

/// A bare loop writing 16 KiB and flushing it, on the data directory's disk.
#[derive(Serialize, Default, Debug, PartialEq)]
struct BareFlushes {
    seconds: f64,
    flushes_per_second: f64,
    p99_ms: f64,
    max_ms: f64,
    /// As `JournalFlushes::stalled_ms_at_least`, exactly.
    stalled_ms: f64,
}

/// Where the machine's processor time went during the run, from Linux's
/// `/proc`: a virtual machine's host may take some of it (steal), which no
/// other figure of the run shows and which can slow every one of them.
#[derive(Serialize, Debug, PartialEq)]
struct CpuShares {
    cores: usize,
    /// Shares of all the cores' time: running anything, idle (waiting for
    /// the disk included), and taken by the host.
    busy: f64,
    idle: f64,
    steal: f64,
    /// Cores' worth of time the server and this load generator took.
    server_cores: f64,
    generator_cores: f64,
}

/// One reading of the processor's time, in the kernel's clock ticks.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct CpuReading {
    cores: usize,
    busy: u64,
    idle: u64,
    steal: u64,
    server: u64,
    generator: u64,
}

impl CpuReading {
    /// Reads `/proc`, or `None` where there is none (not Linux).
    fn now(server: Option<u32>) -> Option<CpuReading> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let ticks = |pid: String| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|t| process_ticks(&t))
        };
        let mut reading = machine_ticks(&stat)?;
        reading.server = ticks(server?.to_string())?;
        reading.generator = ticks("self".into())?;
        Some(reading)
    }

    /// The shares from `self` to `later`.
    fn shares(&self, later: &CpuReading) -> Option<CpuShares> {
        let (busy, idle, steal) = (
            later.busy.checked_sub(self.busy)?,
            later.idle.checked_sub(self.idle)?,
            later.steal.checked_sub(self.steal)?,
        );
        let total = (busy + idle + steal) as f64;
        if total == 0.0 {
            return None;
        }
        let cores = later.cores as f64;
        Some(CpuShares {
            cores: later.cores,
            busy: busy as f64 / total,
            idle: idle as f64 / total,
            steal: steal as f64 / total,
            server_cores: later.server.checked_sub(self.server)? as f64 / total * cores,
            generator_cores: later.generator.checked_sub(self.generator)? as f64 / total * cores,
        })
    }
}

/// The machine's busy, idle and stolen ticks from `/proc/stat`'s `cpu` line
/// (user nice system idle iowait irq softirq steal; guest time is already in
/// user), and its cores from the `cpuN` lines.
fn machine_ticks(stat: &str) -> Option<CpuReading> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let fields: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    let field = |i: usize| fields.get(i).copied().unwrap_or(0);
    let cores = stat
        .lines()
        .filter(|l| l.starts_with("cpu") && l.as_bytes().get(3).is_some_and(u8::is_ascii_digit))
        .count();
    (fields.len() >= 4 && cores > 0).then(|| CpuReading {
        cores,
        busy: field(0) + field(1) + field(2) + field(5) + field(6),
        idle: field(3) + field(4),
        steal: field(7),
        ..CpuReading::default()
    })
}

/// A process's user and system ticks from its `/proc/PID/stat` (fields 14
/// and 15, counted after the name, which may hold spaces and parentheses).
fn process_ticks(stat: &str) -> Option<u64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    let mut fields = after_name.split_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some(user + system)
}

/// A keep-alive HTTP/1.1 connection with just enough of the protocol for JSON calls.
struct Conn {
    address: SocketAddr,
    reader: BufReader<TcpStream>,
}

impl Conn {
    async fn open(address: SocketAddr) -> std::io::Result<Conn> {
        Ok(Conn {
            address,
            reader: Conn::connect(address).await?,
        })
    }

    async fn connect(address: SocketAddr) -> std::io::Result<BufReader<TcpStream>> {
        let stream = TcpStream::connect(address).await?;
        stream.set_nodelay(true)?;
        Ok(BufReader::new(stream))
    }

    async fn call(
        &mut self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> std::io::Result<(u16, Value)> {
        let (status, bytes) = self.fetch(method, path, token, body).await?;
        Ok((status, serde_json::from_slice(&bytes).unwrap_or(Value::Null)))
    }

    /// A call whose answer is kept as bytes. A connection the server closed
    /// while it sat idle (its keep-alive ended, as HTTP lets it) is opened
    /// again and the request sent once more: every request that moves money
    /// carries its id, so a second sending moves nothing twice.
    async fn fetch(
        &mut self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> std::io::Result<(u16, Vec<u8>)> {
        use std::io::ErrorKind::{BrokenPipe, ConnectionAborted, ConnectionReset};
        match self.fetch_once(method, path, token, body).await {
            Ok(Some(answer)) => return Ok(answer),
            Ok(None) => {}
            Err(e) if matches!(e.kind(), BrokenPipe | ConnectionReset | ConnectionAborted) => {}
            Err(e) => return Err(e),
        }
        self.reader = Conn::connect(self.address).await?;
        self.fetch_once(method, path, token, body).await?.ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the server closed a new connection without answering",
            )
        })
    }

    /// One sending; `None` if the connection was closed before any answer.
    async fn fetch_once(
        &mut self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> std::io::Result<Option<(u16, Vec<u8>)>> {
        let body = body.map(Value::to_string).unwrap_or_default();
        let auth = token
            .map(|t| format!("Authorization: Bearer {t}\r\n"))
            .unwrap_or_default();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: bench\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        let stream = self.reader.get_mut();
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(body.as_bytes()).await?;
        let mut line = String::new();
        if self.reader.read_line(&mut line).await? == 0 {
            return Ok(None);
        }
        let status = line.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        let mut length = 0usize;
        loop {
            line.clear();
            self.reader.read_line(&mut line).await?;
            if line == "\r\n" || line.is_empty() {
                break;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().unwrap_or(0);
            }
        }
        let mut buf = vec![0u8; length];
        self.reader.read_exact(&mut buf).await?;
        Ok(Some((status, buf)))
    }
}

fn io(e: impl std::fmt::Display) -> Failure {
    anyhow::anyhow!("{e}").into()
}

async fn expect_ok(conn: &mut Conn, token: &str, request: Value) -> Result<Value, Failure> {
    let (status, body) = conn
        .call("POST", "/api/requests", Some(token), Some(&request))
        .await
        .map_err(io)?;
    if status != 200 {
        return Err(anyhow::anyhow!("{request}: {status} {body}").into());
    }
    Ok(body)
}

async fn login(address: SocketAddr, user: &str, password: &str) -> Result<(Conn, String), Failure> {
    let mut conn = Conn::open(address).await.map_err(io)?;
    let (status, body) = conn
        .call(
            "POST",
            "/api/login",
            None,
            Some(&json!({"username": user, "password": password})),
        )
        .await
        .map_err(io)?;
    let token = body["token"]
        .as_str()
        .filter(|_| status == 200)
        .ok_or_else(|| io(format!("login {user}: {body}")))?;
    Ok((conn, token.to_string()))
}

/// One acknowledged bet: when it was due, in seconds from the start of the
/// run, and how long its acknowledgement took from then.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Ack {
    at: f64,
    ms: f64,
}

impl Ack {
    fn of(start: Instant, due: Instant) -> Ack {
        Ack {
            at: due.saturating_duration_since(start).as_secs_f64(),
            ms: due.elapsed().as_secs_f64() * 1000.0,
        }
    }
}

/// Every terminal's acknowledged bets.
type Acks = Arc<Mutex<Vec<Ack>>>;

/// The windows the run's acknowledgements are grouped in by when the bets were due.
pub const ACK_WINDOW_SECONDS: f64 = 0.1;

/// Whether slow acknowledgements came one by one or with the whole run
/// behind: the windows of the run (those with a bet acknowledged) in which
/// the median bet waited longer than the target, and the share of the slow
/// bets that fell in them. A p99 made by such windows is the machine falling
/// behind the offered load (a queue that builds and drains), not a few bets
/// held up.
#[derive(Serialize, Debug, Clone, Copy, Default, PartialEq)]
struct Behind {
    windows: u64,
    windows_behind: u64,
    /// Of the bets acknowledged after more than the target, the share in those windows.
    slow_share_in_behind: f64,
}

impl Behind {
    fn of(acks: &[Ack], window_seconds: f64, limit_ms: f64) -> Behind {
        let window = |a: &Ack| (a.at / window_seconds) as u64;
        let mut windows: std::collections::BTreeMap<u64, Vec<f64>> = std::collections::BTreeMap::new();
        for a in acks {
            windows.entry(window(a)).or_default().push(a.ms);
        }
        let mut behind = std::collections::BTreeSet::new();
        for (&w, times) in windows.iter_mut() {
            times.sort_by(f64::total_cmp);
            if percentile(times, 0.5) > limit_ms {
                behind.insert(w);
            }
        }
        let (slow, in_behind) = acks
            .iter()
            .filter(|a| a.ms > limit_ms)
            .fold((0u64, 0u64), |(slow, in_behind), a| {
                (slow + 1, in_behind + u64::from(behind.contains(&window(a))))
            });
        Behind {
            windows: windows.len() as u64,
            windows_behind: behind.len() as u64,
            slow_share_in_behind: if slow == 0 { 0.0 } else { in_behind as f64 / slow as f64 },
        }
    }
}

fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

pub fn run(args: LoadArgs) -> Result<(), Failure> {
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
    let runtime = tokio::runtime::Runtime::new()?;
    let report = runtime.block_on(drive(&args))?;
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Json => wire::write_json_line(&mut out, &report)?,
        Format::Text => {
            writeln!(
                out,
                "{} terminals at {} tables for {:.1} s, over loopback",
                report.terminals, report.tables, report.seconds
            )?;
            writeln!(
                out,
                "bets sent {}",
                match report.via {
                    Via::Websocket => "over each terminal's WebSocket",
                    Via::Http => "as HTTP requests",
                }
            )?;
            match report.offered_rate {
                Some(rate) => writeln!(
                    out,
                    "offered: {rate:.0} bets per second on a fixed schedule (open loop)"
                )?,
                None => writeln!(out, "offered: each terminal bets again on its answer (closed loop)")?,
            }
            writeln!(
                out,
                "{}",
                match report.aligned {
                    true => "rounds: every table opens, closes and spins at the same moments (aligned: all settle at once)",
                    false => "rounds: each table's rounds end a share of a betting window after the previous table's, as on a casino floor (--aligned: all at once)",
                }
            )?;
            writeln!(
                out,
                "durable bets accepted: {} ({:.0} per second)",
                report.bets_accepted, report.bets_per_second
            )?;
            writeln!(
                out,
                "refused: {} while betting was closed (between rounds, or the player's share of the round placed), {} for other reasons",
                report.bets_refused_betting_closed, report.bets_refused_other
            )?;
            writeln!(
                out,
                "acknowledgement latency: p50 {:.2} ms, p99 {:.2} ms",
                report.ack_p50_ms, report.ack_p99_ms
            )?;
            let behind = report.ack_behind;
            writeln!(
                out,
                "acknowledgements over the run: in {} of {} windows of {:.0} ms the median bet waited over {ACK_TARGET_MS} ms (the run behind the offered load, a queue building and draining); they hold {:.0}% of the bets that waited that long",
                behind.windows_behind,
                behind.windows,
                ACK_WINDOW_SECONDS * 1000.0,
                behind.slow_share_in_behind * 100.0
            )?;
            writeln!(
                out,
                "result to the last terminal's settlement message: p50 {:.2} ms, max {:.2} ms over {} rounds",
                report.settlement_fanout_p50_ms, report.settlement_fanout_max_ms, report.rounds
            )?;
            writeln!(
                out,
                "the dealer asking for the result to the last settlement message: p50 {:.2} ms, max {:.2} ms",
                report.settlement_whole_p50_ms, report.settlement_whole_max_ms
            )?;
            writeln!(
                out,
                "bare WebSocket echo, same machine, {} clients: {:.0} messages per second, p99 {:.2} ms",
                report.terminals, report.echo_messages_per_second, report.echo_p99_ms
            )?;
            let j = &report.journal;
            writeln!(
                out,
                "journal writes, same run: {}, p50 at most {} ms, p99 at most {} ms, slowest over {} ms",
                j.flushes, j.p50_ms_at_most, j.p99_ms_at_most, j.slowest_ms_over
            )?;
            let stalled_share = j.stalled_ms_at_least / (report.seconds * 1000.0);
            writeln!(
                out,
                "at least {:.0} ms of the run ({:.1}%) lay {ACK_TARGET_MS} ms or more before the end of a journal write: a bet arriving then waited at least {ACK_TARGET_MS} ms",
                j.stalled_ms_at_least,
                100.0 * stalled_share
            )?;
            if report.ack_p99_ms > ACK_TARGET_MS {
                writeln!(out, "{}", disk_verdict(stalled_share))?;
            }
            let b = &report.bare_flush;
            writeln!(
                out,
                "bare write-and-flush loop, same disk, after the run: {:.0} flushes per second, p99 {:.2} ms, slowest {:.0} ms, {:.1}% of {:.0} s lay {ACK_TARGET_MS} ms or more before the end of a flush",
                b.flushes_per_second,
                b.p99_ms,
                b.max_ms,
                100.0 * b.stalled_ms / (b.seconds * 1000.0),
                b.seconds
            )?;
            match &report.cpu {
                Some(c) => writeln!(
                    out,
                    "the machine's {} cores during the run: {:.0}% busy (the server {:.2} cores, this load generator {:.2}), {:.0}% idle, {:.0}% taken by the virtual machine's host (steal)",
                    c.cores,
                    100.0 * c.busy,
                    c.server_cores,
                    c.generator_cores,
                    100.0 * c.idle,
                    100.0 * c.steal
                )?,
                None => writeln!(out, "the machine's processor time during the run: not measured (no /proc)")?,
            }
            if let Some(m) = &report.server_memory {
                let tenths: Vec<String> = m
                    .tenths
                    .iter()
                    .map(|b| format!("{:.0}", crate::history::mib(*b)))
                    .collect();
                writeln!(
                    out,
                    "the server's resident memory at each tenth of the run: {} MiB; its peak {:.0} MiB",
                    tenths.join(", "),
                    crate::history::mib(m.peak_bytes)
                )?;
            }
            writeln!(
                out,
                "the machine's speed: one core wrote and read back {SPEED_PROBE_BETS} bets as JSON in {:.0} ms before the run and {:.0} ms after (the same work: more time, a slower machine)",
                report.processor.before_ms, report.processor.after_ms
            )?;
            let cores = report.cpu.as_ref().map(|c| c.cores);
            let stated = if report.terminals == TARGET_TERMINALS && cores == Some(TARGET_CORES) {
                String::new()
            } else {
                let cores = cores.map_or("an unknown number of".to_string(), |c| c.to_string());
                format!(
                    " (stated for {TARGET_TERMINALS} terminals on {TARGET_CORES} cores; this run: {} terminals on {cores} cores)",
                    report.terminals
                )
            };
            writeln!(out, "the targets{stated}:")?;
            let [rate, ack, settlement] = &report.targets;
            let verdict = |t: &Target| if t.met { "met" } else { "not met" };
            writeln!(
                out,
                "  {}: {} ({:.0} a second)",
                rate.target,
                verdict(rate),
                rate.measured
            )?;
            writeln!(
                out,
                "  {}: {} ({:.2} ms; the bare echo's p99 on the same machine {:.2} ms)",
                ack.target,
                verdict(ack),
                ack.measured,
                report.echo_p99_ms
            )?;
            writeln!(
                out,
                "  {}: {} (the slowest of {} rounds {:.2} ms)",
                settlement.target,
                verdict(settlement),
                report.rounds,
                settlement.measured
            )?;
        }
    }
    Ok(())
}

async fn drive(args: &LoadArgs) -> Result<Report, Failure> {
    // Before anything else runs: the machine's speed with nothing of the bench on it.
    let speed_before = tokio::task::spawn_blocking(|| speed_probe(SPEED_PROBE_BETS))
        .await
        .map_err(io)?;
    let data = match &args.keep_data {
        Some(dir) if dir.exists() => {
            return Err(Invalid::one(format!(
                "--keep-data {}: it exists already; a load starts a casino of its own in a new directory",
                dir.display()
            ))
            .into())
        }
        Some(dir) => dir.clone(),
        None => std::env::temp_dir().join(format!(
            "croupier-load-{}-{}",
            std::process::id(),
            crate::wire::unique_suffix()
        )),
    };
    // The server runs as its own process, as it would in a casino.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(io)?
        .port();
    let exe = std::env::current_exe().map_err(io)?;
    let mut child = tokio::process::Command::new(exe)
        // Every terminal signs in from this one address.
        .args([
            "serve",
            "--sign-ins-per-client-per-minute",
            "1000000",
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--data",
        ])
        .arg(&data)
        // The database's URL through the environment: an argument would show its password to `ps`.
        .envs(args.database.iter().map(|url| ("CROUPIER_DATABASE", url.as_str())))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(io)?;
    let stdout = child.stdout.take().ok_or_else(|| io("no stdout from the server"))?;
    let mut lines = BufReader::new(stdout).lines();
    let mut password = None;
    let mut address = None;
    while let Some(line) = lines.next_line().await.map_err(io)? {
        if let Some(rest) = line.strip_prefix("croupier: serving on http://") {
            address = rest.split(' ').next().and_then(|a| a.parse::<SocketAddr>().ok());
        }
        if let Some(rest) = line.split("with password ").nth(1) {
            password = rest.split(' ').next().map(str::to_string);
            break;
        }
    }
    let address = address.ok_or_else(|| io("the bench server did not say where it listens"))?;
    let password = password.ok_or_else(|| io("the bench server did not start fresh"))?;
    // Keep reading the server's output so it never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    eprintln!(
        "croupier: bench server on {address}; setting up {} terminals",
        args.terminals
    );

    let (mut admin, admin_token) = login(address, "admin", &password).await?;
    // The one-time password is changed before anything else is taken.
    expect_ok(
        &mut admin,
        &admin_token,
        json!({"op": "change_password", "password": password, "new_password": ADMIN_PASSWORD}),
    )
    .await?;
    // Maryland ch.1 G(1): a Maryland layout shows the operator's name.
    expect_ok(
        &mut admin,
        &admin_token,
        json!({"op": "name_operator", "name": "Bench House"}),
    )
    .await?;
    let staff_password = "bench-password-1";
    for (name, role) in [("dealer", "dealer"), ("pit", "pit_supervisor")] {
        expect_ok(
            &mut admin,
            &admin_token,
            json!({"op": "create_user", "username": name, "role": role, "password": staff_password, "licence": format!("BENCH-{name}")}),
        )
        .await?;
    }
    let profile_text = croupier_profiles::builtin_text("maryland")
        .unwrap_or_default()
        .to_string();
    let tables: Vec<String> = (0..args.tables).map(|i| format!("load{i}")).collect();
    for t in &tables {
        expect_ok(&mut admin, &admin_token, json!({"op": "create_table", "table": t, "profile_text": profile_text, "wheel": "double-zero", "in_prison": false, "betting_window_ms": 600000, "outcome": "rng", "shared_colours": true})).await?;
    }
    let (mut pit, pit_token) = login(address, "pit", staff_password).await?;
    let (mut dealer, dealer_token) = login(address, "dealer", staff_password).await?;
    for t in &tables {
        expect_ok(&mut pit, &pit_token, json!({"op": "inspect", "table": t, "no_magnet_or_contrivance": true, "wheel_level_and_rotating_freely": true, "parts_secure": true, "ball_non_magnetic": true, "layout_and_signage_comply": true})).await?;
        expect_ok(
            &mut pit,
            &pit_token,
            json!({"op": "set_limits", "table": t, "limits": bench_limits(&profile_text)?}),
        )
        .await?;
        expect_ok(&mut dealer, &dealer_token, json!({"op": "open_table", "table": t})).await?;
    }
    // Players are created and logged in a few at a time: each password is an argon2 hash.
    let mut terminals = Vec::with_capacity(args.terminals);
    for chunk in (0..args.terminals).collect::<Vec<_>>().chunks(16) {
        let mut creating = Vec::new();
        for &i in chunk {
            let admin_token = admin_token.clone();
            creating.push(tokio::spawn(async move {
                let mut conn = Conn::open(address).await.map_err(io)?;
                expect_ok(&mut conn, &admin_token, json!({"op": "create_user", "username": format!("p{i}"), "role": "player", "password": "player-password-1"})).await?;
                login(address, &format!("p{i}"), "player-password-1").await
            }));
        }
        for (k, task) in creating.into_iter().enumerate() {
            let (conn, token) = task.await.map_err(io)??;
            terminals.push((chunk[k], conn, token));
        }
    }
    // Each bankroll is above a cashier's day (10,000.00 a player): the admin cashes it in.
    for (i, conn, token) in terminals.iter_mut() {
        expect_ok(
            &mut admin,
            &admin_token,
            json!({"op": "cash_in", "id": format!("c{i}"), "player": format!("p{i}"), "amount": 1_000_000_000u64}),
        )
        .await?;
        expect_ok(conn, token, json!({"op": "buy_in", "id": format!("b{i}"), "table": tables[*i % tables.len()], "amount": 100_000_000u64, "chip_value": 100})).await?;
    }

    // Every terminal listens to its table; when each round's result and its
    // settlement reach it is noted.
    let settled_at: Settlements = Arc::new(Mutex::new(Vec::new()));
    let mut listeners = Vec::new();
    let mut sockets = Vec::new();
    for (i, _, token) in &terminals {
        let table = tables[*i % tables.len()].clone();
        let mut request = tokio_tungstenite::tungstenite::client::IntoClientRequest::into_client_request(format!(
            "ws://{address}/api/tables/{table}/stream"
        ))
        .map_err(io)?;
        let protocols = format!("croupier.v1, croupier-token.{token}").parse().map_err(io)?;
        request.headers_mut().insert("sec-websocket-protocol", protocols);
        let (ws, _) = tokio_tungstenite::connect_async_with_config(request, Some(socket_config()), true)
            .await
            .map_err(io)?;
        if args.via == Via::Websocket {
            sockets.push(ws);
            continue;
        }
        let settled_at = settled_at.clone();
        listeners.push(tokio::spawn(async move {
            let (_, mut read) = ws.split();
            while let Some(Ok(message)) = read.next().await {
                if let Ok(text) = message.to_text() {
                    note_round(text, &table, &settled_at);
                }
            }
        }));
    }

    let flushed_before = journal_histogram(address, &admin_token).await?;
    eprintln!("croupier: measuring for {:.1} s", args.duration);
    let stop = Arc::new(AtomicBool::new(false));
    let accepted = Arc::new(AtomicU64::new(0));
    let refused = Arc::new(Refused::default());
    let latencies: Acks = Arc::new(Mutex::new(Vec::new()));
    let results: Arc<Mutex<Vec<Asked>>> = Arc::new(Mutex::new(Vec::new()));
    let server_pid = child.id();
    let cpu_before = CpuReading::now(server_pid);
    let start = Instant::now();
    let mut dealers = Vec::new();
    let firsts = first_windows(tables.len(), args.window_ms, args.aligned);
    for (t, first) in tables.clone().into_iter().zip(firsts) {
        let (stop, results, window) = (stop.clone(), results.clone(), args.window_ms);
        let (mut conn, token) = login(address, "dealer", staff_password).await?;
        dealers.push(tokio::spawn(async move {
            let mut open_for = first;
            while !stop.load(Ordering::Relaxed) {
                let Ok((200, opened)) = conn
                    .call(
                        "POST",
                        "/api/requests",
                        Some(&token),
                        Some(&json!({"op": "open_betting", "table": t})),
                    )
                    .await
                else {
                    break;
                };
                let round = opened["events"][0]["round"].as_u64().unwrap_or(0);
                tokio::time::sleep(open_for).await;
                open_for = Duration::from_millis(window);
                let _ = conn
                    .call(
                        "POST",
                        "/api/requests",
                        Some(&token),
                        Some(&json!({"op": "no_more_bets", "table": t})),
                    )
                    .await;
                let asked = Instant::now();
                if let Ok((200, _)) = conn
                    .call("POST", &format!("/api/tables/{t}/draw"), Some(&token), None)
                    .await
                {
                    if let Ok(mut r) = results.lock() {
                        r.push((t.clone(), round, asked));
                    }
                }
            }
        }));
    }
    let mut players = Vec::new();
    let count = terminals.len();
    let mut sockets = sockets.into_iter();
    // Open loop: each terminal's share of the rate, its first bet staggered over one interval.
    let interval = args.rate.map(|rate| Duration::from_secs_f64(count as f64 / rate));
    for (i, mut conn, token) in terminals {
        let (stop, accepted, refused, latencies, table) = (
            stop.clone(),
            accepted.clone(),
            refused.clone(),
            latencies.clone(),
            tables[i % tables.len()].clone(),
        );
        if let Some(ws) = sockets.next() {
            let terminal = SocketTerminal {
                i,
                count,
                table,
                interval,
                stop,
                accepted,
                refused,
                latencies,
                start,
                settled_at: settled_at.clone(),
            };
            players.push(tokio::spawn(terminal.run(ws)));
            continue;
        }
        players.push(tokio::spawn(async move {
            let spots = ["red", "black", "17", "0-00", "dozen2", "odd", "1-2-3", "25-26-28-29"];
            let mut n = 0u64;
            let mut mine = Vec::new();
            let mut due = interval.map(|every| Instant::now() + every.mul_f64(i as f64 / count as f64));
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                let bet = json!({"op": "place_bet", "table": table, "bet_id": format!("p{i}-{n}"), "spot": spots[(n as usize + i) % spots.len()], "stake": 100});
                if let Some(at) = due {
                    tokio::time::sleep_until(at.into()).await;
                }
                let sent = due.unwrap_or_else(Instant::now);
                let answer = conn.call("POST", "/api/requests", Some(&token), Some(&bet)).await;
                if let (Some(at), Some(every)) = (due.as_mut(), interval) {
                    *at += every;
                }
                match answer {
                    Ok((200, _)) => {
                        accepted.fetch_add(1, Ordering::Relaxed);
                        mine.push(Ack::of(start, sent));
                    }
                    Ok((_, body)) => {
                        refused.count(body["error"].as_str());
                        // Betting is closed between rounds: a closed-loop terminal waits a little.
                        if interval.is_none() {
                            tokio::time::sleep(Duration::from_millis(20)).await;
                        }
                    }
                    Err(_) => break,
                }
            }
            if let Ok(mut l) = latencies.lock() {
                l.extend(mine);
            }
        }));
    }
    // The server's memory, once a second, until the run's end.
    let mut resident = Vec::new();
    let end = start + Duration::from_secs_f64(args.duration);
    while Instant::now() < end {
        tokio::time::sleep(Duration::from_secs(1).min(end.saturating_duration_since(Instant::now()))).await;
        if let Some(bytes) = server_pid.and_then(|pid| crate::history::memory_bytes(pid, "VmRSS:")) {
            resident.push((start.elapsed().as_secs_f64(), bytes));
        }
    }
    stop.store(true, Ordering::Relaxed);
    let seconds = start.elapsed().as_secs_f64();
    let server_memory = server_pid
        .and_then(|pid| crate::history::memory_bytes(pid, "VmHWM:"))
        .and_then(|peak| ServerMemory::of(&resident, seconds, peak));
    let cpu = cpu_before
        .zip(CpuReading::now(server_pid))
        .and_then(|(before, after)| before.shares(&after));
    // Signed in again: a session idle for 30 minutes has ended (a run of an hour).
    let (_, admin_token) = login(address, "admin", ADMIN_PASSWORD).await?;
    let journal = journal_flushes(&flushed_before, &journal_histogram(address, &admin_token).await?);
    for p in players {
        let _ = p.await;
    }
    for d in dealers {
        let _ = d.await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    for l in listeners {
        l.abort();
    }

    let acks: Vec<Ack> = latencies.lock().map(|l| l.clone()).unwrap_or_default();
    let behind = Behind::of(&acks, ACK_WINDOW_SECONDS, ACK_TARGET_MS);
    let mut ack: Vec<f64> = acks.iter().map(|a| a.ms).collect();
    ack.sort_by(f64::total_cmp);
    let results = results.lock().map(|r| r.clone()).unwrap_or_default();
    let settled = settled_at.lock().map(|s| s.clone()).unwrap_or_default();
    // The last terminal's settlement of each round, timed from `since`: the first
    // terminal to see the result (the result is out, durable, with its settlement),
    // or the dealer asking for it (queue, draw, settlement, commit and fan-out).
    let last_settlement = |since: &dyn Fn(&Asked) -> Option<Instant>| -> Vec<f64> {
        let mut times: Vec<f64> = results
            .iter()
            .filter_map(|r| {
                let from = since(r)?;
                settled
                    .iter()
                    .filter(|(t, round, _, result)| *t == r.0 && *round == r.1 && !result)
                    .map(|(_, _, when, _)| when.saturating_duration_since(from).as_secs_f64() * 1000.0)
                    .reduce(f64::max)
            })
            .collect();
        times.sort_by(f64::total_cmp);
        times
    };
    let fanout = last_settlement(&|r| {
        settled
            .iter()
            .filter(|(t, round, _, result)| *t == r.0 && *round == r.1 && *result)
            .map(|(_, _, when, _)| *when)
            .min()
    });
    let whole = last_settlement(&|r| Some(r.2));
    let bets = accepted.load(Ordering::Relaxed);
    let (refused_closed, refused_other) = (
        refused.betting_closed.load(Ordering::Relaxed),
        refused.other.load(Ordering::Relaxed),
    );
    let _ = child.kill().await;
    let (echo_rate, echo_p99) = echo(args.terminals, args.duration.min(5.0)).await?;
    let probe_dir = data.clone();
    let probe_seconds = args.duration.min(10.0);
    let bare_flush = tokio::task::spawn_blocking(move || bare_flushes(&probe_dir, probe_seconds))
        .await
        .map_err(io)?
        .map_err(io)?;
    let processor = ProcessorSpeed {
        before_ms: speed_before,
        after_ms: tokio::task::spawn_blocking(|| speed_probe(SPEED_PROBE_BETS))
            .await
            .map_err(io)?,
    };
    if args.keep_data.is_none() {
        let _ = std::fs::remove_dir_all(&data);
        let _ = std::fs::remove_dir_all(croupier_server::runtime::keys::default_dir(&data));
    }
    Ok(Report {
        via: args.via,
        tables: args.tables,
        terminals: args.terminals,
        offered_rate: args.rate,
        aligned: args.aligned,
        seconds,
        bets_accepted: bets,
        bets_per_second: bets as f64 / seconds,
        bets_refused_betting_closed: refused_closed,
        bets_refused_other: refused_other,
        ack_p50_ms: percentile(&ack, 0.5),
        ack_p99_ms: percentile(&ack, 0.99),
        ack_behind: behind,
        rounds: fanout.len() as u64,
        settlement_fanout_p50_ms: percentile(&fanout, 0.5),
        settlement_fanout_max_ms: fanout.last().copied().unwrap_or(0.0),
        settlement_whole_p50_ms: percentile(&whole, 0.5),
        settlement_whole_max_ms: whole.last().copied().unwrap_or(0.0),
        echo_messages_per_second: echo_rate,
        echo_p99_ms: echo_p99,
        journal,
        bare_flush,
        cpu,
        server_memory,
        processor,
        targets: targets(
            bets as f64 / seconds,
            percentile(&ack, 0.99),
            fanout.last().copied().unwrap_or(0.0),
        ),
    })
}

/// What the journal's writes say of a p99 over `ACK_TARGET_MS`, given the
/// share of the run that lay that far before the end of a write.
fn disk_verdict(stalled_share: f64) -> String {
    if stalled_share > 0.01 {
        format!(
            "the p99 is over {ACK_TARGET_MS} ms, and more than 1% of the run lay that far before the end of a journal write: unless those moments fell while betting was closed, the disk alone kept the p99 over {ACK_TARGET_MS} ms"
        )
    } else {
        format!(
            "the p99 is over {ACK_TARGET_MS} ms, and at most 1% of the run lay that far before the end of a journal write (as far as the buckets tell): the disk alone does not explain it"
        )
    }
}

/// The server's journal-write histogram: each bucket's upper bound in
/// seconds with its cumulative count, `+Inf` last.
async fn journal_histogram(address: SocketAddr, admin_token: &str) -> Result<Vec<(f64, u64)>, Failure> {
    let mut conn = Conn::open(address).await.map_err(io)?;
    let (status, body) = conn
        .fetch("GET", "/metrics", Some(admin_token), None)
        .await
        .map_err(io)?;
    let text = String::from_utf8_lossy(&body);
    let buckets = parse_histogram(&text, "croupier_journal_flush_seconds");
    if status != 200 || buckets.last().is_none_or(|(bound, _)| *bound != f64::INFINITY) {
        return Err(io(format!(
            "the bench server's /metrics ({status}) has no croupier_journal_flush_seconds histogram"
        )));
    }
    Ok(buckets)
}

/// The buckets of histogram `name` in a Prometheus text exposition.
fn parse_histogram(text: &str, name: &str) -> Vec<(f64, u64)> {
    let prefix = format!("{name}_bucket{{le=\"");
    text.lines()
        .filter_map(|line| {
            let (bound, count) = line.strip_prefix(prefix.as_str())?.split_once("\"} ")?;
            let bound = if bound == "+Inf" {
                f64::INFINITY
            } else {
                bound.parse().ok()?
            };
            Some((bound, count.trim().parse().ok()?))
        })
        .collect()
}

/// The writes between two readings of the histogram.
fn journal_flushes(before: &[(f64, u64)], after: &[(f64, u64)]) -> JournalFlushes {
    // Each bucket's own count during the run, with its bounds in milliseconds.
    let mut buckets = Vec::new();
    let (mut lower, mut below) = (0.0, 0u64);
    for (i, &(bound, after_count)) in after.iter().enumerate() {
        let cumulative = after_count.saturating_sub(before.get(i).map_or(0, |&(_, c)| c));
        buckets.push((lower, bound * 1000.0, cumulative.saturating_sub(below)));
        (lower, below) = (bound * 1000.0, cumulative);
    }
    let flushes: u64 = buckets.iter().map(|&(_, _, n)| n).sum();
    // With no writes no bucket reaches the count wanted, and the answer is 0.
    let at_most = |q: f64| {
        let wanted = (flushes as f64 * q).ceil().max(1.0) as u64;
        let mut seen = 0;
        buckets
            .iter()
            .find(|&&(_, _, n)| {
                seen += n;
                seen >= wanted
            })
            .map_or(0.0, |&(_, upper, _)| upper)
    };
    JournalFlushes {
        flushes,
        p50_ms_at_most: at_most(0.5),
        p99_ms_at_most: at_most(0.99),
        slowest_ms_over: buckets.iter().rev().find(|b| b.2 > 0).map_or(0.0, |b| b.0),
        stalled_ms_at_least: buckets
            .iter()
            .map(|&(lower, _, n)| n as f64 * (lower - ACK_TARGET_MS).max(0.0))
            .sum(),
    }
}

/// Writes 16 KiB blocks in turn over a 4 MiB file in `dir`, flushing each to
/// disk, for `seconds`: what the disk alone gives a journal.
fn bare_flushes(dir: &std::path::Path, seconds: f64) -> std::io::Result<BareFlushes> {
    use std::os::unix::fs::FileExt;
    const BLOCK: usize = 16 * 1024;
    const FILE: u64 = 4 * 1024 * 1024;
    let path = dir.join("bare-flush.probe");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .read(true)
        .write(true)
        .open(&path)?;
    file.set_len(FILE)?;
    file.sync_all()?;
    let block = vec![0x5au8; BLOCK];
    let mut took = Vec::new();
    let start = Instant::now();
    let mut offset = 0u64;
    while start.elapsed().as_secs_f64() < seconds {
        file.write_all_at(&block, offset)?;
        offset = (offset + BLOCK as u64) % FILE;
        let began = Instant::now();
        file.sync_data()?;
        took.push(began.elapsed().as_secs_f64() * 1000.0);
    }
    let elapsed = start.elapsed().as_secs_f64();
    drop(file);
    std::fs::remove_file(&path)?;
    let stalled_ms = took.iter().map(|ms| (ms - ACK_TARGET_MS).max(0.0)).sum();
    took.sort_by(f64::total_cmp);
    Ok(BareFlushes {
        seconds: elapsed,
        flushes_per_second: took.len() as f64 / elapsed,
        p99_ms: percentile(&took, 0.99),
        max_ms: took.last().copied().unwrap_or(0.0),
        stalled_ms,
    })
}

/// Refused bets by reason.
#[derive(Default)]
struct Refused {
    betting_closed: AtomicU64,
    other: AtomicU64,
}

impl Refused {
    fn count(&self, code: Option<&str>) {
        // After no more bets a bet is past posting; between a result and the next
        // round's opening there is no betting to join; a terminal betting as fast
        // as it is answered may place its player's whole share of a long round.
        let counter = match code {
            Some("past_posting" | "betting_not_open" | "too_many_bets") => &self.betting_closed,
            _ => &self.other,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

/// Every socket of the run, the echo's included, reads through a small buffer:
/// tungstenite zeroes its read buffer (128 KiB by default) on every read.
fn socket_config() -> tokio_tungstenite::tungstenite::protocol::WebSocketConfig {
    tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default().read_buffer_size(4 * 1024)
}

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;
/// A round's table, number, and when the dealer asked for its result.
type Asked = (String, u64, Instant);

/// When a round's result (true) or its end of settlement (false) reached a terminal.
type Settlements = Arc<Mutex<Vec<(String, u64, Instant, bool)>>>;

/// Notes the arrival of a round's result or of its end of settlement.
fn note_round(text: &str, table: &str, seen: &Settlements) {
    let result = text.starts_with("{\"type\":\"result\"");
    if !result && !text.contains("\"round_settled\"") {
        return;
    }
    let v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    let round = v["round"].as_u64().unwrap_or(0);
    if let Ok(mut s) = seen.lock() {
        s.push((table.to_string(), round, Instant::now(), result));
    }
}

/// A reply on a table stream, as much of it as a terminal reads.
#[derive(serde::Deserialize)]
struct SocketReply<'a> {
    #[serde(rename = "ref", borrow)]
    reference: &'a str,
    #[serde(default, borrow)]
    error: Option<&'a str>,
}

/// A terminal that bets over its table stream: requests go out on the socket
/// and their replies come back on it, among the table's events.
struct SocketTerminal {
    i: usize,
    count: usize,
    table: String,
    interval: Option<Duration>,
    stop: Arc<AtomicBool>,
    accepted: Arc<AtomicU64>,
    refused: Arc<Refused>,
    latencies: Acks,
    start: Instant,
    settled_at: Settlements,
}

/// How long a terminal waits for its last replies once the run stops.
const DRAIN_SECONDS: f64 = 5.0;

impl SocketTerminal {
    async fn run(self, ws: Socket) {
        use tokio_tungstenite::tungstenite::Message;
        let spots = ["red", "black", "17", "0-00", "dozen2", "odd", "1-2-3", "25-26-28-29"];
        let (mut write, mut read) = ws.split();
        let mut pending: std::collections::HashMap<u64, Instant> = std::collections::HashMap::new();
        let mut mine = Vec::new();
        let mut n = 0u64;
        // When the next bet goes: on the schedule (open loop), or once the last one is answered.
        let mut next = Some(
            Instant::now()
                + self
                    .interval
                    .map_or(Duration::ZERO, |every| every.mul_f64(self.i as f64 / self.count as f64)),
        );
        let mut stopped_at: Option<Instant> = None;
        // One timer for the terminal, moved only when the next bet's time
        // changes: a timer made afresh on every pass (every message read) was
        // registered and dropped each time, a twentieth of the generator's work.
        let timer = tokio::time::sleep_until(next.unwrap_or_else(Instant::now).into());
        tokio::pin!(timer);
        loop {
            if stopped_at.is_none() && self.stop.load(Ordering::Relaxed) {
                stopped_at = Some(Instant::now());
                next = None;
            }
            if let Some(at) = stopped_at {
                if pending.is_empty() || at.elapsed().as_secs_f64() > DRAIN_SECONDS {
                    break;
                }
            }
            let wake = tokio::time::Instant::from(next.unwrap_or_else(|| Instant::now() + Duration::from_millis(100)));
            if timer.deadline() != wake {
                timer.as_mut().reset(wake);
            }
            tokio::select! {
                _ = &mut timer => {
                    let Some(due) = next else { continue };
                    n += 1;
                    // Table ids and spots need no JSON escaping: the generator spends its time on the socket.
                    let bet = format!(
                        r#"{{"ref":"{n}","request":{{"op":"place_bet","table":"{}","bet_id":"p{}-{n}","spot":"{}","stake":100}}}}"#,
                        self.table,
                        self.i,
                        spots[(n as usize + self.i) % spots.len()]
                    );
                    if write.send(Message::text(bet)).await.is_err() {
                        break;
                    }
                    pending.insert(n, due);
                    next = self.interval.map(|every| due + every);
                }
                message = read.next() => {
                    let Some(Ok(message)) = message else { break };
                    let Ok(text) = message.to_text() else { continue };
                    if text.starts_with("{\"type\":\"reply\"") {
                        let Ok(reply) = serde_json::from_str::<SocketReply>(text) else { continue };
                        let reference = reply.reference.parse::<u64>().unwrap_or(0);
                        let Some(due) = pending.remove(&reference) else { continue };
                        let ok = reply.error.is_none();
                        if ok {
                            self.accepted.fetch_add(1, Ordering::Relaxed);
                            mine.push(Ack::of(self.start, due));
                        } else {
                            self.refused.count(reply.error);
                        }
                        if self.interval.is_none() && stopped_at.is_none() {
                            // Betting is closed between rounds: a closed-loop terminal waits a little.
                            next = Some(Instant::now() + if ok { Duration::ZERO } else { Duration::from_millis(20) });
                        }
                    } else {
                        note_round(text, &self.table, &self.settled_at);
                    }
                }
            }
        }
        if let Ok(mut l) = self.latencies.lock() {
            l.extend(mine);
        }
    }
}

/// A bare WebSocket echo on loopback, the same number of clients each
/// sending one message and awaiting its echo, for the limit to compare with.
async fn echo(clients: usize, seconds: f64) -> Result<(f64, f64), Failure> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.map_err(io)?;
    let address = listener.local_addr().map_err(io)?;
    let server = tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let _ = stream.set_nodelay(true);
                if let Ok(ws) = tokio_tungstenite::accept_async_with_config(stream, Some(socket_config())).await {
                    let (mut write, mut read) = ws.split();
                    while let Some(Ok(m)) = read.next().await {
                        if m.is_text() && write.send(m).await.is_err() {
                            break;
                        }
                    }
                }
            });
        }
    });
    let stop = Arc::new(AtomicBool::new(false));
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let (ws, _) =
            tokio_tungstenite::connect_async_with_config(format!("ws://{address}/"), Some(socket_config()), true)
                .await
                .map_err(io)?;
        let stop = stop.clone();
        tasks.push(tokio::spawn(async move {
            let (mut write, mut read) = ws.split();
            let mut latencies = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                let sent = Instant::now();
                if write
                    .send(tokio_tungstenite::tungstenite::Message::text("{\"type\":\"ping\"}"))
                    .await
                    .is_err()
                {
                    break;
                }
                match read.next().await {
                    Some(Ok(_)) => latencies.push(sent.elapsed().as_secs_f64() * 1000.0),
                    _ => break,
                }
            }
            latencies
        }));
    }
    let start = Instant::now();
    tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
    stop.store(true, Ordering::Relaxed);
    let elapsed = start.elapsed().as_secs_f64();
    let mut all = Vec::new();
    for t in tasks {
        if let Ok(l) = t.await {
            all.extend(l);
        }
    }
    server.abort();
    all.sort_by(f64::total_cmp);
    Ok((all.len() as f64 / elapsed, percentile(&all, 0.99)))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_servers_memory_is_told_at_the_end_of_each_tenth_of_the_run() {
        // Read each second of a 10 s run; the memory grows for 3 s, then holds.
        let readings: Vec<(f64, u64)> = (1..=10u32).map(|s| (f64::from(s), 100 * u64::from(s.min(3)))).collect();
        let m = ServerMemory::of(&readings, 10.0, 350).expect("readings");
        assert_eq!(m.tenths, [100, 200, 300, 300, 300, 300, 300, 300, 300, 300]);
        assert_eq!(m.peak_bytes, 350);
        // A tenth before any reading tells 0, not a later reading.
        let late = ServerMemory::of(&[(5.0, 7)], 10.0, 7).expect("a reading");
        assert_eq!(late.tenths, [0, 0, 0, 0, 7, 7, 7, 7, 7, 7]);
        assert_eq!(ServerMemory::of(&[], 10.0, 1), None);
    }

    #[test]
    fn the_speed_probe_times_work_that_is_done() {
        // Work that the compiler removed would take no time at all.
        let ms = speed_probe(2_000);
        assert!(ms.is_finite() && ms > 0.0, "{ms}");
    }

    const BEFORE: &str = "croupier_bets_accepted_total 7
croupier_journal_flush_seconds_bucket{le=\"0.001\"} 10
croupier_journal_flush_seconds_bucket{le=\"0.05\"} 12
croupier_journal_flush_seconds_bucket{le=\"0.1\"} 12
croupier_journal_flush_seconds_bucket{le=\"0.3\"} 13
croupier_journal_flush_seconds_bucket{le=\"+Inf\"} 13
croupier_journal_flush_seconds_sum 0.3
croupier_journal_flush_seconds_count 13
";

    #[test]
    fn first_rounds_end_spread_over_one_window_unless_aligned() {
        let ms = |v: Vec<Duration>| v.iter().map(Duration::as_millis).collect::<Vec<_>>();
        assert_eq!(ms(first_windows(4, 1_500, false)), [1_500, 1_875, 2_250, 2_625]);
        assert_eq!(ms(first_windows(4, 1_500, true)), [1_500; 4]);
        assert_eq!(ms(first_windows(1, 1_500, false)), [1_500]);
        assert!(first_windows(0, 1_500, false).is_empty());
    }

    #[test]
    fn a_histogram_is_read_from_its_buckets_only() {
        assert_eq!(
            parse_histogram(BEFORE, "croupier_journal_flush_seconds"),
            [(0.001, 10), (0.05, 12), (0.1, 12), (0.3, 13), (f64::INFINITY, 13)]
        );
        assert!(parse_histogram(BEFORE, "croupier_other_seconds").is_empty());
    }

    #[test]
    fn the_runs_writes_are_the_difference_of_two_readings() {
        let before = parse_histogram(BEFORE, "croupier_journal_flush_seconds");
        // During the run: 100 writes up to 1 ms, 2 between 50 and 100 ms, one between 100 and 300 ms.
        let after = [(0.001, 110), (0.05, 112), (0.1, 114), (0.3, 116), (f64::INFINITY, 116)];
        let run = journal_flushes(&before, &after);
        assert_eq!(
            run,
            JournalFlushes {
                flushes: 103,
                p50_ms_at_most: 1.0,
                p99_ms_at_most: 100.0,
                slowest_ms_over: 100.0,
                // Each counted at its bucket's lower bound: 2 x (50 - 50) + 1 x (100 - 50).
                stalled_ms_at_least: 50.0,
            }
        );
        assert_eq!(journal_flushes(&before, &before), JournalFlushes::default());
    }

    #[test]
    fn slow_acknowledgements_are_told_apart_from_a_run_that_fell_behind() {
        let ack = |at: f64, ms: f64| Ack { at, ms };
        // Three windows: quick, behind (median 80 ms), quick with one slow bet.
        let acks = [
            ack(0.01, 5.0),
            ack(0.05, 6.0),
            ack(0.09, 7.0),
            ack(0.11, 70.0),
            ack(0.15, 80.0),
            ack(0.19, 90.0),
            ack(0.21, 5.0),
            ack(0.25, 120.0),
            ack(0.29, 6.0),
        ];
        let behind = Behind::of(&acks, 0.1, 50.0);
        assert_eq!(behind.windows, 3);
        assert_eq!(behind.windows_behind, 1);
        // Four bets waited over 50 ms; three of them in the window that fell behind.
        assert!((behind.slow_share_in_behind - 0.75).abs() < 1e-12, "{behind:?}");
        // A median exactly at the line is not behind; nothing slow, nothing to share.
        let at_line = Behind::of(&[ack(0.0, 50.0), ack(0.01, 50.0)], 0.1, 50.0);
        assert_eq!(
            (at_line.windows, at_line.windows_behind, at_line.slow_share_in_behind),
            (1, 0, 0.0)
        );
        assert_eq!(Behind::of(&[], 0.1, 50.0), Behind::default());
    }

    #[test]
    fn a_target_is_met_only_on_its_own_side_of_the_line() {
        let met = |t: [Target; 3]| t.map(|t| t.met);
        assert_eq!(met(targets(20_000.0, 49.99, 100.0)), [true, true, true]);
        assert_eq!(met(targets(19_999.9, 50.0, 100.01)), [false, false, false]);
        let [rate, ack, settlement] = targets(21_000.0, 12.5, 40.0);
        assert_eq!(
            (rate.measured, ack.measured, settlement.measured),
            (21_000.0, 12.5, 40.0)
        );
    }

    #[test]
    fn the_disk_is_blamed_for_a_slow_p99_only_past_one_percent_of_the_run() {
        assert!(disk_verdict(0.021).contains("the disk alone kept the p99 over 50 ms"));
        assert!(disk_verdict(0.01).contains("the disk alone does not explain it"));
        assert!(disk_verdict(0.0).contains("the disk alone does not explain it"));
    }

    #[test]
    fn the_runs_processor_time_is_split_into_busy_idle_and_stolen() {
        let stat = |user: u64, idle: u64, steal: u64| {
            format!(
                "cpu  {user} 5 20 {idle} 10 0 5 {steal} 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\ncpu1 1 2 3 4 5 6 7 8 0 0\nintr 1 2\n"
            )
        };
        let mut before = machine_ticks(&stat(100, 300, 50)).expect("a cpu line");
        assert_eq!(
            (before.cores, before.busy, before.idle, before.steal),
            (2, 130, 310, 50)
        );
        let mut after = machine_ticks(&stat(250, 320, 80)).expect("a cpu line");
        // 200 ticks on 2 cores: 150 busy, 20 idle, 30 stolen; the server ran 120, the generator 20.
        before.server = 1_000;
        after.server = 1_120;
        before.generator = 40;
        after.generator = 60;
        let shares = before.shares(&after).expect("shares");
        assert_eq!(
            shares,
            CpuShares {
                cores: 2,
                busy: 0.75,
                idle: 0.1,
                steal: 0.15,
                server_cores: 1.2,
                generator_cores: 0.2,
            }
        );
        assert!(after.shares(&before).is_none(), "time does not run backwards");
        assert!(before.shares(&before).is_none(), "no time, no shares");
        assert!(machine_ticks("intr 1 2\n").is_none());
    }

    #[test]
    fn a_process_time_is_read_after_its_name_whatever_the_name_holds() {
        let stat = "4242 (tokio (rt) x) S 1 4242 4242 0 -1 4194560 900 0 0 0 1234 56 0 0 20 0 8 0 100 0 0";
        assert_eq!(process_ticks(stat), Some(1290));
        assert_eq!(process_ticks("4242 (short) S 1"), None);
        let mine = std::fs::read_to_string("/proc/self/stat").ok();
        assert!(
            mine.is_none_or(|t| process_ticks(&t).is_some()),
            "this process's own stat reads"
        );
    }

    #[test]
    fn the_bare_loop_times_its_flushes_and_leaves_nothing_behind() {
        let dir = std::env::temp_dir().join(format!("croupier-bare-flush-{}", wire::unique_suffix()));
        std::fs::create_dir_all(&dir).expect("dir");
        let probe = bare_flushes(&dir, 0.2).expect("probe");
        assert!(probe.seconds >= 0.2 && probe.flushes_per_second > 0.0, "{probe:?}");
        assert!(probe.p99_ms <= probe.max_ms && probe.stalled_ms >= 0.0, "{probe:?}");
        assert_eq!(
            std::fs::read_dir(&dir).expect("dir").count(),
            0,
            "the probe file is gone"
        );
        std::fs::remove_dir(&dir).expect("empty dir");
    }
}
