//! `croupier bench history --data DIR`: what a casino's history costs it.
//! On a data directory holding a journal (one `bench load --keep-data`
//! wrote, or a copy of a casino's), it measures the bytes a bet takes on
//! disk, how long `croupier serve` takes to answer `/healthz` on it and its
//! peak memory until then, and `croupier verify`'s time and peak memory.
//! Each runs as a process of its own, as an operator would run it; peak
//! memory is the kernel's high-water mark (`VmHWM`), read as it runs.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::{wire, Failure, Format, Invalid};

#[derive(clap::Args)]
pub struct HistoryArgs {
    /// A data directory with a journal. `serve` writes to it as it opens (it
    /// voids the rounds left open): measure a copy of a casino's.
    #[arg(long)]
    data: PathBuf,
    /// Where its secret is (DATA-keys by default).
    #[arg(long)]
    keys: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Serialize)]
struct HistoryReport {
    entries: u64,
    bets: u64,
    /// The data directory's files: the journal, its log, its segments, the
    /// recall archive, the sessions (not the checkpoints' folder).
    disk_bytes: u64,
    disk_bytes_per_bet: f64,
    /// The journal alone: its database, its segments and its log (the log is kept at the
    /// size of its busiest interval, reused, not grown).
    journal_bytes: u64,
    journal_bytes_per_bet: f64,
    journal_log_bytes: u64,
    start_seconds: f64,
    start_peak_bytes: u64,
    verify_seconds: f64,
    verify_peak_bytes: u64,
    verified: bool,
    /// The newest checkpoint as the start left it (`None`: there is none):
    /// its size, and how long reading it back into a casino takes.
    checkpoint_bytes: Option<u64>,
    checkpoint_read_seconds: Option<f64>,
    /// `verify --from-checkpoint`: from the newest checkpoint on.
    verify_from_checkpoint_seconds: Option<f64>,
    verify_from_checkpoint_peak_bytes: Option<u64>,
}

/// How often a process's memory is read while it runs.
const SAMPLE_EVERY: Duration = Duration::from_millis(20);
/// The longest a start or a verify is waited for.
const PATIENCE: Duration = Duration::from_secs(3_600);

fn io(e: impl std::fmt::Display) -> Failure {
    anyhow::anyhow!("{e}").into()
}

/// The process's high-water mark of resident memory, in bytes.
fn peak_bytes(pid: u32) -> Option<u64> {
    memory_bytes(pid, "VmHWM:")
}

/// Bytes in MiB.
pub(crate) fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// A process's memory as `/proc/PID/status` gives it under `field`
/// (`VmRSS:` resident now, `VmHWM:` its high-water mark), in bytes.
pub(crate) fn memory_bytes(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix(field))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}

/// The sizes of the files directly in `dir`.
fn disk_bytes(dir: &Path) -> Result<u64, Failure> {
    let mut total = 0;
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let meta = entry.map_err(io)?.metadata().map_err(io)?;
        if meta.is_file() {
            total += meta.len();
        }
    }
    Ok(total)
}

/// The journal's own files, their sizes together and the log's alone: its
/// database, the database's log, and the gaming days' segments.
fn journal_bytes(dir: &Path) -> Result<(u64, u64), Failure> {
    let database = croupier_ledger::storage::DATABASE_FILE;
    let size = |name: String| std::fs::metadata(dir.join(name)).map_or(0, |meta| meta.len());
    let log = size(format!("{database}-wal"));
    let segments = dir.join(croupier_ledger::segments::SEGMENTS_DIR);
    let segments = if segments.is_dir() { disk_bytes(&segments)? } else { 0 };
    Ok((size(database.to_string()) + log + segments, log))
}

/// The journal's entries, and its bets (each `bet_accepted` event).
fn count(data: &Path) -> Result<(u64, u64), Failure> {
    crate::journal_at(data)?;
    let storage = croupier_ledger::SqliteStorage::open_read_only(data).map_err(io)?;
    // Records are stored compressed: each is read back as its text.
    let (mut entries, mut bets) = (0u64, 0u64);
    storage
        .each_text(0, u64::MAX, &mut |_, text| {
            entries += 1;
            bets += text.matches("\"bet_accepted\"").count() as u64;
            true
        })
        .map_err(io)?;
    Ok((entries, bets))
}

/// Whether `/healthz` answers on `address` (any answer: the server is up).
fn answers(address: &str) -> bool {
    let Ok(mut stream) = std::net::TcpStream::connect(address) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    if stream
        .write_all(format!("GET /healthz HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n").as_bytes())
        .is_err()
    {
        return false;
    }
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).is_ok() && head.starts_with(b"HTTP/1.1 200")
}

/// Runs `child` until `done` says so or it exits, reading its peak memory as it goes.
fn watch(child: &mut Child, mut done: impl FnMut() -> bool) -> Result<(Duration, u64, bool), Failure> {
    let began = Instant::now();
    let mut peak = 0;
    loop {
        peak = peak.max(peak_bytes(child.id()).unwrap_or(0));
        if done() {
            let took = began.elapsed();
            // What it took to get there counts in full.
            peak = peak.max(peak_bytes(child.id()).unwrap_or(0));
            return Ok((took, peak, true));
        }
        if let Some(status) = child.try_wait().map_err(io)? {
            return Ok((began.elapsed(), peak, status.success()));
        }
        if began.elapsed() > PATIENCE {
            let _ = child.kill();
            return Err(io("gave up waiting after an hour"));
        }
        std::thread::sleep(SAMPLE_EVERY);
    }
}

pub fn run(args: HistoryArgs) -> Result<(), Failure> {
    let (entries, bets) = count(&args.data)?;
    if bets == 0 {
        return Err(Invalid::one(format!("{} holds no bets to measure", args.data.display())).into());
    }
    let (journal, journal_log) = journal_bytes(&args.data)?;
    let segments = args.data.join(croupier_ledger::segments::SEGMENTS_DIR);
    let disk = disk_bytes(&args.data)? + if segments.is_dir() { disk_bytes(&segments)? } else { 0 };
    let exe = std::env::current_exe().map_err(io)?;
    let keys = args
        .keys
        .clone()
        .unwrap_or_else(|| croupier_server::runtime::keys::default_dir(&args.data));
    // The start: until /healthz answers 200.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(io)?
        .port();
    let address = format!("127.0.0.1:{port}");
    // `croupier COMMAND...` on the history, as a process of its own.
    let on_history = |command: &[&str]| {
        Command::new(&exe)
            .args(command)
            .arg("--data")
            .arg(&args.data)
            .arg("--keys")
            .arg(&keys)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(io)
    };
    let mut serve = on_history(&["serve", "--listen", &address])?;
    let started = watch(&mut serve, || answers(&address));
    let _ = serve.kill();
    let _ = serve.wait();
    let (start, start_peak, up) = started?;
    if !up {
        return Err(io(format!("croupier serve did not start on {}", args.data.display())));
    }
    // The verify, of the journal as the start left it.
    let mut verify = on_history(&["verify", "--format", "json"])?;
    let (verify_took, verify_peak, verified) = watch(&mut verify, || false)?;
    // The newest checkpoint, read back here; and the check from it.
    let store = croupier_server::runtime::checkpoints::Store::of(&args.data);
    let newest = store.list().first().map(|t| store.read(*t)).transpose().map_err(io)?;
    let read_back = match &newest {
        Some(c) => {
            let began = Instant::now();
            croupier_server::casino::Replayer::resumed(c, None).map_err(io)?;
            Some(began.elapsed().as_secs_f64())
        }
        None => None,
    };
    let from_checkpoint = match &newest {
        Some(_) => {
            let mut verify = on_history(&["verify", "--from-checkpoint", "--format", "json"])?;
            let (took, peak, _) = watch(&mut verify, || false)?;
            Some((took.as_secs_f64(), peak))
        }
        None => None,
    };
    let report = HistoryReport {
        entries,
        bets,
        disk_bytes: disk,
        disk_bytes_per_bet: disk as f64 / bets as f64,
        journal_bytes: journal,
        journal_bytes_per_bet: journal as f64 / bets as f64,
        journal_log_bytes: journal_log,
        start_seconds: start.as_secs_f64(),
        start_peak_bytes: start_peak,
        verify_seconds: verify_took.as_secs_f64(),
        verify_peak_bytes: verify_peak,
        verified,
        checkpoint_bytes: newest.as_ref().map(|c| c.bytes.len() as u64),
        checkpoint_read_seconds: read_back,
        verify_from_checkpoint_seconds: from_checkpoint.map(|f| f.0),
        verify_from_checkpoint_peak_bytes: from_checkpoint.map(|f| f.1),
    };
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Json => wire::write_json_line(&mut out, &report)?,
        Format::Text => {
            writeln!(
                out,
                "{} bets in {} entries; the journal {:.0} MiB: {:.0} bytes a bet (its log {:.0} MiB of it); \
                 the data directory's files, the checkpoints' folder aside, {:.0} MiB: {:.0} bytes a bet",
                report.bets,
                report.entries,
                mib(report.journal_bytes),
                report.journal_bytes_per_bet,
                mib(report.journal_log_bytes),
                mib(report.disk_bytes),
                report.disk_bytes_per_bet
            )?;
            writeln!(
                out,
                "start until /healthz answers: {:.1} s, peak memory {:.0} MiB",
                report.start_seconds,
                mib(report.start_peak_bytes)
            )?;
            writeln!(
                out,
                "verify: {:.1} s, peak memory {:.0} MiB, {}",
                report.verify_seconds,
                mib(report.verify_peak_bytes),
                if report.verified { "verified" } else { "NOT VERIFIED" }
            )?;
            if let (Some(bytes), Some(read)) = (report.checkpoint_bytes, report.checkpoint_read_seconds) {
                writeln!(
                    out,
                    "newest checkpoint: {:.0} MiB ({:.0} bytes a bet), read back in {read:.1} s",
                    mib(bytes),
                    bytes as f64 / report.bets as f64
                )?;
            }
            if let (Some(took), Some(peak)) = (
                report.verify_from_checkpoint_seconds,
                report.verify_from_checkpoint_peak_bytes,
            ) {
                writeln!(
                    out,
                    "verify --from-checkpoint: {took:.1} s, peak memory {:.0} MiB",
                    mib(peak)
                )?;
            }
        }
    }
    if !report.verified {
        return Err(io("croupier verify did not pass on the history"));
    }
    Ok(())
}
