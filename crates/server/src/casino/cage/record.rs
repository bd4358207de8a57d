//! The cage's own record: each cash-in, cash-out and match play coupon
//! issued, with its time, player, amount, reference and who made it, kept
//! as the cage makes them (from journal format 14). The cashier's page
//! lists a gaming day's from it, so a reload, another tab or the next shift
//! finds what the cage did; a page once kept that list in its own memory,
//! and lost it on a reload.
//!
//! Each entry is made in the same step as the request's transfers and
//! journal event, so the record holds exactly what the ledger moved: a
//! cash-in's reference `R` is the transfer `cashin/R`, a cash-out's
//! `cashout/R`, a coupon's the coupon's id. A resend that writes nothing
//! records nothing. Replaying the journal makes the same record, and a
//! checkpoint keeps it.
//!
//! It keeps the newest [`CAGE_DAYS_KEPT`] gaming days (the casino's gaming
//! days, as the cashiers' daily limit counts them); older days are in the
//! journal, and a read of one is refused.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::casino::actor::Actor;
use crate::casino::journal::FORMAT_CAGE_RECORD;
use crate::casino::request::Request;

/// How many of its newest gaming days the cage keeps its record of.
pub const CAGE_DAYS_KEPT: usize = 7;

/// The most transactions one read answers (the newest of the day).
pub const CAGE_READ_MAX: usize = 1_000;

/// What the cage did, as its record keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CageKind {
    CashIn,
    CashOut,
    Coupon,
    /// A cashier's count of their drawer (journal format 15): `amount` is
    /// the count, `player` and `by` the cashier, `reference` the count's id.
    DrawerCount,
}

/// One transaction of the cage, as its record keeps it (a stored form:
/// the API shows it as [`crate::api::bodies::CageTransaction`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CageEntry {
    /// When it was made (Unix ms, the server's clock).
    pub at_ms: u64,
    pub kind: CageKind,
    pub player: String,
    /// In minor units: the cash moved, or the coupon's value.
    pub amount: u64,
    /// The id it was made under: the transfer `cashin/{reference}` or
    /// `cashout/{reference}`, or the coupon's number.
    pub reference: String,
    /// Who made it.
    pub by: String,
    /// A coupon's table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    /// A drawer count's: what the record said the drawer held.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<i64>,
    /// A cash-in's or cash-out's void, once voided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voided: Option<VoidMark>,
}

impl From<&CageEntry> for crate::api::bodies::CageTransaction {
    fn from(entry: &CageEntry) -> Self {
        use crate::api::bodies::CageTransactionKind as K;
        crate::api::bodies::CageTransaction {
            at_ms: entry.at_ms,
            kind: match entry.kind {
                CageKind::CashIn => K::CashIn,
                CageKind::CashOut => K::CashOut,
                CageKind::Coupon => K::Coupon,
                CageKind::DrawerCount => K::DrawerCount,
            },
            player: entry.player.clone(),
            amount: entry.amount,
            reference: entry.reference.clone(),
            by: entry.by.clone(),
            table: entry.table.clone(),
            expected: entry.expected,
            difference: entry
                .expected
                .map(|expected| i64::try_from(entry.amount).unwrap_or(i64::MAX).saturating_sub(expected)),
            voided: entry.voided.clone().map(Into::into),
        }
    }
}

/// The record by gaming day, each day's entries in the order made.
pub type CageRecord = BTreeMap<u64, Vec<CageEntry>>;

/// The entry `request` makes in the record, made by `actor` at `at_ms`, in
/// a journal in `format`: cash and coupons only, from format 14.
pub(super) fn entry_of(format: u32, at_ms: u64, actor: &Actor, request: &Request) -> Option<CageEntry> {
    if format < FORMAT_CAGE_RECORD {
        return None;
    }
    let (kind, player, amount, reference, table) = match request {
        Request::CashIn { id, player, amount } => (CageKind::CashIn, player, amount.get(), id, None),
        Request::CashOut { id, player, amount } => (CageKind::CashOut, player, amount.get(), id, None),
        Request::IssueCoupon {
            id,
            player,
            table,
            value,
            ..
        } => (CageKind::Coupon, player, value.get(), id, Some(table.clone())),
        _ => return None,
    };
    Some(CageEntry {
        at_ms,
        kind,
        player: player.clone(),
        amount,
        reference: reference.clone(),
        by: actor.username.clone(),
        table,
        expected: None,
        voided: None,
    })
}

/// Gaming day `day` if the cage keeps its record: one of the newest
/// [`CAGE_DAYS_KEPT`] to `today`. A day before them, or after today, is
/// refused, not shown as a day with no transactions.
pub fn kept_day(day: u64, today: u64) -> Result<u64, crate::api::ApiError> {
    let first = today.saturating_sub(CAGE_DAYS_KEPT as u64 - 1);
    if (first..=today).contains(&day) {
        return Ok(day);
    }
    Err(crate::api::ApiError::new(
        crate::api::ErrorCode::NotFound,
        format!(
            "the cage keeps its record of its newest {CAGE_DAYS_KEPT} gaming days, {} to {}; {} is not among them \
             (older days are in the journal)",
            crate::casino::gaming_day::day_text(first),
            crate::casino::gaming_day::day_text(today),
            crate::casino::gaming_day::day_text(day)
        ),
    ))
}

/// Enters `entry` on its gaming day `day`, keeping the newest days only.
pub(super) fn enter(record: &mut CageRecord, day: u64, entry: CageEntry) {
    record.entry(day).or_default().push(entry);
    while record.len() > CAGE_DAYS_KEPT {
        record.pop_first();
    }
}

/// Gaming day `day`'s entries, newest first, those `by` made only where it
/// is given, at most [`CAGE_READ_MAX`]; and whether more were left out.
pub fn read(record: &CageRecord, day: u64, by: Option<&str>) -> (Vec<CageEntry>, bool) {
    let mut out: Vec<CageEntry> = record
        .get(&day)
        .into_iter()
        .flatten()
        .rev()
        .filter(|e| by.is_none_or(|by| e.by == by))
        .take(CAGE_READ_MAX + 1)
        .cloned()
        .collect();
    let more = out.len() > CAGE_READ_MAX;
    out.truncate(CAGE_READ_MAX);
    (out, more)
}

/// A cash-in's or cash-out's void, as the cage's record keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VoidMark {
    pub id: String,
    pub at_ms: u64,
    pub by: String,
    pub reason: String,
}

impl From<VoidMark> for crate::api::bodies::CageVoid {
    fn from(mark: VoidMark) -> Self {
        crate::api::bodies::CageVoid {
            id: mark.id,
            at_ms: mark.at_ms,
            by: mark.by,
            reason: mark.reason,
        }
    }
}
