//! Signing in and out, and who one is.

use axum::extract::State;
use axum::http::HeaderMap;
use serde::Deserialize;

use super::error::{Failure, Json};
use super::state::{AppState, Caller};
use crate::api::bodies::{Done, LoginAnswer, Me};
use crate::api::{ApiError, ErrorBody, ErrorCode};
use crate::casino::{Actor, Request};
use crate::runtime::passwords::password_matches;

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

#[utoipa::path(post, path = "/api/login", request_body = LoginBody, responses((status = 200, description = "A bearer token for the session", body = LoginAnswer), (status = 400, body = ErrorBody), (status = 401, description = "Wrong username or password, or the account is locked", body = ErrorBody), (status = 415, body = ErrorBody)))]
pub async fn login(State(state): State<AppState>, Json(body): Json<LoginBody>) -> Result<Json<LoginAnswer>, Failure> {
    let floor = &state.floor;
    // The licence goes into the logs with every request of the session: it is short and plain.
    if body.licence.len() > LICENCE_MAX_BYTES || body.licence.chars().any(char::is_control) {
        return Err(ApiError::new(
            ErrorCode::BadRequest,
            format!("a licence number is at most {LICENCE_MAX_BYTES} characters, with no control characters"),
        )
        .into());
    }
    let Some(user) = floor.user(&body.username).await? else {
        return Err(ApiError::new(ErrorCode::Unauthenticated, "wrong username or password").into());
    };
    if user.locked {
        return Err(ApiError::new(
            ErrorCode::Locked,
            "this account is locked after three failed logins; ask an admin",
        )
        .into());
    }
    let (password, hash) = (body.password.clone(), user.password_hash.clone());
    let good = floor
        .hashing()
        .run(move || password_matches(&password, &hash))
        .await
        .unwrap_or(false);
    let record = if good {
        Request::LoginSucceeded {
            username: user.username.clone(),
        }
    } else {
        floor.metrics().logins_failed.inc();
        Request::LoginFailed {
            username: user.username.clone(),
        }
    };
    // Only a change of the failure count is journaled.
    if !good || user.failures > 0 {
        floor.execute(Actor::system(), record).await?;
    }
    if !good {
        // A locked account's sessions end with it.
        if floor.user(&user.username).await?.is_some_and(|u| u.locked) {
            state.sessions.retain(|a| a.username != user.username)?;
        }
        return Err(ApiError::new(ErrorCode::Unauthenticated, "wrong username or password").into());
    }
    let mut token = [0u8; 32];
    croupier_rng::CasinoRng::from_os()
        .and_then(|mut r| r.fill(&mut token))
        .map_err(ApiError::internal)?;
    let token = hex::encode(token);
    let actor = Actor::new(&user.username, user.role, &body.licence);
    state.sessions.start(&token, actor, floor.clock().now_ms())?;
    Ok(Json(LoginAnswer {
        token,
        username: user.username,
        role: user.role,
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

#[utoipa::path(get, path = "/api/me", responses((status = 200, description = "Who you are and your own accounts' balances", body = Me), (status = 401, body = ErrorBody)))]
pub async fn me(State(state): State<AppState>, Caller(actor): Caller) -> Result<Json<Me>, Failure> {
    let accounts = state.floor.balances(&actor.username).await?;
    Ok(Json(Me {
        username: actor.username,
        role: actor.role,
        accounts,
    }))
}
