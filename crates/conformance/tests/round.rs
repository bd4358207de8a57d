//! The life of a round, clause by clause, and invariants under random commands.

use croupier_core::round::{
    Adjustment, Command, CommandError, Event, Inspection, NoSpinReason, Person, Phase, Readings, SpinReport, Table,
    TableConfig,
};
use croupier_core::{Outcome, Pocket, Wheel, ZeroChoice};
use proptest::prelude::*;

fn person(role: &str) -> Person {
    Person {
        name: "Pat Doe".into(),
        role: role.into(),
        licence: "L-1234".into(),
    }
}

fn inspection(at_ms: u64) -> Inspection {
    Inspection {
        at_ms,
        by: person("pit supervisor"),
        no_magnet_or_contrivance: true,
        wheel_level_and_rotating_freely: true,
        parts_secure: true,
        ball_non_magnetic: true,
        layout_and_signage_comply: true,
        by_regulator: false,
    }
}

fn table(profile: &str, wheel: Wheel, in_prison: bool) -> Table {
    let profile = croupier_profiles::load(profile).expect("profile");
    Table::new(
        profile,
        TableConfig {
            wheel,
            in_prison,
            betting_window_ms: 30_000,
        },
    )
    .expect("table")
}

fn open(t: &mut Table) {
    t.handle(Command::RecordInspection(inspection(1))).expect("inspection");
    t.handle(Command::Open { at_ms: 2 }).expect("open");
}

fn bet(t: &mut Table, at_ms: u64, id: &str, player: u64, spot: &str, stake: i128) -> Result<Vec<Event>, CommandError> {
    t.handle(Command::PlaceBet {
        at_ms,
        bet_id: id.into(),
        player,
        spot: spot.into(),
        stake_minor: stake,
        zero_choice: None,
        coupon_minor: None,
    })
}

fn ball(pocket: &str, revolutions: u8) -> SpinReport {
    SpinReport::Ball {
        pocket: Pocket::parse(pocket).expect("pocket"),
        opposite_direction: true,
        revolutions,
    }
}

fn spin(t: &mut Table, at_ms: u64, report: SpinReport) -> Vec<Event> {
    t.handle(Command::Spin { at_ms, report }).expect("spin")
}

#[test]
fn a_table_opens_only_after_a_passing_inspection() {
    // Colorado 2212(1); Maryland ch.2 A.
    let mut t = table("maryland", Wheel::DoubleZero, false);
    assert_eq!(t.handle(Command::Open { at_ms: 1 }), Err(CommandError::NotInspected));
    let mut failing = inspection(1);
    failing.ball_non_magnetic = false;
    assert!(matches!(
        t.handle(Command::RecordInspection(failing)),
        Err(CommandError::InspectionFailed(_))
    ));
    open(&mut t);
    assert_eq!(t.phase(), Phase::Open);
    // Colorado 2212(1)(e), Maryland ch.2 A(5): the 00 cover and signage on a double-zero wheel used as single zero.
    let mut t = table("colorado-2014", Wheel::DoubleZeroAsSingleZero, false);
    let mut no_signage = inspection(1);
    no_signage.layout_and_signage_comply = false;
    assert!(matches!(
        t.handle(Command::RecordInspection(no_signage)),
        Err(CommandError::InspectionFailed(_))
    ));
    // Colorado 2212(1): every item that failed is named, not only the first.
    let mut nothing = inspection(1);
    nothing.no_magnet_or_contrivance = false;
    nothing.wheel_level_and_rotating_freely = false;
    nothing.parts_secure = false;
    let refused = t
        .handle(Command::RecordInspection(nothing))
        .expect_err("three items failed")
        .to_string();
    // Each item not ticked is named as not confirmed, not as a finding.
    for item in ["not confirmed", "no magnet", "level and rotating", "parts secure"] {
        assert!(refused.contains(item), "{refused}");
    }
    assert!(!refused.contains("balls") && !refused.contains("found"), "{refused}");
}

#[test]
fn an_adjustment_needs_a_new_inspection() {
    // Maryland ch.2 C-E; Colorado 2212(2)-(5).
    let mut t = table("maryland", Wheel::SingleZero, false);
    t.handle(Command::RecordInspection(inspection(1))).expect("inspection");
    let adjustment = Adjustment {
        at_ms: 2,
        by: person("floorperson"),
        replacement: true,
        description: "replaced the ball track trim".into(),
        witness: Some(person("security officer")),
        external: true,
        awaiting_witness: None,
    };
    t.handle(Command::RecordAdjustment(adjustment)).expect("logged");
    assert_eq!(t.handle(Command::Open { at_ms: 3 }), Err(CommandError::NotInspected));
    // Maryland ch.2 D: after a replacement, the inspection of A, by the facility's own staff.
    assert!(!t.awaits_regulator());
    t.handle(Command::RecordInspection(inspection(4))).expect("inspection");
    t.handle(Command::Open { at_ms: 5 }).expect("opens");
}

#[test]
fn a_replaced_external_part_waits_for_the_regulators_inspection() {
    // Colorado 2212(4): "if any one or more of the movable parts are external, then an
    // inspection must be completed by the Director or designee prior to reopening".
    let mut t = table("colorado-2014", Wheel::DoubleZero, false);
    t.handle(Command::RecordInspection(inspection(1))).expect("inspection");
    let replaced = |at_ms, external| Adjustment {
        at_ms,
        by: person("pit supervisor"),
        replacement: true,
        description: "replaced the turret".into(),
        witness: Some(person("security officer")),
        external,
        awaiting_witness: None,
    };
    // An internal part: the licensee's own inspection, 2212(1).
    t.handle(Command::RecordAdjustment(replaced(2, false))).expect("logged");
    assert!(!t.awaits_regulator());
    t.handle(Command::RecordInspection(inspection(3))).expect("inspection");
    // An external one: the pit's inspection is refused until the regulator's.
    t.handle(Command::RecordAdjustment(replaced(4, true))).expect("logged");
    assert!(t.awaits_regulator());
    assert_eq!(
        t.handle(Command::RecordInspection(inspection(5))),
        Err(CommandError::RegulatorInspectionRequired)
    );
    assert_eq!(t.handle(Command::Open { at_ms: 6 }), Err(CommandError::NotInspected));
    let regulator = Inspection {
        by: person("regulator"),
        by_regulator: true,
        ..inspection(7)
    };
    t.handle(Command::RecordInspection(regulator))
        .expect("the Director's inspection");
    assert!(!t.awaits_regulator());
    t.handle(Command::Open { at_ms: 8 }).expect("opens");
}

#[test]
fn a_ball_that_left_the_wheel_is_inspected_before_the_next_spin() {
    // Colorado 2206(4): "The ball shall be recovered and inspected by the pit supervisor
    // for any damage or tampering before being placed back into the wheel."
    let mut t = table("colorado-2014", Wheel::DoubleZero, false);
    open(&mut t);
    t.handle(Command::OpenBetting { at_ms: 10 }).expect("betting");
    t.handle(Command::NoMoreBets { at_ms: 20 }).expect("no more bets");
    assert_eq!(
        t.handle(Command::InspectBall {
            at_ms: 21,
            by: person("pit supervisor"),
            damaged: false
        }),
        Err(CommandError::NoBallToInspect)
    );
    spin(&mut t, 30, SpinReport::NoSpin(NoSpinReason::BallLeftWheel));
    assert_eq!(t.ball_awaits_inspection(), Some(NoSpinReason::BallLeftWheel));
    // Colorado names no inspection after too few revolutions (2205(1)).
    let events = t
        .handle(Command::InspectBall {
            at_ms: 31,
            by: person("pit supervisor"),
            damaged: false,
        })
        .expect("inspected");
    assert!(matches!(
        events.as_slice(),
        [Event::BallInspected {
            reason: NoSpinReason::BallLeftWheel,
            damaged: false,
            ..
        }]
    ));
    assert_eq!(t.ball_awaits_inspection(), None);
    spin(&mut t, 40, SpinReport::NoSpin(NoSpinReason::TooFewRevolutions));
    assert_eq!(t.ball_awaits_inspection(), None);
}

#[test]
fn a_maryland_ball_is_inspected_after_too_few_revolutions_or_leaving_the_wheel() {
    // Maryland ch.6 B-C: after either no spin "the dealer shall inspect the ball for any
    // signs of damage"; a damaged one is replaced (B(2), C(2)).
    for reason in [NoSpinReason::TooFewRevolutions, NoSpinReason::BallLeftWheel] {
        let mut t = table("maryland", Wheel::DoubleZero, false);
        open(&mut t);
        t.handle(Command::OpenBetting { at_ms: 10 }).expect("betting");
        t.handle(Command::NoMoreBets { at_ms: 20 }).expect("no more bets");
        spin(&mut t, 30, SpinReport::NoSpin(reason));
        assert_eq!(t.ball_awaits_inspection(), Some(reason));
        t.handle(Command::InspectBall {
            at_ms: 31,
            by: person("floorperson"),
            damaged: true,
        })
        .expect("replaced");
        assert_eq!(t.ball_awaits_inspection(), None);
    }
    // The other documents name no such inspection.
    let mut t = table("european-casino", Wheel::SingleZero, false);
    open(&mut t);
    t.handle(Command::OpenBetting { at_ms: 10 }).expect("betting");
    t.handle(Command::NoMoreBets { at_ms: 20 }).expect("no more bets");
    spin(&mut t, 30, SpinReport::NoSpin(NoSpinReason::BallLeftWheel));
    assert_eq!(t.ball_awaits_inspection(), None);
}

#[test]
fn a_full_round_collects_losers_then_pays_winners() {
    let mut t = table("maryland", Wheel::DoubleZero, false);
    open(&mut t);
    t.handle(Command::OpenBetting { at_ms: 10 }).expect("betting");
    bet(&mut t, 11, "a", 1, "17", 100).expect("accepted");
    bet(&mut t, 12, "b", 2, "red", 500).expect("accepted");
    bet(&mut t, 13, "c", 2, "18", 100).expect("accepted");
    t.handle(Command::NoMoreBets { at_ms: 20 }).expect("no more bets");
    // low-limit-house Irregularities (4), european-casino 3.3: no bet after no more bets.
    assert_eq!(bet(&mut t, 21, "late", 3, "17", 100), Err(CommandError::PastPosting));
    let events = spin(&mut t, 30, ball("17", 8));
    // Colorado 2205(4), Maryland ch.5 F: losing wagers are collected first, then winners paid.
    let settled: Vec<(&str, Outcome, u64)> = events
        .iter()
        .filter_map(|e| match e {
            Event::BetSettled {
                bet_id,
                outcome,
                returned,
                ..
            } => Some((bet_id.as_str(), *outcome, returned.get())),
            _ => None,
        })
        .collect();
    assert_eq!(
        settled,
        [
            ("b", Outcome::Lose, 0),
            ("c", Outcome::Lose, 0),
            ("a", Outcome::Win, 3600)
        ]
    );
    assert!(matches!(events.first(), Some(Event::ResultRecorded { .. })));
    assert!(matches!(events.last(), Some(Event::RoundSettled { .. })));
    assert_eq!(t.phase(), Phase::Open);
    assert!(t.bets().is_empty());
    // Betting opens again for the next round.
    t.handle(Command::OpenBetting { at_ms: 40 }).expect("next round");
    assert_eq!(t.round(), 2);
}

#[test]
fn bets_after_the_deadline_are_past_posting() {
    let mut t = table("low-limit-house", Wheel::DoubleZero, false);
    open(&mut t);
    t.handle(Command::OpenBetting { at_ms: 10 }).expect("betting");
    assert_eq!(
        bet(&mut t, 10 + 30_000, "late", 1, "17", 100),
        Err(CommandError::PastPosting)
    );
    bet(&mut t, 10 + 29_999, "in-time", 1, "17", 100).expect("accepted");
}

#[test]
fn invalid_spins_are_no_spins() {
    // Colorado 2206(1): ball and rotor in the same direction.
    let mut t = table("colorado-2014", Wheel::DoubleZero, false);
    open(&mut t);
    t.handle(Command::OpenBetting { at_ms: 10 }).expect("betting");
    bet(&mut t, 11, "a", 1, "17", 100).expect("accepted");
    t.handle(Command::NoMoreBets { at_ms: 20 }).expect("nmb");
    let same_way = SpinReport::Ball {
        pocket: Pocket::parse("17").expect("17"),
        opposite_direction: false,
        revolutions: 9,
    };
    let events = spin(&mut t, 30, same_way);
    assert!(matches!(
        events[..],
        [Event::NoSpin {
            reason: NoSpinReason::SameDirection,
            ..
        }]
    ));
    // Colorado 2206(2), 2205(1): fewer than four revolutions.
    let events = spin(&mut t, 31, ball("17", 3));
    assert!(matches!(
        events[..],
        [Event::NoSpin {
            reason: NoSpinReason::TooFewRevolutions,
            ..
        }]
    ));
    // The bets stand for the re-spin.
    assert_eq!(t.bets().len(), 1);
    let events = spin(&mut t, 32, ball("17", 4));
    assert!(events.iter().any(|e| matches!(
        e,
        Event::BetSettled {
            outcome: Outcome::Win,
            ..
        }
    )));

    // low-limit-house Rotation of Wheel and Ball (1): three revolutions are enough there.
    let mut t = table("low-limit-house", Wheel::DoubleZero, false);
    open(&mut t);
    t.handle(Command::OpenBetting { at_ms: 10 }).expect("betting");
    t.handle(Command::NoMoreBets { at_ms: 20 }).expect("nmb");
    assert!(matches!(
        spin(&mut t, 30, ball("5", 3))[0],
        Event::ResultRecorded { .. }
    ));
}

#[test]
fn a_hanging_ball_is_a_no_spin_only_if_called_before_it_drops() {
    // low-limit-house Irregularities (5): the floor manager may call no spin on a hanging ball,
    // but a ball that falls first is a legal spin.
    let mut t = table("low-limit-house", Wheel::DoubleZero, false);
    open(&mut t);
    t.handle(Command::OpenBetting { at_ms: 10 }).expect("betting");
    bet(&mut t, 11, "a", 1, "17", 100).expect("accepted");
    t.handle(Command::NoMoreBets { at_ms: 20 }).expect("nmb");
    let events = spin(&mut t, 30, SpinReport::NoSpin(NoSpinReason::BallHangs));
    assert!(matches!(
        events[..],
        [Event::NoSpin {
            reason: NoSpinReason::BallHangs,
            ..
        }]
    ));
    assert_eq!(t.bets().len(), 1, "the bets stay for the re-spin");
    let events = spin(&mut t, 40, ball("17", 3));
    assert!(events.iter().any(|e| matches!(
        e,
        Event::BetSettled {
            outcome: Outcome::Win,
            ..
        }
    )));
}

#[test]
fn no_spin_returns_bets_where_the_profile_says_so() {
    // european-casino 4.5-4.8: the spin is invalid, as are all bets.
    let mut t = table("european-casino", Wheel::SingleZero, false);
    open(&mut t);
    t.handle(Command::OpenBetting { at_ms: 10 }).expect("betting");
    bet(&mut t, 11, "a", 1, "17", 100).expect("accepted");
    t.handle(Command::NoMoreBets { at_ms: 20 }).expect("nmb");
    let events = spin(&mut t, 30, SpinReport::NoSpin(NoSpinReason::TrimLoose));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::BetReturned { returned, .. } if returned.get() == 100)));
    assert!(t.bets().is_empty());
    assert_eq!(t.phase(), Phase::Open);
}

#[test]
fn only_the_causes_of_4_5_to_4_8_return_the_bets() {
    // european-casino 4.5-4.8 make the spin invalid "as are all bets"; the
    // glossary's other no spins (1: fewer than three turns, 3: same
    // direction, 4: a supervisor's command) are spun again, the bets standing.
    for (reason, returned) in [
        (NoSpinReason::TrimLoose, true),
        (NoSpinReason::RotorStopped, true),
        (NoSpinReason::ForeignObject, true),
        (NoSpinReason::ExternalInfluence, true),
        (NoSpinReason::CroupierUnable, true),
        (NoSpinReason::TooFewRevolutions, false),
        (NoSpinReason::SameDirection, false),
        (NoSpinReason::SupervisorCommand, false),
    ] {
        let mut t = table("european-casino", Wheel::SingleZero, false);
        open(&mut t);
        t.handle(Command::OpenBetting { at_ms: 10 }).expect("betting");
        bet(&mut t, 11, "a", 1, "17", 100).expect("accepted");
        t.handle(Command::NoMoreBets { at_ms: 20 }).expect("nmb");
        spin(&mut t, 30, SpinReport::NoSpin(reason));
        assert_eq!(t.bets().is_empty(), returned, "{reason:?}");
        if !returned {
            assert_eq!(t.phase(), Phase::NoMoreBets, "{reason:?}: spun again");
            let events = spin(&mut t, 40, ball("17", 8));
            assert!(
                events.iter().any(|e| matches!(
                    e,
                    Event::BetSettled {
                        outcome: Outcome::Win,
                        ..
                    }
                )),
                "{reason:?}: the bet stands for the next spin"
            );
        }
    }
}

#[test]
fn double_zero_used_as_single_zero_spins_again_on_00() {
    // Maryland ch.4 C(2); Colorado 2210(2)(c)(ii)(B).
    let mut t = table("maryland", Wheel::DoubleZeroCovered, false);
    open(&mut t);
    t.handle(Command::OpenBetting { at_ms: 10 }).expect("betting");
    bet(&mut t, 11, "a", 1, "red", 100).expect("accepted");
    assert!(matches!(bet(&mut t, 12, "b", 1, "00", 100), Err(CommandError::Bet(_))));
    t.handle(Command::NoMoreBets { at_ms: 20 }).expect("nmb");
    let events = spin(&mut t, 30, ball("00", 8));
    assert!(matches!(events[..], [Event::SpinVoided { .. }]));
    assert_eq!(t.phase(), Phase::NoMoreBets);
    let events = spin(&mut t, 40, ball("1", 8));
    assert!(events.iter().any(|e| matches!(
        e,
        Event::BetSettled {
            outcome: Outcome::Win,
            ..
        }
    )));
}

#[test]
fn emergencies_stop_play_until_lifted() {
    // european-casino 6.1-6.3.
    let mut t = table("european-casino", Wheel::SingleZero, false);
    open(&mut t);
    t.handle(Command::OpenBetting { at_ms: 10 }).expect("betting");
    bet(&mut t, 11, "a", 1, "17", 100).expect("accepted");
    t.handle(Command::NoMoreBets { at_ms: 20 }).expect("nmb");
    let events = t
        .handle(Command::DeclareEmergency {
            at_ms: 21,
            by: person("security"),
            reason: "power loss".into(),
        })
        .expect("declared");
    assert!(events.iter().any(|e| matches!(
        e,
        Event::NoSpin {
            reason: NoSpinReason::Emergency,
            ..
        }
    )));
    assert_eq!(
        t.handle(Command::Spin {
            at_ms: 22,
            report: ball("17", 9)
        }),
        Err(CommandError::Emergency)
    );
    t.handle(Command::LiftEmergency {
        at_ms: 23,
        by: person("security"),
    })
    .expect("lifted");
    let events = spin(&mut t, 24, ball("17", 9));
    assert!(events.iter().any(|e| matches!(
        e,
        Event::BetSettled {
            outcome: Outcome::Win,
            ..
        }
    )));
}

#[test]
fn only_the_pit_supervisor_decides_disputes() {
    // Colorado 2206(5): the pit supervisor, and not the dealer.
    let mut t = table("colorado-2014", Wheel::DoubleZero, false);
    open(&mut t);
    let decision = |role: &str| Command::DecideDispute {
        at_ms: 5,
        by: person(role),
        reason: "chip on the line between 17 and 18".into(),
        corrections: vec![(7, 1800)],
    };
    assert!(matches!(
        t.handle(decision("dealer")),
        Err(CommandError::NotDisputeAuthority { .. })
    ));
    let events = t.handle(decision("pit supervisor")).expect("decided");
    assert!(matches!(&events[0], Event::DisputeDecided { corrections, .. } if corrections == &vec![(7, 1800)]));
}

#[test]
fn pooled_bets_can_be_annulled() {
    // european-casino 3.7-3.8.
    let mut t = table("european-casino", Wheel::SingleZero, false);
    open(&mut t);
    t.handle(Command::OpenBetting { at_ms: 10 }).expect("betting");
    bet(&mut t, 11, "a", 1, "17", 100).expect("accepted");
    bet(&mut t, 12, "b", 2, "17", 100).expect("accepted");
    let events = t
        .handle(Command::AnnulBets {
            at_ms: 13,
            by: person("pit boss"),
            bet_ids: vec!["a".into(), "b".into()],
            reason: "collective bet over the maximum".into(),
        })
        .expect("annulled");
    assert_eq!(
        events.iter().filter(|e| matches!(e, Event::BetReturned { .. })).count(),
        2
    );
    assert!(t.bets().is_empty());
}

#[test]
fn in_prison_carries_into_the_next_round() {
    // Colorado 2204(2).
    let mut t = table("colorado-2013", Wheel::SingleZero, true);
    open(&mut t);
    t.handle(Command::OpenBetting { at_ms: 10 }).expect("betting");
    t.handle(Command::PlaceBet {
        at_ms: 11,
        bet_id: "p".into(),
        player: 1,
        spot: "red".into(),
        stake_minor: 500,
        zero_choice: Some(ZeroChoice::Prison),
        coupon_minor: None,
    })
    .expect("accepted");
    t.handle(Command::NoMoreBets { at_ms: 20 }).expect("nmb");
    let events = spin(&mut t, 30, ball("0", 9));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::BetImprisoned { held, .. } if held.get() == 500)));
    assert_eq!(t.bets().len(), 1);
    t.handle(Command::OpenBetting { at_ms: 40 }).expect("next round");
    t.handle(Command::NoMoreBets { at_ms: 50 }).expect("nmb");
    let events = spin(&mut t, 60, ball("1", 9));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::BetSettled { outcome: Outcome::Released, returned, .. } if returned.get() == 500)));
    assert!(t.bets().is_empty());
}

// Colorado 2204(2): "When the outcome is zero (0), the player may take back
// half of the bet or leave the bet (in prison)". At a table following that
// reading 00 loses an even-money bet; a table made before it (journal
// format 13 and older) still sends it to prison on 00.
#[test]
fn in_prison_acts_on_zero_not_double_zero() {
    let outcome_on_00 = |readings: Readings| {
        let mut t = table("colorado-2014", Wheel::DoubleZero, true);
        t.set_readings(readings);
        open(&mut t);
        t.handle(Command::OpenBetting { at_ms: 10 }).expect("betting");
        bet(&mut t, 11, "red", 1, "red", 500).expect("accepted");
        t.handle(Command::NoMoreBets { at_ms: 20 }).expect("nmb");
        spin(&mut t, 30, ball("00", 9))
            .into_iter()
            .find_map(|e| match e {
                Event::BetSettled { outcome, returned, .. } => Some((outcome, returned.get())),
                Event::BetImprisoned { held, .. } => Some((Outcome::Prison, held.get())),
                _ => None,
            })
            .expect("the bet is decided")
    };
    let now = Readings {
        in_prison_on_zero_only: true,
        ..Readings::default()
    };
    assert_eq!(outcome_on_00(now), (Outcome::Lose, 0));
    assert_eq!(outcome_on_00(Readings::default()), (Outcome::Prison, 500));
}

#[test]
fn replaying_the_events_reproduces_the_settlement() {
    let mut t = table("maryland", Wheel::DoubleZero, false);
    let mut log = Vec::new();
    let mut run = |t: &mut Table, c: Command| log.extend(t.handle(c).expect("command"));
    run(&mut t, Command::RecordInspection(inspection(1)));
    run(&mut t, Command::Open { at_ms: 2 });
    run(&mut t, Command::OpenBetting { at_ms: 3 });
    for (i, spot) in ["17", "red", "0-00", "complete:17", "neighbours:1", "dozen2"]
        .iter()
        .enumerate()
    {
        let stake = if spot.starts_with("complete") { 4000 } else { 500 };
        run(
            &mut t,
            Command::PlaceBet {
                at_ms: 4,
                bet_id: format!("b{i}"),
                player: i as u64 % 3,
                spot: spot.to_string(),
                stake_minor: stake,
                zero_choice: None,
                coupon_minor: None,
            },
        );
    }
    run(&mut t, Command::NoMoreBets { at_ms: 5 });
    let mut replayed = Table::replay(t.profile().clone(), t.config().clone(), &log).expect("replay");
    let result = Command::Spin {
        at_ms: 6,
        report: ball("17", 9),
    };
    assert_eq!(t.handle(result.clone()), replayed.handle(result));
    assert_eq!(t.bets(), replayed.bets());
}

/// Random commands against a table; checks the invariants on every event.
#[derive(Clone, Debug)]
enum Step {
    OpenBetting,
    Bet(usize, u64, u8),
    Cancel(usize),
    NoMoreBets,
    Spin(usize, bool, u8),
    NoSpin(usize),
    Emergency,
    Lift,
    Wait(u64),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        Just(Step::OpenBetting),
        (0usize..400, 1u64..20, 0u8..4).prop_map(|(s, k, p)| Step::Bet(s, k, p)),
        (0usize..50).prop_map(Step::Cancel),
        Just(Step::NoMoreBets),
        (0usize..64, any::<bool>(), 0u8..8).prop_map(|(p, o, r)| Step::Spin(p, o, r)),
        (0usize..NoSpinReason::ALL.len()).prop_map(Step::NoSpin),
        Just(Step::Emergency),
        Just(Step::Lift),
        (0u64..40_000).prop_map(Step::Wait),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn rounds_keep_their_invariants(
        table_pick in 0usize..6,
        steps in prop::collection::vec(step(), 1..120),
    ) {
        let setups = [
            ("maryland", Wheel::DoubleZero, false),
            ("maryland", Wheel::DoubleZeroCovered, false),
            ("maryland", Wheel::TripleZero, false),
            ("colorado-2013", Wheel::SingleZero, true),
            ("european-casino", Wheel::SingleZero, false),
            ("low-limit-house", Wheel::DoubleZero, false),
        ];
        let (name, wheel, prison) = setups[table_pick];
        let mut t = table(name, wheel, prison);
        open(&mut t);
        let spots = t.rules().legal_spots();
        let pockets: Vec<Pocket> = wheel.pockets().iter().collect();
        let mut now = 10u64;
        let mut next_bet = 0usize;
        let mut accepted = std::collections::BTreeMap::new();
        let mut resolved = std::collections::BTreeSet::new();
        let mut settled_rounds = std::collections::BTreeSet::new();
        for s in steps {
            now += 1;
            let phase_before = t.phase();
            let command = match s {
                Step::OpenBetting => Command::OpenBetting { at_ms: now },
                Step::Bet(spot, k, player) => {
                    next_bet += 1;
                    let spot = &spots[spot % spots.len()];
                    let units = t.rules().stake_units(spot).unwrap_or(1);
                    Command::PlaceBet {
                        at_ms: now,
                        bet_id: format!("b{next_bet}"),
                        player: u64::from(player),
                        spot: spot.clone(),
                        stake_minor: i128::from(units * k * 100),
                        zero_choice: None,
                        coupon_minor: None,
                    }
                }
                Step::Cancel(i) => Command::CancelBet { at_ms: now, bet_id: format!("b{i}"), player: 0 },
                Step::NoMoreBets => Command::NoMoreBets { at_ms: now },
                Step::Spin(p, opposite, extra) => Command::Spin {
                    at_ms: now,
                    report: SpinReport::Ball {
                        pocket: pockets[p % pockets.len()],
                        opposite_direction: opposite || extra > 1,
                        revolutions: 2 + extra,
                    },
                },
                Step::NoSpin(r) => Command::Spin { at_ms: now, report: SpinReport::NoSpin(NoSpinReason::ALL[r]) },
                Step::Emergency => Command::DeclareEmergency { at_ms: now, by: person("security"), reason: "drill".into() },
                Step::Lift => Command::LiftEmergency { at_ms: now, by: person("security") },
                Step::Wait(ms) => { now += ms; continue; }
            };
            let Ok(events) = t.handle(command) else { continue };
            for e in &events {
                match e {
                    Event::BetAccepted { bet, .. } => {
                        // No bet is accepted after no more bets.
                        let in_time = matches!(phase_before, Phase::BettingOpen { deadline_ms } if now < deadline_ms);
                        prop_assert!(in_time, "bet accepted in {:?} at {}", phase_before, now);
                        accepted.insert(bet.bet_id.clone(), bet.bet.stake().get());
                    }
                    Event::BetSettled { bet_id, staked, returned, outcome, .. } => {
                        prop_assert!(resolved.insert(bet_id.clone()), "{bet_id} resolved twice");
                        prop_assert_eq!(Some(&staked.get()), accepted.get(bet_id));
                        if *outcome == Outcome::Lose { prop_assert!(returned.get() <= staked.get()); }
                    }
                    Event::BetReturned { bet_id, returned, .. } | Event::BetCancelled { bet_id, returned, .. } => {
                        prop_assert!(resolved.insert(bet_id.clone()), "{bet_id} resolved twice");
                        // Returned bets come back whole: money is conserved.
                        prop_assert_eq!(Some(&returned.get()), accepted.get(bet_id));
                    }
                    Event::RoundSettled { round, .. } => {
                        prop_assert!(settled_rounds.insert(*round), "round {round} settled twice");
                    }
                    _ => {}
                }
            }
        }
        // Every accepted bet is either resolved exactly once or still on the layout.
        let open_bets: std::collections::BTreeSet<String> = t.bets().iter().map(|b| b.bet_id.clone()).collect();
        for id in accepted.keys() {
            prop_assert!(resolved.contains(id) ^ open_bets.contains(id), "{id}");
        }
    }
}

// european-casino 3.5: "all the consecutively listed bets should be either
// accepted or returned, and there are no deviations from the rule"; 3.3: no
// verbal bet after no more bets.
#[test]
fn a_series_of_verbal_bets_is_accepted_whole_or_not_at_all() {
    let mut t = table("european-casino", Wheel::SingleZero, false);
    open(&mut t);
    t.handle(Command::OpenBetting { at_ms: 10 }).expect("betting");
    let series = |at_ms: u64, ids: [&str; 3], third: &str| Command::PlaceSeries {
        at_ms,
        by: person("croupier"),
        player: 1,
        bets: vec![
            (ids[0].into(), "17".into(), 500),
            (ids[1].into(), "red".into(), 1_000),
            (ids[2].into(), third.into(), 500),
        ],
    };
    // The third bet is not on the layout: the first two are not taken either.
    assert!(t.handle(series(11, ["a", "b", "c"], "17-35")).is_err());
    assert!(t.bet("a").is_none() && t.bet("b").is_none());
    // A bet id used twice in the series refuses it too.
    assert_eq!(
        t.handle(series(12, ["a", "b", "a"], "0-1")),
        Err(CommandError::DuplicateBet("a".into()))
    );
    assert!(t.bet("a").is_none());
    let events = t.handle(series(13, ["a", "b", "c"], "0-1")).expect("the whole series");
    assert_eq!(
        events.iter().filter(|e| matches!(e, Event::BetAccepted { .. })).count(),
        3
    );
    // Who entered it, for the table's log, ahead of the bets.
    assert!(matches!(&events[0], Event::SeriesEntered { bet_ids, .. } if bet_ids.len() == 3));
    t.handle(Command::NoMoreBets { at_ms: 20 }).expect("no more bets");
    assert_eq!(
        t.handle(series(21, ["d", "e", "f"], "0-2")),
        Err(CommandError::PastPosting)
    );
}
