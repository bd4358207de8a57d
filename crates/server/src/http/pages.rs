//! The web pages `croupier serve` serves itself (no build step: each page is
//! one HTML file compiled into the binary), and the read-only views they need
//! beyond the rest of the API: a table's layout and posted rules, its
//! operations log, the current round's bets and a table report.

use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Html;
use axum::Json;
use croupier_core::{Kind, Spot};
use serde_json::{json, Value};

use super::{authenticated, AppState, Failure};
use crate::api::ApiError;
use crate::users::Role;

/// The start page: where each kind of user goes.
pub async fn index() -> Html<&'static str> {
    Html(include_str!("../../web/index.html"))
}

/// The number display board (european-casino glossary NUMBER DISPLAY): public, read only.
pub async fn board() -> Html<&'static str> {
    Html(include_str!("../../web/board.html"))
}

/// The player's electronic betting terminal.
pub async fn terminal() -> Html<&'static str> {
    Html(include_str!("../../web/terminal.html"))
}

/// The dealer's console.
pub async fn dealer() -> Html<&'static str> {
    Html(include_str!("../../web/dealer.html"))
}

/// The pit supervisor's console.
pub async fn pit() -> Html<&'static str> {
    Html(include_str!("../../web/pit.html"))
}

/// Shared styles and helpers of the pages.
pub async fn common_css() -> ([(&'static str, &'static str); 1], &'static str) {
    (
        [("content-type", "text/css; charset=utf-8")],
        include_str!("../../web/common.css"),
    )
}

pub async fn common_js() -> ([(&'static str, &'static str); 1], &'static str) {
    (
        [("content-type", "text/javascript; charset=utf-8")],
        include_str!("../../web/common.js"),
    )
}

/// What a table's felt looks like and what its posted rules say: public, as
/// the layout and the house rules are posted at the table (Colorado 2208).
#[utoipa::path(get, path = "/api/public/tables/{table}/layout", params(("table" = String, Path, description = "Table id")), responses((status = 200, description = "The wheel, its order, every spot the table accepts with the pockets it covers, payouts, limits and the posted house rules"), (status = 404, body = crate::http::ErrorBody)))]
pub async fn layout(State(state): State<AppState>, Path(table): Path<String>) -> Result<Json<Value>, Failure> {
    let view = state
        .at_table(&table.clone(), move |w| {
            Some(w.slot()).map(|s| {
                let config = s.table.config();
                let wheel = config.wheel;
                let profile = s.table.profile();
                let spec = profile.spec();
                let rules = s.table.rules();
                let spots: Vec<Value> = rules
                    .legal_spots()
                    .into_iter()
                    .filter_map(|notation| {
                        let spot = Spot::parse(&notation, wheel).ok()?;
                        Some(json!({
                            "spot": notation,
                            "kind": spot.kind().name(),
                            "covers": spot.covers().iter().map(|p| p.label()).collect::<Vec<_>>(),
                            // A stake must be a multiple of this many units (neighbours, complete).
                            "units": rules.stake_units(&notation).unwrap_or(1),
                        }))
                    })
                    .collect();
                let kinds: Vec<Value> = profile
                    .kinds_on(wheel)
                    .into_iter()
                    .map(|k| {
                        let limit = profile.limit(k);
                        json!({
                            "kind": k.name(),
                            "description": k.description(),
                            "pays": match k {
                                Kind::Neighbours | Kind::Complete => None,
                                k => profile.payout(k),
                            },
                            "min": limit.map(|r| r.min.get()),
                            "max": limit.map(|r| r.max.get()),
                        })
                    })
                    .collect();
                json!({
                    "table": s.id,
                    "profile": s.profile_name,
                    "title": spec.title,
                    "currency": spec.currency,
                    "wheel": wheel.name(),
                    "wheel_description": wheel.description(),
                    "layout": match wheel.layout() {
                        croupier_core::Layout::SingleZero => "single-zero",
                        croupier_core::Layout::DoubleZero => "double-zero",
                        croupier_core::Layout::TripleZero => "triple-zero",
                    },
                    "bettable": wheel.bettable().iter().map(|p| p.label()).collect::<Vec<_>>(),
                    "order": wheel.order().map(|p| p.label()).collect::<Vec<_>>(),
                    "outcome": s.outcome,
                    "in_prison": config.in_prison,
                    "betting_window_ms": config.betting_window_ms,
                    "chip_colours": spec.chip_colours,
                    "kinds": kinds,
                    "spots": spots,
                    "no_spin_reasons": croupier_core::round::NoSpinReason::ALL.iter().map(|r| r.name()).collect::<Vec<_>>(),
                    "min_ball_revolutions": spec.min_ball_revolutions,
                    "dispute_authority": spec.dispute_authority,
                    "house_rules": croupier_profiles::posted::house_rules_text(profile, &[wheel]),
                })
            })
        })
        .await?;
    view.map(Json)
        .ok_or_else(|| ApiError::new("no_table", "no such table").into())
}

fn staff(role: Role, what: &str) -> Result<(), Failure> {
    match role {
        Role::Player | Role::Cashier => Err(ApiError::forbidden(what, role).into()),
        _ => Ok(()),
    }
}

/// The table's operations log, newest first: inspections and adjustments
/// with date, time, who and licence (Colorado 2212(5), Maryland ch.2 E),
/// opening and closing, no spins, emergencies, annulments, disputes.
#[utoipa::path(get, path = "/api/tables/{table}/log", params(("table" = String, Path, description = "Table id")), responses((status = 200, description = "The operations log, newest first"), (status = 403, body = crate::http::ErrorBody)))]
pub async fn log(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(table): Path<String>,
) -> Result<Json<Value>, Failure> {
    let actor = authenticated(&state, &headers)?;
    staff(actor.role, "read a table's log")?;
    let entries = state
        .at_table(&table.clone(), move |w| {
            Some(w.slot()).map(|s| {
                s.log
                    .iter()
                    .rev()
                    .map(|(at_ms, event)| {
                        let mut v = serde_json::to_value(event).unwrap_or(Value::Null);
                        if let Some(map) = v.as_object_mut() {
                            map.entry("at_ms").or_insert(json!(at_ms));
                        }
                        v
                    })
                    .collect::<Vec<_>>()
            })
        })
        .await?
        .ok_or_else(|| Failure::from(ApiError::new("no_table", "no such table")))?;
    Ok(Json(json!({ "log": entries })))
}

/// The bets of the round under way: staff see every bet, a player their own.
#[utoipa::path(get, path = "/api/tables/{table}/bets", params(("table" = String, Path, description = "Table id")), responses((status = 200, description = "The round under way and its bets")))]
pub async fn bets(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(table): Path<String>,
) -> Result<Json<Value>, Failure> {
    let actor = authenticated(&state, &headers)?;
    let wheel = state.wheels.lock().ok().and_then(|w| w.get(&table).cloned());
    let view = state
        .at_table(&table.clone(), move |w| {
            Some(w.slot()).map(|s| {
                let current = s.rounds.back().filter(|r| !r.settled && r.round == s.table.round());
                let bets: Vec<Value> = current
                    .map(|r| {
                        r.bets
                            .iter()
                            .filter(|b| actor.role != Role::Player || b.player == actor.username)
                            .map(|b| json!({"bet_id": b.bet_id, "player": b.player, "spot": b.spot, "kind": b.kind, "stake": b.stake}))
                            .collect()
                    })
                    .unwrap_or_default();
                json!({"table": s.id, "round": s.table.round(), "phase": super::phase_code(s.table.phase()), "emergency": s.table.emergency(), "inspected": s.table.inspected(), "outcome": s.outcome, "wheel": wheel, "bets": bets})
            })
        })
        .await?;
    view.map(Json)
        .ok_or_else(|| ApiError::new("no_table", "no such table").into())
}

/// A table's figures for the pit: its accounts and the recent rounds' totals.
#[utoipa::path(get, path = "/api/tables/{table}/report", params(("table" = String, Path, description = "Table id")), responses((status = 200, description = "Float, drop, tips, coupons and the last rounds' staked, returned and house result"), (status = 403, body = crate::http::ErrorBody)))]
pub async fn report(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(table): Path<String>,
) -> Result<Json<Value>, Failure> {
    let actor = authenticated(&state, &headers)?;
    staff(actor.role, "read a table's report")?;
    let view = state
        .at_table(&table.clone(), move |w| {
            let slot = w.slot();
            let accounts: serde_json::Map<String, Value> = ["float", "drop", "tips", "coupons", "layout"]
                .iter()
                .map(|a| (a.to_string(), json!(slot.balance(&format!("{a}:{table}")) as i64)))
                .collect();
            let rounds: Vec<Value> = slot
                .rounds
                .iter()
                .rev()
                .filter(|r| r.settled)
                .map(|r| {
                    let staked: u64 = r.bets.iter().map(|b| b.stake).sum();
                    let returned: u64 = r.bets.iter().filter_map(|b| b.returned).sum();
                    json!({"round": r.round, "pocket": r.pocket, "bets": r.bets.len(), "staked": staked, "returned": returned, "house": staked as i64 - returned as i64})
                })
                .collect();
            let staked: i64 = rounds.iter().filter_map(|r| r["staked"].as_i64()).sum();
            let house: i64 = rounds.iter().filter_map(|r| r["house"].as_i64()).sum();
            Some(json!({
                "table": slot.id,
                "profile": slot.profile_name,
                "accounts": accounts,
                "players": slot.colours.iter().map(|(p, (colour, value))| json!({"player": p, "colour": colour, "chip_value": value, "chips": slot.balance(&format!("chips:{table}:{p}")) as i64})).collect::<Vec<_>>(),
                "rounds": rounds,
                "totals": {"staked": staked, "house": house},
            }))
        })
        .await?;
    view.map(Json)
        .ok_or_else(|| ApiError::new("no_table", "no such table").into())
}
