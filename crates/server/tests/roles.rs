//! Who may do what: every request refuses every role but its own, and only a
//! user the casino knows, not locked, acts, and only in their own role.

mod common;

use croupier_core::Minor;
use croupier_ledger::MemoryStorage;
use croupier_server::api::Role;
use croupier_server::casino::{replay, Actor, Request, StoredCorrection, JOURNAL_FORMAT};

use common::actors::{actor, admin};
use common::requests::inspection;
use common::table_requests::{ball, bet, buy_in_at, maryland_dealer_table, sale};
use common::world::{dispute_id, fund, inspect_and_open, setup, setup_in_format, World};

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
            spin: ball("2"),
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
                    spin: ball("2"),
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
                spin: ball("17"),
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
        (buy_in_at("m-buy".into(), "t1", 100), &[Player], Betting),
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
