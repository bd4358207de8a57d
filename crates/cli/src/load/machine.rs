//! The machine under the run: how fast one of its cores was before and
//! after, where its processor time went, and the server's resident memory.

use std::time::{Duration, Instant};

use serde::Serialize;

use super::io;
use crate::Failure;

/// The server's resident memory, read once a second over the run.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub(super) struct ServerMemory {
    /// Resident at the end of each tenth of the run, in bytes.
    pub(super) tenths: Vec<u64>,
    /// Its high-water mark at the end. The server's allocator keeps what it
    /// frees for reuse, so resident memory is close to this mark.
    pub(super) peak_bytes: u64,
}

impl ServerMemory {
    /// From `(seconds into the run, resident bytes)` readings and the peak.
    pub(super) fn of(readings: &[(f64, u64)], seconds: f64, peak_bytes: u64) -> Option<ServerMemory> {
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

/// The server's resident memory, read once a second from `start` until
/// `seconds` have passed: `(seconds into the run, bytes)`.
pub(super) async fn resident_until(server_pid: Option<u32>, start: Instant, seconds: f64) -> Vec<(f64, u64)> {
    let mut resident = Vec::new();
    let end = start + Duration::from_secs_f64(seconds);
    while Instant::now() < end {
        tokio::time::sleep(Duration::from_secs(1).min(end.saturating_duration_since(Instant::now()))).await;
        if let Some(bytes) = server_pid.and_then(|pid| crate::history::memory_bytes(pid, "VmRSS:")) {
            resident.push((start.elapsed().as_secs_f64(), bytes));
        }
    }
    resident
}

/// A shared machine's speed varies from minute to minute; two runs' figures
/// mean little side by side without it. The bench times a fixed piece of the
/// server's kind of work on one thread (`SPEED_PROBE_BETS` bets written as
/// JSON and read back) before it starts the server and again after the run:
/// the same work, so a larger figure means a slower machine at that time.
#[derive(Serialize, Debug, Clone, Copy)]
pub(super) struct ProcessorSpeed {
    pub(super) before_ms: f64,
    pub(super) after_ms: f64,
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
pub(super) fn speed_probe(bets: usize) -> f64 {
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

/// [`speed_probe`] of `SPEED_PROBE_BETS` bets, off the runtime's threads.
pub(super) async fn speed_now() -> Result<f64, Failure> {
    tokio::task::spawn_blocking(|| speed_probe(SPEED_PROBE_BETS))
        .await
        .map_err(io)
}

/// Where the machine's processor time went during the run, from Linux's
/// `/proc`: a virtual machine's host may take some of it (steal), which no
/// other figure of the run shows and which can slow every one of them.
#[derive(Serialize, Debug, PartialEq)]
pub(super) struct CpuShares {
    pub(super) cores: usize,
    /// Shares of all the cores' time: running anything, idle (waiting for
    /// the disk included), and taken by the host.
    pub(super) busy: f64,
    pub(super) idle: f64,
    pub(super) steal: f64,
    /// Cores' worth of time the server and this load generator took.
    pub(super) server_cores: f64,
    pub(super) generator_cores: f64,
}

/// One reading of the processor's time, in the kernel's clock ticks.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct CpuReading {
    pub(super) cores: usize,
    pub(super) busy: u64,
    pub(super) idle: u64,
    pub(super) steal: u64,
    pub(super) server: u64,
    pub(super) generator: u64,
}

impl CpuReading {
    /// Reads `/proc`, or `None` where there is none (not Linux).
    pub(super) fn now(server: Option<u32>) -> Option<CpuReading> {
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
    pub(super) fn shares(&self, later: &CpuReading) -> Option<CpuShares> {
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
pub(super) fn machine_ticks(stat: &str) -> Option<CpuReading> {
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
pub(super) fn process_ticks(stat: &str) -> Option<u64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    let mut fields = after_name.split_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some(user + system)
}
