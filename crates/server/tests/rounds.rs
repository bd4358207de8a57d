//! Rounds at a table: how a round's bets move the money and settle, what a
//! restart does to a round under way, a round of very many bets, and bet ids
//! that would name a movement twice or be too long to settle.

mod common;

use croupier_core::Minor;
use croupier_ledger::{verify, MemoryStorage, SqliteStorage, Storage};
use croupier_server::api::{EventView, Role};
use croupier_server::casino::{Casino, Request};

use common::actors::{actor, admin};
use common::requests::inspection;
use common::table_requests::{ball, bet, buy_in_at, maryland_dealer_table};
use common::world::{fund, inspect_and_open, moves, round_on_17, setup};

#[test]
fn a_round_moves_the_money() {
    let mut w = setup(MemoryStorage::default());
    inspect_and_open(&mut w);
    fund(&mut w, "alice", 10_000, 5_000);
    fund(&mut w, "bob", 10_000, 5_000);
    // Maryland ch.3 B, european-casino 5.1: each player a colour no one else has.
    let colours: Vec<String> = w
        .casino
        .table("t1")
        .expect("t1")
        .colours
        .values()
        .map(|(c, _)| c.clone())
        .collect();
    assert_eq!(colours.len(), 2);
    assert_ne!(colours[0], colours[1]);
    let dealer = actor("dealer", Role::Dealer);
    let alice = actor("alice", Role::Player);
    let bob = actor("bob", Role::Player);
    w.ok(&dealer, Request::OpenBetting { table: "t1".into() });
    w.ok(&alice, bet("t1", "a1", "17", 500));
    w.ok(&alice, bet("t1", "a2", "red", 1_000));
    w.ok(&bob, bet("t1", "b1", "black", 1_000));
    // A resent bet is acknowledged, not placed twice.
    assert!(w.ok(&alice, bet("t1", "a1", "17", 500)).is_empty());
    assert_eq!(w.chips("alice"), 3_500);
    w.ok(&dealer, Request::NoMoreBets { table: "t1".into() });
    // low-limit-house Irregularities (4): past posting is refused.
    let late = w.run(&bob, bet("t1", "b2", "17", 100)).expect_err("late");
    assert_eq!(late.code, "past_posting");
    let events = w.ok(
        &dealer,
        Request::Spin {
            bonus_words: Vec::new(),
            table: "t1".into(),
            spin: ball("17"),
        },
    );
    assert!(events
        .iter()
        .any(|e| matches!(e, EventView::Result { pocket, colour, .. } if pocket == "17" && colour == "black")));
    // alice: 17 wins 500 * 36; red loses. bob: black wins.
    assert_eq!(w.chips("alice"), 5_000 - 1_500 + 18_000);
    assert_eq!(w.chips("bob"), 5_000 - 1_000 + 2_000);
    assert_eq!(w.casino.balance("layout:t1"), 0);
    assert!(w.casino.balance("float:t1") >= 0);
    let total: i128 = w.casino.ledger().balances().values().sum();
    assert_eq!(total, 0);
    // The players are up 16,500 (alice) and 1,000 (bob): the house filled the float with that.
    assert_eq!(w.casino.balance("house"), -17_500);
    assert_eq!(w.casino.balance("float:t1"), 0);
    // Game recall: the round with its bets, result and balances before and after.
    let rounds = w.casino.recall_table("t1", 10);
    assert_eq!(rounds.len(), 1);
    assert_eq!(rounds[0].pocket.as_deref(), Some("17"));
    assert_eq!(rounds[0].bets.len(), 3);
    assert_eq!(rounds[0].chips_before.get("alice"), Some(&5_000));
    assert_eq!(rounds[0].chips_after.get("alice"), Some(&21_500));
    assert_eq!(w.casino.recall_player("bob", 10).len(), 1);
    assert!(w.casino.round("t1/1").is_some());
    // Leaving the table cashes the colour chips back into the wallet (Maryland ch.3 C).
    w.ok(
        &alice,
        Request::LeaveTable {
            id: "l1".into(),
            table: "t1".into(),
        },
    );
    assert_eq!(w.casino.balance("wallet:alice"), 5_000 + 21_500);
    assert_eq!(w.chips("alice"), 0);
}

#[test]
fn a_round_settles_in_one_transfer_of_losing_stakes_and_one_each_way_per_player() {
    let mut w = setup(MemoryStorage::default());
    inspect_and_open(&mut w);
    fund(&mut w, "alice", 10_000, 5_000);
    fund(&mut w, "bob", 10_000, 5_000);
    // Colorado 2205(4): the losing wagers are collected first, then the winners paid.
    // alice's red (1,000) loses; her 17 (500) wins 17,500; bob's black (1,000) wins 1,000.
    assert_eq!(
        round_on_17(&mut w, 1),
        moves(&[
            ("t1/1/lost", "layout:t1", "float:t1", 1_000),
            ("fill/t1/10", "house", "float:t1", 17_500),
            ("t1/1/alice/back", "layout:t1", "chips:t1:alice", 500),
            ("t1/1/alice/won", "float:t1", "chips:t1:alice", 17_500),
            ("t1/1/bob/back", "layout:t1", "chips:t1:bob", 1_000),
            ("t1/1/bob/won", "float:t1", "chips:t1:bob", 1_000),
        ])
    );
    assert_eq!(w.chips("alice"), 5_000 - 1_500 + 18_000);
    assert_eq!(w.chips("bob"), 5_000 + 1_000);
    // Each bet's settlement is still in the round's events and its recall.
    let round = w.casino.round("t1/1").expect("recall");
    assert_eq!(round.bets.len(), 3);
}

#[test]
fn an_interrupted_round_is_void_after_a_restart() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let dir = tmp.path();
    {
        let mut w = setup(SqliteStorage::open(dir).expect("db"));
        inspect_and_open(&mut w);
        fund(&mut w, "alice", 10_000, 4_000);
        let dealer = actor("dealer", Role::Dealer);
        w.ok(&dealer, Request::OpenBetting { table: "t1".into() });
        w.ok(&actor("alice", Role::Player), bet("t1", "a1", "red", 1_000));
        w.ok(&dealer, Request::NoMoreBets { table: "t1".into() });
        assert_eq!(w.chips("alice"), 3_000);
        // The server stops here, before any result.
    }
    let (casino, recovered) = Casino::open(SqliteStorage::open(dir).expect("db"), 1_000_000).expect("reopen");
    assert!(recovered
        .iter()
        .any(|e| matches!(e, EventView::BetReturned { bet_id, returned, .. } if bet_id == "a1" && *returned == 1_000)));
    assert_eq!(casino.balance("chips:t1:alice"), 4_000);
    assert_eq!(casino.balance("layout:t1"), 0);
    drop(casino);
    // Opening again replays everything, recovery included, and changes nothing.
    let (casino, recovered) = Casino::open(SqliteStorage::open(dir).expect("db"), 2_000_000).expect("reopen");
    assert!(recovered.is_empty());
    assert_eq!(casino.balance("chips:t1:alice"), 4_000);
    drop(casino);
    let entries = SqliteStorage::open_read_only(dir).expect("db").load().expect("load");
    assert_eq!(verify(&entries).first_problem, None);
}

/// Regression: the ledger's batch limit (100,000 transfers) was below what
/// settling a full round needs (two per bet), so a round of over 50,000
/// bets could never settle. One player places at most
/// `PLAYER_ROUND_BETS_MAX` bets a round, so 102 players bet here, at a
/// table of electronic terminals where colours repeat (Colorado 2203(3)).
#[test]
fn a_round_of_over_fifty_thousand_bets_settles() {
    let mut w = setup(MemoryStorage::default());
    let mut big = maryland_dealer_table("big");
    if let Request::CreateTable { shared_colours, .. } = &mut big {
        *shared_colours = true;
    }
    w.ok(&admin(), big);
    w.ok(&actor("pit", Role::PitSupervisor), inspection("big"));
    let dealer = actor("dealer", Role::Dealer);
    w.ok(&dealer, Request::OpenTable { table: "big".into() });
    let per_player = croupier_core::round::PLAYER_ROUND_BETS_MAX;
    let players: Vec<String> = (0..102).map(|i| format!("p{i}")).collect();
    for p in &players {
        w.ok(
            &admin(),
            Request::CreateUser {
                username: p.clone(),
                role: Role::Player,
                password_hash: "test-hash".into(),
                licence: None,
            },
        );
        w.ok(
            &actor("cashier", Role::Cashier),
            Request::CashIn {
                id: format!("ci-{p}"),
                player: p.clone(),
                amount: Minor::new(100_000),
            },
        );
        w.ok(
            &actor(p, Role::Player),
            buy_in_at(format!("bi-{p}"), "big", 100 * per_player as u64),
        );
    }
    w.ok(&dealer, Request::OpenBetting { table: "big".into() });
    for p in &players {
        let player = actor(p, Role::Player);
        for i in 0..per_player {
            w.now += 1;
            w.casino
                .execute(w.now, &player, bet("big", &format!("{p}-{i}"), "red", 100))
                .expect("bet");
        }
    }
    let bets = players.len() * per_player;
    assert!(bets > 50_000);
    w.ok(&dealer, Request::NoMoreBets { table: "big".into() });
    // 1 is red: every bet wins, two transfers each.
    let events = w.ok(
        &dealer,
        Request::Spin {
            bonus_words: Vec::new(),
            table: "big".into(),
            spin: ball("1"),
        },
    );
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, EventView::BetSettled { .. }))
            .count(),
        bets
    );
    for p in &players {
        assert_eq!(
            w.casino.balance(&format!("chips:big:{p}")),
            2 * 100 * per_player as i128
        );
    }
}

/// A cancelled bet's id names the movement of its stake; placing a bet under
/// that id again in the round would find the movement made and take no
/// chips. It is refused, and the chips stay right.
#[test]
fn a_cancelled_bets_id_is_not_used_again_in_the_round() {
    let mut w = setup(MemoryStorage::default());
    inspect_and_open(&mut w);
    fund(&mut w, "alice", 10_000, 5_000);
    let dealer = actor("dealer", Role::Dealer);
    let alice = actor("alice", Role::Player);
    w.ok(&dealer, Request::OpenBetting { table: "t1".into() });
    w.ok(&alice, bet("t1", "a1", "red", 1_000));
    w.ok(
        &alice,
        Request::CancelBet {
            table: "t1".into(),
            bet_id: "a1".into(),
        },
    );
    assert_eq!(w.chips("alice"), 5_000);
    let again = w.run(&alice, bet("t1", "a1", "red", 1_000)).expect_err("reused id");
    assert_eq!(again.code, "duplicate_bet");
    assert_eq!(w.chips("alice"), 5_000);
    // european-casino 3.7: a bet the pit annuls goes back, and its id is spent too.
    w.ok(&alice, bet("t1", "a3", "black", 1_000));
    w.ok(
        &actor("pit", Role::PitSupervisor),
        Request::AnnulBets {
            table: "t1".into(),
            bet_ids: vec!["a3".into()],
            reason: "pooling to beat the table maximum".into(),
        },
    );
    assert_eq!(w.chips("alice"), 5_000);
    let again = w.run(&alice, bet("t1", "a3", "black", 1_000)).expect_err("reused id");
    assert_eq!(again.code, "duplicate_bet");
    w.ok(&alice, bet("t1", "a2", "red", 1_000));
    assert_eq!(w.chips("alice"), 4_000);
    w.ok(&dealer, Request::NoMoreBets { table: "t1".into() });
    w.ok(
        &dealer,
        Request::Spin {
            bonus_words: Vec::new(),
            table: "t1".into(),
            spin: ball("2"),
        },
    );
    assert_eq!(w.chips("alice"), 4_000);
    // The next round takes the id again.
    w.ok(&dealer, Request::OpenBetting { table: "t1".into() });
    w.ok(&alice, bet("t1", "a1", "red", 1_000));
    assert_eq!(w.chips("alice"), 3_000);
}

/// A bet whose id would make its settlement's ledger names too long is
/// refused when placed, not left on the layout unable to settle.
#[test]
fn a_bet_id_too_long_to_settle_is_refused_when_placed() {
    let mut w = setup(MemoryStorage::default());
    inspect_and_open(&mut w);
    fund(&mut w, "alice", 10_000, 5_000);
    let dealer = actor("dealer", Role::Dealer);
    let alice = actor("alice", Role::Player);
    w.ok(&dealer, Request::OpenBetting { table: "t1".into() });
    let longest = croupier_server::casino::bet_id_max_bytes("t1");
    let refused = w
        .run(&alice, bet("t1", &"x".repeat(longest + 1), "red", 1_000))
        .expect_err("too long");
    assert_eq!(refused.code, "bad_bet_id");
    w.ok(&alice, bet("t1", &"x".repeat(longest), "red", 1_000));
    w.ok(&dealer, Request::NoMoreBets { table: "t1".into() });
    w.ok(
        &dealer,
        Request::Spin {
            bonus_words: Vec::new(),
            table: "t1".into(),
            spin: ball("1"),
        },
    );
    assert_eq!(w.chips("alice"), 6_000);
}
