//! A request's plan at a table: the transfers that move its money, its
//! journal events, and what it changes in the table once durable; and what
//! it did, as the API and the streams show it.

use bytes::Bytes;
use croupier_core::round::Event;
use croupier_ledger::{Account, Transfer};

use super::PointsPlay;
use crate::api::{ApiError, ErrorCode, EventView};
use crate::casino::err;
use crate::casino::journal::JournalEvent;
use crate::casino::views;

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

/// What a request does once its batch is durable.
pub(in crate::casino) enum Effect {
    Core {
        events: Vec<Event>,
    },
    Seat {
        player: String,
        colour: Option<(String, u64)>,
    },
    /// A dispute corrected these players' takings from `round`.
    Corrected {
        round: u64,
        corrections: Vec<(u64, i128)>,
    },
    /// A dealer sold `player` chips worth `amount` on the UTC day `day`, by sale `id`.
    DealerSold {
        player: String,
        day: u64,
        amount: u64,
        id: String,
    },
    /// A match play coupon was played on a bet (`Some`: its id and round),
    /// or its bet was cancelled and it may be played again (`None`).
    Coupon {
        coupon: String,
        played_on: Option<(String, u64)>,
    },
    /// The table plays a tournament's event in points, or cash again.
    Points(Option<PointsPlay>),
    /// A player's colour chips dated, confirmed at face value, or gone (european-casino 5.4-5.5).
    ChipDays(super::chip_days::ChipsChange),
    /// A slip asked for, signed or voided, or the float counted (format 15).
    Slip(super::slips::SlipChange),
    /// An adjustment awaiting its security witness, or witnessed or withdrawn (format 16).
    Witness(super::witness::WitnessChange),
    /// A dispute decided under the client's `id`, its contents' digest kept
    /// to tell a resend from another decision under the same id (format 14).
    DisputeId {
        id: String,
        digest: String,
    },
    /// An event the operations log keeps that changes nothing else (format 15).
    Log(JournalEvent),
}

/// A request's plan: the transfers that move its money, its events, and what it changes once durable.
pub(in crate::casino) struct Plan {
    pub transfers: Vec<Transfer>,
    pub events: Vec<JournalEvent>,
    pub effects: Vec<Effect>,
    /// The client's id of the dispute being decided, which names its
    /// corrections' transfers (journal format 14).
    pub dispute_id: Option<String>,
    /// A dealer's sale, for the cage to check against the player's day at
    /// every table (journal format 14).
    pub claim: Option<super::SaleClaim>,
}

impl Plan {
    pub(super) fn new() -> Plan {
        Plan {
            transfers: Vec::new(),
            events: Vec::new(),
            effects: Vec::new(),
            dispute_id: None,
            claim: None,
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.transfers.is_empty() && self.events.is_empty() && self.effects.is_empty()
    }

    /// A player got colour chips (`event` says how): they sit at the table in
    /// `colour`, each chip worth `chip_value`.
    pub(super) fn seat(&mut self, event: JournalEvent, player: &str, colour: String, chip_value: u64) {
        self.events.push(event);
        self.effects.push(Effect::Seat {
            player: player.to_string(),
            colour: Some((colour, chip_value)),
        });
    }
}

/// What a request at a table did: its events as the API shows them, and
/// each one's JSON, written once by the table for every stream that sends it.
#[derive(Default)]
pub struct Executed {
    pub views: Vec<EventView>,
    pub texts: Vec<Bytes>,
}

impl std::fmt::Debug for Executed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Executed({} events)", self.views.len())
    }
}

impl Executed {
    /// Adds what a request run after this one did.
    pub fn extend(&mut self, after: Executed) {
        self.views.extend(after.views);
        self.texts.extend(after.texts);
    }

    pub(super) fn of(events: &[JournalEvent]) -> Executed {
        let views: Vec<EventView> = events.iter().map(views::view).collect();
        // A view of strings and integers always serialises.
        let texts = views
            .iter()
            .map(|v| Bytes::from(serde_json::to_vec(v).unwrap_or_default()))
            .collect();
        Executed { views, texts }
    }
}
