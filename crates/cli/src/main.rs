//! The croupier command.

mod bench;
mod load;
mod math_cmd;
mod memory;
mod rng_cmd;
mod rules_cmd;
mod settle_cmd;
mod sim_cmd;
mod verify_cmd;
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
    /// Users of a data directory, while its server is stopped.
    User {
        #[command(subcommand)]
        which: UserCommand,
    },
    /// Run the table server on an embedded database.
    Serve {
        /// Where the journal lives (created on the first run).
        #[arg(long, default_value = "croupier-data")]
        data: std::path::PathBuf,
        #[arg(long, default_value = "127.0.0.1:8080")]
        listen: String,
        /// Connections (table streams included) the server holds at once.
        #[arg(long, default_value_t = 16_384)]
        connections_max: usize,
        /// Connections one client address holds at once: as many as the terminals behind one address.
        #[arg(long, default_value_t = 4_096)]
        connections_per_client: usize,
        /// How long a client has to send a request's headers, in milliseconds.
        #[arg(long, default_value_t = 10_000)]
        header_read_timeout_ms: u64,
    },
}

#[derive(Subcommand)]
enum UserCommand {
    /// Add a user; the password is read from standard input.
    Add {
        #[arg(long, default_value = "croupier-data")]
        data: std::path::PathBuf,
        #[arg(long)]
        username: String,
        /// admin, pit_supervisor, dealer, cashier, auditor or player.
        #[arg(long)]
        role: String,
    },
}

/// Input the user must correct: reported on stderr, exit status 2.
#[derive(Debug)]
pub struct Invalid(pub Vec<String>);

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

fn user_add(data: std::path::PathBuf, username: &str, role: &str) -> Result<(), Failure> {
    use croupier_server::api::Role;
    use croupier_server::runtime::passwords::hash_password;
    let role = Role::parse(role).ok_or_else(|| {
        Invalid::one(format!(
            "{role:?} is not a role: admin, pit_supervisor, dealer, cashier, auditor, player"
        ))
    })?;
    let mut password = String::new();
    std::io::stdin().read_line(&mut password)?;
    let password = password.trim_end_matches(['\r', '\n']);
    let hash = hash_password(password).map_err(|e| Invalid::one(e.to_string()))?;
    let _lock = croupier_server::runtime::setup::lock_data(&data).map_err(Invalid::one)?;
    let mut storage = croupier_ledger::SqliteStorage::open(&data).map_err(|e| anyhow::anyhow!("{e}"))?;
    // The clock starts no earlier than the journal's last entry.
    let entries = croupier_ledger::Storage::load(&mut storage).map_err(|e| anyhow::anyhow!("{e}"))?;
    use croupier_server::runtime::Clock;
    let clock = croupier_server::runtime::WallClock::after(entries.last().map_or(0, |e| e.at_ms));
    drop(entries);
    let now = clock.now_ms();
    let (mut casino, _) = croupier_server::casino::Casino::open(storage, now).map_err(|e| anyhow::anyhow!("{e}"))?;
    casino
        .execute(
            now,
            &croupier_server::casino::Actor::system(),
            croupier_server::casino::Request::CreateUser {
                username: username.to_string(),
                role,
                password_hash: hash,
            },
        )
        .map_err(|e| Invalid::one(e.to_string()))?;
    println!(
        "croupier: user {username} ({}) added to {}",
        role.name(),
        data.display()
    );
    Ok(())
}

fn serve(
    data: std::path::PathBuf,
    listen: &str,
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
    let shown = data.display().to_string();
    runtime
        .block_on(croupier_server::http::serve(&data, address, limits, |started| {
            println!("croupier: serving on http://{} (data in {shown})", started.address);
            println!(
                "croupier: point a browser at http://{0}/ : players /terminal, dealers /dealer, the pit /pit, a big screen /board",
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
        }))
        .map_err(|e| anyhow::anyhow!(e).into())
}

fn main() -> ExitCode {
    memory::keep_freed_memory();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Settle(args) => settle_cmd::run(args),
        Command::Math(args) => math_cmd::run(args),
        Command::Profiles { format } => rules_cmd::profiles(format),
        Command::Rules(args) => rules_cmd::run(args),
        Command::Bench { which } => bench::run(which),
        Command::Rng { which } => rng_cmd::run(which),
        Command::VerifyFair(args) => rng_cmd::verify(args),
        Command::Wheel { which } => wheel_cmd::run(which),
        Command::Sim(args) => sim_cmd::run(*args),
        Command::Verify(args) => verify_cmd::run(args),
        Command::Serve {
            data,
            listen,
            connections_max,
            connections_per_client,
            header_read_timeout_ms,
        } => serve(
            data,
            &listen,
            croupier_server::http::listener::Limits {
                connections_max,
                connections_per_client,
                header_read_timeout: std::time::Duration::from_millis(header_read_timeout_ms),
            },
        ),
        Command::User {
            which: UserCommand::Add { data, username, role },
        } => user_add(data, &username, &role),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Invalid(Invalid(messages))) => {
            for m in messages {
                eprintln!("croupier: {m}");
            }
            ExitCode::from(2)
        }
        Err(Failure::Other(e)) => {
            eprintln!("croupier: {e:#}");
            ExitCode::from(1)
        }
    }
}
