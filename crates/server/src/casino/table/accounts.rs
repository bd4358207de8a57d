//! A table's accounts: its players' chips and its own (layout, float, drop
//! box, tip box, coupons), with the balances it keeps of them.

use croupier_ledger::{Account, TableAccount};
use foldhash::HashMap;

use super::{account, TableSlot};
use crate::api::ApiError;

/// The balances of a table's own accounts (see [`TableSlot::balance`]): the
/// table plans with them; the ledger holds them too, and checks again.
/// Only this file reads or changes them.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub(super) struct Balances(#[serde(with = "croupier_core::canonical::map")] HashMap<Account, i128>);

impl Balances {
    /// Once durable: what an entry moved of the table's accounts.
    pub(super) fn add(&mut self, deltas: HashMap<Account, i128>) {
        for (account, delta) in deltas {
            *self.0.entry(account).or_default() += delta;
        }
    }

    /// Each player's chips account here that holds something, with its balance.
    pub(super) fn players_holding(&self) -> impl Iterator<Item = (&Account, i128)> {
        self.0
            .iter()
            .filter(|(a, b)| **b != 0 && a.player().is_some())
            .map(|(a, b)| (a, *b))
    }
}

impl TableSlot {
    /// The account of one of this table's players.
    pub(in crate::casino) fn chips_of(&self, player: &str) -> Result<Account, ApiError> {
        account(Account::chips(&self.id, player))
    }

    /// One of this table's own accounts.
    pub(in crate::casino) fn own(&self, kind: TableAccount) -> Result<Account, ApiError> {
        account(Account::of_table(kind, &self.id))
    }

    /// Whether an account is this table's own: its players' chips, its
    /// layout, float, drop box, tip box and coupons. Its players' points
    /// and its bank of points are not: the cage issues and sweeps them.
    pub(super) fn local(&self, account: &Account) -> bool {
        account.table() == Some(self.id.as_str())
            && !matches!(
                account,
                Account::Points { .. } | Account::Table(TableAccount::PointsBank, _)
            )
    }

    pub(in crate::casino) fn balance_of(&self, account: &Account) -> i128 {
        self.books.0.get(account).copied().unwrap_or(0)
    }

    /// The balance of one of this table's accounts (0 for any other).
    pub fn balance(&self, account: &Account) -> i128 {
        self.balance_of(account)
    }

    /// A player's chips at this table.
    pub fn chips(&self, player: &str) -> i128 {
        Account::chips(&self.id, player).map_or(0, |a| self.balance_of(&a))
    }

    /// The balance of one of this table's own accounts.
    pub fn own_balance(&self, kind: TableAccount) -> i128 {
        Account::of_table(kind, &self.id).map_or(0, |a| self.balance_of(&a))
    }
}
