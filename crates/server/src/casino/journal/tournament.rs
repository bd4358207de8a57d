//! A tournament's requests and events as the journal keeps them (journal
//! format 7). Stored formats: a change to them is a new journal format.

use croupier_core::tournament::{Awarded, Command, Event};
use serde::{Deserialize, Serialize};

// Like a bet, an order is stored as the API sends it: a change to these
// types is a new journal format.
pub use crate::api::{PaidWith, TournamentOrder};

/// How long after a filing with the Division it may still be recorded.
pub const FILING_RECORDED_WITHIN_DAYS: i64 = 30;

/// The longest id a client gives an order.
pub const ORDER_ID_MAX_BYTES: usize = 64;

impl TournamentOrder {
    /// The id the client gave the order, if any: money-moving orders take one.
    pub fn id(&self) -> Option<&str> {
        match self {
            TournamentOrder::Register { id, .. } | TournamentOrder::Rebuy { id, .. } => id.as_deref(),
            _ => None,
        }
    }

    /// The core's command, on `day`; `event` finds an event by name.
    pub fn command(&self, day: time::Date, event: impl Fn(&str) -> Result<usize, String>) -> Result<Command, String> {
        Ok(match self {
            TournamentOrder::FileRules { filed_on, corrects } => {
                let filed = croupier_profiles::tournament::parse_day(filed_on).map_err(|e| format!("filed_on: {e}"))?;
                if filed > day {
                    return Err(format!(
                        "filed_on {filed} is after today, {day}: record a filing once it is made"
                    ));
                }
                if filed + time::Duration::days(FILING_RECORDED_WITHIN_DAYS) < day {
                    return Err(format!(
                        "filed_on {filed} is more than {FILING_RECORDED_WITHIN_DAYS} days ago: a filing is recorded when it is made"
                    ));
                }
                match corrects {
                    Some(_) => Command::CorrectFiling { day: filed },
                    None => Command::FileRules { day: filed },
                }
            }
            TournamentOrder::FundEscrow => Command::FundEscrow,
            TournamentOrder::RecordObjection { reason } => Command::RecordObjection {
                reason: reason.clone(),
                day,
            },
            TournamentOrder::ResolveObjection { how } => Command::ResolveObjection { how: how.clone() },
            TournamentOrder::Register {
                player,
                event: e,
                fee,
                buy_in,
                qualified,
                ..
            } => Command::Register {
                player: player.clone(),
                event: event(e)?,
                fee: fee.paid(),
                buy_in: buy_in.paid(),
                qualified: *qualified,
                day,
            },
            TournamentOrder::Start { event: e } => Command::Start { event: event(e)?, day },
            TournamentOrder::Rebuy {
                entry, paid, points, ..
            } => Command::Rebuy {
                entry: *entry,
                paid: paid.paid(),
                points: points.unwrap_or(0),
                between_games: true,
            },
            TournamentOrder::Withdraw { entry } => Command::Withdraw {
                entry: *entry,
                day: Some(day),
            },
            TournamentOrder::Cancel { reason } => Command::Cancel {
                reason: reason.clone(),
                day: Some(day),
            },
            TournamentOrder::Eliminate { entry } => Command::Eliminate {
                entry: *entry,
                points: 0,
            },
            TournamentOrder::Disqualify { player, reason } => Command::Disqualify {
                player: player.clone(),
                reason: reason.clone(),
            },
            TournamentOrder::End { event: e, points } => Command::End {
                event: event(e)?,
                points: points.clone(),
                day: Some(day),
            },
            TournamentOrder::ProposeSplit {
                event: e,
                places,
                shares,
            } => Command::ProposeSplit {
                event: event(e)?,
                places: places.clone(),
                shares: shares.clone(),
            },
            TournamentOrder::AgreeSplit { entry } => Command::AgreeSplit { entry: *entry },
            TournamentOrder::RefuseSplit { reason } => Command::RefuseSplit { reason: reason.clone() },
            TournamentOrder::ConfirmSplit { points } => Command::ConfirmSplit {
                points: points.clone(),
                day: Some(day),
            },
            TournamentOrder::Conclude => Command::Conclude { day: Some(day) },
            TournamentOrder::Table { .. }
            | TournamentOrder::ReleaseTable { .. }
            | TournamentOrder::ChipValues { .. } => {
                return Err("this order is the server's, not the tournament's".into())
            }
        })
    }
}

/// The command as a journal older than `FORMAT_TOURNAMENT_DAYS_CHECKED`
/// decided it: an event's end and the conclusion carried no day, so the
/// four months of Colorado 2213(1) were not checked at them; a refund
/// carried none either, and took its fee from the registration's month.
pub fn undated(command: Command) -> Command {
    match command {
        Command::End { event, points, .. } => Command::End {
            event,
            points,
            day: None,
        },
        Command::ConfirmSplit { points, .. } => Command::ConfirmSplit { points, day: None },
        Command::Conclude { .. } => Command::Conclude { day: None },
        Command::Withdraw { entry, .. } => Command::Withdraw { entry, day: None },
        Command::Cancel { reason, .. } => Command::Cancel { reason, day: None },
        other => other,
    }
}

/// What happened to a tournament, as the journal keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "what", rename_all = "snake_case")]
pub enum TournamentRecord {
    RulesFiled {
        day: String,
    },
    /// The Division objected to the written rules (2213.06; format 15).
    ObjectionRecorded {
        day: String,
        reason: String,
    },
    ObjectionResolved {
        how: String,
    },
    /// The prizes' value placed into escrow (2213(1), 2013; format 15).
    EscrowFunded {
        amount: u64,
    },
    /// What the escrow held at the conclusion, back to the house.
    EscrowReturned {
        amount: u64,
    },
    Registered {
        entry: u32,
        player: String,
        event: usize,
        day: String,
        fee: PaidWith,
        fee_value: u64,
        buy_in: PaidWith,
        buy_in_value: u64,
        points: u64,
    },
    Started {
        event: usize,
        entries: Vec<u32>,
    },
    Rebought {
        entry: u32,
        paid: PaidWith,
        value: u64,
        points: u64,
    },
    Eliminated {
        entry: u32,
    },
    Withdrawn {
        entry: u32,
        /// The refund's day (journal format 15): its fee leaves that month's proceeds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        day: Option<String>,
    },
    Cancelled {
        reason: String,
    },
    Disqualified {
        player: String,
        entries: Vec<u32>,
        reason: String,
    },
    SplitProposed {
        event: usize,
        places: Vec<u32>,
        shares: Vec<(u32, u64)>,
    },
    SplitAgreed {
        entry: u32,
    },
    SplitRefused {
        reason: String,
    },
    HouseAdded {
        event: usize,
        amount: u64,
    },
    /// `prize`: cash, non_cash or voucher.
    Awarded {
        event: usize,
        entry: u32,
        player: String,
        place: u32,
        prize: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        voucher: Option<(u32, usize)>,
        value: u64,
        by_split: bool,
    },
    Ended {
        event: usize,
        carried: u64,
        split: bool,
    },
    VoucherCashed {
        number: u32,
        player: String,
        value: u64,
    },
    VoucherCancelled {
        number: u32,
        value: u64,
    },
    Concluded,
    /// The event plays at `table` (journal format 8).
    /// The table given to an event not started was taken back (format 14).
    TableReleased {
        event: usize,
        table: String,
    },
    TableGiven {
        event: usize,
        table: String,
    },
    /// What each colour of tournament chip counts from now on (2214(2)).
    ChipValues {
        values: Vec<(String, u64)>,
    },
}

impl TournamentRecord {
    pub fn of(event: &Event) -> TournamentRecord {
        use TournamentRecord as R;
        match event {
            Event::RulesFiled { day } => R::RulesFiled { day: day.to_string() },
            Event::ObjectionRecorded { reason, day } => R::ObjectionRecorded {
                day: day.to_string(),
                reason: reason.clone(),
            },
            Event::ObjectionResolved { how } => R::ObjectionResolved { how: how.clone() },
            Event::EscrowFunded { amount } => R::EscrowFunded { amount: *amount },
            Event::EscrowReturned { amount } => R::EscrowReturned { amount: *amount },
            Event::Registered { entry, points } => R::Registered {
                entry: entry.number,
                player: entry.player.clone(),
                event: entry.event,
                day: entry.day.to_string(),
                fee: PaidWith::of(&entry.fee.paid),
                fee_value: entry.fee.value,
                buy_in: PaidWith::of(&entry.buy_in.paid),
                buy_in_value: entry.buy_in.value,
                points: *points,
            },
            Event::Started { event, entries } => R::Started {
                event: *event,
                entries: entries.clone(),
            },
            Event::Rebought { entry, payment, points } => R::Rebought {
                entry: *entry,
                paid: PaidWith::of(&payment.paid),
                value: payment.value,
                points: *points,
            },
            Event::Eliminated { entry } => R::Eliminated { entry: *entry },
            Event::Withdrawn { entry, day } => R::Withdrawn {
                entry: *entry,
                day: day.map(|d| d.to_string()),
            },
            Event::Cancelled { reason } => R::Cancelled { reason: reason.clone() },
            Event::Disqualified {
                player,
                entries,
                reason,
            } => R::Disqualified {
                player: player.clone(),
                entries: entries.clone(),
                reason: reason.clone(),
            },
            Event::SplitProposed(split) => R::SplitProposed {
                event: split.event,
                places: split.places.clone(),
                shares: split.shares.clone(),
            },
            Event::SplitAgreed { entry } => R::SplitAgreed { entry: *entry },
            Event::SplitRefused { reason } => R::SplitRefused { reason: reason.clone() },
            Event::HouseAdded { event, amount } => R::HouseAdded {
                event: *event,
                amount: *amount,
            },
            Event::Awarded(a) => {
                let (prize, description, voucher) = match &a.prize {
                    Awarded::Cash(_) => ("cash", None, None),
                    Awarded::NonCash { description, .. } => ("non_cash", Some(description.clone()), None),
                    Awarded::Voucher { number, event, .. } => ("voucher", None, Some((*number, *event))),
                };
                R::Awarded {
                    event: a.event,
                    entry: a.entry,
                    player: a.player.clone(),
                    place: a.place,
                    prize: prize.to_string(),
                    description,
                    voucher,
                    value: a.prize.value(),
                    by_split: a.by_split,
                }
            }
            Event::Ended { event, carried, split } => R::Ended {
                event: *event,
                carried: *carried,
                split: *split,
            },
            Event::VoucherCashed { number, player, value } => R::VoucherCashed {
                number: *number,
                player: player.clone(),
                value: *value,
            },
            Event::VoucherCancelled { number, value } => R::VoucherCancelled {
                number: *number,
                value: *value,
            },
            Event::Concluded => R::Concluded,
        }
    }
}
