//! The journal's events as the API shows them: codes become words here,
//! at the edge, and derived figures (a pocket's colour, a bet's net) are
//! added. Nothing here is stored, so it may be reworded freely.

use super::journal::event::{colour_of, JournalEvent};
use crate::api::{Correction, EventView};
use croupier_core::round::ReturnReason;

/// Why a bet was returned, in words.
pub fn return_sentence(code: &str) -> String {
    match ReturnReason::parse(code) {
        Some(ReturnReason::TableClosed) => "the table closed".into(),
        Some(ReturnReason::Annulled) => "annulled as a collective bet (european-casino 3.7)".into(),
        Some(ReturnReason::RoundVoided) => "the round was void before its result".into(),
        Some(ReturnReason::UnderMinimum) => "under the table minimum: your bet under the minimum here was paid or \
                                             collected once already, and the next ones are returned whatever the \
                                             result (european-casino 3.13)"
            .into(),
        Some(ReturnReason::NoSpin(reason)) => format!("no spin ({})", reason.name().replace('_', " ")),
        None => code.replace('_', " "),
    }
}

/// A match over a journal event: each plain event's fields copied into its
/// view, then the arms given for the others.
macro_rules! view_of {
    ({ $event:expr, $($special:tt)* } $( $group:ident { $( $(#[$vm:meta])* $name:ident { $( $(#[$fm:meta])* $field:ident : $ty:ty ),* $(,)? } ),* $(,)? } )*) => {
        match $event {
            $( $( JournalEvent::$name { $($field),* } => EventView::$name { $($field),* }, )* )*
            $($special)*
        }
    };
}

/// An event of the journal as the API shows it: a plain event's fields
/// copied (`api/plain_events.rs`), the others rendered here.
pub fn view(event: &JournalEvent) -> EventView {
    use EventView as V;
    use JournalEvent as J;
    crate::api::plain_events!(view_of! {
        event.clone(),
        J::UserEdited {
            username,
            display_name,
            role,
        } => V::UserEdited {
            username,
            display_name,
            role,
        },
            J::UserCreated { username, role } => V::UserCreated { username, role },
            J::TableCreated {
                table,
                profile,
                wheel,
                outcome,
            } => V::TableCreated {
                table,
                profile,
                wheel,
                outcome,
            },
            J::TablePlay {
                table,
                tournament,
                event,
            } => V::TablePlay {
                table,
                tournament,
                event,
            },
            J::Tournament { tournament, record } => V::Tournament {
                tournament,
                // A record of strings and integers always serialises.
                record: serde_json::to_value(&record).unwrap_or_default(),
            },
            J::ChipsRevalued {
                table,
                player,
                face,
                paid,
                chips,
                unit,
                bought_day,
                lots,
            } => V::ChipsRevalued {
                table,
                player,
                face,
                paid,
                chips,
                unit,
                bought_day,
                lots: lots
                    .into_iter()
                    .map(|(day, chips, unit)| crate::api::RevaluedLot { day, chips, unit })
                    .collect(),
            },
            J::ChipsTakenAway {
                table,
                player,
                chips,
                at_ms,
                by,
                licence,
            } => V::ChipsTakenAway {
                table,
                player,
                chips,
                at_ms,
                by: Some(by),
                licence: Some(licence),
            },
            J::FloatSlip { table, slip } => V::FloatSlip {
                table,
                slip: slip.into(),
            },
            J::LimitsSet {
                table,
                by,
                licence,
                limits,
                ..
            } => V::LimitsSet {
                table,
                by: Some(by),
                licence: Some(licence),
                limits: limits
                    .into_iter()
                    .map(|l| crate::api::KindLimit {
                        kind: l.kind,
                        min: l.min,
                        max: l.max,
                    })
                    .collect(),
            },
            J::Result { table, round, pocket } => V::Result {
                table,
                round,
                colour: colour_of(&pocket).to_string(),
                pocket,
            },
            J::BetSettled {
                table,
                round,
                bet_id,
                player,
                result,
                staked,
                returned,
            } => V::BetSettled {
                table,
                round,
                bet_id,
                player,
                result,
                staked,
                returned,
                net: returned as i64 - staked as i64,
            },
            J::BetReturned {
                table,
                round,
                bet_id,
                player,
                returned,
                reason,
            } => V::BetReturned {
                table,
                round,
                bet_id,
                player,
                returned,
                why: return_sentence(&reason),
                reason,
            },
            J::BonusDrawn {
                table,
                round,
                targets,
                lucky,
            } => V::BonusDrawn {
                table,
                round,
                targets,
                lucky: lucky.iter().map(Into::into).collect(),
            },
            J::BonusWager {
                table,
                round,
                wager_id,
                player,
                what,
                amount,
                symbol,
                for_wager,
                ..
            } => V::BonusWager {
                table,
                round,
                wager_id,
                player,
                what,
                amount,
                symbol,
                for_wager,
            },
            J::EmergencyDeclared { table, by, reason } => V::EmergencyDeclared {
                table,
                by: Some(by),
                reason,
            },
            J::EmergencyLifted { table, by } => V::EmergencyLifted { table, by: Some(by) },
            J::DisputeDecided {
                table,
                by,
                reason,
                corrections,
                round,
            } => V::DisputeDecided {
                round,
                table,
                by: Some(by),
                reason,
                corrections: corrections
                    .into_iter()
                    .map(|c| Correction {
                        player: c.player,
                        amount: c.amount,
                    })
                    .collect(),
            },
    })
}
