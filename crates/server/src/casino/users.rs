//! The people the casino knows.

use crate::api::Role;

/// Failed logins in a row that lock an account.
pub const LOGIN_FAILURES_MAX: u32 = 3;
/// The most users a casino knows.
pub const USERS_MAX: usize = 1_000_000;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    pub username: String,
    pub role: Role,
    pub password_hash: String,
    pub failures: u32,
    pub locked: bool,
    /// The player's number in the core's round (players only).
    pub player_id: u64,
    /// The password was chosen by someone else: it must be changed first.
    pub must_change_password: bool,
}

/// A username: 1 to 32 of a-z, 0-9, '-', '_', '.'; it names ledger accounts.
pub fn valid_username(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 32
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'_' | b'.'))
}
