//! A tournament's life: entries, re-buys, eliminations, each event's end
//! and prizes, a split by agreement, the conclusion. `decide` checks a
//! command and gives events; `apply` changes the tournament. Money moves in
//! events as amounts; the server writes them to the ledger.

use std::collections::BTreeMap;

use time::Date;

use super::config::{RebuyWhen, TournamentConfig};
use super::prizes::{place_standings, Awarded, Purse, Standing};

/// The most entries one tournament takes, re-entries included.
pub const ENTRIES_MAX: usize = 10_000;
/// The most entries one player may withdraw from a tournament.
pub const WITHDRAWALS_PER_PLAYER_MAX: usize = 3;
/// The longest description of a non-cash fee or buy-in.
const ITEM_MAX_BYTES: usize = 200;

/// How a fee or a buy-in was paid (2213.01, 2213.05).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Paid {
    Cash,
    /// An item at its predetermined cash value.
    NonCash {
        item: String,
    },
    /// Paid by the house.
    Complimentary,
    /// A prize voucher won in an earlier event.
    Voucher {
        number: u32,
    },
}

impl Paid {
    pub fn name(&self) -> &'static str {
        match self {
            Paid::Cash => "cash",
            Paid::NonCash { .. } => "non_cash",
            Paid::Complimentary => "complimentary",
            Paid::Voucher { .. } => "voucher",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Payment {
    pub paid: Paid,
    /// Its value in minor units: the event's price, whatever the form.
    pub value: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum EntryStatus {
    /// Entered; the event has not started.
    Registered,
    Playing,
    Eliminated,
    /// Played the event to its end.
    Finished,
    /// Found with two active entries, or otherwise put out: no prize (2213(2)(c)).
    Disqualified,
    /// Withdrawn before its event started: its fee and buy-in went back.
    Withdrawn,
}

impl EntryStatus {
    pub fn name(self) -> &'static str {
        match self {
            EntryStatus::Registered => "registered",
            EntryStatus::Playing => "playing",
            EntryStatus::Eliminated => "eliminated",
            EntryStatus::Finished => "finished",
            EntryStatus::Disqualified => "disqualified",
            EntryStatus::Withdrawn => "withdrawn",
        }
    }

    fn active(self) -> bool {
        matches!(self, EntryStatus::Registered | EntryStatus::Playing)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    /// Numbered from 1 in order of entry.
    pub number: u32,
    pub player: String,
    pub event: usize,
    pub status: EntryStatus,
    pub fee: Payment,
    pub buy_in: Payment,
    pub rebuys: Vec<Payment>,
    pub day: Date,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Award {
    pub event: usize,
    pub entry: u32,
    pub player: String,
    pub place: u32,
    pub prize: Awarded,
    /// Awarded as the remaining players agreed (2213.07(3)(c)).
    pub by_split: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Voucher {
    pub number: u32,
    pub player: String,
    pub event: usize,
    pub value: u64,
    /// A prize payout (the event it enters takes a fee or buy-in), or a
    /// buy-in to that event's pool (2213.05).
    pub payout: bool,
    pub used_by: Option<u32>,
    pub cashed: bool,
    /// Its holder was disqualified before using it: its value went back to the pool.
    pub cancelled: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum EventStatus {
    Open,
    Running,
    Ended,
}

#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct EventState {
    pub started: bool,
    pub ended: bool,
    /// Buy-ins and re-buys this event took, at their value.
    pub buy_ins: u64,
    pub awards: Vec<Award>,
    /// What its pool carried to later events.
    pub carried: u64,
    pub house_added: u64,
}

impl EventState {
    pub fn status(&self) -> EventStatus {
        match (self.started, self.ended) {
            (_, true) => EventStatus::Ended,
            (true, false) => EventStatus::Running,
            (false, false) => EventStatus::Open,
        }
    }
}

/// A proposal that the remaining players split cash prizes (2213.07(3)).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Split {
    pub event: usize,
    pub places: Vec<u32>,
    /// Each remaining entry and the cash it would take.
    pub shares: Vec<(u32, u64)>,
    pub agreed: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Command {
    /// The written rules went to the Division on `day` (2213.06).
    FileRules {
        day: Date,
    },
    /// The day recorded for the filing was wrong (a mistyped date): it was
    /// `day`. Only before the tournament starts, and only once a filing is
    /// recorded; the request carries why.
    CorrectFiling {
        day: Date,
    },
    /// Every prize's value is placed into escrow before the start (2213(1)
    /// as amended to 7/1/13), from the house.
    FundEscrow,
    /// The Division notified the licensee on `day` that it finds the
    /// written rules unacceptable, for `reason` (2213.06): no event starts
    /// while the objection stands.
    RecordObjection {
        reason: String,
        day: Date,
    },
    /// The objection no longer stands: the Division withdrew it, or accepted
    /// rules changed to meet it; `how` says which.
    ResolveObjection {
        how: String,
    },
    Register {
        player: String,
        event: usize,
        fee: Paid,
        buy_in: Paid,
        /// The director checked the qualification criteria (2213.04).
        qualified: bool,
        day: Date,
    },
    Start {
        event: usize,
        day: Date,
    },
    /// `points`: the entry's chips now; `between_games`: no game is in play at its table.
    Rebuy {
        entry: u32,
        paid: Paid,
        points: u64,
        between_games: bool,
    },
    Eliminate {
        entry: u32,
        points: u64,
    },
    /// An entry leaves before its event starts: its fee and buy-in go back.
    Withdraw {
        entry: u32,
        /// The day of the refund: its fee leaves that month's proceeds
        /// (2213.01). `None`: the registration's month, as records from
        /// before refunds carried a day were kept.
        day: Option<Date>,
    },
    /// The tournament is called off before any event starts: every entry
    /// is withdrawn and refunded, and it concludes.
    Cancel {
        reason: String,
        /// The day of the refunds, as for [`Command::Withdraw`].
        day: Option<Date>,
    },
    Disqualify {
        player: String,
        reason: String,
    },
    ProposeSplit {
        event: usize,
        places: Vec<u32>,
        shares: Vec<(u32, u64)>,
    },
    AgreeSplit {
        entry: u32,
    },
    /// The director refuses an early end: someone is pressed into it (2213.07(3)(b)).
    RefuseSplit {
        reason: String,
    },
    /// The director confirms the agreed split and ends the event (2213.07(3)(c)).
    ConfirmSplit {
        points: Vec<(u32, u64)>,
        /// The day it ends: within the four months of 2213(1); see [`Command::Conclude`].
        day: Option<Date>,
    },
    /// The event is played to its end; `points` holds every entry still playing.
    End {
        event: usize,
        points: Vec<(u32, u64)>,
        /// The day it ends: within the four months of 2213(1); see [`Command::Conclude`].
        day: Option<Date>,
    },
    Conclude {
        /// The day it concludes, no later than four months following the
        /// first day of play (2213(1)). `None` is not checked: a record of
        /// an end or a conclusion from before they carried a day.
        day: Option<Date>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Event {
    RulesFiled {
        day: Date,
    },
    ObjectionRecorded {
        reason: String,
        day: Date,
    },
    ObjectionResolved {
        how: String,
    },
    /// The prizes' value placed into escrow (2213(1), 2013).
    EscrowFunded {
        amount: u64,
    },
    /// What the escrow still held at the conclusion, back to the house:
    /// prizes of places no one held, or of events called off.
    EscrowReturned {
        amount: u64,
    },
    Registered {
        entry: Entry,
        points: u64,
    },
    Started {
        event: usize,
        entries: Vec<u32>,
    },
    Rebought {
        entry: u32,
        payment: Payment,
        points: u64,
    },
    Eliminated {
        entry: u32,
    },
    /// Refunded: the fee and buy-in back to whoever paid them, on `day`
    /// (see [`Command::Withdraw`]).
    Withdrawn {
        entry: u32,
        day: Option<Date>,
    },
    Cancelled {
        reason: String,
    },
    Disqualified {
        player: String,
        entries: Vec<u32>,
        reason: String,
    },
    SplitProposed(Split),
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
    Awarded(Award),
    Ended {
        event: usize,
        carried: u64,
        split: bool,
    },
    /// An unused voucher paid to its holder in cash at the conclusion.
    VoucherCashed {
        number: u32,
        player: String,
        value: u64,
    },
    /// A disqualified player's unused voucher: its value back to the pool.
    VoucherCancelled {
        number: u32,
        value: u64,
    },
    Concluded,
}

/// A refused command, naming the clause it would break.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TournamentError {
    #[error("{0}")]
    Refused(String),
    #[error("{0}")]
    NotFound(String),
}

fn refuse<T>(message: impl Into<String>) -> Result<T, TournamentError> {
    Err(TournamentError::Refused(message.into()))
}

/// The Division's finding that the written rules are unacceptable (2213.06).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Objection {
    pub day: Date,
    pub reason: String,
}

/// A tournament: its configuration and everything that happened to it.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Tournament {
    config: TournamentConfig,
    pub rules_filed: Option<Date>,
    /// The prizes' value in escrow and not yet paid out (2213(1), 2013).
    #[serde(default)]
    pub escrow: u64,
    /// Whether the escrow was funded; the start waits for it.
    #[serde(default)]
    pub escrow_funded: bool,
    /// Whether the start waits for the escrow: a journal from before the
    /// escrow was kept in the ledger (format 14 and older) started without it.
    #[serde(default)]
    pub escrow_kept: bool,
    /// The Division's objection to the written rules, while it stands (2213.06).
    #[serde(default)]
    pub objection: Option<Objection>,
    pub entries: Vec<Entry>,
    pub events: Vec<EventState>,
    pub vouchers: Vec<Voucher>,
    pub split: Option<Split>,
    pub concluded: bool,
    /// Entry fees by the month they were collected (2213.01), `(year, month)`.
    pub fees_by_month: BTreeMap<(i32, u8), u64>,
    /// Entry fees refunded, by the month of the refund: a month's proceeds
    /// are its fees less its refunds, so a refund never changes a month
    /// already reported (2213.01).
    #[serde(default)]
    pub refunds_by_month: BTreeMap<(i32, u8), u64>,
    /// Buy-ins not yet paid out as prizes (2213.05).
    pub pool: u64,
    /// Vouchers awarded and not yet used or cashed, at their value.
    pub vouchers_held: u64,
    /// Prizes paid out, non-cash at their value and vouchers that count as payouts.
    pub prizes_paid: u64,
    /// Every event applied, in order: the forms are read from it.
    pub history: Vec<Event>,
}

impl Tournament {
    pub fn new(config: TournamentConfig) -> Tournament {
        let events = vec![EventState::default(); config.spec().events.len()];
        Tournament {
            config,
            rules_filed: None,
            escrow: 0,
            escrow_funded: false,
            escrow_kept: true,
            objection: None,
            entries: Vec::new(),
            events,
            vouchers: Vec::new(),
            split: None,
            concluded: false,
            fees_by_month: BTreeMap::new(),
            refunds_by_month: BTreeMap::new(),
            pool: 0,
            vouchers_held: 0,
            prizes_paid: 0,
            history: Vec::new(),
        }
    }

    pub fn config(&self) -> &TournamentConfig {
        &self.config
    }

    pub fn entry(&self, number: u32) -> Result<&Entry, TournamentError> {
        number
            .checked_sub(1)
            .and_then(|i| self.entries.get(i as usize))
            .ok_or_else(|| TournamentError::NotFound(format!("no entry {number} in this tournament")))
    }

    /// The player's entry that is registered or playing, if any.
    pub fn active_entry(&self, player: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.player == player && e.status.active())
    }

    fn event_state(&self, event: usize) -> Result<&EventState, TournamentError> {
        self.events
            .get(event)
            .ok_or_else(|| TournamentError::NotFound(format!("no event {event} in this tournament")))
    }

    fn playing(&self, event: usize) -> Vec<u32> {
        self.entries
            .iter()
            .filter(|e| e.event == event && e.status == EntryStatus::Playing)
            .map(|e| e.number)
            .collect()
    }

    /// What a player has paid in fees and buy-ins over all their entries.
    pub fn paid_by(&self, player: &str) -> u64 {
        self.entries
            .iter()
            .filter(|e| e.player == player && e.status != EntryStatus::Withdrawn)
            .map(|e| e.fee.value + e.buy_in.value + e.rebuys.iter().map(|r| r.value).sum::<u64>())
            .sum()
    }

    /// The fee and every buy-in of one player together stay within the cap,
    /// re-entries included (2213.05).
    fn check_cap(&self, player: &str, more: u64) -> Result<(), TournamentError> {
        let Some(cap) = self.config.rules().fee_and_buy_ins_max else {
            return Ok(());
        };
        let total = self.paid_by(player).saturating_add(more);
        if total > cap.get() {
            return refuse(format!(
                "{player} would pay {} in entry fees and buy-ins, more than the {cap} they may total (2213.05)",
                crate::money::Minor::new(total)
            ));
        }
        Ok(())
    }

    /// Who places in an event: the entries still playing, then those
    /// eliminated, the last out first; an eliminated entry whose player
    /// entered again places only by the later entry (one place per player).
    fn ranked(&self, event: usize) -> Vec<u32> {
        let mut out = self.playing(event);
        // Each player's latest entry in the event: one look-up per elimination.
        let mut latest: BTreeMap<&str, u32> = BTreeMap::new();
        for e in self.entries.iter().filter(|e| e.event == event) {
            latest.insert(e.player.as_str(), e.number);
        }
        for e in self.history.iter().rev() {
            if let Event::Eliminated { entry } = e {
                let Ok(gone) = self.entry(*entry) else { continue };
                let again = latest.get(gone.player.as_str()).is_some_and(|n| *n > gone.number);
                if gone.event == event && gone.status == EntryStatus::Eliminated && !again {
                    out.push(*entry);
                }
            }
        }
        out
    }

    fn event_name(&self, event: usize) -> &str {
        self.config.event(event).map_or("?", |e| e.name.as_str())
    }

    pub fn decide(&self, command: Command) -> Result<Vec<Event>, TournamentError> {
        if self.concluded {
            return refuse("the tournament has concluded");
        }
        match command {
            Command::FileRules { day } => {
                if self.events.iter().any(|e| e.started) {
                    return refuse("the tournament has started: its rules were filed before (2213.06)");
                }
                if let Some(filed) = self.rules_filed.filter(|filed| day < *filed) {
                    return refuse(format!(
                        "a filing on {filed} is recorded: a corrected copy is filed later and counts from its own day; an earlier day cannot replace it (2213.06); if {filed} was typed wrong, correct the day recorded, saying why"
                    ));
                }
                Ok(vec![Event::RulesFiled { day }])
            }
            Command::CorrectFiling { day } => {
                if self.events.iter().any(|e| e.started) {
                    return refuse("the tournament has started: the filing it started on stands (2213.06)");
                }
                if self.rules_filed.is_none() {
                    return refuse("no filing is recorded to correct: record the filing (2213.06)");
                }
                Ok(vec![Event::RulesFiled { day }])
            }
            Command::FundEscrow => {
                if !self.config.escrow_required() {
                    return refuse(
                        "nothing is escrowed: only a tournament that concludes more than the profile's days after its first day of play, under a text that says so, escrows its prizes (2213(1))",
                    );
                }
                if self.escrow_funded {
                    return refuse("the prizes are in escrow already (2213(1))");
                }
                if self.events.iter().any(|e| e.started) {
                    return refuse("the tournament has started: the prizes go into escrow before the start (2213(1))");
                }
                Ok(vec![Event::EscrowFunded {
                    amount: self.config.escrow_amount(),
                }])
            }
            Command::RecordObjection { reason, day } => {
                if self.config.rules().rules_filed_days_before.is_none() {
                    return refuse(
                        "the profile's rules file no copy with the Division, so it objects to none (2213.06 is not in its text)",
                    );
                }
                if reason.trim().is_empty() || reason.len() > ITEM_MAX_BYTES {
                    return refuse(format!("give the Division's reason in 1 to {ITEM_MAX_BYTES} bytes"));
                }
                if let Some(o) = &self.objection {
                    return refuse(format!(
                        "the Division's objection of {} stands already: resolve it before recording another",
                        o.day
                    ));
                }
                Ok(vec![Event::ObjectionRecorded { reason, day }])
            }
            Command::ResolveObjection { how } => {
                if self.objection.is_none() {
                    return refuse("no objection of the Division stands");
                }
                if how.trim().is_empty() || how.len() > ITEM_MAX_BYTES {
                    return refuse(format!(
                        "say how the objection was resolved (withdrawn, or the rules changed and filed again) in 1 to {ITEM_MAX_BYTES} bytes"
                    ));
                }
                Ok(vec![Event::ObjectionResolved { how }])
            }
            Command::Withdraw { entry, day } => {
                let e = self.entry(entry)?;
                if e.status != EntryStatus::Registered {
                    return refuse(format!(
                        "entry {entry} is {}: only an entry whose event has not started withdraws, refunded",
                        e.status.name()
                    ));
                }
                let withdrawn = self
                    .entries
                    .iter()
                    .filter(|x| x.player == e.player && x.status == EntryStatus::Withdrawn)
                    .count();
                if withdrawn >= WITHDRAWALS_PER_PLAYER_MAX {
                    return refuse(format!(
                        "{} has withdrawn {WITHDRAWALS_PER_PLAYER_MAX} entries from this tournament already",
                        e.player
                    ));
                }
                Ok(vec![Event::Withdrawn { entry, day }])
            }
            Command::Cancel { reason, day } => self.decide_cancel(reason, day),
            Command::Register {
                player,
                event,
                fee,
                buy_in,
                qualified,
                day,
            } => self.decide_register(player, event, fee, buy_in, qualified, day),
            Command::Start { event, day } => self.decide_start(event, day),
            Command::Rebuy {
                entry,
                paid,
                points,
                between_games,
            } => self.decide_rebuy(entry, paid, points, between_games),
            Command::Eliminate { entry, points } => {
                let e = self.entry(entry)?;
                if e.status != EntryStatus::Playing {
                    return refuse(format!("entry {entry} is {}, not playing", e.status.name()));
                }
                if points > 0 {
                    return refuse(format!(
                        "entry {entry} still has {points} points: a player is eliminated only with no chips left (2213.07(2))"
                    ));
                }
                Ok(vec![Event::Eliminated { entry }])
            }
            Command::Disqualify { player, reason } => {
                if reason.trim().is_empty() || reason.len() > ITEM_MAX_BYTES {
                    return refuse(format!("give the reason in 1 to {ITEM_MAX_BYTES} bytes"));
                }
                if self.events.last().is_some_and(|e| e.ended) {
                    return refuse(
                        "the last event has ended and its prizes are awarded: a finding now is a dispute for the Division, not a disqualification (2213(2)(c))",
                    );
                }
                let last = self.events.len().saturating_sub(1);
                let left = self
                    .ranked(last)
                    .iter()
                    .filter(|e| self.entry(**e).is_ok_and(|e| e.player != player))
                    .count();
                if self.events.get(last).is_some_and(|e| e.started) && left == 0 {
                    return refuse(format!(
                        "{player} is the last entry of the last event: with no one else to take its prizes, the pool would stay unpaid (2213.05); end the event first"
                    ));
                }
                let entries: Vec<u32> = self
                    .entries
                    .iter()
                    .filter(|e| e.player == player && e.status != EntryStatus::Disqualified)
                    .map(|e| e.number)
                    .collect();
                if entries.is_empty() {
                    return Err(TournamentError::NotFound(format!(
                        "{player} has no entry to disqualify"
                    )));
                }
                // No prize for a disqualified player (2213(2)(c)): an unused
                // voucher's value goes back to the pool.
                let cancelled: Vec<Event> = self
                    .vouchers
                    .iter()
                    .filter(|v| v.player == player && v.used_by.is_none() && !v.cashed && !v.cancelled)
                    .map(|v| Event::VoucherCancelled {
                        number: v.number,
                        value: v.value,
                    })
                    .collect();
                let mut events = vec![Event::Disqualified {
                    player,
                    entries,
                    reason,
                }];
                events.extend(cancelled);
                Ok(events)
            }
            Command::ProposeSplit { event, places, shares } => self.decide_proposal(event, places, shares),
            Command::AgreeSplit { entry } => {
                let Some(split) = &self.split else {
                    return refuse("no split is proposed");
                };
                if !split.shares.iter().any(|(e, _)| *e == entry) {
                    return refuse(format!("entry {entry} is not one of the remaining players"));
                }
                if split.agreed.contains(&entry) {
                    return refuse(format!("entry {entry} has agreed already"));
                }
                Ok(vec![Event::SplitAgreed { entry }])
            }
            Command::RefuseSplit { reason } => {
                if self.split.is_none() {
                    return refuse("no split is proposed");
                }
                if reason.trim().is_empty() || reason.len() > ITEM_MAX_BYTES {
                    return refuse(format!("give the reason in 1 to {ITEM_MAX_BYTES} bytes"));
                }
                Ok(vec![Event::SplitRefused { reason }])
            }
            Command::ConfirmSplit { points, day } => {
                self.within_months("the event's end", day)?;
                let Some(split) = &self.split else {
                    return refuse("no split is proposed");
                };
                let missing: Vec<u32> = split
                    .shares
                    .iter()
                    .map(|(e, _)| *e)
                    .filter(|e| !split.agreed.contains(e))
                    .collect();
                if !missing.is_empty() {
                    return refuse(format!(
                        "entries {missing:?} have not agreed: a split is unanimous (2213.07(3))"
                    ));
                }
                self.decide_end(split.event, points, Some(split))
            }
            Command::End { event, points, day } => {
                self.within_months("the event's end", day)?;
                self.decide_end(event, points, None)
            }
            Command::Conclude { day } => {
                self.within_months("the conclusion", day)?;
                self.decide_conclude()
            }
        }
    }

    fn decide_register(
        &self,
        player: String,
        event: usize,
        fee: Paid,
        buy_in: Paid,
        qualified: bool,
        day: Date,
    ) -> Result<Vec<Event>, TournamentError> {
        let state = self.event_state(event)?;
        let Some(spec) = self.config.event(event) else {
            return Err(TournamentError::NotFound(format!("no event {event}")));
        };
        if self
            .entries
            .iter()
            .filter(|e| e.status != EntryStatus::Withdrawn)
            .count()
            >= ENTRIES_MAX
        {
            return refuse(format!("the tournament has its {ENTRIES_MAX} entries"));
        }
        if self
            .entries
            .iter()
            .any(|e| e.player == player && e.status == EntryStatus::Disqualified)
        {
            return refuse(format!("{player} was disqualified from this tournament (2213(2)(c))"));
        }
        if let Some(active) = self.active_entry(&player) {
            return refuse(format!(
                "{player} already has entry {} in {:?}: no player is entered more than once at a time (2213(2)(c))",
                active.number,
                self.event_name(active.event)
            ));
        }
        // Only an elimination makes a re-entry: a withdrawn entry never played.
        let before = self
            .entries
            .iter()
            .any(|e| e.player == player && e.event == event && e.status == EntryStatus::Eliminated);
        match state.status() {
            EventStatus::Ended => return refuse(format!("{:?} has ended", spec.name)),
            EventStatus::Running if !before => {
                return refuse(format!(
                    "{:?} has started: every entrant starts it with the same chips, so entries close at the start (2213.07(1))",
                    spec.name
                ))
            }
            _ => {}
        }
        if before && !self.config.spec().reentry {
            return refuse(format!(
                "{player} was eliminated from {:?} and its rules allow no re-entry (2213(2)(c))",
                spec.name
            ));
        }
        if self.config.spec().qualification.is_some() && !qualified {
            return refuse(format!(
                "{player} is not confirmed as meeting the qualification criteria (2213.04)"
            ));
        }
        let price = spec.entry_fee.get() + spec.buy_in.get();
        self.check_cap(&player, price)?;
        let (fee, buy_in) = match (&fee, &buy_in) {
            (Paid::Voucher { number }, Paid::Voucher { number: other }) if number == other => {
                let voucher = self
                    .vouchers
                    .iter()
                    .find(|v| v.number == *number)
                    .ok_or_else(|| TournamentError::NotFound(format!("no voucher {number}")))?;
                if voucher.player != player {
                    return refuse(format!(
                        "voucher {number} was won by another player; only its winner may use it (2213.05)"
                    ));
                }
                if voucher.event != event {
                    return refuse(format!(
                        "voucher {number} enters {:?}, not {:?}",
                        self.event_name(voucher.event),
                        spec.name
                    ));
                }
                if voucher.used_by.is_some() || voucher.cashed || voucher.cancelled {
                    return refuse(format!("voucher {number} has been used"));
                }
                if price > 0 {
                    (
                        Payment {
                            paid: fee.clone(),
                            value: spec.entry_fee.get(),
                        },
                        Payment {
                            paid: buy_in.clone(),
                            value: spec.buy_in.get(),
                        },
                    )
                } else {
                    (
                        Payment {
                            paid: fee.clone(),
                            value: 0,
                        },
                        Payment {
                            paid: buy_in.clone(),
                            value: voucher.value,
                        },
                    )
                }
            }
            (Paid::Voucher { .. }, _) | (_, Paid::Voucher { .. }) => {
                return refuse("a prize voucher pays both the entry fee and the buy-in of its event (2213.05)")
            }
            _ => {
                check_item(&fee)?;
                check_item(&buy_in)?;
                (
                    Payment {
                        paid: fee,
                        value: spec.entry_fee.get(),
                    },
                    Payment {
                        paid: buy_in,
                        value: spec.buy_in.get(),
                    },
                )
            }
        };
        let number = self.entries.len() as u32 + 1;
        Ok(vec![Event::Registered {
            entry: Entry {
                number,
                player,
                event,
                status: if state.started {
                    EntryStatus::Playing
                } else {
                    EntryStatus::Registered
                },
                fee,
                buy_in,
                rebuys: Vec::new(),
                day,
            },
            points: spec.starting_points,
        }])
    }

    /// Why rules that reached the Division on `day` came too late for the
    /// tournament's scheduled start, if they did: Colorado 2213.06 wants a
    /// copy there "at least five days in advance of the scheduled start of
    /// the tournament" (the profile's `rules_filed_days_before`).
    pub fn filing_too_late(&self, day: Date) -> Option<String> {
        let days = self.config.rules().rules_filed_days_before?;
        let scheduled = self.config.spec().first_day;
        let earliest = day.checked_add(time::Duration::days(i64::from(days)));
        earliest.is_none_or(|earliest| earliest > scheduled).then(|| {
            format!(
                "rules that reached the Division on {day} came less than {days} days before the scheduled start {scheduled} \
                 (2213.06: at least {days} days in advance): the tournament cannot start as scheduled. If that is the day \
                 they reached it, cancel the tournament, refunding its entries, and announce a new one; if the day was \
                 typed wrong, record the right one"
            )
        })
    }

    /// Colorado 2213(1): "A tournament must conclude no later than four
    /// months following the first day of tournament play." An event ends,
    /// and the tournament concludes, on a day within them.
    fn within_months(&self, what: &str, day: Option<Date>) -> Result<(), TournamentError> {
        let Some(day) = day else {
            return Ok(());
        };
        let first = self.config.spec().first_day;
        let months = self.config.rules().conclude_within_months;
        let latest = super::config::add_months(first, months);
        if latest.is_none_or(|latest| day > latest) {
            return refuse(format!(
                "{what} on {day} is after {}, {months} months following the first day of play {first}: a tournament must conclude no later than {months} months following its first day (2213(1)); the Division decides what becomes of it now",
                latest.map_or_else(|| "-".to_string(), |d| d.to_string())
            ));
        }
        Ok(())
    }

    fn decide_start(&self, event: usize, day: Date) -> Result<Vec<Event>, TournamentError> {
        let state = self.event_state(event)?;
        let spec = self.config.spec();
        let name = self.event_name(event);
        if state.status() != EventStatus::Open {
            return refuse(format!("{name:?} has started already"));
        }
        if let Some(earlier) = self.events[..event].iter().position(|e| !e.ended) {
            return refuse(format!(
                "{:?} comes first: events are played in order",
                self.event_name(earlier)
            ));
        }
        let scheduled = self.config.event(event).map(|e| e.day);
        if scheduled.is_some_and(|s| day != s) {
            return refuse(format!(
                "{name:?} is scheduled for {}, as its written rules say, not {day} (2213.06, 2213.08); a tournament that cannot keep its days is cancelled and refunded before it starts",
                scheduled.unwrap_or(day)
            ));
        }
        if self.escrow_kept && self.config.escrow_required() && !self.escrow_funded {
            return refuse(format!(
                "the tournament concludes more than {} days after its first day of play, so all prizes, {} with non-cash ones at their cash value, must be placed into escrow before the start (2213(1)): an admin places them (fund_escrow)",
                self.config.rules().escrow_after_days.unwrap_or_default(),
                crate::money::Minor::new(self.config.escrow_amount())
            ));
        }
        if let Some(o) = &self.objection {
            return refuse(format!(
                "the Division found the written rules unacceptable on {} ({}), and the licensee shall not offer a tournament using the rules found unacceptable (2213.06): {name:?} starts once the objection is resolved",
                o.day, o.reason
            ));
        }
        if day > spec.last_day {
            return refuse(format!(
                "the tournament's last day was {}; it concludes within {} months of its first (2213(1))",
                spec.last_day,
                self.config.rules().conclude_within_months
            ));
        }
        if let Some(days) = self.config.rules().rules_filed_days_before {
            let scheduled = spec.first_day;
            let Some(filed) = self.rules_filed else {
                let latest = scheduled.checked_sub(time::Duration::days(i64::from(days)));
                return refuse(format!(
                    "the written rules have not been filed with the Division; they go {days} days before the start (2213.06): \
                     record the day they reached it (file_rules, filed_on), on or before {} for the start on {scheduled}",
                    latest.map_or_else(|| "-".to_string(), |d| d.to_string())
                ));
            };
            let earliest = filed.checked_add(time::Duration::days(i64::from(days)));
            if earliest.is_none_or(|earliest| earliest > scheduled) {
                return refuse(format!(
                    "the rules reached the Division on {filed}, less than {days} days before the scheduled start {scheduled}: it may not start (2213.06); cancel it, refunding every entry, and announce a new one"
                ));
            }
        }
        let entries: Vec<u32> = self
            .entries
            .iter()
            .filter(|e| e.event == event && e.status == EntryStatus::Registered)
            .map(|e| e.number)
            .collect();
        if entries.is_empty() && event + 1 == self.events.len() {
            return refuse(format!(
                "no one has entered {name:?}, the last event: its prizes, the pool with them, need players (2213.05)"
            ));
        }
        Ok(vec![Event::Started { event, entries }])
    }

    fn decide_rebuy(
        &self,
        entry: u32,
        paid: Paid,
        points: u64,
        between_games: bool,
    ) -> Result<Vec<Event>, TournamentError> {
        let e = self.entry(entry)?;
        let Some(spec) = self.config.event(e.event) else {
            return Err(TournamentError::NotFound(format!("no event {}", e.event)));
        };
        if e.status != EntryStatus::Playing {
            return refuse(format!("entry {entry} is {}, not playing", e.status.name()));
        }
        let rebuys = &spec.rebuys;
        if rebuys.max == 0 {
            return refuse(format!("{:?} allows no re-buys (2213.08(2))", spec.name));
        }
        if e.rebuys.len() as u32 >= rebuys.max {
            return refuse(format!(
                "entry {entry} has made all the re-buys {:?} allows ({}) (2213.08(2))",
                spec.name, rebuys.max
            ));
        }
        if !between_games {
            return refuse(
                "chips are bought between games: only chips on the table at a game's start play in it (2213.07(5))",
            );
        }
        if rebuys.when == RebuyWhen::OutOfChips && points > 0 {
            return refuse(format!(
                "entry {entry} has {points} points; {:?} allows a re-buy only once out of chips (2213.08(2))",
                spec.name
            ));
        }
        if matches!(paid, Paid::Voucher { .. }) {
            return refuse("a prize voucher pays an entry, not a re-buy (2213.05)");
        }
        self.check_cap(&e.player, rebuys.amount.get())?;
        check_item(&paid)?;
        Ok(vec![Event::Rebought {
            entry,
            payment: Payment {
                paid,
                value: rebuys.amount.get(),
            },
            points: rebuys.points,
        }])
    }

    fn decide_proposal(
        &self,
        event: usize,
        places: Vec<u32>,
        shares: Vec<(u32, u64)>,
    ) -> Result<Vec<Event>, TournamentError> {
        if !self.config.spec().split_permitted {
            return refuse("this tournament's rules do not let players split the prizes (2213.07(3))");
        }
        let state = self.event_state(event)?;
        if state.status() != EventStatus::Running {
            return refuse(format!("{:?} is not being played", self.event_name(event)));
        }
        if self.split.is_some() {
            return refuse("a split is proposed already: the director confirms or refuses it first");
        }
        let Some(spec) = self.config.event(event) else {
            return Err(TournamentError::NotFound(format!("no event {event}")));
        };
        if places.is_empty() {
            return refuse("name the places whose cash prizes are split");
        }
        let remaining = self.playing(event).len() as u32;
        for (i, place) in places.iter().enumerate() {
            if *place > remaining {
                return refuse(format!(
                    "place {place} is not one the {remaining} remaining players hold: a split divides only their own places' cash (2213.07(3))"
                ));
            }
            let Some(prize) = spec.prizes.iter().find(|p| p.place == *place) else {
                return refuse(format!("{:?} has no prize for place {place}", spec.name));
            };
            if !prize.is_cash() {
                return refuse(format!(
                    "place {place}'s prize is not cash: no agreement divides a non-cash prize (2213.07(3)(a))"
                ));
            }
            if places[..i].contains(place) {
                return refuse(format!("place {place} is named twice"));
            }
        }
        let playing = self.playing(event);
        let mut named: Vec<u32> = shares.iter().map(|(e, _)| *e).collect();
        named.sort_unstable();
        let mut remaining = playing.clone();
        remaining.sort_unstable();
        if named != remaining {
            return refuse(format!(
                "a split is agreed by every remaining player, each named once: entries {remaining:?} (2213.07(3))"
            ));
        }
        let total = self.purse(event, self.ranked(event).len())?.cash_of(&places);
        let offered = shares
            .iter()
            .try_fold(0u64, |sum, (_, v)| sum.checked_add(*v))
            .unwrap_or(u64::MAX);
        if offered != total {
            return refuse(format!(
                "the shares add up to {} but the cash prizes of places {places:?} come to {}",
                crate::money::Minor::new(offered),
                crate::money::Minor::new(total)
            ));
        }
        Ok(vec![Event::SplitProposed(Split {
            event,
            places,
            shares,
            agreed: Vec::new(),
        })])
    }

    fn purse(&self, event: usize, finishers: usize) -> Result<Purse, TournamentError> {
        let Some(spec) = self.config.event(event) else {
            return Err(TournamentError::NotFound(format!("no event {event}")));
        };
        Ok(Purse::new(
            spec,
            event + 1 == self.events.len(),
            self.event_pool(event),
            finishers,
        ))
    }

    /// The pool an event's prizes come from: what earlier events carried
    /// and its own buy-ins, never the buy-ins of events still to come.
    pub fn event_pool(&self, event: usize) -> u64 {
        let later: u64 = self.events.iter().skip(event + 1).map(|e| e.buy_ins).sum();
        self.pool.saturating_sub(later)
    }

    fn decide_end(
        &self,
        event: usize,
        points: Vec<(u32, u64)>,
        split: Option<&Split>,
    ) -> Result<Vec<Event>, TournamentError> {
        let state = self.event_state(event)?;
        if state.status() != EventStatus::Running {
            return refuse(format!("{:?} is not being played", self.event_name(event)));
        }
        let mut playing = self.playing(event);
        playing.sort_unstable();
        let mut named: Vec<u32> = points.iter().map(|(e, _)| *e).collect();
        named.sort_unstable();
        if named != playing {
            return refuse(format!(
                "give the points of every entry still playing, each once: entries {playing:?}"
            ));
        }
        let mut standings = place_standings(&points);
        for entry in self.ranked(event).into_iter().skip(standings.len()) {
            standings.push(Standing {
                place: standings.len() as u32 + 1,
                entry,
                points: 0,
                tied_with: 1,
            });
        }
        if standings.is_empty() && event + 1 == self.events.len() {
            return refuse(
                "no one is left to take the last event's prizes, and the pool is paid out in full (2213.05)",
            );
        }
        let purse = self.purse(event, standings.len())?;
        let mut events = Vec::new();
        if purse.house_added > 0 {
            events.push(Event::HouseAdded {
                event,
                amount: purse.house_added,
            });
        }
        let mut next_voucher = self.vouchers.len() as u32 + 1;
        let mut award = |entry: u32, place: u32, prize: Awarded, by_split: bool| -> Result<Event, TournamentError> {
            let prize = match prize {
                Awarded::Voucher { event, value, .. } => {
                    next_voucher += 1;
                    Awarded::Voucher {
                        number: next_voucher - 1,
                        event,
                        value,
                    }
                }
                other => other,
            };
            Ok(Event::Awarded(Award {
                event,
                entry,
                player: self.entry(entry)?.player.clone(),
                place,
                prize,
                by_split,
            }))
        };
        match split {
            Some(split) => {
                let agreed = split.shares.iter().try_fold(0u64, |sum, (_, v)| sum.checked_add(*v));
                if agreed != Some(purse.cash_of(&split.places)) {
                    return refuse("the pool changed since the split was proposed: propose it again");
                }
                for (entry, amount) in &split.shares {
                    if *amount > 0 {
                        events.push(award(*entry, 0, Awarded::Cash(*amount), true)?);
                    }
                }
                let rest = Purse {
                    cash: purse
                        .cash
                        .iter()
                        .filter(|(p, _)| !split.places.contains(p))
                        .map(|(p, v)| (*p, *v))
                        .collect(),
                    ..purse.clone()
                };
                for (entry, place, prize) in rest.assign(&standings) {
                    events.push(award(entry, place, prize, false)?);
                }
            }
            None => {
                for (entry, place, prize) in purse.assign(&standings) {
                    events.push(award(entry, place, prize, false)?);
                }
            }
        }
        events.push(Event::Ended {
            event,
            carried: purse.carried,
            split: split.is_some(),
        });
        Ok(events)
    }

    /// Calls the tournament off between events: entries of events not yet
    /// played are refunded, what the pool carried goes to the last played
    /// event's best-placed eligible winner (2213.05: the casino keeps no
    /// buy-in), unused vouchers are cashed, and it concludes.
    fn decide_cancel(&self, reason: String, day: Option<Date>) -> Result<Vec<Event>, TournamentError> {
        if let Some(running) = self.events.iter().position(|e| e.started && !e.ended) {
            return refuse(format!(
                "{:?} is being played: end it first; a tournament is called off only between events",
                self.event_name(running)
            ));
        }
        if reason.trim().is_empty() || reason.len() > ITEM_MAX_BYTES {
            return refuse(format!("give the reason in 1 to {ITEM_MAX_BYTES} bytes"));
        }
        let registered: Vec<&Entry> = self
            .entries
            .iter()
            .filter(|e| e.status == EntryStatus::Registered)
            .collect();
        let refunded: u64 = registered.iter().map(|e| e.buy_in.value).sum();
        let mut events: Vec<Event> = registered
            .iter()
            .map(|e| Event::Withdrawn { entry: e.number, day })
            .collect();
        let carried = self.pool.saturating_sub(refunded);
        if carried > 0 {
            let last_played = self.events.iter().rposition(|e| e.ended);
            let winner = last_played.and_then(|i| {
                self.events[i]
                    .awards
                    .iter()
                    .find(|a| self.entry(a.entry).is_ok_and(|e| e.status != EntryStatus::Disqualified))
            });
            let Some(winner) = winner else {
                return refuse(format!(
                    "the pool holds {} and no eligible winner of a played event can take it (2213.05)",
                    crate::money::Minor::new(carried)
                ));
            };
            events.push(Event::Awarded(Award {
                event: winner.event,
                entry: winner.entry,
                player: winner.player.clone(),
                place: winner.place,
                prize: Awarded::Cash(carried),
                by_split: false,
            }));
        }
        // Unused vouchers, and those the refunded entries had used, are paid to their holders.
        let freed = |v: &Voucher| v.used_by.is_none_or(|used| registered.iter().any(|e| e.number == used));
        events.extend(
            self.vouchers
                .iter()
                .filter(|v| freed(v) && !v.cashed && !v.cancelled)
                .map(|v| Event::VoucherCashed {
                    number: v.number,
                    player: v.player.clone(),
                    value: v.value,
                }),
        );
        events.push(Event::Cancelled { reason });
        events.extend(self.escrow_returned(&events));
        events.push(Event::Concluded);
        Ok(events)
    }

    fn decide_conclude(&self) -> Result<Vec<Event>, TournamentError> {
        if let Some(open) = self.events.iter().position(|e| !e.ended) {
            return refuse(format!("{:?} has not ended", self.event_name(open)));
        }
        if self.pool > 0 {
            return refuse(format!(
                "the prize pool still holds {} minor units: every buy-in is paid out by the conclusion (2213.05)",
                self.pool
            ));
        }
        let mut events: Vec<Event> = self
            .vouchers
            .iter()
            .filter(|v| v.used_by.is_none() && !v.cashed && !v.cancelled)
            .map(|v| Event::VoucherCashed {
                number: v.number,
                player: v.player.clone(),
                value: v.value,
            })
            .collect();
        events.extend(self.escrow_returned(&events));
        events.push(Event::Concluded);
        Ok(events)
    }

    /// What the escrow holds once `events` are applied, back to the house
    /// at the conclusion: the prizes' value less what was paid from it.
    fn escrow_returned(&self, events: &[Event]) -> Option<Event> {
        let mut left = self.escrow;
        for e in events {
            if let Event::Awarded(a) = e {
                left -= a.prize.value().min(left);
            }
        }
        (left > 0).then_some(Event::EscrowReturned { amount: left })
    }

    pub fn apply(&mut self, event: &Event) {
        self.history.push(event.clone());
        match event {
            Event::RulesFiled { day } => self.rules_filed = Some(*day),
            Event::ObjectionRecorded { reason, day } => {
                self.objection = Some(Objection {
                    day: *day,
                    reason: reason.clone(),
                })
            }
            Event::ObjectionResolved { .. } => self.objection = None,
            Event::EscrowFunded { amount } => {
                self.escrow += amount;
                self.escrow_funded = true;
            }
            Event::EscrowReturned { amount } => self.escrow -= amount,
            Event::Registered { entry, .. } => {
                let month = (entry.day.year(), u8::from(entry.day.month()));
                *self.fees_by_month.entry(month).or_default() += entry.fee.value;
                if let Paid::Voucher { number } = entry.buy_in.paid {
                    if let Some(v) = self.vouchers.iter_mut().find(|v| v.number == number) {
                        v.used_by = Some(entry.number);
                        self.vouchers_held -= v.value;
                    }
                }
                self.pool += entry.buy_in.value;
                if self.split.as_ref().is_some_and(|s| s.event == entry.event) {
                    // A re-entry joins the remaining players: a proposal among them lapses.
                    self.split = None;
                }
                if let Some(state) = self.events.get_mut(entry.event) {
                    state.buy_ins += entry.buy_in.value;
                }
                self.entries.push(entry.clone());
            }
            Event::Started { event, entries } => {
                if let Some(state) = self.events.get_mut(*event) {
                    state.started = true;
                }
                for number in entries {
                    self.set_status(*number, EntryStatus::Playing);
                }
            }
            Event::Rebought { entry, payment, .. } => {
                self.pool += payment.value;
                let event = self.entry(*entry).map(|e| e.event).ok();
                if let Some(state) = event.and_then(|e| self.events.get_mut(e)) {
                    state.buy_ins += payment.value;
                }
                if let Some(e) = self.entry_mut(*entry) {
                    e.rebuys.push(payment.clone());
                }
            }
            Event::Withdrawn { entry, day } => {
                if let Ok(e) = self.entry(*entry).cloned() {
                    match day {
                        Some(day) if e.fee.value > 0 => {
                            *self
                                .refunds_by_month
                                .entry((day.year(), u8::from(day.month())))
                                .or_default() += e.fee.value;
                        }
                        Some(_) => {}
                        None => {
                            let month = (e.day.year(), u8::from(e.day.month()));
                            if let Some(fees) = self.fees_by_month.get_mut(&month) {
                                *fees -= e.fee.value;
                            }
                        }
                    }
                    self.pool -= e.buy_in.value;
                    if let Some(state) = self.events.get_mut(e.event) {
                        state.buy_ins -= e.buy_in.value;
                    }
                    if let Paid::Voucher { number } = e.buy_in.paid {
                        if let Some(v) = self.vouchers.iter_mut().find(|v| v.number == number) {
                            v.used_by = None;
                            self.vouchers_held += v.value;
                        }
                    }
                }
                self.set_status(*entry, EntryStatus::Withdrawn);
            }
            Event::Cancelled { .. } => {}
            Event::Eliminated { entry } => {
                self.set_status(*entry, EntryStatus::Eliminated);
                // The remaining players changed: a proposal among them lapses.
                self.split = None;
            }
            Event::Disqualified { entries, .. } => {
                for number in entries {
                    self.set_status(*number, EntryStatus::Disqualified);
                }
                if self
                    .split
                    .as_ref()
                    .is_some_and(|s| s.shares.iter().any(|(e, _)| entries.contains(e)))
                {
                    self.split = None;
                }
            }
            Event::SplitProposed(split) => self.split = Some(split.clone()),
            Event::SplitAgreed { entry } => {
                if let Some(split) = &mut self.split {
                    split.agreed.push(*entry);
                }
            }
            Event::SplitRefused { .. } => self.split = None,
            Event::HouseAdded { event, amount } => {
                self.pool += amount;
                if let Some(state) = self.events.get_mut(*event) {
                    state.house_added += amount;
                }
            }
            Event::Awarded(award) => {
                let value = award.prize.value();
                self.pool -= value;
                // Paid from the escrow while it holds any (2213(1)).
                self.escrow -= value.min(self.escrow);
                match &award.prize {
                    Awarded::Voucher { number, event, value } => {
                        let payout = self
                            .config
                            .event(*event)
                            .is_some_and(|e| e.entry_fee.get() + e.buy_in.get() > 0);
                        self.vouchers_held += value;
                        if payout {
                            self.prizes_paid += value;
                        }
                        self.vouchers.push(Voucher {
                            number: *number,
                            player: award.player.clone(),
                            event: *event,
                            value: *value,
                            payout,
                            used_by: None,
                            cashed: false,
                            cancelled: false,
                        });
                    }
                    _ => self.prizes_paid += value,
                }
                if let Some(state) = self.events.get_mut(award.event) {
                    state.awards.push(award.clone());
                }
            }
            Event::Ended { event, carried, .. } => {
                if let Some(state) = self.events.get_mut(*event) {
                    state.ended = true;
                    state.carried = *carried;
                }
                for entry in self.entries.iter_mut().filter(|e| e.event == *event) {
                    if entry.status == EntryStatus::Playing {
                        entry.status = EntryStatus::Finished;
                    }
                }
                self.split = None;
            }
            Event::VoucherCashed { number, value, .. } => {
                if let Some(v) = self.vouchers.iter_mut().find(|v| v.number == *number) {
                    v.cashed = true;
                    if !v.payout {
                        self.prizes_paid += value;
                    }
                }
                self.vouchers_held -= value;
            }
            Event::VoucherCancelled { number, value } => {
                if let Some(v) = self.vouchers.iter_mut().find(|v| v.number == *number) {
                    v.cancelled = true;
                    if v.payout {
                        self.prizes_paid -= value;
                    }
                }
                self.vouchers_held -= value;
                self.pool += value;
            }
            Event::Concluded => self.concluded = true,
        }
    }

    fn entry_mut(&mut self, number: u32) -> Option<&mut Entry> {
        number.checked_sub(1).and_then(|i| self.entries.get_mut(i as usize))
    }

    fn set_status(&mut self, number: u32, status: EntryStatus) {
        if let Some(e) = self.entry_mut(number) {
            e.status = status;
        }
    }

    /// Decides and applies a command: its events, or why it was refused.
    pub fn execute(&mut self, command: Command) -> Result<Vec<Event>, TournamentError> {
        let events = self.decide(command)?;
        for event in &events {
            self.apply(event);
        }
        Ok(events)
    }

    /// The entry fees collected and not refunded: what the fees account
    /// holds until the conclusion counts them (2213.02).
    pub fn fees_held(&self) -> u64 {
        let collected: u64 = self.fees_by_month.values().sum();
        let refunded: u64 = self.refunds_by_month.values().sum();
        collected - refunded
    }

    /// Every buy-in at its value (re-buys and vouchers used as buy-ins included).
    pub fn buy_ins(&self) -> u64 {
        self.events.iter().map(|e| e.buy_ins).sum()
    }

    /// What the house added to the pool for fixed prizes.
    pub fn house_added(&self) -> u64 {
        self.events.iter().map(|e| e.house_added).sum()
    }
}

fn check_item(paid: &Paid) -> Result<(), TournamentError> {
    if let Paid::NonCash { item } = paid {
        if item.trim().is_empty() || item.len() > ITEM_MAX_BYTES {
            return refuse(format!(
                "describe the non-cash item in 1 to {ITEM_MAX_BYTES} bytes: it is recorded at its predetermined cash value (2213.01)"
            ));
        }
    }
    Ok(())
}
