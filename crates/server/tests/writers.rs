//! The server's writers: each table a writer of its own, one journal.

use std::sync::mpsc;

use croupier_ledger::{verify, MemoryStorage, SqliteStorage, Storage};
use croupier_server::api::{Actor, ApiError, EventView, OutcomeSource, Request, SpinView};
use croupier_server::archive::{Archive, Archiver};
use croupier_server::casino::{replay, Cage, Casino, RoundRecord};
use croupier_server::committer::{Committer, Pipeline, Reply};
use croupier_server::users::Role;
use croupier_server::writers::{self, TableWriter, Tables, ToCage};

fn actor(name: &str, role: Role) -> Actor {
    Actor {
        username: name.into(),
        role,
        licence: "L-9".into(),
    }
}

/// A job for a writer, and where its answer arrives: `None` if it was not made durable.
type Asked<W, T> = (Box<dyn FnOnce(&mut W) -> Reply + Send>, mpsc::Receiver<Option<T>>);

fn ask<W, T: Send + 'static>(f: impl FnOnce(&mut W) -> T + Send + 'static) -> Asked<W, T> {
    let (tx, rx) = mpsc::channel();
    let job = Box::new(move |w: &mut W| -> Reply {
        let answer = f(w);
        Box::new(move |durable: bool| {
            let _ = tx.send(durable.then_some(answer));
        })
    });
    (job, rx)
}

fn at_table(tables: &Tables, table: &str, actor: Actor, request: Request) -> Option<Result<Vec<EventView>, ApiError>> {
    let (job, rx) = ask(move |w: &mut TableWriter| w.execute(1_000, &actor, request));
    tables.jobs(table).expect("table").blocking_send(job).expect("send");
    rx.recv().expect("answered")
}

fn at_cage<T: Send + 'static>(
    cage: &mpsc::SyncSender<ToCage>,
    f: impl FnOnce(&mut Cage<Pipeline>) -> T + Send + 'static,
) -> Option<T> {
    let (job, rx) = ask(f);
    cage.send(ToCage::Job(job)).expect("send");
    rx.recv().expect("answered")
}

/// The runtime the tables' writers run on, as in the server.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .expect("runtime")
}

fn setup<S: Storage>(casino: &mut Casino<S>, tables: &[&str], players: &[String]) {
    let admin = actor("admin", Role::Admin);
    let mut run = |who: &Actor, r: Request| {
        let shown = format!("{r:?}");
        casino.execute(1_000, who, r).unwrap_or_else(|e| panic!("{shown}: {e}"));
    };
    let users = players.iter().map(|p| (p.as_str(), Role::Player));
    for (name, role) in [("cashier", Role::Cashier), ("pit", Role::PitSupervisor)]
        .into_iter()
        .chain(users)
    {
        run(
            &admin,
            Request::CreateUser {
                username: name.into(),
                role,
                password_hash: "test-hash".into(),
            },
        );
    }
    for t in tables {
        run(
            &admin,
            Request::CreateTable {
                table: t.to_string(),
                profile_text: include_str!("../../../profiles/maryland.toml").into(),
                wheel: "double-zero".into(),
                in_prison: false,
                betting_window_ms: 3_600_000,
                outcome: OutcomeSource::Dealer,
                shared_colours: true,
                wheel_address: None,
            },
        );
        let pit = actor("pit", Role::PitSupervisor);
        run(
            &pit,
            Request::Inspect {
                table: t.to_string(),
                no_magnet_or_contrivance: true,
                wheel_level_and_rotating_freely: true,
                parts_secure: true,
                ball_non_magnetic: true,
                layout_and_signage_comply: true,
            },
        );
        run(&pit, Request::OpenTable { table: t.to_string() });
    }
    for p in players {
        run(
            &actor("cashier", Role::Cashier),
            Request::CashIn {
                id: format!("ci-{p}"),
                player: p.clone(),
                amount: 100_000,
            },
        );
    }
}

const TABLES: [&str; 3] = ["t1", "t2", "t3"];

/// Rounds at three tables at once, each from a thread of its own, all on
/// their own writers: every bet is answered once durable, the journal holds
/// one chain that replays to the same balances, and nothing is lost.
#[test]
fn tables_run_on_writers_of_their_own_into_one_journal() {
    let dir = std::env::temp_dir().join(format!("croupier-writers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (pipeline, committer) = Committer::start(SqliteStorage::open(&dir).expect("db")).expect("committer");
    let (mut casino, _) = Casino::open(pipeline, 1_000).expect("open");
    let players: Vec<String> = (0..4).map(|i| format!("p{i}")).collect();
    setup(&mut casino, &TABLES, &players);
    let runtime = runtime();
    let archiver = Archiver::start(std::sync::Arc::new(Archive::in_memory().expect("archive"))).expect("archiver");
    let (cage, tables) =
        writers::start(casino, committer, runtime.handle().clone(), archiver.clone()).expect("writers");
    let dealer = actor("dealer", Role::Dealer);
    std::thread::scope(|scope| {
        for t in TABLES {
            let (tables, players, dealer) = (tables.clone(), players.clone(), dealer.clone());
            scope.spawn(move || {
                for p in &players {
                    let buy = Request::BuyIn {
                        id: format!("bi-{t}-{p}"),
                        table: t.into(),
                        amount: 10_000,
                        chip_value: 10,
                    };
                    at_table(&tables, t, actor(p, Role::Player), buy)
                        .expect("durable")
                        .expect("buy in");
                }
                for round in 0..5 {
                    let open = Request::OpenBetting { table: t.into() };
                    at_table(&tables, t, dealer.clone(), open)
                        .expect("durable")
                        .expect("open");
                    for (i, p) in players.iter().enumerate() {
                        let bet = Request::PlaceBet {
                            table: t.into(),
                            bet_id: format!("b{round}-{i}"),
                            spot: if i % 2 == 0 { "red".into() } else { "17".into() },
                            stake: 100,
                            zero_choice: None,
                            coupon: None,
                        };
                        at_table(&tables, t, actor(p, Role::Player), bet)
                            .expect("durable")
                            .expect("bet");
                    }
                    let close = Request::NoMoreBets { table: t.into() };
                    at_table(&tables, t, dealer.clone(), close)
                        .expect("durable")
                        .expect("close");
                    let spin = Request::Spin {
                        table: t.into(),
                        spin: SpinView::Ball {
                            pocket: ["17", "1", "2", "0", "00"][round].into(),
                            direction: "opposite".into(),
                            revolutions: 6,
                        },
                    };
                    let settled = at_table(&tables, t, dealer.clone(), spin)
                        .expect("durable")
                        .expect("spin");
                    assert!(settled.iter().any(|e| matches!(e, EventView::RoundSettled { .. })));
                }
            });
        }
    });
    // The cage holds every table's money, in the same state the tables planned with.
    let balances = at_cage(&cage, |c| c.ledger().balances().clone()).expect("durable");
    for t in TABLES {
        let (job, rx) = ask(move |w: &mut TableWriter| players_chips(w, &["p0", "p1", "p2", "p3"], t));
        tables.jobs(t).expect("table").blocking_send(job).expect("send");
        for (account, chips) in rx.recv().expect("answered").expect("durable") {
            let account = croupier_ledger::Account::parse(&account).expect("account");
            assert_eq!(balances.get(&account).copied().unwrap_or(0), chips, "{account}");
        }
    }
    drop((cage, tables));
    let entries = SqliteStorage::open_read_only(&dir).expect("db").load().expect("load");
    assert_eq!(verify(&entries).first_problem, None);
    let replayed = replay(&entries).expect("the journal replays");
    for (account, balance) in &balances {
        assert_eq!(replayed.ledger().balance(account), *balance, "{account}");
    }
    for t in TABLES {
        assert_eq!(replayed.recall_table(t, 100).len(), 5, "{t}");
        // Each round is archived once the next one opens: the first four, as the journal has them.
        wait_for(|| archiver.archive().holds(t, 4));
        assert!(!archiver.archive().holds(t, 5), "{t}: the open round is not final");
        for round in 1..=4 {
            let archived = archiver.archive().round(t, round).expect("read").expect("archived");
            assert_eq!(Some(&archived), replayed.round(&format!("{t}/{round}")), "{t}/{round}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Waits (up to 10 s) for `done`: the archive writes on a thread of its own.
fn wait_for(done: impl Fn() -> bool) {
    for _ in 0..1_000 {
        if done() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("not done after 10 s");
}

fn players_chips(w: &mut TableWriter, players: &[&str], table: &str) -> Vec<(String, i128)> {
    players
        .iter()
        .map(|p| {
            let account = format!("chips:{table}:{p}");
            let chips = w.slot().balance(&account);
            (account, chips)
        })
        .collect()
}

/// A write that fails: the cage reloads what is durable and each table takes
/// its state from it again; the failed request and anything run on the old
/// state are refused, and the tables go on.
#[test]
fn after_a_failed_write_every_table_goes_on_from_what_is_durable() {
    let (pipeline, committer) = Committer::start(MemoryStorage::failing_every(40)).expect("committer");
    let (mut casino, _) = Casino::open(pipeline, 1_000).expect("open");
    let players = vec!["p0".to_string()];
    setup(&mut casino, &TABLES[..2], &players);
    let runtime = runtime();
    let archiver = Archiver::start(std::sync::Arc::new(Archive::in_memory().expect("archive"))).expect("archiver");
    let (cage, tables) =
        writers::start(casino, committer, runtime.handle().clone(), archiver.clone()).expect("writers");
    let dealer = actor("dealer", Role::Dealer);
    let p0 = actor("p0", Role::Player);
    let mut lost = 0;
    let mut bought = std::collections::BTreeMap::<&str, i128>::new();
    for step in 0..60 {
        let t = TABLES[step % 2];
        let request = match step / 2 % 3 {
            0 => Request::BuyIn {
                id: format!("bi-{step}"),
                table: t.into(),
                amount: 1_000,
                chip_value: 10,
            },
            1 => Request::OpenBetting { table: t.into() },
            _ => Request::PlaceBet {
                table: t.into(),
                bet_id: format!("b{step}"),
                spot: "red".into(),
                stake: 10,
                zero_choice: None,
                coupon: None,
            },
        };
        let who = if matches!(request, Request::OpenBetting { .. }) {
            dealer.clone()
        } else {
            p0.clone()
        };
        match at_table(&tables, t, who, request.clone()) {
            None => lost += 1,
            Some(Ok(_)) => {
                if let Request::BuyIn { amount, .. } = request {
                    *bought.entry(t).or_default() += i128::from(amount);
                }
            }
            // Betting already open, or the request ran on a state being replaced.
            Some(Err(_)) => {}
        }
    }
    assert!(lost > 0, "the storage failed on purpose");
    // What the tables hold now is what the durable journal says; every
    // durable buy-in is there, as chips or as stakes on the layout (a reload
    // voids the round it interrupted and returns its bets).
    for t in &TABLES[..2] {
        let accounts = [format!("chips:{t}:p0"), format!("layout:{t}")];
        let seen = accounts.clone();
        let (job, rx) = ask(move |w: &mut TableWriter| seen.map(|a| w.slot().balance(&a)));
        tables.jobs(t).expect("table").blocking_send(job).expect("send");
        let at_table = rx.recv().expect("answered").expect("durable");
        let in_ledger = at_cage(&cage, move |c| {
            accounts.map(|a| {
                c.ledger()
                    .balance(&croupier_ledger::Account::parse(&a).expect("account"))
            })
        })
        .expect("durable");
        assert_eq!(at_table, in_ledger, "{t}");
        assert_eq!(
            at_table.iter().sum::<i128>(),
            bought.get(t).copied().unwrap_or(0),
            "{t}"
        );
        // Only durable rounds reach the archive: each as the table, reloaded from the journal, recalls it.
        let archived_at = |t: &str| {
            let mut archived = Vec::new();
            archiver
                .archive()
                .each(|r| archived.push(r.expect("readable")))
                .expect("read");
            archived
                .into_iter()
                .filter(|r| r.table == t)
                .collect::<Vec<RoundRecord>>()
        };
        // The round the reload voided (at the time of the reload) is over once the next one opens.
        let (open, dealer) = (Request::OpenBetting { table: t.to_string() }, dealer.clone());
        let (job, rx) = ask(move |w: &mut TableWriter| w.execute(croupier_server::http::now_ms(), &dealer, open));
        tables.jobs(t).expect("table").blocking_send(job).expect("send");
        rx.recv().expect("answered").expect("durable").expect("open");
        wait_for(|| !archived_at(t).is_empty());
        let mine = archived_at(t);
        let ids: Vec<String> = mine.iter().map(|r| r.id.clone()).collect();
        let (job, rx) =
            ask(move |w: &mut TableWriter| ids.iter().map(|id| w.slot().round(id).cloned()).collect::<Vec<_>>());
        tables.jobs(t).expect("table").blocking_send(job).expect("send");
        let recalled = rx.recv().expect("answered").expect("durable");
        for (archived, recalled) in mine.iter().zip(recalled) {
            assert_eq!(Some(archived), recalled.as_ref(), "{}", archived.id);
        }
    }
}
