//! Spots: where a bet is placed, written in spot notation, and the layout
//! geometry that decides which spots exist.

use std::fmt;
use std::sync::OnceLock;

use crate::pocket::{Colour, Pocket, PocketSet};
use crate::wheel::{Layout, Wheel};

/// The kinds of bet. Their names are the words used in output, profiles and
/// the API alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum Kind {
    Straight,
    Split,
    Street,
    Trio,
    Corner,
    FirstFour,
    FirstFive,
    SixLine,
    Column,
    Dozen,
    Red,
    Black,
    Odd,
    Even,
    Low,
    High,
    Green,
    Neighbours,
    Complete,
}

pub const KIND_COUNT: usize = 19;

pub const ALL_KINDS: [Kind; KIND_COUNT] = [
    Kind::Straight,
    Kind::Split,
    Kind::Street,
    Kind::Trio,
    Kind::Corner,
    Kind::FirstFour,
    Kind::FirstFive,
    Kind::SixLine,
    Kind::Column,
    Kind::Dozen,
    Kind::Red,
    Kind::Black,
    Kind::Odd,
    Kind::Even,
    Kind::Low,
    Kind::High,
    Kind::Green,
    Kind::Neighbours,
    Kind::Complete,
];

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Straight => "straight",
            Kind::Split => "split",
            Kind::Street => "street",
            Kind::Trio => "trio",
            Kind::Corner => "corner",
            Kind::FirstFour => "first_four",
            Kind::FirstFive => "first_five",
            Kind::SixLine => "six_line",
            Kind::Column => "column",
            Kind::Dozen => "dozen",
            Kind::Red => "red",
            Kind::Black => "black",
            Kind::Odd => "odd",
            Kind::Even => "even",
            Kind::Low => "low",
            Kind::High => "high",
            Kind::Green => "green",
            Kind::Neighbours => "neighbours",
            Kind::Complete => "complete",
        }
    }

    pub fn parse(name: &str) -> Option<Kind> {
        ALL_KINDS.into_iter().find(|k| k.name() == name)
    }

    pub fn index(self) -> usize {
        self as usize
    }

    /// Bets on the numbers themselves (Colorado 2201(6)).
    pub fn is_inside(self) -> bool {
        matches!(
            self,
            Kind::Straight
                | Kind::Split
                | Kind::Street
                | Kind::Trio
                | Kind::Corner
                | Kind::FirstFour
                | Kind::FirstFive
                | Kind::SixLine
        )
    }

    /// The even-money bets that lose on zero and that In Prison applies to
    /// (Colorado 2204(2); Maryland ch.4 B).
    pub fn is_even_money(self) -> bool {
        matches!(
            self,
            Kind::Red | Kind::Black | Kind::Odd | Kind::Even | Kind::Low | Kind::High
        )
    }

    /// A bet that stands for several bets of other kinds and is paid by
    /// theirs: five adjacent straights (Maryland ch.3 F(1)(c)) or a complete bet.
    pub fn is_composite(self) -> bool {
        matches!(self, Kind::Neighbours | Kind::Complete)
    }

    /// A sentence naming the bet for posted rules.
    pub fn description(self) -> &'static str {
        match self {
            Kind::Straight => "Straight: one number",
            Kind::Split => "Split: two adjacent numbers",
            Kind::Street => "Street (three numbers): one row of three",
            Kind::Trio => "Three numbers with a zero",
            Kind::Corner => "Corner (four numbers)",
            Kind::FirstFour => "First four: 0, 1, 2, 3",
            Kind::FirstFive => "First five: 0, 00, 1, 2, 3",
            Kind::SixLine => "Six line (six numbers): two adjacent rows",
            Kind::Column => "Column: twelve numbers",
            Kind::Dozen => "Dozen: 1-12, 13-24 or 25-36",
            Kind::Red => "Red",
            Kind::Black => "Black",
            Kind::Odd => "Odd",
            Kind::Even => "Even",
            Kind::Low => "1 to 18 (low)",
            Kind::High => "19 to 36 (high)",
            Kind::Green => "Green: every zero",
            Kind::Neighbours => "Five adjacent numbers on the wheel: five equal straights",
            Kind::Complete => "Complete: every inside bet containing a number, one unit per number covered",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A spot: a legal place on the layout of one wheel. Constructed only by
/// [`Spot::parse`] or the layout tables, so a `Spot` is always legal for the
/// wheel it was parsed for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Spot {
    kind: Kind,
    covers: PocketSet,
    /// The centre number of a neighbours or complete bet.
    centre: Option<Pocket>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpotError {
    #[error("empty spot")]
    Empty,
    #[error("{0:?} is not a pocket (pockets are 0, 00, 000 and 1 to 36)")]
    UnknownPocket(String),
    #[error("{0:?} is not a spot: use pocket labels joined by '-', or red, black, odd, even, low, high, dozen1-3, column1-3, green, neighbours:N, complete:N")]
    Unknown(String),
    #[error("pocket {0} is named twice")]
    Repeated(Pocket),
    #[error("pocket {pocket} is not on the {wheel}", wheel = .wheel.description())]
    PocketNotOnWheel { pocket: Pocket, wheel: Wheel },
    #[error("{notation} is not a bet on the {layout} layout: those pockets do not share a line, corner or row")]
    NotOnLayout { notation: String, layout: &'static str },
    #[error("the green wager covers the zeros of a triple-zero wheel only (Maryland ch.3 F(11))")]
    GreenNeedsTripleZero,
    #[error("the five numbers around {centre} on the {wheel} include {blocked}, which cannot be bet", wheel = .wheel.name())]
    NeighbourNotBettable {
        centre: Pocket,
        blocked: Pocket,
        wheel: Wheel,
    },
    #[error(
        "complete:{0} is not offered: a Complete Wager is made on one number, complete:N (Maryland ch.3 F(19)); \
         its \"dozen section\" is read as where the marker for a number of that dozen may sit, not a wager of its own"
    )]
    CompleteDozenSection(String),
}

fn numbers(list: &[u8]) -> PocketSet {
    list.iter()
        .filter_map(|&n| Pocket::number(n))
        .fold(PocketSet::EMPTY, PocketSet::with)
}

/// Every inside spot the layout has, with its kind. The 1-36 grid has twelve
/// rows of three (row r holds 3r+1, 3r+2, 3r+3) and three columns; the zero
/// boxes sit above the first row.
pub fn inside_spots(layout: Layout) -> &'static [(Kind, PocketSet)] {
    static SINGLE: OnceLock<Vec<(Kind, PocketSet)>> = OnceLock::new();
    static DOUBLE: OnceLock<Vec<(Kind, PocketSet)>> = OnceLock::new();
    static TRIPLE: OnceLock<Vec<(Kind, PocketSet)>> = OnceLock::new();
    static COVERED: OnceLock<Vec<(Kind, PocketSet)>> = OnceLock::new();
    let cell = match layout {
        Layout::SingleZero => &SINGLE,
        Layout::DoubleZero => &DOUBLE,
        Layout::TripleZero => &TRIPLE,
        Layout::DoubleZeroCovered => &COVERED,
    };
    cell.get_or_init(|| build_inside_spots(layout))
}

fn build_inside_spots(layout: Layout) -> Vec<(Kind, PocketSet)> {
    let zero = PocketSet::EMPTY.with(Pocket::ZERO);
    let dz = PocketSet::EMPTY.with(Pocket::DOUBLE_ZERO);
    let tz = PocketSet::EMPTY.with(Pocket::TRIPLE_ZERO);
    let mut spots = Vec::new();

    // Straights: every pocket of the layout.
    spots.push((Kind::Straight, zero));
    for n in 1..=36 {
        spots.push((Kind::Straight, numbers(&[n])));
    }
    if matches!(layout, Layout::DoubleZero | Layout::TripleZero) {
        spots.push((Kind::Straight, dz));
    }
    if layout == Layout::TripleZero {
        spots.push((Kind::Straight, tz));
    }

    // Splits within the grid: side by side in a row, or one above the other.
    for n in 1..=36u8 {
        if n % 3 != 0 {
            spots.push((Kind::Split, numbers(&[n, n + 1])));
        }
        if n <= 33 {
            spots.push((Kind::Split, numbers(&[n, n + 3])));
        }
    }
    // Streets: one row.
    for r in 0..12u8 {
        spots.push((Kind::Street, numbers(&[3 * r + 1, 3 * r + 2, 3 * r + 3])));
    }
    // Corners: four boxes meeting at a point.
    for n in 1..=32u8 {
        if n % 3 != 0 {
            spots.push((Kind::Corner, numbers(&[n, n + 1, n + 3, n + 4])));
        }
    }
    // Six lines: two adjacent rows, first six (1-6) to last six (31-36).
    for r in 0..11u8 {
        spots.push((
            Kind::SixLine,
            numbers(&[3 * r + 1, 3 * r + 2, 3 * r + 3, 3 * r + 4, 3 * r + 5, 3 * r + 6]),
        ));
    }

    // The zero boxes and the lines and corners they share with the first row.
    match layout {
        Layout::SingleZero => {
            for n in [1, 2, 3] {
                spots.push((Kind::Split, zero.union(numbers(&[n]))));
            }
            spots.push((Kind::Trio, zero.union(numbers(&[1, 2]))));
            spots.push((Kind::Trio, zero.union(numbers(&[2, 3]))));
            spots.push((Kind::FirstFour, zero.union(numbers(&[1, 2, 3]))));
        }
        Layout::DoubleZeroCovered => {
            // Maryland ch.1 F(1): the 00 box is covered, so only what the
            // 0 box touches is left: 0-1, 0-2 and 0-1-2.
            spots.push((Kind::Split, zero.union(numbers(&[1]))));
            spots.push((Kind::Split, zero.union(numbers(&[2]))));
            spots.push((Kind::Trio, zero.union(numbers(&[1, 2]))));
        }
        Layout::DoubleZero | Layout::TripleZero => {
            spots.push((Kind::Split, zero.union(dz)));
            spots.push((Kind::Split, zero.union(numbers(&[1]))));
            spots.push((Kind::Split, zero.union(numbers(&[2]))));
            spots.push((Kind::Split, dz.union(numbers(&[2]))));
            spots.push((Kind::Split, dz.union(numbers(&[3]))));
            spots.push((Kind::Trio, zero.union(numbers(&[1, 2]))));
            spots.push((Kind::Trio, zero.union(dz).union(numbers(&[2]))));
            spots.push((Kind::Trio, dz.union(numbers(&[2, 3]))));
            if layout == Layout::DoubleZero {
                // Colorado 2203(6)(e), Maryland ch.3 F(5): the corner of 0, 1 and "1st 12".
                spots.push((Kind::FirstFive, zero.union(dz).union(numbers(&[1, 2, 3]))));
            }
        }
    }
    spots
}

/// The pockets an outside spot covers on a wheel.
fn outside_covers(kind: Kind, group: u8, wheel: Wheel) -> PocketSet {
    match kind {
        Kind::Column => PocketSet::numbers_where(|n| (n - 1) % 3 + 1 == group),
        Kind::Dozen => PocketSet::numbers_where(|n| (n - 1) / 12 + 1 == group),
        Kind::Red => PocketSet::numbers_where(|n| Pocket::number(n).map(Pocket::colour) == Some(Colour::Red)),
        Kind::Black => PocketSet::numbers_where(|n| Pocket::number(n).map(Pocket::colour) == Some(Colour::Black)),
        Kind::Odd => PocketSet::numbers_where(|n| n % 2 == 1),
        Kind::Even => PocketSet::numbers_where(|n| n % 2 == 0),
        Kind::Low => PocketSet::numbers_where(|n| n <= 18),
        Kind::High => PocketSet::numbers_where(|n| n >= 19),
        Kind::Green => wheel.zeros(),
        _ => PocketSet::EMPTY,
    }
}

impl Spot {
    /// Parses spot notation for a wheel, refusing anything the wheel's layout
    /// cannot hold. Whether a profile offers the spot is checked elsewhere.
    pub fn parse(text: &str, wheel: Wheel) -> Result<Spot, SpotError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(SpotError::Empty);
        }
        if let Some(spot) = Spot::parse_outside(text, wheel)? {
            return Ok(spot);
        }
        if let Some(centre) = text.strip_prefix("neighbours:") {
            let centre = Spot::parse_pocket(centre, wheel)?;
            let five = wheel
                .five_adjacent(centre)
                .ok_or(SpotError::PocketNotOnWheel { pocket: centre, wheel })?;
            if let Some(&blocked) = five.iter().find(|&&p| !wheel.bettable().contains(p)) {
                return Err(SpotError::NeighbourNotBettable { centre, blocked, wheel });
            }
            return Ok(Spot {
                kind: Kind::Neighbours,
                covers: PocketSet::of(&five),
                centre: Some(centre),
            });
        }
        if let Some(number) = text.strip_prefix("complete:") {
            if number.starts_with("dozen") {
                return Err(SpotError::CompleteDozenSection(number.to_string()));
            }
            let centre = Spot::parse_pocket(number, wheel)?;
            let covers = inside_spots(wheel.layout())
                .iter()
                .filter(|(_, set)| set.contains(centre))
                .fold(PocketSet::EMPTY, |all, (_, set)| all.union(*set));
            return Ok(Spot {
                kind: Kind::Complete,
                covers,
                centre: Some(centre),
            });
        }
        let mut covers = PocketSet::EMPTY;
        for label in text.split('-') {
            let pocket = Spot::parse_pocket(label, wheel).map_err(|e| match e {
                SpotError::UnknownPocket(_) if !text.contains('-') => SpotError::Unknown(text.to_string()),
                other => other,
            })?;
            if covers.contains(pocket) {
                return Err(SpotError::Repeated(pocket));
            }
            covers = covers.with(pocket);
        }
        inside_spots(wheel.layout())
            .iter()
            .find(|(_, set)| *set == covers)
            .map(|&(kind, covers)| Spot {
                kind,
                covers,
                centre: None,
            })
            .ok_or_else(|| SpotError::NotOnLayout {
                notation: covers.notation(),
                layout: wheel.layout().name(),
            })
    }

    fn parse_pocket(label: &str, wheel: Wheel) -> Result<Pocket, SpotError> {
        let pocket = Pocket::parse(label.trim()).ok_or_else(|| SpotError::UnknownPocket(label.to_string()))?;
        if !wheel.bettable().contains(pocket) {
            return Err(SpotError::PocketNotOnWheel { pocket, wheel });
        }
        Ok(pocket)
    }

    fn parse_outside(text: &str, wheel: Wheel) -> Result<Option<Spot>, SpotError> {
        let (kind, group) = match text {
            "red" => (Kind::Red, 0),
            "black" => (Kind::Black, 0),
            "odd" => (Kind::Odd, 0),
            "even" => (Kind::Even, 0),
            "low" => (Kind::Low, 0),
            "high" => (Kind::High, 0),
            "green" => (Kind::Green, 0),
            "dozen1" => (Kind::Dozen, 1),
            "dozen2" => (Kind::Dozen, 2),
            "dozen3" => (Kind::Dozen, 3),
            "column1" => (Kind::Column, 1),
            "column2" => (Kind::Column, 2),
            "column3" => (Kind::Column, 3),
            _ => return Ok(None),
        };
        if kind == Kind::Green && wheel != Wheel::TripleZero {
            return Err(SpotError::GreenNeedsTripleZero);
        }
        Ok(Some(Spot {
            kind,
            covers: outside_covers(kind, group, wheel),
            centre: None,
        }))
    }

    pub fn kind(self) -> Kind {
        self.kind
    }

    /// Every pocket on which some part of the bet wins.
    pub fn covers(self) -> PocketSet {
        self.covers
    }

    pub fn centre(self) -> Option<Pocket> {
        self.centre
    }

    /// The spot in canonical notation.
    pub fn notation(self) -> String {
        match (self.kind, self.centre) {
            (Kind::Neighbours, Some(c)) => format!("neighbours:{c}"),
            (Kind::Complete, Some(c)) => format!("complete:{c}"),
            (kind, _) if kind.is_inside() => self.covers.notation(),
            (Kind::Dozen | Kind::Column, _) => {
                let lowest = self.covers.iter().next().and_then(Pocket::as_number).unwrap_or(1);
                let group = if self.kind == Kind::Dozen {
                    (lowest - 1) / 12 + 1
                } else {
                    lowest
                };
                format!("{}{group}", self.kind.name())
            }
            (kind, _) => kind.name().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind_of(text: &str, wheel: Wheel) -> Result<Kind, SpotError> {
        Spot::parse(text, wheel).map(Spot::kind)
    }

    #[test]
    fn layout_spot_counts() {
        let count = |layout, kind| inside_spots(layout).iter().filter(|(k, _)| *k == kind).count();
        for layout in [Layout::SingleZero, Layout::DoubleZero, Layout::TripleZero] {
            assert_eq!(count(layout, Kind::Street), 12);
            assert_eq!(count(layout, Kind::Corner), 22);
            assert_eq!(count(layout, Kind::SixLine), 11);
        }
        // 57 splits inside the grid, plus the zero splits.
        assert_eq!(count(Layout::SingleZero, Kind::Split), 57 + 3);
        assert_eq!(count(Layout::DoubleZero, Kind::Split), 57 + 5);
        assert_eq!(count(Layout::SingleZero, Kind::Straight), 37);
        assert_eq!(count(Layout::DoubleZero, Kind::Straight), 38);
        assert_eq!(count(Layout::TripleZero, Kind::Straight), 39);
        assert_eq!(count(Layout::DoubleZero, Kind::FirstFive), 1);
        assert_eq!(count(Layout::TripleZero, Kind::FirstFive), 0);
        assert_eq!(count(Layout::SingleZero, Kind::FirstFour), 1);
    }

    #[test]
    fn split_of_1_and_36_is_refused() {
        assert!(matches!(
            Spot::parse("1-36", Wheel::SingleZero),
            Err(SpotError::NotOnLayout { .. })
        ));
    }

    #[test]
    fn notation_in_any_order() {
        assert_eq!(kind_of("18-17", Wheel::SingleZero), Ok(Kind::Split));
        assert_eq!(kind_of("21-17-20-18", Wheel::SingleZero), Ok(Kind::Corner));
        assert_eq!(kind_of("00-0", Wheel::DoubleZero), Ok(Kind::Split));
        assert_eq!(kind_of("3-1-00-2-0", Wheel::DoubleZero), Ok(Kind::FirstFive));
    }

    #[test]
    fn zero_spots_per_layout() {
        let count = |layout, kind| inside_spots(layout).iter().filter(|(k, _)| *k == kind).count();
        // Colorado 2203(6)(c)(i), Maryland ch.3 F(3)(a): 0-1-2, 0-2-00, 00-2-3.
        for trio in ["0-1-2", "0-2-00", "00-2-3"] {
            assert_eq!(kind_of(trio, Wheel::DoubleZero), Ok(Kind::Trio), "{trio}");
        }
        assert_eq!(kind_of("0-2-3", Wheel::SingleZero), Ok(Kind::Trio));
        assert!(kind_of("0-2-3", Wheel::DoubleZero).is_err());
        // european-casino glossary: FIRST FOUR, 0, 1, 2 and 3.
        assert_eq!(kind_of("0-1-2-3", Wheel::SingleZero), Ok(Kind::FirstFour));
        assert!(kind_of("0-1-2-3", Wheel::DoubleZero).is_err());
        // Maryland ch.1 F(1): the 00 box is covered on a double-zero wheel used as single zero.
        assert!(matches!(
            Spot::parse("00", Wheel::DoubleZeroAsSingleZero),
            Err(SpotError::PocketNotOnWheel { .. })
        ));
        assert!(kind_of("0-00", Wheel::DoubleZeroAsSingleZero).is_err());
        assert_eq!(kind_of("0-1-2-3", Wheel::DoubleZeroAsSingleZero), Ok(Kind::FirstFour));
        // Maryland ch.1 F(1), Colorado 2210(2)(c)(i): the double-zero felt
        // with 00 covered has 0-1, 0-2 and 0-1-2, and nothing else at 0.
        let covered = Wheel::DoubleZeroCovered;
        for (spot, kind) in [
            ("0", Kind::Straight),
            ("0-1", Kind::Split),
            ("0-2", Kind::Split),
            ("0-1-2", Kind::Trio),
        ] {
            assert_eq!(kind_of(spot, covered), Ok(kind), "{spot}");
        }
        for spot in [
            "00",
            "0-00",
            "0-3",
            "0-2-3",
            "0-1-2-3",
            "0-00-1-2-3",
            "00-2-3",
            "0-2-00",
        ] {
            assert!(kind_of(spot, covered).is_err(), "{spot}");
        }
        assert_eq!(count(Layout::DoubleZeroCovered, Kind::Split), 57 + 2);
        assert_eq!(count(Layout::DoubleZeroCovered, Kind::Straight), 37);
        assert_eq!(kind_of("000", Wheel::TripleZero), Ok(Kind::Straight));
        assert!(kind_of("000", Wheel::DoubleZero).is_err());
    }

    #[test]
    fn outside_spots() {
        let covers = |t| Spot::parse(t, Wheel::DoubleZero).map(|s| s.covers().len());
        for t in ["red", "black", "odd", "even", "low", "high"] {
            assert_eq!(covers(t), Ok(18), "{t}");
        }
        for t in ["dozen1", "dozen2", "dozen3", "column1", "column2", "column3"] {
            assert_eq!(covers(t), Ok(12), "{t}");
        }
        let column1 = Spot::parse("column1", Wheel::SingleZero).expect("column1");
        assert!(column1.covers().contains(Pocket::number(34).expect("34")));
        assert!(column1.covers().contains(Pocket::number(4).expect("4")));
        // Maryland ch.3 F(11): green on triple zero covers 0, 00 and 000.
        assert_eq!(Spot::parse("green", Wheel::TripleZero).map(|s| s.covers().len()), Ok(3));
        assert_eq!(
            Spot::parse("green", Wheel::DoubleZero),
            Err(SpotError::GreenNeedsTripleZero)
        );
        assert!(Spot::parse("dozen4", Wheel::SingleZero).is_err());
    }

    #[test]
    fn canonical_notation() {
        for (text, canonical) in [
            ("18-17", "17-18"),
            ("2-00-0", "0-00-2"),
            ("dozen2", "dozen2"),
            ("column3", "column3"),
            ("neighbours:17", "neighbours:17"),
            ("red", "red"),
        ] {
            let spot = Spot::parse(text, Wheel::DoubleZero).expect(text);
            assert_eq!(spot.notation(), canonical);
            assert_eq!(Spot::parse(&spot.notation(), Wheel::DoubleZero), Ok(spot));
        }
    }

    #[test]
    fn neighbours_spot() {
        // Maryland ch.3 F(1)(a)-(c): five adjacent numbers on the wheel.
        let spot = Spot::parse("neighbours:17", Wheel::SingleZero).expect("neighbours");
        assert_eq!(spot.covers().notation(), "2-6-17-25-34");
        // 00 is adjacent to 1 on the double-zero wheel and cannot be bet when it is used as single zero.
        assert!(matches!(
            Spot::parse("neighbours:1", Wheel::DoubleZeroAsSingleZero),
            Err(SpotError::NeighbourNotBettable { .. })
        ));
    }

    #[test]
    fn bad_notation() {
        assert_eq!(Spot::parse("", Wheel::SingleZero), Err(SpotError::Empty));
        assert!(matches!(
            Spot::parse("purple", Wheel::SingleZero),
            Err(SpotError::Unknown(_))
        ));
        assert!(matches!(
            Spot::parse("17-37", Wheel::SingleZero),
            Err(SpotError::UnknownPocket(_))
        ));
        assert_eq!(
            Spot::parse("17-17", Wheel::SingleZero),
            Err(SpotError::Repeated(Pocket::number(17).expect("17")))
        );
    }
}
