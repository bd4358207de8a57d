//! The back office's reports: a gaming day's books for the whole casino,
//! as JSON or CSV.

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};

use super::error::{Failure, Json};
use super::state::{AppState, Caller};
use super::tables::day_number;
use crate::api::bodies::DayReport;
use crate::api::{ApiError, ErrorBody, ErrorCode};
use crate::casino::day_report::casino_day;
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
    let csv = match asked.format.as_deref() {
        None | Some("json") => false,
        Some("csv") => true,
        Some(other) => {
            return Err(ApiError::new(
                ErrorCode::BadRequest,
                format!("format: {other:?} is neither \"json\" nor \"csv\""),
            )
            .into())
        }
    };
    let day = match asked.day.as_deref() {
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
            _ => return Err(ApiError::internal("a table answered another question").into()),
        }
    }
    if tables.is_empty() {
        let why = refused.map_or_else(|| "the casino has no tables".to_string(), |r| r.message);
        return Err(ApiError::new(
            ErrorCode::NotFound,
            format!("no table keeps the books of gaming day {}: {why}", day_text(day)),
        )
        .into());
    }
    let report = casino_day(day, tables);
    if csv {
        let name = format!("attachment; filename=\"day-report-{}.csv\"", report.day);
        let headers = [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_string()),
            (header::CONTENT_DISPOSITION, name),
        ];
        return Ok((headers, report.csv()).into_response());
    }
    Ok(Json(report).into_response())
}
