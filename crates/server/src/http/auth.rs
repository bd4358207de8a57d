//! Signing in and out, and who one is.

use axum::extract::State;
use axum::http::HeaderMap;
use serde::Deserialize;

use super::error::{Failure, Json};
use super::state::{AppState, Caller};
use crate::api::bodies::{Done, LoginAnswer, Me};
use crate::api::{ApiError, ErrorBody, ErrorCode, Role};
use crate::casino::users::valid_username;
use crate::casino::Actor;
use crate::runtime::passwords::{password_matches, PASSWORD_MAX_BYTES};

/// The longest licence number taken at sign-in, in bytes.
pub const LICENCE_MAX_BYTES: usize = 64;

#[derive(Deserialize, utoipa::ToSchema)]
pub struct LoginBody {
    username: String,
    password: String,
    /// A licence number, written into the logs that require one (Colorado 2212(5)).
    #[serde(default)]
    licence: String,
}

/// The address a request came from, when the server took its connection itself.
pub fn client_of(extensions: &axum::http::Extensions) -> Option<std::net::IpAddr> {
    extensions
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|info| info.0.ip())
}

#[utoipa::path(post, path = "/api/login", request_body = LoginBody, responses((status = 200, description = "A bearer token for the session", body = LoginAnswer), (status = 400, body = ErrorBody), (status = 401, description = "Wrong username or password; or, with the right password, the account is locked", body = ErrorBody), (status = 415, body = ErrorBody), (status = 429, description = "Too many tries: wait as long as Retry-After says", body = ErrorBody)))]
pub async fn login(
    State(state): State<AppState>,
    extensions: axum::http::Extensions,
    Json(body): Json<LoginBody>,
) -> Result<Json<LoginAnswer>, Failure> {
    let floor = &state.floor;
    // The licence goes into the logs with every request of the session: it is short and plain.
    if body.licence.len() > LICENCE_MAX_BYTES || body.licence.chars().any(char::is_control) {
        return Err(ApiError::new(
            ErrorCode::BadRequest,
            format!("a licence number is at most {LICENCE_MAX_BYTES} characters, with no control characters"),
        )
        .into());
    }
    // No account has such a name: refused before it is remembered or hashed.
    if !valid_username(&body.username) {
        return Err(ApiError::new(
            ErrorCode::BadRequest,
            "a username is 1 to 32 of a-z, 0-9, '-', '_', '.'",
        )
        .into());
    }
    if body.password.len() > PASSWORD_MAX_BYTES {
        return Err(ApiError::new(
            ErrorCode::BadRequest,
            format!("a password has at most {PASSWORD_MAX_BYTES} bytes"),
        )
        .into());
    }
    let client = client_of(&extensions);
    // The try is reserved before anything is looked up or hashed: guesses sent
    // at once are spaced like guesses sent one after another.
    let attempt = state
        .throttle
        .begin(&body.username, client, floor.clock().now_ms())
        .map_err(|w| ApiError::wait(ErrorCode::TooManyAttempts, w.why, w.seconds))?;
    let user = floor.user(&body.username).await?;
    // A name no one has is checked against a hash all the same: the answer
    // takes as long, and says the same, as a wrong password.
    let hash = user
        .as_ref()
        .map_or_else(|| state.unknown_user_hash.to_string(), |u| u.password_hash.clone());
    let password = body.password.clone();
    let good = floor.hashing().run(move || password_matches(&password, &hash)).await?;
    let Some(user) = user.filter(|_| good) else {
        attempt.failed(floor.clock().now_ms());
        floor.metrics().logins_failed.inc();
        tracing::warn!(username = body.username, client = ?client, "a sign-in failed");
        return Err(ApiError::new(ErrorCode::Unauthenticated, "wrong username or password").into());
    };
    // Looked at again now the password is known good: an admin may have
    // locked the account, or set another password, while it was hashed.
    let Some(user) = floor
        .user(&user.username)
        .await?
        .filter(|u| u.password_hash == user.password_hash)
    else {
        attempt.failed(floor.clock().now_ms());
        return Err(ApiError::new(ErrorCode::Unauthenticated, "wrong username or password").into());
    };
    attempt.succeeded();
    if user.retired {
        return Err(ApiError::new(ErrorCode::Locked, "this account is retired: it signs in no more").into());
    }
    if user.locked {
        return Err(ApiError::new(ErrorCode::Locked, "this account is locked; ask an admin to unlock it").into());
    }
    let mut token = [0u8; 32];
    croupier_rng::CasinoRng::from_os()
        .and_then(|mut r| r.fill(&mut token))
        .map_err(ApiError::internal)?;
    let token = hex::encode(token);
    // Colorado 2212(5), Maryland ch.2 E: the licence on the user's record is
    // the one the logs take; what is typed counts only where none is recorded.
    let licence = user.licence.as_deref().unwrap_or(&body.licence);
    let actor = Actor::new(&user.username, user.role, licence);
    state.sessions.start(&token, actor, floor.clock().now_ms())?;
    if user.must_change_password {
        state.sessions.require_change(|a| a.username == user.username);
    }
    Ok(Json(LoginAnswer {
        token,
        username: user.username,
        role: user.role,
        must_change_password: user.must_change_password,
    }))
}

#[utoipa::path(post, path = "/api/logout", responses((status = 200, description = "The session is over", body = Done), (status = 401, body = ErrorBody)))]
pub async fn logout(State(state): State<AppState>, _caller: Caller, headers: HeaderMap) -> Result<Json<Done>, Failure> {
    if let Some(token) = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
    {
        state.sessions.end(token)?;
    }
    Ok(Json(Done { ok: true }))
}

#[utoipa::path(get, path = "/api/me", responses((status = 200, description = "Who you are, your own accounts' balances and, for staff, the casino's gaming day", body = Me), (status = 401, body = ErrorBody)))]
pub async fn me(State(state): State<AppState>, Caller(actor): Caller, headers: HeaderMap) -> Result<Json<Me>, Failure> {
    let accounts = state.floor.balances(&actor.username).await?;
    let must_change_password = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|token| state.sessions.must_change(token));
    let gaming_day = (actor.role != Role::Player).then(|| state.floor.gaming_day());
    Ok(Json(Me {
        may: crate::casino::policy::acts_of(actor.role),
        username: actor.username,
        role: actor.role,
        accounts,
        must_change_password,
        gaming_day,
    }))
}
