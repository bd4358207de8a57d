//! The run itself: the bench's casino set up, its dealers and terminals
//! started together and stopped after the duration, and what they measured
//! gathered with the machine's limits beside it.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::task::JoinHandle;

use super::acks::{percentile, Ack, Acks, Behind, Refused, ACK_WINDOW_SECONDS};
use super::disk::{bare_flushes, journal_flushes, journal_histogram, BareFlushes, JournalFlushes};
use super::echo::echo;
use super::http::{login, Conn};
use super::machine::{resident_until, speed_now, CpuReading, CpuShares, ProcessorSpeed, ServerMemory};
use super::report::Report;
use super::rounds::{first_windows, settlement_times, Asked, Dealer, Settlements};
use super::setup::{data_dir, set_up, start_server};
use super::targets::{targets, ACK_TARGET_MS};
use super::terminals::{listen, Socket, Terminal};
use super::{io, LoadArgs, ADMIN_PASSWORD, STAFF_PASSWORD};
use crate::Failure;

/// The whole run, from the bench server's start to the report.
pub(super) async fn drive(args: &LoadArgs) -> Result<Report, Failure> {
    // Before anything else runs: the machine's speed with nothing of the bench on it.
    let speed_before = speed_now().await?;
    let data = data_dir(args)?;
    let mut server = start_server(args, &data).await?;
    let address = server.address;
    eprintln!(
        "croupier: bench server on {address}; setting up {} terminals",
        args.terminals
    );
    let mut floor = set_up(args, address, &server.password).await?;
    // Every terminal listens to its table; when each round's result and its
    // settlement reach it is noted.
    let settled_at: Settlements = Arc::new(Mutex::new(Vec::new()));
    let (listeners, sockets) = listen(args.via, address, &floor.terminals, &floor.tables, &settled_at).await?;
    let flushed_before = journal_histogram(address, &floor.admin_token).await?;
    eprintln!("croupier: measuring for {:.1} s", args.duration);
    let server_pid = server.child.id();
    let cpu_before = CpuReading::now(server_pid);
    let shared = Shared::from_now(settled_at);
    let dealers = start_dealers(args, address, &floor.tables, &shared).await?;
    let terminals = std::mem::take(&mut floor.terminals);
    let players = start_players(args.rate, terminals, sockets, &floor.tables, &shared);
    // The server's memory, once a second, until the run's end.
    let resident = resident_until(server_pid, shared.start, args.duration).await;
    shared.stop.store(true, Ordering::Relaxed);
    let seconds = shared.start.elapsed().as_secs_f64();
    let server_memory = server_pid
        .and_then(|pid| crate::history::memory_bytes(pid, "VmHWM:"))
        .and_then(|peak| ServerMemory::of(&resident, seconds, peak));
    let cpu = cpu_before
        .zip(CpuReading::now(server_pid))
        .and_then(|(before, after)| before.shares(&after));
    // Signed in again: a session idle for 30 minutes has ended (a run of an hour).
    let (_, admin_token) = login(address, "admin", ADMIN_PASSWORD).await?;
    let journal = journal_flushes(&flushed_before, &journal_histogram(address, &admin_token).await?);
    wind_down(players, dealers, listeners).await;
    let answers = Answers::of(&shared);
    let _ = server.child.kill().await;
    let limits = limits(args, &data, speed_before).await?;
    if args.keep_data.is_none() {
        let _ = std::fs::remove_dir_all(&data);
        let _ = std::fs::remove_dir_all(croupier_server::runtime::keys::default_dir(&data));
    }
    Ok(report(args, seconds, answers, limits, journal, cpu, server_memory))
}

/// What the dealers and terminals share: when the run started, the signal
/// to stop, and what they count.
struct Shared {
    start: Instant,
    stop: Arc<AtomicBool>,
    accepted: Arc<AtomicU64>,
    refused: Arc<Refused>,
    latencies: Acks,
    results: Arc<Mutex<Vec<Asked>>>,
    settled_at: Settlements,
}

impl Shared {
    /// A run starting now.
    fn from_now(settled_at: Settlements) -> Shared {
        Shared {
            start: Instant::now(),
            stop: Arc::new(AtomicBool::new(false)),
            accepted: Arc::new(AtomicU64::new(0)),
            refused: Arc::new(Refused::default()),
            latencies: Arc::new(Mutex::new(Vec::new())),
            results: Arc::new(Mutex::new(Vec::new())),
            settled_at,
        }
    }
}

/// Signs in a dealer for each table and starts its rounds.
async fn start_dealers(
    args: &LoadArgs,
    address: SocketAddr,
    tables: &[String],
    shared: &Shared,
) -> Result<Vec<JoinHandle<()>>, Failure> {
    let mut dealers = Vec::new();
    let firsts = first_windows(tables.len(), args.window_ms, args.aligned);
    for (table, first) in tables.iter().cloned().zip(firsts) {
        let (conn, token) = login(address, "dealer", STAFF_PASSWORD).await?;
        let dealer = Dealer {
            conn,
            token,
            table,
            first,
            window_ms: args.window_ms,
            stop: shared.stop.clone(),
            results: shared.results.clone(),
        };
        dealers.push(tokio::spawn(dealer.run()));
    }
    Ok(dealers)
}

/// Starts every terminal betting at its table: over its socket where it
/// holds one, or else as HTTP requests.
fn start_players(
    rate: Option<f64>,
    terminals: Vec<(usize, Conn, String)>,
    sockets: Vec<Socket>,
    tables: &[String],
    shared: &Shared,
) -> Vec<JoinHandle<()>> {
    let mut players = Vec::new();
    let count = terminals.len();
    let mut sockets = sockets.into_iter();
    // Open loop: each terminal's share of the rate, its first bet staggered over one interval.
    let interval = rate.map(|rate| Duration::from_secs_f64(count as f64 / rate));
    for (i, conn, token) in terminals {
        let terminal = Terminal {
            i,
            count,
            table: tables[i % tables.len()].clone(),
            interval,
            stop: shared.stop.clone(),
            accepted: shared.accepted.clone(),
            refused: shared.refused.clone(),
            latencies: shared.latencies.clone(),
            start: shared.start,
            settled_at: shared.settled_at.clone(),
        };
        players.push(match sockets.next() {
            Some(ws) => tokio::spawn(terminal.over_socket(ws)),
            None => tokio::spawn(terminal.over_http(conn, token)),
        });
    }
    players
}

/// Waits for the terminals' last answers and the dealers' last rounds,
/// then stops listening.
async fn wind_down(players: Vec<JoinHandle<()>>, dealers: Vec<JoinHandle<()>>, listeners: Vec<JoinHandle<()>>) {
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
}

/// What the run's bets and rounds came to, once its tasks have stopped.
struct Answers {
    /// Every acknowledgement's time, in milliseconds, sorted.
    ack: Vec<f64>,
    behind: Behind,
    fanout: Vec<f64>,
    whole: Vec<f64>,
    bets: u64,
    refused_closed: u64,
    refused_other: u64,
}

impl Answers {
    fn of(shared: &Shared) -> Answers {
        let acks: Vec<Ack> = shared.latencies.lock().map(|l| l.clone()).unwrap_or_default();
        let behind = Behind::of(&acks, ACK_WINDOW_SECONDS, ACK_TARGET_MS);
        let mut ack: Vec<f64> = acks.iter().map(|a| a.ms).collect();
        ack.sort_by(f64::total_cmp);
        let results = shared.results.lock().map(|r| r.clone()).unwrap_or_default();
        let settled = shared.settled_at.lock().map(|s| s.clone()).unwrap_or_default();
        let (fanout, whole) = settlement_times(&results, &settled);
        let bets = shared.accepted.load(Ordering::Relaxed);
        let (refused_closed, refused_other) = (
            shared.refused.betting_closed.load(Ordering::Relaxed),
            shared.refused.other.load(Ordering::Relaxed),
        );
        Answers {
            ack,
            behind,
            fanout,
            whole,
            bets,
            refused_closed,
            refused_other,
        }
    }
}

/// The bare limits, measured after the run on the same machine and disk.
struct Limits {
    echo_rate: f64,
    echo_p99: f64,
    bare_flush: BareFlushes,
    processor: ProcessorSpeed,
}

/// The limits, the server stopped; the machine's speed now beside `speed_before`.
async fn limits(args: &LoadArgs, data: &Path, speed_before: f64) -> Result<Limits, Failure> {
    let (echo_rate, echo_p99) = echo(args.terminals, args.duration.min(5.0)).await?;
    let probe_dir = data.to_path_buf();
    let probe_seconds = args.duration.min(10.0);
    let bare_flush = tokio::task::spawn_blocking(move || bare_flushes(&probe_dir, probe_seconds))
        .await
        .map_err(io)?
        .map_err(io)?;
    let processor = ProcessorSpeed {
        before_ms: speed_before,
        after_ms: speed_now().await?,
    };
    Ok(Limits {
        echo_rate,
        echo_p99,
        bare_flush,
        processor,
    })
}

/// The report of the run.
fn report(
    args: &LoadArgs,
    seconds: f64,
    answers: Answers,
    limits: Limits,
    journal: JournalFlushes,
    cpu: Option<CpuShares>,
    server_memory: Option<ServerMemory>,
) -> Report {
    let Answers {
        ack,
        behind,
        fanout,
        whole,
        bets,
        refused_closed,
        refused_other,
    } = answers;
    let Limits {
        echo_rate,
        echo_p99,
        bare_flush,
        processor,
    } = limits;
    Report {
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
    }
}
