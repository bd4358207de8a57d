//! The casino service: money, roles, recall and recovery.

mod common;

use croupier_core::Minor;
use croupier_ledger::{verify, MemoryStorage, SqliteStorage, Storage};
use croupier_server::api::{ApiError, EventView, OutcomeSource, Role};
use croupier_server::casino::journal::FORMAT_WITNESS_CONFIRMS;
use croupier_server::casino::table::books::DealerBooks;
use croupier_server::casino::{replay, Actor, Casino, Request, Spin, StoredCorrection, JOURNAL_FORMAT};

thread_local! {
    static DISPUTES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// A new dispute's id (journal format 14): one a call, in the order of the test's own thread.
fn dispute_id() -> String {
    DISPUTES.with(|n| {
        n.set(n.get() + 1);
        format!("dispute-{}", n.get())
    })
}

fn actor(name: &str, role: Role) -> Actor {
    Actor::new(name, role, "L-77")
}

fn admin() -> Actor {
    actor("admin", Role::Admin)
}

struct World<S: Storage> {
    casino: Casino<S>,
    now: u64,
}

impl<S: Storage> World<S> {
    /// Runs `request`; a table it makes posts its limits at once.
    fn run(&mut self, who: &Actor, request: Request) -> Result<Vec<EventView>, ApiError> {
        common::run_posting_limits(&mut self.casino, &mut self.now, who, request)
    }

    fn ok(&mut self, who: &Actor, request: Request) -> Vec<EventView> {
        let shown = format!("{request:?}");
        self.run(who, request).unwrap_or_else(|e| panic!("{shown}: {e}"))
    }

    fn chips(&self, player: &str) -> i128 {
        self.casino.balance(&format!("chips:t1:{player}"))
    }
}

fn setup<S: Storage>(storage: S) -> World<S> {
    setup_in_format(storage, JOURNAL_FORMAT)
}

/// [`setup`] on a casino that writes journal `format`.
fn setup_in_format<S: Storage>(storage: S, format: u32) -> World<S> {
    setup_with_table(storage, format, maryland_dealer_table("t1"))
}

/// [`setup_in_format`] with `t1` made by `table`.
fn setup_with_table<S: Storage>(storage: S, format: u32, table: Request) -> World<S> {
    let (casino, _) = Casino::open_in_format(storage, 0, format).expect("open");
    let mut w = World { casino, now: 0 };
    // The first admin, as a first run makes one: every actor is a user.
    w.ok(
        &Actor::system(),
        Request::CreateUser {
            username: "admin".into(),
            role: Role::Admin,
            password_hash: "test-hash".into(),
            licence: None,
        },
    );
    for (name, role) in [
        ("cashier", Role::Cashier),
        ("dealer", Role::Dealer),
        ("pit", Role::PitSupervisor),
        ("audit", Role::Auditor),
        ("floor", Role::Floorperson),
        ("floorman", Role::FloorManager),
        ("manager", Role::CasinoManager),
        ("alice", Role::Player),
        ("bob", Role::Player),
        // The security department member (journal format 16).
        ("guard", Role::Security),
    ] {
        if role == Role::Security && format < FORMAT_WITNESS_CONFIRMS {
            continue;
        }
        w.ok(
            &admin(),
            Request::CreateUser {
                username: name.into(),
                role,
                password_hash: "test-hash".into(),
                licence: common::licence_of(name, role),
            },
        );
    }
    // Maryland ch.1 G(1): the layout shows the operator's name (from format 10).
    if format >= 10 {
        w.ok(
            &admin(),
            Request::NameOperator {
                name: "Test House".into(),
            },
        );
    }
    w.ok(&admin(), table);
    w
}

/// A passing pre-opening inspection (Colorado 2212(1), Maryland ch.2 A).
fn inspection(table: &str) -> Request {
    Request::Inspect {
        table: table.into(),
        no_magnet_or_contrivance: true,
        wheel_level_and_rotating_freely: true,
        parts_secure: true,
        ball_non_magnetic: true,
        layout_and_signage_comply: true,
    }
}

/// An adjustment at t1 naming security member `witness` by username (journal format 16).
fn adjust_witnessed_by(witness: &str) -> Request {
    Request::Adjust {
        table: "t1".into(),
        replacement: false,
        description: "levelled the wheel".into(),
        witness: Some(witness.into()),
        witness_licence: None,
        external: false,
    }
}

fn inspect_and_open<S: Storage>(w: &mut World<S>) {
    let pit = actor("pit", Role::PitSupervisor);
    w.ok(&pit, inspection("t1"));
    w.ok(
        &actor("dealer", Role::Dealer),
        Request::OpenTable { table: "t1".into() },
    );
}

fn fund<S: Storage>(w: &mut World<S>, player: &str, amount: u64, bought: u64) {
    let cashier = actor("cashier", Role::Cashier);
    w.ok(
        &cashier,
        Request::CashIn {
            id: format!("ci-{player}-{}", w.now),
            player: player.into(),
            amount: Minor::new(amount),
        },
    );
    w.ok(
        &actor(player, Role::Player),
        buy_in(format!("bi-{player}-{}", w.now), "t1", bought),
    );
}

fn bet(table: &str, id: &str, spot: &str, stake: u64) -> Request {
    Request::PlaceBet {
        table: table.into(),
        bet_id: id.into(),
        spot: spot.into(),
        stake: Minor::new(stake),
        zero_choice: None,
        coupon: None,
        coupon_id: None,
    }
}

/// A buy-in for chips of 100 each.
fn buy_in(id: String, table: &str, amount: u64) -> Request {
    Request::BuyIn {
        id,
        table: table.into(),
        amount: Minor::new(amount),
        chip_value: Minor::new(100),
    }
}

fn spin(pocket: &str) -> Spin {
    Spin::Ball {
        pocket: pocket.into(),
        direction: "opposite".into(),
        revolutions: 6,
    }
}

/// A Maryland double-zero table whose dealer enters each result.
fn maryland_dealer_table(id: &str) -> Request {
    Request::CreateTable {
        bonus_text: None,
        table: id.into(),
        profile_text: include_str!("../../../profiles/maryland.toml").into(),
        wheel: "double-zero".into(),
        in_prison: false,
        betting_window_ms: 60_000,
        outcome: OutcomeSource::Dealer,
        shared_colours: false,
        wheel_address: None,
    }
}
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
            spin: spin("17"),
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

/// A dealer's sale to `player` of `amount` in colour chips worth `chip_value` each, for cash at t1.
fn sale(id: &str, player: &str, amount: u64, chip_value: u64) -> Request {
    Request::SellChips {
        id: id.into(),
        table: "t1".into(),
        player: player.into(),
        amount: Minor::new(amount),
        chip_value: Minor::new(chip_value),
    }
}

/// Colorado 2202: money received at the table for chips goes into the
/// table's drop box; Colorado 2203(1): the dealer issues the chips. Bob buys
/// colour chips with cash, not from his wallet, bets them, and cashes them
/// into his wallet on leaving (Maryland ch.3 C); a resend moves nothing
/// again, and the journal replays to the same balances.
#[test]
fn chips_sold_for_cash_at_the_table_put_the_cash_in_the_drop_box() {
    let mut w = setup(MemoryStorage::default());
    inspect_and_open(&mut w);
    fund(&mut w, "alice", 5_000, 1_000);
    let dealer = actor("dealer", Role::Dealer);
    let bob = actor("bob", Role::Player);
    let events = w.ok(&dealer, sale("s1", "bob", 2_000, 100));
    let colour = match events.as_slice() {
        [EventView::ChipsSold {
            player,
            amount: 2_000,
            colour,
            chip_value: 100,
            ..
        }] if player == "bob" => colour.clone(),
        other => panic!("{other:?}"),
    };
    // Maryland ch.3 B: a colour no one else at the table has.
    let alice_colour = &w.casino.table("t1").expect("t1").colours["alice"].0;
    assert_ne!(&colour, alice_colour);
    assert_eq!(w.chips("bob"), 2_000);
    assert_eq!(w.casino.balance("drop:t1"), 2_000);
    assert_eq!(
        w.casino.balance("wallet:bob"),
        0,
        "the cash did not pass through his wallet"
    );
    // Sent again: acknowledged, nothing moves twice; other contents under the same id: refused.
    w.ok(&dealer, sale("s1", "bob", 2_000, 100));
    assert_eq!((w.chips("bob"), w.casino.balance("drop:t1")), (2_000, 2_000));
    let conflict = w
        .run(&dealer, sale("s1", "bob", 3_000, 100))
        .expect_err("same id, other amount");
    assert_eq!(conflict.code, "refused", "{conflict}");
    assert!(conflict.message.contains("sale/s1"), "{conflict}");
    // Refusals name what is wrong.
    for (request, code) in [
        (sale("s2", "bob", 250, 100), "bad_amount"),
        (sale("s3", "bob", 500, 500), "chip_value"),
        (sale("s4", "nobody", 500, 100), "no_player"),
        (sale("s5", "dealer", 500, 100), "no_player"),
    ] {
        let refused = w.run(&dealer, request.clone()).expect_err("refused");
        assert_eq!(refused.code, code, "{request:?}: {refused}");
    }
    assert_eq!((w.chips("bob"), w.casino.balance("drop:t1")), (2_000, 2_000));
    // The chips play like any others, and leave the table into the wallet.
    w.ok(&dealer, Request::OpenBetting { table: "t1".into() });
    w.ok(&bob, bet("t1", "b1", "black", 1_000));
    w.ok(&dealer, Request::NoMoreBets { table: "t1".into() });
    w.ok(
        &dealer,
        Request::Spin {
            bonus_words: Vec::new(),
            table: "t1".into(),
            spin: spin("17"),
        },
    );
    assert_eq!(w.chips("bob"), 3_000);
    w.ok(
        &bob,
        Request::LeaveTable {
            id: "l1".into(),
            table: "t1".into(),
        },
    );
    assert_eq!(w.casino.balance("wallet:bob"), 3_000);
    assert_eq!(w.casino.balance("drop:t1"), 2_000, "the drop box keeps the cash");
    let total: i128 = w.casino.ledger().balances().values().sum();
    assert_eq!(total, 0);
    let all = w.casino.ledger().storage().entries.clone();
    // Replay compares each entry it writes with the journal's, byte for byte, and lets go of it.
    let again = replay(&all).expect("the journal replays whole");
    assert!(again.ledger().storage().entries.is_empty());
    assert_eq!(again.ledger().balances(), w.casino.ledger().balances());
    assert_eq!(again.balance("drop:t1"), 2_000);
    assert_eq!(again.balance("wallet:bob"), 3_000);
}

/// One round at t1, bets `a{n}` (alice, 17, 500), `a{n}x` (alice, red,
/// 1,000) and `b{n}` (bob, black, 1,000), on 17: the transfers of its settlement.
fn round_on_17(w: &mut World<MemoryStorage>, n: u32) -> Vec<(String, String, String, u64)> {
    let dealer = actor("dealer", Role::Dealer);
    w.ok(&dealer, Request::OpenBetting { table: "t1".into() });
    w.ok(&actor("alice", Role::Player), bet("t1", &format!("a{n}"), "17", 500));
    w.ok(
        &actor("alice", Role::Player),
        bet("t1", &format!("a{n}x"), "red", 1_000),
    );
    w.ok(&actor("bob", Role::Player), bet("t1", &format!("b{n}"), "black", 1_000));
    w.ok(&dealer, Request::NoMoreBets { table: "t1".into() });
    w.ok(
        &dealer,
        Request::Spin {
            bonus_words: Vec::new(),
            table: "t1".into(),
            spin: spin("17"),
        },
    );
    let entry = w
        .casino
        .ledger()
        .storage()
        .entries
        .last()
        .expect("the settlement")
        .clone();
    entry
        .record
        .transfers()
        .iter()
        .map(|t| (t.id.clone(), t.from.to_string(), t.to.to_string(), t.amount.get()))
        .collect()
}

fn moves(list: &[(&str, &str, &str, u64)]) -> Vec<(String, String, String, u64)> {
    list.iter()
        .map(|&(id, from, to, amount)| (id.to_string(), from.to_string(), to.to_string(), amount))
        .collect()
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
fn a_journal_of_the_older_format_goes_on_in_the_new_one_and_replays_whole() {
    // A journal as a server writing format 1 left it: each bet's money moved on its own.
    let mut w = setup_in_format(MemoryStorage::default(), 1);
    inspect_and_open(&mut w);
    fund(&mut w, "alice", 10_000, 5_000);
    fund(&mut w, "bob", 10_000, 5_000);
    let older = round_on_17(&mut w, 1);
    assert_eq!(
        older,
        moves(&[
            ("t1/1/a1x/lost", "layout:t1", "float:t1", 1_000),
            ("fill/t1/9", "house", "float:t1", 17_500),
            ("t1/1/a1/back", "layout:t1", "chips:t1:alice", 500),
            ("t1/1/a1/won", "float:t1", "chips:t1:alice", 17_500),
            ("t1/1/b1/back", "layout:t1", "chips:t1:bob", 1_000),
            ("t1/1/b1/won", "float:t1", "chips:t1:bob", 1_000),
        ])
    );
    let written = w.casino.ledger().storage().entries.clone();
    assert!(written.iter().all(|e| !e.text.contains("journal_format")));

    // This server opens it, marks where its own format starts, and settles per player.
    let (casino, _) = Casino::open(MemoryStorage::with_entries(written.clone()), w.now).expect("reopen");
    let mut w = World { casino, now: w.now };
    let entries = w.casino.ledger().storage().entries.clone();
    assert_eq!(entries.len(), written.len() + 1);
    // The entry that says so is the last of the old format; those after it keep their bodies as JSON.
    assert!(entries[written.len()]
        .text
        .contains(&format!(r#"{{\"op\":\"journal_format\",\"format\":{JOURNAL_FORMAT}}}"#)));
    assert_eq!(round_on_17(&mut w, 2).len(), 6);
    assert!(w.casino.ledger().storage().entries[written.len() + 1]
        .text
        .contains(r#""body":{"at_ms":"#));
    assert!(
        w.casino
            .ledger()
            .storage()
            .entries
            .last()
            .expect("entry")
            .record
            .transfers()[0]
            .id
            == "t1/2/lost"
    );
    assert_eq!(w.chips("alice"), 5_000 + 2 * 16_500);
    assert_eq!(w.chips("bob"), 5_000 + 2 * 1_000);

    // Both formats replay to the same entries, and a second opening marks nothing more.
    let all = w.casino.ledger().storage().entries.clone();
    assert!(verify(&all).first_problem.is_none());
    // Replay compares each entry it writes with the journal's, byte for byte, and lets go of it.
    let again = replay(&all).expect("the journal replays whole");
    assert!(again.ledger().storage().entries.is_empty());
    assert_eq!(again.ledger().balances(), w.casino.ledger().balances());
    assert_eq!(again.balance("chips:t1:alice"), w.chips("alice"));
    let (reopened, _) = Casino::open(MemoryStorage::with_entries(all.clone()), w.now).expect("reopen");
    assert_eq!(reopened.ledger().storage().entries.len(), all.len());
    // Only a later format known to this server is taken.
    let (mut older, _) = Casino::open_in_format(MemoryStorage::default(), 0, 1).expect("open");
    for format in [1, JOURNAL_FORMAT + 1] {
        let refused = older
            .execute(1, &Actor::system(), Request::JournalFormat { format })
            .expect_err("refused");
        assert_eq!(refused.code, "bad_format", "{format}");
    }
}

#[test]
fn every_role_is_checked() {
    let mut w = setup(MemoryStorage::default());
    let alice = actor("alice", Role::Player);
    let dealer = actor("dealer", Role::Dealer);
    let cashier = actor("cashier", Role::Cashier);
    let auditor = actor("audit", Role::Auditor);
    let refused = |w: &mut World<MemoryStorage>, who: &Actor, r: Request| w.run(who, r).expect_err("refused").code;
    assert_eq!(
        refused(&mut w, &alice, Request::OpenTable { table: "t1".into() }),
        "forbidden"
    );
    assert_eq!(
        refused(&mut w, &auditor, Request::OpenTable { table: "t1".into() }),
        "forbidden"
    );
    assert_eq!(
        refused(
            &mut w,
            &dealer,
            Request::CashIn {
                id: "x".into(),
                player: "alice".into(),
                amount: Minor::new(5)
            }
        ),
        "forbidden"
    );
    assert_eq!(
        refused(
            &mut w,
            &alice,
            Request::CashIn {
                id: "x".into(),
                player: "alice".into(),
                amount: Minor::new(5)
            }
        ),
        "forbidden"
    );
    assert_eq!(
        refused(
            &mut w,
            &cashier,
            Request::CreateUser {
                username: "eve".into(),
                role: Role::Admin,
                password_hash: "h".into(),
                licence: None,
            }
        ),
        "forbidden"
    );
    assert_eq!(refused(&mut w, &cashier, bet("t1", "x", "17", 100)), "forbidden");
    assert_eq!(refused(&mut w, &alice, inspection("t1")), "forbidden");
    // Colorado 2212(1), Maryland ch.2 A: no opening before the inspection.
    assert_eq!(
        refused(&mut w, &dealer, Request::OpenTable { table: "t1".into() }),
        "not_inspected"
    );
    inspect_and_open(&mut w);
    w.ok(&dealer, Request::OpenBetting { table: "t1".into() });
    // No chips at the table: buy in first.
    assert_eq!(refused(&mut w, &alice, bet("t1", "x", "17", 100)), "not_seated");
    fund(&mut w, "alice", 1_000, 1_000);
    assert_eq!(
        refused(&mut w, &alice, bet("t1", "x", "17", 2_000)),
        "insufficient_chips"
    );
    assert_eq!(refused(&mut w, &alice, bet("t1", "x", "17", 150)), "bad_stake");
    // A refused bet says why in its own code.
    assert_eq!(refused(&mut w, &alice, bet("t1", "x", "1-36", 100)), "not_on_layout");
    // Colorado 2206(5): disputes are the pit supervisor's, not the dealer's;
    // a correction pays or collects a wager of the round disputed.
    w.ok(&alice, bet("t1", "x", "17", 100));
    w.ok(&dealer, Request::NoMoreBets { table: "t1".into() });
    w.ok(
        &dealer,
        Request::Spin {
            bonus_words: Vec::new(),
            table: "t1".into(),
            spin: spin("2"),
        },
    );
    let dispute = Request::Dispute {
        table: "t1".into(),
        reason: "chip on the line".into(),
        corrections: vec![StoredCorrection {
            player: "alice".into(),
            amount: 300,
        }],
        round: None,
        id: Some(dispute_id()),
    };
    assert_eq!(refused(&mut w, &dealer, dispute.clone()), "forbidden");
    // The Maryland profile names the floorperson, a role of its own from journal format 10.
    assert_eq!(
        refused(&mut w, &actor("pit", Role::PitSupervisor), dispute.clone()),
        "forbidden"
    );
    w.ok(&actor("floor", Role::Floorperson), dispute);
    assert_eq!(w.chips("alice"), 1_000 - 100 + 300);
}

/// Where a table stands when a request of [`every_request_refuses_every_role_but_its_own`]
/// arrives: each is a state in which the request goes ahead for a role allowed it.
#[derive(Clone, Copy, Debug)]
enum Stage {
    /// Not yet inspected or opened, in a journal of the older format 1.
    Closed,
    /// Inspected, not yet open.
    Inspected,
    /// Inspected and open, no round under way.
    Open,
    /// Betting open, alice seated with money left in her wallet and a bet
    /// `b1` on red.
    Betting,
    /// As `Betting`, then no more bets.
    NoMoreBets,
    /// As `Betting`, then an emergency.
    Emergency,
    /// As `Betting`, then the round settled on 2 (alice's bet lost).
    Settled,
    /// Alice seated, betting open, nothing on the layout.
    Seated,
}

fn staged(stage: Stage) -> World<MemoryStorage> {
    let dealer = actor("dealer", Role::Dealer);
    let alice = actor("alice", Role::Player);
    if let Stage::Closed = stage {
        return setup_in_format(MemoryStorage::default(), 1);
    }
    let mut w = setup(MemoryStorage::default());
    if let Stage::Inspected = stage {
        w.ok(&actor("pit", Role::PitSupervisor), inspection("t1"));
        return w;
    }
    inspect_and_open(&mut w);
    if let Stage::Open = stage {
        return w;
    }
    fund(&mut w, "alice", 5_000, 1_000);
    w.ok(&dealer, Request::OpenBetting { table: "t1".into() });
    if let Stage::Seated = stage {
        return w;
    }
    w.ok(&alice, bet("t1", "b1", "red", 100));
    match stage {
        Stage::NoMoreBets => {
            w.ok(&dealer, Request::NoMoreBets { table: "t1".into() });
        }
        Stage::Settled => {
            w.ok(&dealer, Request::NoMoreBets { table: "t1".into() });
            w.ok(
                &dealer,
                Request::Spin {
                    bonus_words: Vec::new(),
                    table: "t1".into(),
                    spin: spin("2"),
                },
            );
        }
        Stage::Emergency => {
            w.ok(
                &actor("pit", Role::PitSupervisor),
                Request::DeclareEmergency {
                    table: "t1".into(),
                    reason: "power loss".into(),
                },
            );
        }
        _ => {}
    }
    w
}

/// The one user of each role who asks in [`every_request_refuses_every_role_but_its_own`].
fn one_of(role: Role) -> Actor {
    let name = match role {
        Role::Admin => "admin",
        Role::PitSupervisor => "pit",
        Role::Floorperson => "floor",
        Role::FloorManager => "floorman",
        Role::CasinoManager => "manager",
        Role::Dealer => "dealer",
        Role::Cashier => "cashier",
        Role::Auditor => "audit",
        Role::Security => "guard",
        Role::Player => "alice",
    };
    actor(name, role)
}

/// Every request the casino takes, each with the roles that may make it: for
/// those it goes ahead, and every other role is refused as `forbidden`, named
/// in the refusal, with nothing written. An auditor changes nothing, staff
/// never bet, buy in or tip, a player never handles cash, runs the table or
/// decides a dispute, and only the cashier handles a wallet's cash. The
/// HTTP edge also refuses the server's own requests to everyone;
/// `serve_refuses_every_role_what_its_endpoint_is_not_for` holds that.
#[test]
fn every_request_refuses_every_role_but_its_own() {
    use Role::{Admin, Cashier, CasinoManager, Dealer, FloorManager, Floorperson, PitSupervisor, Player, Security};
    use Stage::*;
    // The floor's supervisors under each document's title do the pit's work.
    const STAFF: &[Role] = &[Dealer, PitSupervisor, Floorperson, FloorManager, CasinoManager, Admin];
    const PIT: &[Role] = &[PitSupervisor, Floorperson, FloorManager, CasinoManager, Admin];
    let t1 = || "t1".to_string();
    let cases: Vec<(Request, &[Role], Stage)> = vec![
        (
            Request::CreateUser {
                username: "eve".into(),
                role: Player,
                password_hash: "test-hash".into(),
                licence: None,
            },
            &[Admin],
            Betting,
        ),
        (Request::LockUser { username: "bob".into() }, &[Admin], Betting),
        (Request::UnlockUser { username: "bob".into() }, &[Admin], Betting),
        (
            Request::SetPassword {
                username: "bob".into(),
                password_hash: "another-hash".into(),
                must_change: true,
            },
            &[Admin],
            Betting,
        ),
        (Request::LoginFailed { username: "bob".into() }, &[Admin], Betting),
        (Request::LoginSucceeded { username: "bob".into() }, &[Admin], Betting),
        (Request::JournalFormat { format: JOURNAL_FORMAT }, &[Admin], Closed),
        (maryland_dealer_table("t9"), &[Admin], Betting),
        // Colorado 2212(1), Maryland ch.2 A: the pit or a security member inspects.
        (
            inspection("t1"),
            &[PitSupervisor, Floorperson, FloorManager, CasinoManager, Admin, Security],
            Closed,
        ),
        // Colorado 2212(2), Maryland ch.2 B: adjustments are logged while the table is closed.
        (
            Request::Adjust {
                table: t1(),
                replacement: false,
                description: "levelled the wheel".into(),
                witness: Some("Sam Guard".into()),
                witness_licence: Some("S-77".into()),
                external: false,
            },
            PIT,
            Closed,
        ),
        (Request::OpenTable { table: t1() }, STAFF, Inspected),
        (
            Request::CloseTable {
                table: t1(),
                wheel_cover_locked: true,
            },
            STAFF,
            Open,
        ),
        (Request::OpenBetting { table: t1() }, STAFF, Open),
        (Request::NoMoreBets { table: t1() }, STAFF, Betting),
        (
            Request::Spin {
                bonus_words: Vec::new(),
                table: t1(),
                spin: spin("17"),
            },
            STAFF,
            NoMoreBets,
        ),
        (
            Request::CashIn {
                id: "m-in".into(),
                player: "alice".into(),
                amount: Minor::new(100),
            },
            &[Cashier, Admin],
            Betting,
        ),
        (
            Request::CashOut {
                id: "m-out".into(),
                player: "alice".into(),
                amount: Minor::new(100),
            },
            &[Cashier, Admin],
            Betting,
        ),
        (buy_in("m-buy".into(), "t1", 100), &[Player], Betting),
        // Colorado 2203(1): the dealer issues chips, here for cash (2202).
        (sale("m-sale", "bob", 100, 100), STAFF, Betting),
        (
            Request::LeaveTable {
                id: "m-leave".into(),
                table: t1(),
            },
            &[Player],
            Seated,
        ),
        (
            Request::Tip {
                id: "m-tip".into(),
                table: t1(),
                amount: Minor::new(100),
            },
            &[Player],
            Betting,
        ),
        (bet("t1", "m-bet", "17", 100), &[Player], Betting),
        (
            Request::CancelBet {
                table: t1(),
                bet_id: "b1".into(),
            },
            &[Player],
            Betting,
        ),
        // european-casino 6.1-6.3 emergencies, decided by the pit.
        (
            Request::DeclareEmergency {
                table: t1(),
                reason: "power loss".into(),
            },
            PIT,
            Betting,
        ),
        (Request::LiftEmergency { table: t1() }, PIT, Emergency),
        // The Maryland profile's dispute authority is the floorperson (ch.6 B(2)),
        // from journal format 10 a role of its own, correcting a wager of the round settled.
        (
            Request::Dispute {
                table: t1(),
                reason: "chip on the line".into(),
                corrections: vec![StoredCorrection {
                    player: "alice".into(),
                    amount: 100,
                }],
                round: None,
                id: Some(dispute_id()),
            },
            &[Floorperson],
            Settled,
        ),
        // european-casino 3.7: bets pooled over the maximum are annulled by the pit.
        (
            Request::AnnulBets {
                table: t1(),
                bet_ids: vec!["b1".into()],
                reason: "pooled over the maximum".into(),
            },
            PIT,
            Betting,
        ),
        (
            Request::VoidRound {
                table: t1(),
                reason: "restart".into(),
            },
            &[Admin],
            Betting,
        ),
    ];
    for (request, allowed, stage) in &cases {
        for role in Role::ALL {
            let mut w = staged(*stage);
            let written = w.casino.ledger().next_seq();
            match w.run(&one_of(role), request.clone()) {
                Err(e) if e.code == "forbidden" => {
                    assert!(!allowed.contains(&role), "{role:?} was refused {request:?}: {e}");
                    assert_eq!(w.casino.ledger().next_seq(), written, "a refusal wrote to the journal");
                    assert!(e.message.contains(role.name()), "the refusal names the role: {e}");
                }
                Err(e) => panic!("{role:?} {request:?} at {stage:?}: {e}"),
                Ok(_) => assert!(allowed.contains(&role), "{role:?} was not refused {request:?}"),
            }
        }
    }
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
            retry(&mut w, &actor(p, Role::Player), buy_in(format!("b-{p}"), "t1", 50_000)).expect("buy");
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
                    spin: spin(pocket),
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
            buy_in(format!("bi-{p}"), "big", 100 * per_player as u64),
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
            spin: spin("1"),
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
                let events = must(&mut w, &actor(p, Role::Player), buy_in(format!("b{p}{t}"), t, 20_000)).expect("buy");
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
                            spin: spin(pocket),
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
                                buy_in(format!("again{step}"), t, 20_000),
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
            spin: spin("2"),
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
            spin: spin("1"),
        },
    );
    assert_eq!(w.chips("alice"), 6_000);
}

/// A table's ledger ids begin with its id; the words that begin the other
/// ledger ids (a tip, a buy-in, a fill...) are not table ids.
#[test]
fn a_table_may_not_take_a_word_the_ledger_uses() {
    let mut w = setup(MemoryStorage::default());
    for word in croupier_server::casino::RESERVED_TABLE_IDS {
        let refused = w.run(&admin(), maryland_dealer_table(word)).expect_err(word);
        assert_eq!(refused.code, "bad_table", "{word}");
    }
}

/// A dispute is decided by the role the profile names (Colorado 2206(5)): a
/// player's attempt is refused for the role before anything in it is looked
/// up, so it tells nothing about who is a player; an auditor is "an auditor".
#[test]
fn a_dispute_from_a_role_that_cannot_decide_one_tells_nothing() {
    let mut w = setup(MemoryStorage::default());
    let dispute = |player: &str| Request::Dispute {
        table: "t1".into(),
        reason: "a chip on the line".into(),
        corrections: vec![StoredCorrection {
            player: player.into(),
            amount: 1,
        }],
        round: None,
        id: Some(dispute_id()),
    };
    for named in ["bob", "nobody"] {
        let refused = w
            .run(&actor("alice", Role::Player), dispute(named))
            .expect_err("refused");
        assert_eq!(refused.code, "forbidden", "{named}: {refused}");
    }
    let refused = w
        .run(&actor("audit", Role::Auditor), dispute("bob"))
        .expect_err("refused");
    assert!(refused.message.starts_with("an auditor may not"), "{refused}");
}

/// A table id begins with a letter or a digit: `-` or `..` would make
/// paths such as `/api/tables/../log` of it.
#[test]
fn a_table_id_begins_with_a_letter_or_a_digit() {
    let mut w = setup(MemoryStorage::default());
    for id in ["-", "..", ".t", "_t"] {
        let refused = w.run(&admin(), maryland_dealer_table(id)).expect_err("refused");
        assert_eq!(refused.code, "bad_table", "{id:?}: {refused}");
    }
    w.ok(&admin(), maryland_dealer_table("9t"));
}

/// A Maryland double-zero table whose results come from `outcome`.
fn maryland_table(id: &str, outcome: OutcomeSource) -> Request {
    let mut table = maryland_dealer_table(id);
    if let Request::CreateTable {
        outcome: o,
        wheel_address,
        ..
    } = &mut table
    {
        *o = outcome;
        if outcome == OutcomeSource::Wheel {
            *wheel_address = Some("127.0.0.1:9".into());
        }
    }
    table
}

/// Opens `table` and takes it to no more bets. At an automated wheel's
/// table betting opens only as the wheel's game finishes: the server opens it.
fn to_no_more_bets<S: Storage>(w: &mut World<S>, table: &str) {
    let dealer = actor("dealer", Role::Dealer);
    w.ok(&actor("pit", Role::PitSupervisor), inspection(table));
    w.ok(&dealer, Request::OpenTable { table: table.into() });
    let opener = if table == "wheel" {
        Actor::system()
    } else {
        dealer.clone()
    };
    w.ok(&opener, Request::OpenBetting { table: table.into() });
    w.ok(&dealer, Request::NoMoreBets { table: table.into() });
}

fn refused_as(w: &mut World<MemoryStorage>, who: &Actor, request: Request, code: &str) {
    let before = w.casino.ledger().storage().entries.len();
    let shown = format!("{request:?}");
    let refused = w.run(who, request).expect_err(&shown);
    assert_eq!(refused.code, code, "{shown}: {refused}");
    assert_eq!(
        w.casino.ledger().storage().entries.len(),
        before,
        "{shown} wrote nothing"
    );
}

fn settles(events: &[EventView]) -> bool {
    events.iter().any(|e| matches!(e, EventView::RoundSettled { .. }))
}

/// The journal from entry `from` on chained again, as someone who can write
/// the file would: the chain alone no longer tells.
fn rechained(mut entries: Vec<croupier_ledger::Entry>, from: usize) -> Vec<croupier_ledger::Entry> {
    for i in from..entries.len() {
        let prev = if i == 0 { [0; 32] } else { entries[i - 1].hash };
        let e = &entries[i];
        entries[i] = croupier_ledger::Entry::new(e.seq, e.at_ms, e.record.clone(), prev);
    }
    entries
}

// Colorado 2205(4) and the RNG's certification: a round's result comes only
// from its table's outcome source, and the journal keeps the source's evidence.
#[test]
fn a_result_comes_only_from_its_tables_source() {
    let mut w = setup(MemoryStorage::default());
    let (dealer, system) = (actor("dealer", Role::Dealer), Actor::system());
    w.ok(&admin(), maryland_table("rng", OutcomeSource::Rng));
    w.ok(&admin(), maryland_table("wheel", OutcomeSource::Wheel));
    to_no_more_bets(&mut w, "rng");
    to_no_more_bets(&mut w, "wheel");

    // No one enters a result at an RNG or a wheel table, not even the server.
    for table in ["rng", "wheel"] {
        for who in [&dealer, &admin(), &system] {
            let entered = Request::Spin {
                bonus_words: Vec::new(),
                table: table.into(),
                spin: spin("17"),
            };
            refused_as(&mut w, who, entered, "not_dealer_table");
        }
    }
    // A draw is checked against its word: the word gives the pocket.
    let pockets = croupier_rng::wheel_pockets(croupier_core::Wheel::DoubleZero);
    let (word, drawn) = (40u32, pockets[40 % 38].label());
    let other = pockets[(40 + 1) % 38].label();
    let draw = |pocket: &str, word: u32, table: &str| Request::Draw {
        bonus_words: Vec::new(),
        table: table.into(),
        pocket: pocket.into(),
        word,
    };
    refused_as(&mut w, &dealer, draw(other, word, "rng"), "bad_spin");
    refused_as(&mut w, &dealer, draw(drawn, u32::MAX, "rng"), "bad_spin");
    refused_as(&mut w, &dealer, draw(drawn, word, "wheel"), "not_rng");
    refused_as(
        &mut w,
        &actor("alice", Role::Player),
        draw(drawn, word, "rng"),
        "forbidden",
    );
    assert!(settles(&w.ok(&dealer, draw(drawn, word, "rng"))));

    // A wheel's game is read again from its frames; only the server sends it.
    let frames: Vec<String> = ["*X;1;012;17;0;25;1", "*X;4;012;17;0;23;1", "*X;5;012; 6;0;22;1"]
        .map(String::from)
        .to_vec();
    let game = |game: u16, frames: &[String], table: &str| Request::WheelGame {
        bonus_words: Vec::new(),
        table: table.into(),
        game,
        frames: frames.to_vec(),
    };
    refused_as(&mut w, &dealer, game(12, &frames, "wheel"), "forbidden");
    refused_as(&mut w, &system, game(13, &frames, "wheel"), "bad_spin");
    refused_as(&mut w, &system, game(12, &frames[..2], "wheel"), "bad_spin");
    refused_as(&mut w, &system, game(12, &frames, "rng"), "not_wheel");
    let settled = w.ok(&system, game(12, &frames, "wheel"));
    assert!(
        settled
            .iter()
            .any(|e| matches!(e, EventView::Result { pocket, .. } if pocket == "6")),
        "{settled:?}"
    );

    // A result entered into the file by hand, its chain made good, does not replay.
    let entries = w.casino.ledger().storage().entries.clone();
    assert!(replay(&entries).is_ok());
    let at = entries
        .iter()
        .position(|e| e.text.contains(r#""op":"draw""#))
        .expect("the draw's entry");
    let mut forged = entries.clone();
    let text = forged[at].text.replace(
        &format!(r#""op":"draw","table":"rng","pocket":"{drawn}","word":{word}"#),
        &format!(r#""op":"spin","table":"rng","spin":{{"pocket":"{drawn}","direction":"opposite","revolutions":6}}"#),
    );
    assert_ne!(text, forged[at].text, "the draw's request is in the entry");
    forged[at].record = serde_json::from_str(&text).expect("a record");
    let forged = rechained(forged, at);
    assert!(verify(&forged).first_problem.is_none(), "the chain alone is consistent");
    let refused = replay(&forged).err().expect("the forged result is refused");
    assert!(refused.to_string().contains("no one may enter"), "{refused}");
}

// Colorado 2205(2), Maryland ch.5 B, european-casino 3.1: betting closes
// before the ball is launched. A wheel's game whose frames begin with the
// ball already in flight (the table reconnected mid-game) may have been bet
// on after the launch: from format 6 it is a no spin, and replays as one;
// a format-5 journal replays as it was.
#[test]
fn a_wheel_game_first_seen_in_flight_is_a_no_spin_from_format_6() {
    let system = Actor::system();
    for format in [JOURNAL_FORMAT, 5] {
        let mut w = setup_in_format(MemoryStorage::default(), format);
        w.ok(&admin(), maryland_table("wheel", OutcomeSource::Wheel));
        to_no_more_bets(&mut w, "wheel");
        let in_flight = Request::WheelGame {
            bonus_words: Vec::new(),
            table: "wheel".into(),
            game: 12,
            frames: ["*X;3;012;17;0;24;1", "*X;5;012; 6;0;22;1"].map(String::from).to_vec(),
        };
        let events = w.ok(&system, in_flight);
        let no_spin = events
            .iter()
            .any(|e| matches!(e, EventView::NoSpin { reason, .. } if reason == "launch_unseen"));
        let result = events.iter().any(|e| matches!(e, EventView::Result { .. }));
        assert_eq!(
            (no_spin, result),
            (format >= 6, format < 6),
            "format {format}: {events:?}"
        );
        if format >= 6 {
            // The next game, watched from its start, settles the round.
            let watched = Request::WheelGame {
                bonus_words: Vec::new(),
                table: "wheel".into(),
                game: 13,
                frames: ["*X;1;013; 6;0;25;1", "*X;3;013; 6;0;24;1", "*X;5;013;21;0;22;1"]
                    .map(String::from)
                    .to_vec(),
            };
            assert!(settles(&w.ok(&system, watched)));
        }
        let entries = w.casino.ledger().storage().entries.clone();
        assert!(replay(&entries).is_ok(), "format {format} replays");
    }
}

/// `create_table` for `profile_text` on `wheel`, a dealer's table.
fn new_table(table: &str, profile_text: &str, wheel: &str, in_prison: bool) -> Request {
    Request::CreateTable {
        bonus_text: None,
        table: table.into(),
        profile_text: profile_text.into(),
        wheel: wheel.into(),
        in_prison,
        betting_window_ms: 60_000,
        outcome: OutcomeSource::Dealer,
        shared_colours: false,
        wheel_address: None,
    }
}

// From format 6 a new table keeps the casino's currency (one wallet serves
// every table), offers no In Prison where its notice says even-money wagers
// lose on 0 (Colorado 2210(2)(c)(ii)(C), Maryland ch.5 C(3)), and hands a
// half back whole (Colorado 2204(2)). A format-5 journal replays as it was.
#[test]
fn a_new_table_keeps_the_casinos_currency_and_its_zero_rules_from_format_6() {
    let text = |name: &str| {
        croupier_profiles::builtin_text(name)
            .expect("a shipped profile")
            .to_string()
    };
    let rounded_down = text("colorado-2014").replace("half_rounding = \"up\"", "half_rounding = \"down\"");
    assert_ne!(rounded_down, text("colorado-2014"));
    let refused = [
        (
            new_table("eu", &text("european-casino"), "single-zero", false),
            "bad_table",
            "plays in USD",
        ),
        (
            new_table("dz", &text("colorado-2014"), "double-zero-as-single-zero", true),
            "bad_table",
            "2210(2)(c)(ii)(C)",
        ),
        (
            new_table("down", &rounded_down, "double-zero", true),
            "bad_profile",
            "2204(2)",
        ),
    ];
    let mut w = setup(MemoryStorage::default());
    for (request, code, says) in refused.clone() {
        let refusal = w.run(&admin(), request).expect_err(code);
        assert_eq!(refusal.code, code, "{refusal}");
        assert!(refusal.message.contains(says), "{refusal}");
    }
    // What the rules allow: In Prison on a double-zero wheel, rounding down where no half goes back.
    w.ok(&admin(), new_table("dz", &text("colorado-2014"), "double-zero", true));
    w.ok(&admin(), new_table("down", &rounded_down, "double-zero", false));
    w.ok(
        &admin(),
        new_table("sz", &text("colorado-2014"), "double-zero-as-single-zero", false),
    );

    // In format 5 each was taken, and replays.
    let mut old = setup_in_format(MemoryStorage::default(), 5);
    for (request, _, _) in refused {
        old.ok(&admin(), request);
    }
    let entries = old.casino.ledger().storage().entries.clone();
    assert!(replay(&entries).is_ok());
}

// Colorado 2205(2), Maryland ch.5 B: at an automated wheel's table no one
// opens betting by hand, where the wheel's ball may already be rolling;
// the server opens it as each game finishes. A format-5 journal replays as it was.
#[test]
fn no_one_opens_betting_by_hand_at_an_automated_wheel_from_format_6() {
    for format in [JOURNAL_FORMAT, 5] {
        let mut w = setup_in_format(MemoryStorage::default(), format);
        w.ok(&admin(), maryland_table("wheel", OutcomeSource::Wheel));
        w.ok(&actor("pit", Role::PitSupervisor), inspection("wheel"));
        w.ok(
            &actor("dealer", Role::Dealer),
            Request::OpenTable { table: "wheel".into() },
        );
        let by_hand = Request::OpenBetting { table: "wheel".into() };
        for who in [
            actor("dealer", Role::Dealer),
            actor("pit", Role::PitSupervisor),
            admin(),
        ] {
            if format >= 6 {
                refused_as(&mut w, &who, by_hand.clone(), "not_dealer_table");
            }
        }
        if format < 6 {
            w.ok(&actor("dealer", Role::Dealer), by_hand.clone());
        } else {
            w.ok(&Actor::system(), by_hand.clone());
        }
        let entries = w.casino.ledger().storage().entries.clone();
        assert!(replay(&entries).is_ok(), "format {format} replays");
    }
}

// A journal from before results came only from their source replays as it was.
#[test]
fn a_journal_where_a_dealer_entered_an_rng_result_replays_as_it_was() {
    let mut w = setup_in_format(MemoryStorage::default(), 3);
    let dealer = actor("dealer", Role::Dealer);
    w.ok(&admin(), maryland_table("rng", OutcomeSource::Rng));
    to_no_more_bets(&mut w, "rng");
    let entered = || Request::Spin {
        bonus_words: Vec::new(),
        table: "rng".into(),
        spin: spin("17"),
    };
    assert!(settles(&w.ok(&dealer, entered())));
    let entries = w.casino.ledger().storage().entries.clone();
    let (casino, _) = Casino::open(MemoryStorage::with_entries(entries), w.now).expect("replays");
    let mut w = World { casino, now: w.now };
    w.ok(&dealer, Request::OpenBetting { table: "rng".into() });
    w.ok(&dealer, Request::NoMoreBets { table: "rng".into() });
    refused_as(&mut w, &dealer, entered(), "not_dealer_table");
}

// A request carries its actor into the journal; one no sign-in could make
// (a name the casino does not know, a user in a role not theirs) is refused,
// live and on replay, so a hand-written entry cannot borrow an admin's power.
#[test]
fn only_a_user_the_casino_knows_acts_and_only_in_their_own_role() {
    let mut w = setup(MemoryStorage::default());
    let eve = Request::CreateUser {
        username: "eve".into(),
        role: Role::Admin,
        password_hash: "test-hash".into(),
        licence: None,
    };
    let refused = w.run(&actor("ghost", Role::Admin), eve.clone()).expect_err("a ghost");
    assert_eq!(
        (refused.code.as_str(), refused.message.as_str()),
        ("forbidden", "no user \"ghost\" acts here")
    );
    let refused = w
        .run(&actor("alice", Role::Admin), eve.clone())
        .expect_err("a player as an admin");
    assert_eq!(refused.message, "alice is a player, not an admin");
    let refused = w
        .run(&actor("alice", Role::Dealer), Request::OpenTable { table: "t1".into() })
        .expect_err("a player as a dealer, at a table");
    assert_eq!(refused.message, "alice is a player, not a dealer");
    assert!(w.casino.user("eve").is_none());
    w.ok(&admin(), eve);
}

// A locked account acts no more, even through a request already on its way
// when the lock landed; and the last admin who can sign in is never locked,
// so someone is always left to unlock the others.
#[test]
fn a_locked_user_acts_no_more_and_the_last_admin_stays_unlocked() {
    let mut w = setup(MemoryStorage::default());
    let lock = |who: &str| Request::LockUser { username: who.into() };
    w.ok(&admin(), lock("cashier"));
    let refused = w
        .run(
            &actor("cashier", Role::Cashier),
            Request::CashIn {
                id: "c1".into(),
                player: "alice".into(),
                amount: Minor::new(100),
            },
        )
        .expect_err("locked");
    assert_eq!(refused.code, "locked", "{refused}");
    let refused = w.run(&admin(), lock("admin")).expect_err("the last admin");
    assert_eq!(refused.code, "forbidden", "{refused}");
    assert!(refused.message.contains("last admin"), "{refused}");
    w.ok(
        &admin(),
        Request::CreateUser {
            username: "admin2".into(),
            role: Role::Admin,
            password_hash: "test-hash".into(),
            licence: None,
        },
    );
    w.ok(&admin(), lock("admin"));
    let refused = w
        .run(&actor("admin2", Role::Admin), lock("admin2"))
        .expect_err("now admin2 is the last");
    assert_eq!(refused.code, "forbidden", "{refused}");
    replay(&w.casino.ledger().storage().entries).expect("replays");
}

// A dishonest cashier alone once could cash in any sum never received to a
// friend's wallet, or cash out a player's: cashiers now move at most so
// much of one player's cash a day each way, however split, and more is an
// admin's to do; a resend of a cash-in done is not held against the limit.
#[test]
fn a_cashier_alone_moves_only_so_much_of_a_players_cash_a_day() {
    use croupier_server::casino::cage::cash::CASHIER_DAY_MAX;
    let mut w = setup(MemoryStorage::default());
    let cashier = actor("cashier", Role::Cashier);
    let cash = |id: &str, amount: u64, cash_in: bool| {
        if cash_in {
            Request::CashIn {
                id: id.into(),
                player: "alice".into(),
                amount: Minor::new(amount),
            }
        } else {
            Request::CashOut {
                id: id.into(),
                player: "alice".into(),
                amount: Minor::new(amount),
            }
        }
    };
    w.ok(&cashier, cash("in-1", CASHIER_DAY_MAX / 2, true));
    w.ok(&cashier, cash("in-2", CASHIER_DAY_MAX / 2, true));
    let before = w.casino.ledger().storage().entries.len();
    w.ok(&cashier, cash("in-2", CASHIER_DAY_MAX / 2, true));
    assert_eq!(
        w.casino.ledger().storage().entries.len(),
        before,
        "a resend writes nothing"
    );
    let refused = w.run(&cashier, cash("in-3", 1, true)).expect_err("over the day");
    assert_eq!(refused.code, "over_role_limit", "{refused}");
    assert!(refused.message.contains("an admin"), "{refused}");
    w.ok(&admin(), cash("in-big", 5 * CASHIER_DAY_MAX, true));
    // Out, alike and apart from in.
    w.ok(&cashier, cash("out-1", CASHIER_DAY_MAX, false));
    let refused = w.run(&cashier, cash("out-2", 1, false)).expect_err("over the day");
    assert_eq!(refused.code, "over_role_limit", "{refused}");
    w.ok(&admin(), cash("out-big", CASHIER_DAY_MAX, false));
    assert_eq!(
        w.casino.balance("wallet:alice"),
        i128::from(6 * CASHIER_DAY_MAX - 2 * CASHIER_DAY_MAX)
    );
    // Another player, and the next day, start afresh; replay rebuilds the day.
    w.ok(
        &cashier,
        Request::CashIn {
            id: "bob-1".into(),
            player: "bob".into(),
            amount: Minor::new(CASHIER_DAY_MAX),
        },
    );
    w.now += 86_400_000;
    w.ok(&cashier, cash("in-tomorrow", CASHIER_DAY_MAX, true));
    replay(&w.casino.ledger().storage().entries).expect("the day's cash replays");
}

// Colorado 2202, 2203(1): the dealer sells chips for cash into the drop
// box. A dishonest dealer alone once could sell 10^15 in chips to a friend
// against cash never paid; dealers now sell a player at most so much a day
// at a table, however split, and more is the pit supervisor's.
#[test]
fn a_dealer_alone_sells_a_player_only_so_much_in_chips_a_day() {
    use croupier_server::casino::table::DEALER_SALE_MAX;
    let mut w = setup(MemoryStorage::default());
    inspect_and_open(&mut w);
    let dealer = actor("dealer", Role::Dealer);
    let before = w.casino.ledger().storage().entries.len();
    let refused = w
        .run(&dealer, sale("big", "bob", DEALER_SALE_MAX + 100, 100))
        .expect_err("over a dealer's limit");
    assert_eq!(refused.code, "over_role_limit", "{refused}");
    assert!(refused.message.contains("pit supervisor"), "{refused}");
    assert_eq!(w.casino.ledger().storage().entries.len(), before, "nothing written");
    // However split: the limit is a day's sales to one player at a table.
    w.ok(&dealer, sale("half", "bob", DEALER_SALE_MAX / 2, 100));
    w.ok(&dealer, sale("rest", "bob", DEALER_SALE_MAX / 2, 100));
    // A sale sent again, its answer lost, is done already: not over the limit.
    let before = w.casino.ledger().storage().entries.len();
    w.ok(&dealer, sale("rest", "bob", DEALER_SALE_MAX / 2, 100));
    assert_eq!(w.casino.ledger().storage().entries.len(), before, "nothing written");
    let refused = w
        .run(&dealer, sale("rest", "bob", DEALER_SALE_MAX / 2 + 100, 100))
        .expect_err("the id with more in it");
    assert_eq!(refused.code, "refused", "{refused}");
    let refused = w
        .run(&dealer, sale("more", "bob", 100, 100))
        .expect_err("over a dealer's day");
    assert_eq!(refused.code, "over_role_limit", "{refused}");
    assert!(refused.message.contains("a day"), "{refused}");
    w.ok(
        &actor("pit", Role::PitSupervisor),
        sale("big", "bob", DEALER_SALE_MAX + 100, 100),
    );
    assert_eq!(w.chips("bob"), i128::from(2 * DEALER_SALE_MAX + 100));
    // Another player, and the next day, start afresh.
    w.ok(&dealer, sale("alice's", "alice", DEALER_SALE_MAX, 200));
    w.now += 86_400_000;
    w.ok(&dealer, sale("tomorrow", "bob", DEALER_SALE_MAX, 100));
    replay(&w.casino.ledger().storage().entries).expect("the day's sales replay");
}

/// `table` with a bonus configuration's `text`, its results from the RNG.
fn with_bonus(mut table: Request, text: &str) -> Request {
    if let Request::CreateTable {
        bonus_text, outcome, ..
    } = &mut table
    {
        *bonus_text = Some(text.into());
        *outcome = OutcomeSource::Rng;
    }
    table
}

/// A Maryland RNG table with Bonus Spin Xtreme (Maryland ch.3 F(16)-(17)).
fn bsx_table(id: &str) -> Request {
    with_bonus(
        maryland_dealer_table(id),
        include_str!("../../../profiles/bonus/bonus-spin-xtreme.toml"),
    )
}

/// The RNG's draw of `pocket` at the double-zero table t1, with the bonus wheel's words.
fn rng_draw(pocket: &str, bonus_words: Vec<u32>) -> Request {
    let pockets = croupier_rng::wheel_pockets(croupier_core::Wheel::DoubleZero);
    let word = pockets
        .iter()
        .position(|p| p.label() == pocket)
        .expect("a pocket of the wheel") as u32;
    Request::Draw {
        table: "t1".into(),
        pocket: pocket.into(),
        word,
        bonus_words,
    }
}

// The dealer sees the round's bonus numbers before the spin: a bonus table
// takes its results from the RNG or an automated wheel, never from them.
#[test]
fn a_bonus_tables_result_is_never_the_dealers_to_key() {
    let mut w = setup(MemoryStorage::default());
    let mut table = with_bonus(
        maryland_dealer_table("t8"),
        include_str!("../../../profiles/bonus/roulette-x-a.toml"),
    );
    if let Request::CreateTable { outcome, .. } = &mut table {
        *outcome = OutcomeSource::Dealer;
    }
    refused_as(&mut w, &admin(), table, "bad_table");
}

// Maryland ch.3 F(16): "prior to each wheel spin, an electronic RNG will be
// used to select 1, 2, or 3 target numbers". An automated wheel closes
// betting as it launches its ball, when the targets would be drawn: from
// journal format 15 a Bonus Spin Xtreme table's results come from the RNG.
// Roulette X's lucky numbers name no moment and may follow a wheel; a
// format-14 journal's Bonus Spin Xtreme table at a wheel still replays.
#[test]
fn a_bonus_spin_xtreme_table_does_not_follow_an_automated_wheel() {
    let at_wheel = |table: Request| match table {
        Request::CreateTable {
            table,
            profile_text,
            wheel,
            in_prison,
            betting_window_ms,
            shared_colours,
            bonus_text,
            ..
        } => Request::CreateTable {
            table,
            profile_text,
            wheel,
            in_prison,
            betting_window_ms,
            shared_colours,
            bonus_text,
            outcome: OutcomeSource::Wheel,
            wheel_address: Some("127.0.0.1:9".into()),
        },
        other => other,
    };
    let mut w = setup(MemoryStorage::default());
    let before = w.casino.ledger().storage().entries.len();
    let refused = w.run(&admin(), at_wheel(bsx_table("w1"))).expect_err("refused");
    assert_eq!(refused.code, "bad_table", "{refused}");
    assert!(refused.message.contains("prior to each wheel spin"), "{refused}");
    assert_eq!(w.casino.ledger().storage().entries.len(), before, "nothing written");
    let roulette_x = with_bonus(
        maryland_dealer_table("w2"),
        include_str!("../../../profiles/bonus/roulette-x-a.toml"),
    );
    w.ok(&admin(), at_wheel(roulette_x));
    w.ok(&admin(), bsx_table("r1"));

    let mut old = setup_in_format(MemoryStorage::default(), 14);
    old.ok(&admin(), at_wheel(bsx_table("w1")));
    let entries = &old.casino.ledger().storage().entries;
    assert_eq!(verify(entries).first_problem, None);
    assert!(replay(entries).expect("replays").table("w1").is_some());
}

/// The first of `candidates` whose words draw what `wanted` asks of the
/// shipped bonus `name` at a double-zero table.
fn words_drawing(
    name: &str,
    candidates: impl Iterator<Item = Vec<u32>>,
    wanted: impl Fn(&croupier_core::bonus::BonusDraw) -> bool,
) -> Vec<u32> {
    let bonus = croupier_profiles::bonus::load(name).expect("the shipped configuration loads");
    candidates
        .into_iter()
        .find(|words| {
            let mut replay = croupier_rng::bonus_draws::Replaying::new(words);
            croupier_rng::bonus_draws::draw(&mut replay, &bonus, croupier_core::Wheel::DoubleZero)
                .is_ok_and(|draw| wanted(&draw))
        })
        .expect("some words draw it")
}

/// The words that draw one target, `pocket`, at a double-zero table.
fn one_target_words(pocket: &str) -> Vec<u32> {
    use croupier_core::bonus::BonusDraw;
    // Word 0 picks the first count, one target (weight 70 of 100); the next picks the pocket.
    words_drawing(
        "bonus-spin-xtreme",
        (0..38).map(|k| vec![0, k]),
        |draw| matches!(draw, BonusDraw::Targets(t) if t.len() == 1 && t[0].label() == pocket),
    )
}

// Maryland ch.3 F(16)-(17), ch.4 D-E: a Bonus Spin Xtreme wager at each
// position, locked out after no more bets; the targets drawn by the RNG
// after no more bets; a winning wager paid the meter as it stands when its
// turn comes (D(4)), the meter reset after a jackpot (D(3)); Community Pay
// to every other wager (D(5), E). The meters' accounts hold what wagers fed
// them, the whole casino still sums to zero, and the journal replays whole.
#[test]
fn bonus_spin_xtreme_wagers_meters_and_community_pay() {
    let mut w = setup_with_table(MemoryStorage::default(), JOURNAL_FORMAT, bsx_table("t1"));
    inspect_and_open(&mut w);
    fund(&mut w, "alice", 100_000, 10_000);
    fund(&mut w, "bob", 100_000, 10_000);
    let dealer = actor("dealer", Role::Dealer);
    let alice = actor("alice", Role::Player);
    let bob = actor("bob", Role::Player);
    let wager = |id: &str| Request::BonusWager {
        table: "t1".into(),
        wager_id: id.into(),
    };
    // Before betting opens, and by a dealer: refused.
    refused_as(&mut w, &alice, wager("a1"), "betting_not_open");
    w.ok(&dealer, Request::OpenBetting { table: "t1".into() });
    refused_as(&mut w, &dealer, wager("d1"), "forbidden");
    w.ok(&alice, wager("a1"));
    // Sent again, the same wager writes nothing; a second one at the position is refused (ch.3 F(17)(a)).
    let before = w.casino.ledger().storage().entries.len();
    w.ok(&alice, wager("a1"));
    assert_eq!(w.casino.ledger().storage().entries.len(), before);
    refused_as(&mut w, &alice, wager("a2"), "bonus_wager_placed");
    w.ok(&bob, wager("b1"));
    assert_eq!(w.chips("alice"), 9_500);
    // A wager holds its position: its player does not leave until it settles.
    refused_as(
        &mut w,
        &bob,
        Request::LeaveTable {
            id: "bob-leaves".into(),
            table: "t1".into(),
        },
        "bets_on_layout",
    );
    // A bet may not take a wager's id, nor a wager a bet's: each names its money's movements.
    refused_as(&mut w, &alice, bet("t1", "a1", "red", 500), "duplicate_bet");
    w.ok(&alice, bet("t1", "r1", "red", 500));
    refused_as(&mut w, &bob, wager("r1"), "duplicate_bet");
    w.ok(&dealer, Request::NoMoreBets { table: "t1".into() });
    // ch.3 F(17)(b): locked out once the round is started.
    refused_as(&mut w, &alice, wager("a3"), "past_posting");
    // The spin waits for the targets; no one but the server draws them.
    refused_as(&mut w, &dealer, rng_draw("17", Vec::new()), "bonus_not_drawn");
    let draw = Request::DrawBonus {
        table: "t1".into(),
        words: one_target_words("17"),
    };
    refused_as(&mut w, &dealer, draw.clone(), "forbidden");
    let drawn = w.ok(&Actor::system(), draw.clone());
    assert!(
        drawn
            .iter()
            .any(|e| matches!(e, EventView::BonusDrawn { targets, .. } if targets == &["17"])),
        "{drawn:?}"
    );
    // Drawn once a round.
    refused_as(&mut w, &Actor::system(), draw, "bad_spin");
    // Words that leave some over, or are too few, are not the draw's.
    refused_as(&mut w, &dealer, rng_draw("17", vec![0]), "bad_spin");
    refused_as(&mut w, &dealer, rng_draw("17", vec![0, 5, 7]), "bad_spin");
    // 17 is the target: alice's turn comes first and the wheel stops on the
    // primary jackpot (word 0), bob's on $1,000 (word 5).
    let settled = w.ok(&dealer, rng_draw("17", vec![0, 5]));
    let award = |who: &str, what: &str| -> u64 {
        settled
            .iter()
            .filter_map(|e| match e {
                EventView::BonusWager {
                    player,
                    what: w,
                    amount,
                    ..
                } if player == who && w == what => Some(*amount),
                _ => None,
            })
            .sum()
    };
    // ch.4 D(4): the meter as it stands, the round's two wagers fed to it first: 10,000.05 + 0.05.
    assert_eq!(award("alice", "awarded"), 1_000_010);
    assert_eq!(award("bob", "awarded"), 100_000);
    // ch.4 D(5), E: the primary jackpot pays bob $150 of Community Pay; bob's $1,000 pays alice $100.
    assert_eq!(award("bob", "community"), 15_000);
    assert_eq!(award("alice", "community"), 10_000);
    // 17 is black: the bet on red is lost.
    assert_eq!(w.chips("alice"), 10_000 - 500 - 500 + 1_000_010 + 10_000);
    assert_eq!(w.chips("bob"), 10_000 - 500 + 100_000 + 15_000);
    // From journal format 14 the RNG's draws are the round's result: a
    // dispute pays no jackpot the bonus wheel did not give (only the game
    // pays one, and resets the meter), and corrects within what the recorded
    // draws returned (Maryland ch.3 F(16)-(18)).
    let floor = actor("floor", Role::Floorperson);
    let misread = |amount: i64| Request::Dispute {
        table: "t1".into(),
        reason: "the bonus wheel was misread: the primary jackpot".into(),
        corrections: vec![StoredCorrection {
            player: "bob".into(),
            amount,
        }],
        round: None,
        id: Some(dispute_id()),
    };
    refused_as(&mut w, &floor, misread(900_000), "bad_correction");
    refused_as(&mut w, &floor, misread(1), "bad_correction");
    let bob_now = 10_000 - 500 + 100_000 + 15_000;
    assert_eq!(w.chips("bob"), bob_now);
    // ch.4 D(3)(b): the primary meter is back at its reset amount; its account is empty.
    assert_eq!(w.casino.balance("meter-primary:t1"), 0);
    assert_eq!(w.casino.balance("meter-secondary:t1"), 4);
    // Game recall keeps the targets and each wager with all it returned.
    let round = w.casino.round("t1/1").expect("recall");
    assert_eq!(round.bonus_targets, ["17"]);
    let alices = round
        .bets
        .iter()
        .find(|b| b.bet_id == "a1")
        .expect("alice's wager in recall");
    assert_eq!(
        (alices.kind.as_str(), alices.returned),
        ("bonus-spin-xtreme", Some(1_010_010))
    );
    // A wager's shares go to the meters, the rest to the float: nothing is lost.
    let entries = w.casino.ledger().storage().entries.clone();
    let again = replay(&entries).expect("the journal replays");
    assert_eq!(again.balance("chips:t1:alice"), w.chips("alice"));
    assert_eq!(again.balance("chips:t1:bob"), bob_now);
    assert_eq!(again.balance("meter-secondary:t1"), 4);
    // A wager on the layout when the table closes goes back whole.
    w.ok(&dealer, Request::OpenBetting { table: "t1".into() });
    w.ok(&alice, wager("a9"));
    let held = w.chips("alice");
    w.ok(
        &dealer,
        Request::CloseTable {
            table: "t1".into(),
            wheel_cover_locked: true,
        },
    );
    assert_eq!(w.chips("alice"), held + 500);
    assert_eq!(w.casino.balance("layout:t1"), 0);
}

// Bonus tables are journaled from format 11: a journal still in format 10
// makes none, so that it replays as it was written.
#[test]
fn a_bonus_table_is_refused_before_journal_format_11() {
    let mut w = setup_in_format(MemoryStorage::default(), 10);
    refused_as(&mut w, &admin(), bsx_table("t9"), "bad_request");
}

// Maryland ch.4 F: at a Roulette X table a straight pays the paytable's odds,
// a lucky number its drawn odds; a bet its paytable cannot pay is refused,
// and paytable C is for a double-zero wheel only (F(3)(d)).
#[test]
fn roulette_x_pays_straights_by_its_paytable() {
    let text = include_str!("../../../profiles/bonus/roulette-x-a.toml");
    let mut w = setup_with_table(
        MemoryStorage::default(),
        JOURNAL_FORMAT,
        with_bonus(maryland_dealer_table("t1"), text),
    );
    let maryland = include_str!("../../../profiles/maryland.toml");
    let c_on_single = with_bonus(
        new_table("t2", maryland, "single-zero", false),
        include_str!("../../../profiles/bonus/roulette-x-c.toml"),
    );
    refused_as(&mut w, &admin(), c_on_single, "bad_wheel");
    // A document that permits no bonus.
    let colorado = with_bonus(
        new_table(
            "t3",
            include_str!("../../../profiles/colorado-2014.toml"),
            "double-zero",
            false,
        ),
        text,
    );
    refused_as(&mut w, &admin(), colorado, "not_offered");
    inspect_and_open(&mut w);
    fund(&mut w, "alice", 100_000, 10_000);
    let dealer = actor("dealer", Role::Dealer);
    let alice = actor("alice", Role::Player);
    w.ok(&dealer, Request::OpenBetting { table: "t1".into() });
    refused_as(&mut w, &alice, bet("t1", "n", "neighbours:17", 500), "not_offered");
    w.ok(&alice, bet("t1", "s17", "17", 100));
    // A Roulette X table has no Bonus Spin Xtreme wager.
    refused_as(
        &mut w,
        &alice,
        Request::BonusWager {
            table: "t1".into(),
            wager_id: "x".into(),
        },
        "not_offered",
    );
    w.ok(&dealer, Request::NoMoreBets { table: "t1".into() });
    let words = lucky_17_words();
    let drawn = w.ok(
        &Actor::system(),
        Request::DrawBonus {
            table: "t1".into(),
            words: words.clone(),
        },
    );
    let lucky: Vec<(String, u32)> = drawn
        .iter()
        .find_map(|e| match e {
            EventView::BonusDrawn { lucky, .. } => Some(lucky.iter().map(|l| (l.pocket.clone(), l.odds)).collect()),
            _ => None,
        })
        .expect("lucky numbers drawn");
    assert_eq!(lucky.len(), 5);
    // ch.4 F(1)(b): the first number selected pays 50 to 1.
    assert_eq!(lucky[0], ("17".to_string(), 50));
    let before = w.chips("alice");
    let spin_on = |pocket: &str| rng_draw(pocket, Vec::new());
    w.ok(&dealer, spin_on("17"));
    assert_eq!(w.chips("alice") - before, 5_100);
    // ch.4 F(1)(a): a straight on a number that is not lucky pays 28 to 1.
    let plain = (1..=36)
        .map(|n| n.to_string())
        .find(|n| lucky.iter().all(|(p, _)| p != n))
        .expect("a number not lucky");
    w.ok(&dealer, Request::OpenBetting { table: "t1".into() });
    w.ok(&alice, bet("t1", "plain", &plain, 100));
    w.ok(&dealer, Request::NoMoreBets { table: "t1".into() });
    w.ok(
        &Actor::system(),
        Request::DrawBonus {
            table: "t1".into(),
            words,
        },
    );
    let before = w.chips("alice");
    w.ok(&dealer, spin_on(&plain));
    assert_eq!(w.chips("alice") - before, 2_900);
    // A dispute is bounded by the paytable the round was played under: the
    // plain straight at 35 to 1 (700 more) is more than it could return.
    let floor = actor("floor", Role::Floorperson);
    let correct = |amount: i64| Request::Dispute {
        table: "t1".into(),
        reason: "paid short".into(),
        corrections: vec![StoredCorrection {
            player: "alice".into(),
            amount,
        }],
        round: None,
        id: Some(dispute_id()),
    };
    refused_as(&mut w, &floor, correct(700), "bad_correction");
    let entries = w.casino.ledger().storage().entries.clone();
    assert_eq!(
        replay(&entries).expect("replays").balance("chips:t1:alice"),
        w.chips("alice")
    );
}

/// Words that draw Roulette X paytable A's five lucky numbers with 17 first.
fn lucky_17_words() -> Vec<u32> {
    use croupier_core::bonus::BonusDraw;
    // Word 0 picks the count (five, the only one); five distinct pocket
    // indices; then the odds of the four after the first.
    let candidates = (0..38).map(|k| vec![0, k, (k + 1) % 38, (k + 2) % 38, (k + 3) % 38, (k + 4) % 38, 0, 0, 0, 0]);
    words_drawing(
        "roulette-x-a",
        candidates,
        |draw| matches!(draw, BonusDraw::Lucky(l) if l.numbers[0].0.label() == "17"),
    )
}

/// From journal format 13 a table keeps its newest rounds for game recall
/// and disputes only while they hold `RECALL_BETS_KEPT` bets together (the
/// round just played whatever it holds): a table of large rounds keeps a
/// few, not its last 100, and a dispute of a round it let go is refused,
/// naming the rounds it keeps. A format-12 journal keeps its last 100 as it
/// did. Both replay to the rounds they kept.
#[test]
fn a_table_of_large_rounds_keeps_its_rounds_within_so_many_bets_from_format_13() {
    use croupier_server::casino::RECALL_BETS_KEPT;
    let per_round = 1_000;
    let rounds = (RECALL_BETS_KEPT / per_round + 2) as u64;
    for format in [JOURNAL_FORMAT, 12] {
        let mut w = setup_in_format(MemoryStorage::default(), format);
        inspect_and_open(&mut w);
        fund(&mut w, "alice", 1_000_000, 1_000_000);
        fund(&mut w, "bob", 1_000_000, 1_000_000);
        let dealer = actor("dealer", Role::Dealer);
        let players = [actor("alice", Role::Player), actor("bob", Role::Player)];
        for round in 1..=rounds {
            w.ok(&dealer, Request::OpenBetting { table: "t1".into() });
            for n in 0..per_round {
                let who = &players[n % 2];
                let spot = (n / 2 % 37).to_string();
                if let Err(e) = w.run(who, bet("t1", &format!("r{round}b{n}"), &spot, 100)) {
                    panic!("round {round} bet {n}: {e}");
                }
            }
            w.ok(&dealer, Request::NoMoreBets { table: "t1".into() });
            let played = w.ok(
                &dealer,
                Request::Spin {
                    bonus_words: Vec::new(),
                    table: "t1".into(),
                    spin: spin(&(round % 37).to_string()),
                },
            );
            assert!(settles(&played), "round {round}");
        }
        let kept: Vec<u64> = w.casino.recall_table("t1", 100).iter().map(|r| r.round).collect();
        let oldest = if format >= 13 {
            rounds - (RECALL_BETS_KEPT / per_round) as u64
        } else {
            1
        };
        assert_eq!(kept, (oldest..=rounds).rev().collect::<Vec<_>>(), "format {format}");
        let dispute = |round: u64| Request::Dispute {
            table: "t1".into(),
            reason: "chip on the line".into(),
            corrections: vec![StoredCorrection {
                player: "alice".into(),
                amount: -100,
            }],
            round: Some(round),
            id: Some(dispute_id()),
        };
        let floor = actor("floor", Role::Floorperson);
        if format >= 13 {
            let before = w.casino.ledger().storage().entries.len();
            let refused = w.run(&floor, dispute(1)).expect_err("a round let go");
            assert_eq!(refused.code, "no_round");
            assert!(
                refused.message.contains(&format!("rounds {oldest} to {rounds}")),
                "{}",
                refused.message
            );
            assert_eq!(w.casino.ledger().storage().entries.len(), before);
        } else {
            w.ok(&floor, dispute(1));
        }
        w.ok(&floor, dispute(rounds));
        let entries = w.casino.ledger().storage().entries.clone();
        let replayed = replay(&entries).expect("replays");
        let again: Vec<u64> = replayed.recall_table("t1", 100).iter().map(|r| r.round).collect();
        assert_eq!(again, kept, "format {format}");
    }
}

// Colorado 2204(2), 2206(5): at an RNG table the recorded pocket is the
// result. A bet held in prison on zero and lost on the next pocket once
// could be paid its stake by dispute (the stake counted as if released);
// from journal format 14 the bound there is what the recorded pocket gave.
#[test]
fn a_prison_bet_lost_at_an_rng_table_is_not_paid_by_dispute() {
    let table = Request::CreateTable {
        bonus_text: None,
        table: "t1".into(),
        profile_text: include_str!("../../../profiles/colorado-2014.toml").into(),
        wheel: "double-zero".into(),
        in_prison: true,
        betting_window_ms: 60_000,
        outcome: OutcomeSource::Rng,
        shared_colours: false,
        wheel_address: None,
    };
    let mut w = setup_with_table(MemoryStorage::default(), JOURNAL_FORMAT, table);
    inspect_and_open(&mut w);
    fund(&mut w, "alice", 100_000, 10_000);
    let (dealer, alice, pit) = (
        actor("dealer", Role::Dealer),
        actor("alice", Role::Player),
        actor("pit", Role::PitSupervisor),
    );
    w.ok(&dealer, Request::OpenBetting { table: "t1".into() });
    let mut red = bet("t1", "r1", "red", 1_000);
    if let Request::PlaceBet { zero_choice, .. } = &mut red {
        *zero_choice = Some("prison".into());
    }
    w.ok(&alice, red);
    w.ok(&dealer, Request::NoMoreBets { table: "t1".into() });
    w.ok(&Actor::system(), rng_draw("0", Vec::new()));
    w.ok(&dealer, Request::OpenBetting { table: "t1".into() });
    w.ok(&dealer, Request::NoMoreBets { table: "t1".into() });
    // 24 is black: the prisoner is lost.
    w.ok(&Actor::system(), rng_draw("24", Vec::new()));
    let chips = w.chips("alice");
    let pay = |amount: i64| Request::Dispute {
        table: "t1".into(),
        reason: "the prisoner was released".into(),
        corrections: vec![StoredCorrection {
            player: "alice".into(),
            amount,
        }],
        round: Some(2),
        id: Some(dispute_id()),
    };
    refused_as(&mut w, &pit, pay(1_000), "bad_correction");
    refused_as(&mut w, &pit, pay(1), "bad_correction");
    assert_eq!(w.chips("alice"), chips);
    replay(&w.casino.ledger().storage().entries).expect("replays");
}

/// The cashier's page lost its list of the session's transactions on a
/// reload, and missed those made from another tab: the cage now keeps its
/// own record (journal format 14). It holds exactly the ledger's cash
/// transfers and the coupons issued, each once (a resend writes nothing,
/// a refusal nothing), and a replay of the journal and a checkpoint give
/// the same record.
#[test]
fn the_cages_own_record_is_the_ledgers_cash_and_coupons_and_replays_the_same() {
    use croupier_server::casino::cage::record::CageKind;
    let mut w = setup(MemoryStorage::default());
    let cashier = actor("cashier", Role::Cashier);
    let pit = actor("pit", Role::PitSupervisor);
    let cash = |id: &str, player: &str, amount: u64, cash_in: bool| {
        let (id, player, amount) = (id.to_string(), player.to_string(), Minor::new(amount));
        if cash_in {
            Request::CashIn { id, player, amount }
        } else {
            Request::CashOut { id, player, amount }
        }
    };
    w.ok(&cashier, cash("c1", "alice", 25_000, true));
    w.ok(&cashier, cash("c1", "alice", 25_000, true)); // sent again: nothing written
    w.ok(&cashier, cash("c2", "alice", 5_000, false));
    w.ok(&admin(), cash("c3", "bob", 2_000_000, true));
    assert!(w.run(&cashier, cash("c4", "bob", 1, false)).is_ok());
    assert!(
        w.run(&cashier, cash("c5", "nobody", 100, true)).is_err(),
        "no such player"
    );
    let coupon = Request::IssueCoupon {
        id: "mp-1".into(),
        player: "bob".into(),
        table: "t1".into(),
        value: Minor::new(2_500),
        expires_at_ms: None,
    };
    w.ok(&pit, coupon.clone());
    w.ok(&pit, coupon); // sent again as it was: nothing written

    let day = w.now / 86_400_000;
    let (all, more) = w.casino.cage_record(day, None);
    assert!(!more);
    let listed: Vec<(CageKind, &str, u64, &str, &str)> = all
        .iter()
        .map(|e| (e.kind, e.player.as_str(), e.amount, e.reference.as_str(), e.by.as_str()))
        .collect();
    assert_eq!(
        listed,
        vec![
            (CageKind::Coupon, "bob", 2_500, "mp-1", "pit"),
            (CageKind::CashOut, "bob", 1, "c4", "cashier"),
            (CageKind::CashIn, "bob", 2_000_000, "c3", "admin"),
            (CageKind::CashOut, "alice", 5_000, "c2", "cashier"),
            (CageKind::CashIn, "alice", 25_000, "c1", "cashier"),
        ],
        "newest first, each once"
    );
    // The ledger's cash transfers, each with its entry's time: the record's, to the cent.
    let entries = w.casino.ledger().storage().entries.clone();
    let mut moved: Vec<(u64, String, u64)> = entries
        .iter()
        .flat_map(|e| e.record.transfers().iter().map(move |t| (e.at_ms, t)))
        .filter(|(_, t)| t.id.starts_with("cashin/") || t.id.starts_with("cashout/"))
        .map(|(at, t)| (at, t.id.clone(), t.amount.get()))
        .collect();
    moved.reverse();
    let recorded: Vec<(u64, String, u64)> = all
        .iter()
        .filter(|e| e.kind != CageKind::Coupon)
        .map(|e| {
            let tag = if e.kind == CageKind::CashIn {
                "cashin"
            } else {
                "cashout"
            };
            (e.at_ms, format!("{tag}/{}", e.reference), e.amount)
        })
        .collect();
    assert_eq!(recorded, moved);
    // A cashier's own only.
    let (own, _) = w.casino.cage_record(day, Some("cashier"));
    assert_eq!(own.len(), 3);
    assert!(own.iter().all(|e| e.by == "cashier"));

    // The journal replayed, and a checkpoint read back: the same record, the same bytes.
    let again = replay(&entries).expect("the journal replays whole");
    assert_eq!(again.cage_record(day, None), (all.clone(), false));
    let taken = w.casino.checkpoint().expect("a checkpoint");
    assert_eq!(again.checkpoint().expect("a checkpoint").bytes, taken.bytes);
}

/// Up to format 13 the cage kept no record: a journal in it replays with none.
#[test]
fn a_journal_before_format_14_keeps_no_cage_record() {
    let mut w = setup_in_format(MemoryStorage::default(), 13);
    w.ok(
        &actor("cashier", Role::Cashier),
        Request::CashIn {
            id: "c1".into(),
            player: "alice".into(),
            amount: Minor::new(1_000),
        },
    );
    assert_eq!(w.casino.cage_record(w.now / 86_400_000, None), (Vec::new(), false));
}

/// Every text key of the maps in a checkpoint's CBOR, however deep.
fn keys_of(value: &ciborium::Value, keys: &mut std::collections::BTreeSet<String>) {
    match value {
        ciborium::Value::Map(pairs) => {
            for (k, v) in pairs {
                if let ciborium::Value::Text(k) = k {
                    keys.insert(k.clone());
                }
                keys_of(k, keys);
                keys_of(v, keys);
            }
        }
        ciborium::Value::Array(items) => items.iter().for_each(|v| keys_of(v, keys)),
        ciborium::Value::Tag(_, v) => keys_of(v, keys),
        _ => {}
    }
}

/// A checkpoint's layout and its maps' keys.
fn checkpoint_keys<S: Storage>(casino: &Casino<S>) -> (u32, std::collections::BTreeSet<String>) {
    let taken = casino.checkpoint().expect("a checkpoint");
    let value: ciborium::Value = ciborium::from_reader(taken.bytes.as_slice()).expect("CBOR");
    let layout = match &value {
        ciborium::Value::Map(pairs) => pairs
            .iter()
            .find(|(k, _)| k.as_text() == Some("format"))
            .and_then(|(_, v)| v.as_integer())
            .and_then(|n| u32::try_from(n).ok())
            .expect("a layout"),
        other => panic!("not a map: {other:?}"),
    };
    let mut keys = std::collections::BTreeSet::new();
    keys_of(&value, &mut keys);
    (layout, keys)
}

/// What the day report keeps from journal format 15, as a checkpoint names it.
const DAY_REPORT_KEYS: [&str; 4] = ["open_ms", "dealers", "on_duty", "open_since_ms"];

/// A casino upgrading from a format-14 build had every bound checkpoint
/// mismatch its replay (a false tamper report from `croupier verify`, and
/// full replays at each start): the day report's open play and dealers'
/// shares were counted and written in format 14 too, in a new layout. They
/// count from format 15, and until then the state is the bytes a format-14
/// build wrote, in layout 2.
#[test]
fn a_format_14_casinos_checkpoint_keeps_its_bytes_until_format_15_fills_the_books() {
    let mut w = setup_in_format(MemoryStorage::default(), 14);
    inspect_and_open(&mut w);
    fund(&mut w, "alice", 10_000, 5_000);
    fund(&mut w, "bob", 10_000, 5_000);
    round_on_17(&mut w, 1);
    let day = w.now / 86_400_000;
    let older = w.casino.table("t1").expect("t1").books_of(day);
    assert_eq!((older.rounds, older.open_ms, older.dealers.len()), (1, 0, 0));
    let (layout, keys) = checkpoint_keys(&w.casino);
    assert_eq!(layout, 2);
    assert!(keys.contains("books_by_day"), "the day's books are in it: {keys:?}");
    for key in DAY_REPORT_KEYS {
        assert!(!keys.contains(key), "{key} in a format-14 checkpoint");
    }
    // In format 14 the day's figures all go to no dealer.
    let shares = older.shares();
    assert_eq!(shares.keys().collect::<Vec<_>>(), ["-"]);
    assert_eq!((shares["-"].rounds, shares["-"].win()), (1, older.win()));

    // The upgrade: the new build's start moves the journal on to format 15.
    let written = w.casino.ledger().storage().entries.clone();
    let (casino, _) = Casino::open(MemoryStorage::with_entries(written), w.now).expect("reopen");
    let mut w = World { casino, now: w.now };
    assert_eq!(w.casino.journal_format(), JOURNAL_FORMAT);
    let (_, keys) = checkpoint_keys(&w.casino);
    for key in DAY_REPORT_KEYS {
        assert!(!keys.contains(key), "{key} before a format-15 entry at the table");
    }

    // Another dealer takes over the open table and deals a round: theirs is
    // that round's share, the day's earlier figures stay under `-`.
    w.ok(
        &admin(),
        Request::CreateUser {
            username: "dealer2".into(),
            role: Role::Dealer,
            password_hash: "test-hash".into(),
            licence: None,
        },
    );
    let first = w.now + 10;
    let dealer2 = actor("dealer2", Role::Dealer);
    w.ok(&dealer2, Request::OpenBetting { table: "t1".into() });
    let took_over = w.now;
    w.ok(&actor("alice", Role::Player), bet("t1", "a2", "red", 1_000));
    w.ok(&actor("bob", Role::Player), bet("t1", "b2", "black", 2_000));
    w.ok(&dealer2, Request::NoMoreBets { table: "t1".into() });
    w.ok(
        &dealer2,
        Request::Spin {
            bonus_words: Vec::new(),
            table: "t1".into(),
            spin: spin("17"),
        },
    );
    let books = w.casino.table("t1").expect("t1").books_of(day);
    assert_eq!(books.rounds, 2);
    // Open play from the table's first entry after the upgrade to its last.
    assert_eq!(books.open_ms, w.now - first);
    let shares = books.shares();
    assert_eq!(shares.keys().collect::<Vec<_>>(), ["-", "dealer2"]);
    // alice's red loses 1,000 into the float, bob's black is paid 2,000 out
    // of it. The upgrade went on to format 16: dealer2's shift runs from
    // their opening of betting to their spin, and its open play with it.
    assert_eq!(
        shares["dealer2"],
        DealerBooks {
            float_in: 1_000,
            float_out: 2_000,
            rounds: 1,
            open_ms: w.now - took_over,
            from_ms: Some(took_over),
            to_ms: Some(w.now),
            ..DealerBooks::default()
        }
    );
    assert_eq!(shares.values().map(|s| s.open_ms).sum::<u64>(), books.open_ms);
    assert_eq!(shares["-"], older.shares()["-"]);
    assert_eq!(shares.values().map(|s| s.win()).sum::<i128>(), books.win());
    let (layout, keys) = checkpoint_keys(&w.casino);
    assert_eq!(layout, 2);
    for key in DAY_REPORT_KEYS {
        assert!(keys.contains(key), "{key} once format 15 fills it");
    }
    // The journal replayed: the same state, byte for byte.
    let entries = w.casino.ledger().storage().entries.clone();
    let again = replay(&entries).expect("the journal replays whole");
    assert_eq!(
        again.checkpoint().expect("a checkpoint").bytes,
        w.casino.checkpoint().expect("a checkpoint").bytes
    );
}

/// What a dealer's shift keeps from journal format 16, as a checkpoint
/// names it (its open play and tips have names the day's books use too).
const SHIFT_KEYS: [&str; 2] = ["from_ms", "to_ms"];

// Issue 58: the shift report needs each dealer's open play, tips and the
// ends of their shift. A format-15 casino's checkpoints keep their bytes;
// from format 16 each share keeps them, and the shares' open play and tips
// sum to the day's.
#[test]
fn a_dealers_share_keeps_their_shift_from_format_16_and_a_format_15_checkpoint_its_bytes() {
    let mut w = setup_in_format(MemoryStorage::default(), 15);
    inspect_and_open(&mut w);
    fund(&mut w, "alice", 10_000, 5_000);
    fund(&mut w, "bob", 10_000, 5_000);
    round_on_17(&mut w, 1);
    let day = w.now / 86_400_000;
    let older = w.casino.table("t1").expect("t1").books_of(day);
    assert_eq!(older.dealers["dealer"].from_ms, None);
    assert_eq!(older.dealers["dealer"].open_ms, 0);
    let (_, keys) = checkpoint_keys(&w.casino);
    for key in SHIFT_KEYS {
        assert!(!keys.contains(key), "{key} in a format-15 checkpoint");
    }

    let written = w.casino.ledger().storage().entries.clone();
    let (casino, _) = Casino::open(MemoryStorage::with_entries(written), w.now).expect("reopen");
    let mut w = World { casino, now: w.now };
    assert_eq!(w.casino.journal_format(), 16);
    let upgraded = w.now;
    round_on_17(&mut w, 2);
    w.ok(
        &actor("alice", Role::Player),
        Request::Tip {
            id: "tip-1".into(),
            table: "t1".into(),
            amount: Minor::new(200),
        },
    );
    let books = w.casino.table("t1").expect("t1").books_of(day);
    let shares = books.shares();
    let dealer = &shares["dealer"];
    // The first entry after the upgrade is the dealer's opening of betting;
    // their last, alice's tip, while they were still on duty.
    assert_eq!((dealer.from_ms, dealer.to_ms), (Some(upgraded + 10), Some(w.now)));
    assert_eq!((dealer.tips, books.tips), (200, 200));
    assert_eq!(dealer.rounds, 2);
    // Open play before the upgrade went to no share, and is the rest's.
    assert_eq!(shares.values().map(|s| s.open_ms).sum::<u64>(), books.open_ms);
    assert_eq!(dealer.open_ms, w.now - upgraded);
    let (_, keys) = checkpoint_keys(&w.casino);
    for key in SHIFT_KEYS {
        assert!(keys.contains(key), "{key} once format 16 fills it");
    }
    let entries = w.casino.ledger().storage().entries.clone();
    let again = replay(&entries).expect("the journal replays whole");
    assert_eq!(
        again.checkpoint().expect("a checkpoint").bytes,
        w.casino.checkpoint().expect("a checkpoint").bytes
    );
}

/// The golden journal of `format`: a first shift written in it (the staff,
/// a Maryland table inspected and opened, two players funded, two rounds
/// on 17), one entry a line as the journal keeps it.
fn golden_shift(format: u32) -> Vec<croupier_ledger::Entry> {
    let mut w = setup_in_format(MemoryStorage::default(), format);
    if format >= FORMAT_WITNESS_CONFIRMS {
        // Maryland ch.2 B: an adjustment before the inspection, which its
        // security witness confirms from their own account.
        w.ok(&actor("pit", Role::PitSupervisor), adjust_witnessed_by("guard"));
        w.ok(
            &actor("guard", Role::Security),
            Request::WitnessAdjustment {
                table: "t1".into(),
                adjustment: 1,
            },
        );
    }
    inspect_and_open(&mut w);
    fund(&mut w, "alice", 10_000, 5_000);
    fund(&mut w, "bob", 10_000, 5_000);
    round_on_17(&mut w, 1);
    round_on_17(&mut w, 2);
    w.casino.ledger().storage().entries.clone()
}

/// A journal of every format from 3 to today's, written once and kept in
/// `tests/fixtures/golden/`: each must verify and replay byte for byte, so
/// that renaming or retyping a stored field, which would strand every
/// casino's journal of that format, fails here. A new format's journal is
/// written by running this test with CROUPIER_BLESS=1 (never to change an
/// existing one: a changed golden journal is a broken promise to a casino).
#[test]
fn a_golden_journal_of_every_format_verifies_and_replays_byte_for_byte() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/golden");
    let bless = std::env::var_os("CROUPIER_BLESS").is_some();
    for format in 3..=JOURNAL_FORMAT {
        let path = dir.join(format!("format-{format:02}.jsonl"));
        if bless && !path.exists() {
            std::fs::create_dir_all(&dir).expect("the golden folder");
            std::fs::write(&path, common::jsonl::to_lines(&golden_shift(format))).expect("written");
        }
        let kept = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e}; a new format's is written with CROUPIER_BLESS=1",
                path.display()
            )
        });
        let entries = common::jsonl::from_lines(&kept);
        assert!(entries.len() > 20, "format {format}: {} entries", entries.len());
        assert_eq!(verify(&entries).first_problem, None, "format {format} verifies");
        let replayed = replay(&entries).unwrap_or_else(|e| panic!("format {format} replays: {e}"));
        assert_eq!(
            replayed.ledger().next_seq(),
            entries.len() as u64 + 1,
            "format {format}"
        );
        // What the format's journal says of the money is what it said when written.
        // Two rounds on 17: alice's 5.00 straight paid 35 to 1 and her 10.00 on red lost, each
        // time; bob's 10.00 on black won.
        let chips = |p: &str| replayed.balance(&format!("chips:t1:{p}"));
        assert_eq!(
            (chips("alice"), chips("bob")),
            (5_000 + 2 * 16_500, 5_000 + 2 * 1_000),
            "format {format}"
        );
    }
}

// A first run posts its tables' limits on the UTC day; an admin then sets
// the casino's gaming day to Denver's from 06:00, where it is still the
// day before. The tables' books must follow the ledger's float across the
// days that come: a quiet entry opens no day's books (format 15), and a
// kept day is shown.
#[test]
fn a_gaming_day_set_back_leaves_no_quiet_day_ahead_of_the_books() {
    let mut w = setup(MemoryStorage::default());
    // 2026-11-18 08:26 UTC: 01:26 in Denver, where the gaming day from 06:00 is still the 17th.
    w.now = 1_795_000_000_000;
    let sign = common::signage(&maryland_dealer_table("t1"), JOURNAL_FORMAT).expect("Maryland's sign");
    w.ok(&actor("pit", Role::PitSupervisor), sign);
    w.ok(
        &admin(),
        Request::SetGamingDay {
            time_zone: "America/Denver".into(),
            starts_at: "06:00".into(),
        },
    );
    inspect_and_open(&mut w);
    fund(&mut w, "alice", 10_000, 5_000);
    fund(&mut w, "bob", 10_000, 5_000);
    round_on_17(&mut w, 1);
    let slot = w.casino.table("t1").expect("t1");
    let float = slot.own_balance(croupier_ledger::TableAccount::Float);
    let shift = slot
        .book_days()
        .find(|d| slot.books_of(*d).rounds == 1)
        .expect("the shift's day");
    assert!(
        slot.book_days().all(|d| d <= shift),
        "no day's books ahead of the shift's"
    );
    // The next day, nothing moved yet: it opens with the float as it stands.
    assert_eq!(
        slot.books_of(shift + 1).float_open,
        float,
        "the float carried into the next day"
    );
    assert_eq!(
        slot.books_of(shift).float_close(),
        float,
        "the shift's day closes on the ledger's float"
    );
}
