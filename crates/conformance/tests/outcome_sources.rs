//! Rounds played with each outcome source: the RNG, a dealer's entry, an automated wheel.

use std::io::BufReader;
use std::net::{TcpListener, TcpStream};

use croupier_core::round::{Command, Event, Inspection, NoSpinReason, Person, SpinReport, Table, TableConfig};
use croupier_core::{Outcome, Wheel};
use croupier_rng::{drawn_spin, index_of_word, rng_draw, rng_spin, CasinoRng, OutcomeError};
use croupier_wheel::emulator::{serve, EmulatorConfig, Scripted};
use croupier_wheel::monitor::{follow, spin_report};

fn open_table(profile: &str, wheel: Wheel) -> Table {
    let mut t = Table::new(
        croupier_profiles::load(profile).expect("profile"),
        TableConfig {
            wheel,
            in_prison: false,
            betting_window_ms: 30_000,
        },
    )
    .expect("table");
    t.handle(Command::RecordInspection(Inspection {
        at_ms: 1,
        by: Person {
            name: "Sam Roe".into(),
            role: "pit supervisor".into(),
            licence: "CO-99".into(),
        },
        no_magnet_or_contrivance: true,
        wheel_level_and_rotating_freely: true,
        parts_secure: true,
        ball_non_magnetic: true,
        layout_and_signage_comply: true,
        by_regulator: false,
    }))
    .expect("inspected");
    t.handle(Command::Open { at_ms: 2 }).expect("open");
    t
}

fn betting_round(t: &mut Table, at_ms: u64) {
    t.handle(Command::OpenBetting { at_ms }).expect("betting");
    for (i, spot) in ["red", "black", "0"].iter().enumerate() {
        t.handle(Command::PlaceBet {
            at_ms: at_ms + 1,
            bet_id: format!("r{at_ms}-{i}"),
            player: i as u64,
            spot: spot.to_string(),
            stake_minor: 500,
            zero_choice: None,
            coupon_minor: None,
        })
        .expect("bet");
    }
}

fn settled(events: &[Event]) -> usize {
    events.iter().filter(|e| matches!(e, Event::BetSettled { .. })).count()
}

#[test]
fn the_rng_draws_only_after_no_more_bets() {
    let mut t = open_table("european-casino", Wheel::SingleZero);
    let mut rng = CasinoRng::from_os().expect("entropy");
    let mut settled_bets = 0;
    for round in 0..50u64 {
        let at = 10 + round * 100;
        betting_round(&mut t, at);
        // Betting is open: the generator refuses to draw.
        assert!(matches!(rng_spin(&mut rng, &t), Err(OutcomeError::BettingStillOpen)));
        t.handle(Command::NoMoreBets { at_ms: at + 2 }).expect("nmb");
        let (report, word) = rng_draw(&mut rng, &t).expect("drawn");
        // The word is the draw's evidence: it gives the same spin again.
        assert_eq!(drawn_spin(word, &t), Some(report));
        let events = t.handle(Command::Spin { at_ms: at + 3, report }).expect("spin");
        settled_bets += settled(&events);
    }
    assert_eq!(settled_bets, 150);
}

#[test]
fn a_dealer_keys_the_outcome() {
    let mut t = open_table("maryland", Wheel::DoubleZero);
    betting_round(&mut t, 10);
    t.handle(Command::NoMoreBets { at_ms: 12 }).expect("nmb");
    assert!(SpinReport::dealer_entry("37", "opposite", 5).is_err());
    assert!(SpinReport::dealer_entry("7", "sideways", 5).is_err());
    // Maryland ch.6 A: same direction is a no spin.
    let report = SpinReport::dealer_entry("7", "same", 9).expect("entry");
    let events = t.handle(Command::Spin { at_ms: 13, report }).expect("spin");
    assert!(matches!(
        events[..],
        [Event::NoSpin {
            reason: NoSpinReason::SameDirection,
            ..
        }]
    ));
    let report = SpinReport::dealer_no_spin("foreign_object").expect("reason");
    t.handle(Command::Spin { at_ms: 14, report }).expect("no spin");
    let report = SpinReport::dealer_entry("7", "opposite", 6).expect("entry");
    let events = t.handle(Command::Spin { at_ms: 15, report }).expect("spin");
    // 7 is red: red wins, black and 0 lose.
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::BetSettled { bet_id, outcome: Outcome::Win, .. } if bet_id == "r10-0")));
    assert_eq!(settled(&events), 3);
}

#[test]
fn an_automated_wheel_drives_rounds_over_a_socket() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = listener.local_addr().expect("addr");
    let config = EmulatorConfig {
        wheel: Wheel::DoubleZero,
        frame_ms: 1,
        games: Some(6),
        manual_start: false,
        script: vec![
            Scripted::Warnings(croupier_wheel::slingshot2::WARN_BALL_NOT_SENSED),
            Scripted::Pocket(croupier_core::Pocket::parse("0").expect("0")),
        ],
        seed: Some([5; 32]),
        fault_per_mille: 0,
    };
    let emulator = std::thread::spawn(move || serve(listener, config, |_| {}));
    let mut t = open_table("low-limit-house", Wheel::DoubleZero);
    let stream = TcpStream::connect(address).expect("connect");
    let mut now = 10;
    let mut results = Vec::new();
    betting_round(&mut t, now);
    t.handle(Command::NoMoreBets { at_ms: now + 2 }).expect("nmb");
    follow(BufReader::new(stream), Some(6), |game| {
        now += 100;
        let report = spin_report(game.result, t.profile().spec().min_ball_revolutions);
        let events = t.handle(Command::Spin { at_ms: now, report }).expect("spin");
        results.push(events.clone());
        if events.iter().any(|e| matches!(e, Event::RoundSettled { .. })) {
            betting_round(&mut t, now + 1);
            t.handle(Command::NoMoreBets { at_ms: now + 3 }).expect("nmb");
        }
        Ok(())
    })
    .expect("follow");
    emulator.join().expect("thread").expect("emulator");
    // Game 1: the wheel did not sense the ball, a no spin; the bets stay.
    assert!(matches!(
        results[0][..],
        [Event::NoSpin {
            reason: NoSpinReason::BallNotSensed,
            ..
        }]
    ));
    // Game 2: 0 — red and black lose, the straight on 0 wins.
    assert!(results[1]
        .iter()
        .any(|e| matches!(e, Event::BetSettled { bet_id, outcome: Outcome::Win, returned, .. } if bet_id == "r10-2" && returned.get() == 18_000)));
    assert_eq!(
        results
            .iter()
            .filter(|r| r.iter().any(|e| matches!(e, Event::RoundSettled { .. })))
            .count(),
        5
    );
}

#[test]
fn a_word_the_draw_throws_away_gives_no_outcome() {
    // 2^32 = 113,025,455 * 38 + 6: the top six words would favour six pockets.
    let zone = 113_025_455u32 * 38;
    assert_eq!(index_of_word(zone - 1, 38), Some((zone - 1) % 38));
    assert_eq!(index_of_word(zone, 38), None);
    assert_eq!(index_of_word(u32::MAX, 38), None);
    assert_eq!(index_of_word(5, 0), None);
}
