//! Money at a table: colour chips bought from a wallet or for cash, cashed
//! back in on leaving, and tips.

use croupier_core::Minor;
use croupier_ledger::{Account, TableAccount};

use super::{account, transfer, Effect, Plan, TableSlot};
use crate::api::{ApiError, ErrorCode, Role};
use crate::casino::actor::Actor;
use crate::casino::directory::Directory;
use crate::casino::err;
use crate::casino::journal::JournalEvent;

/// The most chips, in minor units, dealers sell one player for cash at a
/// table in a UTC day (10,000.00), however the sales are split: a dishonest
/// dealer alone could sell 10^15 in chips to a friend against cash never
/// paid. Above it a pit supervisor (or an admin) makes the sale: a second
/// person on a large one.
pub const DEALER_SALE_MAX: u64 = 1_000_000;

pub use crate::casino::plan::SaleClaim;

/// What dealers sold one player at a table on a UTC day, and by which sale
/// ids: a sale sent again is the ledger's to judge, not the limit's.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct DealerDay {
    pub(super) day: u64,
    pub(super) sold: u64,
    #[serde(with = "croupier_core::canonical::set")]
    pub(super) ids: std::collections::HashSet<String>,
}
use crate::casino::request::Request;

/// What dealers sold each player at a table on their latest UTC day of
/// sales. Only this file reads or changes it.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub(super) struct DealerSales(#[serde(with = "croupier_core::canonical::map")] foldhash::HashMap<String, DealerDay>);

impl DealerSales {
    /// Once durable: a dealer sold `player` chips worth `amount` on `day`, by sale `id`.
    pub(super) fn record(&mut self, player: String, day: u64, amount: u64, id: String) {
        let sales = self.0.entry(player).or_default();
        if sales.day != day {
            *sales = DealerDay {
                day,
                ..DealerDay::default()
            };
        }
        sales.sold = sales.sold.saturating_add(amount);
        sales.ids.insert(id);
    }
}

/// Where a player's new colour chips are paid from.
enum PaidFrom {
    /// Their wallet at the cage (a buy-in).
    Wallet,
    /// Cash handed to the dealer, into the table's drop box (Colorado 2202).
    Cash,
}

impl TableSlot {
    /// The colour of `player`'s chips at this table for a purchase of
    /// `amount` in chips worth `chip_value` each: the colour they have, or the
    /// first no one else here has (Maryland ch.3 B, european-casino 5.1), or
    /// any where colours may repeat (Colorado 2203(3)).
    fn colour_for(&self, player: &str, amount: u64, chip_value: u64) -> Result<String, ApiError> {
        if chip_value == 0 || amount == 0 || !amount.is_multiple_of(chip_value) {
            return Err(err(
                ErrorCode::BadAmount,
                "the amount must be a positive whole number of chips of the chip value",
            ));
        }
        let palette = &self.table.profile().spec().chip_colours;
        match self.colours.get(player) {
            Some((colour, value)) if *value == chip_value => Ok(colour.clone()),
            Some((_, value)) => Err(err(
                ErrorCode::ChipValue,
                format!(
                    "{player}'s colour chips at this table are worth {} each",
                    Minor::new(*value)
                ),
            )),
            None if self.shared_colours => Ok(palette[self.colours.len() % palette.len()].clone()),
            None => palette
                .iter()
                .find(|c| !self.colours.values().any(|(taken, _)| taken == *c))
                .cloned()
                .ok_or_else(|| err(ErrorCode::NoColour, "every chip colour at this table is in use")),
        }
    }

    /// A player gets colour chips, paid from their wallet (a buy-in) or in
    /// cash at the table (a sale): one colour per player, chips from the
    /// wallet or, for cash, from the house against the cash in the drop box.
    fn plan_chips(
        &self,
        plan: &mut Plan,
        id: &str,
        player: &str,
        amount: Minor,
        chip_value: Minor,
        paid: PaidFrom,
    ) -> Result<(), ApiError> {
        let (amount, chip_value) = (amount.get(), chip_value.get());
        let colour = self.colour_for(player, amount, chip_value)?;
        let chips = self.chips_of(player)?;
        let table = self.id.clone();
        let event = match paid {
            PaidFrom::Wallet => {
                plan.transfers.push(transfer(
                    format!("buyin/{id}"),
                    account(Account::wallet(player))?,
                    chips,
                    amount,
                    "colour chips",
                ));
                JournalEvent::BoughtIn {
                    table,
                    player: player.to_string(),
                    amount,
                    colour: colour.clone(),
                    chip_value,
                }
            }
            PaidFrom::Cash => {
                // Colorado 2203(1): chips are issued by the dealer; 2202: the
                // money paid for them goes into the table's drop box.
                plan.transfers.push(transfer(
                    format!("sale/{id}"),
                    Account::Outside,
                    self.own(TableAccount::Drop)?,
                    amount,
                    "cash for colour chips, into the drop box (Colorado 2202)",
                ));
                plan.transfers.push(transfer(
                    format!("sale/{id}/chips"),
                    Account::House,
                    chips,
                    amount,
                    "colour chips sold at the table",
                ));
                JournalEvent::ChipsSold {
                    table,
                    player: player.to_string(),
                    amount,
                    colour: colour.clone(),
                    chip_value,
                }
            }
        };
        plan.seat(event, player, colour, chip_value);
        Ok(())
    }

    /// european-casino 6.1-6.2 (6.3 for a power loss): under an emergency "the
    /// floats are closed" and "no payouts are made": from journal format 9
    /// nothing is bought, sold, cashed, tipped or paid at the table until
    /// it is lifted.
    pub(super) fn check_floats_open(&self, dir: &Directory, what: &str) -> Result<(), ApiError> {
        if self.table.emergency() && dir.rules().floats_close {
            return Err(err(
                ErrorCode::Emergency,
                format!(
                    "an emergency is declared at table {}: its floats are closed, and no {what} until it is lifted \
                     (european-casino 6.1-6.2)",
                    self.id
                ),
            ));
        }
        Ok(())
    }

    /// From journal format 14, chips are sold for cash only while the table
    /// is open: a closed table takes no cash into its drop box (a buy-in from
    /// a wallet moves no cash, and the chips are cashed in whenever).
    fn check_open_for_chips(&self, dir: &Directory) -> Result<(), ApiError> {
        if dir.rules().chips_at_open_tables && matches!(self.table.phase(), croupier_core::round::Phase::Closed) {
            return Err(err(
                ErrorCode::TableClosed,
                format!(
                    "table {} is closed: colour chips are sold for cash only while it is open",
                    self.id
                ),
            ));
        }
        Ok(())
    }

    pub(super) fn plan_money(
        &self,
        dir: &Directory,
        at_ms: u64,
        actor: &Actor,
        request: &Request,
        plan: &mut Plan,
    ) -> Result<(), ApiError> {
        self.check_floats_open(dir, "chips are bought, sold or cashed and no tip is taken")?;
        match request {
            Request::BuyIn {
                id, amount, chip_value, ..
            } => {
                self.check_chips_here(&actor.username)?;
                self.plan_chips(plan, id, &actor.username, *amount, *chip_value, PaidFrom::Wallet)?;
                self.date_chips(dir, plan, at_ms, &actor.username, (amount.get(), chip_value.get()))
            }
            Request::SellChips {
                id,
                player,
                amount,
                chip_value,
                ..
            } => {
                dir.player_in_play(player)?;
                self.check_open_for_chips(dir)?;
                self.check_chips_here(player)?;
                // One person alone sells a player only so much a day, however
                // split: above it, a pit supervisor makes the sale. From format
                // 14 at every table together, which only the cage sees.
                if dir.rules().caps_casino_wide && actor.role == Role::Dealer {
                    plan.claim = Some(SaleClaim {
                        player: player.clone(),
                        day: dir.gaming_day(at_ms),
                        amount: amount.get(),
                        transfer: format!("sale/{id}"),
                    });
                } else if dir.rules().dealer_sales_capped && actor.role == Role::Dealer {
                    let day = dir.gaming_day(at_ms);
                    let today = self.dealer_sales.0.get(player).filter(|s| s.day == day);
                    let sold = today.map_or(0, |s| s.sold);
                    let resent = today.is_some_and(|s| s.ids.contains(id));
                    if !resent && sold.saturating_add(amount.get()) > DEALER_SALE_MAX {
                        return Err(err(
                            ErrorCode::OverRoleLimit,
                            format!(
                                "dealers sell {player} at most {DEALER_SALE_MAX} in chips a day at this table \
                                 ({sold} so far today); a pit supervisor makes a larger sale"
                            ),
                        ));
                    }
                    plan.effects.push(Effect::DealerSold {
                        player: player.clone(),
                        day,
                        amount: amount.get(),
                        id: id.clone(),
                    });
                }
                self.plan_chips(plan, id, player, *amount, *chip_value, PaidFrom::Cash)?;
                self.date_chips(dir, plan, at_ms, player, (amount.get(), chip_value.get()))
            }
            Request::LeaveTable { id, .. } => {
                let player = &actor.username;
                let Some((colour, chip_value)) = self.colours.get(player) else {
                    return Err(err(ErrorCode::NotSeated, "you have no colour chips at this table"));
                };
                let player_id = dir.player(player)?.player_id;
                if self.table.bets().iter().any(|b| b.player == player_id) {
                    return Err(err(ErrorCode::BetsOnLayout, "your bets are still on the layout"));
                }
                // Maryland ch.3 F(17)(a): a wager holds its position until the round settles.
                if self.table.bonus_wagers().iter().any(|w| w.player == player_id) {
                    return Err(err(
                        ErrorCode::BetsOnLayout,
                        "your Bonus Spin Xtreme wager is in play until the round settles",
                    ));
                }
                let chips = self.chips_of(player)?;
                let face = self.balance_of(&chips) as u64;
                // european-casino 5.4: chips taken away and brought back after the gaming day
                // they were bought on (up to format 13, kept past it).
                let revalued = self.past_day_value(dir, at_ms, player, face, *chip_value);
                let amount = match &revalued {
                    Some(value) => {
                        self.plan_revalued(plan, id, player, chips, face, value)?;
                        value.paid
                    }
                    None => {
                        if face > 0 {
                            plan.transfers.push(transfer(
                                format!("leave/{id}"),
                                chips,
                                account(Account::wallet(player))?,
                                face,
                                "colour chips cashed in (Maryland ch.3 C)",
                            ));
                        }
                        face
                    }
                };
                plan.events.push(JournalEvent::LeftTable {
                    table: self.id.clone(),
                    player: player.clone(),
                    amount,
                    colour: colour.clone(),
                });
                if self.chips_dated(player) {
                    plan.effects.push(Effect::ChipDays(super::chip_days::ChipsChange::Gone {
                        player: player.clone(),
                    }));
                }
                plan.effects.push(Effect::Seat {
                    player: player.clone(),
                    colour: None,
                });
                Ok(())
            }
            Request::Tip { id, amount, .. } => {
                self.check_chips_here(&actor.username)?;
                // A tip is chips placed for the dealers: whole chips, as a bet is.
                if dir.rules().tips_in_chips {
                    if let Some((_, chip_value)) = self.colours.get(&actor.username) {
                        if amount.get() % chip_value != 0 {
                            return Err(err(
                                ErrorCode::BadStake,
                                format!("a tip is whole chips of {}", Minor::new(*chip_value)),
                            ));
                        }
                    }
                }
                plan.transfers.push(transfer(
                    format!("tip/{id}"),
                    self.chips_of(&actor.username)?,
                    self.own(TableAccount::Tips)?,
                    amount.get(),
                    "tip to the dealers' tip box",
                ));
                plan.events.push(JournalEvent::Tipped {
                    table: self.id.clone(),
                    player: actor.username.clone(),
                    amount: amount.get(),
                });
                Ok(())
            }
            _ => Err(err(ErrorCode::Internal, "not a request about money at the table")),
        }
    }
}
