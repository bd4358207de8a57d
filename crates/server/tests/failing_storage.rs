//! Seeded runs of many rounds, at one table and at many, on storage that fails
//! on purpose: a failed write changes nothing, the money always sums to zero,
//! and the journal reopens to the same balances.

mod common;

use croupier_core::Minor;
use croupier_ledger::MemoryStorage;
use croupier_server::api::{ApiError, EventView, OutcomeSource, Role};
use croupier_server::casino::{Actor, Casino, Request, Spin, StoredCorrection};

use common::actors::{actor, admin};
use common::requests::inspection;
use common::table_requests::{ball, bet, buy_in_at};
use common::world::{dispute_id, setup, World};

/// Many rounds from one seed, with storage that fails on purpose: every
/// failure leaves nothing changed, the total is always zero, and reopening
/// the journal gives the same balances.
#[test]
fn deterministic_simulation_with_failing_storage() {
    for seed in 1..=5u64 {
        // The setup writes fourteen entries; the storage fails from the next on.
        let mut w = setup(MemoryStorage::failing_every(14 + seed));
        let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let retry = |w: &mut World<MemoryStorage>, who: &Actor, r: Request| {
            for _ in 0..3 {
                match w.run(who, r.clone()) {
                    Err(e) if e.code == "storage" => continue,
                    other => return other,
                }
            }
            Err(ApiError::new(croupier_server::api::ErrorCode::Storage, "gave up"))
        };
        let pit = actor("pit", Role::PitSupervisor);
        let dealer = actor("dealer", Role::Dealer);
        retry(&mut w, &pit, inspection("t1")).expect("inspect");
        retry(&mut w, &dealer, Request::OpenTable { table: "t1".into() }).expect("open");
        for p in ["alice", "bob"] {
            retry(
                &mut w,
                &actor("cashier", Role::Cashier),
                Request::CashIn {
                    id: format!("c-{p}"),
                    player: p.into(),
                    amount: Minor::new(100_000),
                },
            )
            .expect("cash");
            retry(
                &mut w,
                &actor(p, Role::Player),
                buy_in_at(format!("b-{p}"), "t1", 50_000),
            )
            .expect("buy");
        }
        let spots = [
            "17",
            "red",
            "0-00",
            "dozen2",
            "complete:17",
            "neighbours:5",
            "1-2-3",
            "odd",
        ];
        let pockets = ["0", "00", "17", "5", "32", "14"];
        for round in 0..30 {
            let _ = retry(&mut w, &dealer, Request::OpenBetting { table: "t1".into() });
            for i in 0..6 {
                let player = if next() % 2 == 0 { "alice" } else { "bob" };
                let spot = spots[(next() % spots.len() as u64) as usize];
                let stake = match spot {
                    "complete:17" => 4_000,
                    "neighbours:5" => 500,
                    _ => 100 * (1 + next() % 5),
                };
                let before = w.casino.ledger().balances().clone();
                match w.run(
                    &actor(player, Role::Player),
                    bet("t1", &format!("r{round}b{i}"), spot, stake),
                ) {
                    Err(e) if e.code == "storage" => {
                        assert_eq!(&before, w.casino.ledger().balances(), "a failed write changed nothing")
                    }
                    _ => {}
                }
            }
            let _ = retry(&mut w, &dealer, Request::NoMoreBets { table: "t1".into() });
            let pocket = pockets[(next() % pockets.len() as u64) as usize];
            let _ = retry(
                &mut w,
                &dealer,
                Request::Spin {
                    bonus_words: Vec::new(),
                    table: "t1".into(),
                    spin: ball(pocket),
                },
            );
            assert_eq!(w.casino.ledger().balances().values().sum::<i128>(), 0);
        }
        let storage = w.casino.ledger().storage().clone();
        let balances = w.casino.ledger().balances().clone();
        let (reopened, _) = Casino::open(MemoryStorage::with_entries(storage.entries), w.now + 1).expect("reopen");
        for (account, balance) in &balances {
            assert_eq!(reopened.ledger().balance(account), *balance, "seed {seed}: {account}");
        }
        assert!(reopened.recall_table("t1", 100).len() >= 25, "seed {seed}");
    }
}

/// Many tables and terminals from one seed, storage failing on purpose, and
/// a reference model — chips per player per table, kept from the events the
/// casino reports — that must match the ledger after every request. Among
/// the bets come every irregularity a table meets: no spins, voided rounds,
/// annulled bets, emergencies, disputes, bets in prison, tips, and players
/// leaving and buying in again, from their wallets or for cash at the table.
#[test]
fn simulation_of_many_tables_against_a_reference_model() {
    use std::collections::{BTreeMap, BTreeSet};
    // The kinds of event the runs produced: each irregularity must have happened.
    let kind = |e: &EventView| {
        let event = serde_json::to_value(e).expect("an event serialises");
        event["type"].as_str().unwrap_or_default().to_string()
    };
    let mut seen = BTreeSet::new();
    for seed in [3u64, 17, 101] {
        let (casino, _) = Casino::open(MemoryStorage::failing_every(11 + seed % 5), 0).expect("open");
        let mut w = World { casino, now: 0 };
        let mut rng = seed.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        // Every write is retried until the storage takes it.
        let must = |w: &mut World<MemoryStorage>, who: &Actor, r: Request| loop {
            match w.run(who, r.clone()) {
                Err(e) if e.code == "storage" => continue,
                other => break other,
            }
        };
        let tables = ["a", "b", "c", "d"];
        let players = ["p0", "p1", "p2", "p3", "p4", "p5"];
        let first_admin = Request::CreateUser {
            username: "admin".into(),
            role: Role::Admin,
            password_hash: "h".into(),
            licence: None,
        };
        must(&mut w, &Actor::system(), first_admin).expect("the first admin");
        for (name, role) in [
            ("cashier", Role::Cashier),
            ("dealer", Role::Dealer),
            ("pit", Role::PitSupervisor),
        ] {
            must(
                &mut w,
                &admin(),
                Request::CreateUser {
                    username: name.into(),
                    role,
                    password_hash: "h".into(),
                    licence: common::licence_of(name, role),
                },
            )
            .expect("staff");
        }
        for p in players {
            must(
                &mut w,
                &admin(),
                Request::CreateUser {
                    username: p.into(),
                    role: Role::Player,
                    password_hash: "h".into(),
                    licence: None,
                },
            )
            .expect("player");
        }
        // Maryland ch.1 G(1): the layout shows the operator's name.
        must(
            &mut w,
            &admin(),
            Request::NameOperator {
                name: "Test House".into(),
            },
        )
        .expect("operator");
        let profiles = [
            ("maryland", "triple-zero"),
            ("european-casino", "single-zero"),
            ("colorado-2014", "double-zero"),
            ("colorado-2013", "double-zero-as-single-zero"),
        ];
        // The Colorado table offers In Prison (Colorado 2204(2)), so bets sit
        // imprisoned across rounds, voids and emergencies.
        let prison = [false, false, true, false];
        for ((t, (profile, wheel)), in_prison) in tables.iter().zip(profiles).zip(prison) {
            must(
                &mut w,
                &admin(),
                Request::CreateTable {
                    bonus_text: None,
                    table: t.to_string(),
                    // One casino, one currency: the European house rules, played in dollars.
                    profile_text: croupier_profiles::builtin_text(profile)
                        .expect("profile")
                        .replace("currency = \"EUR\"", "currency = \"USD\""),
                    wheel: wheel.into(),
                    in_prison,
                    betting_window_ms: 600_000,
                    outcome: OutcomeSource::Dealer,
                    shared_colours: false,
                    wheel_address: None,
                },
            )
            .expect("table");
            must(&mut w, &actor("pit", Role::PitSupervisor), inspection(t)).expect("inspect");
            must(
                &mut w,
                &actor("dealer", Role::Dealer),
                Request::OpenTable { table: t.to_string() },
            )
            .expect("open");
        }
        // The reference model: chips per (table, player).
        let mut model: BTreeMap<(String, String), i128> = BTreeMap::new();
        let follow = |model: &mut BTreeMap<(String, String), i128>, events: &[EventView]| {
            for e in events {
                match e {
                    EventView::BoughtIn {
                        table, player, amount, ..
                    }
                    | EventView::ChipsSold {
                        table, player, amount, ..
                    } => *model.entry((table.clone(), player.clone())).or_default() += i128::from(*amount),
                    EventView::BetAccepted {
                        table, player, stake, ..
                    } => *model.entry((table.clone(), player.clone())).or_default() -= i128::from(*stake),
                    EventView::BetSettled {
                        table,
                        player,
                        returned,
                        ..
                    }
                    | EventView::BetReturned {
                        table,
                        player,
                        returned,
                        ..
                    }
                    | EventView::BetCancelled {
                        table,
                        player,
                        returned,
                        ..
                    } => *model.entry((table.clone(), player.clone())).or_default() += i128::from(*returned),
                    EventView::LeftTable {
                        table, player, amount, ..
                    }
                    | EventView::Tipped {
                        table, player, amount, ..
                    } => *model.entry((table.clone(), player.clone())).or_default() -= i128::from(*amount),
                    EventView::DisputeDecided { table, corrections, .. } => {
                        for c in corrections {
                            *model.entry((table.clone(), c.player.clone())).or_default() += i128::from(c.amount);
                        }
                    }
                    _ => {}
                }
            }
        };
        for p in players {
            let events = must(
                &mut w,
                &actor("cashier", Role::Cashier),
                Request::CashIn {
                    id: format!("c{p}"),
                    player: p.into(),
                    amount: Minor::new(1_000_000),
                },
            )
            .expect("cash");
            follow(&mut model, &events);
            for t in tables {
                let events = must(
                    &mut w,
                    &actor(p, Role::Player),
                    buy_in_at(format!("b{p}{t}"), t, 20_000),
                )
                .expect("buy");
                follow(&mut model, &events);
            }
        }
        let spots = [
            "17",
            "red",
            "dozen2",
            "1-2-3",
            "0",
            "odd",
            "13-14-16-17",
            "high",
            "column1",
        ];
        let pockets = ["0", "00", "000", "1", "17", "36", "5", "24"];
        // What a dealer keys; an emergency is the pit's to declare (below).
        let no_spins = [
            "same_direction",
            "too_few_revolutions",
            "ball_left_wheel",
            "foreign_object",
        ];
        let dealer = actor("dealer", Role::Dealer);
        let pit = actor("pit", Role::PitSupervisor);
        let mut settled = 0usize;
        // The bets accepted at each table since its betting last opened, for the pit to annul.
        let mut on_layout: BTreeMap<String, Vec<String>> = BTreeMap::new();
        // The tables under an emergency (declared by the pit, or by a no spin), for the pit to lift.
        let mut emergencies = BTreeSet::new();
        // The cash each table's drop box took for chips sold there.
        let mut drops: BTreeMap<String, i128> = BTreeMap::new();
        for step in 0..3_000u32 {
            let t = tables[(next() % tables.len() as u64) as usize];
            // Mostly the round and its bets; now and then an irregularity.
            let result = match next() % 40 {
                0..=2 => w.run(&dealer, Request::OpenBetting { table: t.into() }),
                3..=5 => w.run(&dealer, Request::NoMoreBets { table: t.into() }),
                6..=9 => {
                    // Zero comes up often, so that even-money bets go to prison and come out.
                    let pocket = if next() % 4 == 0 {
                        "0"
                    } else {
                        pockets[(next() % pockets.len() as u64) as usize]
                    };
                    w.run(
                        &dealer,
                        Request::Spin {
                            bonus_words: Vec::new(),
                            table: t.into(),
                            spin: ball(pocket),
                        },
                    )
                }
                10 => w.run(
                    &actor(players[(next() % 6) as usize], Role::Player),
                    Request::CancelBet {
                        table: t.into(),
                        bet_id: format!("s{}", step.saturating_sub(1)),
                    },
                ),
                11 => {
                    let reason = no_spins[(next() % no_spins.len() as u64) as usize];
                    let called = w.run(
                        &dealer,
                        Request::Spin {
                            bonus_words: Vec::new(),
                            table: t.into(),
                            spin: Spin::NoSpin { no_spin: reason.into() },
                        },
                    );
                    // Colorado 2206(4), Maryland ch.6 B-C: the pit inspects the ball,
                    // most times at once; until then the table spins no more.
                    if next() % 4 != 0 {
                        let damaged = next() % 5 == 0;
                        let _ = w.run(
                            &pit,
                            Request::InspectBall {
                                table: t.into(),
                                damaged,
                            },
                        );
                    }
                    called
                }
                12 => w.run(
                    &admin(),
                    Request::VoidRound {
                        table: t.into(),
                        reason: "simulated irregularity".into(),
                    },
                ),
                13 => w.run(
                    &pit,
                    Request::AnnulBets {
                        table: t.into(),
                        bet_ids: on_layout.get(t).into_iter().flatten().rev().take(2).cloned().collect(),
                        reason: "simulated pooling".into(),
                    },
                ),
                14 if !emergencies.contains(t) => w.run(
                    &pit,
                    Request::DeclareEmergency {
                        table: t.into(),
                        reason: "simulated power loss".into(),
                    },
                ),
                14..=16 => w.run(&pit, Request::LiftEmergency { table: t.into() }),
                17 => {
                    let amount = [-300, -100, 100, 3_500][(next() % 4) as usize];
                    w.run(
                        &pit,
                        Request::Dispute {
                            table: t.into(),
                            reason: "simulated dispute".into(),
                            corrections: vec![StoredCorrection {
                                player: players[(next() % 6) as usize].into(),
                                amount,
                            }],
                            round: None,
                            id: Some(dispute_id()),
                        },
                    )
                }
                18 => w.run(
                    &actor(players[(next() % 6) as usize], Role::Player),
                    Request::Tip {
                        id: format!("tip{step}"),
                        table: t.into(),
                        amount: Minor::new(100),
                    },
                ),
                19 => {
                    // A player leaves (refused while their bets are on the layout) and buys in again.
                    let p = players[(next() % 6) as usize];
                    let left = w.run(
                        &actor(p, Role::Player),
                        Request::LeaveTable {
                            id: format!("leave{step}"),
                            table: t.into(),
                        },
                    );
                    left.map(|mut events| {
                        // From the wallet, or for cash from the dealer (Colorado 2202).
                        let again = if next() % 2 == 0 {
                            must(
                                &mut w,
                                &actor(p, Role::Player),
                                buy_in_at(format!("again{step}"), t, 20_000),
                            )
                        } else {
                            must(
                                &mut w,
                                &dealer,
                                Request::SellChips {
                                    id: format!("again{step}"),
                                    table: t.into(),
                                    player: p.into(),
                                    amount: Minor::new(20_000),
                                    chip_value: Minor::new(100),
                                },
                            )
                        };
                        events.extend(again.expect("buy in again"));
                        events
                    })
                }
                _ => {
                    let p = players[(next() % 6) as usize];
                    let spot = spots[(next() % spots.len() as u64) as usize];
                    let mut request = bet(t, &format!("s{step}"), spot, 100 * (1 + next() % 4));
                    // At the In Prison table an even-money bet may choose half back or prison.
                    if let Request::PlaceBet { zero_choice, .. } = &mut request {
                        if t == "c" && ["red", "odd", "high"].contains(&spot) {
                            *zero_choice =
                                [None, Some("half"), Some("prison")][(next() % 3) as usize].map(String::from);
                        }
                    }
                    w.run(&actor(p, Role::Player), request)
                }
            };
            if let Ok(events) = result {
                settled += events
                    .iter()
                    .filter(|e| matches!(e, EventView::BetSettled { .. }))
                    .count();
                for e in &events {
                    seen.insert(kind(e));
                    match e {
                        EventView::BettingOpened { table, .. } => on_layout.entry(table.clone()).or_default().clear(),
                        EventView::BetAccepted { table, bet_id, .. } => {
                            on_layout.entry(table.clone()).or_default().push(bet_id.clone())
                        }
                        EventView::EmergencyDeclared { table, .. } => {
                            emergencies.insert(table.clone());
                        }
                        EventView::EmergencyLifted { table, .. } => {
                            emergencies.remove(table);
                        }
                        EventView::ChipsSold { table, amount, .. } => {
                            *drops.entry(table.clone()).or_default() += i128::from(*amount)
                        }
                        _ => {}
                    }
                }
                follow(&mut model, &events);
            }
            // After every request, refused or not, the ledger agrees with the model.
            for ((table, player), chips) in &model {
                assert_eq!(
                    w.casino.balance(&format!("chips:{table}:{player}")),
                    *chips,
                    "seed {seed} step {step}: {table}/{player}"
                );
            }
            for t in tables {
                let dropped = drops.get(t).copied().unwrap_or(0);
                assert_eq!(
                    w.casino.balance(&format!("drop:{t}")),
                    dropped,
                    "seed {seed} step {step}: drop:{t}"
                );
            }
            assert_eq!(w.casino.ledger().balances().values().sum::<i128>(), 0);
        }
        assert!(settled >= 20, "seed {seed}: only {settled} bets settled");

        // A restart from the journal gives the same balances.
        let entries = w.casino.ledger().storage().entries.clone();
        let (reopened, _) = Casino::open(MemoryStorage::with_entries(entries), w.now + 1).expect("reopen");
        for ((table, player), chips) in &model {
            let after = reopened.balance(&format!("chips:{table}:{player}"));
            // Rounds still open are voided on reopening, which hands their stakes back.
            assert!(after >= *chips, "seed {seed}: {table}/{player}");
        }
    }
    for wanted in [
        "bet_imprisoned",
        "no_spin",
        "spin_voided",
        "bet_returned",
        "bets_annulled",
        "emergency_declared",
        "dispute_decided",
        "float_filled",
        "tipped",
        "left_table",
        "chips_sold",
    ] {
        assert!(seen.contains(wanted), "no {wanted} in the runs, only {seen:?}");
    }
}
