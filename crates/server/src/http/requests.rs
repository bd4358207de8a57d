//! Every write: a request posted by a signed-in client, and the RNG's draw.

use axum::extract::State;

use super::auth::client_of;
use super::error::{Failure, Json, Path};
use super::state::{bearer, AppState, Caller};
use crate::api::bodies::Events;
use crate::api::{ApiError, ClientRequest, ErrorBody, ErrorCode};
use crate::casino::policy;

/// Every write: the body is a request; the casino checks the caller's role.
#[utoipa::path(post, path = "/api/requests", request_body = ClientRequest, responses((status = 200, description = "Done and durable: the events it caused that belong to no player, or to you; each player's bets and settlements are on their stream, the staff stream and in recall", body = Events), (status = 400, description = "Not a request", body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, description = "Your role may not do this", body = ErrorBody), (status = 404, description = "No such table, player or user", body = ErrorBody), (status = 413, body = ErrorBody), (status = 415, body = ErrorBody), (status = 422, description = "Refused by the rules (past posting, over the limit, unknown spot...)", body = ErrorBody), (status = 503, description = "Could not be made durable; nothing changed", body = ErrorBody)))]
pub async fn requests(
    State(state): State<AppState>,
    Caller(actor): Caller,
    parts: axum::http::request::Parts,
    Json(request): Json<ClientRequest>,
) -> Result<Json<Events>, Failure> {
    let username = actor.username.clone();
    let token = bearer(&parts).unwrap_or_default().to_string();
    if !matches!(request, ClientRequest::ChangePassword { .. }) && state.sessions.must_change(&token) {
        return Err(super::state::must_change_first().into());
    }
    let caller = actor.clone();
    // An account locked, retired, given a password, a licence or another
    // role by an admin, loses its sessions (a session signs the logs with the
    // licence and acts in the role it began with); one that changed its own
    // password keeps only this one.
    let changes_own = matches!(request, ClientRequest::ChangePassword { .. });
    let ends = match &request {
        ClientRequest::LockUser { username }
        | ClientRequest::RetireUser { username }
        | ClientRequest::EditUser {
            username,
            role: Some(_),
            ..
        }
        | ClientRequest::ResetPassword { username, .. }
        | ClientRequest::SetLicence { username, .. } => Some((username.clone(), None)),
        ClientRequest::ChangePassword { .. } => Some((username.clone(), bearer(&parts).map(str::to_string))),
        _ => None,
    };
    // An edit that changed no role (the same again writes nothing) ends no session.
    let edit = matches!(request, ClientRequest::EditUser { .. });
    // Changing one's password checks the current one: a guess like a sign-in's, held back alike.
    let attempt = match &request {
        ClientRequest::ChangePassword { .. } => Some(
            state
                .throttle
                .begin(&username, client_of(&parts.extensions), state.floor.clock().now_ms())
                .map_err(|w| ApiError::wait(ErrorCode::TooManyAttempts, w.why, w.seconds))?,
        ),
        _ => None,
    };
    let done = state.floor.submit(actor, request).await;
    if let Some(attempt) = attempt {
        match &done {
            Err(e) if e.code == ErrorCode::WrongPassword => attempt.failed(state.floor.clock().now_ms()),
            Ok(_) => attempt.succeeded(),
            Err(_) => drop(attempt),
        }
    }
    let events = done?;
    let role_changed = events
        .iter()
        .any(|e| matches!(e, crate::api::EventView::UserEdited { role: Some(_), .. }));
    if let Some((whose, keep)) = ends.filter(|_| !edit || role_changed) {
        state.sessions.end_all_of(&whose, keep.as_deref())?;
    }
    if changes_own {
        state.sessions.password_changed(&username);
    }
    Ok(Json(Events::answering(policy::viewer(Some(&caller)), events)))
}

/// The RNG's outcome for a table, drawn only after no more bets.
#[utoipa::path(post, path = "/api/tables/{table}/draw", params(("table" = String, Path, description = "Table id")), responses((status = 200, description = "The RNG outcome and the round's totals; each bet's settlement is on its player's stream, the staff stream and in recall", body = Events), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 422, description = "Not after no more bets, or not an RNG table", body = ErrorBody)))]
pub async fn draw(
    State(state): State<AppState>,
    Caller(actor): Caller,
    Path(table): Path<String>,
) -> Result<Json<Events>, Failure> {
    let caller = actor.clone();
    let events = state.floor.draw(actor, &table).await?;
    Ok(Json(Events::answering(policy::viewer(Some(&caller)), events)))
}
