//! Pockets: the compartments of a wheel where the ball comes to rest.

use std::fmt;

/// Every pocket any wheel can have: 0, 1..=36, 00 and 000.
pub const POCKET_COUNT_MAX: usize = 39;

/// The numbers the documents colour red (Colorado 2201(2), Maryland ch.1 C-E);
/// the other numbers 1..=36 are black and every zero is green.
const RED_NUMBERS: [u8; 18] = [1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36];

/// A set of pockets as one bit per pocket index. A spot covers a `PocketSet`;
/// settling a bet is one AND.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct PocketSet(u64);

/// A pocket, stored as a small index: 0 for "0", 1..=36 for the numbers,
/// 37 for "00" and 38 for "000". Constructed only through checked paths.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct Pocket(u8);

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Colour {
    Red,
    Black,
    Green,
}

impl Pocket {
    pub const ZERO: Pocket = Pocket(0);
    pub const DOUBLE_ZERO: Pocket = Pocket(37);
    pub const TRIPLE_ZERO: Pocket = Pocket(38);

    /// The pocket for a number 1..=36.
    pub fn number(n: u8) -> Option<Pocket> {
        (1..=36).contains(&n).then_some(Pocket(n))
    }

    /// The pocket with this index (see the type's documentation).
    pub fn from_index(index: usize) -> Option<Pocket> {
        (index < POCKET_COUNT_MAX).then_some(Pocket(index as u8))
    }

    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// Parses a pocket label: "0", "00", "000" or "1".."36", nothing else
    /// ("07", "37" and "+1" are refused).
    pub fn parse(label: &str) -> Option<Pocket> {
        match label {
            "0" => Some(Pocket::ZERO),
            "00" => Some(Pocket::DOUBLE_ZERO),
            "000" => Some(Pocket::TRIPLE_ZERO),
            _ => {
                let bytes = label.as_bytes();
                let well_formed =
                    !bytes.is_empty() && bytes.len() <= 2 && bytes[0] != b'0' && bytes.iter().all(u8::is_ascii_digit);
                if !well_formed {
                    return None;
                }
                label.parse::<u8>().ok().and_then(Pocket::number)
            }
        }
    }

    /// The number 1..=36 on this pocket, or `None` for a zero.
    pub fn as_number(self) -> Option<u8> {
        (1..=36).contains(&self.0).then_some(self.0)
    }

    pub fn is_zero(self) -> bool {
        self.as_number().is_none()
    }

    pub fn colour(self) -> Colour {
        match self.as_number() {
            None => Colour::Green,
            Some(n) if RED_NUMBERS.contains(&n) => Colour::Red,
            Some(_) => Colour::Black,
        }
    }

    pub fn label(self) -> &'static str {
        const LABELS: [&str; POCKET_COUNT_MAX] = [
            "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17", "18",
            "19", "20", "21", "22", "23", "24", "25", "26", "27", "28", "29", "30", "31", "32", "33", "34", "35", "36",
            "00", "000",
        ];
        LABELS[self.index()]
    }

    /// Order used when a set of pockets is written out: zeros first (0, 00,
    /// 000), then the numbers ascending.
    fn display_rank(self) -> u8 {
        match self.0 {
            0 => 0,
            37 => 1,
            38 => 2,
            n => n + 2,
        }
    }
}

impl fmt::Display for Pocket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

impl fmt::Debug for Pocket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pocket({})", self.label())
    }
}

impl PocketSet {
    pub const EMPTY: PocketSet = PocketSet(0);

    pub fn of(pockets: &[Pocket]) -> PocketSet {
        pockets.iter().fold(PocketSet::EMPTY, |set, &p| set.with(p))
    }

    /// The numbers 1..=36 for which `keep` holds.
    pub fn numbers_where(keep: impl Fn(u8) -> bool) -> PocketSet {
        (1..=36u8)
            .filter(|&n| keep(n))
            .fold(PocketSet::EMPTY, |set, n| set.with(Pocket(n)))
    }

    pub fn with(self, pocket: Pocket) -> PocketSet {
        PocketSet(self.0 | 1 << pocket.0)
    }

    pub fn contains(self, pocket: Pocket) -> bool {
        self.0 >> pocket.0 & 1 == 1
    }

    pub fn union(self, other: PocketSet) -> PocketSet {
        PocketSet(self.0 | other.0)
    }

    pub fn intersection(self, other: PocketSet) -> PocketSet {
        PocketSet(self.0 & other.0)
    }

    pub fn is_subset_of(self, other: PocketSet) -> bool {
        self.0 & !other.0 == 0
    }

    pub fn len(self) -> u32 {
        self.0.count_ones()
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn bits(self) -> u64 {
        self.0
    }

    pub fn iter(self) -> impl Iterator<Item = Pocket> {
        (0..POCKET_COUNT_MAX as u8)
            .filter(move |&i| self.0 >> i & 1 == 1)
            .map(Pocket)
    }

    /// The set written as spot notation: labels joined by `-`, zeros first.
    pub fn notation(self) -> String {
        let mut pockets: Vec<Pocket> = self.iter().collect();
        pockets.sort_by_key(|p| p.display_rank());
        pockets.iter().map(|p| p.label()).collect::<Vec<_>>().join("-")
    }
}

impl fmt::Debug for PocketSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{{}}}", self.notation())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_round_trip_and_nothing_else_parses() {
        for i in 0..POCKET_COUNT_MAX {
            let p = Pocket::from_index(i).expect("index in range");
            assert_eq!(Pocket::parse(p.label()), Some(p));
        }
        for bad in ["", "37", "07", "-1", "+1", "0000", "x", " 1", "100"] {
            assert_eq!(Pocket::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn eighteen_red_eighteen_black_zeros_green() {
        // Colorado 2201(2): 1-36 alternate red and black; zero and double zero are green.
        let all: Vec<Pocket> = (0..POCKET_COUNT_MAX).filter_map(Pocket::from_index).collect();
        let count = |c: Colour| all.iter().filter(|p| p.colour() == c).count();
        assert_eq!(count(Colour::Red), 18);
        assert_eq!(count(Colour::Black), 18);
        assert_eq!(count(Colour::Green), 3);
        assert_eq!(Pocket::TRIPLE_ZERO.colour(), Colour::Green);
    }
}
