//! A dealer's shift report (`GET /api/reports/shift`): what they dealt on a
//! gaming day, table by table, from the tables' books of the day. The shift
//! at a table runs from the first to the last entry written while they were
//! on duty there (the day report's dealer on duty: whoever last opened the
//! table, opened or closed betting, keyed a spin or asked the RNG's draw);
//! the figures are their share of the table's books, so each equals the
//! ledger's transfers to the cent. As CSV the same figures are decimal
//! money strings.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::day_report::{decimal, hold, pace, DealerDay};
use croupier_profiles::tournament::csv_field as field;

/// A dealer's figures of a shift, at one table or at all of them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ShiftFigures {
    /// The first and last entries written while they were on duty, in
    /// milliseconds since 1970 (none before journal format 16).
    pub from_ms: Option<u64>,
    pub to_ms: Option<u64>,
    /// Cash and wallet chips exchanged for colour chips while they were on duty.
    pub drop: u64,
    pub drop_cash: u64,
    pub drop_wallet: u64,
    /// What play moved into the float less what it paid out, while they were on duty.
    pub win: i64,
    /// `win` over `drop`, in hundredths of a per cent (rounded toward zero); none without a drop.
    pub hold_basis_points: Option<i64>,
    /// Rounds they dealt to a result.
    pub rounds: u64,
    /// Open play while they were on duty, in milliseconds.
    pub open_ms: u64,
    /// `rounds` per hour of `open_ms`, in hundredths (rounded toward zero); none without open play.
    pub rounds_per_hour_hundredths: Option<u64>,
    /// Into the dealers' tip box while they were on duty.
    pub tips: u64,
}

impl From<&DealerDay> for ShiftFigures {
    fn from(d: &DealerDay) -> ShiftFigures {
        ShiftFigures {
            from_ms: d.from_ms,
            to_ms: d.to_ms,
            drop: d.drop,
            drop_cash: d.drop_cash,
            drop_wallet: d.drop_wallet,
            win: d.win,
            hold_basis_points: hold(d.win, d.drop),
            rounds: d.rounds,
            open_ms: d.open_ms,
            rounds_per_hour_hundredths: pace(d.rounds, d.open_ms),
            tips: d.tips,
        }
    }
}

/// A dealer's shift at one table.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ShiftTable {
    pub table: String,
    pub profile: String,
    pub figures: ShiftFigures,
}

/// A dealer's shift of a gaming day.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ShiftReport {
    pub dealer: String,
    /// The gaming day, `YYYY-MM-DD`.
    pub day: String,
    /// The casino's currency, once it has a table.
    pub currency: Option<String>,
    /// Each table they were on duty at that day, in id order: none if they dealt nowhere.
    pub tables: Vec<ShiftTable>,
    /// The sums of the tables' figures, their rates from those sums, and the
    /// shift from its first entry at any table to its last.
    pub total: ShiftFigures,
}

/// The shift CSV's header row.
pub const SHIFT_CSV_HEADER: &str = "row,dealer,table,profile,from_utc,to_utc,drop,drop_cash,drop_wallet,win,hold_percent,rounds,open_hours,rounds_per_hour,tips";

/// Milliseconds since 1970 as a UTC time, `2026-12-07T04:09:08Z`.
pub fn utc_time(ms: u64) -> String {
    let days = ms / 86_400_000;
    let date = i32::try_from(days)
        .ok()
        .and_then(|d| d.checked_add(2_440_588))
        .and_then(|julian| time::Date::from_julian_day(julian).ok())
        .unwrap_or(time::Date::MAX);
    let secs = (ms % 86_400_000) / 1_000;
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        date.year(),
        u8::from(date.month()),
        date.day(),
        secs / 3_600,
        secs / 60 % 60,
        secs % 60
    )
}

impl ShiftReport {
    /// The report as CSV: a header row, a row per table, then the shift's
    /// total; money and rates as decimals, hours of open play in hundredths,
    /// times in UTC; a figure a row does not have is empty.
    pub fn csv(&self) -> String {
        let hundredths = |n: Option<i64>| n.map(|n| decimal(i128::from(n))).unwrap_or_default();
        let row = |kind: &str, table: &str, profile: &str, f: &ShiftFigures| {
            [
                kind.to_string(),
                field(&self.dealer),
                field(table),
                field(profile),
                f.from_ms.map(utc_time).unwrap_or_default(),
                f.to_ms.map(utc_time).unwrap_or_default(),
                decimal(i128::from(f.drop)),
                decimal(i128::from(f.drop_cash)),
                decimal(i128::from(f.drop_wallet)),
                decimal(i128::from(f.win)),
                hundredths(f.hold_basis_points),
                f.rounds.to_string(),
                decimal(i128::from(f.open_ms / 36_000)),
                hundredths(f.rounds_per_hour_hundredths.map(|r| r as i64)),
                decimal(i128::from(f.tips)),
            ]
            .join(",")
        };
        let mut lines = vec![SHIFT_CSV_HEADER.to_string()];
        for t in &self.tables {
            lines.push(row("table", &t.table, &t.profile, &t.figures));
        }
        lines.push(row("shift", "", "", &self.total));
        let mut text = lines.join("\r\n");
        text.push_str("\r\n");
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_reads_as_utc_to_the_second() {
        assert_eq!(utc_time(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_time(1_796_616_548_999), "2026-12-07T04:09:08Z");
    }

    #[test]
    fn a_shift_row_gives_its_figures_as_money_and_its_ends_in_utc() {
        let report = ShiftReport {
            dealer: "-dana".into(),
            day: "2026-12-07".into(),
            currency: Some("EUR".into()),
            tables: vec![ShiftTable {
                table: "e1".into(),
                profile: "european".into(),
                figures: ShiftFigures {
                    from_ms: Some(3_600_000),
                    to_ms: Some(7_200_000),
                    drop: 1_050,
                    win: -250,
                    hold_basis_points: Some(-2_380),
                    rounds: 3,
                    open_ms: 3_600_000,
                    rounds_per_hour_hundredths: Some(300),
                    tips: 5,
                    ..ShiftFigures::default()
                },
            }],
            total: ShiftFigures::default(),
        };
        let csv = report.csv();
        let rows: Vec<&str> = csv.lines().collect();
        assert_eq!(rows[0], SHIFT_CSV_HEADER);
        assert_eq!(
            rows[1],
            "table,'-dana,e1,european,1970-01-01T01:00:00Z,1970-01-01T02:00:00Z,10.50,0.00,0.00,-2.50,-23.80,3,1.00,3.00,0.05"
        );
        assert_eq!(rows[2], "shift,'-dana,,,,,0.00,0.00,0.00,0.00,,0,0.00,,0.00");
    }
}
