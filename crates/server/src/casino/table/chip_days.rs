//! Colour chips taken away from the table and brought back
//! (european-casino 5.2-5.5; the low-limit house's "Roulette Chips"):
//! cashed in at the table minimum of the gaming day they were bought on,
//! or at $1 each, unless a supervisor the profile names has confirmed
//! their face value.
//!
//! european-casino 5.4 reads: "If a player takes colour chips away from the
//! table and returns them after the gaming day has ended, these chips are
//! cashed in according to their face value equal to the table minimum for
//! the gaming day when the chips were bought". The low-limit house: "If
//! Roulette-specific chips are removed from the table and need to be
//! returned at any value other than $1, then the floor manager must be
//! called." Both speak of chips that left the table, not of a seated player
//! the clock passes. So from journal format 14:
//!
//! - a seated player's chips are always cashed in at their face value;
//! - the staff record that a player took their chips away (5.2 forbids it,
//!   so it is an irregularity the operations log keeps); those chips play
//!   no more until they are cashed in;
//! - each purchase is dated on its own, with the table's minimum that day;
//! - chips brought back are cashed in purchase by purchase, each chip at
//!   the lesser of its face value and the rule's value: never above what it
//!   is worth, whatever the table's minimum was.
//!
//! Up to format 13 a seated player's chips were dated when bought holding
//! none, and revalued whenever the player left after that UTC day, even
//! above their face: 200.00 in chips of 0.01 came back as 20,000.00. Those
//! journals replay as they were written.
//!
//! A gaming day is the casino's (`gaming_day.rs`), as the cage's and the
//! dealers' daily limits count it.

use croupier_core::profile::PastDayValue;
use foldhash::HashMap;
use serde::{Deserialize, Serialize};

use super::{account, transfer, Effect, Plan, TableSlot};
use crate::api::{ApiError, ErrorCode};
use crate::casino::actor::Actor;
use crate::casino::directory::Directory;
use crate::casino::journal::{require_format, JournalEvent, FORMAT_CHIPS_PAST_DAY, FORMAT_CHIPS_TAKEN_AWAY};
use crate::casino::{err, policy};
use croupier_ledger::Account;

/// The most purchases of one player's chips a table dates apart (those of
/// one gaming day at one minimum are one): more than a year of days.
pub const LOTS_MAX: usize = 400;

/// When a seated player's chips were bought, what the table's minimum was
/// then, and whether a supervisor has confirmed their face value (journal
/// formats 10 to 13).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Dated {
    pub day: u64,
    pub minimum: Option<u64>,
    pub confirmed: bool,
}

/// One purchase of a player's colour chips (from journal format 14): its
/// gaming day, the table's minimum then, and how many chips.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Lot {
    pub day: u64,
    pub minimum: Option<u64>,
    pub chips: u64,
}

/// Chips a player took away from the table: when, and whether a supervisor
/// the profile names confirmed their face value (european-casino 5.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Away {
    pub at_ms: u64,
    pub confirmed: bool,
}

/// A seated player's chips from journal format 14: each purchase, and
/// whether they were taken away.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Held {
    pub lots: Vec<Lot>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub away: Option<Away>,
}

/// A change to the dates, applied once durable.
pub(in crate::casino) enum ChipsChange {
    Dated {
        player: String,
        dated: Dated,
    },
    Confirmed {
        player: String,
        event: JournalEvent,
    },
    Gone {
        player: String,
    },
    /// A purchase, dated on its own (format 14).
    Bought {
        player: String,
        lot: Lot,
    },
    /// The staff recorded that the player took their chips away (format 14).
    TakenAway {
        player: String,
        at_ms: u64,
        event: JournalEvent,
    },
}

/// What a player's chips are cashed in at on leaving, where it is not their face.
pub(super) struct Revalued {
    pub paid: u64,
    pub chips: u64,
    pub unit: u64,
    pub day: u64,
    /// Each purchase revalued (format 14): its day, chips and value each.
    pub lots: Vec<(u64, u64, u64)>,
}

impl TableSlot {
    /// The table's minimum bet as posted now: the least minimum of any kind.
    fn table_minimum(&self) -> Option<u64> {
        self.table.limits().iter().map(|(_, r)| r.min.get()).min()
    }

    /// Dates `player`'s purchase of `amount` in chips of `chip_value` at a
    /// table whose profile values chips taken away: from journal format 14
    /// each purchase on its own; in formats 10 to 13 only a purchase made
    /// holding none.
    pub(super) fn date_chips(
        &self,
        dir: &Directory,
        plan: &mut Plan,
        at_ms: u64,
        player: &str,
        (amount, chip_value): (u64, u64),
    ) -> Result<(), ApiError> {
        let dates = self.table.profile().spec().chips_past_day.is_some();
        if !dates || !dir.rules().chips_past_day {
            return Ok(());
        }
        let day = dir.gaming_day(at_ms);
        let minimum = self.table_minimum();
        if dir.rules().chips_taken_away {
            let lots = self.chips_held.0.get(player).map_or(&[][..], |h| &h.lots[..]);
            let joins = lots.last().is_some_and(|l| l.day == day && l.minimum == minimum);
            if !joins && lots.len() >= LOTS_MAX {
                return Err(err(
                    ErrorCode::Full,
                    format!(
                        "{player} has bought chips at table {} on {LOTS_MAX} gaming days or minimums, each dated \
                         apart (european-casino 5.4): cash them in before buying more",
                        self.id
                    ),
                ));
            }
            plan.effects.push(Effect::ChipDays(ChipsChange::Bought {
                player: player.to_string(),
                lot: Lot {
                    day,
                    minimum,
                    chips: amount / chip_value.max(1),
                },
            }));
            return Ok(());
        }
        let holds = self.chips_of(player).map(|c| self.balance_of(&c)).unwrap_or(0) > 0;
        if holds && self.chip_days.0.contains_key(player) {
            return Ok(());
        }
        let dated = Dated {
            day,
            minimum,
            confirmed: false,
        };
        plan.effects.push(Effect::ChipDays(ChipsChange::Dated {
            player: player.to_string(),
            dated,
        }));
        Ok(())
    }

    /// Whether `player`'s chips were recorded taken away from the table
    /// (format 14), and since when: the pit's report shows it.
    pub fn chips_away(&self, player: &str) -> Option<Away> {
        self.chips_held.0.get(player).and_then(|h| h.away)
    }

    /// Refuses a bet, a purchase or a tip of `player`'s while their chips
    /// are away from the table (european-casino 5.2, 5.4): they come back
    /// only by being cashed in.
    pub(super) fn check_chips_here(&self, player: &str) -> Result<(), ApiError> {
        match self.chips_held.0.get(player).and_then(|h| h.away) {
            None => Ok(()),
            Some(_) => Err(err(
                ErrorCode::ChipsAway,
                format!(
                    "{player}'s colour chips were taken away from table {}: they are cashed in before \
                     {player} plays, buys or tips here again (european-casino 5.2, 5.4)",
                    self.id
                ),
            )),
        }
    }

    /// european-casino 5.4: what `player`'s chips, `amount` in all at
    /// `chip_value` each, are cashed in at on leaving at `at_ms`, where
    /// that is not their face value.
    pub(super) fn past_day_value(
        &self,
        dir: &Directory,
        at_ms: u64,
        player: &str,
        amount: u64,
        chip_value: u64,
    ) -> Option<Revalued> {
        let rule = self.table.profile().spec().chips_past_day.as_ref()?;
        if chip_value == 0 {
            return None;
        }
        if dir.rules().chips_taken_away {
            return self.brought_back_value(dir.gaming_day(at_ms), player, amount, chip_value);
        }
        let dated = self.chip_days.0.get(player)?;
        if dated.confirmed || dir.gaming_day(at_ms) <= dated.day {
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
            lots: Vec::new(),
        })
    }

    /// From journal format 14: chips taken away and brought back, valued
    /// purchase by purchase. The chips held are the newest purchases' (the
    /// chips a player lost went first), and chips won beyond every purchase
    /// count as the newest's. A purchase's chips are revalued where the
    /// profile's rule applies to them (brought back after their gaming day,
    /// or whenever, by the profile), each at the lesser of its face and the
    /// rule's value. A seated player's chips, and chips a supervisor
    /// confirmed, keep their face.
    fn brought_back_value(&self, today: u64, player: &str, amount: u64, chip_value: u64) -> Option<Revalued> {
        let rule = self.table.profile().spec().chips_past_day.as_ref()?;
        let held = self.chips_held.0.get(player)?;
        let away = held.away?;
        if away.confirmed {
            return None;
        }
        let mut left = amount / chip_value;
        // A player seated before format 14 has one date for all their chips.
        let legacy;
        let lots: &[Lot] = if held.lots.is_empty() {
            let dated = self.chip_days.0.get(player)?;
            legacy = [Lot {
                day: dated.day,
                minimum: dated.minimum,
                chips: left,
            }];
            &legacy
        } else {
            &held.lots
        };
        let mut paid = amount % chip_value;
        let mut revalued = Vec::new();
        // The newest purchase also answers for chips won beyond every purchase.
        let mut won = left.saturating_sub(lots.iter().map(|l| l.chips).sum());
        for lot in lots.iter().rev() {
            let chips = left.min(lot.chips.saturating_add(won));
            won = 0;
            left -= chips;
            let due = rule.always || today > lot.day;
            let unit = match rule.value {
                PastDayValue::TableMinimum => lot.minimum,
                PastDayValue::Each(each) => Some(each),
            };
            match unit.map(|u| u.min(chip_value)) {
                Some(unit) if due && unit < chip_value && chips > 0 => {
                    paid = paid.saturating_add(chips.saturating_mul(unit));
                    revalued.push((lot.day, chips, unit));
                }
                // No minimum was posted the day they were bought: nothing to value them at but their face.
                _ => paid = paid.saturating_add(chips.saturating_mul(chip_value)),
            }
            if left == 0 {
                break;
            }
        }
        let first = *revalued.last()?;
        Some(Revalued {
            paid,
            chips: revalued.iter().map(|r| r.1).sum(),
            unit: revalued.iter().map(|r| r.2).min().unwrap_or(first.2),
            day: first.0,
            lots: revalued.into_iter().rev().collect(),
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
            lots: value.lots.clone(),
        });
        Ok(())
    }

    /// The supervisors `rule` names, as roles, and the refusal for anyone else.
    fn chips_supervisor(&self, dir: &Directory, actor: &Actor, confirmed_by: &[String]) -> Result<(), ApiError> {
        let mut allowed = Vec::new();
        for title in confirmed_by {
            allowed.extend_from_slice(policy::dispute_deciders(title, dir.journal_format()).unwrap_or(&[]));
        }
        if allowed.contains(&actor.role) {
            return Ok(());
        }
        let what = format!(
            "confirm colour chips at table {}: its profile gives that to the {}",
            self.id,
            confirmed_by.join(" or ")
        );
        Err(ApiError::forbidden(&what, actor.role))
    }

    /// `confirm_chips`: a supervisor the profile names confirms a player's
    /// chips at their face value (european-casino 5.5). From journal format
    /// 14, chips taken away from the table; before it, a seated player's.
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
        self.chips_supervisor(dir, actor, &rule.confirmed_by)?;
        dir.player(player)?;
        let confirmed = if dir.rules().chips_taken_away {
            if !self.colours.contains_key(player) {
                return Err(err(
                    ErrorCode::NotSeated,
                    format!("{player} holds no colour chips at table {}", self.id),
                ));
            }
            let Some(away) = self.chips_held.0.get(player).and_then(|h| h.away) else {
                return Err(err(
                    ErrorCode::BadRequest,
                    format!(
                        "{player}'s colour chips are on table {}: a seated player's chips are always cashed in \
                         at their face value, so there is nothing to confirm (european-casino 5.4 revalues \
                         only chips taken away from the table)",
                        self.id
                    ),
                ));
            };
            away.confirmed
        } else {
            let Some(dated) = self.chip_days.0.get(player) else {
                return Err(err(
                    ErrorCode::NotSeated,
                    format!("{player} holds no colour chips at table {}", self.id),
                ));
            };
            dated.confirmed
        };
        if confirmed {
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

    /// `chips_taken_away`: the dealer or a supervisor records that a seated
    /// player took their colour chips away from the table (european-casino
    /// 5.2: "A player cannot remove colour chips from the table"; the
    /// low-limit house: "Roulette-specific chips must stay on or above the
    /// Roulette table at all times"). Their chips play no more until cashed
    /// in, and are then valued as the profile says chips brought back are.
    pub(super) fn plan_take_away(
        &self,
        dir: &Directory,
        at_ms: u64,
        actor: &Actor,
        player: &str,
        plan: &mut Plan,
    ) -> Result<(), ApiError> {
        require_format(dir.journal_format(), FORMAT_CHIPS_TAKEN_AWAY, "chips taken away are")?;
        if self.table.profile().spec().chips_past_day.is_none() {
            return Err(err(
                ErrorCode::BadRequest,
                format!(
                    "colour chips keep their face value at table {} wherever they are: its profile values no \
                     chips taken away, and there is nothing to record",
                    self.id
                ),
            ));
        }
        let player_id = dir.player(player)?.player_id;
        if !self.colours.contains_key(player) {
            return Err(err(
                ErrorCode::NotSeated,
                format!("{player} holds no colour chips at table {}", self.id),
            ));
        }
        if self.chips_held.0.get(player).is_some_and(|h| h.away.is_some()) {
            // Recorded already: nothing to write.
            return Ok(());
        }
        if self.table.bets().iter().any(|b| b.player == player_id)
            || self.table.bonus_wagers().iter().any(|w| w.player == player_id)
        {
            return Err(err(
                ErrorCode::BetsOnLayout,
                format!("{player}'s bets are still on the layout: their round settles first"),
            ));
        }
        let face = self.chips(player).max(0) as u64;
        let signed = super::person(actor, "");
        let event = JournalEvent::ChipsTakenAway {
            table: self.id.clone(),
            player: player.to_string(),
            chips: face,
            at_ms,
            by: signed.name,
            licence: signed.licence,
        };
        plan.events.push(event.clone());
        plan.effects.push(Effect::ChipDays(ChipsChange::TakenAway {
            player: player.to_string(),
            at_ms,
            event,
        }));
        Ok(())
    }

    pub(super) fn change_chip_days(&mut self, at_ms: u64, change: ChipsChange) {
        match change {
            ChipsChange::Dated { player, dated } => {
                self.chip_days.0.insert(player, dated);
            }
            ChipsChange::Confirmed { player, event } => {
                if let Some(dated) = self.chip_days.0.get_mut(&player) {
                    dated.confirmed = true;
                }
                if let Some(away) = self.chips_held.0.get_mut(&player).and_then(|h| h.away.as_mut()) {
                    away.confirmed = true;
                }
                self.log_event(at_ms, event);
            }
            ChipsChange::Gone { player } => {
                self.chip_days.0.remove(&player);
                self.chips_held.0.remove(&player);
            }
            ChipsChange::Bought { player, lot } => {
                let lots = &mut self.chips_held.0.entry(player).or_default().lots;
                match lots.last_mut() {
                    Some(last) if last.day == lot.day && last.minimum == lot.minimum => {
                        last.chips = last.chips.saturating_add(lot.chips);
                    }
                    _ => lots.push(lot),
                }
            }
            ChipsChange::TakenAway { player, at_ms, event } => {
                self.chips_held.0.entry(player).or_default().away = Some(Away {
                    at_ms,
                    confirmed: false,
                });
                self.log_event(at_ms, event);
            }
        }
    }
}

/// Each seated player's dated chips, by name (formats 10 to 13). Only this
/// file reads or changes them.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub(super) struct ChipDays(#[serde(with = "croupier_core::canonical::map")] HashMap<String, Dated>);

/// Each seated player's purchases and whether they took them away (format
/// 14). Only this file reads or changes them.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub(super) struct ChipsHeld(#[serde(with = "croupier_core::canonical::map")] HashMap<String, Held>);

impl ChipsHeld {
    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl TableSlot {
    /// Whether `player`'s colour chips here are dated or held: they leave
    /// the table with them.
    pub(super) fn chips_dated(&self, player: &str) -> bool {
        self.chip_days.0.contains_key(player) || self.chips_held.0.contains_key(player)
    }
}
