//! Passwords: argon2id hashes with a fresh salt from the operating system.
//! Each hash takes about 19 MiB and tens of milliseconds, so the server
//! computes a few at a time, off its async workers.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;

use crate::api::{ApiError, ErrorCode};

/// The shortest password accepted.
pub const PASSWORD_MIN_CHARS: usize = 10;
/// The longest password taken, in bytes: enough for any passphrase.
pub const PASSWORD_MAX_BYTES: usize = 1_024;

#[derive(Debug, thiserror::Error)]
pub enum PasswordError {
    #[error("a password needs at least {PASSWORD_MIN_CHARS} characters")]
    TooShort,
    #[error("a password has at most {PASSWORD_MAX_BYTES} bytes")]
    TooLong,
    #[error("hashing failed: {0}")]
    Hash(String),
}

/// An argon2id hash of a password, with a fresh salt.
pub fn hash_password(password: &str) -> Result<String, PasswordError> {
    if password.chars().count() < PASSWORD_MIN_CHARS {
        return Err(PasswordError::TooShort);
    }
    if password.len() > PASSWORD_MAX_BYTES {
        return Err(PasswordError::TooLong);
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

/// Hashes waiting their turn at most: past it a sign-in is refused at once
/// (429, to try again in a second) rather than queued without end.
pub const HASHES_WAITING_MAX: usize = 64;

/// Hashes computed at once: a storm of logins queues here, a bounded queue,
/// instead of exhausting memory.
#[derive(Clone)]
pub struct Hashing {
    permits: std::sync::Arc<tokio::sync::Semaphore>,
    waiting: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

/// A place in the queue, given back however the wait ends.
struct Waiting(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl Drop for Waiting {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Hashing {
    pub fn new(at_once: usize) -> Hashing {
        Hashing {
            permits: std::sync::Arc::new(tokio::sync::Semaphore::new(at_once.max(1))),
            waiting: std::sync::Arc::default(),
        }
    }

    /// Runs `job` (argon2 work) off the async workers, a few at a time; refused
    /// at once when [`HASHES_WAITING_MAX`] are waiting already.
    pub async fn run<T: Send + 'static>(&self, job: impl FnOnce() -> T + Send + 'static) -> Result<T, ApiError> {
        let place = Waiting(self.waiting.clone());
        if self.waiting.fetch_add(1, std::sync::atomic::Ordering::SeqCst) >= HASHES_WAITING_MAX {
            return Err(ApiError::wait(
                ErrorCode::Busy,
                "sign-ins are busy; try again in a moment",
                1,
            ));
        }
        let _permit = self.permits.acquire().await.map_err(|_| ApiError::stopped())?;
        drop(place);
        tokio::task::spawn_blocking(job).await.map_err(ApiError::internal)
    }

    /// The hash of a new user's password.
    pub async fn hash(&self, password: String) -> Result<String, ApiError> {
        self.run(move || hash_password(&password))
            .await?
            .map_err(|e| ApiError::new(ErrorCode::BadPassword, e.to_string()))
    }
}
