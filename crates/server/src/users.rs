//! Users, roles and passwords.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use serde::{Deserialize, Serialize};

/// Failed logins in a row that lock an account.
pub const LOGIN_FAILURES_MAX: u32 = 3;
/// The shortest password accepted.
pub const PASSWORD_MIN_CHARS: usize = 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Admin,
    PitSupervisor,
    Dealer,
    Cashier,
    Auditor,
    Player,
}

impl Role {
    /// Every role, in the order the API documents them.
    pub const ALL: [Role; 6] = [
        Role::Admin,
        Role::PitSupervisor,
        Role::Dealer,
        Role::Cashier,
        Role::Auditor,
        Role::Player,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::PitSupervisor => "pit_supervisor",
            Role::Dealer => "dealer",
            Role::Cashier => "cashier",
            Role::Auditor => "auditor",
            Role::Player => "player",
        }
    }

    pub fn parse(name: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.name() == name)
    }

    /// The words a profile uses for who decides disputes map to this role.
    pub fn matches_authority(self, authority: &str) -> bool {
        match self {
            Role::PitSupervisor => true,
            Role::Admin => authority.eq_ignore_ascii_case("casino manager"),
            _ => false,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    pub username: String,
    pub role: Role,
    pub password_hash: String,
    pub failures: u32,
    pub locked: bool,
    /// The player's number in the core's round (players only).
    pub player_id: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum PasswordError {
    #[error("a password needs at least {PASSWORD_MIN_CHARS} characters")]
    TooShort,
    #[error("hashing failed: {0}")]
    Hash(String),
}

/// An argon2id hash of a password, with a fresh salt.
pub fn hash_password(password: &str) -> Result<String, PasswordError> {
    if password.chars().count() < PASSWORD_MIN_CHARS {
        return Err(PasswordError::TooShort);
    }
    let mut salt_bytes = [0u8; 16];
    croupier_rng::CasinoRng::from_os()
        .and_then(|mut rng| rng.fill(&mut salt_bytes))
        .map_err(|e| PasswordError::Hash(e.to_string()))?;
    let salt = SaltString::encode_b64(&salt_bytes).map_err(|e| PasswordError::Hash(e.to_string()))?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| PasswordError::Hash(e.to_string()))
}

pub fn password_matches(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|parsed| Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
}

/// A username: 1 to 32 of a-z, 0-9, '-', '_', '.'; it names ledger accounts.
pub fn valid_username(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 32
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'_' | b'.'))
}
