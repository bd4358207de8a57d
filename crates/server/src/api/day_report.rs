//! The back office's report of a gaming day for the whole casino
//! (`GET /api/reports/day`): every table's books of the day, the casino's
//! totals (the sums of the tables'), and each dealer's share. Every money
//! figure is a sum of the ledger's transfers, in minor units; as CSV the
//! same figures are decimal money strings.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
// A CSV field of text (a name, a table, a profile): quoted where it must be,
// and led by `'` where a spreadsheet would compute it (a dealer named `-2-3`
// would read as -5), as the tournament forms write theirs.
use croupier_profiles::tournament::csv_field as field;

/// A table's, or the casino's, figures of a gaming day.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct DayFigures {
    /// What was exchanged for colour chips: cash into the drop box and chips bought from wallets.
    pub drop: u64,
    pub drop_cash: u64,
    pub drop_wallet: u64,
    /// The house's money into the floats, and the floats' back to the house.
    pub fills: u64,
    pub credits: u64,
    /// What play moved into the floats less what it paid out of them.
    pub win: i64,
    /// `win` over `drop`, in hundredths of a per cent (rounded toward zero); none without a drop.
    pub hold_basis_points: Option<i64>,
    /// Rounds played to a result.
    pub rounds: u64,
    /// Open play in milliseconds: measured between each table's journaled
    /// entries while it is open (the casino's: every table's summed).
    pub open_ms: u64,
    /// `rounds` per hour of `open_ms`, in hundredths (rounded toward zero); none without open play.
    pub rounds_per_hour_hundredths: Option<u64>,
}

impl DayFigures {
    /// Works out hold and rounds per hour from the sums.
    pub fn with_rates(mut self) -> DayFigures {
        self.hold_basis_points = hold(self.win, self.drop);
        self.rounds_per_hour_hundredths = pace(self.rounds, self.open_ms);
        self
    }

    /// Adds another table's sums (not its rates).
    pub fn add(&mut self, more: &DayFigures) {
        self.drop += more.drop;
        self.drop_cash += more.drop_cash;
        self.drop_wallet += more.drop_wallet;
        self.fills += more.fills;
        self.credits += more.credits;
        self.win += more.win;
        self.rounds += more.rounds;
        self.open_ms += more.open_ms;
    }
}

/// `win` over `drop` in hundredths of a per cent, rounded toward zero.
pub fn hold(win: i64, drop: u64) -> Option<i64> {
    (drop > 0).then(|| (i128::from(win) * 10_000 / i128::from(drop)) as i64)
}

/// A table's figures of the day.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct TableDay {
    pub table: String,
    pub profile: String,
    pub figures: DayFigures,
}

/// A dealer's share of the day, across every table they dealt at: what
/// moved and settled while they were on duty. The journal records no dealer
/// signing on, so the dealer on duty is the staff member who last opened the
/// table, opened or closed betting, keyed a spin or asked the RNG's draw;
/// `-` holds what moved before anyone had.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct DealerDay {
    pub dealer: String,
    /// The tables they were on duty at, in order.
    pub tables: Vec<String>,
    pub drop: u64,
    pub drop_cash: u64,
    pub drop_wallet: u64,
    pub win: i64,
    pub hold_basis_points: Option<i64>,
    pub rounds: u64,
    /// Open play while they were on duty, in milliseconds, and `rounds` per
    /// hour of it in hundredths (journal format 16: none before).
    #[serde(default)]
    pub open_ms: u64,
    #[serde(default)]
    pub rounds_per_hour_hundredths: Option<u64>,
    /// Into the dealers' tip box while they were on duty (journal format 16).
    #[serde(default)]
    pub tips: u64,
    /// Their shift: the first and last entries written while they were on
    /// duty (journal format 16; none before, and none for `-`).
    #[serde(default)]
    pub from_ms: Option<u64>,
    #[serde(default)]
    pub to_ms: Option<u64>,
}

impl DealerDay {
    /// Works out hold and rounds per hour from the sums.
    pub fn with_rates(mut self) -> DealerDay {
        self.hold_basis_points = hold(self.win, self.drop);
        self.rounds_per_hour_hundredths = pace(self.rounds, self.open_ms);
        self
    }

    /// Adds another share (the same dealer's at another table): its sums,
    /// and its shift's ends as the earliest and latest.
    pub fn add(&mut self, more: &DealerDay) {
        self.tables.extend(more.tables.iter().cloned());
        self.drop += more.drop;
        self.drop_cash += more.drop_cash;
        self.drop_wallet += more.drop_wallet;
        self.win += more.win;
        self.rounds += more.rounds;
        self.open_ms += more.open_ms;
        self.tips += more.tips;
        self.from_ms = self.from_ms.into_iter().chain(more.from_ms).min();
        self.to_ms = self.to_ms.into_iter().chain(more.to_ms).max();
    }
}

/// `rounds` per hour of `open_ms`, in hundredths, rounded toward zero; none without open play.
pub fn pace(rounds: u64, open_ms: u64) -> Option<u64> {
    (open_ms > 0).then(|| (u128::from(rounds) * 360_000_000 / u128::from(open_ms)) as u64)
}

/// The casino's gaming day.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct DayReport {
    /// The gaming day, `YYYY-MM-DD`.
    pub day: String,
    /// The casino's currency, once it has a table.
    pub currency: Option<String>,
    /// Each table that keeps the day's books, in id order.
    pub tables: Vec<TableDay>,
    /// The sums of the tables' figures; its rates from those sums.
    pub casino: DayFigures,
    /// Each dealer's share, by username; they sum to the casino's drop, win and rounds.
    pub dealers: Vec<DealerDay>,
}

/// Minor units as a decimal money string: `-12.30`.
pub fn decimal(minor: i128) -> String {
    let sign = if minor < 0 { "-" } else { "" };
    let abs = minor.unsigned_abs();
    format!("{sign}{}.{:02}", abs / 100, abs % 100)
}

/// The CSV's header row.
pub const CSV_HEADER: &str =
    "row,name,profile,drop,drop_cash,drop_wallet,fills,credits,win,hold_percent,rounds,open_hours,rounds_per_hour";

impl DayReport {
    /// The report as CSV: a header row, a row per table, the casino's row,
    /// then a row per dealer; money and rates as decimals, hours of open play
    /// in hundredths; a figure a row does not have is empty (a dealer's open
    /// play and rounds per hour where journal format 16 kept them).
    pub fn csv(&self) -> String {
        let hundredths = |n: Option<i64>| n.map(|n| decimal(i128::from(n))).unwrap_or_default();
        let figures_row = |row: &str, name: &str, profile: &str, f: &DayFigures| {
            [
                row.to_string(),
                field(name),
                field(profile),
                decimal(i128::from(f.drop)),
                decimal(i128::from(f.drop_cash)),
                decimal(i128::from(f.drop_wallet)),
                decimal(i128::from(f.fills)),
                decimal(i128::from(f.credits)),
                decimal(i128::from(f.win)),
                hundredths(f.hold_basis_points),
                f.rounds.to_string(),
                decimal(i128::from(f.open_ms / 36_000)),
                hundredths(f.rounds_per_hour_hundredths.map(|r| r as i64)),
            ]
            .join(",")
        };
        let mut lines = vec![CSV_HEADER.to_string()];
        for t in &self.tables {
            lines.push(figures_row("table", &t.table, &t.profile, &t.figures));
        }
        lines.push(figures_row("casino", "casino", "", &self.casino));
        for d in &self.dealers {
            lines.push(
                [
                    "dealer".to_string(),
                    field(&d.dealer),
                    field(&d.tables.join(" ")),
                    decimal(i128::from(d.drop)),
                    decimal(i128::from(d.drop_cash)),
                    decimal(i128::from(d.drop_wallet)),
                    String::new(),
                    String::new(),
                    decimal(i128::from(d.win)),
                    hundredths(d.hold_basis_points),
                    d.rounds.to_string(),
                    if d.open_ms > 0 {
                        decimal(i128::from(d.open_ms / 36_000))
                    } else {
                        String::new()
                    },
                    hundredths(d.rounds_per_hour_hundredths.map(|r| r as i64)),
                ]
                .join(","),
            );
        }
        let mut text = lines.join("\r\n");
        text.push_str("\r\n");
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_reads_as_decimals_with_two_places() {
        for (minor, text) in [
            (0, "0.00"),
            (5, "0.05"),
            (1_230, "12.30"),
            (-1_230, "-12.30"),
            (-7, "-0.07"),
        ] {
            assert_eq!(decimal(minor), text);
        }
    }

    #[test]
    fn a_csv_field_with_a_comma_or_quote_is_quoted() {
        assert_eq!(field("t1"), "t1");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }

    #[test]
    fn a_name_a_spreadsheet_would_take_for_a_formula_reads_as_written() {
        assert_eq!(field("-2-3"), "'-2-3");
        assert_eq!(field("=1+1"), "'=1+1");
        assert_eq!(field("@sum"), "'@sum");
        assert_eq!(field("+a,b"), "\"'+a,b\"");
        assert_eq!(field("dana"), "dana");
        // Money stays a number: only text fields are led by a quote.
        assert_eq!(decimal(-1_230), "-12.30");
    }

    #[test]
    fn rates_come_from_the_sums() {
        let f = DayFigures {
            drop: 3_000,
            win: -250,
            rounds: 3,
            open_ms: 2 * 3_600_000,
            ..DayFigures::default()
        }
        .with_rates();
        assert_eq!(f.hold_basis_points, Some(-833));
        assert_eq!(f.rounds_per_hour_hundredths, Some(150));
        assert_eq!(DayFigures::default().with_rates().hold_basis_points, None);
    }
}
