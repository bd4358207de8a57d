//! What a new table may be and where its results come from: the ids and
//! rules a table takes, and a result only from its table's outcome source (the
//! dealer, the RNG or an automated wheel), live and on replay.

mod common;

use croupier_ledger::{verify, MemoryStorage, Storage};
use croupier_server::api::{EventView, OutcomeSource, Role};
use croupier_server::casino::{replay, Actor, Casino, Request, JOURNAL_FORMAT};

use common::actors::{actor, admin};
use common::requests::inspection;
use common::table_requests::{ball, maryland_dealer_table, new_table};
use common::world::{refused_as, settles, setup, setup_in_format, World};

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
                spin: ball("17"),
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
        spin: ball("17"),
    };
    assert!(settles(&w.ok(&dealer, entered())));
    let entries = w.casino.ledger().storage().entries.clone();
    let (casino, _) = Casino::open(MemoryStorage::with_entries(entries), w.now).expect("replays");
    let mut w = World { casino, now: w.now };
    w.ok(&dealer, Request::OpenBetting { table: "rng".into() });
    w.ok(&dealer, Request::NoMoreBets { table: "rng".into() });
    refused_as(&mut w, &dealer, entered(), "not_dealer_table");
}
