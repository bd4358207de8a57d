//! The people the casino knows, and the operator whose casino it is.

use crate::api::Role;

/// The longest operator's name: it is printed on the felt.
pub const OPERATOR_NAME_MAX: usize = 60;

/// Hangul fillers: letters by their category, blank on the page.
const BLANK_LETTERS: [char; 4] = ['\u{115F}', '\u{1160}', '\u{3164}', '\u{FFA0}'];

/// A name printed on the felt: letters (any script), digits, single spaces
/// and ASCII punctuation, beginning and ending with a letter or digit. No
/// invisible, joining, direction-changing or combining character passes,
/// so that a name cannot be blank on the felt or read as another's.
pub(super) fn printable_name(name: &str) -> bool {
    let visible = |c: char| c.is_alphanumeric() && !BLANK_LETTERS.contains(&c);
    let (Some(first), Some(last)) = (name.chars().next(), name.chars().next_back()) else {
        return false;
    };
    name.chars().count() <= OPERATOR_NAME_MAX
        && visible(first)
        && visible(last)
        && !name.contains("  ")
        && name.chars().all(|c| visible(c) || c == ' ' || c.is_ascii_punctuation())
}

/// Failed logins in a row that lock an account.
pub const LOGIN_FAILURES_MAX: u32 = 3;
/// The most users a casino knows.
pub const USERS_MAX: usize = 1_000_000;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
    /// The licence number on record (staff), which the logs take.
    pub licence: Option<String>,
    /// Retired for good (journal format 16): signs in no more, holds no
    /// money, keeps their name. Left out of a checkpoint while not, as
    /// older journals give.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub retired: bool,
    /// The name the pages show beside the username (journal format 16).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
}

/// A username: 1 to 32 of a-z, 0-9, '-', '_', '.'; it names ledger accounts.
pub fn valid_username(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 32
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'_' | b'.'))
}

/// The longest licence number on record, in bytes.
pub const LICENCE_MAX_BYTES: usize = 64;

/// A licence number `role` may hold: staff only, 1 to
/// [`LICENCE_MAX_BYTES`], no spaces around it, no control characters.
pub fn check_licence(role: crate::api::Role, licence: &str) -> Result<(), crate::api::ApiError> {
    use crate::api::{ApiError, ErrorCode};
    if role == crate::api::Role::Player {
        return Err(ApiError::new(ErrorCode::BadLicence, "a player holds no licence number"));
    }
    let plain = licence.trim();
    // Printable ASCII only: an invisible or look-alike character would make
    // one licence read as another's in the log.
    if plain.is_empty()
        || plain.len() > LICENCE_MAX_BYTES
        || plain != licence
        || !licence.chars().all(|c| c.is_ascii_graphic() || c == ' ')
    {
        return Err(ApiError::new(
            ErrorCode::BadLicence,
            format!(
                "a licence number is 1 to {LICENCE_MAX_BYTES} printable ASCII characters (letters, digits, \
                 punctuation), with no spaces around it"
            ),
        ));
    }
    Ok(())
}
