//! Colour chips kept past the gaming day they were bought on
//! (european-casino 5.4-5.5; the low-limit house's "Roulette Chips"):
//! cashed in at the table minimum of that day, or at $1 each, unless a
//! supervisor the profile names has confirmed their face value.
//!
//! A gaming day is a UTC day, as the cage's and the dealers' daily limits
//! count it. A player's chips are dated when they buy chips holding none,
//! with the table's minimum then; the date goes when they leave.

use croupier_core::profile::PastDayValue;
use foldhash::HashMap;

use super::{account, transfer, Effect, Plan, TableSlot};
use crate::api::{ApiError, ErrorCode};
use crate::casino::actor::Actor;
use crate::casino::directory::Directory;
use crate::casino::journal::{require_format, JournalEvent, FORMAT_CHIPS_PAST_DAY};
use crate::casino::{err, policy};
use croupier_ledger::Account;

const DAY_MS: u64 = 86_400_000;

/// When a seated player's chips were bought, what the table's minimum was
/// then, and whether a supervisor has confirmed their face value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Dated {
    pub day: u64,
    pub minimum: Option<u64>,
    pub confirmed: bool,
}

/// A change to the dates, applied once durable.
pub(in crate::casino) enum ChipsChange {
    Dated { player: String, dated: Dated },
    Confirmed { player: String, event: JournalEvent },
    Gone { player: String },
}

/// What a player's chips are cashed in at on leaving, where it is not their face.
pub(super) struct Revalued {
    pub paid: u64,
    pub chips: u64,
    pub unit: u64,
    pub day: u64,
}

impl TableSlot {
    /// The table's minimum bet as posted now: the least minimum of any kind.
    fn table_minimum(&self) -> Option<u64> {
        self.table.limits().iter().map(|(_, r)| r.min.get()).min()
    }

    /// Dates `player`'s chips when they buy holding none (from journal format 10,
    /// at a table whose profile values chips past the gaming day).
    pub(super) fn date_chips(&self, dir: &Directory, plan: &mut Plan, at_ms: u64, player: &str) {
        let dates = self.table.profile().spec().chips_past_day.is_some();
        if !dates || dir.journal_format() < FORMAT_CHIPS_PAST_DAY {
            return;
        }
        let holds = self.chips_of(player).map(|c| self.balance_of(&c)).unwrap_or(0) > 0;
        if holds && self.chip_days.contains_key(player) {
            return;
        }
        let dated = Dated {
            day: at_ms / DAY_MS,
            minimum: self.table_minimum(),
            confirmed: false,
        };
        plan.effects.push(Effect::ChipDays(ChipsChange::Dated {
            player: player.to_string(),
            dated,
        }));
    }

    /// european-casino 5.4: what `player`'s chips, `amount` in all at
    /// `chip_value` each, are cashed in at on leaving at `at_ms`, where
    /// that is not their face value.
    pub(super) fn past_day_value(&self, at_ms: u64, player: &str, amount: u64, chip_value: u64) -> Option<Revalued> {
        let rule = self.table.profile().spec().chips_past_day.as_ref()?;
        let dated = self.chip_days.get(player)?;
        if dated.confirmed || at_ms / DAY_MS <= dated.day || chip_value == 0 {
            return None;
        }
        // No minimum was posted the day they were bought: nothing to value them at but their face.
        let unit = match rule.value {
            PastDayValue::TableMinimum => dated.minimum?,
            PastDayValue::Each(each) => each,
        };
        let chips = amount / chip_value;
        // What does not make a whole chip (a half handed back) keeps its face.
        let paid = chips.saturating_mul(unit).saturating_add(amount % chip_value);
        (paid != amount).then_some(Revalued {
            paid,
            chips,
            unit,
            day: dated.day,
        })
    }

    /// Cashes in `player`'s revalued chips: the face value leaves their chips,
    /// the value paid reaches their wallet, and the house keeps or pays the difference.
    pub(super) fn plan_revalued(
        &self,
        plan: &mut Plan,
        id: &str,
        player: &str,
        chips: Account,
        amount: u64,
        value: &Revalued,
    ) -> Result<(), ApiError> {
        let wallet = account(Account::wallet(player))?;
        let why = "colour chips past the gaming day, at the table minimum of the day bought (european-casino 5.4)";
        if amount.min(value.paid) > 0 {
            plan.transfers.push(transfer(
                format!("leave/{id}"),
                chips.clone(),
                wallet.clone(),
                amount.min(value.paid),
                why,
            ));
        }
        if value.paid < amount {
            plan.transfers.push(transfer(
                format!("leave/{id}/day"),
                chips,
                Account::House,
                amount - value.paid,
                why,
            ));
        } else {
            plan.transfers.push(transfer(
                format!("leave/{id}/day"),
                Account::House,
                wallet,
                value.paid - amount,
                why,
            ));
        }
        plan.events.push(JournalEvent::ChipsRevalued {
            table: self.id.clone(),
            player: player.to_string(),
            face: amount,
            paid: value.paid,
            chips: value.chips,
            unit: value.unit,
            bought_day: value.day,
        });
        Ok(())
    }

    /// `confirm_chips`: a supervisor the profile names confirms a seated
    /// player's chips at their face value (european-casino 5.5).
    pub(super) fn plan_confirm_chips(
        &self,
        dir: &Directory,
        at_ms: u64,
        actor: &Actor,
        player: &str,
        plan: &mut Plan,
    ) -> Result<(), ApiError> {
        require_format(dir.journal_format(), FORMAT_CHIPS_PAST_DAY, "confirming chips is")?;
        let Some(rule) = self.table.profile().spec().chips_past_day.as_ref() else {
            return Err(err(
                ErrorCode::BadRequest,
                format!(
                    "colour chips keep their face value at table {} whatever the day: there is nothing to confirm",
                    self.id
                ),
            ));
        };
        let mut allowed = Vec::new();
        for title in &rule.confirmed_by {
            allowed.extend_from_slice(policy::dispute_deciders(title, dir.journal_format()).unwrap_or(&[]));
        }
        if !allowed.contains(&actor.role) {
            let what = format!(
                "confirm colour chips at table {}: its profile gives that to the {}",
                self.id,
                rule.confirmed_by.join(" or ")
            );
            return Err(ApiError::forbidden(&what, actor.role));
        }
        dir.player(player)?;
        let Some(dated) = self.chip_days.get(player) else {
            return Err(err(
                ErrorCode::NotSeated,
                format!("{player} holds no colour chips at table {}", self.id),
            ));
        };
        if dated.confirmed {
            // Confirmed already: nothing to write.
            return Ok(());
        }
        let signed = super::person(actor, "");
        let event = JournalEvent::ChipsConfirmed {
            table: self.id.clone(),
            player: player.to_string(),
            at_ms,
            by: signed.name,
            licence: signed.licence,
        };
        plan.events.push(event.clone());
        plan.effects.push(Effect::ChipDays(ChipsChange::Confirmed {
            player: player.to_string(),
            event,
        }));
        Ok(())
    }

    pub(super) fn change_chip_days(&mut self, at_ms: u64, change: ChipsChange) {
        match change {
            ChipsChange::Dated { player, dated } => {
                self.chip_days.insert(player, dated);
            }
            ChipsChange::Confirmed { player, event } => {
                if let Some(dated) = self.chip_days.get_mut(&player) {
                    dated.confirmed = true;
                }
                self.log_event(at_ms, event);
            }
            ChipsChange::Gone { player } => {
                self.chip_days.remove(&player);
            }
        }
    }
}

/// Each seated player's dated chips, by name.
pub type ChipDays = HashMap<String, Dated>;
