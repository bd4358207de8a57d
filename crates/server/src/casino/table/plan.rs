//! What a table's request changes in the table once durable (its plan is
//! the casino's one [`Plan`](crate::casino::plan::Plan)), and what it did,
//! as the API and the streams show it.

use bytes::Bytes;
use croupier_core::round::Event;

use super::PointsPlay;
use crate::api::EventView;
use crate::casino::journal::JournalEvent;
use crate::casino::views;

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

/// A table's plan: its effects are the table's own.
pub(in crate::casino) type Plan = crate::casino::plan::Plan<Effect>;

impl Plan {
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
