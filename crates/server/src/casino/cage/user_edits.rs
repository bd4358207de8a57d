//! Retiring and editing a user (journal format 16): the admin's. A retired
//! account signs in no more and keeps its name for good, so its history
//! (journal, ledger, recall, reports) still names it and no one new takes
//! it. Money first: a player who holds any, or a cashier whose drawer the
//! cage's record says holds cash since its last count, is not retired
//! (nor a player made staff) until it is settled; the refusal names what
//! remains. What a table alone knows (a stake on its layout, a coupon not
//! played there) the tables are asked first ([`refuse_held`]).

use croupier_ledger::Storage;

use super::{Cage, Effect};
use crate::api::decimal;
use crate::api::{a_role, ApiError, ErrorCode, Role};
use crate::casino::actor::Actor;
use crate::casino::directory::Directory;
use crate::casino::err;
use crate::casino::journal::{require_format, JournalEvent, FORMAT_BACK_OFFICE};
use crate::casino::request::Request;
use crate::casino::users::User;
use croupier_core::tournament::EntryStatus;

/// The longest display name, in characters.
pub const DISPLAY_NAME_MAX: usize = 60;

type Planned = crate::casino::plan::Plan<Effect>;

pub use crate::casino::table::HeldAtTable;

/// Whether `request` is one a player's holdings at the tables decide:
/// retiring them, or making them staff. The player's name, if so.
pub fn holdings_asked(dir: &Directory, request: &Request) -> Option<String> {
    match request {
        Request::RetireUser { username } => Some(username.clone()),
        Request::EditUser {
            username,
            role: Some(role),
            ..
        } if *role != Role::Player => Some(username.clone()),
        _ => None,
    }
    .filter(|name| dir.user(name).is_some_and(|u| u.role == Role::Player))
}

/// Refuses retiring (or making staff of) `player` while any table holds
/// something of theirs, naming it.
pub fn refuse_held(player: &str, held: &[HeldAtTable]) -> Result<(), ApiError> {
    let mut what = Vec::new();
    for h in held.iter().filter(|h| !h.is_empty()) {
        if h.staked > 0 {
            what.push(format!(
                "{} staked on the layout at table {}",
                decimal(h.staked.into()),
                h.table
            ));
        }
        for (id, value) in &h.coupons {
            what.push(format!(
                "match play coupon {id} worth {} for table {}, not played",
                decimal((*value).into()),
                h.table
            ));
        }
    }
    if what.is_empty() {
        return Ok(());
    }
    Err(err(
        ErrorCode::MoneyHeld,
        format!(
            "{player} still holds {}: settle the round and let the coupon expire, then try again",
            what.join(", ")
        ),
    ))
}

/// A display name: 1 to [`DISPLAY_NAME_MAX`] printable characters with no
/// spaces around them, or empty to clear it.
fn check_display_name(name: &str) -> Result<(), ApiError> {
    let printable = name
        .chars()
        .all(|c| !c.is_control() && (c == ' ' || !c.is_whitespace()));
    if name.chars().count() > DISPLAY_NAME_MAX || name.trim() != name || !printable || name.contains("  ") {
        return Err(err(
            ErrorCode::BadRequest,
            format!(
                "display_name: up to {DISPLAY_NAME_MAX} printable characters, single spaces, none around them \
                 (empty clears it), not {name:?}"
            ),
        ));
    }
    Ok(())
}

impl<S: Storage> Cage<S> {
    /// `retire_user` and `edit_user`; `None` for any other request.
    pub(super) fn plan_people(
        &self,
        dir: &Directory,
        at_ms: u64,
        actor: &Actor,
        request: &Request,
    ) -> Option<Result<Planned, ApiError>> {
        match request {
            Request::RetireUser { username } => Some(self.plan_retire_user(dir, at_ms, actor, username)),
            Request::EditUser {
                username,
                display_name,
                role,
            } => Some(self.plan_edit_user(dir, at_ms, actor, username, display_name.as_deref(), *role)),
            _ => None,
        }
    }

    fn someone<'d>(dir: &'d Directory, username: &str) -> Result<&'d User, ApiError> {
        let user = dir
            .user(username)
            .ok_or_else(|| err(ErrorCode::NoUser, format!("no user {username:?}")))?;
        if user.retired {
            return Err(err(
                ErrorCode::Retired,
                format!("{username} is retired: a retired account is never changed again"),
            ));
        }
        Ok(user)
    }

    /// Refuses taking `user` out of the admins when no other admin who can
    /// sign in would be left, and an admin's own change of themselves.
    fn keep_an_admin(dir: &Directory, actor: &Actor, user: &User, what: &str) -> Result<(), ApiError> {
        if user.username == actor.username {
            return Err(err(
                ErrorCode::Forbidden,
                format!("you cannot {what} yourself: another admin does it"),
            ));
        }
        let others = dir
            .users()
            .any(|u| u.role == Role::Admin && !u.locked && !u.retired && u.username != user.username);
        if user.role == Role::Admin && !others {
            return Err(err(
                ErrorCode::Forbidden,
                format!(
                    "{} is the last admin who can sign in: make another admin first",
                    user.username
                ),
            ));
        }
        Ok(())
    }

    /// Refuses while `user` holds money in the ledger (a player's wallet,
    /// chips at a table, points) or, a cashier or admin, has a drawer the
    /// cage's record says holds cash since its last count today.
    fn refuse_money(&self, dir: &Directory, at_ms: u64, user: &User, what: &str) -> Result<(), ApiError> {
        let held: Vec<String> = self
            .balances_of(&user.username)
            .into_iter()
            .filter(|(_, balance)| *balance != 0)
            .map(|(account, balance)| format!("{account} {}", decimal(balance)))
            .collect();
        if !held.is_empty() {
            return Err(err(
                ErrorCode::MoneyHeld,
                format!(
                    "{} still holds {}: cash it out or in first; {what}",
                    user.username,
                    held.join(", ")
                ),
            ));
        }
        // A tournament's entry still in play, or a voucher still to use or
        // cash, is the player's money in the tournament's accounts.
        let mut entered: Vec<String> = Vec::new();
        for (id, held) in &self.tournaments {
            let t = &held.tournament;
            if t.concluded {
                continue;
            }
            for e in t.entries.iter().filter(|e| e.player == user.username) {
                if matches!(e.status, EntryStatus::Registered | EntryStatus::Playing) {
                    entered.push(format!("entry {} of tournament {id}", e.number));
                }
            }
            for v in t.vouchers.iter().filter(|v| v.player == user.username) {
                if v.used_by.is_none() && !v.cashed && !v.cancelled {
                    entered.push(format!(
                        "voucher {} of tournament {id} worth {}",
                        v.number,
                        decimal(v.value.into())
                    ));
                }
            }
        }
        if !entered.is_empty() {
            return Err(err(
                ErrorCode::MoneyHeld,
                format!(
                    "{} still holds {}: the entry is played out or withdrawn, the voucher used or cashed, first; {what}",
                    user.username,
                    entered.join(", ")
                ),
            ));
        }
        let drawer = self.drawer(dir.gaming_day(at_ms), &user.username);
        if drawer != 0 {
            return Err(err(
                ErrorCode::MoneyHeld,
                format!(
                    "{}'s drawer holds {} by the cage's record since its last count: they count it first \
                     (count_drawer); {what}",
                    user.username,
                    decimal(drawer.into())
                ),
            ));
        }
        Ok(())
    }

    fn plan_retire_user(
        &self,
        dir: &Directory,
        at_ms: u64,
        actor: &Actor,
        username: &str,
    ) -> Result<Planned, ApiError> {
        require_format(dir.journal_format(), FORMAT_BACK_OFFICE, "retiring a user is")?;
        let user = Self::someone(dir, username)?;
        // Locked, no bet, sale or coupon is made for them while the tables
        // are asked what they hold and the retirement is written.
        if user.role == Role::Player && !user.locked {
            return Err(err(
                ErrorCode::NotLocked,
                format!("lock {username} first: a player is retired only once locked, so that nothing is played for them meanwhile"),
            ));
        }
        Self::keep_an_admin(dir, actor, user, "retire")?;
        self.refuse_money(dir, at_ms, user, "a retired account holds no money")?;
        Ok(Planned::of(
            Vec::new(),
            vec![JournalEvent::UserRetired {
                username: username.to_string(),
            }],
            vec![Effect::Retire(username.to_string())],
        ))
    }

    fn plan_edit_user(
        &self,
        dir: &Directory,
        at_ms: u64,
        actor: &Actor,
        username: &str,
        display_name: Option<&str>,
        role: Option<Role>,
    ) -> Result<Planned, ApiError> {
        require_format(dir.journal_format(), FORMAT_BACK_OFFICE, "editing a user is")?;
        let user = Self::someone(dir, username)?;
        if let Some(name) = display_name {
            check_display_name(name)?;
        }
        // Only what changes is written: the same again writes nothing.
        let display_name = display_name
            .filter(|name| user.display_name.as_deref().unwrap_or("") != *name)
            .map(str::to_string);
        let role = role.filter(|role| *role != user.role);
        if let Some(role) = role {
            if user.role == Role::Admin {
                Self::keep_an_admin(dir, actor, user, "change the role of")?;
            } else if user.username == actor.username {
                return Err(err(ErrorCode::Forbidden, "you cannot change your own role"));
            }
            // A player made staff takes no money along; nor does a cashier
            // leave a drawer uncounted (they could count it no more). Staff
            // made a player starts at nothing.
            if user.role == Role::Player || role == Role::Player || user.role == Role::Cashier {
                let why = format!("{username} becomes {} only with nothing held", a_role(role));
                self.refuse_money(dir, at_ms, user, &why)?;
            }
        }
        if display_name.is_none() && role.is_none() {
            return Ok(Planned::new());
        }
        Ok(Planned::of(
            Vec::new(),
            vec![JournalEvent::UserEdited {
                username: username.to_string(),
                display_name: display_name.clone(),
                role,
            }],
            vec![Effect::EditUser {
                username: username.to_string(),
                display_name,
                role,
            }],
        ))
    }
}
