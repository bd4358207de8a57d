//! What the director (or a player agreeing to a split) asks of a
//! tournament, and how its fees and buy-ins are paid (Colorado 2213-2214).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// How a fee, a buy-in or a re-buy was paid.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PaidWith {
    Cash,
    Complimentary,
    /// The item, at the event's price.
    NonCash(String),
    /// The voucher's number.
    Voucher(u32),
}

impl PaidWith {
    pub fn paid(&self) -> croupier_core::tournament::Paid {
        use croupier_core::tournament::Paid;
        match self {
            PaidWith::Cash => Paid::Cash,
            PaidWith::Complimentary => Paid::Complimentary,
            PaidWith::NonCash(item) => Paid::NonCash { item: item.clone() },
            PaidWith::Voucher(number) => Paid::Voucher { number: *number },
        }
    }

    pub fn of(paid: &croupier_core::tournament::Paid) -> PaidWith {
        use croupier_core::tournament::Paid;
        match paid {
            Paid::Cash => PaidWith::Cash,
            Paid::Complimentary => PaidWith::Complimentary,
            Paid::NonCash { item } => PaidWith::NonCash(item.clone()),
            Paid::Voucher { number } => PaidWith::Voucher(*number),
        }
    }
}

/// What the director (or, agreeing to a split, a player) asked of a
/// tournament. Events are named. An event played at a table counts its
/// points there: any points an order gives must match the table's. An
/// event played elsewhere takes the points the director counted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "do", rename_all = "snake_case", deny_unknown_fields)]
pub enum TournamentOrder {
    /// The written rules went to the Division on `filed_on` (YYYY-MM-DD,
    /// not after today), as the director records it (2213.06).
    FileRules {
        filed_on: String,
        /// Why the day recorded before is replaced (it was typed wrong):
        /// the day recorded is corrected, before the start (journal format 14).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        corrects: Option<String>,
    },
    /// Every prize's value placed into escrow before the start, from the
    /// house (2213(1) as amended to 7/1/13; journal format 15): an admin's.
    FundEscrow,
    /// The Division notified the licensee that it finds the written rules
    /// unacceptable, for `reason` (2213.06; journal format 15): no event
    /// starts until the objection is resolved. Recorded on the day it is sent.
    RecordObjection {
        reason: String,
    },
    /// The Division's objection no longer stands: `how` (withdrawn, or the
    /// rules changed, filed again and accepted).
    ResolveObjection {
        how: String,
    },
    /// `id`, chosen by the client, makes a resend harmless: the same order
    /// under the same id is answered again with nothing written.
    Register {
        player: String,
        event: String,
        fee: PaidWith,
        buy_in: PaidWith,
        #[serde(default)]
        qualified: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
    },
    Start {
        event: String,
    },
    /// Between games (2213.07(5)); `points`: the entry's chips as counted
    /// (taken from the table when the event plays at one).
    Rebuy {
        entry: u32,
        paid: PaidWith,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        points: Option<u64>,
        /// As for a registration: a resend under the same id charges nothing again.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
    },
    Eliminate {
        entry: u32,
    },
    /// The table given to `event`, not started, is taken back (journal
    /// format 14): it is free for cash play or another event.
    ReleaseTable {
        event: String,
    },
    /// An entry whose event has not started leaves, refunded.
    Withdraw {
        entry: u32,
    },
    /// Call the tournament off before any event starts: every entry refunded.
    Cancel {
        reason: String,
    },
    Disqualify {
        player: String,
        reason: String,
    },
    End {
        event: String,
        #[serde(default)]
        #[schema(value_type = Vec<Vec<u64>>)]
        points: Vec<(u32, u64)>,
    },
    ProposeSplit {
        event: String,
        places: Vec<u32>,
        #[schema(value_type = Vec<Vec<u64>>)]
        shares: Vec<(u32, u64)>,
    },
    AgreeSplit {
        entry: u32,
    },
    RefuseSplit {
        reason: String,
    },
    ConfirmSplit {
        #[serde(default)]
        #[schema(value_type = Vec<Vec<u64>>)]
        points: Vec<(u32, u64)>,
    },
    Conclude,
    /// The event (not yet started) is played at `table` (journal format 8).
    Table {
        event: String,
        table: String,
    },
    /// What each colour of tournament chip counts from the next game on,
    /// posted at the tables (2214(2)); only between games.
    ChipValues {
        #[schema(value_type = Vec<Vec<String>>)]
        values: Vec<(String, u64)>,
    },
}
