//! How fast the casino's writer executes bets on its own, with SQLite group commits.
//! `cargo run --release -p croupier-server --example writer_speed`

use std::time::Instant;

use croupier_core::Minor;
use croupier_ledger::SqliteStorage;
use croupier_server::api::{OutcomeSource, Role};
use croupier_server::casino::{Actor, Casino, Request, Spin};

fn main() {
    let dir = std::env::temp_dir().join(format!("croupier-writer-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (mut c, _) = Casino::open(SqliteStorage::open(&dir).expect("db"), 0).expect("open");
    let who = |n: &str, r| Actor::new(n, r, "-");
    let admin = who("admin", Role::Admin);
    let mut t = 1u64;
    let mut run = |c: &mut Casino<SqliteStorage>, a: &Actor, r: Request| {
        t += 1;
        c.execute(t, a, r).expect("ok")
    };
    for (n, r) in [
        ("cash", Role::Cashier),
        ("dealer", Role::Dealer),
        ("pit", Role::PitSupervisor),
    ] {
        run(
            &mut c,
            &admin,
            Request::CreateUser {
                username: n.into(),
                role: r,
                password_hash: "h".into(),
                licence: None,
            },
        );
    }
    let players = 100;
    for i in 0..players {
        run(
            &mut c,
            &admin,
            Request::CreateUser {
                username: format!("p{i}"),
                role: Role::Player,
                password_hash: "h".into(),
                licence: None,
            },
        );
    }
    run(
        &mut c,
        &admin,
        Request::CreateTable {
            bonus_text: None,
            table: "t".into(),
            profile_text: croupier_profiles::builtin_text("maryland").expect("profile").into(),
            wheel: "double-zero".into(),
            in_prison: false,
            betting_window_ms: 600_000_000,
            outcome: OutcomeSource::Dealer,
            shared_colours: true,
            wheel_address: None,
        },
    );
    run(
        &mut c,
        &who("pit", Role::PitSupervisor),
        Request::Inspect {
            table: "t".into(),
            no_magnet_or_contrivance: true,
            wheel_level_and_rotating_freely: true,
            parts_secure: true,
            ball_non_magnetic: true,
            layout_and_signage_comply: true,
        },
    );
    run(
        &mut c,
        &who("dealer", Role::Dealer),
        Request::OpenTable { table: "t".into() },
    );
    for i in 0..players {
        run(
            &mut c,
            &who("cash", Role::Cashier),
            Request::CashIn {
                id: format!("c{i}"),
                player: format!("p{i}"),
                amount: Minor::new(1_000_000_000),
            },
        );
        run(
            &mut c,
            &who(&format!("p{i}"), Role::Player),
            Request::BuyIn {
                id: format!("b{i}"),
                table: "t".into(),
                amount: Minor::new(100_000_000),
                chip_value: Minor::new(100),
            },
        );
    }
    run(
        &mut c,
        &who("dealer", Role::Dealer),
        Request::OpenBetting { table: "t".into() },
    );
    let n = 50_000;
    let start = Instant::now();
    c.begin_group().expect("group");
    for k in 0..n {
        if k % 500 == 0 {
            c.end_group().expect("commit");
            c.begin_group().expect("group");
        }
        let p = k % players;
        run(
            &mut c,
            &who(&format!("p{p}"), Role::Player),
            Request::PlaceBet {
                table: "t".into(),
                bet_id: format!("x{k}"),
                spot: "red".into(),
                stake: Minor::new(100),
                zero_choice: None,
                coupon: None,
                coupon_id: None,
            },
        );
    }
    c.end_group().expect("commit");
    let s = start.elapsed().as_secs_f64();
    println!(
        "{n} bets in {s:.2} s: {:.0} bets/s through the writer alone (groups of 500)",
        n as f64 / s
    );
    let start = Instant::now();
    run(
        &mut c,
        &who("dealer", Role::Dealer),
        Request::NoMoreBets { table: "t".into() },
    );
    run(
        &mut c,
        &who("dealer", Role::Dealer),
        Request::Spin {
            bonus_words: Vec::new(),
            table: "t".into(),
            spin: Spin::Ball {
                pocket: "1".into(),
                direction: "opposite".into(),
                revolutions: 5,
            },
        },
    );
    println!("settling {n} bets: {:.1} ms", start.elapsed().as_secs_f64() * 1000.0);
    let _ = std::fs::remove_dir_all(&dir);
}
