//! The bench's casino before the run: the server started as its own process
//! on a fresh data directory, its staff and tables set up as a casino's
//! would be, and every player signed in at a terminal and seated with chips.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};

use super::http::{expect_ok, login, Conn};
use super::{bench_limits, io, LoadArgs, ADMIN_PASSWORD, STAFF_PASSWORD};
use crate::{Failure, Invalid};

/// Where the server keeps its data: the new directory `--keep-data` names,
/// or a temporary one.
pub(super) fn data_dir(args: &LoadArgs) -> Result<PathBuf, Failure> {
    match &args.keep_data {
        Some(dir) if dir.exists() => Err(Invalid::one(format!(
            "--keep-data {}: it exists already; a load starts a casino of its own in a new directory",
            dir.display()
        ))
        .into()),
        Some(dir) => Ok(dir.clone()),
        None => Ok(std::env::temp_dir().join(format!(
            "croupier-load-{}-{}",
            std::process::id(),
            crate::wire::unique_suffix()
        ))),
    }
}

/// The bench server: its process, where it listens, and the first admin's
/// one-time password.
pub(super) struct Server {
    pub(super) child: tokio::process::Child,
    pub(super) address: SocketAddr,
    pub(super) password: String,
}

/// Starts `croupier serve` on `data` and reads from what it prints where it
/// listens and the first admin's one-time password.
pub(super) async fn start_server(args: &LoadArgs, data: &Path) -> Result<Server, Failure> {
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
        .arg(data)
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
    Ok(Server {
        child,
        address,
        password,
    })
}

/// The casino as the run finds it: its tables open, and every player
/// signed in at a terminal and seated with chips at its table.
pub(super) struct Floor {
    pub(super) admin_token: String,
    pub(super) tables: Vec<String>,
    /// Each player's number, with their terminal's connection and token.
    pub(super) terminals: Vec<(usize, Conn, String)>,
    /// The admin's, the pit's and the dealer's connections: idle once the
    /// floor is set up, and open until the run ends.
    _staff: [Conn; 3],
}

/// Sets up the floor, the admin signing in with the one-time `password`.
pub(super) async fn set_up(args: &LoadArgs, address: SocketAddr, password: &str) -> Result<Floor, Failure> {
    let (mut admin, admin_token) = login(address, "admin", password).await?;
    hire_staff(&mut admin, &admin_token, password).await?;
    let profile_text = croupier_profiles::builtin_text("maryland")
        .unwrap_or_default()
        .to_string();
    let tables: Vec<String> = (0..args.tables).map(|i| format!("load{i}")).collect();
    for t in &tables {
        expect_ok(&mut admin, &admin_token, json!({"op": "create_table", "table": t, "profile_text": profile_text, "wheel": "double-zero", "in_prison": false, "betting_window_ms": 600000, "outcome": "rng", "shared_colours": true})).await?;
    }
    let (mut pit, pit_token) = login(address, "pit", STAFF_PASSWORD).await?;
    let (mut dealer, dealer_token) = login(address, "dealer", STAFF_PASSWORD).await?;
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
    let mut terminals = sign_in_players(address, &admin_token, args.terminals).await?;
    seat_players(&mut admin, &admin_token, &mut terminals, &tables).await?;
    Ok(Floor {
        admin_token,
        tables,
        terminals,
        _staff: [admin, pit, dealer],
    })
}

/// The first admin's first steps: a password of their own, the operator
/// named, and the dealer and the pit supervisor made users.
async fn hire_staff(admin: &mut Conn, admin_token: &str, password: &str) -> Result<(), Failure> {
    // The one-time password is changed before anything else is taken.
    expect_ok(
        admin,
        admin_token,
        json!({"op": "change_password", "password": password, "new_password": ADMIN_PASSWORD}),
    )
    .await?;
    // Maryland ch.1 G(1): a Maryland layout shows the operator's name.
    expect_ok(
        admin,
        admin_token,
        json!({"op": "name_operator", "name": "Bench House"}),
    )
    .await?;
    for (name, role) in [("dealer", "dealer"), ("pit", "pit_supervisor")] {
        expect_ok(
            admin,
            admin_token,
            json!({"op": "create_user", "username": name, "role": role, "password": STAFF_PASSWORD, "licence": format!("BENCH-{name}")}),
        )
        .await?;
    }
    Ok(())
}

/// A user and a signed-in terminal for each of `count` players.
async fn sign_in_players(
    address: SocketAddr,
    admin_token: &str,
    count: usize,
) -> Result<Vec<(usize, Conn, String)>, Failure> {
    // Players are created and logged in a few at a time: each password is an argon2 hash.
    let mut terminals = Vec::with_capacity(count);
    for chunk in (0..count).collect::<Vec<_>>().chunks(16) {
        let mut creating = Vec::new();
        for &i in chunk {
            let admin_token = admin_token.to_string();
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
    Ok(terminals)
}

/// Each player's bankroll cashed in, and chips bought with it at their table.
async fn seat_players(
    admin: &mut Conn,
    admin_token: &str,
    terminals: &mut [(usize, Conn, String)],
    tables: &[String],
) -> Result<(), Failure> {
    // Each bankroll is above a cashier's day (10,000.00 a player): the admin cashes it in.
    for (i, conn, token) in terminals.iter_mut() {
        expect_ok(
            admin,
            admin_token,
            json!({"op": "cash_in", "id": format!("c{i}"), "player": format!("p{i}"), "amount": 1_000_000_000u64}),
        )
        .await?;
        expect_ok(conn, token, json!({"op": "buy_in", "id": format!("b{i}"), "table": tables[*i % tables.len()], "amount": 100_000_000u64, "chip_value": 100})).await?;
    }
    Ok(())
}
