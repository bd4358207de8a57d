//! Wheels: which pockets exist, their order around the wheel, and which
//! layout the bets are placed on.

use crate::pocket::{Pocket, PocketSet};

/// The wheels the documents describe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum Wheel {
    /// 37 pockets: 0 and 1-36 (Colorado 2201(5), 2210(2)(a); Maryland ch.1 C).
    SingleZero,
    /// 38 pockets: 0, 00 and 1-36 (Colorado 2201(1), 2210(2)(b); Maryland ch.1 D).
    DoubleZero,
    /// 39 pockets: 0, 00, 000 and 1-36 (Maryland ch.1 E).
    TripleZero,
    /// A double-zero wheel used as a single-zero one: 00 cannot be bet, and a
    /// ball in 00 voids the spin (Colorado 2210(2)(c), Maryland ch.1 F, ch.4 C).
    DoubleZeroAsSingleZero,
    /// A double-zero wheel used as a single-zero one on the double-zero
    /// layout with its 00 box covered (Maryland ch.1 F(1), Colorado
    /// 2210(2)(c)(i)): the zero spots are those that felt has, 0-1, 0-2 and
    /// 0-1-2, not the single-zero felt's 0-3, 0-2-3 and 0-1-2-3.
    DoubleZeroCovered,
}

/// The layouts bets are placed on. The zero boxes differ; the 1-36 grid is
/// the same on all of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Layout {
    /// One 0 box across the top of all three columns.
    SingleZero,
    /// A 0 box over 1 and the left half of 2, a 00 box over the right half of 2 and 3.
    DoubleZero,
    /// The double-zero layout with a 000 (logo) box of its own, bet straight
    /// up or through the Green wager.
    TripleZero,
    /// The double-zero layout with the 00 box covered: the 0 box over 1 and
    /// the left half of 2, and nothing that touches 00.
    DoubleZeroCovered,
}

impl Layout {
    pub fn name(self) -> &'static str {
        match self {
            Layout::SingleZero => "single-zero",
            Layout::DoubleZero => "double-zero",
            Layout::TripleZero => "triple-zero",
            Layout::DoubleZeroCovered => "double-zero-covered",
        }
    }
}

/// Maryland ch.1 C(2), clockwise from 0.
const SINGLE_ZERO_ORDER: [u8; 37] = [
    0, 32, 15, 19, 4, 21, 2, 25, 17, 34, 6, 27, 13, 36, 11, 30, 8, 23, 10, 5, 24, 16, 33, 1, 20, 14, 31, 9, 22, 18, 29,
    7, 28, 12, 35, 3, 26,
];

/// Maryland ch.1 D(2), clockwise from 0; 37 stands for 00.
const DOUBLE_ZERO_ORDER: [u8; 38] = [
    0, 28, 9, 26, 30, 11, 7, 20, 32, 17, 5, 22, 34, 15, 3, 24, 36, 13, 1, 37, 27, 10, 25, 29, 12, 8, 19, 31, 18, 6, 21,
    33, 16, 4, 23, 35, 14, 2,
];

/// Maryland ch.1 E(2), clockwise from 000; 38 stands for 000 and 37 for 00.
const TRIPLE_ZERO_ORDER: [u8; 39] = [
    38, 37, 32, 15, 19, 4, 21, 2, 25, 17, 34, 6, 27, 13, 36, 11, 30, 8, 23, 10, 5, 24, 16, 33, 1, 20, 14, 31, 9, 22,
    18, 29, 7, 28, 12, 35, 3, 26, 0,
];

pub const ALL_WHEELS: [Wheel; 5] = [
    Wheel::SingleZero,
    Wheel::DoubleZero,
    Wheel::TripleZero,
    Wheel::DoubleZeroAsSingleZero,
    Wheel::DoubleZeroCovered,
];

impl Wheel {
    pub fn name(self) -> &'static str {
        match self {
            Wheel::SingleZero => "single-zero",
            Wheel::DoubleZero => "double-zero",
            Wheel::TripleZero => "triple-zero",
            Wheel::DoubleZeroAsSingleZero => "double-zero-as-single-zero",
            Wheel::DoubleZeroCovered => "double-zero-covered",
        }
    }

    pub fn parse(name: &str) -> Option<Wheel> {
        ALL_WHEELS.into_iter().find(|w| w.name() == name)
    }

    /// Every wheel's name, for errors: "single-zero, double-zero, ...".
    pub fn all_names() -> String {
        ALL_WHEELS.map(Wheel::name).join(", ")
    }

    /// A sentence for posted rules and errors.
    pub fn description(self) -> &'static str {
        match self {
            Wheel::SingleZero => "single-zero wheel (37 pockets: 0 and 1-36)",
            Wheel::DoubleZero => "double-zero wheel (38 pockets: 0, 00 and 1-36)",
            Wheel::TripleZero => "triple-zero wheel (39 pockets: 0, 00, 000 and 1-36)",
            Wheel::DoubleZeroAsSingleZero => {
                "double-zero wheel used as a single-zero wheel (00 cannot be bet; a ball in 00 voids the spin)"
            }
            Wheel::DoubleZeroCovered => {
                "double-zero wheel and layout used as a single-zero wheel, the 00 box covered (00 cannot be \
                 bet; a ball in 00 voids the spin)"
            }
        }
    }

    /// The pockets clockwise around the physical wheel.
    pub fn order(self) -> impl Iterator<Item = Pocket> {
        let indices: &'static [u8] = match self {
            Wheel::SingleZero => &SINGLE_ZERO_ORDER,
            Wheel::DoubleZero | Wheel::DoubleZeroAsSingleZero | Wheel::DoubleZeroCovered => &DOUBLE_ZERO_ORDER,
            Wheel::TripleZero => &TRIPLE_ZERO_ORDER,
        };
        indices.iter().filter_map(|&i| Pocket::from_index(usize::from(i)))
    }

    /// Every pocket on the physical wheel.
    pub fn pockets(self) -> PocketSet {
        self.order().fold(PocketSet::EMPTY, PocketSet::with)
    }

    /// The pockets a bet may cover: all of them but 00 on a double-zero wheel
    /// used as a single-zero one.
    pub fn bettable(self) -> PocketSet {
        match self {
            Wheel::DoubleZeroAsSingleZero | Wheel::DoubleZeroCovered => {
                PocketSet::numbers_where(|_| true).with(Pocket::ZERO)
            }
            _ => self.pockets(),
        }
    }

    /// A ball in this pocket voids the spin, and the wheel is spun again
    /// (Colorado 2210(2)(c)(ii)(B), Maryland ch.4 C(2)).
    pub fn voids_spin(self, pocket: Pocket) -> bool {
        self.used_as_single_zero() && pocket == Pocket::DOUBLE_ZERO
    }

    /// A double-zero wheel used as a single-zero one, on either felt.
    pub fn used_as_single_zero(self) -> bool {
        matches!(self, Wheel::DoubleZeroAsSingleZero | Wheel::DoubleZeroCovered)
    }

    /// The number of equally likely outcomes of a valid spin: void spins are
    /// spun again, so they are not outcomes.
    pub fn outcome_count(self) -> u32 {
        self.bettable().len()
    }

    /// The zero pockets a valid spin can end in.
    pub fn zeros(self) -> PocketSet {
        self.bettable()
            .iter()
            .filter(|p| p.is_zero())
            .fold(PocketSet::EMPTY, PocketSet::with)
    }

    pub fn layout(self) -> Layout {
        match self {
            // Maryland ch.1 F: the wheel and layout are used as a single-zero
            // wheel and single-zero layout, the 00 box covered.
            Wheel::SingleZero | Wheel::DoubleZeroAsSingleZero => Layout::SingleZero,
            Wheel::DoubleZero => Layout::DoubleZero,
            Wheel::TripleZero => Layout::TripleZero,
            Wheel::DoubleZeroCovered => Layout::DoubleZeroCovered,
        }
    }

    /// The centre pocket and its two neighbours on each side, in wheel order.
    pub fn five_adjacent(self, centre: Pocket) -> Option<[Pocket; 5]> {
        let order: Vec<Pocket> = self.order().collect();
        let at = order.iter().position(|&p| p == centre)?;
        let n = order.len();
        let around = |offset: usize| order[(at + n + offset - 2) % n];
        Some([around(0), around(1), around(2), around(3), around(4)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pocket::Colour;

    #[test]
    fn pocket_counts() {
        // Colorado 2210(2)(a)-(b); Maryland ch.1 C, D, E.
        assert_eq!(Wheel::SingleZero.pockets().len(), 37);
        assert_eq!(Wheel::DoubleZero.pockets().len(), 38);
        assert_eq!(Wheel::TripleZero.pockets().len(), 39);
        assert_eq!(Wheel::DoubleZeroAsSingleZero.pockets().len(), 38);
        assert_eq!(Wheel::DoubleZeroAsSingleZero.outcome_count(), 37);
        // Maryland ch.1 F: the same wheel on the double-zero felt, 00 covered.
        assert_eq!(Wheel::DoubleZeroCovered.pockets().len(), 38);
        assert_eq!(Wheel::DoubleZeroCovered.outcome_count(), 37);
        assert!(Wheel::DoubleZeroCovered.voids_spin(Pocket::DOUBLE_ZERO));
    }

    #[test]
    fn every_pocket_appears_once_in_the_order() {
        for wheel in ALL_WHEELS {
            let order: Vec<Pocket> = wheel.order().collect();
            assert_eq!(order.len() as u32, wheel.pockets().len(), "{wheel:?}");
        }
    }

    #[test]
    fn numbers_alternate_red_and_black_around_the_wheel() {
        // Maryland ch.1 C(1)(b), D(1)(c), E(1)(d): "colored alternately red and black".
        for wheel in ALL_WHEELS {
            let numbers: Vec<Colour> = wheel.order().filter(|p| !p.is_zero()).map(Pocket::colour).collect();
            // Alternation holds within each run of numbers between zeros.
            let order: Vec<Pocket> = wheel.order().collect();
            for pair in order.windows(2) {
                if !pair[0].is_zero() && !pair[1].is_zero() {
                    assert_ne!(pair[0].colour(), pair[1].colour(), "{wheel:?} {pair:?}");
                }
            }
            assert_eq!(numbers.len(), 36);
        }
    }

    #[test]
    fn maryland_orders_start_where_the_rule_says() {
        // Maryland ch.1 C(2): 0; 32; 15; ... 3; 26.
        let single: Vec<&str> = Wheel::SingleZero.order().map(Pocket::label).collect();
        assert_eq!(&single[..4], ["0", "32", "15", "19"]);
        assert_eq!(single[36], "26");
        // Maryland ch.1 D(2): 0; 28; 9; ... 1; 00; 27; ... 14; 2.
        let double: Vec<&str> = Wheel::DoubleZero.order().map(Pocket::label).collect();
        assert_eq!(&double[17..21], ["13", "1", "00", "27"]);
        assert_eq!(double[37], "2");
        // Maryland ch.1 E(2): 000; 00; 32; ... 26; 0.
        let triple: Vec<&str> = Wheel::TripleZero.order().map(Pocket::label).collect();
        assert_eq!(&triple[..3], ["000", "00", "32"]);
        assert_eq!(triple[38], "0");
    }

    #[test]
    fn only_00_voids_and_only_on_the_covered_wheel() {
        // Colorado 2210(2)(c)(ii)(B); Maryland ch.4 C(2).
        assert!(Wheel::DoubleZeroAsSingleZero.voids_spin(Pocket::DOUBLE_ZERO));
        assert!(!Wheel::DoubleZero.voids_spin(Pocket::DOUBLE_ZERO));
        assert!(!Wheel::DoubleZeroAsSingleZero.voids_spin(Pocket::ZERO));
        assert!(!Wheel::DoubleZeroAsSingleZero.bettable().contains(Pocket::DOUBLE_ZERO));
    }

    #[test]
    fn five_adjacent_wraps_around() {
        let p = |s| Pocket::parse(s).expect("label");
        let n = Wheel::SingleZero.five_adjacent(p("0")).expect("on wheel");
        assert_eq!(n.map(Pocket::label), ["3", "26", "0", "32", "15"]);
        let n = Wheel::DoubleZero.five_adjacent(p("1")).expect("on wheel");
        assert_eq!(n.map(Pocket::label), ["36", "13", "1", "00", "27"]);
        assert!(Wheel::SingleZero.five_adjacent(p("00")).is_none());
    }
}
