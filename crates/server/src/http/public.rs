//! What anyone may see without signing in: the tables' ids, a display
//! board's view of a table, and a table's felt and posted rules (posted at
//! the table, Colorado 2208).

use std::sync::LazyLock;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;

use super::error::{Failure, Json, Path};
use super::state::AppState;
use crate::api::bodies::{Layout, PublicTable, ShippedProfile, ShippedProfiles, TableIds};
use crate::api::{ApiError, ErrorBody};
use crate::casino::reads::{TableAnswer, TableQuery};

fn unexpected() -> Failure {
    ApiError::internal("a table answered another question").into()
}

/// The shipped profiles as `/api/public/profiles` answers them: they never
/// change while the server runs, so they are read and written out once
/// (parsing the five on every request cost 70 times another public read).
static PROFILES: LazyLock<Bytes> = LazyLock::new(|| {
    let profiles = croupier_profiles::builtin_names()
        .into_iter()
        .filter_map(|name| {
            let text = croupier_profiles::builtin_text(name)?;
            let profile = croupier_profiles::load(name).ok()?;
            let bonuses = shipped_bonuses(&profile.jurisdiction().bonuses);
            let spec = profile.spec().clone();
            let mut wheels = vec![spec.default_wheel.name().to_string()];
            wheels.extend(
                spec.wheels
                    .iter()
                    .map(|w| w.name().to_string())
                    .filter(|w| *w != spec.default_wheel.name()),
            );
            Some(ShippedProfile {
                name: name.to_string(),
                title: spec.title,
                currency: spec.currency,
                wheels,
                in_prison_offered: spec.zero.in_prison_offered,
                text: text.to_string(),
                bonuses,
            })
        })
        .collect();
    let tournaments = croupier_profiles::tournament::EXAMPLE_TOURNAMENTS
        .iter()
        .map(|(name, text)| crate::api::bodies::ShippedTournament {
            name: name.to_string(),
            text: text.to_string(),
        })
        .collect();
    Bytes::from(serde_json::to_vec(&ShippedProfiles { profiles, tournaments }).unwrap_or_default())
});

/// The shipped bonus configurations of the kinds a document permits.
fn shipped_bonuses(permitted: &[String]) -> Vec<crate::api::bodies::ShippedBonus> {
    croupier_profiles::bonus::BUILTIN_BONUS
        .iter()
        .filter_map(|(name, text)| {
            let bonus = croupier_profiles::bonus::parse(text, name).ok()?;
            permitted
                .iter()
                .any(|k| k == bonus.kind())
                .then(|| crate::api::bodies::ShippedBonus {
                    name: name.to_string(),
                    kind: bonus.kind().to_string(),
                    wheels: croupier_core::wheel::ALL_WHEELS
                        .into_iter()
                        .filter(|w| bonus.allows(*w))
                        .map(|w| w.name().to_string())
                        .collect(),
                    text: text.to_string(),
                })
        })
        .collect()
}

/// The profiles shipped inside croupier, each with its whole text, for a
/// table to be made from (the rules a table posts are public, Colorado 2208).
#[utoipa::path(get, path = "/api/public/profiles", responses((status = 200, description = "Each shipped profile: its name, title, currency, wheels and text", body = ShippedProfiles)))]
pub async fn profiles() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "public, max-age=300"),
        ],
        PROFILES.clone(),
    )
}

/// The tables' ids and the casino's operator, for a display board (no
/// sign-in: nothing private). A retired table is not listed.
#[utoipa::path(get, path = "/api/public/tables", responses((status = 200, description = "The tables' ids, retired ones left out, and the operator", body = TableIds)))]
pub async fn public_tables(State(state): State<AppState>) -> Json<TableIds> {
    let tables = state
        .floor
        .every_table(TableQuery::Public)
        .await
        .into_iter()
        .filter_map(|a| match a {
            TableAnswer::Public(t) if !t.retired => Some(t.table),
            _ => None,
        })
        .collect();
    Json(TableIds {
        tables,
        operator: state.floor.operator(),
    })
}

/// What a display board shows of a table: its state and last numbers, nothing about players.
#[utoipa::path(get, path = "/api/public/tables/{table}", params(("table" = String, Path, description = "Table id")), responses((status = 200, description = "Phase, round, last numbers, pocket colours, display length", body = PublicTable), (status = 404, body = ErrorBody)))]
pub async fn public_table(
    State(state): State<AppState>,
    Path(table): Path<String>,
) -> Result<Json<PublicTable>, Failure> {
    match state.floor.read_table(&table, TableQuery::Public).await? {
        TableAnswer::Public(view) => Ok(Json(view)),
        _ => Err(unexpected()),
    }
}

/// What a table's felt looks like and what its posted rules say.
#[utoipa::path(get, path = "/api/public/tables/{table}/layout", params(("table" = String, Path, description = "Table id")), responses((status = 200, description = "The wheel, its order, every spot the table accepts with the pockets it covers, payouts, limits and the posted house rules", body = Layout), (status = 404, body = ErrorBody)))]
pub async fn layout(State(state): State<AppState>, Path(table): Path<String>) -> Result<Json<Layout>, Failure> {
    match state.floor.read_table(&table, TableQuery::Layout).await? {
        TableAnswer::Layout(view) => Ok(Json(*view)),
        _ => Err(unexpected()),
    }
}
