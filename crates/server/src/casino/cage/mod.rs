//! The cage: the ledger with its journal, the people, and the list of
//! tables. Requests that belong to no table (users, logins, cash, new
//! tables) run here. A table's requests run at the table, its single
//! writer; only their journal entries come here, and the order they arrive
//! in is the journal's.

mod bind;
pub mod cash;
pub mod drawer;
mod new_table;
pub use new_table::{RESERVED_TABLE_IDS, TABLES_MAX};
mod people;
pub mod record;
mod tournaments;
pub mod user_edits;

use std::collections::{BTreeMap, HashMap};

use croupier_ledger::{Applied, Ledger, LedgerError, Recorded, Storage, StorageError, StreamEvent, Transfer};

use super::actor::Actor;
use super::directory::{Coupon, Directory, SharedDirectory};
use super::journal::{self, JournalEvent, FORMAT_JOURNAL_RECOVERY, FORMAT_RESENDS_WRITE_NOTHING, JOURNAL_FORMAT};
use super::plan::Plan;
use super::request::Request;
use super::table::{checked_entry, Commit, SaleClaim, TableSlot};
use super::users::{valid_username, User, LOGIN_FAILURES_MAX, USERS_MAX};
use super::{err, policy, views};
use crate::api::{ApiError, ErrorCode, EventView, Role};

/// The longest reason a journal recovery gives, in bytes.
pub const RECOVERY_REASON_MAX: usize = 4_096;

/// What a cage request does once its batch is durable.
pub(super) enum Effect {
    AddUser(User),
    Login {
        username: String,
        failures: u32,
        locked: bool,
    },
    SetPassword {
        username: String,
        password_hash: String,
        must_change: bool,
    },
    SetLicence {
        username: String,
        licence: String,
    },
    AddTable(Box<TableSlot>),
    NameOperator(String),
    SetGamingDay(super::gaming_day::GamingDay),
    JournalFormat(u32),
    AddCoupon(String, Coupon),
    AddTournament(Box<super::tournaments::Held>),
    /// A tournament's events, applied once durable.
    Tournament {
        id: String,
        events: Vec<croupier_core::tournament::Event>,
        /// Its tables and chips' values, where the order changed them.
        tables: Option<super::tournaments::Tables>,
        /// The order's id and the order, where the client gave one.
        order: Option<(String, super::journal::tournament::TournamentOrder)>,
    },
    /// An entry of the cage's own record (journal format 14).
    Recorded(record::CageEntry),
    /// A cash-in or cash-out (its day, kind, reference) voided (journal format 15).
    Voided(u64, record::CageKind, String, record::VoidMark),
    /// A user retired for good (journal format 16).
    Retire(String),
    /// A user's new display name or role (journal format 16).
    EditUser {
        username: String,
        display_name: Option<String>,
        role: Option<Role>,
    },
    /// Cashiers moved `amount` of `player`'s cash in (or out) on UTC day `day`.
    CashMoved {
        player: String,
        cash_in: bool,
        day: u64,
        amount: u64,
    },
}

pub struct Cage<S: Storage> {
    pub(super) ledger: Ledger<S>,
    pub(super) directory: SharedDirectory,
    /// Each table's id and the profile it plays.
    pub(super) tables: BTreeMap<String, String>,
    /// The casino's currency: its first table's (see `new_table.rs`).
    pub(super) currency: Option<String>,
    /// Tables created and not yet taken by whoever runs them.
    pub(super) opened: Vec<TableSlot>,
    /// What cashiers moved of each player's cash, in and out, on their latest day.
    pub(super) cash_days: HashMap<(String, bool), (u64, u64)>,
    /// What dealers sold each player in chips at every table on their
    /// latest UTC day of sales (journal format 14).
    pub(super) dealer_days: HashMap<String, (u64, u64)>,
    /// The casino's tournaments, by id (journal format 7).
    pub(super) tournaments: BTreeMap<String, super::tournaments::Held>,
    /// The cage's own record of its newest gaming days (journal format 14).
    pub(super) record: record::CageRecord,
}

/// A write the ledger did not take, as an answer: its refusal, a storage failure, or a commit whose answer was lost.
pub(super) fn ledger_error(e: LedgerError) -> ApiError {
    match e {
        LedgerError::Refused { refusal, .. } => err(ErrorCode::Refused, refusal.to_string()),
        LedgerError::Storage(e @ StorageError::OutcomeUnknown(_)) => err(ErrorCode::OutcomeUnknown, e.to_string()),
        other => err(ErrorCode::Storage, format!("nothing was changed: {other}")),
    }
}

/// Refuses changing a retired account: it is never changed again.
fn refuse_retired(user: &User) -> Result<(), ApiError> {
    if user.retired {
        return Err(err(
            ErrorCode::Retired,
            format!("{} is retired: a retired account is never changed again", user.username),
        ));
    }
    Ok(())
}

impl<S: Storage> Commit for Cage<S> {
    fn commit(
        &mut self,
        at_ms: u64,
        transfers: Vec<Transfer>,
        event: StreamEvent,
        verdict: bool,
        claim: Option<SaleClaim>,
    ) -> Result<Vec<Applied>, ApiError> {
        if verdict {
            let counted = match &claim {
                Some(claim) => self.dealer_limit(claim)?,
                None => None,
            };
            let applied = self.write(at_ms, &transfers, event)?;
            if let Some(claim) = counted.filter(|_| !journal::resent(FORMAT_RESENDS_WRITE_NOTHING, &applied)) {
                self.count_sale(claim);
            }
            Ok(applied)
        } else {
            let created = vec![Applied::Created; transfers.len()];
            self.write_checked(at_ms, checked_entry(transfers, event))?;
            Ok(created)
        }
    }
}

impl<S: Storage> Cage<S> {
    pub(super) fn new(ledger: Ledger<S>) -> Cage<S> {
        Cage {
            ledger,
            directory: SharedDirectory::default(),
            tables: BTreeMap::new(),
            currency: None,
            opened: Vec::new(),
            cash_days: HashMap::new(),
            dealer_days: HashMap::new(),
            tournaments: BTreeMap::new(),
            record: BTreeMap::new(),
        }
    }

    /// The cage's record of gaming day `day`, newest first: `by`'s only
    /// where it is given; and whether more were left out.
    pub fn cage_record(&self, day: u64, by: Option<&str>) -> (Vec<record::CageEntry>, bool) {
        record::read(&self.record, day, by)
    }

    /// The casino's currency (its first table's) and its operator's name, once named.
    pub fn currency_and_operator(&self) -> (Option<String>, Option<String>) {
        (
            self.currency.clone(),
            self.directory.read().operator().map(str::to_string),
        )
    }

    pub fn ledger(&self) -> &Ledger<S> {
        &self.ledger
    }

    pub fn directory(&self) -> &SharedDirectory {
        &self.directory
    }

    /// Requests executed between these two are durable together at `end_group`.
    pub fn begin_group(&mut self) -> Result<(), croupier_ledger::StorageError> {
        self.ledger.begin_group()
    }

    pub fn end_group(&mut self) -> Result<(), croupier_ledger::StorageError> {
        self.ledger.end_group()
    }

    /// The tables created since the last call, for whoever runs them.
    pub fn take_opened(&mut self) -> Vec<TableSlot> {
        std::mem::take(&mut self.opened)
    }

    /// Executes a request that belongs to no table.
    pub fn execute(&mut self, at_ms: u64, actor: &Actor, request: Request) -> Result<Vec<EventView>, ApiError> {
        let dir = self.directory.read();
        dir.check_actor(actor)?;
        policy::require(actor.role, request.act(actor))?;
        let planned = (self.plan_tournament(&dir, at_ms, actor, &request))
            .or_else(|| self.plan_drawer(&dir, at_ms, actor, &request))
            .or_else(|| self.plan_people(&dir, at_ms, actor, &request));
        let Plan {
            transfers,
            events,
            mut effects,
            ..
        } = match planned {
            Some(planned) => planned?,
            None => self.plan(&dir, at_ms, &request)?,
        };
        if let Some(moved) = self.cashier_limit(&dir, at_ms, actor, &request)? {
            effects.push(moved);
        }
        // What the cage did, in its own record: a request that writes
        // something (a coupon sent again as it was writes nothing).
        if !events.is_empty() {
            if let Some(entry) = record::entry_of(dir.journal_format(), at_ms, actor, &request) {
                effects.push(Effect::Recorded(entry));
            }
        }
        if transfers.is_empty() && events.is_empty() && effects.is_empty() {
            return Ok(Vec::new());
        }
        let event = journal::write(dir.journal_format(), at_ms, actor, &request, &events)?;
        let applied = self.write(at_ms, &transfers, event)?;
        if journal::resent(dir.journal_format(), &applied) {
            return Ok(Vec::new());
        }
        for effect in effects {
            self.apply(effect);
        }
        Ok(events.iter().map(views::view).collect())
    }

    /// Writes one request's transfers and journal event as one entry, all or
    /// nothing. From journal format 5 a resend, whose every transfer was made
    /// before, writes nothing: the ledger checks that each is the transfer
    /// made (another under its id is refused) and moves nothing again. A
    /// request some of whose ids were used before and some not is no resend:
    /// it is refused.
    fn write(&mut self, at_ms: u64, transfers: &[Transfer], event: StreamEvent) -> Result<Vec<Applied>, ApiError> {
        if self.directory.read().rules().resends_write_nothing {
            let used = transfers.iter().filter(|t| self.ledger.has_transfer(&t.id)).count();
            if used > 0 && used == transfers.len() {
                return self.ledger.commit(at_ms, transfers, Vec::new()).map_err(ledger_error);
            }
            if let Some(t) = transfers.iter().find(|t| self.ledger.has_transfer(&t.id)) {
                return Err(err(
                    ErrorCode::Refused,
                    format!(
                        "transfer id {} was used before by another request; nothing was written",
                        t.id
                    ),
                ));
            }
        }
        self.ledger.commit(at_ms, transfers, vec![event]).map_err(ledger_error)
    }

    /// Writes a table's entry that the table has checked itself and counts as
    /// done: refused, with nothing written, unless every transfer is new.
    pub fn write_checked(&mut self, at_ms: u64, entry: Recorded) -> Result<(), ApiError> {
        self.ledger.commit_new(at_ms, entry).map_err(ledger_error)
    }

    fn plan(&self, dir: &Directory, at_ms: u64, request: &Request) -> Result<Plan<Effect>, ApiError> {
        use Request as R;
        let (mut transfers, mut events, mut effects) = (Vec::new(), Vec::new(), Vec::new());
        match request {
            R::CreateUser {
                username,
                role,
                password_hash,
                licence,
            } => {
                people::check_role_journaled(dir, *role)?;
                if let Some(licence) = licence {
                    super::users::check_licence(*role, licence)?;
                }
                if !valid_username(username) {
                    return Err(err(
                        ErrorCode::BadUsername,
                        "a username is 1 to 32 of a-z, 0-9, '-', '_', '.'",
                    ));
                }
                if let Some(retired) = dir
                    .user(username)
                    .map(|u| u.retired)
                    .or((username == "system").then_some(false))
                {
                    let why = if retired {
                        ", retired: a retired name is never given again"
                    } else {
                        ""
                    };
                    return Err(err(ErrorCode::Exists, format!("user {username:?} exists{why}")));
                }
                if dir.len() >= USERS_MAX {
                    return Err(err(ErrorCode::Full, "no more users"));
                }
                events.push(JournalEvent::UserCreated {
                    username: username.clone(),
                    role: *role,
                });
                effects.push(Effect::AddUser(User {
                    username: username.clone(),
                    role: *role,
                    password_hash: password_hash.clone(),
                    failures: 0,
                    locked: false,
                    must_change_password: false,
                    licence: licence.clone(),
                    player_id: dir.len() as u64,
                    retired: false,
                    display_name: None,
                }));
                if let Some(licence) = licence {
                    events.push(JournalEvent::LicenceSet {
                        username: username.clone(),
                        licence: licence.clone(),
                    });
                }
            }
            R::LoginFailed { username } | R::LoginSucceeded { username } => {
                let user = dir
                    .user(username)
                    .ok_or_else(|| err(ErrorCode::NoUser, "no such user"))?;
                let failed = matches!(request, R::LoginFailed { .. });
                let failures = if failed { user.failures + 1 } else { 0 };
                let locked = user.locked || failures >= LOGIN_FAILURES_MAX;
                events.push(if failed {
                    JournalEvent::LoginFailed {
                        username: username.clone(),
                        failures,
                        locked,
                    }
                } else {
                    JournalEvent::LoginSucceeded {
                        username: username.clone(),
                    }
                });
                effects.push(Effect::Login {
                    username: username.clone(),
                    failures,
                    locked,
                });
            }
            R::LockUser { username } | R::UnlockUser { username } => {
                let user = dir
                    .user(username)
                    .ok_or_else(|| err(ErrorCode::NoUser, format!("no user {username:?}")))?;
                refuse_retired(user)?;
                let lock = matches!(request, R::LockUser { .. });
                // Someone must be left who can sign in and unlock the others.
                let last_admin = user.role == Role::Admin
                    && !user.locked
                    && !dir
                        .users()
                        .any(|u| u.role == Role::Admin && !u.locked && !u.retired && u.username != *username);
                if lock && last_admin && dir.rules().actors_known {
                    return Err(err(
                        ErrorCode::Forbidden,
                        format!("{username} is the last admin who can sign in, and is not locked"),
                    ));
                }
                // Asked again when it is already so, nothing is written.
                if user.locked != lock {
                    events.push(if lock {
                        JournalEvent::UserLocked {
                            username: username.clone(),
                        }
                    } else {
                        JournalEvent::UserUnlocked {
                            username: username.clone(),
                        }
                    });
                    // Unlocking clears the failures an older server counted too.
                    effects.push(Effect::Login {
                        username: username.clone(),
                        failures: if lock { user.failures } else { 0 },
                        locked: lock,
                    });
                }
            }
            R::SetPassword {
                username,
                password_hash,
                must_change,
            } => {
                let user = dir
                    .user(username)
                    .ok_or_else(|| err(ErrorCode::NoUser, format!("no user {username:?}")))?;
                refuse_retired(user)?;
                events.push(JournalEvent::PasswordSet {
                    username: username.clone(),
                });
                effects.push(Effect::SetPassword {
                    username: username.clone(),
                    password_hash: password_hash.clone(),
                    must_change: *must_change,
                });
            }
            R::SetLicence { username, licence } => {
                let user = dir
                    .user(username)
                    .ok_or_else(|| err(ErrorCode::NoUser, format!("no user {username:?}")))?;
                refuse_retired(user)?;
                super::users::check_licence(user.role, licence)?;
                // Recorded already, as it is: nothing to write.
                if user.licence.as_ref() == Some(licence) {
                    return Ok(Plan::of(transfers, events, effects));
                }
                events.push(JournalEvent::LicenceSet {
                    username: username.clone(),
                    licence: licence.clone(),
                });
                effects.push(Effect::SetLicence {
                    username: username.clone(),
                    licence: licence.clone(),
                });
            }
            R::JournalFormat { format } => {
                if *format <= dir.journal_format() || *format > JOURNAL_FORMAT {
                    return Err(err(
                        ErrorCode::BadFormat,
                        format!(
                            "the journal is in format {}; it can go on only in a later one up to {JOURNAL_FORMAT}, not {format}",
                            dir.journal_format()
                        ),
                    ));
                }
                events.push(JournalEvent::JournalFormatSet { format: *format });
                effects.push(Effect::JournalFormat(*format));
            }
            R::Checkpoint { through, digest, bytes } => {
                let bound = bind::plan_bind(dir, self.ledger.next_seq(), *through, digest, *bytes)?;
                events.push(bound);
            }
            R::RecoverJournal {
                kept_through,
                cut,
                cut_head,
                backup,
                reason,
                damage,
                sealed,
            } => {
                // Right after the cut, in a journal in the current format.
                if !dir.rules().journal_recovery || *kept_through >= self.ledger.next_seq() {
                    return Err(err(
                        ErrorCode::BadRequest,
                        format!(
                            "a recovery is journaled after the entries it kept ({kept_through}), in format {FORMAT_JOURNAL_RECOVERY} or later"
                        ),
                    ));
                }
                if reason.trim().is_empty()
                    || [reason, backup, damage, sealed, cut_head]
                        .iter()
                        .any(|text| text.len() > RECOVERY_REASON_MAX)
                {
                    return Err(err(
                        ErrorCode::BadRequest,
                        format!("a recovery gives its reason, of at most {RECOVERY_REASON_MAX} bytes"),
                    ));
                }
                events.push(JournalEvent::JournalRecovered {
                    kept_through: *kept_through,
                    cut: *cut,
                    cut_head: cut_head.clone(),
                    backup: backup.clone(),
                    reason: reason.clone(),
                    damage: damage.clone(),
                    sealed: sealed.clone(),
                });
            }
            R::CreateTable { .. } => self.plan_new_table(dir, request, &mut events, &mut effects)?,
            R::NameOperator { name } => people::name_operator(dir, name, &mut events, &mut effects)?,
            R::SetGamingDay { time_zone, starts_at } => {
                journal::require_format(
                    dir.journal_format(),
                    journal::FORMAT_GAMING_DAY,
                    "the casino's gaming day is",
                )?;
                let day = super::gaming_day::GamingDay::new(time_zone, starts_at)
                    .map_err(|why| err(ErrorCode::BadRequest, format!("the gaming day: {why}")))?;
                // The same day again writes nothing.
                if *dir.gaming_day_rule() != day {
                    events.push(JournalEvent::GamingDaySet {
                        time_zone: day.zone().to_string(),
                        starts_at: day.starts_at(),
                    });
                    effects.push(Effect::SetGamingDay(day));
                }
            }
            R::CashIn { .. } | R::CashOut { .. } => cash::plan_cash(dir, request, &mut transfers, &mut events)?,
            R::IssueCoupon {
                id,
                player,
                table,
                value,
                expires_at_ms,
            } => {
                let coupon = Coupon {
                    player: player.clone(),
                    table: table.clone(),
                    value: value.get(),
                    expires_at_ms: *expires_at_ms,
                };
                self.plan_coupon(dir, at_ms, id, coupon, &mut events, &mut effects)?;
            }
            _ => return Err(err(ErrorCode::Internal, "a table's request reached the cage")),
        }
        Ok(Plan::of(transfers, events, effects))
    }

    fn apply(&mut self, effect: Effect) {
        match effect {
            Effect::AddUser(user) => self.directory.change(|dir| dir.add_user(user)),
            Effect::Login {
                username,
                failures,
                locked,
            } => self
                .directory
                .change(|dir| dir.record_login(&username, failures, locked)),
            Effect::SetPassword {
                username,
                password_hash,
                must_change,
            } => self
                .directory
                .change(|dir| dir.set_password(&username, password_hash, must_change)),
            Effect::AddTable(slot) => {
                self.tables.insert(slot.id.clone(), slot.profile_name.clone());
                if self.currency.is_none() {
                    self.currency = Some(slot.table.profile().spec().currency.clone());
                }
                self.opened.push(*slot);
            }
            Effect::SetLicence { username, licence } => {
                self.directory.change(|dir| dir.set_licence(&username, licence))
            }
            Effect::JournalFormat(format) => self.directory.change(|dir| dir.set_journal_format(format)),
            Effect::NameOperator(name) => self.directory.change(|dir| dir.set_operator(&name)),
            Effect::SetGamingDay(day) => self.directory.change(|dir| dir.set_gaming_day(day)),
            Effect::AddCoupon(id, coupon) => self.directory.change(|dir| dir.add_coupon(id, coupon)),
            Effect::AddTournament(held) => {
                self.tournaments
                    .insert(held.tournament.config().spec().id.clone(), *held);
            }
            Effect::Tournament {
                id,
                order,
                events,
                tables,
            } => self.apply_tournament(&id, order, &events, tables),
            Effect::Recorded(entry) => {
                let day = self.directory.read().gaming_day(entry.at_ms);
                record::enter(&mut self.record, day, entry)
            }
            Effect::Voided(day, kind, reference, mark) => self.mark_voided(day, kind, &reference, mark),
            Effect::Retire(username) => self.directory.change(|dir| dir.retire(&username)),
            Effect::EditUser {
                username,
                display_name,
                role,
            } => self
                .directory
                .change(|dir| dir.edit_user(&username, display_name, role)),
            Effect::CashMoved {
                player,
                cash_in,
                day,
                amount,
            } => {
                let moved = self.cash_days.entry((player, cash_in)).or_insert((day, 0));
                if moved.0 != day {
                    *moved = (day, 0);
                }
                moved.1 = moved.1.saturating_add(amount);
            }
        }
    }
}
