//! Exact math against values worked by hand.

use croupier_core::{Kind, Profile, TableRules, Wheel, ZeroChoice};
use croupier_math::{bet_math, fraction_text, profile_math, BetMath};

fn profile(name: &str) -> Profile {
    croupier_profiles::load(name).expect("profile loads")
}

fn math(profile: &Profile, wheel: Wheel, in_prison: bool, spot: &str, choice: Option<ZeroChoice>) -> BetMath {
    let rules = TableRules::new(profile, wheel, in_prison).expect("rules");
    bet_math(&rules, spot, choice).expect("math")
}

#[test]
fn house_edge_table() {
    let maryland = profile("maryland");
    let colorado = profile("colorado-2014");
    let european = profile("european-casino");
    // (profile, wheel, spot, house edge, hit frequency)
    let cases: &[(&Profile, Wheel, &str, &str, &str)] = &[
        // Maryland ch.4 A: every bet on a single-zero wheel gives up 1/37.
        (&maryland, Wheel::SingleZero, "17", "1/37", "1/37"),
        (&maryland, Wheel::SingleZero, "17-18", "1/37", "2/37"),
        (&maryland, Wheel::SingleZero, "13-14-15", "1/37", "3/37"),
        (&maryland, Wheel::SingleZero, "17-18-20-21", "1/37", "4/37"),
        (&maryland, Wheel::SingleZero, "31-32-33-34-35-36", "1/37", "6/37"),
        (&maryland, Wheel::SingleZero, "column1", "1/37", "12/37"),
        (&maryland, Wheel::SingleZero, "red", "1/37", "18/37"),
        (&maryland, Wheel::SingleZero, "neighbours:17", "1/37", "5/37"),
        (&maryland, Wheel::SingleZero, "complete:17", "1/37", "9/37"),
        // Double zero: 2/38, except first five at 6 to 1: 3/38 (Maryland ch.4 A(5)).
        (&maryland, Wheel::DoubleZero, "17", "1/19", "1/38"),
        (&maryland, Wheel::DoubleZero, "0-00", "1/19", "2/38"),
        (&maryland, Wheel::DoubleZero, "0-00-1-2-3", "3/38", "5/38"),
        (&maryland, Wheel::DoubleZero, "high", "1/19", "18/38"),
        // Triple zero: 3/39; green at 11 to 1 covers three pockets (Maryland ch.4 A(11)).
        (&maryland, Wheel::TripleZero, "000", "1/13", "1/39"),
        (&maryland, Wheel::TripleZero, "green", "1/13", "3/39"),
        // Double zero used as single zero: 00 is spun again, so 37 outcomes (Maryland ch.4 C).
        (&maryland, Wheel::DoubleZeroCovered, "17", "1/37", "1/37"),
        (&maryland, Wheel::DoubleZeroCovered, "even", "1/37", "18/37"),
        (&colorado, Wheel::DoubleZero, "dozen3", "1/19", "12/38"),
        // european-casino glossary FIRST FOUR at 8 to 1 (SQUARE/CORNER).
        (&european, Wheel::SingleZero, "0-1-2-3", "1/37", "4/37"),
    ];
    for &(p, wheel, spot, edge, hit) in cases {
        let m = math(p, wheel, false, spot, None);
        assert_eq!(fraction_text(m.house_edge), edge, "{} {wheel:?} {spot}", p.name());
        assert_eq!(fraction_text(m.hit_frequency), fraction_text(parse(hit)), "{spot}");
    }
}

fn parse(text: &str) -> croupier_math::Fraction {
    let (n, d) = text.split_once('/').expect("fraction");
    croupier_math::Fraction::new(n.parse().expect("n"), d.parse().expect("d"))
}

#[test]
fn straight_up_variance() {
    // X = 35 with p 1/37, -1 with p 36/37: E[X^2] - E[X]^2 = 1261/37 - 1/1369 = 46656/1369.
    let m = math(&profile("maryland"), Wheel::SingleZero, false, "17", None);
    assert_eq!(fraction_text(m.variance), "46656/1369");
    assert!((m.std_dev() - 5.837_838).abs() < 1e-6);
    // Even money on double zero: X = +1 (18/38) or -1: variance 1 - (1/19)^2 = 360/361.
    let m = math(&profile("maryland"), Wheel::DoubleZero, false, "red", None);
    assert_eq!(fraction_text(m.variance), "360/361");
}

#[test]
fn in_prison_edges() {
    // Colorado 2204(2): on zero, take back half (-1/2 with p 1/37): edge 1/74.
    let colorado = profile("colorado-2013");
    let half = math(&colorado, Wheel::SingleZero, true, "red", Some(ZeroChoice::Half));
    assert_eq!(fraction_text(half.house_edge), "1/74");
    assert_eq!(half.zero_choice, Some(ZeroChoice::Half));
    // Or leave it in prison: released (0) with p 18/37 on the next spin, lost
    // otherwise, a second zero included: edge (1/37)(19/37) = 19/1369.
    let prison = math(&colorado, Wheel::SingleZero, true, "red", Some(ZeroChoice::Prison));
    assert_eq!(fraction_text(prison.house_edge), "19/1369");
    // With no choice made, the chips stay: prison.
    let default = math(&colorado, Wheel::SingleZero, true, "red", None);
    assert_eq!(default.house_edge, prison.house_edge);
    // On a double-zero wheel only 0 sends the bet to prison, "zero (0)": 00
    // loses it (1/38), and 0 does with p 20/38 on the next spin: 1/38 +
    // 1/38 * 20/38 = 29/722.
    let dz = math(&colorado, Wheel::DoubleZero, true, "low", None);
    assert_eq!(fraction_text(dz.house_edge), "29/722");
    // In Prison is for even-money bets only.
    let dozen = math(&colorado, Wheel::SingleZero, true, "dozen1", None);
    assert_eq!(fraction_text(dozen.house_edge), "1/37");
    assert_eq!(dozen.zero_choice, None);
}

#[test]
fn every_offered_kind_has_math_on_every_wheel() {
    for name in croupier_profiles::builtin_names() {
        let p = profile(name);
        for &wheel in &p.spec().wheels {
            let rules = TableRules::new(&p, wheel, false).expect("rules");
            let rows = profile_math(&rules, None).expect("math");
            let kinds: Vec<Kind> = rows.iter().map(|m| m.kind).collect();
            assert_eq!(kinds, p.kinds_on(wheel), "{name} {wheel:?}");
            for m in &rows {
                assert!(m.house_edge > croupier_math::Fraction::from_integer(0), "{name} {m:?}");
                assert!(m.variance > croupier_math::Fraction::from_integer(0));
            }
        }
    }
}
