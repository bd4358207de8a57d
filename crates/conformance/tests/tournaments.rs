//! Roulette tournaments, to the letter of Colorado 2213-2214 and
//! 2213.01-.08: each test cites the clause it holds the model to. The
//! shipped example files are the starting point; each test changes what
//! its clause is about.

use croupier_core::tournament::{
    check_chip_values, Awarded, Command, EntryStatus, Event, Paid, PrizeKind, Tournament, TournamentConfig,
    TournamentError, TournamentSpec,
};
use croupier_core::Minor;
use croupier_profiles::tournament::{parse_day, parse_tournament, written_rules};

const WINTER: &str = include_str!("../../../profiles/tournaments/winter-classic.toml");
const AUTUMN: &str = include_str!("../../../profiles/tournaments/autumn-2013.toml");

fn day(text: &str) -> time::Date {
    parse_day(text).expect("a day")
}

fn loaded(text: &str) -> TournamentConfig {
    parse_tournament(text, "example", croupier_profiles::load)
        .expect("the example passes")
        .1
}

/// The example's spec, changed by `edit`, checked again under its profile's rules.
fn with(text: &str, edit: impl FnOnce(&mut TournamentSpec)) -> Result<TournamentConfig, String> {
    let config = loaded(text);
    let mut spec = config.spec().clone();
    edit(&mut spec);
    TournamentConfig::new(spec, config.rules().clone()).map_err(|e| e.to_string())
}

fn refused(text: &str, edit: impl FnOnce(&mut TournamentSpec), clause: &str) -> String {
    let message = with(text, edit).expect_err("refused");
    assert!(message.contains(clause), "{message:?} does not cite {clause}");
    message
}

fn is_refused<T: std::fmt::Debug>(result: Result<T, TournamentError>, clause: &str) -> String {
    let message = result.expect_err("refused").to_string();
    assert!(message.contains(clause), "{message:?} does not cite {clause}");
    message
}

#[test]
fn the_shipped_examples_pass_and_their_written_rules_say_what_2213_08_requires() {
    for text in [WINTER, AUTUMN] {
        let (profile, config) = parse_tournament(text, "example", croupier_profiles::load).expect("passes");
        let rules = written_rules(&config, &profile);
        // 2213.08(1): the statement, or the house rules.
        assert!(rules.contains("Except as changed by these tournament rules, tournament play shall follow the house rules of The Example Casino."));
        // 2213.08(2)-(5) and 2213.07(1)-(5), each under its own heading.
        for clause in [
            "2213.08(2)",
            "2213.08(3)",
            "2213.08(4)",
            "2213.07",
            "(1) Every player",
            "(2) A player",
            "(4) No player",
            "(5) Only tournament chips",
        ] {
            assert!(rules.contains(clause), "the rules lack {clause}");
        }
        // 2214(2): the colour values.
        assert!(rules.contains("points"));
    }
    let (profile, winter) = parse_tournament(WINTER, "w", croupier_profiles::load).expect("passes");
    let text = written_rules(&winter, &profile);
    assert!(text.contains("Re-buys are permitted once out of chips: at most 1 per entry"));
    assert!(text.contains("Re-buys are not permitted."));
    assert!(text.contains("A roulette wheel clock (cash value 45.00 USD)"));
    assert!(text.contains("at least 5 days before the start (2213.06)"));
}

#[test]
fn a_tournament_concludes_within_four_months_of_its_first_day() {
    // Colorado 2213(1)
    assert!(with(WINTER, |s| s.last_day = day("2027-04-12")).is_ok());
    refused(WINTER, |s| s.last_day = day("2027-04-13"), "2213(1)");
    // Four months after 31 October is the last day of February.
    assert_eq!(
        croupier_core::tournament::add_months(day("2026-10-31"), 4),
        Some(day("2027-02-28"))
    );
    refused(
        WINTER,
        |s| s.events[1].day = day("2027-03-01"),
        "after the last day 2027-02-13 (2213(1))",
    );
}

#[test]
fn under_the_2013_text_a_tournament_past_31_days_escrows_every_prize_before_the_start() {
    // Colorado 2213(1) as amended to 7/1/13
    assert!(loaded(AUTUMN).escrow_required());
    refused(AUTUMN, |s| s.escrowed = Minor::new(299_999), "2213(1)");
    refused(
        AUTUMN,
        |s| s.events[0].prizes[0].kind = PrizeKind::PoolShare { percent: 100 },
        "not a share of the pool (2213(1))",
    );
    // Within 31 days nothing need be escrowed, and shares of the pool are fine.
    let short = with(AUTUMN, |s| {
        s.last_day = day("2026-10-06");
        s.events[1].day = day("2026-10-06");
        s.escrowed = Minor::ZERO;
        s.events[0].prizes[0].kind = PrizeKind::PoolShare { percent: 100 };
    })
    .expect("31 days need no escrow");
    assert!(!short.escrow_required());
    // The 2014 text has no escrow.
    assert!(!loaded(WINTER).escrow_required());
}

#[test]
fn licensees_conduct_jointly_only_a_tournament_that_returns_everything_as_prizes() {
    // Colorado 2213(2), 2213(2)(a)
    refused(
        WINTER,
        |s| s.licensees.push("The Other Casino".into()),
        "2213(2)-(2)(a)",
    );
    assert!(with(WINTER, |s| {
        s.licensees.push("The Other Casino".into());
        for e in &mut s.events {
            e.entry_fee = Minor::ZERO;
        }
        // The voucher into the Final is worth its buy-in alone now.
        s.events[0].prizes[1].kind = PrizeKind::Voucher {
            event: 1,
            value: Minor::new(10_000),
        };
    })
    .is_ok());
    // Colorado 2213(2)(b): one of them is responsible.
    refused(WINTER, |s| s.responsible = "Someone Else".into(), "2213(2)(b)");
}

#[test]
fn an_entry_fee_and_every_allowable_buy_in_together_stay_within_100000_dollars() {
    // Colorado 2213.05 (as amended to 7/15/14)
    let message = refused(
        WINTER,
        |s| {
            s.events[0].rebuys.max = 100;
            s.events[0].rebuys.amount = Minor::new(1_000_000);
        },
        "2213.05",
    );
    assert!(message.contains("may not exceed 100000.00"), "{message}");
    // Exactly the cap: 25 + 100 + 99,750 + 25 + 100 = 100,000.
    assert!(with(WINTER, |s| {
        s.events[0].rebuys.max = 1;
        s.events[0].rebuys.amount = Minor::new(9_975_000);
    })
    .is_ok());
    // The 2013 text has no cap.
    assert!(with(AUTUMN, |s| s.events[0].buy_in = Minor::new(20_000_000)).is_ok());
}

#[test]
fn every_prize_is_described_exactly_and_non_cash_ones_carry_a_cash_value() {
    // Colorado 2213.08(4)
    refused(
        WINTER,
        |s| {
            s.events[0].prizes[2].kind = PrizeKind::NonCash {
                description: "A clock".into(),
                value: Minor::ZERO,
            }
        },
        "predetermined cash value",
    );
    refused(WINTER, |s| s.events[0].prizes[1].place = 3, "by place");
    refused(WINTER, |s| s.events[1].prizes.clear(), "2213.08(4)");
    // Colorado 2213.05: the last event pays cash, so no buy-in is kept.
    refused(
        WINTER,
        |s| {
            s.events[1].prizes.truncate(1);
            s.events[1].prizes[0].kind = PrizeKind::NonCash {
                description: "A car".into(),
                value: Minor::new(1_000_000),
            };
        },
        "2213.05",
    );
}

#[test]
fn prize_vouchers_enter_a_later_event_of_the_same_tournament_at_its_price() {
    // Colorado 2213.05
    refused(
        WINTER,
        |s| {
            s.events[0].prizes[1].kind = PrizeKind::Voucher {
                event: 0,
                value: Minor::new(12_500),
            }
        },
        "later event",
    );
    refused(
        WINTER,
        |s| {
            s.events[0].prizes[1].kind = PrizeKind::Voucher {
                event: 1,
                value: Minor::new(10_000),
            }
        },
        "2213.05",
    );
    // The 2013 text has no vouchers.
    refused(
        AUTUMN,
        |s| {
            s.events[0].prizes[0].kind = PrizeKind::Voucher {
                event: 1,
                value: Minor::new(5_000),
            }
        },
        "2213.05 is not in its text",
    );
}

#[test]
fn the_table_notice_lists_each_chip_colour_with_its_points() {
    // Colorado 2214(2)
    refused(WINTER, |s| s.chip_values.clear(), "2214(2)");
    refused(WINTER, |s| s.chip_values[0].1 = 0, "points");
    refused(WINTER, |s| s.chip_values.push(("yellow".into(), 5)), "listed twice");
    // 2214(2): the values may change between rounds, for the same colours.
    let spec = loaded(WINTER).spec().clone();
    let mut values = spec.chip_values.clone();
    values[0].1 = 250;
    check_chip_values(&spec, &values).expect("a new value");
    let mut other = values.clone();
    other[0].0 = "purple".into();
    let e = check_chip_values(&spec, &other).expect_err("a colour not in the tournament");
    assert!(e.message.contains("no other"), "{e:?}");
    values[1].1 = 0;
    assert!(check_chip_values(&spec, &values).is_err(), "a colour worth nothing");
}

#[test]
fn a_split_by_agreement_needs_a_profile_whose_text_allows_it() {
    // Colorado 2213.07(3) is in the 7/15/14 text only.
    refused(AUTUMN, |s| s.split_permitted = true, "2213.07(3)");
}

// ---- Play ----

struct Desk {
    t: Tournament,
}

impl Desk {
    fn new() -> Desk {
        let mut desk = Desk::unfiled();
        desk.t
            .execute(Command::FileRules { day: day("2026-12-01") })
            .expect("filed");
        desk
    }

    /// A tournament whose rules have not yet gone to the Division.
    fn unfiled() -> Desk {
        Desk {
            t: Tournament::new(loaded(WINTER)),
        }
    }

    fn enter(&mut self, player: &str, event: usize, fee: Paid, buy_in: Paid) -> Result<u32, TournamentError> {
        let events = self.t.execute(Command::Register {
            player: player.into(),
            event,
            fee,
            buy_in,
            qualified: true,
            day: day("2026-12-10"),
        })?;
        match &events[0] {
            Event::Registered { entry, points } => {
                assert_eq!(*points, 10_000, "2213.07(1): every entry starts with the same chips");
                Ok(entry.number)
            }
            other => panic!("{other:?}"),
        }
    }

    fn cash(&mut self, player: &str, event: usize) -> u32 {
        self.enter(player, event, Paid::Cash, Paid::Cash).expect("entered")
    }

    fn start(&mut self, event: usize, on: &str) -> Result<Vec<Event>, TournamentError> {
        self.t.execute(Command::Start { event, day: day(on) })
    }
}

#[test]
fn no_player_holds_two_active_entries_and_a_player_found_with_two_wins_nothing() {
    // Colorado 2213(2)(c)
    let mut d = Desk::new();
    d.cash("ann", 0);
    is_refused(d.enter("ann", 0, Paid::Cash, Paid::Cash), "2213(2)(c)");
    let bob = d.cash("bob", 0);
    d.cash("cy", 0);
    d.start(0, "2026-12-12").expect("started");
    // Found with two (under another name at a partner's desk): disqualified.
    d.t.execute(Command::Disqualify {
        player: "bob".into(),
        reason: "found with a second entry as 'rob'".into(),
    })
    .expect("disqualified");
    assert_eq!(d.t.entry(bob).map(|e| e.status), Ok(EntryStatus::Disqualified));
    is_refused(d.enter("bob", 0, Paid::Cash, Paid::Cash), "2213(2)(c)");
    // Bob ends with the most points but is not in the standings, so wins nothing.
    is_refused(
        d.t.execute(Command::End {
            day: None,
            event: 0,
            points: vec![(1, 500), (2, 90_000), (3, 100)],
        }),
        "every entry still playing",
    );
    let events =
        d.t.execute(Command::End {
            day: None,
            event: 0,
            points: vec![(1, 500), (3, 100)],
        })
        .expect("ended");
    assert!(events
        .iter()
        .all(|e| !matches!(e, Event::Awarded(a) if a.player == "bob")));
}

#[test]
fn an_eliminated_player_enters_again_only_as_a_new_entry_where_the_rules_allow() {
    // Colorado 2213(2)(c), 2213.07(2)
    let mut d = Desk::new();
    let ann = d.cash("ann", 0);
    d.cash("bob", 0);
    d.start(0, "2026-12-12").expect("started");
    // Entries close at the start, so everyone starts equal (2213.07(1)).
    is_refused(d.enter("cy", 0, Paid::Cash, Paid::Cash), "2213.07(1)");
    is_refused(
        d.t.execute(Command::Eliminate {
            entry: ann,
            points: 100,
        }),
        "2213.07(2)",
    );
    d.t.execute(Command::Eliminate { entry: ann, points: 0 })
        .expect("eliminated");
    let again = d.cash("ann", 0);
    assert_ne!(again, ann, "a new and separate entry");
    assert_eq!(d.t.entry(again).map(|e| e.status), Ok(EntryStatus::Playing));
    // Where the rules allow no re-entry, it is refused.
    let mut strict = Desk {
        t: Tournament::new(with(WINTER, |s| s.reentry = false).expect("config")),
    };
    strict
        .t
        .execute(Command::FileRules { day: day("2026-12-01") })
        .expect("filed");
    let first = strict.cash("ann", 0);
    strict.cash("bob", 0);
    strict.start(0, "2026-12-12").expect("started");
    strict
        .t
        .execute(Command::Eliminate {
            entry: first,
            points: 0,
        })
        .expect("out");
    is_refused(strict.enter("ann", 0, Paid::Cash, Paid::Cash), "2213(2)(c)");
}

#[test]
fn a_tournament_starts_five_days_after_its_rules_reach_the_division() {
    // Colorado 2213.06
    let mut late = Desk::unfiled();
    late.cash("ann", 0);
    let t = &mut late.t;
    is_refused(
        t.execute(Command::Start {
            event: 0,
            day: day("2026-12-12"),
        }),
        "not been filed",
    );
    t.execute(Command::FileRules { day: day("2026-12-08") }).expect("filed");
    is_refused(
        t.execute(Command::Start {
            event: 0,
            day: day("2026-12-12"),
        }),
        "2213.06",
    );
    // A filing cannot be moved earlier once recorded: the late one stands.
    is_refused(
        t.execute(Command::FileRules { day: day("2026-12-07") }),
        "earlier day cannot replace",
    );
    is_refused(
        t.execute(Command::Start {
            event: 0,
            day: day("2026-12-13"),
        }),
        "scheduled for 2026-12-12",
    );
    let mut desk = Desk::unfiled();
    desk.cash("ann", 0);
    let on_time = &mut desk.t;
    on_time
        .execute(Command::FileRules { day: day("2026-12-07") })
        .expect("filed");
    on_time
        .execute(Command::Start {
            event: 0,
            day: day("2026-12-12"),
        })
        .expect("five days later, on its day");
    is_refused(
        on_time.execute(Command::FileRules { day: day("2026-12-12") }),
        "2213.06",
    );
}

#[test]
fn an_entry_withdrawn_before_its_event_and_a_cancelled_tournament_are_refunded_in_full() {
    // Colorado 2213.05: the casino keeps no buy-in; 2213.01: a fee refunded before play is no proceeds.
    let mut d = Desk::new();
    let ann = d.cash("ann", 0);
    d.enter(
        "bob",
        0,
        Paid::Complimentary,
        Paid::NonCash {
            item: "a food card".into(),
        },
    )
    .expect("bob");
    d.t.execute(Command::Withdraw { entry: ann, day: None })
        .expect("withdrawn");
    assert_eq!(d.t.entry(ann).map(|e| e.status), Ok(EntryStatus::Withdrawn));
    assert_eq!((d.t.pool, d.t.fees_by_month.get(&(2026, 12))), (10_000, Some(&2_500)));
    // Ann may enter again: her entry is no longer active.
    let again = d.cash("ann", 0);
    d.start(0, "2026-12-12").expect("started");
    is_refused(
        d.t.execute(Command::Withdraw {
            entry: again,
            day: None,
        }),
        "has not started",
    );
    is_refused(
        d.t.execute(Command::Cancel {
            day: None,
            reason: "the wheel broke".into(),
        }),
        "end it first",
    );
    let mut c = Desk::new();
    c.cash("ann", 0);
    c.cash("bob", 0);
    let events =
        c.t.execute(Command::Cancel {
            day: None,
            reason: "the rules reached the Division too late".into(),
        })
        .expect("cancelled");
    assert_eq!(
        events.iter().filter(|e| matches!(e, Event::Withdrawn { .. })).count(),
        2
    );
    assert!(c.t.concluded);
    assert_eq!((c.t.pool, c.t.fees_by_month.values().sum::<u64>()), (0, 0));
}

#[test]
fn only_players_who_meet_the_qualification_criteria_enter() {
    // Colorado 2213.04
    let mut t = Tournament::new(loaded(WINTER));
    is_refused(
        t.execute(Command::Register {
            player: "ann".into(),
            event: 0,
            fee: Paid::Cash,
            buy_in: Paid::Cash,
            qualified: false,
            day: day("2026-12-01"),
        }),
        "2213.04",
    );
}

#[test]
fn re_buys_happen_between_games_on_the_terms_the_rules_state() {
    // Colorado 2213.07(1), 2213.07(5), 2213.08(2)
    let mut d = Desk::new();
    let ann = d.cash("ann", 0);
    d.cash("bob", 0);
    d.start(0, "2026-12-12").expect("started");
    let rebuy = |points, between_games| Command::Rebuy {
        entry: ann,
        paid: Paid::Cash,
        points,
        between_games,
    };
    is_refused(d.t.execute(rebuy(0, false)), "2213.07(5)");
    is_refused(d.t.execute(rebuy(500, true)), "2213.08(2)");
    let events = d.t.execute(rebuy(0, true)).expect("re-bought");
    assert!(matches!(&events[0], Event::Rebought { points: 10_000, payment, .. } if payment.value == 10_000));
    is_refused(d.t.execute(rebuy(0, true)), "all the re-buys \"Qualifier\" allows (1)");
    // The Final allows none.
    assert_eq!(d.t.buy_ins(), 30_000);
}

#[test]
fn entry_fees_are_proceeds_of_the_month_collected_whatever_their_form() {
    // Colorado 2213.01, 2213.02
    let mut d = Desk::new();
    d.cash("ann", 0);
    d.enter(
        "bob",
        0,
        Paid::NonCash {
            item: "a case of canned goods".into(),
        },
        Paid::Cash,
    )
    .expect("non-cash fee");
    d.enter("cy", 0, Paid::Complimentary, Paid::Complimentary)
        .expect("complimentary");
    is_refused(
        d.enter("di", 0, Paid::NonCash { item: " ".into() }, Paid::Cash),
        "2213.01",
    );
    // Three fees of 25.00, each at its dollar value, in December 2026.
    assert_eq!(d.t.fees_by_month.get(&(2026, 12)), Some(&7_500));
    // Three buy-ins of 100.00, the complimentary one included (2213.05).
    assert_eq!(d.t.pool, 30_000);
    let forms: Vec<&str> = d.t.entries.iter().map(|e| e.fee.paid.name()).collect();
    assert_eq!(forms, ["cash", "non_cash", "complimentary"]);
}

/// Two events: the Qualifier (60% of the pool, a voucher into the Final, a
/// clock worth 45.00) and the Final (70% and 30%).
fn qualifier_played() -> (Desk, Vec<Event>) {
    let mut d = Desk::new();
    for p in ["ann", "bob", "cy", "di"] {
        d.cash(p, 0);
    }
    d.start(0, "2026-12-12").expect("started");
    let events =
        d.t.execute(Command::End {
            day: None,
            event: 0,
            points: vec![(1, 30_000), (2, 9_000), (3, 1_000), (4, 0)],
        })
        .expect("ended");
    (d, events)
}

#[test]
fn the_pool_pays_every_buy_in_out_by_the_conclusion_and_vouchers_serve_only_their_winner() {
    // Colorado 2213.05
    let (mut d, events) = qualifier_played();
    // 400.00 in the pool: the voucher (125.00) and the clock (45.00) first,
    // then 60% of the 230.00 left to first place; 92.00 is carried.
    let awards: Vec<(String, Awarded)> = events
        .iter()
        .filter_map(|e| match e {
            Event::Awarded(a) => Some((a.player.clone(), a.prize.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(awards[0], ("ann".to_string(), Awarded::Cash(13_800)));
    assert!(matches!(&awards[1], (p, Awarded::Voucher { number: 1, event: 1, value: 12_500 }) if p == "bob"));
    assert!(matches!(&awards[2], (p, Awarded::NonCash { value: 4_500, .. }) if p == "cy"));
    assert!(events.contains(&Event::Ended {
        event: 0,
        carried: 9_200,
        split: false
    }));
    is_refused(d.t.execute(Command::Conclude { day: None }), "has not ended");
    // Only bob may use his voucher (2213.05).
    let voucher = Paid::Voucher { number: 1 };
    is_refused(d.enter("ann", 1, voucher.clone(), voucher.clone()), "only its winner");
    is_refused(d.enter("bob", 1, voucher.clone(), Paid::Cash), "2213.05");
    d.enter("bob", 1, voucher.clone(), voucher.clone())
        .expect("bob's voucher");
    is_refused(d.enter("bob", 1, voucher.clone(), voucher), "already has entry");
    d.cash("ann", 1);
    // The voucher's fee part is a fee of its month; its buy-in part joins the pool.
    assert_eq!(d.t.fees_by_month.get(&(2026, 12)), Some(&(4 * 2_500 + 2_500 + 2_500)));
    assert_eq!(d.t.pool, 9_200 + 10_000 + 10_000);
    d.start(1, "2027-01-16").expect("the Final");
    d.t.execute(Command::End {
        day: None,
        event: 1,
        points: vec![(5, 100), (6, 40_000)],
    })
    .expect("ended");
    // 70% and 30% of 292.00: 204.40 and 87.60; the pool is empty.
    assert_eq!(d.t.pool, 0);
    let buy_ins = d.t.buy_ins();
    assert_eq!(buy_ins, 60_000);
    assert_eq!(
        d.t.prizes_paid, buy_ins,
        "every buy-in is paid out as a prize (2213.05)"
    );
    let events = d.t.execute(Command::Conclude { day: None }).expect("concluded");
    assert_eq!(events, vec![Event::Concluded]);
    is_refused(d.t.execute(Command::Conclude { day: None }), "concluded");
}

#[test]
fn the_remaining_players_may_split_only_the_cash_prizes_unanimously_as_the_director_allows() {
    // Colorado 2213.07(3)(a)-(c)
    let (mut d, _) = qualifier_played();
    d.cash("ann", 1);
    d.cash("cy", 1);
    d.cash("di", 1);
    d.start(1, "2027-01-16").expect("the Final");
    // Pool: 92.00 carried + 300.00 = 392.00; 274.40 and 117.60.
    let shares = vec![(5, 20_000), (6, 10_000), (7, 9_200)];
    is_refused(
        d.t.execute(Command::ProposeSplit {
            event: 1,
            places: vec![1, 2],
            shares: vec![(5, 20_000), (6, 19_200)],
        }),
        "every remaining player",
    );
    d.t.execute(Command::ProposeSplit {
        event: 1,
        places: vec![1, 2],
        shares: shares.clone(),
    })
    .expect("proposed");
    d.t.execute(Command::AgreeSplit { entry: 5 }).expect("agreed");
    is_refused(
        d.t.execute(Command::ConfirmSplit {
            points: vec![],
            day: None,
        }),
        "unanimous (2213.07(3))",
    );
    // (b): the director sees pressure and refuses; play goes on.
    d.t.execute(Command::RefuseSplit {
        reason: "entry 7 was pressed by the others".into(),
    })
    .expect("refused");
    assert!(d.t.split.is_none());
    d.t.execute(Command::ProposeSplit {
        event: 1,
        places: vec![1, 2],
        shares: shares.clone(),
    })
    .expect("proposed again");
    for entry in [5, 6, 7] {
        d.t.execute(Command::AgreeSplit { entry }).expect("agreed");
    }
    let events =
        d.t.execute(Command::ConfirmSplit {
            day: None,
            points: vec![(5, 100), (6, 200), (7, 300)],
        })
        .expect("confirmed");
    // (c): each recipient with the prize actually awarded.
    let split: Vec<(String, u64)> = events
        .iter()
        .filter_map(|e| match e {
            Event::Awarded(a) if a.by_split => Some((a.player.clone(), a.prize.value())),
            _ => None,
        })
        .collect();
    assert_eq!(
        split,
        [
            ("ann".to_string(), 20_000),
            ("cy".to_string(), 10_000),
            ("di".to_string(), 9_200)
        ]
    );
    assert_eq!(d.t.pool, 0);
}

#[test]
fn a_split_lapses_when_the_remaining_players_change() {
    // Colorado 2213.07(3): agreed among the remaining players.
    let (mut d, _) = qualifier_played();
    d.cash("ann", 1);
    d.cash("cy", 1);
    d.start(1, "2027-01-16").expect("the Final");
    // Pool: 92.00 carried + 200.00 = 292.00.
    d.t.execute(Command::ProposeSplit {
        event: 1,
        places: vec![1, 2],
        shares: vec![(5, 14_600), (6, 14_600)],
    })
    .expect("proposed");
    d.t.execute(Command::Eliminate { entry: 6, points: 0 }).expect("out");
    assert!(d.t.split.is_none());
    is_refused(d.t.execute(Command::AgreeSplit { entry: 5 }), "no split is proposed");
}

#[test]
fn no_agreement_divides_a_non_cash_prize() {
    // Colorado 2213.07(3)(a)
    let mut d = Desk::new();
    for p in ["ann", "bob", "cy"] {
        d.cash(p, 0);
    }
    d.start(0, "2026-12-12").expect("started");
    is_refused(
        d.t.execute(Command::ProposeSplit {
            event: 0,
            places: vec![1, 3],
            shares: vec![(1, 1), (2, 1), (3, 1)],
        }),
        "2213.07(3)(a)",
    );
    is_refused(
        d.t.execute(Command::ProposeSplit {
            event: 0,
            places: vec![2],
            shares: vec![(1, 1), (2, 1), (3, 1)],
        }),
        "2213.07(3)(a)",
    );
}

#[test]
fn a_tied_final_shares_its_cash_and_the_pool_still_ends_empty() {
    // docs/rules.md: ties in standings; Colorado 2213.05: nothing is kept.
    let (mut d, _) = qualifier_played();
    d.cash("ann", 1);
    d.cash("cy", 1);
    d.cash("di", 1);
    d.start(1, "2027-01-16").expect("the Final");
    let events =
        d.t.execute(Command::End {
            day: None,
            event: 1,
            points: vec![(5, 700), (6, 700), (7, 700)],
        })
        .expect("ended");
    let cash: Vec<u64> = events
        .iter()
        .filter_map(|e| match e {
            Event::Awarded(a) => Some(a.prize.value()),
            _ => None,
        })
        .collect();
    // 392.00 three ways: 130.67, 130.67, 130.66.
    assert_eq!(cash, [13_067, 13_067, 13_066]);
    assert_eq!(d.t.pool, 0);
}

mod money_is_kept {
    //! Colorado 2213.05, as a property: whatever is entered, re-bought,
    //! awarded, refused or disqualified, the pool holds exactly the buy-ins
    //! (and what the house added) less the prizes taken from it, the
    //! vouchers held are those awarded and not yet used, and a concluded
    //! tournament keeps nothing.

    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum Step {
        Register { player: u8, event: u8, form: u8 },
        Start { event: u8 },
        Rebuy { entry: u8, form: u8 },
        Eliminate { entry: u8 },
        Withdraw { entry: u8 },
        Disqualify { player: u8 },
        End { event: u8, seed: u64 },
        Conclude,
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            4 => (0u8..6, 0u8..2, 0u8..5).prop_map(|(player, event, form)| Step::Register { player, event, form }),
            1 => (0u8..2).prop_map(|event| Step::Start { event }),
            2 => (1u8..12, 0u8..3).prop_map(|(entry, form)| Step::Rebuy { entry, form }),
            1 => (1u8..12).prop_map(|entry| Step::Eliminate { entry }),
            1 => (1u8..12).prop_map(|entry| Step::Withdraw { entry }),
            1 => (0u8..6).prop_map(|player| Step::Disqualify { player }),
            1 => (0u8..2, any::<u64>()).prop_map(|(event, seed)| Step::End { event, seed }),
            1 => Just(Step::Conclude),
        ]
    }

    fn paid(form: u8, t: &Tournament, player: &str) -> Paid {
        match form {
            0 => Paid::Cash,
            1 => Paid::NonCash { item: "a toy".into() },
            2 => Paid::Complimentary,
            _ => t
                .vouchers
                .iter()
                .find(|v| v.player == player)
                .map_or(Paid::Cash, |v| Paid::Voucher { number: v.number }),
        }
    }

    fn awarded(t: &Tournament) -> u64 {
        t.events.iter().flat_map(|e| &e.awards).map(|a| a.prize.value()).sum()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn the_pool_and_the_vouchers_account_for_every_cent(steps in prop::collection::vec(step(), 1..60)) {
            let mut t = Tournament::new(loaded(WINTER));
            t.execute(Command::FileRules { day: day("2026-12-01") }).expect("filed");
            for s in steps {
                let command = match s {
                    Step::Register { player, event, form } => {
                        let player = format!("p{player}");
                        let fee = paid(form, &t, &player);
                        Command::Register { buy_in: fee.clone(), fee, player, event: event.into(), qualified: true, day: day("2026-12-10") }
                    }
                    Step::Start { event } => Command::Start { event: event.into(), day: [day("2026-12-12"), day("2027-01-16")][usize::from(event)] },
                    Step::Rebuy { entry, form } => Command::Rebuy { entry: entry.into(), paid: paid(form, &t, ""), points: 0, between_games: true },
                    Step::Eliminate { entry } => Command::Eliminate { entry: entry.into(), points: 0 },
                    Step::Withdraw { entry } => Command::Withdraw { entry: entry.into(), day: None },
                    Step::Disqualify { player } => Command::Disqualify { player: format!("p{player}"), reason: "two entries".into() },
                    Step::End { event, seed } => {
                        let points = t
                            .entries
                            .iter()
                            .filter(|e| e.event == usize::from(event) && e.status == EntryStatus::Playing)
                            .map(|e| (e.number, (seed >> (e.number % 16)) % 4))
                            .collect();
                        Command::End { event: event.into(), points, day: None }
                    }
                    Step::Conclude => Command::Conclude { day: None },
                };
                let _ = t.execute(command);
                let cancelled: u64 = t.vouchers.iter().filter(|v| v.cancelled).map(|v| v.value).sum();
                prop_assert_eq!(t.pool + awarded(&t), t.buy_ins() + t.house_added() + cancelled);
                let vouchers_awarded: u64 = t.vouchers.iter().map(|v| v.value).sum();
                let vouchers_gone: u64 = t.vouchers.iter().filter(|v| v.used_by.is_some() || v.cashed || v.cancelled).map(|v| v.value).sum();
                prop_assert_eq!(t.vouchers_held, vouchers_awarded - vouchers_gone);
                if t.concluded {
                    prop_assert_eq!((t.pool, t.vouchers_held), (0, 0));
                }
                let pool_lines = t.pool_account();
                prop_assert_eq!(pool_lines.last().map_or(0, |l| l.balance_minor), i128::from(t.pool));
            }
        }
    }
}

#[test]
fn a_disqualified_player_keeps_no_unused_voucher() {
    // Colorado 2213(2)(c): not eligible to receive any tournament prize.
    let (mut d, _) = qualifier_played();
    let pool = d.t.pool;
    let events =
        d.t.execute(Command::Disqualify {
            player: "bob".into(),
            reason: "a second entry found".into(),
        })
        .expect("disqualified");
    assert!(events.contains(&Event::VoucherCancelled {
        number: 1,
        value: 12_500
    }));
    assert_eq!(d.t.pool, pool + 12_500, "its value is back in the pool");
    assert_eq!(d.t.vouchers_held, 0);
    let voucher = Paid::Voucher { number: 1 };
    is_refused(d.enter("bob", 1, voucher.clone(), voucher), "2213(2)(c)");
}

#[test]
fn eliminated_entries_place_after_those_playing_the_last_out_first() {
    // docs/rules.md: eliminated entries in the standings; 2213.05: the pool ends empty.
    let (mut d, _) = qualifier_played();
    d.cash("ann", 1);
    d.cash("cy", 1);
    d.cash("di", 1);
    d.start(1, "2027-01-16").expect("the Final");
    d.t.execute(Command::Eliminate { entry: 6, points: 0 }).expect("cy out");
    d.t.execute(Command::Eliminate { entry: 7, points: 0 }).expect("di out");
    let events =
        d.t.execute(Command::End {
            day: None,
            event: 1,
            points: vec![(5, 60_000)],
        })
        .expect("ended");
    let places: Vec<(String, u32)> = events
        .iter()
        .filter_map(|e| match e {
            Event::Awarded(a) => Some((a.player.clone(), a.place)),
            _ => None,
        })
        .collect();
    // di went out last, so di is second.
    assert_eq!(places, [("ann".to_string(), 1), ("di".to_string(), 2)]);
    assert_eq!(d.t.pool, 0);
}

#[test]
fn shares_that_overflow_and_a_filing_at_the_end_of_time_are_refused_not_panics() {
    // Colorado 2213.07(3), 2213.06
    let (mut d, _) = qualifier_played();
    d.cash("ann", 1);
    d.cash("cy", 1);
    d.start(1, "2027-01-16").expect("the Final");
    is_refused(
        d.t.execute(Command::ProposeSplit {
            event: 1,
            places: vec![1, 2],
            shares: vec![(5, u64::MAX), (6, 29_201)],
        }),
        "the shares add up to",
    );
    let mut t = Tournament::new(loaded(WINTER));
    t.execute(Command::FileRules { day: time::Date::MAX })
        .expect("recorded");
    t.execute(Command::Register {
        player: "ann".into(),
        event: 0,
        fee: Paid::Cash,
        buy_in: Paid::Cash,
        qualified: true,
        day: day("2026-12-01"),
    })
    .expect("entered");
    is_refused(
        t.execute(Command::Start {
            event: 0,
            day: day("2026-12-12"),
        }),
        "2213.06",
    );
}

#[test]
fn re_entries_count_against_the_players_100000_dollar_cap() {
    // Colorado 2213.05: all of a player's fees and buy-ins together.
    let config = with(WINTER, |s| {
        s.events[0].buy_in = Minor::new(4_000_000);
        s.events[0].entry_fee = Minor::new(500_000);
    })
    .expect("config");
    let mut d = Desk {
        t: Tournament::new(config),
    };
    d.t.execute(Command::FileRules { day: day("2026-12-01") })
        .expect("filed");
    let first = d.enter("ann", 0, Paid::Cash, Paid::Cash).expect("45,000.00");
    d.cash("bob", 0);
    d.start(0, "2026-12-12").expect("started");
    d.t.execute(Command::Eliminate {
        entry: first,
        points: 0,
    })
    .expect("out");
    // 45,000 + 45,000 is within the cap; the re-buy of 100 more is too...
    let again = d.enter("ann", 0, Paid::Cash, Paid::Cash).expect("re-entered");
    d.t.execute(Command::Rebuy {
        entry: again,
        paid: Paid::Cash,
        points: 0,
        between_games: true,
    })
    .expect("90,100.00");
    d.t.execute(Command::Eliminate {
        entry: again,
        points: 0,
    })
    .expect("out again");
    // ...and a third entry would make 135,100.00.
    is_refused(d.enter("ann", 0, Paid::Cash, Paid::Cash), "2213.05");
}

#[test]
fn an_events_prizes_come_from_its_own_pool_not_from_later_events_buy_ins() {
    // Colorado 2213.05: "a prize pool for each event"; the written rules say "the event's prize pool".
    let mut d = Desk::new();
    d.cash("ann", 0);
    d.cash("bob", 1);
    d.start(0, "2026-12-12").expect("started");
    assert_eq!(d.t.event_pool(0), 10_000);
    let events =
        d.t.execute(Command::End {
            day: None,
            event: 0,
            points: vec![(1, 500)],
        })
        .expect("ended");
    // 60% of ann's 100.00, not of 200.00 with bob's Final buy-in.
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::Awarded(a) if a.prize == Awarded::Cash(6_000))));
}

#[test]
fn a_split_divides_only_the_places_the_remaining_players_hold() {
    // Colorado 2213.07(3): the remaining players split among themselves.
    let (mut d, _) = qualifier_played();
    d.cash("ann", 1);
    d.cash("cy", 1);
    d.start(1, "2027-01-16").expect("the Final");
    d.t.execute(Command::Eliminate { entry: 6, points: 0 })
        .expect("cy out, holding 2nd place");
    is_refused(
        d.t.execute(Command::ProposeSplit {
            event: 1,
            places: vec![1, 2],
            shares: vec![(5, 29_200)],
        }),
        "remaining players hold",
    );
}

#[test]
fn no_disqualification_leaves_the_pool_unpaid() {
    // Colorado 2213.05 with 2213(2)(c): the pool is paid out in full.
    let (mut d, _) = qualifier_played();
    d.cash("ann", 1);
    d.start(1, "2027-01-16").expect("the Final");
    is_refused(
        d.t.execute(Command::Disqualify {
            player: "ann".into(),
            reason: "a second entry".into(),
        }),
        "2213.05",
    );
    d.t.execute(Command::End {
        day: None,
        event: 1,
        points: vec![(5, 100)],
    })
    .expect("ended");
    is_refused(
        d.t.execute(Command::Disqualify {
            player: "bob".into(),
            reason: "found late".into(),
        }),
        "dispute",
    );
    assert_eq!(d.t.pool, 0);
}

#[test]
fn a_tournament_called_off_between_events_pays_its_carry_to_the_last_winner() {
    // Colorado 2213.05: every buy-in is paid out; none is kept when the Final cannot be played.
    let (mut d, _) = qualifier_played();
    let carried = d.t.pool;
    d.cash("ann", 1);
    let events =
        d.t.execute(Command::Cancel {
            day: None,
            reason: "no table for the Final".into(),
        })
        .expect("called off");
    // Ann's Final entry refunded; the 92.00 carried to ann, the Qualifier's winner; bob's voucher cashed.
    assert!(events.contains(&Event::Withdrawn { entry: 5, day: None }));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::Awarded(a) if a.player == "ann" && a.prize == Awarded::Cash(carried))));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::VoucherCashed { number: 1, .. })));
    assert_eq!((d.t.pool, d.t.vouchers_held, d.t.concluded), (0, 0, true));
}

#[test]
fn a_withdrawal_is_no_way_in_after_the_start_and_has_a_limit() {
    // Colorado 2213.07(1): entries close at the start; only an elimination makes a re-entry (2213(2)(c)).
    let mut d = Desk::new();
    let cy = d.cash("cy", 0);
    d.t.execute(Command::Withdraw { entry: cy, day: None })
        .expect("withdrawn");
    d.cash("ann", 0);
    d.start(0, "2026-12-12").expect("started");
    is_refused(d.enter("cy", 0, Paid::Cash, Paid::Cash), "2213.07(1)");
    let mut w = Desk::new();
    for _ in 0..3 {
        let e = w.cash("bob", 0);
        w.t.execute(Command::Withdraw { entry: e, day: None })
            .expect("withdrawn");
    }
    let e = w.cash("bob", 0);
    is_refused(
        w.t.execute(Command::Withdraw { entry: e, day: None }),
        "withdrawn 3 entries",
    );
    // Refunded entries do not count against the cap.
    assert_eq!(w.t.paid_by("bob"), 12_500);
}
