//! A cashier's drawer, balanced at shift end, and the void of a mistaken
//! cash-in or cash-out (journal format 15; house practice: no rule document
//! croupier follows speaks of either).
//!
//! The drawer is the cash a cashier took in and paid out: what the cage's
//! record says it should hold beyond its opening bank is the cashier's
//! cash-ins less their cash-outs of the gaming day, voided ones left out,
//! less what their earlier counts of the day expected (each count closes a
//! shift; the next begins at nothing). A count (`count_drawer`) is kept
//! beside that figure, the difference shown, never hidden; a count of 0 is
//! a count.
//!
//! A void (`void_cage_transaction`) is a second person's, the pit's or an
//! admin's, never the cashier who made the transaction: the reverse
//! transfer `cagevoid/{id}`, once, on the transaction's gaming day; a
//! cash-in whose money the player's wallet no longer holds is refused. The
//! record keeps the transaction, marked voided, by whom and why, and its
//! cashier's drawer follows.

use croupier_ledger::{Account, Storage};

use super::record::{CageEntry, CageKind, CageRecord, VoidMark};
use super::{Cage, Effect};
use crate::api::{ApiError, ErrorCode};
use crate::casino::actor::Actor;
use crate::casino::directory::Directory;
use crate::casino::err;
use crate::casino::journal::{self, JournalEvent, FORMAT_CAGE_DRAWER};
use crate::casino::request::Request;

/// The most counts of their drawer a cashier makes in a gaming day.
pub const DRAWER_COUNTS_DAY_MAX: usize = 20;
/// The longest void's reason, in bytes.
pub const VOID_REASON_MAX_BYTES: usize = 200;

type Planned = crate::casino::plan::Plan<Effect>;

fn signed(amount: u64) -> i64 {
    i64::try_from(amount).unwrap_or(i64::MAX)
}

/// What `cashier`'s drawer should hold now on gaming day `day`, by the record.
pub fn expected(record: &CageRecord, day: u64, cashier: &str) -> i64 {
    record
        .get(&day)
        .into_iter()
        .flatten()
        .filter(|e| e.by == cashier && e.voided.is_none())
        .fold(0i64, |sum, e| match e.kind {
            CageKind::CashIn => sum.saturating_add(signed(e.amount)),
            CageKind::CashOut => sum.saturating_sub(signed(e.amount)),
            CageKind::DrawerCount => sum.saturating_sub(e.expected.unwrap_or(0)),
            CageKind::Coupon => sum,
        })
}

impl<S: Storage> Cage<S> {
    /// What `cashier`'s drawer should hold now on gaming day `day`.
    pub fn drawer(&self, day: u64, cashier: &str) -> i64 {
        expected(&self.record, day, cashier)
    }

    /// `count_drawer` and `void_cage_transaction`; `None` for any other request.
    pub(super) fn plan_drawer(
        &self,
        dir: &Directory,
        at_ms: u64,
        actor: &Actor,
        request: &Request,
    ) -> Option<Result<Planned, ApiError>> {
        match request {
            Request::CountDrawer { id, amount } => Some(self.plan_count(dir, at_ms, actor, id, amount.get())),
            Request::VoidCageTransaction {
                id,
                transaction,
                reason,
            } => Some(self.plan_void(dir, at_ms, actor, id, transaction, reason)),
            _ => None,
        }
    }

    fn plan_count(
        &self,
        dir: &Directory,
        at_ms: u64,
        actor: &Actor,
        id: &str,
        counted: u64,
    ) -> Result<Planned, ApiError> {
        journal::require_format(dir.journal_format(), FORMAT_CAGE_DRAWER, "a drawer's count is")?;
        check_id(id)?;
        let made = self
            .record
            .values()
            .flatten()
            .find(|e| e.kind == CageKind::DrawerCount && e.reference == id);
        if let Some(made) = made {
            // Sent again as it was: done already, nothing to write.
            if made.by == actor.username && made.amount == counted {
                return Ok(Planned::new());
            }
            return Err(err(
                ErrorCode::Exists,
                format!(
                    "id: drawer count {id} was made already, by {}, of {}",
                    made.by,
                    money(made.amount)
                ),
            ));
        }
        let day = dir.gaming_day(at_ms);
        let counts = self
            .record
            .get(&day)
            .into_iter()
            .flatten()
            .filter(|e| e.kind == CageKind::DrawerCount && e.by == actor.username)
            .count();
        if counts >= DRAWER_COUNTS_DAY_MAX {
            return Err(err(
                ErrorCode::Full,
                format!("a cashier counts their drawer at most {DRAWER_COUNTS_DAY_MAX} times a gaming day"),
            ));
        }
        let expected = expected(&self.record, day, &actor.username);
        let event = JournalEvent::DrawerCounted {
            id: id.to_string(),
            cashier: actor.username.clone(),
            counted,
            expected,
        };
        let entry = CageEntry {
            at_ms,
            kind: CageKind::DrawerCount,
            player: actor.username.clone(),
            amount: counted,
            reference: id.to_string(),
            by: actor.username.clone(),
            table: None,
            expected: Some(expected),
            voided: None,
        };
        Ok(Planned::of(Vec::new(), vec![event], vec![Effect::Recorded(entry)]))
    }

    fn plan_void(
        &self,
        dir: &Directory,
        at_ms: u64,
        actor: &Actor,
        id: &str,
        transaction: &str,
        reason: &str,
    ) -> Result<Planned, ApiError> {
        journal::require_format(
            dir.journal_format(),
            FORMAT_CAGE_DRAWER,
            "a void of a cash-in or cash-out is",
        )?;
        check_id(id)?;
        if reason.trim().is_empty() || reason.len() > VOID_REASON_MAX_BYTES || reason.chars().any(char::is_control) {
            return Err(err(
                ErrorCode::BadText,
                format!("reason: a void's reason is 1 to {VOID_REASON_MAX_BYTES} bytes of text on one line"),
            ));
        }
        let day = dir.gaming_day(at_ms);
        let entry = self.voidable(day, transaction)?;
        if let Some(mark) = &entry.voided {
            // Sent again as it was: done already, nothing to write.
            if mark.id == id {
                return Ok(Planned::new());
            }
            return Err(err(
                ErrorCode::AlreadyVoided,
                format!(
                    "transaction: {transaction} was voided already by {} (void {}): {}",
                    mark.by, mark.id, mark.reason
                ),
            ));
        }
        let transfer_id = format!("cagevoid/{id}");
        if self.ledger.has_transfer(&transfer_id) {
            return Err(err(
                ErrorCode::Exists,
                format!("id: void {id} was made already, of another transaction"),
            ));
        }
        if entry.by == actor.username {
            return Err(err(
                ErrorCode::SameSigner,
                format!(
                    "a cash-in or cash-out is voided by a second person: {} made {transaction}",
                    entry.by
                ),
            ));
        }
        let wallet = crate::casino::table::account(Account::wallet(&entry.player))?;
        let cash_in = entry.kind == CageKind::CashIn;
        if cash_in {
            let held = self.ledger.balance(&wallet);
            if held < i128::from(entry.amount) {
                return Err(err(
                    ErrorCode::WalletSpent,
                    format!(
                        "transaction: {}'s wallet holds {}, less than the {} cashed in; it cannot be taken back",
                        entry.player,
                        money(u64::try_from(held.max(0)).unwrap_or(0)),
                        money(entry.amount)
                    ),
                ));
            }
        }
        let (from, to) = if cash_in {
            (wallet, Account::Outside)
        } else {
            (Account::Outside, wallet)
        };
        let transfer = crate::casino::table::transfer(transfer_id, from, to, entry.amount, "cagevoid");
        let event = JournalEvent::CageTransactionVoided {
            id: id.to_string(),
            transaction: entry.reference.clone(),
            kind: if cash_in { "cash_in" } else { "cash_out" }.to_string(),
            player: entry.player.clone(),
            amount: entry.amount,
            made_by: entry.by.clone(),
            reason: reason.to_string(),
        };
        let mark = VoidMark {
            id: id.to_string(),
            at_ms,
            by: actor.username.clone(),
            reason: reason.to_string(),
        };
        let effect = Effect::Voided(day, entry.kind, entry.reference.clone(), mark);
        Ok(Planned::of(vec![transfer], vec![event], vec![effect]))
    }

    /// The cash-in or cash-out `transaction` names on gaming day `day`: its
    /// reference `R`, or `cashin/R` or `cashout/R` where a cash-in and a
    /// cash-out share it.
    fn voidable(&self, day: u64, transaction: &str) -> Result<&CageEntry, ApiError> {
        let named = |e: &&CageEntry| match e.kind {
            CageKind::CashIn => e.reference == transaction || format!("cashin/{}", e.reference) == transaction,
            CageKind::CashOut => e.reference == transaction || format!("cashout/{}", e.reference) == transaction,
            CageKind::Coupon | CageKind::DrawerCount => false,
        };
        let mut found = self.record.get(&day).into_iter().flatten().filter(named);
        match (found.next(), found.next()) {
            (Some(entry), None) => Ok(entry),
            (Some(_), Some(_)) => Err(err(
                ErrorCode::BadRequest,
                format!("transaction: a cash-in and a cash-out are both {transaction}; name cashin/{transaction} or cashout/{transaction}"),
            )),
            (None, _) => Err(err(
                ErrorCode::NoCageTransaction,
                format!(
                    "transaction: no cash-in or cash-out {transaction} in the cage's record of today's gaming day \
                     (a void is made on its transaction's gaming day)"
                ),
            )),
        }
    }

    /// Marks a cash-in or cash-out voided in the record.
    pub(super) fn mark_voided(&mut self, day: u64, kind: CageKind, reference: &str, mark: VoidMark) {
        let entry = self
            .record
            .get_mut(&day)
            .into_iter()
            .flatten()
            .find(|e| e.kind == kind && e.reference == reference);
        if let Some(entry) = entry {
            entry.voided = Some(mark);
        }
    }
}

fn check_id(id: &str) -> Result<(), ApiError> {
    if super::cash::valid_coupon_id(id) {
        return Ok(());
    }
    Err(err(
        ErrorCode::BadRequest,
        "id: 1 to 64 of A-Z, a-z, 0-9, '-', '_', '.'",
    ))
}

fn money(minor: u64) -> croupier_core::Minor {
    croupier_core::Minor::new(minor)
}
