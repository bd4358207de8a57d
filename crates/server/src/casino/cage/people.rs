//! What the cage reads of its people: a user, the users a page at a time,
//! a player's accounts and coupons, and the players found by a number or a
//! name's beginning (for the cashier's look-up).

use std::collections::BTreeMap;

use croupier_ledger::Storage;

use super::{Cage, Effect};
use crate::api::{ApiError, ErrorCode, Role};
use crate::casino::directory::Directory;
use crate::casino::journal::{require_format, JournalEvent, FORMAT_OPERATOR_NAMED};
use crate::casino::users::{printable_name, User, OPERATOR_NAME_MAX};

impl<S: Storage> Cage<S> {
    pub fn user(&self, username: &str) -> Option<User> {
        self.directory.read().user(username).cloned()
    }

    /// Up to `n` users whose names come after `after`, in name order, and
    /// whether more follow: the retired ones, or the others.
    pub fn users_after(&self, after: &str, n: usize, retired: bool) -> (Vec<User>, bool) {
        let dir = self.directory.read();
        let mut users: Vec<User> = dir
            .users_after(after)
            .filter(|u| u.retired == retired)
            .take(n.saturating_add(1))
            .cloned()
            .collect();
        let more = users.len() > n;
        users.truncate(n);
        (users, more)
    }

    /// A player's accounts and the coupons issued to them; `None` if there is no such player.
    pub fn player_accounts(&self, player: &str) -> Option<crate::api::bodies::PlayerAccounts> {
        let dir = self.directory.read();
        let user = dir.player_on_record(player)?;
        Some(crate::api::bodies::PlayerAccounts {
            player: player.to_string(),
            player_id: user.player_id,
            display_name: user.display_name.clone(),
            retired: user.retired,
            accounts: self.balances_of(player),
            coupons: dir
                .coupons_of(player)
                .into_iter()
                .map(|(id, c)| crate::api::bodies::IssuedCoupon {
                    id,
                    table: c.table,
                    value: c.value,
                    expires_at_ms: c.expires_at_ms,
                })
                .collect(),
            locked: user.locked,
            away: BTreeMap::new(),
        })
    }

    /// Up to `n` players, retired ones among them, found by `query`: the one
    /// numbered so first, then those whose names begin so, in name order;
    /// and whether more follow.
    pub fn find_players(&self, query: &crate::api::player_search::PlayerQuery, n: usize) -> (Vec<User>, bool) {
        use crate::api::player_search::PlayerQuery as Q;
        let dir = self.directory.read();
        let numbered = match query {
            Q::Number(id) | Q::NumberOrName(id, _) => dir.player_numbered(*id).cloned(),
            Q::Name(_) => None,
        };
        let mut found: Vec<User> = numbered.clone().into_iter().collect();
        if let Q::Name(prefix) | Q::NumberOrName(_, prefix) = query {
            found.extend(
                dir.users_beginning(prefix)
                    .filter(|u| u.role == Role::Player && Some(&u.username) != numbered.as_ref().map(|x| &x.username))
                    .take(n.saturating_add(1))
                    .cloned(),
            );
        }
        let more = found.len() > n;
        found.truncate(n);
        (found, more)
    }

    /// The balances of `username`'s own accounts: their wallet, and their chips at each table.
    pub fn balances_of(&self, username: &str) -> BTreeMap<String, i128> {
        self.ledger
            .balances()
            .iter()
            .filter(|(a, _)| a.player() == Some(username))
            .map(|(a, b)| (a.name(), *b))
            .collect()
    }
}

/// `name_operator`: the casino's operator, shown on every layout (Maryland
/// ch.1 G(1)). The same name again writes nothing.
pub(super) fn name_operator(
    dir: &Directory,
    name: &str,
    events: &mut Vec<JournalEvent>,
    effects: &mut Vec<Effect>,
) -> Result<(), ApiError> {
    require_format(dir.journal_format(), FORMAT_OPERATOR_NAMED, "the operator's name is")?;
    if !printable_name(name) {
        return Err(ApiError::new(
            ErrorCode::BadRequest,
            format!(
                "name: the operator's name is 1 to {OPERATOR_NAME_MAX} letters, digits, single spaces and ASCII \
                 punctuation, beginning and ending with a letter or digit (got {name:?})"
            ),
        ));
    }
    if dir.operator() == Some(name) {
        return Ok(());
    }
    events.push(JournalEvent::OperatorNamed { name: name.to_string() });
    effects.push(Effect::NameOperator(name.to_string()));
    Ok(())
}

/// Refuses a role the journal's format does not know yet: the security
/// member who witnesses adjustments is journaled from format 16.
pub(super) fn check_role_journaled(dir: &Directory, role: Role) -> Result<(), ApiError> {
    if role == Role::Security {
        require_format(
            dir.journal_format(),
            crate::casino::journal::FORMAT_WITNESS_CONFIRMS,
            "the security role is",
        )?;
    }
    Ok(())
}
