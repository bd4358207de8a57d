//! The shipped profiles load and say what their documents say; broken
//! profiles are refused with the field named.

use croupier_core::{
    EvenMoneyOnZero, Kind, NoSpinBets, OverMaximum, Pocket, PocketSet, Profile, UnderMinimum, Wheel, ZeroChoice,
};
use croupier_profiles::{builtin_names, load, parse, LoadError, BUILTIN};

fn profile(name: &str) -> Profile {
    load(name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn text_of(name: &str) -> &'static str {
    BUILTIN
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .expect("builtin")
}

/// Loads a shipped profile with one piece of its text replaced, and returns
/// the field the refusal names.
fn refused_field(name: &str, from: &str, to: &str) -> String {
    let text = text_of(name);
    assert!(text.contains(from), "{name} has no {from:?}");
    match parse(&text.replacen(from, to, 1), "test") {
        Ok(_) => panic!("{name} with {to:?} was accepted"),
        Err(LoadError::Invalid { error, .. }) => error.field,
        Err(LoadError::Syntax { message, .. }) => format!("syntax: {message}"),
        Err(other) => panic!("{other}"),
    }
}

#[test]
fn the_five_profiles_load() {
    assert_eq!(
        builtin_names(),
        [
            "colorado-2013",
            "colorado-2014",
            "maryland",
            "european-casino",
            "low-limit-house"
        ]
    );
    for name in builtin_names() {
        assert_eq!(profile(name).name(), name);
    }
}

#[test]
fn colorado_payouts_and_options() {
    for name in ["colorado-2013", "colorado-2014"] {
        let p = profile(name);
        // Colorado 2204(1): the payout odds table.
        for (kind, odds) in [
            (Kind::Straight, 35),
            (Kind::Split, 17),
            (Kind::Street, 11),
            (Kind::Trio, 11),
            (Kind::Corner, 8),
            (Kind::FirstFive, 6),
            (Kind::SixLine, 5),
            (Kind::Column, 2),
            (Kind::Dozen, 2),
            (Kind::Red, 1),
            (Kind::High, 1),
        ] {
            assert_eq!(p.payout(kind), Some(odds), "{name} {kind}");
        }
        // Colorado 2209(1)-(2), 2210(2)(c): American, European, and double zero used as single zero.
        assert!(p.offers_wheel(Wheel::DoubleZero));
        assert!(p.offers_wheel(Wheel::SingleZero));
        assert!(p.offers_wheel(Wheel::DoubleZeroAsSingleZero));
        // 2210(2)(c)(i): or on the double-zero layout with 00 covered.
        assert!(p.offers_wheel(Wheel::DoubleZeroCovered));
        assert!(!p.offers_wheel(Wheel::TripleZero));
        // Colorado 2204(2): In Prison may be offered.
        assert!(p.spec().zero.in_prison_offered);
        assert_eq!(p.spec().zero.in_prison_default, ZeroChoice::Prison);
        // Colorado 2205(1): at least four revolutions.
        assert_eq!(p.spec().min_ball_revolutions, 4);
        // Colorado 2203(1): match play on the even money and 2 to 1 wagers only.
        for kind in [
            Kind::Red,
            Kind::Black,
            Kind::Odd,
            Kind::Even,
            Kind::Low,
            Kind::High,
            Kind::Column,
            Kind::Dozen,
        ] {
            assert!(p.spec().match_play.contains(&kind), "{name} {kind}");
        }
        assert!(!p.spec().match_play.contains(&Kind::Straight));
        // Colorado 2203(1): no verbal wagers.
        assert!(!p.spec().verbal_bets);
        // Colorado 2203(6): first four, green, neighbours and complete are not named.
        for kind in [Kind::FirstFour, Kind::Green, Kind::Neighbours, Kind::Complete] {
            assert!(!p.offers(kind), "{name} {kind}");
        }
        // Colorado 2203(6)(c)(i): the three-numbers groups (0,1,2) (0,2,00) (00,2,3), and no other.
        let group = |labels: [&str; 3]| PocketSet::of(&labels.map(|l| Pocket::parse(l).expect("pocket")));
        assert!(p.offers_inside(Kind::Trio, group(["0", "1", "2"])));
        assert!(p.offers_inside(Kind::Trio, group(["0", "2", "00"])));
        assert!(!p.offers_inside(Kind::Trio, group(["0", "2", "3"])));
    }
    // Colorado 2206(5) (amended 7/15/14): the pit supervisor decides disputes.
    assert_eq!(profile("colorado-2014").spec().dispute_authority, "pit supervisor");
    assert!(profile("colorado-2014")
        .spec()
        .house_rules
        .iter()
        .any(|r| r.contains("2206(5)")));
    assert!(profile("colorado-2014")
        .spec()
        .house_rules
        .iter()
        .any(|r| r.contains("$100,000")));
}

#[test]
fn maryland_wagers_and_wheels() {
    let p = profile("maryland");
    // Maryland ch.1 C, D, E, F: single, double, triple zero, and double zero
    // used as single zero on the double-zero layout with 00 covered (F(1)).
    for wheel in [
        Wheel::SingleZero,
        Wheel::DoubleZero,
        Wheel::TripleZero,
        Wheel::DoubleZeroCovered,
    ] {
        assert!(p.offers_wheel(wheel), "{wheel:?}");
    }
    assert!(!p.offers_wheel(Wheel::DoubleZeroAsSingleZero));
    assert!(p.jurisdiction().double_zero_layout_covered);
    // Maryland ch.4 A(11): green pays 11 to 1; ch.3 F(11): triple zero only.
    assert_eq!(p.payout(Kind::Green), Some(11));
    assert!(p.kinds_on(Wheel::TripleZero).contains(&Kind::Green));
    assert!(!p.kinds_on(Wheel::DoubleZero).contains(&Kind::Green));
    // Maryland ch.3 F(1)(a) five adjacent numbers and F(19) complete are offered.
    assert!(p.offers(Kind::Neighbours));
    assert!(p.offers(Kind::Complete));
    // Maryland ch.4 A(5): first five numbers pays 6 to 1, on the double-zero layout only.
    assert_eq!(p.payout(Kind::FirstFive), Some(6));
    assert!(!p.kinds_on(Wheel::SingleZero).contains(&Kind::FirstFive));
    // Maryland ch.4 B: even-money wagers lose on any zero; no In Prison.
    assert_eq!(p.spec().zero.even_money_on_zero, EvenMoneyOnZero::Lose);
    assert!(!p.spec().zero.in_prison_offered);
    // Maryland ch.5 A: four revolutions.
    assert_eq!(p.spec().min_ball_revolutions, 4);
    // Maryland ch.3 A: no verbal wagers with cash.
    assert!(!p.spec().verbal_bets);
}

#[test]
fn european_casino_house_rules() {
    let p = profile("european-casino");
    // european-casino 1.1: 37 slots, 0 to 36, whatever the text calls the wheel.
    assert_eq!(p.spec().wheels, [Wheel::SingleZero]);
    // european-casino 4.4: at least three turns.
    assert_eq!(p.spec().min_ball_revolutions, 3);
    // european-casino glossary FIRST FOUR; SIX LINE 5-1.
    assert_eq!(p.payout(Kind::FirstFour), Some(8));
    assert_eq!(p.payout(Kind::SixLine), Some(5));
    // european-casino 3.12-3.13: over the maximum plays the maximum; under the minimum settles once.
    assert_eq!(p.spec().limits.over_maximum, OverMaximum::PlayMaximumReturnExcess);
    assert_eq!(p.spec().limits.under_minimum, UnderMinimum::SettleOnce);
    // european-casino glossary COLOUR: eight colours; NUMBER DISPLAY: the last 16 numbers.
    assert_eq!(p.spec().chip_colours.len(), 8);
    assert_eq!(p.spec().number_display_length, Some(16));
    // european-casino 4.5-4.8: the spin is invalid, as are all bets.
    assert_eq!(p.spec().no_spin_bets, NoSpinBets::Returned);
    // european-casino 3.5-3.6: verbal bets are taken.
    assert!(p.spec().verbal_bets);
    // european-casino glossary EVEN CHANCES: lose if the zero comes up.
    assert_eq!(p.spec().zero.even_money_on_zero, EvenMoneyOnZero::Lose);
}

#[test]
fn low_limit_house_wager_amounts() {
    let p = profile("low-limit-house");
    // low-limit-house "The wager amounts": $1-$10 per inside wager, $5-$10 per outside wager.
    for kind in [
        Kind::Straight,
        Kind::Split,
        Kind::Street,
        Kind::Corner,
        Kind::FirstFive,
        Kind::SixLine,
    ] {
        let range = p.limit(kind).expect("inside limit");
        assert_eq!((range.min.get(), range.max.get()), (100, 1000), "{kind}");
    }
    for kind in [
        Kind::Column,
        Kind::Dozen,
        Kind::Red,
        Kind::Black,
        Kind::Odd,
        Kind::Even,
        Kind::Low,
        Kind::High,
    ] {
        let range = p.limit(kind).expect("outside limit");
        assert_eq!((range.min.get(), range.max.get()), (500, 1000), "{kind}");
    }
    // low-limit-house Rotation of Wheel and Ball (1): three revolutions.
    assert_eq!(p.spec().min_ball_revolutions, 3);
    assert_eq!(p.spec().wheels, [Wheel::DoubleZero]);
}

#[test]
fn refusals_name_the_field() {
    // Colorado 2204(1): no licensee pays less than these odds.
    assert_eq!(
        refused_field("colorado-2013", "split = 17", "split = 16"),
        "paytable.split"
    );
    // The low-limit house's Roulette Pay Table (and european-casino's "paid
    // out 35 to 1") fix the odds: 36 to 1 straight up still leaves the house
    // its edge on a double-zero wheel (37 of 38), but it is not the game the
    // document describes.
    assert_eq!(
        refused_field("low-limit-house", "straight = 35", "straight = 36"),
        "paytable.straight"
    );
    // Maryland ch.4 A(11): green at no less than 11 to 1.
    assert_eq!(refused_field("maryland", "green = 11", "green = 10"), "paytable.green");
    // Maryland ch.5 A: four revolutions at least.
    assert_eq!(
        refused_field("maryland", "min_ball_revolutions = 4", "min_ball_revolutions = 3"),
        "min_ball_revolutions"
    );
    // Maryland ch.4 B: even-money wagers lose on zero, so no In Prison.
    assert_eq!(
        refused_field("maryland", "in_prison = false", "in_prison = true"),
        "zero_rules.in_prison"
    );
    // A wager the document does not name is not offered (Colorado 2203(6) has no first four).
    assert_eq!(
        refused_field("colorado-2013", "\"first_five\",", "\"first_five\", \"first_four\","),
        "spots"
    );
    // A spot the profile's wheels cannot have: green without a triple-zero wheel.
    assert_eq!(
        refused_field(
            "maryland",
            "\"triple-zero\", \"double-zero-covered\"",
            "\"double-zero-covered\""
        ),
        "spots"
    );
    // Colorado 2203(1): match play on even money and 2 to 1 wagers only.
    assert_eq!(
        refused_field(
            "colorado-2014",
            "match_play = [\"red\"",
            "match_play = [\"straight\", \"red\""
        ),
        "match_play"
    );
    // Inconsistent: a payout for a kind the profile does not offer.
    assert_eq!(
        refused_field("european-casino", "split = 17", "split = 17\nfirst_five = 6"),
        "paytable.first_five"
    );
    // Inconsistent: a payout that hands the player the edge.
    assert_eq!(
        refused_field("low-limit-house", "straight = 35", "straight = 38"),
        "paytable.straight"
    );
    // Nor may it return exactly what was staked (37 to 1 on 38 pockets: 100%):
    // a game the house cannot win is no game a casino offers.
    assert_eq!(
        refused_field("low-limit-house", "straight = 35", "straight = 37"),
        "paytable.straight"
    );
    // european-casino 5.1: each player one colour, so no colour twice.
    assert_eq!(
        refused_field("european-casino", "\"lilac\"", "\"yellow\""),
        "chips.colours"
    );
    assert_eq!(
        refused_field("low-limit-house", "max = 1000 }", "max = 10 }"),
        "limits.straight"
    );
    assert_eq!(
        refused_field(
            "maryland",
            "default_wheel = \"double-zero\"",
            "default_wheel = \"roulette\""
        ),
        "default_wheel"
    );
    assert_eq!(
        refused_field("maryland", "jurisdiction = \"maryland\"", "jurisdiction = \"nevada\""),
        "jurisdiction"
    );
    assert_eq!(
        refused_field("maryland", "trios = [\"0-1-2\", \"0-2-00\", \"00-2-3\"]", "trios = []"),
        "trios"
    );
    // Colorado 2203(6)(c)(i) names no 0-2-3 group.
    assert_eq!(
        refused_field("colorado-2013", "\"00-2-3\"]", "\"00-2-3\", \"0-2-3\"]"),
        "trios[3]"
    );
    // An unknown field is named by the TOML reader.
    let field = refused_field(
        "maryland",
        "verbal_bets = false",
        "verbal_bets = false\nverbal_bet = true",
    );
    assert!(field.contains("verbal_bet"), "{field}");
}

#[test]
fn unknown_profile_names_the_known_ones() {
    let err = load("nevada").expect_err("no such profile").to_string();
    assert!(err.contains("maryland") && err.contains("nevada"), "{err}");
    let err = load("/nonexistent/profile.toml").expect_err("no such file").to_string();
    assert!(err.contains("/nonexistent/profile.toml"), "{err}");
}
