//! The directory: the people the casino knows, and the journal's format.
//! The cage changes it; every table reads it (a player's number and name,
//! how to settle). Readers take the current version without a lock and keep
//! it as long as they read; a change publishes a new version beside it
//! (`arc-swap`), sharing what did not change with the old one (`imbl`), so
//! a change costs the same for ten users or a million and never waits for a
//! table settling a long round.

use std::borrow::Cow;
use std::sync::Arc;

use arc_swap::ArcSwap;

use super::gaming_day::GamingDay;
use super::users::User;
use crate::api::{ApiError, ErrorCode, Role};

/// A match play coupon as issued: whose, for which table, worth what.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Coupon {
    pub player: String,
    pub table: String,
    pub value: u64,
    /// Played only before this instant (Unix ms), if it has an end.
    pub expires_at_ms: Option<u64>,
}

/// A table given to a tournament's event, as the cage publishes it for the
/// table: which event, whether it is under way, who plays it there, and
/// what each colour of tournament chip counts (Colorado 2214(2)).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TableEvent {
    pub tournament: String,
    pub event: usize,
    pub event_name: String,
    pub running: bool,
    pub ended: bool,
    /// Each player playing the event, with their entry's number.
    pub players: std::collections::BTreeMap<String, u32>,
    pub colours: Vec<(String, u64)>,
}

/// The most match play coupons a casino keeps issued.
pub const COUPONS_MAX: usize = 1_000_000;

#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct Directory {
    users: imbl::OrdMap<String, User>,
    player_names: imbl::OrdMap<u64, String>,
    /// Match play coupons issued, by id: tables check a bet's coupon here.
    coupons: imbl::OrdMap<String, Coupon>,
    /// Each player's coupons' ids, for the cage's page.
    coupons_by_player: imbl::OrdMap<String, imbl::OrdSet<String>>,
    /// The format of the entries written from now on: 1 until a
    /// `journal_format` entry says otherwise.
    journal_format: u32,
    /// Tables given to a tournament's event, by table.
    table_events: imbl::OrdMap<String, TableEvent>,
    /// The casino's operator, shown on every layout (Maryland ch.1 G(1)).
    operator: Option<Arc<str>>,
    /// The casino's gaming day (journal format 14; a UTC day until set).
    /// Left out of a checkpoint while a UTC day, as older journals give.
    #[serde(default, skip_serializing_if = "GamingDay::is_utc_midnight")]
    gaming_day: GamingDay,
    /// The journal's requests are being replayed: what the journal holds was
    /// accepted when written, and a lock is no reason to refuse it again. A
    /// table plans a request on the directory it read, so one of a player's
    /// bets (or a dealer's sale to them) planned before their lock may be
    /// written after it. Never in a checkpoint.
    #[serde(skip)]
    replaying: bool,
}

impl Default for Directory {
    fn default() -> Directory {
        Directory {
            users: imbl::OrdMap::new(),
            player_names: imbl::OrdMap::new(),
            coupons: imbl::OrdMap::new(),
            coupons_by_player: imbl::OrdMap::new(),
            journal_format: 1,
            table_events: imbl::OrdMap::new(),
            operator: None,
            gaming_day: GamingDay::utc(),
            replaying: false,
        }
    }
}

impl Directory {
    /// The gaming day `at_ms` falls in: days since 1970-01-01 of its local date.
    pub fn gaming_day(&self, at_ms: u64) -> u64 {
        self.gaming_day.day(at_ms)
    }

    /// The casino's gaming day: its time zone and the hour it starts.
    pub fn gaming_day_rule(&self) -> &GamingDay {
        &self.gaming_day
    }

    pub(super) fn set_gaming_day(&mut self, day: GamingDay) {
        self.gaming_day = day;
    }

    /// The date of the gaming day `at_ms` falls in.
    pub fn gaming_date(&self, at_ms: u64) -> time::Date {
        super::gaming_day::day_of(self.gaming_day(at_ms).saturating_mul(86_400_000))
    }

    pub fn user(&self, username: &str) -> Option<&User> {
        self.users.get(username)
    }

    /// The match play coupon issued under `id`, if one was.
    pub fn coupon(&self, id: &str) -> Option<&Coupon> {
        self.coupons.get(id)
    }

    /// The coupons issued for `table`. It scans every coupon: only the
    /// table's report, a staff read, asks.
    pub fn coupons_for_table<'a>(&'a self, table: &'a str) -> impl Iterator<Item = (&'a String, &'a Coupon)> + 'a {
        self.coupons.iter().filter(move |(_, c)| c.table == table)
    }

    /// The tournament event `table` is given to, if any.
    pub fn table_event(&self, table: &str) -> Option<&TableEvent> {
        self.table_events.get(table)
    }

    /// The table is no event's: taken back from one not played.
    pub fn clear_table_event(&mut self, table: &str) {
        self.table_events.remove(table);
    }

    pub fn set_table_event(&mut self, table: String, event: TableEvent) {
        self.table_events.insert(table, event);
    }

    /// How many match play coupons were issued.
    pub fn coupons_issued(&self) -> usize {
        self.coupons.len()
    }

    pub fn add_coupon(&mut self, id: String, coupon: Coupon) {
        self.coupons_by_player
            .entry(coupon.player.clone())
            .or_default()
            .insert(id.clone());
        self.coupons.insert(id, coupon);
    }

    /// The match play coupons issued to `player`, by id.
    pub fn coupons_of(&self, player: &str) -> Vec<(String, Coupon)> {
        self.coupons_by_player
            .get(player)
            .map(|ids| {
                ids.iter()
                    .filter_map(|id| self.coupons.get(id).map(|c| (id.clone(), c.clone())))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether `actor` is someone the casino knows, in the role they act in:
    /// the server itself, or a user with that role (from journal format 5). A session comes only from
    /// a user's sign-in, so this refuses only a request no sign-in could make
    /// (a journal entry written by hand, say).
    pub fn check_actor(&self, actor: &super::Actor) -> Result<(), ApiError> {
        if *actor == super::Actor::system() || !self.rules().actors_known {
            return Ok(());
        }
        match self.user(&actor.username) {
            Some(user) if user.retired => Err(ApiError::new(
                ErrorCode::Locked,
                format!("{}'s account is retired: it acts no more", actor.username),
            )),
            Some(user) if user.locked && !self.replaying => Err(ApiError::new(
                ErrorCode::Locked,
                format!("{}'s account is locked", actor.username),
            )),
            Some(user) if user.role == actor.role => Ok(()),
            Some(user) => Err(ApiError::new(
                ErrorCode::Forbidden,
                format!(
                    "{} is {}, not {}",
                    actor.username,
                    crate::api::a_role(user.role),
                    crate::api::a_role(actor.role)
                ),
            )),
            None => Err(ApiError::new(
                ErrorCode::Forbidden,
                format!("no user {:?} acts here", actor.username),
            )),
        }
    }

    /// The users whose names come after `after`, in name order: a page
    /// costs what it holds, not the whole directory.
    pub fn users_after<'a>(&'a self, after: &str) -> impl Iterator<Item = &'a User> + 'a {
        use std::ops::Bound;
        self.users
            .range::<_, str>((Bound::Excluded(after), Bound::Unbounded))
            .map(|(_, u)| u)
    }

    /// The users whose names begin with `prefix`, in name order.
    pub fn users_beginning<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = &'a User> + 'a {
        use std::ops::Bound;
        self.users
            .range::<_, str>((Bound::Included(prefix), Bound::Unbounded))
            .take_while(move |(name, _)| name.starts_with(prefix))
            .map(|(_, u)| u)
    }

    pub fn users(&self) -> impl Iterator<Item = &User> {
        self.users.values()
    }

    pub fn len(&self) -> usize {
        self.users.len()
    }

    pub fn is_empty(&self) -> bool {
        self.users.is_empty()
    }

    pub fn journal_format(&self) -> u32 {
        self.journal_format
    }

    /// The rules of the journal's format: what replays as it was written.
    pub fn rules(&self) -> super::journal::Rules {
        super::journal::Rules::of(self.journal_format)
    }

    /// The casino's operator, once an admin has named it.
    pub fn operator(&self) -> Option<&str> {
        self.operator.as_deref()
    }

    pub(super) fn set_operator(&mut self, name: &str) {
        self.operator = Some(Arc::from(name));
    }

    pub fn name_of(&self, player: u64) -> String {
        self.name_ref(player).into_owned()
    }

    /// A player's name, borrowed where the directory has it.
    pub fn name_ref(&self, player: u64) -> Cow<'_, str> {
        match self.player_names.get(&player) {
            Some(name) => Cow::Borrowed(name),
            None => Cow::Owned(format!("#{player}")),
        }
    }

    /// The player of that name, or the refusal saying there is none, or
    /// that they are retired: no money moves to or from a retired player.
    pub fn player(&self, username: &str) -> Result<&User, ApiError> {
        match self.users.get(username) {
            Some(u) if u.role == Role::Player && u.retired => Err(ApiError::new(
                ErrorCode::Retired,
                format!("player {username:?} is retired: no money moves to or from them, and they play no more"),
            )),
            Some(u) if u.role == Role::Player => Ok(u),
            _ => Err(ApiError::new(ErrorCode::NoPlayer, format!("no player {username:?}"))),
        }
    }

    /// The player of that name, to play for at a table: from journal format
    /// 16 not a locked one, whom the admin may be retiring (the tables were
    /// asked what they hold).
    pub fn player_in_play(&self, username: &str) -> Result<&User, ApiError> {
        let user = self.player(username)?;
        if user.locked && !self.replaying && self.rules().back_office {
            return Err(ApiError::new(
                ErrorCode::Locked,
                format!("player {username:?} is locked: nothing is played for them until an admin unlocks them"),
            ));
        }
        Ok(user)
    }

    /// The player of that name, retired or not: for reading their history.
    pub fn player_on_record(&self, username: &str) -> Option<&User> {
        self.users.get(username).filter(|u| u.role == Role::Player)
    }

    /// The player whose number is `id`, retired or not: the recall and
    /// the journal name players by number.
    pub fn player_numbered(&self, id: u64) -> Option<&User> {
        self.player_names
            .get(&id)
            .and_then(|name| self.users.get(name))
            .filter(|u| u.role == Role::Player && u.player_id == id)
    }

    pub(super) fn add_user(&mut self, user: User) {
        if user.role == Role::Player {
            self.player_names.insert(user.player_id, user.username.clone());
        }
        self.users.insert(user.username.clone(), user);
    }

    pub(super) fn record_login(&mut self, username: &str, failures: u32, locked: bool) {
        if let Some(u) = self.users.get_mut(username) {
            u.failures = failures;
            u.locked = locked;
        }
    }

    /// Retires an account for good: it keeps its name, so none reuses it.
    pub(super) fn retire(&mut self, username: &str) {
        if let Some(u) = self.users.get_mut(username) {
            u.retired = true;
        }
    }

    /// A user's new display name or role. A player made staff keeps their
    /// number's name, so their rounds in recall still name them; staff made
    /// a player is given theirs, and holds no licence.
    pub(super) fn edit_user(&mut self, username: &str, display_name: Option<String>, role: Option<Role>) {
        let Some(u) = self.users.get_mut(username) else {
            return;
        };
        if let Some(name) = display_name {
            u.display_name = (!name.is_empty()).then_some(name);
        }
        if let Some(role) = role {
            u.role = role;
            if role == Role::Player {
                u.licence = None;
                let (id, name) = (u.player_id, u.username.clone());
                self.player_names.insert(id, name);
            }
        }
    }

    pub(super) fn set_password(&mut self, username: &str, password_hash: String, must_change: bool) {
        if let Some(u) = self.users.get_mut(username) {
            u.password_hash = password_hash;
            u.must_change_password = must_change;
        }
    }

    pub(super) fn set_licence(&mut self, username: &str, licence: String) {
        if let Some(u) = self.users.get_mut(username) {
            u.licence = Some(licence);
        }
    }

    pub(super) fn set_replaying(&mut self, replaying: bool) {
        self.replaying = replaying;
    }

    pub(super) fn set_journal_format(&mut self, format: u32) {
        self.journal_format = format;
    }
}

/// The directory as the cage last left it, shared with every table.
#[derive(Clone, Default)]
pub struct SharedDirectory(Arc<ArcSwap<Directory>>);

impl SharedDirectory {
    /// The directory as it is now; the version taken stays whole however long it is read.
    pub fn read(&self) -> Arc<Directory> {
        self.0.load_full()
    }

    /// Publishes a changed version. Only the cage changes the directory, one change at a time.
    pub(super) fn change(&self, f: impl FnOnce(&mut Directory)) {
        let mut next = Directory::clone(&self.0.load());
        f(&mut next);
        self.0.store(Arc::new(next));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table settling a round reads the directory all the while; the
    /// cage's next change (a login, a new player) must not wait for it, and
    /// the reader keeps the version it took.
    #[test]
    fn a_change_waits_for_no_reader_and_a_reader_keeps_its_version() {
        let shared = SharedDirectory::default();
        let held = shared.read();
        let (done, changed) = std::sync::mpsc::channel();
        let writer = shared.clone();
        std::thread::spawn(move || {
            writer.change(|d| {
                d.player_names.insert(7, "p7".into());
            });
            let _ = done.send(());
        });
        assert!(
            changed.recv_timeout(std::time::Duration::from_secs(10)).is_ok(),
            "the change waited for a reader"
        );
        assert_eq!(held.name_of(7), "#7", "a reader keeps the version it took");
        assert_eq!(shared.read().name_of(7), "p7");
    }
}
