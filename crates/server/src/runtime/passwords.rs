//! Passwords: argon2id hashes with a fresh salt from the operating system.
//! Each hash takes about 19 MiB and tens of milliseconds, so the server
//! computes a few at a time, off its async workers.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;

use crate::api::{ApiError, ErrorCode};

/// The shortest password accepted.
pub const PASSWORD_MIN_CHARS: usize = 10;

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

/// Hashes computed at once: a storm of logins queues here instead of
/// exhausting memory.
#[derive(Clone)]
pub struct Hashing {
    permits: std::sync::Arc<tokio::sync::Semaphore>,
}

impl Hashing {
    pub fn new(at_once: usize) -> Hashing {
        Hashing {
            permits: std::sync::Arc::new(tokio::sync::Semaphore::new(at_once.max(1))),
        }
    }

    /// Runs `job` (argon2 work) off the async workers, a few at a time.
    pub async fn run<T: Send + 'static>(&self, job: impl FnOnce() -> T + Send + 'static) -> Result<T, ApiError> {
        let _permit = self.permits.acquire().await.map_err(|_| ApiError::stopped())?;
        tokio::task::spawn_blocking(job).await.map_err(ApiError::internal)
    }

    /// The hash of a new user's password.
    pub async fn hash(&self, password: String) -> Result<String, ApiError> {
        self.run(move || hash_password(&password))
            .await?
            .map_err(|e| ApiError::new(ErrorCode::BadPassword, e.to_string()))
    }
}
