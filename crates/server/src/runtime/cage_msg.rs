//! What the cage is asked to do. The tables and the floor send it, and the
//! cage's writer hands work to the tables: kept apart from the writer, the
//! message lets a table name it without naming the cage.

use std::sync::mpsc;

use croupier_ledger::{Applied, Recorded, StreamEvent, Transfer};

use super::reply::{Pending, ReplyTo};
use crate::api::ApiError;
use crate::casino::{Actor, Request};

/// What the cage is asked to do.
pub enum CageMsg {
    /// Execute a request that belongs to no table.
    Execute {
        actor: Actor,
        request: Box<Request>,
        reply: ReplyTo,
    },
    /// A user, by name.
    User { username: String, reply: ReplyTo },
    /// Up to `n` users after `after`, in name order: the retired ones, or the others.
    Users {
        after: String,
        n: usize,
        retired: bool,
        reply: ReplyTo,
    },
    /// Up to `n` players a search finds.
    FindPlayers {
        query: crate::api::player_search::PlayerQuery,
        n: usize,
        reply: ReplyTo,
    },
    /// A player's accounts and coupons.
    PlayerAccounts { player: String, reply: ReplyTo },
    /// The cage's record of a gaming day: `by`'s only, where it is given.
    CageRecord {
        /// The gaming day asked for; `None`: today's, as the casino counts it.
        day: Option<u64>,
        by: Option<String>,
        reply: ReplyTo,
    },
    /// A tournament, its rules or its forms, or the list of them.
    Tournament {
        read: crate::casino::tournaments::TournamentRead,
        reply: ReplyTo,
    },
    /// A user's own accounts and their balances.
    Balances { username: String, reply: ReplyTo },
    /// The ledger's balance of one account.
    Balance {
        account: croupier_ledger::Account,
        reply: ReplyTo,
    },
    /// A table's entry for a request it has applied already, with the
    /// answer of the job that wrote it when that was the job's last entry
    /// (one message instead of two for a bet).
    Checked {
        epoch: u64,
        at_ms: u64,
        entry: Recorded,
        answer: Option<Pending>,
    },
    /// A table's entry whose transfers' fates the table waits for.
    Commit {
        epoch: u64,
        at_ms: u64,
        transfers: Vec<Transfer>,
        event: StreamEvent,
        verdict: mpsc::Sender<Result<Vec<Applied>, ApiError>>,
        /// A dealer's sale to check against the player's day at every table.
        claim: Option<crate::casino::table::SaleClaim>,
    },
    /// A table job's answer, given once everything before it is durable.
    Answer { epoch: u64, pending: Pending },
}
