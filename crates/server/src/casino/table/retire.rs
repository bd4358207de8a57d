//! Editing and retiring a table (journal format 16): the admin's.
//!
//! What may change is what leaves the game as it is: the table's label and
//! its betting window, between rounds. Its profile, wheel, In Prison and
//! outcome source are its game: its rounds, recall and reports were played
//! under them, so they never change; a casino that wants another game makes
//! a new table and retires this one.
//!
//! A table is retired only closed, with nothing of anyone's on it: no round
//! or bet, no player's chips, no float (credited back to the cage first by
//! a credit slip), no open slip, no coupon issued for it still to be
//! played, no progressive meter's contributions, no tournament event. Its
//! drop box and tip box stay on its books as its history: the casino's
//! count of them is not croupier's. A retired table takes no request again;
//! its log, report and recall stay readable.

use croupier_core::round::{Phase, BETTING_WINDOW_MAX_MS, BETTING_WINDOW_MIN_MS};
use croupier_ledger::TableAccount;

use super::{Effect, Plan, TableSlot};
use crate::api::decimal;
use crate::api::{ApiError, ErrorCode};
use crate::casino::directory::Directory;
use crate::casino::err;
use crate::casino::journal::{require_format, JournalEvent, FORMAT_BACK_OFFICE};
use crate::casino::request::Request;

/// The longest table label, in characters.
pub const TABLE_LABEL_MAX: usize = 40;

/// The table's own accounts that hold someone's money while it plays, and
/// how that money leaves: each must be empty before it is retired.
const EMPTIED_FIRST: [(TableAccount, &str); 5] = [
    (
        TableAccount::Layout,
        "the layout holds stakes: settle or void the round",
    ),
    (
        TableAccount::Float,
        "the float holds chips: credit them back to the cage (request_credit, then the cage signs)",
    ),
    (
        TableAccount::PointsLayout,
        "the points layout holds a tournament's points",
    ),
    (
        TableAccount::MeterPrimary,
        "the primary progressive meter holds its players' contributions",
    ),
    (
        TableAccount::MeterSecondary,
        "the secondary progressive meter holds its players' contributions",
    ),
];

/// What a player holds at one table that its ledger accounts do not show:
/// stakes on the layout (bets in play, or held in prison) and coupons
/// issued for the table, not played and not expired.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HeldAtTable {
    pub table: String,
    pub staked: u64,
    pub coupons: Vec<(String, u64)>,
}

impl HeldAtTable {
    pub fn is_empty(&self) -> bool {
        self.staked == 0 && self.coupons.is_empty()
    }
}

impl TableSlot {
    /// Refuses every request at a retired table, naming it.
    pub(super) fn refuse_if_retired(&self, request: &Request) -> Result<(), ApiError> {
        if !self.retired {
            return Ok(());
        }
        let what = if matches!(request, Request::RetireTable { .. }) {
            "was retired already"
        } else {
            "is retired: it takes no request again; its log, report and recall stay readable"
        };
        Err(err(ErrorCode::Retired, format!("table {} {what}", self.id)))
    }

    /// What `player` holds here that their chips' account does not show:
    /// stakes on the layout, and coupons for this table not yet played.
    pub fn held_by(&self, dir: &Directory, at_ms: u64, player: &str) -> HeldAtTable {
        let staked = dir.player_on_record(player).map_or(0, |p| {
            self.table
                .bets()
                .iter()
                .filter(|b| b.player == p.player_id)
                .map(|b| b.bet.stake().get())
                .sum()
        });
        let coupons = dir
            .coupons_of(player)
            .into_iter()
            .filter(|(id, c)| {
                // A retired table plays no coupon again: one for it is worth nothing.
                c.table == self.id
                    && !self.retired
                    && !self.coupon_played_here(id)
                    && c.expires_at_ms.is_none_or(|end| end > at_ms)
            })
            .map(|(id, c)| (id, c.value))
            .collect();
        HeldAtTable {
            table: self.id.clone(),
            staked,
            coupons,
        }
    }

    /// `retire_table` and `edit_table`.
    pub(super) fn plan_back_office(
        &self,
        dir: &Directory,
        at_ms: u64,
        request: &Request,
        plan: &mut Plan,
    ) -> Result<(), ApiError> {
        match request {
            Request::RetireTable { .. } => {
                require_format(dir.journal_format(), FORMAT_BACK_OFFICE, "retiring a table is")?;
                self.check_empty(dir, at_ms)?;
                let event = JournalEvent::TableRetired { table: self.id.clone() };
                plan.events.push(event.clone());
                plan.effects.push(Effect::Log(event));
                Ok(())
            }
            Request::EditTable {
                label,
                betting_window_ms,
                ..
            } => {
                require_format(dir.journal_format(), FORMAT_BACK_OFFICE, "editing a table is")?;
                self.plan_edit(label.as_deref(), *betting_window_ms, plan)
            }
            _ => Err(err(ErrorCode::Internal, "not a table's edit or retirement")),
        }
    }

    fn plan_edit(&self, label: Option<&str>, window: Option<u64>, plan: &mut Plan) -> Result<(), ApiError> {
        if label.is_none() && window.is_none() {
            return Err(err(
                ErrorCode::BadRequest,
                "name what changes: label or betting_window_ms. A table's profile, wheel, In Prison and \
                 outcome source are its game and never change: make a new table and retire this one",
            ));
        }
        if let Some(label) = label {
            if !label.is_empty() && !crate::casino::users::printable_name(label)
                || label.chars().count() > TABLE_LABEL_MAX
            {
                return Err(err(
                    ErrorCode::BadRequest,
                    format!(
                        "label: up to {TABLE_LABEL_MAX} letters, digits, single spaces and ASCII punctuation, \
                         beginning and ending with a letter or digit (empty clears it), not {label:?}"
                    ),
                ));
            }
        }
        if let Some(ms) = window {
            if !(BETTING_WINDOW_MIN_MS..=BETTING_WINDOW_MAX_MS).contains(&ms) {
                return Err(err(
                    ErrorCode::BadRequest,
                    format!(
                        "betting_window_ms: from {BETTING_WINDOW_MIN_MS} to {BETTING_WINDOW_MAX_MS} (1 second to \
                         10 minutes), not {ms}"
                    ),
                ));
            }
            if !matches!(self.table.phase(), Phase::Closed | Phase::Open) {
                return Err(err(
                    ErrorCode::RoundUnderWay,
                    format!(
                        "a round is under way at table {}: its betting window changes between rounds",
                        self.id
                    ),
                ));
            }
        }
        // Only what changes is written: the same again writes nothing.
        let label = label
            .filter(|l| self.label.as_deref().unwrap_or("") != *l)
            .map(str::to_string);
        let window = window.filter(|ms| *ms != self.table.config().betting_window_ms);
        if label.is_none() && window.is_none() {
            return Ok(());
        }
        let event = JournalEvent::TableEdited {
            table: self.id.clone(),
            label,
            betting_window_ms: window,
        };
        plan.events.push(event.clone());
        plan.effects.push(Effect::Log(event));
        Ok(())
    }

    /// Refuses retiring the table while it plays or holds anything of
    /// anyone's, naming everything that remains.
    fn check_empty(&self, dir: &Directory, at_ms: u64) -> Result<(), ApiError> {
        if self.table.phase() != Phase::Closed {
            return Err(err(
                ErrorCode::MoneyHeld,
                format!("table {} is open: close it first (close_table)", self.id),
            ));
        }
        let mut left = Vec::new();
        for (kind, how) in EMPTIED_FIRST {
            let balance = self.own_balance(kind);
            if balance != 0 {
                left.push(format!("{} ({how})", decimal(balance)));
            }
        }
        let mut chips: Vec<String> = self
            .books
            .players_holding()
            .map(|(a, b)| format!("{} {}", a.name(), decimal(b)))
            .collect();
        chips.sort();
        if !chips.is_empty() {
            left.push(format!(
                "players' chips {} (each cashes them in: leave_table)",
                chips.join(", ")
            ));
        }
        for (id, slip) in self.slips.open() {
            let kind = if slip.credit { "credit" } else { "fill" };
            left.push(format!(
                "open {kind} slip {id} of {} (the cage signs it, or the pit voids it)",
                decimal(slip.amount.into())
            ));
        }
        let mut coupons: Vec<String> = dir
            .coupons_for_table(&self.id)
            .filter(|(id, c)| !self.coupon_played_here(id) && c.expires_at_ms.is_none_or(|end| end > at_ms))
            .map(|(id, c)| format!("{id} ({}, {})", c.player, decimal(c.value.into())))
            .collect();
        coupons.sort();
        if !coupons.is_empty() {
            left.push(format!(
                "match play coupons issued for it and not played: {} (they expire first)",
                coupons.join(", ")
            ));
        }
        if let Some(event) = dir.table_event(&self.id) {
            left.push(format!(
                "tournament {}'s event {} (taken back first)",
                event.tournament, event.event_name
            ));
        }
        if left.is_empty() {
            return Ok(());
        }
        Err(err(
            ErrorCode::MoneyHeld,
            format!("table {} still holds {}", self.id, left.join("; ")),
        ))
    }
}

impl TableSlot {
    /// A retirement or an edit, once its entry is durable.
    pub(super) fn apply_back_office(&mut self, event: &JournalEvent) {
        match event {
            JournalEvent::TableRetired { .. } => self.retired = true,
            JournalEvent::TableEdited {
                label,
                betting_window_ms,
                ..
            } => {
                if let Some(label) = label {
                    self.label = (!label.is_empty()).then(|| label.clone());
                }
                if let Some(ms) = betting_window_ms {
                    self.table.set_betting_window_ms(*ms);
                }
            }
            _ => {}
        }
    }
}
