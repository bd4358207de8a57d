//! The croupier command.

mod bench;
mod entries_cmd;
mod history;
mod load;
mod math_cmd;
mod memory;
mod monitor_bench;
mod recover_cmd;
mod rng_cmd;
mod rules_cmd;
mod settle_cmd;
mod sim_cmd;
mod tournament_cmd;
mod tournament_forms;
mod user_cmd;
mod verify_checkpoints;
mod verify_cmd;
mod verify_seal;
mod week;
mod wheel_cmd;
mod wire;

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

/// croupier: a regulation-grade roulette table system.
#[derive(Parser)]
#[command(name = "croupier", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Settle bets read as JSON lines on stdin against consecutive spins.
    Settle(settle_cmd::Args),
    /// Exact house edge, hit frequency and variance of every bet a profile offers.
    Math(math_cmd::Args),
    /// List the profiles shipped with croupier.
    Profiles {
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Print the house rules a casino must post for a profile (Colorado 2208).
    Rules(rules_cmd::Args),
    /// Tournaments: check a configuration, print its written rules (Colorado 2213).
    Tournament {
        #[command(subcommand)]
        which: tournament_cmd::Which,
    },
    /// Benchmarks of the engine.
    Bench {
        #[command(subcommand)]
        which: bench::Which,
    },
    /// The outcome generator: pockets, raw output, the test battery, provably fair play.
    Rng {
        #[command(subcommand)]
        which: rng_cmd::Which,
    },
    /// Check a revealed provably fair server seed against its commitment and outcomes.
    VerifyFair(rng_cmd::VerifyArgs),
    /// Automated wheels: an emulator and a monitor for the SlingShot 2 format.
    Wheel {
        #[command(subcommand)]
        which: wheel_cmd::Which,
    },
    /// Monte Carlo simulation of a flat bet or a betting strategy, on every core.
    Sim(Box<sim_cmd::Args>),
    /// Check a data directory's journal: the hash chain, and every balance recomputed.
    Verify(verify_cmd::Args),
    /// Cut a damaged end off a stopped server's journal, journaling the cut.
    Recover(recover_cmd::Args),
    /// Print a journal's entries as JSON lines, each record as its hash covers it.
    Entries(entries_cmd::Args),
    /// Users of a data directory, while its server is stopped.
    User {
        #[command(subcommand)]
        which: user_cmd::Which,
    },
    /// Run the table server: its journal in SQLite in the data directory, or on PostgreSQL (--database).
    Serve {
        /// Where the journal lives (created on the first run).
        #[arg(long, default_value = "croupier-data")]
        data: std::path::PathBuf,
        /// Where the secret that seals the journal and the sessions lives
        /// (made on a first run): outside the data directory, by default DATA-keys.
        #[arg(long)]
        keys: Option<std::path::PathBuf>,
        #[arg(long, default_value = "127.0.0.1:8080")]
        listen: String,
        /// Also serve /metrics with no session asked on this address (for a
        /// scraper on the casino's own network); on --listen only an admin or
        /// an auditor reads them.
        #[arg(long)]
        metrics_listen: Option<std::net::SocketAddr>,
        /// Connections (table streams included) the server holds at once.
        #[arg(long, default_value_t = 16_384)]
        connections_max: usize,
        /// Connections one client address holds at once: as many as the terminals behind one address.
        #[arg(long, default_value_t = 4_096)]
        connections_per_client: usize,
        /// How long a client has to send a request's headers, in milliseconds.
        #[arg(long, default_value_t = 10_000)]
        header_read_timeout_ms: u64,
        /// Sign-ins one client address may try a minute: raise it for many terminals behind one address.
        #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u32).range(1..))]
        sign_ins_per_client_per_minute: u32,
        /// A session unused this many seconds is over (30 minutes by default).
        #[arg(long, default_value_t = 1_800, value_parser = clap::value_parser!(u64).range(5..=24 * 3_600))]
        session_idle_seconds: u64,
        /// A session this many hours old is over, however busy.
        #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u64).range(1..=7 * 24))]
        session_hours: u64,
        /// Sessions one user holds at once; signing in once more ends their oldest.
        #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=1_000))]
        sessions_per_user: u64,
        /// A checkpoint of the casino's state is written once this many journal
        /// entries follow the last one (1 to 100,000,000; looked at once a second,
        /// so a burst may pass it): a start replays about this many.
        #[arg(long, default_value_t = croupier_server::runtime::checkpoints::CHECKPOINT_EVERY_ENTRIES,
              value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
        checkpoint_every: u64,
        /// The journal on a PostgreSQL server, shared by several nodes
        /// (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE), rather than SQLite in
        /// --data. One node holds the casino at a time, through a lease in the
        /// database; a node started while another holds it waits, and takes the
        /// casino over when that one stops or dies. Each node keeps its own
        /// --data (recall archive, sessions; checkpoints are kept in the database) and
        /// the same secret (--keys).
        /// Give it in CROUPIER_DATABASE to keep a password off the process list.
        #[arg(long, env = "CROUPIER_DATABASE", hide_env_values = true)]
        database: Option<String>,
        /// On PostgreSQL: how old this node's lease may grow, by the database
        /// server's clock, before a standby ends its connection and takes the
        /// casino over (it renews it every second). A holder the database has not
        /// answered for half of it stops writing, fails /healthz and stops.
        #[arg(long, default_value_t = croupier_ledger::pg::LEASE_TIMEOUT_MS,
              value_parser = clap::value_parser!(u64).range(croupier_ledger::pg::LEASE_TIMEOUT_MS_MIN..=croupier_ledger::pg::LEASE_TIMEOUT_MS_MAX))]
        lease_timeout_ms: u64,
    },
}

/// Input the user must correct: reported on stderr, exit status 2.
#[derive(Debug)]
pub struct Invalid(pub Vec<String>);

/// Refuses a data directory with no journal in it, naming the file looked for.
pub fn journal_at(data: &std::path::Path) -> Result<(), Invalid> {
    not_a_postgres_node(data)?;
    let db = data.join(croupier_ledger::storage::DATABASE_FILE);
    match db.is_file() {
        true => Ok(()),
        false => Err(Invalid::one(format!("no journal at {}", db.display()))),
    }
}

/// Has `storage` look for its segments' files in `folders` too (after the
/// data directory's own `segments`): where an operator archived them.
pub fn read_segments_from(
    storage: &mut croupier_ledger::Opened,
    folders: &[std::path::PathBuf],
) -> Result<(), Invalid> {
    for folder in folders {
        if !folder.is_dir() {
            return Err(Invalid::one(format!("--segments {}: no such folder", folder.display())));
        }
        match storage.sqlite() {
            Some(s) => s.read_segments_from(folder.clone()),
            None => {
                return Err(Invalid::one(
                    "--segments: a journal on PostgreSQL is one table, without segments",
                ))
            }
        }
    }
    Ok(())
}

/// A node's data directory of a casino whose journal is on PostgreSQL has
/// no journal of its own: a command that works on one in SQLite says so,
/// and makes none there.
pub fn not_a_postgres_node(data: &std::path::Path) -> Result<(), Invalid> {
    match croupier_server::runtime::setup::journal_elsewhere(data) {
        Some(url) => Err(Invalid::one(format!(
            "{} is a node's data directory of a casino whose journal is on PostgreSQL ({url}): give --database to \
             verify or print the journal; add users and reset passwords from the admin page; a journal on \
             PostgreSQL is put back from the database's backups, not recovered",
            data.display()
        ))),
        None => Ok(()),
    }
}

impl Invalid {
    pub fn one(message: impl Into<String>) -> Invalid {
        Invalid(vec![message.into()])
    }
}

pub enum Failure {
    Invalid(Invalid),
    Other(anyhow::Error),
}

impl From<Invalid> for Failure {
    fn from(i: Invalid) -> Failure {
        Failure::Invalid(i)
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Failure {
        Failure::Other(e)
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Failure {
        Failure::Other(e.into())
    }
}

fn serve(
    data: std::path::PathBuf,
    keys: Option<std::path::PathBuf>,
    listen: &str,
    metrics_listen: Option<std::net::SocketAddr>,
    limits: croupier_server::http::listener::Limits,
) -> Result<(), Failure> {
    let address: std::net::SocketAddr = listen
        .parse()
        .map_err(|e| Invalid::one(format!("--listen {listen:?} is not ADDRESS:PORT: {e}")))?;
    // The server logs to standard error, at the level RUST_LOG gives (info if none).
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        // Colours for a person at a terminal, plain text for a log file.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let runtime = tokio::runtime::Runtime::new()?;
    let keys = keys.unwrap_or_else(|| croupier_server::runtime::keys::default_dir(&data));
    let shown = match &limits.database {
        Some(url) => format!(
            "the journal in {}, this node's data in {}, its secret in {}",
            croupier_ledger::pg::shown_url(url),
            data.display(),
            keys.display()
        ),
        None => format!("data in {}, its secret in {}", data.display(), keys.display()),
    };
    let served = runtime.block_on(croupier_server::http::serve(&data, &keys, address, metrics_listen, limits, |started| {
            println!("croupier: serving on http://{} ({shown})", started.address);
            match started.from_checkpoint {
                Some(through) => println!("croupier: opened from the checkpoint after journal entry {through}"),
                None => println!("croupier: opened by replaying the journal from its first entry"),
            }
            println!(
                "croupier: point a browser at http://{0}/ : the admin /admin, the cage /cashier, the pit /pit, dealers /dealer, players /terminal, a big screen /board, tournaments /tournaments, the floor /floor, the day's books /report",
                started.address
            );
            if let Some((username, password)) = &started.admin_password {
                println!("croupier: first run: log in as {username} with password {password} (shown once)");
            }
            for event in &started.recovered {
                if let Ok(text) = serde_json::to_string(event) {
                    println!("croupier: recovered: {text}");
                }
            }
            use std::io::Write;
            let _ = std::io::stdout().flush();
        }));
    // A task still waiting on a database that no longer answers (a node that
    // lost its lease to a network cut) must not keep the process from ending.
    runtime.shutdown_timeout(std::time::Duration::from_secs(2));
    served.map_err(|e| anyhow::anyhow!(e).into())
}

fn main() -> ExitCode {
    memory::keep_freed_memory();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Settle(args) => settle_cmd::run(args),
        Command::Math(args) => math_cmd::run(args),
        Command::Profiles { format } => rules_cmd::profiles(format),
        Command::Rules(args) => rules_cmd::run(args),
        Command::Tournament { which } => tournament_cmd::run(which),
        Command::Bench { which } => bench::run(which),
        Command::Rng { which } => rng_cmd::run(which),
        Command::VerifyFair(args) => rng_cmd::verify(args),
        Command::Wheel { which } => wheel_cmd::run(which),
        Command::Sim(args) => sim_cmd::run(*args),
        Command::Verify(args) => verify_cmd::run(args),
        Command::Serve {
            data,
            keys,
            listen,
            metrics_listen,
            connections_max,
            connections_per_client,
            header_read_timeout_ms,
            sign_ins_per_client_per_minute,
            session_idle_seconds,
            session_hours,
            sessions_per_user,
            checkpoint_every,
            database,
            lease_timeout_ms,
        } => serve(
            data,
            keys,
            &listen,
            metrics_listen,
            croupier_server::http::listener::Limits {
                connections_max,
                connections_per_client,
                header_read_timeout: std::time::Duration::from_millis(header_read_timeout_ms),
                sign_ins_per_client_per_minute,
                sessions: croupier_server::http::sessions::SessionLimits {
                    idle_ms: session_idle_seconds * 1_000,
                    lifetime_ms: session_hours * 3_600_000,
                    per_user: sessions_per_user as usize,
                },
                checkpoint_every_entries: checkpoint_every,
                database,
                lease_timeout_ms,
            },
        ),
        Command::User { which } => user_cmd::run(which),
        Command::Recover(args) => recover_cmd::run(args),
        Command::Entries(args) => entries_cmd::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Invalid(Invalid(messages))) => {
            for m in messages {
                eprintln!("croupier: {m}");
            }
            ExitCode::from(2)
        }
        // The reader went away (`croupier rules | head`): nothing is wrong.
        Err(Failure::Other(e))
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>().map(std::io::Error::kind) == Some(std::io::ErrorKind::BrokenPipe)
            }) =>
        {
            ExitCode::SUCCESS
        }
        Err(Failure::Other(e)) => {
            eprintln!("croupier: {e:#}");
            ExitCode::from(1)
        }
    }
}
