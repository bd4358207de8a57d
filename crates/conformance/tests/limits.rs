//! A table's own limits, posted by the pit between rounds within what the
//! profile allows (Colorado 2207, Maryland ch.1 G(3), european-casino
//! glossary TABLE SIGN), and the rules that act on them at the table:
//! over the maximum and under the minimum (european-casino 3.12-3.13).

use croupier_core::profile::StakeRange;
use croupier_core::round::{
    Command, CommandError, Event, Inspection, Person, Readings, ReturnReason, SpinReport, Table, TableConfig,
};
use croupier_core::{Kind, Minor, Pocket, Wheel};

fn pit() -> Person {
    Person {
        name: "Sam Roe".into(),
        role: "pit supervisor".into(),
        licence: "P-1".into(),
    }
}

fn open_table(profile: &str, wheel: Wheel) -> Table {
    let mut t = Table::new(
        croupier_profiles::load(profile).expect("profile"),
        TableConfig {
            wheel,
            in_prison: false,
            betting_window_ms: 60_000,
        },
    )
    .expect("table");
    t.handle(Command::RecordInspection(Inspection {
        at_ms: 1,
        by: pit(),
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

fn range(min: u64, max: u64) -> StakeRange {
    StakeRange {
        min: Minor::new(min),
        max: Minor::new(max),
    }
}

fn set(t: &mut Table, at_ms: u64, limits: &[(Kind, u64, u64)]) -> Result<Vec<Event>, CommandError> {
    t.handle(Command::SetLimits {
        at_ms,
        by: pit(),
        limits: limits.iter().map(|&(k, min, max)| (k, range(min, max))).collect(),
    })
}

fn bet(t: &mut Table, at_ms: u64, id: &str, spot: &str, stake: i128) -> Result<Vec<Event>, CommandError> {
    t.handle(Command::PlaceBet {
        at_ms,
        bet_id: id.into(),
        player: 1,
        spot: spot.into(),
        stake_minor: stake,
        zero_choice: None,
        coupon_minor: None,
    })
}

fn spin(t: &mut Table, at_ms: u64, pocket: &str) -> Vec<Event> {
    t.handle(Command::NoMoreBets { at_ms }).expect("no more bets");
    t.handle(Command::Spin {
        at_ms: at_ms + 1,
        report: SpinReport::Ball {
            pocket: Pocket::parse(pocket).expect("pocket"),
            opposite_direction: true,
            revolutions: 8,
        },
    })
    .expect("spin")
}

fn returned(events: &[Event], id: &str) -> u64 {
    events
        .iter()
        .find_map(|e| match e {
            Event::BetSettled { bet_id, returned, .. } if bet_id == id => Some(returned.get()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("bet {id} settled: {events:?}"))
}

// Colorado 2207: the licensee sets and posts each table's limits; a bet
// under the minimum or over the maximum is refused under that profile.
#[test]
fn the_pit_posts_a_tables_limits_between_rounds_and_bets_keep_them() {
    let mut t = open_table("colorado-2014", Wheel::DoubleZero);
    assert!(t.limits().is_empty(), "Colorado's profile posts no limits of its own");
    let events = set(&mut t, 3, &[(Kind::Straight, 100, 10_000), (Kind::Red, 500, 50_000)]).expect("posted");
    assert!(matches!(&events[..], [Event::LimitsSet { limits, .. }] if limits.len() == 2));
    assert_eq!(
        t.limits(),
        [(Kind::Straight, range(100, 10_000)), (Kind::Red, range(500, 50_000))]
    );

    t.handle(Command::OpenBetting { at_ms: 4 }).expect("betting");
    // Changed only between rounds.
    assert_eq!(set(&mut t, 5, &[]), Err(CommandError::LimitsInRound));
    assert!(
        matches!(bet(&mut t, 5, "a", "17", 50), Err(CommandError::Bet(_))),
        "under the minimum"
    );
    assert!(
        matches!(bet(&mut t, 5, "b", "17", 10_100), Err(CommandError::Bet(_))),
        "over the maximum"
    );
    assert!(
        matches!(bet(&mut t, 5, "c", "red", 400), Err(CommandError::Bet(_))),
        "red's own minimum"
    );
    bet(&mut t, 5, "d", "17", 10_000).expect("at the maximum");
    bet(&mut t, 5, "e", "black", 1).expect("black has no posted limit");
    let settled = spin(&mut t, 6, "17");
    assert_eq!(returned(&settled, "d"), 360_000);

    // Between rounds again: posting nothing takes the limits down.
    set(&mut t, 8, &[]).expect("between rounds");
    assert!(t.limits().is_empty());
}

#[test]
fn limits_a_table_cannot_post_are_refused_naming_the_wager() {
    let mut t = open_table("colorado-2014", Wheel::DoubleZero);
    let refused = |t: &mut Table, limits: &[(Kind, u64, u64)], kind: &str| match set(t, 3, limits) {
        Err(CommandError::BadLimits { kind: k, why }) => assert_eq!(k, kind, "{why}"),
        other => panic!("{limits:?}: {other:?}"),
    };
    refused(&mut t, &[(Kind::FirstFour, 100, 1_000)], "first_four");
    refused(&mut t, &[(Kind::Straight, 0, 1_000)], "straight");
    refused(&mut t, &[(Kind::Straight, 2_000, 1_000)], "straight");
    refused(&mut t, &[(Kind::Split, 100, 1_000), (Kind::Split, 100, 2_000)], "split");
    assert!(t.limits().is_empty(), "nothing half-applied");

    // low-limit-house, "The wager amounts for the game": $1-$10 inside, $5-$10
    // outside. A table narrows them, never widens or removes them.
    let mut house = open_table("low-limit-house", Wheel::DoubleZero);
    let posted: Vec<(Kind, u64, u64)> = house
        .limits()
        .iter()
        .map(|(k, r)| (*k, r.min.get(), r.max.get()))
        .collect();
    assert!(posted.contains(&(Kind::Straight, 100, 1_000)));
    let with = |kind: Kind, min: u64, max: u64| -> Vec<(Kind, u64, u64)> {
        posted
            .iter()
            .map(|&(k, lo, hi)| if k == kind { (k, min, max) } else { (k, lo, hi) })
            .collect()
    };
    refused(&mut house, &with(Kind::Straight, 100, 2_000), "straight");
    refused(&mut house, &with(Kind::Red, 100, 1_000), "red");
    let without_red: Vec<_> = posted.iter().copied().filter(|(k, _, _)| *k != Kind::Red).collect();
    refused(&mut house, &without_red, "red");
    set(&mut house, 4, &with(Kind::Straight, 200, 500)).expect("narrowed");
    assert!(house.limits().contains(&(Kind::Straight, range(200, 500))));
}

// european-casino 3.12: over the maximum, only the part up to the maximum
// plays and the rest is returned; 3.13: under the minimum, the bet is paid
// or collected once (flagged), whatever the result.
#[test]
fn over_the_maximum_and_under_the_minimum_act_at_a_european_table() {
    let mut t = open_table("european-casino", Wheel::SingleZero);
    set(&mut t, 3, &[(Kind::Straight, 100, 1_000)]).expect("posted");
    t.handle(Command::OpenBetting { at_ms: 4 }).expect("betting");
    let over = bet(&mut t, 5, "over", "17", 3_000).expect("taken");
    let under = bet(&mut t, 5, "under", "17", 50).expect("taken");
    let lost = bet(&mut t, 5, "lost", "18", 3_000).expect("taken");
    let placed = |events: &[Event]| match events {
        [Event::BetAccepted { bet, .. }] => (bet.bet.excess().get(), bet.bet.under_minimum()),
        other => panic!("{other:?}"),
    };
    assert_eq!(placed(&over), (2_000, false));
    assert_eq!(placed(&under), (0, true));
    assert_eq!(placed(&lost), (2_000, false));
    let settled = spin(&mut t, 6, "17");
    // 10.00 plays at 35 to 1; the 20.00 above the maximum comes back.
    assert_eq!(returned(&settled, "over"), 36_000 + 2_000);
    assert_eq!(returned(&settled, "under"), 50 * 36);
    // A losing bet over the maximum loses only the maximum.
    assert_eq!(returned(&settled, "lost"), 2_000);
}

fn bet_of(t: &mut Table, at_ms: u64, player: u64, id: &str, stake: i128) {
    t.handle(Command::PlaceBet {
        at_ms,
        bet_id: id.into(),
        player,
        spot: "17".into(),
        stake_minor: stake,
        zero_choice: None,
        coupon_minor: None,
    })
    .expect("taken");
}

fn handed_back(events: &[Event], id: &str) -> Option<(u64, ReturnReason)> {
    events.iter().find_map(|e| match e {
        Event::BetReturned {
            bet_id, returned, why, ..
        } if bet_id == id => Some((returned.get(), *why)),
        _ => None,
    })
}

// european-casino 3.13: "Bets below the table's minimum can be paid out or
// collected only once. After this, they are returned to the player
// regardless of whether they won or lost." Once per player at the table:
// the first such bet of a player that settles is paid or collected, every
// later one of theirs is returned, in the same round or any later one.
#[test]
fn a_players_bet_under_the_minimum_settles_once_and_the_next_are_returned() {
    let mut t = open_table("european-casino", Wheel::SingleZero);
    t.set_readings(Readings {
        under_minimum_once: true,
        ..Readings::default()
    });
    set(&mut t, 3, &[(Kind::Straight, 100, 1_000)]).expect("posted");
    t.handle(Command::OpenBetting { at_ms: 4 }).expect("betting");
    // A bet cancelled was neither paid nor collected: the once is still the player's.
    bet_of(&mut t, 5, 1, "cancelled", 50);
    t.handle(Command::CancelBet {
        at_ms: 5,
        bet_id: "cancelled".into(),
        player: 1,
    })
    .expect("cancelled");
    bet_of(&mut t, 5, 1, "first", 50);
    bet_of(&mut t, 5, 1, "second", 50);
    bet_of(&mut t, 5, 2, "other player", 50);
    bet_of(&mut t, 5, 1, "at the minimum", 100);
    let settled = spin(&mut t, 6, "17");
    assert_eq!(returned(&settled, "first"), 50 * 36);
    // Won, and returned all the same: only its stake.
    assert_eq!(handed_back(&settled, "second"), Some((50, ReturnReason::UnderMinimum)));
    assert_eq!(returned(&settled, "other player"), 50 * 36);
    assert_eq!(returned(&settled, "at the minimum"), 100 * 36);
    // The round's totals count only the bets that played.
    let Some(Event::RoundSettled {
        staked, returned: back, ..
    }) = settled.last()
    else {
        panic!("{settled:?}")
    };
    assert_eq!((staked.get(), back.get()), (200, 200 * 36));
    assert!(t.under_minimum_settled(1) && t.under_minimum_settled(2));

    // A later round, a losing bet: returned, not collected.
    t.handle(Command::OpenBetting { at_ms: 8 }).expect("betting");
    bet_of(&mut t, 9, 1, "later", 50);
    let settled = spin(&mut t, 10, "18");
    assert_eq!(handed_back(&settled, "later"), Some((50, ReturnReason::UnderMinimum)));

    // A table made before this reading settles every such bet, as it did.
    let mut old = open_table("european-casino", Wheel::SingleZero);
    set(&mut old, 3, &[(Kind::Straight, 100, 1_000)]).expect("posted");
    old.handle(Command::OpenBetting { at_ms: 4 }).expect("betting");
    bet_of(&mut old, 5, 1, "first", 50);
    bet_of(&mut old, 5, 1, "second", 50);
    let settled = spin(&mut old, 6, "18");
    assert_eq!((returned(&settled, "first"), returned(&settled, "second")), (0, 0));
}

// Maryland ch.1 G(3): the limits posted at each table. A table is built
// from events alone: its limits come back on replay.
#[test]
fn a_tables_limits_replay_from_its_events() {
    let mut t = open_table("maryland", Wheel::DoubleZero);
    let events = set(&mut t, 3, &[(Kind::Dozen, 500, 5_000)]).expect("posted");
    let mut again = open_table("maryland", Wheel::DoubleZero);
    again.apply_all(&events);
    assert_eq!(again.limits(), t.limits());
}

// What a player has on a spot follows their bets on and off the layout,
// a composite bet's parts on their own spots (Maryland ch.3 F(19)).
#[test]
fn a_players_stake_per_spot_follows_bets_placed_cancelled_and_settled() {
    let mut t = open_table("maryland", Wheel::DoubleZero);
    let seventeen = croupier_core::Spot::parse("17", Wheel::DoubleZero)
        .expect("spot")
        .covers();
    let on_17 = |t: &Table| t.staked_on(1, Kind::Straight, seventeen);
    t.handle(Command::OpenBetting { at_ms: 3 }).expect("betting");
    bet(&mut t, 4, "a", "17", 800).expect("taken");
    bet(&mut t, 4, "b", "complete:17", 4_000).expect("taken");
    assert_eq!(on_17(&t), 900);
    t.handle(Command::CancelBet {
        at_ms: 5,
        bet_id: "a".into(),
        player: 1,
    })
    .expect("cancelled");
    assert_eq!(on_17(&t), 100);
    spin(&mut t, 6, "5");
    assert_eq!(on_17(&t), 0, "settled bets leave the layout");
}

// Colorado 2214(1): no wager size limit applies to tournament chips; a table
// switches to points, and back, only between rounds.
#[test]
fn a_table_playing_a_tournament_takes_bets_of_any_size() {
    let mut t = open_table("colorado-2014", Wheel::DoubleZero);
    set(&mut t, 3, &[(Kind::Straight, 100, 1_000)]).expect("posted");
    t.set_points_play(true).expect("between rounds");
    assert!(t.points_play());
    t.handle(Command::OpenBetting { at_ms: 4 }).expect("betting");
    assert_eq!(t.set_points_play(false), Err(CommandError::RoundUnderWay));
    bet(&mut t, 5, "big", "17", 500_000).expect("over the cash maximum, in points");
    bet(&mut t, 5, "small", "17", 1).expect("under the cash minimum, in points");
    let events = spin(&mut t, 6, "17");
    assert_eq!(returned(&events, "big"), 36 * 500_000);
    t.set_points_play(false).expect("between rounds");
    t.handle(Command::OpenBetting { at_ms: 8 }).expect("betting");
    assert!(
        matches!(bet(&mut t, 9, "cash", "17", 500_000), Err(CommandError::Bet(_))),
        "cash play keeps the table's maximum"
    );
}

// Maryland ch.3 F(19): a Complete Wager on a number is every inside wager
// containing it, one chip on each number each covers. Tables made before
// journal format 14 took it on a zero too: complete:0 and complete:00 on the double-zero layout
// are 18 chips each (the straight, the splits, the trios and first five);
// on the triple-zero layout no inside bet but the straight contains 000,
// so complete:000 is 000 straight up. The "dozen section" form is not a
// wager of its own, and is refused saying so.
#[test]
fn complete_on_a_zero_is_every_inside_bet_containing_it_and_the_dozen_section_is_refused() {
    let maryland = croupier_profiles::load("maryland").expect("profile");
    // As a table made before journal format 14 takes a complete wager on a zero.
    let units = |wheel: Wheel, spot: &str| {
        croupier_core::TableRules::new(&maryland, wheel, false)
            .expect("rules")
            .complete_on_zero_taken()
            .stake_units(spot)
    };
    assert_eq!(units(Wheel::DoubleZero, "complete:0"), Ok(18));
    assert_eq!(units(Wheel::DoubleZero, "complete:00"), Ok(18));
    assert_eq!(units(Wheel::TripleZero, "complete:0"), Ok(13));
    assert_eq!(units(Wheel::TripleZero, "complete:000"), Ok(1));
    assert_eq!(units(Wheel::DoubleZero, "complete:17"), Ok(40));
    let refused = croupier_core::Spot::parse("complete:dozen1", Wheel::DoubleZero).expect_err("no dozen form");
    assert!(refused.to_string().contains("F(19)"), "{refused}");
    // Maryland ch.3 F(19), read again: the wager is on "any number or numbers
    // within a dozen", and no zero is in one. From journal format 14 a
    // complete wager on a zero is refused, and the felt lists none.
    for (wheel, zero) in [
        (Wheel::SingleZero, "0"),
        (Wheel::DoubleZero, "0"),
        (Wheel::DoubleZero, "00"),
        (Wheel::TripleZero, "000"),
    ] {
        let rules = croupier_core::TableRules::new(&maryland, wheel, false).expect("rules");
        let spot = format!("complete:{zero}");
        assert_eq!(
            rules.stake_units(&spot),
            Err(croupier_core::BetError::CompleteOnZero(zero.to_string()))
        );
        assert!(!rules.legal_spots().contains(&spot), "{spot}");
        assert!(rules.legal_spots().contains(&"complete:17".to_string()));
    }
}
