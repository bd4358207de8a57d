//! A request's plan, the cage's or a table's: the transfers that move its
//! money, its journal events, and what it changes once durable. Every
//! request is planned whole before anything is written, so a refusal
//! leaves nothing half-applied.

use croupier_ledger::{Account, Transfer};

use super::journal::JournalEvent;
use crate::api::{ApiError, ErrorCode};
use crate::casino::err;

/// A dealer's sale of chips to `player` on UTC day `day` (journal format
/// 14): a dealer is tied to no table, so the cage, which sees every table's
/// sales, holds the player to [`DEALER_SALE_MAX`](super::table::DEALER_SALE_MAX) a day across all of them.
/// Up to format 13 the limit was each table's, and a player could be sold
/// the limit at every table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SaleClaim {
    pub player: String,
    pub day: u64,
    pub amount: u64,
    /// The sale's transfer (`sale/ID`): found made, the sale is a resend.
    pub transfer: String,
}

/// A request's plan; `E` is what its writer (the cage, or a table) changes
/// once the entry is durable.
pub(in crate::casino) struct Plan<E> {
    pub transfers: Vec<Transfer>,
    pub events: Vec<JournalEvent>,
    pub effects: Vec<E>,
    /// The client's id of the dispute being decided, which names its
    /// corrections' transfers (journal format 14).
    pub dispute_id: Option<String>,
    /// A dealer's sale, for the cage to check against the player's day at
    /// every table (journal format 14).
    pub claim: Option<SaleClaim>,
}

impl<E> Plan<E> {
    /// A plan that writes nothing.
    pub fn new() -> Plan<E> {
        Plan {
            transfers: Vec::new(),
            events: Vec::new(),
            effects: Vec::new(),
            dispute_id: None,
            claim: None,
        }
    }

    /// A plan of these transfers, events and effects.
    pub fn of(transfers: Vec<Transfer>, events: Vec<JournalEvent>, effects: Vec<E>) -> Plan<E> {
        Plan {
            transfers,
            events,
            effects,
            ..Plan::new()
        }
    }

    /// It writes nothing and changes nothing: the request was done already.
    pub fn is_empty(&self) -> bool {
        self.transfers.is_empty() && self.events.is_empty() && self.effects.is_empty()
    }
}

/// An account a plan names, or the refusal saying why it cannot be one.
pub(in crate::casino) fn account(made: Result<Account, String>) -> Result<Account, ApiError> {
    made.map_err(|e| err(ErrorCode::BadAccount, e))
}

/// A transfer of `amount` minor units a plan makes.
pub(in crate::casino) fn transfer(id: String, from: Account, to: Account, amount: u64, memo: &str) -> Transfer {
    Transfer {
        id,
        from,
        to,
        amount: croupier_core::Minor::new(amount),
        memo: memo.to_string(),
    }
}
