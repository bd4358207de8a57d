//! `croupier user ...`: an admin's work on the users of a data directory
//! while its server is stopped (the server holds the directory's lock):
//! adding a user, unlocking one, setting one's password. Passwords are read
//! from standard input, never from the command line.

use croupier_server::api::Role;
use croupier_server::casino::{Actor, Casino, Request};
use croupier_server::runtime::passwords::hash_password;
use croupier_server::runtime::{Clock, WallClock};

use crate::{Failure, Invalid};

/// The user, and the stopped server's data directory and keys folder.
#[derive(clap::Args)]
pub struct Whose {
    #[arg(long, default_value = "croupier-data")]
    data: std::path::PathBuf,
    /// The folder of the secret the journal is sealed with (by default DATA-keys).
    #[arg(long)]
    keys: Option<std::path::PathBuf>,
    #[arg(long)]
    username: String,
    /// The casino's journal on PostgreSQL (postgres://...), for a casino of
    /// several nodes: every node must be stopped (this takes the casino's
    /// lease); --data is then a node's own data directory.
    #[arg(long, env = "CROUPIER_DATABASE", hide_env_values = true)]
    database: Option<String>,
}

#[derive(clap::Subcommand)]
pub enum Which {
    /// Add a user; the password is read from standard input.
    Add {
        #[command(flatten)]
        whose: Whose,
        /// admin, pit_supervisor, floorperson, floor_manager, casino_manager, dealer, cashier, auditor, security or player.
        #[arg(long)]
        role: String,
    },
    /// Unlock an account.
    Unlock {
        #[command(flatten)]
        whose: Whose,
    },
    /// Set a user's password (a forgotten one, the admin's own included); read from standard input.
    ResetPassword {
        #[command(flatten)]
        whose: Whose,
    },
}

fn read_password() -> Result<String, Failure> {
    let mut password = String::new();
    std::io::stdin().read_line(&mut password)?;
    let hash = hash_password(password.trim_end_matches(['\r', '\n'])).map_err(|e| Invalid::one(e.to_string()))?;
    Ok(hash)
}

/// Executes `request` as the server itself on the stopped server's data
/// directory, sealed with the secret in `keys` as the server seals it.
fn offline(
    data: &std::path::Path,
    keys: Option<&std::path::Path>,
    database: Option<&str>,
    request: Request,
) -> Result<croupier_server::runtime::keys::Keys, Failure> {
    let _lock = croupier_server::runtime::setup::lock_data(data).map_err(Invalid::one)?;
    match database {
        Some(url) => offline_on_postgres(data, keys, url, request),
        None => offline_locked(data, keys, request),
    }
}

/// [`offline`] on a journal on PostgreSQL: only while no node holds the
/// casino (its lease is taken, never waited for).
fn offline_on_postgres(
    data: &std::path::Path,
    keys: Option<&std::path::Path>,
    url: &str,
    request: Request,
) -> Result<croupier_server::runtime::keys::Keys, Failure> {
    let database = croupier_ledger::Database::of(data, Some(url)).map_err(Invalid::one)?;
    let keys = keys.map_or_else(
        || croupier_server::runtime::keys::default_dir(data),
        std::path::Path::to_path_buf,
    );
    let (mut storage, keys) =
        croupier_server::runtime::setup::open_journal_waiting(&database, data, &keys, false).map_err(Invalid::one)?;
    let at = croupier_ledger::Storage::last_at_ms(&mut storage).map_err(|e| anyhow::anyhow!("{e}"))?;
    let now = WallClock::after(at.unwrap_or(0)).now_ms();
    let (mut casino, _) = Casino::open(storage, now).map_err(|e| anyhow::anyhow!("{e}"))?;
    casino
        .execute(now, &Actor::system(), request)
        .map_err(|e| Invalid::one(e.to_string()))?;
    drop(casino);
    // The head beside the secret follows the journal, as the server keeps it.
    let seal = database
        .open_read_only()
        .and_then(|mut j| j.seal())
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    if let Some(seal) = seal {
        croupier_server::runtime::keys::write_head(&keys.head_path(), &seal).map_err(|e| anyhow::anyhow!(e))?;
    }
    Ok(keys)
}

/// [`offline`], for a caller that holds the data directory's lock already.
pub fn offline_locked(
    data: &std::path::Path,
    keys: Option<&std::path::Path>,
    request: Request,
) -> Result<croupier_server::runtime::keys::Keys, Failure> {
    let keys = keys.map_or_else(
        || croupier_server::runtime::keys::default_dir(data),
        std::path::Path::to_path_buf,
    );
    crate::not_a_postgres_node(data)?;
    let database = croupier_ledger::Database::Sqlite(data.to_path_buf());
    let keys_dir = keys;
    let open = || -> Result<(croupier_ledger::SqliteStorage, croupier_server::runtime::keys::Keys), String> {
        match croupier_server::runtime::setup::open_journal(&database, data, &keys_dir)? {
            (croupier_ledger::Opened::Sqlite(storage), keys) => Ok((storage, keys)),
            _ => Err(format!("{} is not a journal in SQLite", database.shown())),
        }
    };
    let (mut storage, keys) = open().map_err(Invalid::one)?;
    // The clock starts no earlier than the journal's last entry.
    let at = croupier_ledger::Storage::last_at_ms(&mut storage).map_err(|e| anyhow::anyhow!("{e}"))?;
    let now = WallClock::after(at.unwrap_or(0)).now_ms();
    // From the newest checkpoint, as a server opens: a long history is not
    // replayed, and the gaming days archived out of the data directory are not needed.
    let store = croupier_server::runtime::checkpoints::Store::bound_by(data, database.clone());
    let mut first = Some(storage);
    let mut fresh = || match first.take() {
        Some(storage) => Ok(storage),
        None => open().map(|(storage, _)| storage),
    };
    let (mut casino, _, _) =
        croupier_server::runtime::checkpoints::open_newest(Some(&store), &mut fresh, now, &mut |_| {})
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    casino
        .execute(now, &Actor::system(), request)
        .map_err(|e| Invalid::one(e.to_string()))?;
    // The head beside the secret follows the journal, as the server keeps it.
    if let Some(seal) = casino.ledger().storage().seal().map_err(|e| anyhow::anyhow!("{e}"))? {
        croupier_server::runtime::keys::write_head(&keys.head_path(), &seal).map_err(|e| anyhow::anyhow!(e))?;
    }
    Ok(keys)
}

/// Where the change went: the data directory, or the journal on PostgreSQL.
fn journal_shown(data: &std::path::Path, database: Option<&str>) -> String {
    match database {
        Some(url) => format!("the journal in {}", croupier_ledger::pg::shown_url(url)),
        None => data.display().to_string(),
    }
}

/// The new password's hash, read from standard input once the data
/// directory is known to hold a journal: a node of a casino on PostgreSQL
/// has none here, and is refused before the password is asked for.
fn new_password(data: &std::path::Path, database: Option<&str>) -> Result<String, Failure> {
    if database.is_none() {
        crate::not_a_postgres_node(data)?;
    }
    read_password()
}

pub fn run(which: Which) -> Result<(), Failure> {
    match which {
        Which::Add {
            whose:
                Whose {
                    data,
                    keys,
                    username,
                    database,
                },
            role,
        } => {
            let role = Role::parse(&role).ok_or_else(|| {
                Invalid::one(format!(
                    "{role:?} is not a role: admin, pit_supervisor, floorperson, floor_manager, casino_manager, dealer, cashier, auditor, security, player"
                ))
            })?;
            let password_hash = new_password(&data, database.as_deref())?;
            offline(
                &data,
                keys.as_deref(),
                database.as_deref(),
                Request::CreateUser {
                    username: username.clone(),
                    role,
                    password_hash,
                    licence: None,
                },
            )?;
            println!(
                "croupier: user {username} ({}) added to {}",
                role.name(),
                journal_shown(&data, database.as_deref())
            );
        }
        Which::Unlock {
            whose:
                Whose {
                    data,
                    keys,
                    username,
                    database,
                },
        } => {
            offline(
                &data,
                keys.as_deref(),
                database.as_deref(),
                Request::UnlockUser {
                    username: username.clone(),
                },
            )?;
            println!(
                "croupier: user {username} unlocked in {}",
                journal_shown(&data, database.as_deref())
            );
        }
        Which::ResetPassword {
            whose:
                Whose {
                    data,
                    keys,
                    username,
                    database,
                },
        } => {
            let password_hash = new_password(&data, database.as_deref())?;
            let keys = offline(
                &data,
                keys.as_deref(),
                database.as_deref(),
                Request::SetPassword {
                    username: username.clone(),
                    password_hash,
                    must_change: false,
                },
            )?;
            // Whoever held the old password holds no session of it any more.
            let sessions = croupier_server::http::sessions::Sessions::open(
                &data,
                keys.sessions_key(),
                &keys.sessions_epoch_path(),
                croupier_server::http::sessions::SessionLimits::default(),
                0,
            )
            .map_err(|e| anyhow::anyhow!(e))?;
            let ended = sessions
                .end_all_of(&username, None)
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            println!(
                "croupier: the password of {username} is set in {}; {ended} of their sessions ended",
                journal_shown(&data, database.as_deref())
            );
        }
    }
    Ok(())
}
