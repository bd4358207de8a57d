//! The casino's report of a gaming day, from each table's books of it
//! (`table/books.rs`): each table reads its own figures and dealers' shares
//! on its writer, and the sums are taken here, so the casino's figures are
//! the tables' added up and nothing else; a dealer's shift is their shares
//! of the tables' figures, added up the same way.

use std::collections::BTreeMap;

use super::directory::Directory;
use super::gaming_day::day_text;
use super::TableSlot;
use crate::api::bodies::{DayFigures, DayReport, DealerDay, ShiftFigures, ShiftReport, ShiftTable, TableDay};
use crate::api::ApiError;

/// A table's figures of a gaming day, as its writer reads them.
#[derive(Clone, Debug)]
pub struct TableDayBooks {
    /// The gaming day, days since 1970.
    pub day: u64,
    pub currency: String,
    pub table: TableDay,
    /// Each dealer's share at this table, by username.
    pub dealers: Vec<DealerDay>,
}

/// `slot`'s figures of gaming day `day` (`None`: today's), or the refusal
/// of a day whose books it does not keep.
pub fn table_day(slot: &TableSlot, dir: &Directory, now_ms: u64, day: Option<u64>) -> Result<TableDayBooks, ApiError> {
    let day = match day {
        Some(d) => kept_day(slot, dir, now_ms, d)?,
        None => dir.gaming_day(now_ms),
    };
    let b = slot.books_of(day);
    let figures = DayFigures {
        drop: b.drop(),
        drop_cash: b.drop_cash,
        drop_wallet: b.drop_wallet,
        fills: b.fills,
        credits: b.credits,
        win: b.win() as i64,
        rounds: b.rounds,
        open_ms: b.open_ms,
        ..DayFigures::default()
    }
    .with_rates();
    let dealers = b
        .shares()
        .iter()
        .map(|(name, d)| DealerDay {
            dealer: name.clone(),
            tables: vec![slot.id.clone()],
            drop: d.drop_cash + d.drop_wallet,
            drop_cash: d.drop_cash,
            drop_wallet: d.drop_wallet,
            win: d.win() as i64,
            rounds: d.rounds,
            open_ms: d.open_ms,
            tips: d.tips,
            from_ms: d.from_ms,
            to_ms: d.to_ms,
            ..DealerDay::default()
        })
        .map(DealerDay::with_rates)
        .collect();
    Ok(TableDayBooks {
        day,
        currency: slot.table.profile().spec().currency.clone(),
        table: TableDay {
            table: slot.id.clone(),
            profile: slot.profile_name.clone(),
            figures,
        },
        dealers,
    })
}

/// The casino's report of gaming day `day` from its tables' figures: the
/// casino's the sums of the tables', each dealer's the sums of their shares.
pub fn casino_day(day: u64, mut tables: Vec<TableDayBooks>) -> DayReport {
    tables.sort_by(|a, b| a.table.table.cmp(&b.table.table));
    let mut casino = DayFigures::default();
    let mut dealers: BTreeMap<String, DealerDay> = BTreeMap::new();
    for t in &tables {
        casino.add(&t.table.figures);
        for d in &t.dealers {
            let sum = dealers.entry(d.dealer.clone()).or_insert_with(|| DealerDay {
                dealer: d.dealer.clone(),
                ..DealerDay::default()
            });
            sum.add(d);
        }
    }
    DayReport {
        day: day_text(day),
        currency: tables.first().map(|t| t.currency.clone()),
        casino: casino.with_rates(),
        dealers: dealers.into_values().map(DealerDay::with_rates).collect(),
        tables: tables.into_iter().map(|t| t.table).collect(),
    }
}

/// `dealer`'s shift of gaming day `day` from the tables' figures: their
/// share at each table they were on duty at, and the sums.
pub fn dealer_shift(day: u64, dealer: &str, mut tables: Vec<TableDayBooks>) -> ShiftReport {
    tables.sort_by(|a, b| a.table.table.cmp(&b.table.table));
    let mut total = DealerDay::default();
    let mut shifts = Vec::new();
    for t in &tables {
        for d in t.dealers.iter().filter(|d| d.dealer == dealer) {
            total.add(d);
            shifts.push(ShiftTable {
                table: t.table.table.clone(),
                profile: t.table.profile.clone(),
                figures: ShiftFigures::from(d),
            });
        }
    }
    ShiftReport {
        dealer: dealer.to_string(),
        day: day_text(day),
        currency: tables.first().map(|t| t.currency.clone()),
        tables: shifts,
        total: ShiftFigures::from(&total),
    }
}

/// Gaming day `day` if `slot` keeps its books: from its oldest kept day to
/// today's (a day in between with no movement is a quiet one). A day before
/// them or after today is refused, not shown as a quiet day.
pub(crate) fn kept_day(slot: &TableSlot, dir: &Directory, now_ms: u64, day: u64) -> Result<u64, crate::api::ApiError> {
    let today = dir.gaming_day(now_ms);
    let first = slot.book_days().next().unwrap_or(today);
    // A day it keeps is shown, even one after today's (a gaming day set back
    // to a time zone where it is still yesterday).
    if (first..=today).contains(&day) || slot.book_days().any(|kept| kept == day) {
        return Ok(day);
    }
    Err(crate::api::ApiError::new(
        crate::api::ErrorCode::NotFound,
        format!(
            "table {} keeps the books of its gaming days {} to {}; {} is not among them",
            slot.id,
            day_text(first),
            day_text(today),
            day_text(day)
        ),
    ))
}
