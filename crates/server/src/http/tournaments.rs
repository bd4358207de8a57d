//! Tournaments (Colorado 2213-2214): the list, one tournament as its
//! reader may see it, its written rules for anyone, and its forms for those
//! who keep its books. Changes are requests posted to `/api/requests`.

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;

use super::error::{Failure, Json, Path};
use super::state::{AppState, Caller};
use crate::api::tournament::{TournamentBrief, TournamentStandings, TournamentView};
use crate::api::{ApiError, ErrorBody};
use crate::casino::policy::{self, Act};
use crate::casino::tournaments::{TournamentAnswer, TournamentRead};

/// What a read that should have answered otherwise answered.
fn unexpected(answer: &TournamentAnswer) -> Failure {
    ApiError::internal(format!("a tournament read answered {answer:?}, not what was asked")).into()
}

fn text(answer: TournamentAnswer) -> Result<String, Failure> {
    match answer {
        TournamentAnswer::Text(text) => Ok(text),
        other => Err(unexpected(&other)),
    }
}

/// Every tournament in brief: its events, their status and the chip values.
#[utoipa::path(get, path = "/api/tournaments", responses((status = 200, description = "Each tournament: id, name, days, status, events, chip values", body = [TournamentBrief]), (status = 401, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    Caller(_actor): Caller,
) -> Result<Json<Vec<TournamentBrief>>, Failure> {
    match state.floor.tournament(TournamentRead::List).await? {
        TournamentAnswer::List(list) => Ok(Json(list)),
        other => Err(unexpected(&other)),
    }
}

/// One tournament. Its director, the admin, auditors and cashiers see every
/// entry, the prizes paid, the proceeds and the pool; a player sees their
/// own entries and prizes, and a split proposed among them.
#[utoipa::path(get, path = "/api/tournaments/{tournament}", params(("tournament" = String, Path, description = "Tournament id")), responses((status = 200, description = "The tournament as the caller may see it", body = TournamentView), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn one(
    State(state): State<AppState>,
    Caller(actor): Caller,
    Path(id): Path<String>,
) -> Result<Json<TournamentView>, Failure> {
    let read = TournamentRead::One {
        id,
        role: actor.role,
        username: actor.username,
    };
    match state.floor.tournament(read).await? {
        TournamentAnswer::One(view) => Ok(Json(*view)),
        other => Err(unexpected(&other)),
    }
}

/// A tournament's written rules (2213.06-.08): given to every player, so
/// anyone may read them.
#[utoipa::path(get, path = "/api/public/tournaments/{tournament}/rules", params(("tournament" = String, Path, description = "Tournament id")), responses((status = 200, description = "The written rules, as plain text", body = String), (status = 404, body = ErrorBody)))]
pub async fn rules(State(state): State<AppState>, Path(id): Path<String>) -> Result<impl IntoResponse, Failure> {
    let rules = text(state.floor.tournament(TournamentRead::Rules { id }).await?)?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], rules))
}

/// The standings of a tournament's events under way at the tables: entry
/// numbers and points as the tables count them, with no player's name, for
/// a display board's leaderboard.
#[utoipa::path(get, path = "/api/public/tournaments/{tournament}/standings", params(("tournament" = String, Path, description = "Tournament id")), responses((status = 200, description = "Each event under way at a table: its entries by points, most first", body = TournamentStandings), (status = 404, body = ErrorBody)))]
pub async fn standings(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<TournamentStandings>, Failure> {
    match state.floor.tournament(TournamentRead::Standings { id }).await? {
        TournamentAnswer::Standings(standings) => Ok(Json(standings)),
        other => Err(unexpected(&other)),
    }
}

/// A tournament's forms as CSV: the tournament form (2213.01), the prize
/// payout form (2213.02), proceeds by month and the prize pool's account (2213.05).
#[utoipa::path(get, path = "/api/tournaments/{tournament}/forms", params(("tournament" = String, Path, description = "Tournament id")), responses((status = 200, description = "The forms, as CSV", body = String), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn forms(
    State(state): State<AppState>,
    Caller(actor): Caller,
    Path(id): Path<String>,
) -> Result<impl IntoResponse, Failure> {
    if policy::require(actor.role, Act::ReadTournament).is_err() {
        policy::require(actor.role, Act::DirectTournament)?;
    }
    let forms = text(state.floor.tournament(TournamentRead::Forms { id }).await?)?;
    Ok(([(header::CONTENT_TYPE, "text/csv; charset=utf-8")], forms))
}
