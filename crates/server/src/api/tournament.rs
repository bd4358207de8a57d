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

/// A tournament in brief, as the list shows it and as one tournament begins.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentBrief {
    pub id: String,
    pub name: String,
    pub profile: String,
    pub currency: String,
    /// The first and last days of play, `YYYY-MM-DD`.
    pub first_day: String,
    pub last_day: String,
    /// `announced`, `running` or `concluded`.
    pub status: String,
    pub events: Vec<TournamentEventBrief>,
    /// The points each chip colour is worth, as posted now (2214(2)).
    pub chips: Vec<super::bodies::ChipValue>,
    /// Whether the remaining players may split the cash prizes (2213.07(3), 2014).
    pub split_permitted: bool,
    /// How many days before its first day of play the written rules reach
    /// the Division (2213.06 as amended to 7/15/14); none under the 2013 text,
    /// which asks for no filing and so takes no objection.
    pub rules_filed_days_before: Option<u32>,
    /// Whether the prizes' value is held in escrow before the start (2213(1), 2013).
    pub escrow_required: bool,
}

/// One event of a tournament in brief.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentEventBrief {
    pub name: String,
    /// The table it is played at, once given one.
    pub table: Option<String>,
    pub day: String,
    pub entry_fee: u64,
    pub buy_in: u64,
    pub starting_points: u64,
    pub rebuys_max: u32,
    /// `open`, `running`, `ended`, or `not played` (a concluded tournament's
    /// event that never started: a cancel).
    pub status: String,
}

/// One tournament as its reader may see it: the director, admins,
/// auditors and cashiers see its books; a player sees their own entries and
/// prizes, and a split proposed among them.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentView {
    #[serde(flatten)]
    pub brief: TournamentBrief,
    /// The tournament form's lines the reader may see (2213.01).
    pub entries: Vec<TournamentEntryLine>,
    /// A proposed split, to those who keep the books or are part of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub split: Option<SplitView>,
    pub standings: Vec<EventStandings>,
    /// The prize payout form's lines the reader may see (2213.02).
    pub payouts: Vec<PayoutLineView>,
    /// The books, for those who keep them.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub books: Option<TournamentBooksView>,
}

/// A line of the tournament form (2213.01).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentEntryLine {
    pub entry: u32,
    pub player: String,
    pub event: String,
    pub day: String,
    pub status: String,
    pub fee_paid: String,
    pub fee: u64,
    pub buy_in_paid: String,
    pub buy_in: u64,
    pub rebuys: u32,
    pub rebuys_paid: u64,
    /// What was given in place of cash, or the voucher used.
    pub note: String,
}

/// A line of the prize payout form (2213.02).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PayoutLineView {
    pub event: String,
    /// 0 for a share agreed in a split.
    pub place: u32,
    pub entry: u32,
    pub player: String,
    pub prize: String,
    pub value: u64,
    /// Counted as a prize payout (2213.05).
    pub payout: bool,
    pub by_split: bool,
}

/// A proposal that the remaining players split the cash prizes (2213.07(3)).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SplitView {
    pub event: Option<String>,
    pub places: Vec<u32>,
    pub shares: Vec<SplitShare>,
    /// The entries that agreed.
    pub agreed: Vec<u32>,
}

/// An entry's share of a split.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SplitShare {
    pub entry: u32,
    pub amount: u64,
}

/// An event under way at a table: its entries by points, most first.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct EventStandings {
    pub event: String,
    pub table: String,
    pub entries: Vec<Standing>,
}

/// An entry's points now; the player's name only to a reader who may see it.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Standing {
    pub entry: u32,
    pub points: u64,
    pub player: Option<String>,
}

/// The standings a display board shows: no player's name.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentStandings {
    pub tournament: String,
    pub name: String,
    pub standings: Vec<EventStandings>,
}

/// A tournament's books, for those who keep them.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentBooksView {
    /// The proceeds booked in each month (2213.01: a refund in its own month).
    pub proceeds: Vec<MonthProceeds>,
    pub pool: u64,
    pub vouchers_held: u64,
    pub prizes_paid: u64,
    /// The day the written rules reached the Division, once recorded.
    pub rules_filed: Option<String>,
    /// The Division's objection to the written rules, while it stands (2213.06).
    pub objection: Option<ObjectionView>,
    /// The prizes' value still in escrow (2213(1), 2013), and what the
    /// escrow's ledger account holds: the two agree, or `verify` says so.
    pub escrow: u64,
    pub escrow_account: i64,
    /// Whether an admin has placed the escrow; the start waits for it.
    pub escrow_funded: bool,
}

/// The proceeds of one month, `YYYY-MM`.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MonthProceeds {
    pub month: String,
    pub proceeds: u64,
}

/// The Division's objection to a tournament's written rules.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ObjectionView {
    pub day: String,
    pub reason: String,
}
