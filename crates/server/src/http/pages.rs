//! The web pages `croupier serve` serves itself (no build step: each page is
//! one HTML file compiled into the binary).

use std::sync::LazyLock;

use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use base64::Engine;
use sha2::{Digest, Sha256};

/// A page's Content-Security-Policy: scripts only from the server itself and
/// the page's own inline script (by its SHA-256), nothing framing it, no
/// plug-ins, forms and sockets to the server only. A script someone slipped
/// into a page's data does not run.
fn policy_for(html: &str) -> String {
    let mut scripts = String::new();
    let mut rest = html;
    while let Some(start) = rest.find("<script>") {
        let body = &rest[start + "<script>".len()..];
        let Some(end) = body.find("</script>") else { break };
        let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(&body.as_bytes()[..end]));
        scripts.push_str(&format!(" 'sha256-{hash}'"));
        rest = &body[end..];
    }
    format!(
        "default-src 'self'; script-src 'self'{scripts}; style-src 'self' 'unsafe-inline'; img-src 'self' data:; \
         connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    )
}

/// A page with its own policy, worked out once.
macro_rules! page {
    ($name:ident, $file:literal) => {
        static $name: LazyLock<(&'static str, String)> = LazyLock::new(|| {
            let html = include_str!($file);
            (html, policy_for(html))
        });
    };
}

page!(INDEX, "../../web/index.html");
page!(BOARD, "../../web/board.html");
page!(TERMINAL, "../../web/terminal.html");
page!(DEALER, "../../web/dealer.html");
page!(PIT, "../../web/pit.html");
page!(ADMIN, "../../web/admin.html");
page!(CASHIER, "../../web/cashier.html");
page!(TOURNAMENTS, "../../web/tournaments.html");
page!(REPORT, "../../web/report.html");
page!(FLOOR, "../../web/floor.html");

fn serve(page: &'static LazyLock<(&'static str, String)>) -> Response {
    let (html, policy) = &**page;
    ([(header::CONTENT_SECURITY_POLICY, policy.as_str())], Html(*html)).into_response()
}

/// The start page: where each kind of user goes.
pub async fn index() -> Response {
    serve(&INDEX)
}

/// The number display board (european-casino glossary NUMBER DISPLAY): public, read only.
pub async fn board() -> Response {
    serve(&BOARD)
}

/// The player's electronic betting terminal.
pub async fn terminal() -> Response {
    serve(&TERMINAL)
}

/// The dealer's console.
pub async fn dealer() -> Response {
    serve(&DEALER)
}

/// The pit supervisor's console.
pub async fn pit() -> Response {
    serve(&PIT)
}

/// The admin's page: users (add, lock, unlock, reset a password) and tables.
pub async fn admin() -> Response {
    serve(&ADMIN)
}

/// The cage's page: a player looked up, cash in and out, coupons, receipts.
pub async fn cashier() -> Response {
    serve(&CASHIER)
}

/// Tournaments (Colorado 2213-2214): the director's console, the books, and
/// a player's own entries and agreement to a split.
pub async fn tournaments() -> Response {
    serve(&TOURNAMENTS)
}

/// The back office's report of a gaming day: every table's books, the
/// casino's and each dealer's, to print or download as CSV.
pub async fn report() -> Response {
    serve(&REPORT)
}

/// The floor overview: every table at a glance, for the pit.
pub async fn floor() -> Response {
    serve(&FLOOR)
}

/// No icon: answered with nothing rather than a 404 in every browser's console.
pub async fn favicon() -> axum::http::StatusCode {
    axum::http::StatusCode::NO_CONTENT
}

/// Shared styles of the pages.
pub async fn common_css() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        include_str!("../../web/common.css"),
    )
}

/// The pages' words in each language, one catalogue a language
/// (`web/i18n/<lang>.json`, keyed by message id), as one script the pages
/// load before common.js: `Croupier.t` reads it.
static CATALOGUES: LazyLock<String> = LazyLock::new(|| {
    format!(
        "\"use strict\";\nconst CROUPIER_CATALOGUES = {{\"en\": {}, \"ru\": {}}};\n",
        include_str!("../../web/i18n/en.json"),
        include_str!("../../web/i18n/ru.json")
    )
});

/// The catalogues of the pages' words (see [`CATALOGUES`]).
pub async fn catalogues() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        CATALOGUES.as_str(),
    )
}

/// Shared helpers of the pages.
pub async fn common_js() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        include_str!("../../web/common.js"),
    )
}
