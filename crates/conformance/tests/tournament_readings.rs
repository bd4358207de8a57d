//! Readings of Colorado 2213 that the model holds beyond the checks of
//! `tournaments.rs` (issue 58): each test quotes the clause it holds the
//! model to, and fails on a model that does not read it so.

use croupier_core::tournament::{Command, Event, Paid, Tournament, TournamentConfig, TournamentError};
use croupier_profiles::tournament::{parse_day, parse_tournament};

const WINTER: &str = include_str!("../../../profiles/tournaments/winter-classic.toml");

fn day(text: &str) -> time::Date {
    parse_day(text).expect("a day")
}

fn loaded(text: &str) -> TournamentConfig {
    parse_tournament(text, "example", croupier_profiles::load)
        .expect("the example passes")
        .1
}

fn is_refused<T: std::fmt::Debug>(result: Result<T, TournamentError>, words: &[&str]) {
    let message = result.expect_err("refused").to_string();
    for w in words {
        assert!(message.contains(w), "{message:?} does not say {w:?}");
    }
}

fn register(t: &mut Tournament, player: &str, event: usize, on: &str) -> u32 {
    let events = t
        .execute(Command::Register {
            player: player.into(),
            event,
            fee: Paid::Cash,
            buy_in: Paid::Cash,
            qualified: true,
            day: day(on),
        })
        .expect("registered");
    match &events[0] {
        Event::Registered { entry, .. } => entry.number,
        other => panic!("{other:?}"),
    }
}

/// The winter classic filed, its Qualifier played by ann and bob and its
/// Final started with both of them.
fn final_under_way() -> Tournament {
    let mut t = Tournament::new(loaded(WINTER));
    t.execute(Command::FileRules { day: day("2026-12-01") }).expect("filed");
    let (ann, bob) = (
        register(&mut t, "ann", 0, "2026-12-10"),
        register(&mut t, "bob", 0, "2026-12-10"),
    );
    t.execute(Command::Start {
        event: 0,
        day: day("2026-12-12"),
    })
    .expect("started");
    t.execute(Command::End {
        event: 0,
        points: vec![(ann, 20_000), (bob, 1_000)],
        day: Some(day("2026-12-12")),
    })
    .expect("ended");
    register(&mut t, "ann", 1, "2027-01-02");
    register(&mut t, "bob", 1, "2027-01-02");
    t.execute(Command::Start {
        event: 1,
        day: day("2027-01-16"),
    })
    .expect("the Final");
    t
}

#[test]
fn an_event_ends_and_the_tournament_concludes_within_four_months_of_the_first_day() {
    // Colorado-2014 2213(1): "A tournament must conclude no later than four
    // months following the first day of tournament play." The first day is
    // 2026-12-12; four months following it is 2027-04-12.
    let mut t = final_under_way();
    let end = |on: &str| Command::End {
        event: 1,
        points: vec![(3, 30_000), (4, 100)],
        day: Some(day(on)),
    };
    is_refused(
        t.decide(end("2027-04-13")),
        &["2213(1)", "2027-04-13", "2027-04-12", "2026-12-12"],
    );
    t.execute(end("2027-04-12")).expect("the last day of the four months");
    is_refused(
        t.decide(Command::Conclude {
            day: Some(day("2027-04-13")),
        }),
        &["2213(1)", "the conclusion on 2027-04-13", "2027-04-12"],
    );
    t.execute(Command::Conclude {
        day: Some(day("2027-04-12")),
    })
    .expect("concluded within the four months");
}

#[test]
fn a_split_ends_an_event_within_the_four_months_too() {
    // Colorado-2014 2213(1), 2213.07(3)(c): the director's confirmation ends the event.
    let mut t = final_under_way();
    t.execute(Command::ProposeSplit {
        event: 1,
        places: vec![1, 2],
        shares: vec![(3, 13_000), (4, 10_000)],
    })
    .expect("proposed");
    t.execute(Command::AgreeSplit { entry: 3 }).expect("agreed");
    t.execute(Command::AgreeSplit { entry: 4 }).expect("agreed");
    let confirm = |on: &str| Command::ConfirmSplit {
        points: vec![(3, 30_000), (4, 100)],
        day: Some(day(on)),
    };
    is_refused(t.decide(confirm("2027-05-01")), &["2213(1)", "2027-05-01"]);
    t.execute(confirm("2027-02-01")).expect("confirmed");
}

#[test]
fn a_refund_is_booked_in_its_own_month_and_a_month_reported_stays_as_it_was() {
    // Colorado-2014 2213.01: entry fees "shall be reported as such on the
    // gaming tax return in the month in which the entry fee(s) are
    // collected", and "The licensee may not declare a loss against adjusted
    // gross proceeds for tournaments."
    let mut t = Tournament::new(loaded(WINTER));
    let ann = register(&mut t, "ann", 0, "2026-11-28");
    let cy = register(&mut t, "cy", 0, "2026-11-29");
    register(&mut t, "bob", 0, "2026-12-02");
    let months = |t: &Tournament| t.proceeds_by_month();
    assert_eq!(months(&t), vec![("2026-11".into(), 5_000), ("2026-12".into(), 2_500)]);
    // November is over and reported: ann's refund in December is December's.
    t.execute(Command::Withdraw {
        entry: ann,
        day: Some(day("2026-12-03")),
    })
    .expect("refunded");
    assert_eq!(months(&t), vec![("2026-11".into(), 5_000), ("2026-12".into(), 0)]);
    // Refunds past what December collected are no loss declared against it.
    t.execute(Command::Withdraw {
        entry: cy,
        day: Some(day("2026-12-04")),
    })
    .expect("refunded");
    assert_eq!(months(&t), vec![("2026-11".into(), 5_000), ("2026-12".into(), 0)]);
    // The fees account holds bob's fee alone: the refunds left it.
    assert_eq!(t.fees_held(), 2_500);
}

#[test]
fn no_event_starts_while_the_division_finds_the_written_rules_unacceptable() {
    // Colorado-2014 2213.06: "The Division shall notify the retail licensee
    // of any proposed tournament rules which the Division finds to be
    // unacceptable, and the licensee shall not offer a tournament using the
    // rules found unacceptable."
    let mut t = Tournament::new(loaded(WINTER));
    t.execute(Command::FileRules { day: day("2026-12-01") }).expect("filed");
    register(&mut t, "ann", 0, "2026-12-02");
    let resolve = |how: &str| Command::ResolveObjection { how: how.into() };
    is_refused(t.decide(resolve("withdrawn")), &["no objection"]);
    t.execute(Command::RecordObjection {
        reason: "the re-buy terms are not in the printed rules".into(),
        day: day("2026-12-04"),
    })
    .expect("recorded");
    let start = Command::Start {
        event: 0,
        day: day("2026-12-12"),
    };
    is_refused(
        t.decide(start.clone()),
        &[
            "2213.06",
            "2026-12-04",
            "the re-buy terms are not in the printed rules",
            "resolved",
        ],
    );
    is_refused(
        t.decide(Command::RecordObjection {
            reason: "again".into(),
            day: day("2026-12-05"),
        }),
        &["stands already"],
    );
    is_refused(t.decide(resolve(" ")), &["say how"]);
    t.execute(resolve("the Division withdrew it on 2026-12-06"))
        .expect("resolved");
    t.execute(start).expect("the objection no longer stands");
}

#[test]
fn under_the_2013_text_no_filing_means_no_objection_to_record() {
    // Colorado-2013 2213 has no 2213.06: nothing is filed with the Division.
    let autumn = include_str!("../../../profiles/tournaments/autumn-2013.toml");
    let mut t = Tournament::new(loaded(autumn));
    is_refused(
        t.execute(Command::RecordObjection {
            reason: "unacceptable".into(),
            day: day("2026-09-01"),
        }),
        &["2213.06 is not in its text"],
    );
}

#[test]
fn under_the_2013_text_the_prizes_are_in_escrow_before_the_start_and_paid_from_it() {
    // Colorado-2013 2213(1): "If a tournament is to conclude on a date later
    // than thirty-one days following the first day of tournament play, all
    // prizes, including the cash equivalent of merchandise or other non-cash
    // prizes, must be placed into escrow before the start of the tournament."
    let autumn = include_str!("../../../profiles/tournaments/autumn-2013.toml");
    let mut t = Tournament::new(loaded(autumn));
    let ann = register(&mut t, "ann", 0, "2026-09-01");
    register(&mut t, "bob", 0, "2026-09-01");
    let start = |event: usize, on: &str| Command::Start { event, day: day(on) };
    is_refused(
        t.decide(start(0, "2026-09-05")),
        &["2213(1)", "3000.00", "escrow before the start"],
    );
    // Every prize at its cash value: 1,000.00, 1,500.00 and the weekend's 500.00.
    assert_eq!(
        t.execute(Command::FundEscrow).expect("funded"),
        vec![Event::EscrowFunded { amount: 300_000 }]
    );
    is_refused(t.decide(Command::FundEscrow), &["in escrow already"]);
    t.execute(start(0, "2026-09-05")).expect("started, the prizes escrowed");
    t.execute(Command::End {
        event: 0,
        points: vec![(ann, 2_000), (2, 10)],
        day: Some(day("2026-09-05")),
    })
    .expect("ended");
    assert_eq!(t.escrow, 200_000, "September's 1,000.00 was paid from the escrow");
    // November has one finisher: its second prize has no winner.
    register(&mut t, "ann", 1, "2026-11-01");
    t.execute(start(1, "2026-11-28")).expect("started");
    t.execute(Command::End {
        event: 1,
        points: vec![(3, 900)],
        day: Some(day("2026-11-28")),
    })
    .expect("ended");
    assert_eq!(t.escrow, 50_000);
    // (2)(b): the prizes are awarded at the conclusion; the escrow of the one
    // no one won goes back to the house that placed it, and none is left.
    let events = t
        .execute(Command::Conclude {
            day: Some(day("2026-11-28")),
        })
        .expect("concluded");
    assert_eq!(events, vec![Event::EscrowReturned { amount: 50_000 }, Event::Concluded]);
    assert_eq!(t.escrow, 0);
    // The 2014 text escrows nothing.
    is_refused(
        Tournament::new(loaded(WINTER)).decide(Command::FundEscrow),
        &["nothing is escrowed"],
    );
}
