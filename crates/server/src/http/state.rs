//! What every handler shares.

use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;

use super::channels::Channels;
use super::error::Failure;
use super::sessions::Sessions;
use crate::api::{ApiError, ErrorCode};
use crate::casino::Actor;
use crate::runtime::Floor;

#[derive(Clone)]
pub struct AppState {
    pub floor: Floor,
    pub sessions: Arc<Sessions>,
    pub channels: Arc<Channels>,
    /// Each table's game integrity monitor, derived from the recall archive.
    pub integrity: Arc<crate::runtime::integrity::Integrity>,
    pub throttle: super::throttle::Throttle,
    /// A hash of no one's password, checked for a name no one has.
    pub unknown_user_hash: Arc<str>,
}

/// The bearer token of a request, if it carries one.
pub fn bearer(parts: &Parts) -> Option<&str> {
    parts
        .headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
}

/// The refusal of anything but `change_password` to a session signed in
/// with a password someone else chose.
pub fn must_change_first() -> ApiError {
    ApiError::new(
        ErrorCode::PasswordChangeNeeded,
        "the password you signed in with was chosen by someone else: change it first \
         ({\"op\":\"change_password\",\"password\":...,\"new_password\":...})",
    )
}

/// Who sent the request: a session that is live, or a refusal (401).
pub struct Caller(pub Actor);

impl FromRequestParts<AppState> for Caller {
    type Rejection = Failure;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Caller, Failure> {
        let token = bearer(parts).ok_or_else(|| ApiError::new(ErrorCode::Unauthenticated, "log in first"))?;
        let actor = state.sessions.get(token, state.floor.clock().now_ms()).ok_or_else(|| {
            ApiError::new(
                ErrorCode::Unauthenticated,
                "the session is unknown or over; log in again",
            )
        })?;
        // With a password someone else chose, only who one is, signing out
        // and a request (which must be `change_password`) are taken.
        let open = matches!(parts.uri.path(), "/api/me" | "/api/logout" | "/api/requests");
        if !open && state.sessions.must_change(token) {
            return Err(must_change_first().into());
        }
        Ok(Caller(actor))
    }
}
