//! The OpenAPI document, served at `/api/openapi.json`.

use super::{
    auth, cage, floor, integrity, metrics, people, public, recall, reports, requests, streams, tables, tournaments,
};
use crate::api::bodies::{
    ChipValue, Done, Events, GamingDayView, IssuedCoupon, Layout, LogEntry, LoginAnswer, Me, PlayerAccounts,
    PointsNotice, PublicTable, RecalledRound, Rounds, ShippedProfile, ShippedProfiles, TableBets, TableIds, TableList,
    TableLog, TableReport, UserList, UserSummary,
};
use crate::api::player_search::{PlayerMatch, PlayerMatches};
use crate::api::{
    ClientRequest, Correction, ErrorBody, ErrorCode, EventView, OutcomeSource, PaidWith, PlaceBet, Role, SpinView,
    TournamentOrder,
};

#[derive(utoipa::OpenApi)]
#[openapi(
    info(
        title = "croupier table server",
        description = "Every change is a request posted to /api/requests with `Authorization: Bearer TOKEN` from /api/login; the casino checks the caller's role and the rules, makes the request durable with its transfers, then answers with the events it caused. Every failure answers with an ErrorBody: a stable code and a sentence."
    ),
    paths(
        metrics::healthz,
        metrics::metrics,
        auth::login,
        auth::logout,
        auth::me,
        people::users,
        people::player_accounts,
        people::find_players,
        cage::transactions,
        requests::requests,
        requests::draw,
        tables::tables,
        tables::log,
        tables::bets,
        tables::report,
        reports::day,
        reports::shift,
        floor::floor,
        tables::slips,
        integrity::integrity,
        recall::table_rounds,
        recall::player_rounds,
        recall::round,
        streams::stream,
        public::public_tables,
        public::profiles,
        public::public_table,
        public::layout,
        tournaments::list,
        tournaments::one,
        tournaments::rules,
        tournaments::standings,
        tournaments::forms,
    ),
    components(schemas(
        crate::runtime::health::HealthReport,
        crate::runtime::health::Trouble,
        crate::runtime::health::ArchiveBehind,
        ClientRequest,
        TournamentOrder,
        crate::api::tournament::TournamentBrief,
        crate::api::tournament::TournamentEventBrief,
        crate::api::tournament::TournamentView,
        crate::api::tournament::TournamentEntryLine,
        crate::api::tournament::PayoutLineView,
        crate::api::tournament::SplitView,
        crate::api::tournament::SplitShare,
        crate::api::tournament::EventStandings,
        crate::api::tournament::Standing,
        crate::api::tournament::TournamentStandings,
        crate::api::tournament::TournamentBooksView,
        crate::api::tournament::MonthProceeds,
        crate::api::tournament::ObjectionView,
        PaidWith,
        PlaceBet,
        EventView,
        Events,
        SpinView,
        Correction,
        OutcomeSource,
        Role,
        auth::LoginBody,
        LoginAnswer,
        Done,
        Me,
        GamingDayView,
        UserList,
        UserSummary,
        PlayerAccounts,
        PlayerMatch,
        PlayerMatches,
        IssuedCoupon,
        crate::api::bodies::CageTransactions,
        crate::api::bodies::CageTransaction,
        crate::api::bodies::CageVoid,
        crate::api::bodies::CageTransactionKind,
        ShippedProfile,
        ShippedProfiles,
        TableList,
        TableIds,
        PublicTable,
        PointsNotice,
        ChipValue,
        Layout,
        TableLog,
        LogEntry,
        crate::api::bodies::AwaitingWitness,
        TableBets,
        TableReport,
        crate::api::bodies::DayReport,
        crate::api::bodies::ShiftReport,
        crate::api::bodies::FloorView,
        crate::api::bodies::SlipList,
        crate::api::bodies::SlipView,
        crate::api::bodies::SlipStep,
        crate::api::bodies::FloatCountView,
        crate::api::integrity::TableIntegrity,
        Rounds,
        RecalledRound,
        ErrorBody,
        ErrorCode
    ))
)]
pub struct ApiDoc;

pub async fn openapi() -> axum::Json<utoipa::openapi::OpenApi> {
    axum::Json(<ApiDoc as utoipa::OpenApi>::openapi())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_openapi_document_describes_every_route_and_its_answers() {
        let doc = serde_json::to_value(<ApiDoc as utoipa::OpenApi>::openapi()).expect("JSON");
        for path in [
            "/api/login",
            "/api/requests",
            "/api/tables/{table}/draw",
            "/api/rounds/{table}/{round}",
            "/api/tables/{table}/stream",
            "/api/tables",
            "/api/tables/{table}/rounds",
            "/api/players/{player}/rounds",
            "/api/public/tables",
            "/api/public/profiles",
            "/api/public/tables/{table}",
            "/api/public/tables/{table}/layout",
            "/api/tables/{table}/log",
            "/api/tables/{table}/bets",
            "/api/tables/{table}/report",
            "/api/reports/day",
            "/api/reports/shift",
            "/api/floor",
            "/api/tables/{table}/integrity",
            "/api/me",
            "/api/users",
            "/api/players/{player}/accounts",
            "/api/tournaments",
            "/api/tournaments/{tournament}",
            "/api/tournaments/{tournament}/forms",
            "/api/public/tournaments/{tournament}/rules",
            "/api/logout",
            "/healthz",
            "/metrics",
        ] {
            let ops = doc["paths"].get(path).unwrap_or_else(|| panic!("{path}"));
            // Every answer of every route has a schema, refusals included.
            for (method, op) in ops.as_object().expect("methods") {
                for (status, answer) in op["responses"].as_object().expect("responses") {
                    if status == "101" {
                        continue;
                    }
                    assert!(
                        answer.to_string().contains("schema"),
                        "{method} {path} answers {status} with no schema"
                    );
                }
            }
        }
        let schemas = &doc["components"]["schemas"];
        assert!(schemas.get("ClientRequest").is_some() && schemas.get("EventView").is_some());
        let requests = schemas["ClientRequest"].to_string();
        assert!(requests.contains("place_bet"));
        // Requests only the server makes are not among a client's.
        for server_only in ["login_failed", "login_succeeded", "journal_format", "void_round"] {
            assert!(!requests.contains(server_only), "{server_only}");
        }
    }
}
