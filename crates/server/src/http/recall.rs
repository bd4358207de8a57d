//! Game recall: a table's last rounds, a player's last rounds over every
//! table, and one round by its id, from the tables' memory and the archive.

use std::collections::HashSet;

use axum::extract::State;
use serde::Deserialize;

use super::error::{Failure, Json, Path, Query};
use super::state::{AppState, Caller};
use crate::api::bodies::{RecalledRound, Rounds};
use crate::api::{ApiError, ErrorBody, ErrorCode};
use crate::casino::policy::{self, Act};
use crate::casino::reads::{TableAnswer, TableQuery};
use crate::casino::RECALL_ROUNDS_MAX;

/// Rounds returned by recall at most: a table's newest from its memory, the rest from the archive.
pub const RECALL_MAX: usize = RECALL_ROUNDS_MAX;

#[derive(Deserialize)]
pub struct Last {
    last: Option<usize>,
}

fn rounds(answer: TableAnswer) -> Vec<RecalledRound> {
    match answer {
        TableAnswer::Rounds(rounds) => rounds,
        _ => Vec::new(),
    }
}

#[utoipa::path(get, path = "/api/tables/{table}/rounds", params(("table" = String, Path, description = "Table id"), ("last" = Option<usize>, Query, description = "How many rounds, newest first (10; at most 100)")), responses((status = 200, description = "Game recall for the table: a player sees only their own bets and balances", body = Rounds), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn table_rounds(
    State(state): State<AppState>,
    Caller(viewer): Caller,
    Path(table): Path<String>,
    Query(q): Query<Last>,
) -> Result<Json<Rounds>, Failure> {
    let n = q.last.unwrap_or(10).min(RECALL_MAX);
    let every = policy::allows(viewer.role, Act::RecallEveryPlayer);
    let username = viewer.username.clone();
    let mut found = rounds(state.floor.read_table(&table, TableQuery::Recall { n, viewer }).await?);
    // A table keeps its newest rounds while they hold so many bets
    // (`RECALL_BETS_KEPT`): the rest of the `n` come from the archive.
    if found.len() < n {
        let before = found.last().map_or(u64::MAX, |r| r.round);
        let wanted = n - found.len();
        let archived = state.floor.archived(move |a| a.table(&table, before, wanted)).await?;
        found.extend(archived.iter().map(|r| {
            let round = RecalledRound::from(r);
            if every {
                round
            } else {
                round.redacted_for(&username)
            }
        }));
    }
    Ok(Json(Rounds { rounds: found }))
}

#[utoipa::path(get, path = "/api/players/{player}/rounds", params(("player" = String, Path, description = "Player username"), ("last" = Option<usize>, Query, description = "How many rounds")), responses((status = 200, description = "Game recall for the player", body = Rounds), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
pub async fn player_rounds(
    State(state): State<AppState>,
    Caller(actor): Caller,
    Path(player): Path<String>,
    Query(q): Query<Last>,
) -> Result<Json<Rounds>, Failure> {
    if actor.username != player {
        policy::require(actor.role, Act::RecallEveryPlayer)?;
    }
    let n = q.last.unwrap_or(10).min(RECALL_MAX);
    // Each table gives its newest `n` of the player's rounds, and the archive its
    // newest `n` over all tables (played long ago, or kept in memory too); the
    // newest `n` of those are shown.
    let asked = player.clone();
    let archived = state.floor.archived(move |a| a.player(&asked, n)).await?;
    let mut found: Vec<RecalledRound> = state
        .floor
        .every_table(TableQuery::RecallPlayer {
            player: player.clone(),
            n,
        })
        .await
        .into_iter()
        .flat_map(rounds)
        .collect();
    let kept: HashSet<String> = found.iter().map(|r| r.id.clone()).collect();
    found.extend(
        archived
            .iter()
            .filter(|r| !kept.contains(&r.id))
            .map(RecalledRound::from),
    );
    found.sort_by_key(|r| std::cmp::Reverse(r.opened_at_ms));
    found.truncate(n);
    Ok(Json(Rounds {
        rounds: found.into_iter().map(|r| r.redacted_for(&player)).collect(),
    }))
}

#[utoipa::path(get, path = "/api/rounds/{table}/{round}", params(("table" = String, Path, description = "Table id"), ("round" = u64, Path, description = "Round number")), responses((status = 200, description = "One round: bets, outcome, settlements, balances before and after", body = RecalledRound), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn round(
    State(state): State<AppState>,
    Caller(viewer): Caller,
    Path((table, round)): Path<(String, u64)>,
) -> Result<Json<RecalledRound>, Failure> {
    let id = format!("{table}/{round}");
    let found = match state.floor.read_table(&table, TableQuery::Round { id }).await {
        Ok(TableAnswer::Round(found)) => found,
        Err(e) if e.code == ErrorCode::NoTable => None,
        Ok(_) => None,
        Err(e) => return Err(e.into()),
    };
    // Older than the rounds the table keeps: from the archive.
    let found = match found {
        Some(r) => Some(r),
        None => state
            .floor
            .archived(move |a| a.round(&table, round))
            .await?
            .as_ref()
            .map(RecalledRound::from),
    };
    let found = found.ok_or_else(|| ApiError::new(ErrorCode::NoRound, "no such round"))?;
    Ok(Json(if policy::allows(viewer.role, Act::RecallEveryPlayer) {
        found
    } else {
        found.redacted_for(&viewer.username)
    }))
}
