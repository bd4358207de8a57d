//! The cage's cash: what a cashier alone may move of one player's cash in
//! a day, and what an admin makes above it. From journal format 14 the
//! match play coupons a cashier issues a player count against the same
//! day's cash in: a coupon is money at the table (its win is paid from the
//! float), and a cashier once passed the day's limit with coupons.

use croupier_ledger::Storage;

use super::{Cage, Effect};
use crate::api::{ApiError, ErrorCode, Role};
use crate::casino::actor::Actor;
use crate::casino::directory::{Coupon, Directory, COUPONS_MAX};
use crate::casino::err;
use crate::casino::journal::JournalEvent;
use crate::casino::request::Request;
use crate::casino::table::{SaleClaim, DEALER_SALE_MAX};

/// The most cash, in minor units, cashiers move for one player in a UTC day
/// each way (10,000.00 in, as much out), however the cash-ins or cash-outs
/// are split: a dishonest cashier alone could otherwise cash in any sum
/// never received to a friend's wallet, or cash out a player's wallet.
/// Above it an admin makes the cash-in or cash-out: a second person on a
/// large one (the sum a cash transaction report starts at in many places).
pub const CASHIER_DAY_MAX: u64 = 1_000_000;

impl<S: Storage> Cage<S> {
    /// A cashier's cash-in or cash-out within the day's limit for its
    /// player: what it adds to the day, or the refusal. A resend (its
    /// transfer made already) is the ledger's to judge; an admin's is not limited.
    pub(super) fn cashier_limit(
        &self,
        dir: &Directory,
        at_ms: u64,
        actor: &Actor,
        request: &Request,
    ) -> Result<Option<Effect>, ApiError> {
        let (player, amount, cash_in, resent) = match request {
            Request::CashIn { id, player, amount } => (
                player,
                amount.get(),
                true,
                self.ledger.has_transfer(&format!("cashin/{id}")),
            ),
            Request::CashOut { id, player, amount } => (
                player,
                amount.get(),
                false,
                self.ledger.has_transfer(&format!("cashout/{id}")),
            ),
            Request::IssueCoupon { id, player, value, .. } if dir.rules().caps_casino_wide => {
                (player, value.get(), true, dir.coupon(id).is_some())
            }
            _ => return Ok(None),
        };
        if actor.role != Role::Cashier || !dir.rules().cash_capped || resent {
            return Ok(None);
        }
        let day = dir.gaming_day(at_ms);
        let so_far = self
            .cash_days
            .get(&(player.clone(), cash_in))
            .filter(|(d, _)| *d == day)
            .map_or(0, |(_, sum)| *sum);
        if so_far.saturating_add(amount) > CASHIER_DAY_MAX {
            let way = if cash_in { "in" } else { "out" };
            let coupons = if cash_in && dir.rules().caps_casino_wide {
                " in cash and match play coupons together"
            } else {
                ""
            };
            return Err(err(
                ErrorCode::OverRoleLimit,
                format!(
                    "cashiers cash {player} {way} at most {}{coupons} a day ({} so far today); an admin makes \
                     a larger cash-{way}{}",
                    croupier_core::Minor::new(CASHIER_DAY_MAX),
                    croupier_core::Minor::new(so_far),
                    if coupons.is_empty() {
                        ""
                    } else {
                        // The pit issues coupons too (`policy.rs`), with no cage's limit.
                        ", and an admin or the pit issues a larger coupon"
                    }
                ),
            ));
        }
        Ok(Some(Effect::CashMoved {
            player: player.clone(),
            cash_in,
            day,
            amount,
        }))
    }

    /// A dealer's sale within the player's day at every table: the claim to
    /// count once it is written, `None` for a resend (its transfer made
    /// already, the ledger's to judge), or the refusal.
    pub(super) fn dealer_limit(&self, claim: &SaleClaim) -> Result<Option<SaleClaim>, ApiError> {
        if self.ledger.has_transfer(&claim.transfer) {
            return Ok(None);
        }
        // A sale stamped a day before the newest counted (two tables' sales
        // crossing midnight a moment apart) counts with the newest day's.
        let sold = self
            .dealer_days
            .get(&claim.player)
            .filter(|(day, _)| *day >= claim.day)
            .map_or(0, |(_, sold)| *sold);
        if sold.saturating_add(claim.amount) > DEALER_SALE_MAX {
            return Err(err(
                ErrorCode::OverRoleLimit,
                format!(
                    "dealers sell {} at most {} in chips a day at all tables together ({} so far today); a pit \
                     supervisor makes a larger sale",
                    claim.player,
                    croupier_core::Minor::new(DEALER_SALE_MAX),
                    croupier_core::Minor::new(sold)
                ),
            ));
        }
        Ok(Some(claim.clone()))
    }

    /// Counts a dealer's sale, written, in the player's day: a later day
    /// begins again, an earlier one (a sale crossing midnight) counts with the newest.
    pub(super) fn count_sale(&mut self, claim: SaleClaim) {
        let sold = self.dealer_days.entry(claim.player).or_insert((claim.day, 0));
        if sold.0 < claim.day {
            *sold = (claim.day, 0);
        }
        sold.1 = sold.1.saturating_add(claim.amount);
    }

    /// `issue_coupon`: a match play coupon `id` issued as `coupon` says, or
    /// nothing where it was issued so before (a resend).
    pub(super) fn plan_coupon(
        &self,
        dir: &Directory,
        at_ms: u64,
        id: &str,
        coupon: Coupon,
        events: &mut Vec<JournalEvent>,
        effects: &mut Vec<Effect>,
    ) -> Result<(), ApiError> {
        if let Some(issued) = dir.coupon(id) {
            // Sent again as it was: done already, nothing to write.
            if *issued == coupon {
                return Ok(());
            }
            return Err(err(
                ErrorCode::Exists,
                format!("coupon {id} was issued already, with other contents"),
            ));
        }
        if !valid_coupon_id(id) {
            return Err(err(
                ErrorCode::BadCoupon,
                "a coupon id is 1 to 64 of A-Z, a-z, 0-9, '-', '_', '.'",
            ));
        }
        // Not to a locked player: nothing is played for them (journal format 16).
        dir.player_in_play(&coupon.player)?;
        if !self.tables.contains_key(&coupon.table) {
            return Err(err(ErrorCode::NoTable, format!("no table {:?}", coupon.table)));
        }
        if coupon.value == 0 {
            return Err(err(ErrorCode::BadAmount, "a coupon is worth more than nothing"));
        }
        if let Some(end) = coupon.expires_at_ms.filter(|end| *end <= at_ms) {
            return Err(err(
                ErrorCode::BadCoupon,
                format!("expires_at_ms {end} is not in the future: the coupon would never be valid"),
            ));
        }
        if dir.coupons_issued() >= COUPONS_MAX {
            return Err(err(
                ErrorCode::Full,
                format!("the casino keeps at most {COUPONS_MAX} coupons issued"),
            ));
        }
        events.push(JournalEvent::CouponIssued {
            id: id.to_string(),
            player: coupon.player.clone(),
            table: coupon.table.clone(),
            value: coupon.value,
            expires_at_ms: coupon.expires_at_ms,
        });
        effects.push(Effect::AddCoupon(id.to_string(), coupon));
        Ok(())
    }
}

/// A coupon's id: 1 to 64 of A-Z, a-z, 0-9, '-', '_', '.'.
pub(super) fn valid_coupon_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// `cash_in` or `cash_out`: a player's cash, into their wallet from outside
/// the casino or out of it, under the cashier's id.
pub(super) fn plan_cash(
    dir: &Directory,
    request: &Request,
    transfers: &mut Vec<croupier_ledger::Transfer>,
    events: &mut Vec<JournalEvent>,
) -> Result<(), ApiError> {
    use croupier_ledger::Account;
    let (id, player, amount, cash_in) = match request {
        Request::CashIn { id, player, amount } => (id, player, amount.get(), true),
        Request::CashOut { id, player, amount } => (id, player, amount.get(), false),
        _ => return Err(err(ErrorCode::Internal, "not a request of cash")),
    };
    dir.player(player)?;
    let wallet = crate::casino::table::account(Account::wallet(player))?;
    let (from, to, tag) = if cash_in {
        (Account::Outside, wallet, "cashin")
    } else {
        (wallet, Account::Outside, "cashout")
    };
    transfers.push(crate::casino::table::transfer(
        format!("{tag}/{id}"),
        from,
        to,
        amount,
        tag,
    ));
    let player = player.clone();
    events.push(if cash_in {
        JournalEvent::CashedIn { player, amount }
    } else {
        JournalEvent::CashedOut { player, amount }
    });
    Ok(())
}
