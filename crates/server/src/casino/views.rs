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

/// An event of the journal as the API shows it.
pub fn view(event: &JournalEvent) -> EventView {
    use EventView as V;
    use JournalEvent as J;
    match event.clone() {
        J::UserCreated { username, role } => V::UserCreated { username, role },
        J::LoginFailed {
            username,
            failures,
            locked,
        } => V::LoginFailed {
            username,
            failures,
            locked,
        },
        J::LoginSucceeded { username } => V::LoginSucceeded { username },
        J::JournalFormatSet { format } => V::JournalFormatSet { format },
        J::CheckpointTaken { through, digest, bytes } => V::CheckpointTaken { through, digest, bytes },
        J::JournalRecovered {
            kept_through,
            cut,
            cut_head,
            backup,
            reason,
            damage,
            sealed,
        } => V::JournalRecovered {
            kept_through,
            cut,
            cut_head,
            backup,
            reason,
            damage,
            sealed,
        },
        J::UserLocked { username } => V::UserLocked { username },
        J::UserUnlocked { username } => V::UserUnlocked { username },
        J::PasswordSet { username } => V::PasswordSet { username },
        J::UserRetired { username } => V::UserRetired { username },
        J::UserEdited {
            username,
            display_name,
            role,
        } => V::UserEdited {
            username,
            display_name,
            role,
        },
        J::TableEdited {
            table,
            label,
            betting_window_ms,
        } => V::TableEdited {
            table,
            label,
            betting_window_ms,
        },
        J::TableRetired { table } => V::TableRetired { table },
        J::LicenceSet { username, licence } => V::LicenceSet { username, licence },
        J::OperatorNamed { name } => V::OperatorNamed { name },
        J::GamingDaySet { time_zone, starts_at } => V::GamingDaySet { time_zone, starts_at },
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
        J::CashedIn { player, amount } => V::CashedIn { player, amount },
        J::DrawerCounted {
            id,
            cashier,
            counted,
            expected,
        } => V::DrawerCounted {
            id,
            cashier,
            counted,
            expected,
        },
        J::CageTransactionVoided {
            id,
            transaction,
            kind,
            player,
            amount,
            made_by,
            reason,
        } => V::CageTransactionVoided {
            id,
            transaction,
            kind,
            player,
            amount,
            made_by,
            reason,
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
        J::TournamentCreated {
            tournament,
            name,
            profile,
        } => V::TournamentCreated {
            tournament,
            name,
            profile,
        },
        J::Tournament { tournament, record } => V::Tournament {
            tournament,
            // A record of strings and integers always serialises.
            record: serde_json::to_value(&record).unwrap_or_default(),
        },
        J::CouponIssued {
            id,
            player,
            table,
            value,
            expires_at_ms,
        } => V::CouponIssued {
            id,
            player,
            table,
            value,
            expires_at_ms,
        },
        J::CashedOut { player, amount } => V::CashedOut { player, amount },
        J::BoughtIn {
            table,
            player,
            amount,
            colour,
            chip_value,
        } => V::BoughtIn {
            table,
            player,
            amount,
            colour,
            chip_value,
        },
        J::ChipsSold {
            table,
            player,
            amount,
            colour,
            chip_value,
        } => V::ChipsSold {
            table,
            player,
            amount,
            colour,
            chip_value,
        },
        J::ChipsConfirmed {
            table,
            player,
            at_ms,
            by,
            licence,
        } => V::ChipsConfirmed {
            table,
            player,
            at_ms,
            by,
            licence,
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
        J::PastPosting {
            table,
            player,
            spot,
            stake,
            at_ms,
        } => V::PastPosting {
            table,
            player,
            spot,
            stake,
            at_ms,
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
        J::LeftTable {
            table,
            player,
            amount,
            colour,
        } => V::LeftTable {
            table,
            player,
            amount,
            colour,
        },
        J::Tipped { table, player, amount } => V::Tipped { table, player, amount },
        J::FloatFilled { table, amount } => V::FloatFilled { table, amount },
        J::FloatSlip { table, slip } => V::FloatSlip {
            table,
            slip: slip.into(),
        },
        J::InspectionRecorded {
            table,
            at_ms,
            by,
            licence,
            regulator,
        } => V::InspectionRecorded {
            table,
            at_ms,
            by,
            licence,
            regulator,
        },
        J::VerbalSeries {
            table,
            at_ms,
            by,
            licence,
            player,
            bet_ids,
        } => V::VerbalSeries {
            table,
            at_ms,
            by,
            licence,
            player,
            bet_ids,
        },
        J::BallInspected {
            table,
            at_ms,
            by,
            licence,
            reason,
            damaged,
        } => V::BallInspected {
            table,
            at_ms,
            by,
            licence,
            reason,
            damaged,
        },
        J::AdjustmentRecorded {
            table,
            at_ms,
            by,
            licence,
            replacement,
            description,
            witness,
            witness_licence,
            external,
        } => V::AdjustmentRecorded {
            table,
            at_ms,
            by,
            licence,
            replacement,
            description,
            witness,
            witness_licence,
            external,
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
        J::TableOpened { table } => V::TableOpened { table },
        J::TableClosed { table } => V::TableClosed { table },
        J::BettingOpened {
            table,
            round,
            deadline_ms,
        } => V::BettingOpened {
            table,
            round,
            deadline_ms,
        },
        J::BetAccepted {
            table,
            round,
            bet_id,
            player,
            spot,
            kind,
            stake,
            under_minimum,
        } => V::BetAccepted {
            table,
            round,
            bet_id,
            player,
            spot,
            kind,
            stake,
            under_minimum,
        },
        J::BetCancelled {
            table,
            round,
            bet_id,
            player,
            returned,
        } => V::BetCancelled {
            table,
            round,
            bet_id,
            player,
            returned,
        },
        J::NoMoreBets { table, round } => V::NoMoreBets { table, round },
        J::NoSpin { table, round, reason } => V::NoSpin { table, round, reason },
        J::SpinVoided { table, round, pocket } => V::SpinVoided { table, round, pocket },
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
        J::BetImprisoned {
            table,
            round,
            bet_id,
            player,
            held,
        } => V::BetImprisoned {
            table,
            round,
            bet_id,
            player,
            held,
        },
        J::RoundSettled {
            table,
            round,
            pocket,
            staked,
            returned,
        } => V::RoundSettled {
            table,
            round,
            pocket,
            staked,
            returned,
        },
        J::EmergencyDeclared { table, by, reason } => V::EmergencyDeclared {
            table,
            by: Some(by),
            reason,
        },
        J::EmergencyLifted { table, by } => V::EmergencyLifted { table, by: Some(by) },
        J::BetsAnnulled {
            table,
            by,
            bet_ids,
            reason,
        } => V::BetsAnnulled {
            table,
            by,
            bet_ids,
            reason,
        },
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
    }
}
