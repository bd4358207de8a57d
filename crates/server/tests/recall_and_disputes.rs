//! Disputes and the rounds kept for them: who may decide one, which rounds a
//! table keeps for game recall, and what a dispute may pay.

mod common;

use croupier_ledger::MemoryStorage;
use croupier_server::api::{OutcomeSource, Role};
use croupier_server::casino::{replay, Actor, Request, StoredCorrection, JOURNAL_FORMAT};

use common::actors::actor;
use common::table_requests::{ball, bet, rng_draw};
use common::world::{
    dispute_id, fund, inspect_and_open, refused_as, settles, setup, setup_in_format, setup_with_table,
};

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
                    spin: ball(&(round % 37).to_string()),
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
