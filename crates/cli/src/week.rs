//! `croupier bench week`: a casino's week in minutes, to show that what the
//! server holds does not grow with its past. The server's own runtime (its
//! writers, the journal in SQLite with its checkpoints and segments, the
//! recall archive) is opened on a fresh data directory as `serve` opens one,
//! but on a clock the bench moves: every table plays a round each
//! 3600/`rounds_per_hour` s of the simulated day for `hours_a_day` hours, its
//! players each betting once a round, and the clock then goes on to the next
//! gaming day's opening. After each gaming day it reads the process's
//! resident memory and the journal's files. No sockets: `bench load`
//! measures those (and the sessions); this measures what grows with time.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use croupier_core::Minor;
use croupier_ledger::segments::{DAY_MS, SEGMENTS_DIR};
use croupier_server::api::{OutcomeSource, Role};
use croupier_server::casino::{Actor, Request};
use croupier_server::runtime::{setup, Clock, Floor, SimClock, Unseen};
use serde::Serialize;

use crate::{wire, Failure, Format, Invalid};

#[derive(clap::Args)]
pub struct WeekArgs {
    /// Gaming days to play.
    #[arg(long, default_value_t = 7)]
    days: u64,
    #[arg(long, default_value_t = 4)]
    tables: usize,
    /// Players at each table, each betting once a round.
    #[arg(long, default_value_t = 20)]
    players_per_table: usize,
    /// Rounds each table plays an hour of simulated time.
    #[arg(long, default_value_t = 200)]
    rounds_per_hour: u64,
    /// Hours each gaming day the tables play.
    #[arg(long, default_value_t = 20)]
    hours_a_day: u64,
    /// Keep the data directory here (it must not exist) rather than in a temporary folder.
    #[arg(long, value_name = "DIR")]
    keep_data: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// The week's first gaming day: Monday 2026-01-05 (UTC), in days since 1970.
const FIRST_DAY: u64 = 20_458;
/// The tables open at 02:00 of each gaming day (UTC).
const OPENING_MS: u64 = 2 * 3_600_000;

#[derive(Serialize)]
struct Day {
    day: u64,
    rounds: u64,
    bets: u64,
    /// Wall-clock seconds the day took to play.
    seconds: f64,
    resident_bytes: u64,
    /// The process's high-water mark of resident memory so far.
    peak_bytes: u64,
    /// The live journal: its database and its log.
    live_journal_bytes: u64,
    segments: usize,
    segments_bytes: u64,
    /// The recall archive (`recall.db` and its log): it keeps every round, so it grows with the history.
    recall_bytes: u64,
}

#[derive(Serialize)]
struct WeekReport {
    days_played: u64,
    tables: usize,
    players: usize,
    rounds_per_hour: u64,
    hours_a_day: u64,
    /// Resident memory once the casino is set up, before the first round.
    resident_at_start_bytes: u64,
    days: Vec<Day>,
}

fn fail(e: impl std::fmt::Display) -> Failure {
    anyhow::anyhow!("{e}").into()
}

fn resident() -> (u64, u64) {
    let me = std::process::id();
    (
        crate::history::memory_bytes(me, "VmRSS:").unwrap_or(0),
        crate::history::memory_bytes(me, "VmHWM:").unwrap_or(0),
    )
}

fn file_bytes(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// A database's bytes with its log's.
fn database_bytes(data: &Path, file: &str) -> u64 {
    file_bytes(&data.join(file)) + file_bytes(&data.join(format!("{file}-wal")))
}

/// The live journal's bytes, and the segments' count and bytes.
fn journal_files(data: &Path) -> (u64, usize, u64) {
    let live = database_bytes(data, croupier_ledger::storage::DATABASE_FILE);
    let segments: Vec<PathBuf> = std::fs::read_dir(data.join(SEGMENTS_DIR))
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    let segments: Vec<&PathBuf> = segments
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x == "db"))
        .collect();
    (live, segments.len(), segments.iter().map(|p| file_bytes(p)).sum())
}

async fn ask(floor: &Floor, who: &Actor, request: Request) -> Result<(), Failure> {
    let shown = format!("{request:?}");
    floor
        .execute(who.clone(), request)
        .await
        .map(|_| ())
        .map_err(|e| fail(format!("{shown}: {}", e.message)))
}

pub fn run(args: WeekArgs) -> Result<(), Failure> {
    if args.days == 0 || args.tables == 0 || args.players_per_table == 0 {
        return Err(Invalid::one("--days, --tables and --players-per-table must be at least 1").into());
    }
    if args.rounds_per_hour == 0 || args.rounds_per_hour > 3_600 {
        return Err(Invalid::one("--rounds-per-hour: from 1 to 3,600 (one a second)").into());
    }
    if args.hours_a_day == 0 || args.hours_a_day > 22 {
        return Err(Invalid::one(
            "--hours-a-day: from 1 to 22 (the tables open at 02:00 and close before the gaming day ends at midnight UTC)",
        )
        .into());
    }
    let kept;
    let (data, _temporary) = match &args.keep_data {
        Some(dir) if dir.exists() => {
            return Err(Invalid::one(format!("--keep-data {}: it exists already", dir.display())).into())
        }
        Some(dir) => (dir.clone(), None),
        None => {
            kept = tempfile::tempdir().map_err(fail)?;
            (kept.path().join("data"), Some(&kept))
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(fail)?;
    let report = runtime.block_on(play(&args, &data))?;
    let mut out = std::io::stdout().lock();
    if matches!(args.format, Format::Json) {
        wire::write_json_line(&mut out, &report)?;
        return Ok(());
    }
    writeln!(
        out,
        "{} gaming days of {} tables, {} players a table, {} rounds an hour for {} hours a day (2-core figures in docs/benchmarks.md); resident memory once set up {:.0} MiB; seconds: the real time a day took",
        report.days_played,
        report.tables,
        args.players_per_table,
        report.rounds_per_hour,
        report.hours_a_day,
        crate::history::mib(report.resident_at_start_bytes)
    )?;
    writeln!(
        out,
        "day  rounds     bets        seconds  resident MiB  peak MiB  live journal MiB  segments  segments MiB  recall archive MiB"
    )?;
    for d in &report.days {
        writeln!(
            out,
            "{:<4} {:<10} {:<11} {:<8.0} {:<13.0} {:<9.0} {:<17.1} {:<9} {:<13.1} {:.1}",
            d.day,
            d.rounds,
            d.bets,
            d.seconds,
            crate::history::mib(d.resident_bytes),
            crate::history::mib(d.peak_bytes),
            crate::history::mib(d.live_journal_bytes),
            d.segments,
            crate::history::mib(d.segments_bytes),
            crate::history::mib(d.recall_bytes)
        )?;
    }
    Ok(())
}

async fn play(args: &WeekArgs, data: &Path) -> Result<WeekReport, Failure> {
    let start_ms = FIRST_DAY * DAY_MS + OPENING_MS;
    let clock = Arc::new(SimClock::at(start_ms));
    let on_clock = clock.clone();
    let keys = croupier_server::runtime::keys::default_dir(data);
    let database = croupier_ledger::Database::Sqlite(data.to_path_buf());
    let opened = tokio::task::block_in_place(|| {
        setup::open_on_clock(
            data,
            &database,
            &keys,
            Arc::new(Unseen),
            croupier_server::runtime::checkpoints::CHECKPOINT_EVERY_ENTRIES,
            &|_| -> Arc<dyn Clock> { on_clock.clone() },
        )
    })
    .map_err(fail)?;
    let floor = opened.floor.clone();
    let admin = Actor::new("admin", Role::Admin, "L-0");
    let pit = Actor::new("pit", Role::PitSupervisor, "L-1");
    let dealer = Actor::new("dealer", Role::Dealer, "L-2");
    for (who, role) in [("pit", Role::PitSupervisor), ("dealer", Role::Dealer)] {
        let request = Request::CreateUser {
            username: who.into(),
            role,
            password_hash: "not-for-signing-in".into(),
            licence: Some(format!("BENCH-{who}")),
        };
        ask(&floor, &admin, request).await?;
    }
    // Maryland ch.1 G(1): a Maryland layout shows the operator's name.
    ask(
        &floor,
        &admin,
        Request::NameOperator {
            name: "Week House".into(),
        },
    )
    .await?;
    let profile_text = croupier_profiles::builtin_text("maryland")
        .unwrap_or_default()
        .to_string();
    let tables: Vec<String> = (0..args.tables).map(|i| format!("week{i}")).collect();
    for t in &tables {
        let create = Request::CreateTable {
            table: t.clone(),
            profile_text: profile_text.clone(),
            wheel: "double-zero".into(),
            in_prison: false,
            betting_window_ms: 600_000,
            outcome: OutcomeSource::Rng,
            shared_colours: true,
            wheel_address: None,
            bonus_text: None,
        };
        ask(&floor, &admin, create).await?;
        let inspect = Request::Inspect {
            table: t.clone(),
            no_magnet_or_contrivance: true,
            wheel_level_and_rotating_freely: true,
            parts_secure: true,
            ball_non_magnetic: true,
            layout_and_signage_comply: true,
        };
        ask(&floor, &pit, inspect).await?;
        let limits = crate::load::bench_limits(&profile_text)?;
        ask(
            &floor,
            &pit,
            Request::SetLimits {
                table: t.clone(),
                limits,
            },
        )
        .await?;
        ask(&floor, &dealer, Request::OpenTable { table: t.clone() }).await?;
    }
    let players: Vec<Vec<Actor>> = tables
        .iter()
        .enumerate()
        .map(|(t, _)| {
            (0..args.players_per_table)
                .map(|p| Actor::new(&format!("p{t}-{p}"), Role::Player, "-"))
                .collect()
        })
        .collect();
    for player in players.iter().flatten() {
        let request = Request::CreateUser {
            username: player.username.clone(),
            role: Role::Player,
            password_hash: "not-for-signing-in".into(),
            licence: None,
        };
        ask(&floor, &admin, request).await?;
        let cash = Request::CashIn {
            id: format!("cash-{}", player.username),
            player: player.username.clone(),
            amount: Minor::new(1_000_000_000),
        };
        ask(&floor, &admin, cash).await?;
    }
    let (resident_at_start_bytes, _) = resident();
    let rounds_a_day = args.rounds_per_hour * args.hours_a_day;
    let round_ms = 3_600_000 / args.rounds_per_hour;
    let (mut rounds, mut bets) = (0u64, 0u64);
    let mut days = Vec::new();
    for day in 0..args.days {
        let began = Instant::now();
        let opening = (FIRST_DAY + day) * DAY_MS + OPENING_MS;
        clock.advance(opening.saturating_sub(clock.now_ms()));
        // Each player buys in at the day's start and leaves at its end:
        // colour chips are a gaming day's (european-casino 5.4).
        each_player(&floor, &tables, &players, |t, p| Request::BuyIn {
            id: format!("buy-{day}-{}", p.username),
            table: t.to_string(),
            amount: Minor::new(10_000_000),
            chip_value: Minor::new(100),
        })
        .await?;
        for slot in 0..rounds_a_day {
            let mut playing = Vec::new();
            for (t, table) in tables.iter().enumerate() {
                let (floor, dealer, table, players) =
                    (floor.clone(), dealer.clone(), table.clone(), players[t].clone());
                playing.push(tokio::spawn(async move {
                    round(&floor, &dealer, &table, &players, &format!("{table}-{day}-{slot}")).await
                }));
            }
            for task in playing {
                task.await.map_err(fail)??;
            }
            rounds += tables.len() as u64;
            bets += (tables.len() * args.players_per_table) as u64;
            clock.advance(round_ms);
        }
        each_player(&floor, &tables, &players, |t, p| Request::LeaveTable {
            id: format!("leave-{day}-{}", p.username),
            table: t.to_string(),
        })
        .await?;
        let (resident_bytes, peak_bytes) = resident();
        let (live_journal_bytes, segments, segments_bytes) = journal_files(data);
        let seconds = began.elapsed().as_secs_f64();
        eprintln!(
            "croupier: gaming day {} of {} played in {seconds:.0} s: {bets} bets so far, resident {:.0} MiB, live journal {:.1} MiB, {segments} segments",
            day + 1,
            args.days,
            crate::history::mib(resident_bytes),
            crate::history::mib(live_journal_bytes)
        );
        days.push(Day {
            day: day + 1,
            rounds,
            bets,
            seconds,
            resident_bytes,
            peak_bytes,
            live_journal_bytes,
            segments,
            segments_bytes,
            recall_bytes: database_bytes(data, croupier_server::runtime::archive::ARCHIVE_FILE),
        });
    }
    drop(floor);
    tokio::task::block_in_place(|| drop(opened));
    Ok(WeekReport {
        days_played: args.days,
        tables: args.tables,
        players: args.tables * args.players_per_table,
        rounds_per_hour: args.rounds_per_hour,
        hours_a_day: args.hours_a_day,
        resident_at_start_bytes,
        days,
    })
}

/// `request` from every player at their table, all at once.
async fn each_player(
    floor: &Floor,
    tables: &[String],
    players: &[Vec<Actor>],
    request: impl Fn(&str, &Actor) -> Request,
) -> Result<(), Failure> {
    let mut asking = Vec::new();
    for (t, table) in tables.iter().enumerate() {
        for player in &players[t] {
            let (floor, player, request) = (floor.clone(), player.clone(), request(table, player));
            asking.push(tokio::spawn(async move { ask(&floor, &player, request).await }));
        }
    }
    for task in asking {
        task.await.map_err(fail)??;
    }
    Ok(())
}

/// One round at `table`: betting opened, each player's bet, no more bets, the RNG's draw.
async fn round(floor: &Floor, dealer: &Actor, table: &str, players: &[Actor], tag: &str) -> Result<(), Failure> {
    const SPOTS: [&str; 8] = ["red", "black", "17", "0-00", "dozen2", "odd", "1-2-3", "25-26-28-29"];
    ask(floor, dealer, Request::OpenBetting { table: table.into() }).await?;
    let mut betting = Vec::new();
    for (i, player) in players.iter().enumerate() {
        let (floor, player) = (floor.clone(), player.clone());
        let request = Request::PlaceBet {
            table: table.into(),
            bet_id: format!("{tag}-{i}"),
            spot: SPOTS[i % SPOTS.len()].into(),
            stake: Minor::new(100),
            zero_choice: None,
            coupon: None,
            coupon_id: None,
        };
        betting.push(tokio::spawn(async move { ask(&floor, &player, request).await }));
    }
    for bet in betting {
        bet.await.map_err(fail)??;
    }
    ask(floor, dealer, Request::NoMoreBets { table: table.into() }).await?;
    floor
        .draw(dealer.clone(), table)
        .await
        .map(|_| ())
        .map_err(|e| fail(format!("the draw at {table}: {}", e.message)))
}
