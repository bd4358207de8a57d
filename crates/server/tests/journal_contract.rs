//! The journal is a stored contract of its own: what it holds does not
//! follow the API's words. A journal written with every kind of event
//! replays byte for byte, holds reasons as codes and none of the API's
//! sentences, and (through `scripts/journal-contract.sh`, which rewords a
//! reason and renames a field of the API in a copy of the code) still
//! replays after the API changed.
//!
//! `CROUPIER_JOURNAL_OUT=FILE` writes the journal this test makes to FILE;
//! `CROUPIER_JOURNAL_IN=FILE` replays FILE as well.

mod common;

use croupier_core::Minor;
use croupier_ledger::{verify, Entry, MemoryStorage, Storage};
use croupier_server::api::{OutcomeSource, Role};
use croupier_server::casino::views::return_sentence;
use croupier_server::casino::{replay, Actor, Casino, Request, Spin, StoredCorrection};

fn actor(name: &str, role: Role) -> Actor {
    Actor::new(name, role, "L-5")
}

/// A journal with every kind of event the casino writes, in the current format.
fn journal_of_every_kind() -> Vec<Entry> {
    let (mut casino, _) = Casino::open(MemoryStorage::default(), 1_000).expect("open");
    let mut now = 1_000;
    let mut run = |who: Actor, r: Request| {
        now += 1_000;
        let shown = format!("{r:?}");
        let limits = common::signage(&r, casino.journal_format());
        casino.execute(now, &who, r).unwrap_or_else(|e| panic!("{shown}: {e}"));
        if let Some(limits) = limits {
            casino
                .execute(now, &actor("pit", Role::PitSupervisor), limits)
                .expect("limits posted");
        }
    };
    let admin = actor("admin", Role::Admin);
    // The first admin, as a first run makes one.
    run(
        Actor::system(),
        Request::CreateUser {
            username: "admin".into(),
            role: Role::Admin,
            password_hash: "h".into(),
            licence: None,
        },
    );
    let (pit, dealer, cashier) = (
        actor("pit", Role::PitSupervisor),
        actor("dealer", Role::Dealer),
        actor("cashier", Role::Cashier),
    );
    for (name, role) in [
        ("pit", Role::PitSupervisor),
        ("dealer", Role::Dealer),
        ("cashier", Role::Cashier),
        ("ann", Role::Player),
        ("ben", Role::Player),
        ("guard", Role::Security),
    ] {
        run(
            admin.clone(),
            Request::CreateUser {
                username: name.into(),
                role,
                password_hash: "h".into(),
                licence: common::licence_of(name, role),
            },
        );
    }
    run(Actor::system(), Request::LoginFailed { username: "ann".into() });
    run(Actor::system(), Request::LoginSucceeded { username: "ann".into() });
    run(
        admin.clone(),
        Request::CreateTable {
            bonus_text: None,
            table: "t".into(),
            profile_text: croupier_profiles::builtin_text("colorado-2014")
                .expect("profile")
                .into(),
            wheel: "double-zero".into(),
            in_prison: true,
            betting_window_ms: 600_000,
            outcome: OutcomeSource::Dealer,
            shared_colours: false,
            wheel_address: None,
        },
    );
    let t = || "t".to_string();
    run(
        pit.clone(),
        Request::Adjust {
            table: t(),
            replacement: false,
            description: "levelled the wheel".into(),
            witness: Some("guard".into()),
            witness_licence: None,
            external: true,
        },
    );
    // Colorado 2212(2): its security witness confirms it from their own account.
    run(
        actor("guard", Role::Security),
        Request::WitnessAdjustment {
            table: t(),
            adjustment: 1,
        },
    );
    run(
        pit.clone(),
        Request::Adjust {
            table: t(),
            replacement: false,
            description: "tightened the turret".into(),
            witness: Some("guard".into()),
            witness_licence: None,
            external: false,
        },
    );
    // Another than its adjuster withdraws it (Colorado 2212(2)-(3)).
    run(
        admin.clone(),
        Request::WithdrawAdjustment {
            table: t(),
            adjustment: 2,
            reason: "the witness was called away".into(),
        },
    );
    run(
        pit.clone(),
        Request::Inspect {
            table: t(),
            no_magnet_or_contrivance: true,
            wheel_level_and_rotating_freely: true,
            parts_secure: true,
            ball_non_magnetic: true,
            layout_and_signage_comply: true,
        },
    );
    run(dealer.clone(), Request::OpenTable { table: t() });
    for p in ["ann", "ben"] {
        run(
            cashier.clone(),
            Request::CashIn {
                id: format!("in-{p}"),
                player: p.into(),
                amount: Minor::new(100_000),
            },
        );
    }
    run(
        cashier.clone(),
        Request::CashOut {
            id: "out-ben".into(),
            player: "ben".into(),
            amount: Minor::new(1_000),
        },
    );
    run(
        actor("ann", Role::Player),
        Request::BuyIn {
            id: "buy-ann".into(),
            table: t(),
            amount: Minor::new(50_000),
            chip_value: Minor::new(100),
        },
    );
    run(
        dealer.clone(),
        Request::SellChips {
            id: "sale-ben".into(),
            table: t(),
            player: "ben".into(),
            amount: Minor::new(50_000),
            chip_value: Minor::new(100),
        },
    );
    let bet = |id: &str, spot: &str, stake: u64, zero_choice: Option<&str>| Request::PlaceBet {
        table: t(),
        bet_id: id.into(),
        spot: spot.into(),
        stake: Minor::new(stake),
        zero_choice: zero_choice.map(String::from),
        coupon: None,
        coupon_id: None,
    };
    let ball = |pocket: &str| Spin::Ball {
        pocket: pocket.into(),
        direction: "opposite".into(),
        revolutions: 6,
    };
    let (ann, ben) = (actor("ann", Role::Player), actor("ben", Role::Player));
    // Round 1: a bet cancelled, a bet annulled, a bet to prison, a no spin, then zero.
    run(dealer.clone(), Request::OpenBetting { table: t() });
    run(ann.clone(), bet("a1", "red", 1_000, Some("prison")));
    run(ann.clone(), bet("a2", "17", 500, None));
    run(
        ann.clone(),
        Request::CancelBet {
            table: t(),
            bet_id: "a2".into(),
        },
    );
    run(ben.clone(), bet("b1", "black", 20_000, None));
    run(
        pit.clone(),
        Request::AnnulBets {
            table: t(),
            bet_ids: vec!["b1".into()],
            reason: "pooled with another player".into(),
        },
    );
    run(ben.clone(), bet("b2", "17", 10_000, None));
    run(dealer.clone(), Request::NoMoreBets { table: t() });
    // The server's record of a late bet (low-limit-house Irregularities (4); format 15).
    run(
        Actor::system(),
        Request::RecordPastPosting {
            table: t(),
            player: "ben".into(),
            spot: "red".into(),
            stake: Minor::new(500),
        },
    );
    run(
        dealer.clone(),
        Request::Spin {
            bonus_words: Vec::new(),
            table: t(),
            spin: Spin::NoSpin {
                no_spin: "same_direction".into(),
            },
        },
    );
    // Colorado 2206(4): a ball that left the wheel, inspected by the pit.
    run(
        dealer.clone(),
        Request::Spin {
            bonus_words: Vec::new(),
            table: t(),
            spin: Spin::NoSpin {
                no_spin: "ball_left_wheel".into(),
            },
        },
    );
    run(
        pit.clone(),
        Request::InspectBall {
            table: t(),
            damaged: true,
        },
    );
    run(
        dealer.clone(),
        Request::Spin {
            bonus_words: Vec::new(),
            table: t(),
            spin: ball("0"),
        },
    );
    // Round 2: an emergency under way, then 17: the prisoner is released, ben wins.
    run(dealer.clone(), Request::OpenBetting { table: t() });
    run(ben.clone(), bet("b3", "17", 5_000, None));
    run(dealer.clone(), Request::NoMoreBets { table: t() });
    run(
        pit.clone(),
        Request::DeclareEmergency {
            table: t(),
            reason: "power loss".into(),
        },
    );
    run(pit.clone(), Request::LiftEmergency { table: t() });
    run(
        dealer.clone(),
        Request::Spin {
            bonus_words: Vec::new(),
            table: t(),
            spin: ball("17"),
        },
    );
    run(
        pit.clone(),
        Request::Dispute {
            table: t(),
            reason: "a chip on the line".into(),
            corrections: vec![StoredCorrection {
                player: "ann".into(),
                amount: 300,
            }],
            round: None,
            id: Some("dispute-1".into()),
        },
    );
    run(
        ann.clone(),
        Request::Tip {
            id: "tip-ann".into(),
            table: t(),
            amount: Minor::new(100),
        },
    );
    // Round 3, voided as a restart voids it; then the table closes with a bet on it.
    run(dealer.clone(), Request::OpenBetting { table: t() });
    run(ann.clone(), bet("a3", "dozen1", 1_000, None));
    run(
        admin,
        Request::VoidRound {
            table: t(),
            reason: "the server stopped".into(),
        },
    );
    run(dealer.clone(), Request::OpenBetting { table: t() });
    run(ann.clone(), bet("a4", "high", 1_000, None));
    run(
        dealer,
        Request::CloseTable {
            table: t(),
            wheel_cover_locked: true,
        },
    );
    run(
        ann,
        Request::LeaveTable {
            id: "leave-ann".into(),
            table: t(),
        },
    );
    let entries = casino.ledger().storage().clone().load().expect("entries");
    entries
}

#[test]
fn a_journal_of_every_kind_replays_and_holds_codes_not_the_apis_words() {
    let entries = journal_of_every_kind();
    let kinds: std::collections::BTreeSet<String> = entries
        .iter()
        .flat_map(|e| e.record.events())
        .filter(|ev| !croupier_server::casino::journal::is_legacy(ev))
        .flat_map(|ev| croupier_server::casino::journal::read_events(ev).expect("events"))
        .map(|je| {
            serde_json::to_value(je).expect("JSON")["type"]
                .as_str()
                .unwrap_or("")
                .to_string()
        })
        .collect();
    for kind in [
        "user_created",
        "login_failed",
        "login_succeeded",
        "table_created",
        "adjustment_recorded",
        "inspection_recorded",
        "table_opened",
        "cashed_in",
        "cashed_out",
        "bought_in",
        "chips_sold",
        "betting_opened",
        "bet_accepted",
        "bet_cancelled",
        "bets_annulled",
        "bet_returned",
        "no_more_bets",
        "no_spin",
        "result",
        "bet_imprisoned",
        "bet_settled",
        "round_settled",
        "float_filled",
        "emergency_declared",
        "emergency_lifted",
        "dispute_decided",
        "tipped",
        "table_closed",
        "left_table",
        "past_posting",
    ] {
        assert!(kinds.contains(kind), "no {kind} in {kinds:?}");
    }
    assert_eq!(verify(&entries).first_problem, None);
    let again = replay(&entries).expect("replays");
    // The replay compares every entry it writes with the journal's, byte for byte.
    assert_eq!(again.ledger().next_seq(), entries.len() as u64 + 1);
    // Reasons are codes; the API's sentences for them are not in the journal.
    let text: String = entries.iter().map(|e| e.text.as_str()).collect();
    for code in ["table_closed", "annulled", "round_voided", "same_direction"] {
        assert!(text.contains(&format!(r#""reason":"{code}""#)), "{code}");
        assert!(!text.contains(&return_sentence(code)), "{}", return_sentence(code));
    }
    // Nor are the API's own fields: a returned bet's sentence, a bet's net, a result's colour.
    for api_only in [r#""why":"#, r#""net":"#] {
        assert!(!text.contains(api_only), "{api_only}");
    }
    for e in &entries {
        for ev in e
            .record
            .events()
            .iter()
            .filter(|ev| !croupier_server::casino::journal::is_legacy(ev))
        {
            let body: serde_json::Value = serde_json::from_str(ev.body.get()).expect("JSON");
            for stored in body["events"].as_array().expect("events") {
                if stored["type"] == "result" {
                    assert!(stored.get("colour").is_none(), "{stored}");
                }
            }
        }
    }
    if let Ok(path) = std::env::var("CROUPIER_JOURNAL_OUT") {
        std::fs::write(&path, common::jsonl::to_lines(&entries)).expect("write the journal");
    }
}

/// A journal kept as text replays whole: this code's own, or with
/// `CROUPIER_JOURNAL_IN` one written elsewhere (by the code before a change to the API).
#[test]
fn a_journal_kept_as_text_replays_whole() {
    let (path, text) = match std::env::var("CROUPIER_JOURNAL_IN") {
        Ok(path) => {
            let text = std::fs::read_to_string(&path).expect("the journal to replay");
            (path, text)
        }
        Err(_) => (
            "this code's own".to_string(),
            common::jsonl::to_lines(&journal_of_every_kind()),
        ),
    };
    let entries = common::jsonl::from_lines(&text);
    assert!(!entries.is_empty());
    let again = replay(&entries).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(
        again.ledger().next_seq(),
        entries.len() as u64 + 1,
        "each entry compared as it was written"
    );
}

/// A checkpoint holds the whole state: taken after any entry, read back and
/// taken again it gives the same bytes, and the entries after it replay on
/// it, byte for byte, to the state a replay from the first entry reaches.
#[test]
fn a_checkpoint_after_any_entry_replays_the_rest_to_the_same_state() {
    use croupier_server::casino::Replayer;
    let entries = journal_of_every_kind();
    let whole = replay(&entries).expect("replays").checkpoint().expect("a checkpoint");
    let mut replayer = Replayer::new(None).expect("a replay");
    for (k, entry) in entries.iter().enumerate() {
        replayer.entry(entry).expect("replays");
        let taken = replayer.casino().checkpoint().expect("a checkpoint");
        assert_eq!(taken.through, entry.seq);
        let (mut resumed, _) = Replayer::resumed(&taken, None).expect("reads back");
        let again = resumed.casino().checkpoint().expect("a checkpoint");
        assert!(
            again.bytes == taken.bytes,
            "after entry {}: read back, it writes other bytes",
            entry.seq
        );
        for rest in &entries[k + 1..] {
            resumed
                .entry(rest)
                .unwrap_or_else(|e| panic!("from the checkpoint after entry {}: {e}", entry.seq));
        }
        let end = resumed.casino().checkpoint().expect("a checkpoint");
        assert!(
            end.bytes == whole.bytes,
            "from the checkpoint after entry {}: another state",
            entry.seq
        );
    }
    assert_eq!(whole.through, entries.len() as u64);
}

/// A start from a checkpoint takes it only as the journal binds it: by an
/// entry after it naming its SHA-256 and length; and only the server binds one.
#[test]
fn a_checkpoint_is_opened_from_only_as_the_journal_binds_it() {
    use croupier_server::casino::checkpoint::Checkpoint;
    use croupier_server::casino::OpenError;
    let (mut casino, _) = Casino::open(MemoryStorage::default(), 1_000).expect("open");
    let admin = actor("admin", Role::Admin);
    let add = |casino: &mut Casino<MemoryStorage>, name: &str, at: u64| {
        let user = Request::CreateUser {
            username: name.into(),
            role: Role::Player,
            password_hash: "h".into(),
            licence: None,
        };
        casino.execute(at, &Actor::system(), user).expect("a user");
    };
    add(&mut casino, "admin", 2_000);
    add(&mut casino, "ann", 3_000);
    let taken = casino.checkpoint().expect("a checkpoint");
    let bind = |c: &Checkpoint| Request::Checkpoint {
        through: c.through,
        digest: c.digest(),
        bytes: c.bytes.len() as u64,
    };
    // Only the server binds a checkpoint, and only a state written before it.
    let refused = casino.execute(4_000, &admin, bind(&taken)).expect_err("an admin");
    assert_eq!(refused.code.as_str(), "forbidden");
    let ahead = Request::Checkpoint {
        through: 99,
        digest: taken.digest(),
        bytes: 1,
    };
    let refused = casino.execute(4_000, &Actor::system(), ahead).expect_err("ahead");
    assert!(refused.message.contains("1 to 3"), "{}", refused.message);
    let odd = Request::Checkpoint {
        through: 1,
        digest: "XYZ".into(),
        bytes: 1,
    };
    assert!(casino.execute(4_000, &Actor::system(), odd).is_err());
    casino.execute(5_000, &Actor::system(), bind(&taken)).expect("bound");
    add(&mut casino, "ben", 6_000);
    let unbound = casino.checkpoint().expect("a checkpoint");
    add(&mut casino, "cat", 7_000);
    let entries = casino.ledger().storage().entries.clone();
    let whole = replay(&entries).expect("replays").checkpoint().expect("a checkpoint");
    let open = |from: &Checkpoint| {
        Casino::open_from(
            MemoryStorage::with_entries(entries.clone()),
            8_000,
            None,
            Some(from.clone()),
        )
    };
    // Bound: only what follows it is replayed, to the same state.
    let (opened, _) = open(&taken).expect("opens from the checkpoint");
    assert_eq!(opened.checkpoint().expect("a checkpoint").bytes, whole.bytes);
    // Not bound, or not the bytes bound: refused, for the caller to open without it.
    match open(&unbound) {
        Err(OpenError::Checkpoint { why, .. }) => assert!(why.contains("no entry"), "{why}"),
        other => panic!("{:?}", other.err()),
    }
    let mut longer = taken.clone();
    longer.bytes.push(0);
    match open(&longer) {
        Err(OpenError::Checkpoint { why, .. }) => assert!(why.contains("binds"), "{why}"),
        other => panic!("{:?}", other.err()),
    }
    let mut elsewhere = taken.clone();
    elsewhere.through += 1;
    assert!(matches!(open(&elsewhere), Err(OpenError::Checkpoint { .. })));
}
