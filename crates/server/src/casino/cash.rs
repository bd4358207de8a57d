//! The cage's cash: what a cashier alone may move of one player's cash in
//! a day, and what an admin makes above it.

use croupier_ledger::Storage;

use super::actor::Actor;
use super::cage::{Cage, Effect};
use super::directory::Directory;
use super::err;
use super::journal::FORMAT_CASH_CAPPED;
use super::request::Request;
use crate::api::{ApiError, ErrorCode, Role};

/// The most cash, in minor units, cashiers move for one player in a UTC day
/// each way (10,000.00 in, as much out), however the cash-ins or cash-outs
/// are split: a dishonest cashier alone could otherwise cash in any sum
/// never received to a friend's wallet, or cash out a player's wallet.
/// Above it an admin makes the cash-in or cash-out: a second person on a
/// large one (the sum a cash transaction report starts at in many places).
pub const CASHIER_DAY_MAX: u64 = 1_000_000;

const DAY_MS: u64 = 86_400_000;

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
        let (id, player, amount, cash_in) = match request {
            Request::CashIn { id, player, amount } => (id, player, amount.get(), true),
            Request::CashOut { id, player, amount } => (id, player, amount.get(), false),
            _ => return Ok(None),
        };
        let tag = if cash_in { "cashin" } else { "cashout" };
        if actor.role != Role::Cashier
            || dir.journal_format() < FORMAT_CASH_CAPPED
            || self.ledger.has_transfer(&format!("{tag}/{id}"))
        {
            return Ok(None);
        }
        let day = at_ms / DAY_MS;
        let so_far = self
            .cash_days
            .get(&(player.clone(), cash_in))
            .filter(|(d, _)| *d == day)
            .map_or(0, |(_, sum)| *sum);
        if so_far.saturating_add(amount) > CASHIER_DAY_MAX {
            let way = if cash_in { "in" } else { "out" };
            return Err(err(
                ErrorCode::OverRoleLimit,
                format!(
                    "cashiers cash {player} {way} at most {CASHIER_DAY_MAX} a day ({so_far} so far today); \
                     an admin makes a larger cash-{way}"
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
}
