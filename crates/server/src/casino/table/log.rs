//! The table's operations log (Colorado 2212(5), Maryland ch.2 E): the
//! inspections, adjustments, limits posted, openings, no spins,
//! emergencies, annulments and disputes, each with who did it and their
//! licence.

use croupier_core::round::{Event, Person};

use super::{TableSlot, TABLE_LOG_MAX};
use crate::casino::actor::Actor;
use crate::casino::journal;

/// Who a logged act is from, and their licence number.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Signed {
    pub by: String,
    pub licence: String,
}

pub(super) fn logged(event: &Event) -> bool {
    matches!(
        event,
        Event::InspectionRecorded(_)
            | Event::AdjustmentRecorded(_)
            | Event::BallInspected { .. }
            | Event::SeriesEntered { .. }
            | Event::LimitsSet { .. }
            | Event::TableOpened { .. }
            | Event::TableClosed { .. }
            | Event::NoSpin { .. }
            | Event::SpinVoided { .. }
            | Event::EmergencyDeclared { .. }
            | Event::EmergencyLifted { .. }
            | Event::BetsAnnulled { .. }
            | Event::DisputeDecided { .. }
    )
}

/// Whether a request's effects put an act in the log, which its maker
/// signs. Only a request the log keeps pays for the signature: not a bet.
pub(super) fn signs(effects: &[super::Effect]) -> bool {
    use super::chip_days::ChipsChange;
    effects.iter().any(|e| match e {
        super::Effect::Core { events } => events.iter().any(logged),
        super::Effect::ChipDays(ChipsChange::Confirmed { .. } | ChipsChange::TakenAway { .. }) => true,
        super::Effect::Log(journal::JournalEvent::TableRetired { .. } | journal::JournalEvent::TableEdited { .. }) => {
            true
        }
        super::Effect::Witness(super::witness::WitnessChange::Closed(..)) => true,
        _ => false,
    })
}

impl TableSlot {
    /// Logs the events the log keeps, signed by whoever's request it is, the
    /// oldest going past [`TABLE_LOG_MAX`].
    pub(super) fn log_all(&mut self, at_ms: u64, events: &[Event], name_of: &dyn Fn(u64) -> String) {
        for event in events.iter().filter(|e| logged(e)) {
            let logged = journal::from_core(&self.id, event, name_of);
            self.log_event(at_ms, logged);
        }
    }

    /// Logs one event, signed by whoever's request it is.
    pub(super) fn log_event(&mut self, at_ms: u64, event: journal::JournalEvent) {
        if self.log.len() >= TABLE_LOG_MAX {
            self.log.pop_front();
        }
        self.log.push_back((at_ms, event, self.acting.clone()));
    }
}

/// A person as the logs name them (Colorado 2212(5), Maryland ch.2 E(6)).
pub(in crate::casino) fn person(actor: &Actor, role_text: &str) -> Person {
    Person {
        name: actor.username.clone(),
        role: role_text.to_string(),
        licence: if actor.licence.is_empty() {
            "-".to_string()
        } else {
            actor.licence.clone()
        },
    }
}
