//! Who is who, for the staff: the admin's list of users, and the cage's
//! look-up of a player's accounts before cash moves.

use axum::extract::State;
use serde::Deserialize;

use super::error::{Failure, Json, Path, Query};
use super::state::{AppState, Caller};
use crate::api::bodies::{PlayerAccounts, UserList, UserSummary};
use crate::api::player_search::{PlayerMatch, PlayerMatches, PlayerQuery};
use crate::api::{ApiError, ErrorBody, ErrorCode};
use crate::casino::policy::{self, Act};
use crate::casino::reads::{TableAnswer, TableQuery};

/// The most users one page lists.
pub const USERS_PAGE_MAX: usize = 500;

#[derive(Deserialize, utoipa::IntoParams)]
pub struct UsersPage {
    /// List the users whose names come after this one (the last page's `next`).
    #[serde(default)]
    after: String,
    /// How many (100; at most 500).
    limit: Option<usize>,
    /// `true`: the retired users only; left out: the others.
    #[serde(default)]
    retired: bool,
}

/// The most players a search lists.
pub const PLAYER_MATCHES_MAX: usize = 20;

#[derive(Deserialize, utoipa::IntoParams)]
pub struct PlayerSearch {
    /// A username or its beginning (`ann`), or a player's number (`17`, or
    /// `#17` for the number only).
    q: String,
}

/// Players found by name or number, retired ones among them: the one
/// numbered so first, then those whose username begins so. The cage's
/// look-up before a cash-in or cash-out.
#[utoipa::path(get, path = "/api/players", params(PlayerSearch), responses((status = 200, description = "The players found, at most 20", body = PlayerMatches), (status = 400, description = "Neither a username nor a number", body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
pub async fn find_players(
    State(state): State<AppState>,
    Caller(actor): Caller,
    Query(search): Query<PlayerSearch>,
) -> Result<Json<PlayerMatches>, Failure> {
    policy::require(actor.role, Act::ReadPlayerAccounts)?;
    let query = PlayerQuery::parse(&search.q).map_err(|why| ApiError::new(ErrorCode::BadRequest, why))?;
    let (users, more) = state.floor.find_players(query, PLAYER_MATCHES_MAX).await?;
    Ok(Json(PlayerMatches {
        players: users
            .into_iter()
            .map(|u| PlayerMatch {
                player: u.username,
                player_id: u.player_id,
                display_name: u.display_name,
                locked: u.locked,
                retired: u.retired,
            })
            .collect(),
        more,
    }))
}

/// The users, their roles and whether they are locked, in name order: an
/// admin's (or an auditor's) list, never a password's hash. Retired users
/// are listed apart, when asked for.
#[utoipa::path(get, path = "/api/users", params(UsersPage), responses((status = 200, description = "A page of users", body = UserList), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
pub async fn users(
    State(state): State<AppState>,
    Caller(actor): Caller,
    Query(page): Query<UsersPage>,
) -> Result<Json<UserList>, Failure> {
    policy::require(actor.role, Act::ReadUsers)?;
    let n = page.limit.unwrap_or(100);
    if n == 0 || n > USERS_PAGE_MAX {
        return Err(ApiError::new(
            ErrorCode::BadRequest,
            format!("limit is 1 to {USERS_PAGE_MAX} users a page, not {n}"),
        )
        .into());
    }
    let (users, more) = state.floor.users(&page.after, n, page.retired).await?;
    let next = more.then(|| users.last().map(|u| u.username.clone())).flatten();
    Ok(Json(UserList {
        users: users
            .into_iter()
            .map(|u| UserSummary {
                username: u.username,
                role: u.role,
                locked: u.locked,
                must_change_password: u.must_change_password,
                licence: u.licence,
                display_name: u.display_name,
                retired: u.retired,
            })
            .collect(),
        next,
    }))
}

/// A player's wallet, chips at each table, and coupons issued: the cage's
/// look-up before a cash-in or cash-out (a player sees their own).
#[utoipa::path(get, path = "/api/players/{player}/accounts", params(("player" = String, Path, description = "Player username")), responses((status = 200, description = "The player's accounts and coupons", body = PlayerAccounts), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn player_accounts(
    State(state): State<AppState>,
    Caller(actor): Caller,
    Path(player): Path<String>,
) -> Result<Json<PlayerAccounts>, Failure> {
    if actor.username != player {
        policy::require(actor.role, Act::ReadPlayerAccounts)?;
    }
    let Some(mut accounts) = state.floor.player_accounts(&player).await? else {
        return Err(ApiError::new(ErrorCode::NoPlayer, format!("no player {player:?}")).into());
    };
    // Chips at a table are the table's to know: each is asked whether this
    // player's were recorded taken away, so the cage sees it beside them.
    let tables: Vec<String> = accounts
        .accounts
        .keys()
        .filter_map(|name| name.strip_prefix("chips:"))
        .filter_map(|rest| rest.split(':').next())
        .map(str::to_string)
        .collect();
    for table in tables {
        let query = TableQuery::ChipsAway { player: player.clone() };
        if let Ok(TableAnswer::ChipsAway(Some(away))) = state.floor.read_table(&table, query).await {
            accounts.away.insert(table, away);
        }
    }
    Ok(Json(accounts))
}
