//! The server's writers: each table a writer of its own, one journal.

mod common;

use std::sync::Arc;

use croupier_core::Minor;
use croupier_ledger::{verify, Account, MemoryStorage, SqliteStorage, Storage};
use croupier_server::api::bodies::RecalledRound;
use croupier_server::api::{ApiError, EventView, OutcomeSource, Role};
use croupier_server::casino::reads::{TableAnswer, TableQuery};
use croupier_server::casino::{replay, Actor, Casino, Request, RoundRecord, Spin};
use croupier_server::runtime::archive::{Archive, Archiver};
use croupier_server::runtime::committer::{Committer, Pipeline};
use croupier_server::runtime::{self, Floor, Parts, SimClock, Unseen};

fn actor(name: &str, role: Role) -> Actor {
    Actor::new(name, role, "L-9")
}

/// The runtime the tables' writers run on, as in the server.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// The writers started on `casino`, as the server starts them, showing no events.
fn start(casino: Casino<Pipeline>, committer: Committer, runtime: &tokio::runtime::Runtime) -> (Floor, Archiver) {
    let archive = Arc::new(Archive::in_memory().expect("archive"));
    let archiver = Archiver::start(archive.clone()).expect("archiver");
    let floor = runtime::start(
        casino,
        Parts {
            committer,
            archive,
            archiver: archiver.clone(),
            clock: Arc::new(SimClock::at(1_000_000)),
            shown: Arc::new(Unseen),
            runtime: runtime.handle().clone(),
            checkpoints: None,
        },
    )
    .expect("writers");
    (floor, archiver)
}

/// A request at the floor, from a thread outside the runtime: `None` if it was not made durable.
fn ask(
    runtime: &tokio::runtime::Handle,
    floor: &Floor,
    who: Actor,
    request: Request,
) -> Option<Result<Vec<EventView>, ApiError>> {
    match runtime.block_on(floor.execute(who, request)) {
        Err(e) if e.code == "storage" => None,
        other => Some(other),
    }
}

/// A table's report: its players' chips and its accounts, as the table holds them.
fn report(runtime: &tokio::runtime::Handle, floor: &Floor, table: &str) -> croupier_server::api::bodies::TableReport {
    match runtime.block_on(floor.read_table(table, TableQuery::Report { day: None })) {
        Ok(TableAnswer::Report(r)) => r,
        other => panic!("{other:?}"),
    }
}

fn ledger(runtime: &tokio::runtime::Handle, floor: &Floor, account: &str) -> i128 {
    let account = Account::parse(account).expect("account");
    runtime
        .block_on(floor.ledger_balance(&account))
        .expect("the ledger answers")
}

fn setup<S: Storage>(casino: &mut Casino<S>, tables: &[&str], players: &[String]) {
    let admin = actor("admin", Role::Admin);
    let mut run = |who: &Actor, r: Request| {
        let shown = format!("{r:?}");
        let limits = common::signage(&r, casino.journal_format());
        casino.execute(1_000, who, r).unwrap_or_else(|e| panic!("{shown}: {e}"));
        if let Some(limits) = limits {
            casino
                .execute(1_000, &actor("pit", Role::PitSupervisor), limits)
                .expect("limits posted");
        }
    };
    // The first admin, as a first run makes one.
    run(
        &Actor::system(),
        Request::CreateUser {
            username: "admin".into(),
            role: Role::Admin,
            password_hash: "h".into(),
            licence: None,
        },
    );
    let users = players.iter().map(|p| (p.as_str(), Role::Player));
    for (name, role) in [
        ("cashier", Role::Cashier),
        ("pit", Role::PitSupervisor),
        ("dealer", Role::Dealer),
    ]
    .into_iter()
    .chain(users)
    {
        run(
            &admin,
            Request::CreateUser {
                username: name.into(),
                role,
                password_hash: "test-hash".into(),
                licence: common::licence_of(name, role),
            },
        );
    }
    // Maryland ch.1 G(1): the layout shows the operator's name.
    run(
        &admin,
        Request::NameOperator {
            name: "Test House".into(),
        },
    );
    for t in tables {
        run(
            &admin,
            Request::CreateTable {
                bonus_text: None,
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
                amount: Minor::new(100_000),
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
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let dir = tmp.path();
    let (pipeline, committer) = Committer::start(SqliteStorage::open(dir).expect("db")).expect("committer");
    let (mut casino, _) = Casino::open(pipeline, 1_000).expect("open");
    let players: Vec<String> = (0..4).map(|i| format!("p{i}")).collect();
    setup(&mut casino, &TABLES, &players);
    let runtime = runtime();
    let (floor, archiver) = start(casino, committer, &runtime);
    let handle = runtime.handle().clone();
    let dealer = actor("dealer", Role::Dealer);
    std::thread::scope(|scope| {
        for t in TABLES {
            let (floor, handle, players, dealer) = (floor.clone(), handle.clone(), players.clone(), dealer.clone());
            scope.spawn(move || {
                let run = |who: Actor, r: Request| ask(&handle, &floor, who, r).expect("durable");
                for p in &players {
                    let buy = Request::BuyIn {
                        id: format!("bi-{t}-{p}"),
                        table: t.into(),
                        amount: Minor::new(10_000),
                        chip_value: Minor::new(10),
                    };
                    run(actor(p, Role::Player), buy).expect("buy in");
                }
                for round in 0..5 {
                    run(dealer.clone(), Request::OpenBetting { table: t.into() }).expect("open");
                    for (i, p) in players.iter().enumerate() {
                        let bet = Request::PlaceBet {
                            table: t.into(),
                            bet_id: format!("b{round}-{i}"),
                            spot: if i % 2 == 0 { "red".into() } else { "17".into() },
                            stake: Minor::new(100),
                            zero_choice: None,
                            coupon: None,
                            coupon_id: None,
                        };
                        run(actor(p, Role::Player), bet).expect("bet");
                    }
                    run(dealer.clone(), Request::NoMoreBets { table: t.into() }).expect("close");
                    let spin = Request::Spin {
                        bonus_words: Vec::new(),
                        table: t.into(),
                        spin: Spin::Ball {
                            pocket: ["17", "1", "2", "0", "00"][round].into(),
                            direction: "opposite".into(),
                            revolutions: 6,
                        },
                    };
                    let settled = run(dealer.clone(), spin).expect("spin");
                    assert!(settled.iter().any(|e| matches!(e, EventView::RoundSettled { .. })));
                }
            });
        }
    });
    // The cage holds every table's money, in the same state the tables planned with.
    let mut balances = std::collections::BTreeMap::new();
    for t in TABLES {
        for seat in report(&handle, &floor, t).players {
            let account = format!("chips:{t}:{}", seat.player);
            let in_ledger = ledger(&handle, &floor, &account);
            assert_eq!(in_ledger, i128::from(seat.chips), "{account}");
            balances.insert(account, in_ledger);
        }
    }
    assert_eq!(balances.len(), 12);
    drop(floor);
    let entries = SqliteStorage::open_read_only(dir).expect("db").load().expect("load");
    assert_eq!(verify(&entries).first_problem, None);
    let replayed = replay(&entries).expect("the journal replays");
    for (account, balance) in &balances {
        assert_eq!(replayed.balance(account), *balance, "{account}");
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
    let handle = runtime.handle().clone();
    let (floor, archiver) = start(casino, committer, &runtime);
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
                amount: Minor::new(1_000),
                chip_value: Minor::new(10),
            },
            1 => Request::OpenBetting { table: t.into() },
            _ => Request::PlaceBet {
                table: t.into(),
                bet_id: format!("b{step}"),
                spot: "red".into(),
                stake: Minor::new(10),
                zero_choice: None,
                coupon: None,
                coupon_id: None,
            },
        };
        let who = if matches!(request, Request::OpenBetting { .. }) {
            dealer.clone()
        } else {
            p0.clone()
        };
        match ask(&handle, &floor, who, request.clone()) {
            None => lost += 1,
            Some(Ok(_)) => {
                if let Request::BuyIn { amount, .. } = request {
                    *bought.entry(t).or_default() += i128::from(amount.get());
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
        let seen = report(&handle, &floor, t);
        let chips = seen.players.iter().find(|s| s.player == "p0").map_or(0, |s| s.chips);
        let at_table = [i128::from(chips), i128::from(seen.accounts["layout"])];
        let in_ledger = [
            ledger(&handle, &floor, &format!("chips:{t}:p0")),
            ledger(&handle, &floor, &format!("layout:{t}")),
        ];
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
        // The round under way settles, and is over once the next one opens. (Before the
        // clock was one and injected, the tables refused every request after the reload
        // as "time went backwards", and nothing opened from the reload on.)
        let spin = Spin::Ball {
            pocket: "17".into(),
            direction: "opposite".into(),
            revolutions: 6,
        };
        ask(
            &handle,
            &floor,
            dealer.clone(),
            Request::NoMoreBets { table: t.to_string() },
        )
        .expect("durable")
        .expect("no more bets");
        ask(
            &handle,
            &floor,
            dealer.clone(),
            Request::Spin {
                bonus_words: Vec::new(),
                table: t.to_string(),
                spin,
            },
        )
        .expect("durable")
        .expect("spin");
        ask(
            &handle,
            &floor,
            dealer.clone(),
            Request::OpenBetting { table: t.to_string() },
        )
        .expect("durable")
        .expect("open");
        wait_for(|| !archived_at(t).is_empty());
        for archived in archived_at(t) {
            let recalled = match handle.block_on(floor.read_table(
                t,
                TableQuery::Round {
                    id: archived.id.clone(),
                },
            )) {
                Ok(TableAnswer::Round(r)) => r,
                other => panic!("{other:?}"),
            };
            assert_eq!(Some(RecalledRound::from(&archived)), recalled, "{}", archived.id);
        }
    }
}

/// Colorado 2201(7): no more bets is called when the betting window ends.
/// A round whose betting the dealer closes first needs no call, and its
/// timer ends with it: rounds far shorter than the window (an hour here)
/// leave no task behind, and a later round's window still closes on time.
#[test]
fn a_deadline_timer_ends_when_betting_closes_first_and_a_later_window_still_closes() {
    let (pipeline, committer) = Committer::start(MemoryStorage::default()).expect("committer");
    let (mut casino, _) = Casino::open(pipeline, 1_000).expect("open");
    setup(&mut casino, &["t1"], &[]);
    let runtime = runtime();
    let (floor, _archiver) = start(casino, committer, &runtime);
    let handle = runtime.handle().clone();
    let dealer = actor("dealer", Role::Dealer);
    let run = |who: &Actor, r: Request| {
        let shown = format!("{r:?}");
        ask(&handle, &floor, who.clone(), r)
            .expect("durable")
            .unwrap_or_else(|e| panic!("{shown}: {e}"))
    };
    let spin = |table: &str, pocket: &str| {
        let spin = Spin::Ball {
            pocket: pocket.into(),
            direction: "opposite".into(),
            revolutions: 6,
        };
        run(
            &dealer,
            Request::Spin {
                bonus_words: Vec::new(),
                table: table.into(),
                spin,
            },
        );
    };
    let round = |table: &str, pocket: &str| {
        run(&dealer, Request::OpenBetting { table: table.into() });
        assert_eq!(floor.deadlines_waited(), 1, "{table}: the window's timer waits");
        run(&dealer, Request::NoMoreBets { table: table.into() });
        assert_eq!(
            floor.deadlines_waited(),
            0,
            "{table}: closed by the dealer, nothing is waited for"
        );
        spin(table, pocket);
    };
    round("t1", "17");
    let tasks = || runtime.metrics().num_alive_tasks();
    wait_for(|| tasks() <= 1);
    let before = tasks();
    for _ in 0..200 {
        round("t1", "5");
    }
    // Each round's timer would have slept out the hour; now none is left.
    wait_for(|| tasks() <= before);
    // A round's no more bets shown before its opening (202 is t1's next):
    // the opening, shown late, starts no timer.
    let shown = |view: EventView| {
        floor
            .shown(Ok(croupier_server::casino::Executed {
                views: vec![view],
                texts: Vec::new(),
            }))
            .expect("shown");
    };
    shown(EventView::NoMoreBets {
        table: "t1".into(),
        round: 202,
    });
    shown(EventView::BettingOpened {
        table: "t1".into(),
        round: 202,
        deadline_ms: 4_600_000,
    });
    assert_eq!(floor.deadlines_waited(), 0, "no timer for a round already closed");

    // A table of a 300 ms window: the first round's betting closed by the
    // dealer, the second's by the window.
    let admin = actor("admin", Role::Admin);
    let pit = actor("pit", Role::PitSupervisor);
    let create = Request::CreateTable {
        bonus_text: None,
        table: "quick".into(),
        profile_text: include_str!("../../../profiles/maryland.toml").into(),
        wheel: "double-zero".into(),
        in_prison: false,
        betting_window_ms: 300,
        outcome: OutcomeSource::Dealer,
        shared_colours: true,
        wheel_address: None,
    };
    let limits = common::signage(&create, croupier_server::casino::JOURNAL_FORMAT).expect("a Maryland table");
    run(&admin, create);
    run(&pit, limits);
    let inspect = Request::Inspect {
        table: "quick".into(),
        no_magnet_or_contrivance: true,
        wheel_level_and_rotating_freely: true,
        parts_secure: true,
        ball_non_magnetic: true,
        layout_and_signage_comply: true,
    };
    run(&pit, inspect);
    run(&pit, Request::OpenTable { table: "quick".into() });
    round("quick", "00");
    let first = run(&dealer, Request::OpenBetting { table: "quick".into() });
    let first_closed = run(&dealer, Request::NoMoreBets { table: "quick".into() });
    spin("quick", "3");
    run(&dealer, Request::OpenBetting { table: "quick".into() });
    // Answers to requests sent together show their events in any order: the
    // round before's opening and its no more bets, shown late, neither end
    // this round's timer nor start one of their own.
    for views in [first, first_closed] {
        floor
            .shown(Ok(croupier_server::casino::Executed {
                views,
                texts: Vec::new(),
            }))
            .expect("shown");
        assert_eq!(floor.deadlines_waited(), 1, "the newest round's timer waits");
    }
    wait_for(|| floor.deadlines_waited() == 0);
    let late = ask(
        &handle,
        &floor,
        dealer.clone(),
        Request::NoMoreBets { table: "quick".into() },
    )
    .expect("durable");
    let refused = late.expect_err("the window called no more bets already");
    assert!(refused.message.contains("betting"), "{refused:?}");
}
