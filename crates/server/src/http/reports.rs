//! The back office's reports, as JSON or CSV: a gaming day's books for the
//! whole casino, and a dealer's shift.

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};

use super::error::{Failure, Json};
use super::state::{AppState, Caller};
use super::tables::day_number;
use crate::api::bodies::{DayReport, ShiftReport};
use crate::api::{ApiError, ErrorBody, ErrorCode, Role};
use crate::casino::day_report::{casino_day, dealer_shift, TableDayBooks};
use crate::casino::policy::{self, Act};
use crate::casino::reads::{day_text, TableAnswer, TableQuery};

/// Which gaming day, and in what form.
#[derive(serde::Deserialize, utoipa::IntoParams)]
pub struct DayAsked {
    /// The gaming day, `YYYY-MM-DD`, as the casino counts it; left out: today's.
    day: Option<String>,
    /// `json` (the default) or `csv`.
    format: Option<String>,
}

/// A gaming day's books for the whole casino: each table's drop (cash,
/// wallet), fills, credits, win, hold, rounds settled and rounds per hour
/// of open play; the casino's totals, the sums of the tables'; and each
/// dealer's drop, win and rounds. Every money figure a sum of the ledger's
/// transfers that day, in minor units; `format=csv` gives the same as CSV
/// with decimal money strings. For the floor's supervisors, admins and auditors.
#[utoipa::path(get, path = "/api/reports/day", params(DayAsked), responses((status = 200, description = "The day's books: tables, casino, dealers (as text/csv with format=csv)", body = DayReport), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, description = "A day no table keeps the books of", body = ErrorBody)))]
pub async fn day(
    State(state): State<AppState>,
    Caller(actor): Caller,
    axum::extract::Query(asked): axum::extract::Query<DayAsked>,
) -> Result<Response, Failure> {
    policy::require(actor.role, Act::ReadCasinoBooks)?;
    let csv = as_csv(asked.format.as_deref())?;
    let (day, tables) = every_tables_day(&state, asked.day.as_deref()).await?;
    let report = casino_day(day, tables);
    if csv {
        let name = format!("attachment; filename=\"day-report-{}.csv\"", report.day);
        return Ok(csv_file(name, report.csv()));
    }
    Ok(Json(report).into_response())
}

/// Whether `format` asks for CSV (`csv`) or JSON (`json` or none).
fn as_csv(format: Option<&str>) -> Result<bool, ApiError> {
    match format {
        None | Some("json") => Ok(false),
        Some("csv") => Ok(true),
        Some(other) => Err(ApiError::new(
            ErrorCode::BadRequest,
            format!("format: {other:?} is neither \"json\" nor \"csv\""),
        )),
    }
}

/// A CSV answer, to be saved as a file with `disposition`.
fn csv_file(disposition: String, text: String) -> Response {
    let headers = [
        (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_string()),
        (header::CONTENT_DISPOSITION, disposition),
    ];
    (headers, text).into_response()
}

/// Every table's figures of gaming day `day` (`YYYY-MM-DD`; none: today's),
/// or the refusal of a day no table keeps the books of.
async fn every_tables_day(state: &AppState, day: Option<&str>) -> Result<(u64, Vec<TableDayBooks>), ApiError> {
    let day = match day {
        Some(text) => day_number(text)?,
        None => day_number(&state.floor.gaming_day().today)?,
    };
    let answers = state.floor.every_table(TableQuery::Day { day: Some(day) }).await;
    let mut refused = None;
    let mut tables = Vec::new();
    for answer in answers {
        match answer {
            TableAnswer::Day(books) => tables.push(*books),
            TableAnswer::Refused(why) => refused = Some(why),
            _ => return Err(ApiError::internal("a table answered another question")),
        }
    }
    if tables.is_empty() {
        let why = refused.map_or_else(|| "the casino has no tables".to_string(), |r| r.message);
        return Err(ApiError::new(
            ErrorCode::NotFound,
            format!("no table keeps the books of gaming day {}: {why}", day_text(day)),
        ));
    }
    Ok((day, tables))
}

/// Whose shift, which gaming day, and in what form.
#[derive(serde::Deserialize, utoipa::IntoParams)]
pub struct ShiftAsked {
    /// The dealer's username.
    dealer: Option<String>,
    /// The gaming day, `YYYY-MM-DD`, as the casino counts it; left out: today's.
    day: Option<String>,
    /// `json` (the default) or `csv`.
    format: Option<String>,
}

/// A dealer's shift report of a gaming day: at each table they were on duty
/// at, the shift's first and last entries, the rounds they dealt, the drop,
/// win and hold, open play and rounds per hour, and tips, and the sums of
/// them all. The dealer on duty is the day report's (whoever last opened the
/// table, opened or closed betting, keyed a spin or asked the RNG's draw),
/// so every money figure is their share of the ledger's transfers that day,
/// in minor units; `format=csv` gives the same as CSV with decimal money
/// strings. Shifts are kept from journal format 16. For the floor's
/// supervisors, admins and auditors.
#[utoipa::path(get, path = "/api/reports/shift", params(ShiftAsked), responses((status = 200, description = "The dealer's shift: each table's figures and the sums (as text/csv with format=csv)", body = ShiftReport), (status = 400, description = "No such staff member, or a day or format not understood", body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, description = "A day no table keeps the books of", body = ErrorBody)))]
pub async fn shift(
    State(state): State<AppState>,
    Caller(actor): Caller,
    axum::extract::Query(asked): axum::extract::Query<ShiftAsked>,
) -> Result<Response, Failure> {
    policy::require(actor.role, Act::ReadCasinoBooks)?;
    let csv = as_csv(asked.format.as_deref())?;
    let refused = |why: String| ApiError::new(ErrorCode::BadRequest, format!("dealer: {why}"));
    let dealer = match asked.dealer.as_deref().map(str::trim) {
        None | Some("") => return Err(refused("give the username of the dealer whose shift to report".into()).into()),
        Some(name) => name.to_string(),
    };
    match state.floor.user(&dealer).await? {
        None => return Err(refused(format!("no user is named {dealer:?}")).into()),
        Some(user) if user.role == Role::Player => {
            return Err(refused(format!("{dealer:?} is a player, who deals no shift")).into())
        }
        Some(_) => {}
    }
    let (day, tables) = every_tables_day(&state, asked.day.as_deref()).await?;
    let report = dealer_shift(day, &dealer, tables);
    if csv {
        let name = format!("attachment; filename=\"shift-report-{}.csv\"", report.day);
        return Ok(csv_file(name, report.csv()));
    }
    Ok(Json(report).into_response())
}
