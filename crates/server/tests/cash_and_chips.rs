//! Money in and out: chips sold for cash at the table, how much of a player's
//! cash a cashier or a dealer alone moves in a day, and the cage's own record of
//! the cash it moved.

mod common;

use croupier_core::Minor;
use croupier_ledger::MemoryStorage;
use croupier_server::api::{EventView, Role};
use croupier_server::casino::{replay, Request};

use common::actors::{actor, admin};
use common::table_requests::{ball, bet, sale};
use common::world::{fund, inspect_and_open, setup, setup_in_format};

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
            spin: ball("17"),
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
