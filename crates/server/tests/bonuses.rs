//! Bonus tables (Maryland ch.3 F, ch.4 D-F): where their results come from,
//! Bonus Spin Xtreme's wagers, meters and Community Pay, and Roulette X's
//! paytables.

mod common;

use croupier_ledger::{verify, MemoryStorage};
use croupier_server::api::{EventView, OutcomeSource, Role};
use croupier_server::casino::{replay, Actor, Request, StoredCorrection, JOURNAL_FORMAT};

use common::actors::{actor, admin};
use common::table_requests::{bet, maryland_dealer_table, new_table, rng_draw};
use common::world::{dispute_id, fund, inspect_and_open, refused_as, setup, setup_in_format, setup_with_table};

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
