//! The cage's search for a player, by number or by a name's beginning:
//! what was typed, parsed, and what it found.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A player found by the cage's search, retired or not.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct PlayerMatch {
    pub player: String,
    /// The player's number, as game recall and the journal name them.
    pub player_id: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    pub locked: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub retired: bool,
}

/// The players a search found: the one whose number it is first, then
/// those whose username begins with it, in name order.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct PlayerMatches {
    pub players: Vec<PlayerMatch>,
    /// More begin so than are listed: type more of the name.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub more: bool,
}

/// What a player search looks for, parsed from what was typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayerQuery {
    /// `#17`: the player numbered 17 only.
    Number(u64),
    /// `17`: the player numbered 17, then the names beginning `17`.
    NumberOrName(u64, String),
    /// The names beginning so.
    Name(String),
}

/// The longest text a player search takes, in bytes (a username's longest).
pub const PLAYER_QUERY_MAX: usize = 32;

impl PlayerQuery {
    /// What was typed as a search, or why it cannot be one.
    pub fn parse(text: &str) -> Result<PlayerQuery, String> {
        let typed = text.trim();
        let hint = "type a player's username (or its beginning), or their number: 17 or #17";
        if typed.is_empty() {
            return Err(format!("q: {hint}"));
        }
        if typed.len() > PLAYER_QUERY_MAX + 1 {
            return Err(format!("q: at most {PLAYER_QUERY_MAX} characters; {hint}"));
        }
        if let Some(number) = typed.strip_prefix('#') {
            return number
                .parse::<u64>()
                .ok()
                .filter(|_| number.bytes().all(|b| b.is_ascii_digit()))
                .map(PlayerQuery::Number)
                .ok_or_else(|| format!("q: after # comes a player's number, like #17, not {typed:?}"));
        }
        let name = typed.to_ascii_lowercase();
        if name.len() > PLAYER_QUERY_MAX
            || !name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'_' | b'.'))
        {
            return Err(format!(
                "q: a username is a-z, 0-9, '-', '_', '.' (at most {PLAYER_QUERY_MAX}); {hint}; not {typed:?}"
            ));
        }
        Ok(match name.parse::<u64>() {
            Ok(id) if name.bytes().all(|b| b.is_ascii_digit()) => PlayerQuery::NumberOrName(id, name),
            _ => PlayerQuery::Name(name),
        })
    }
}
