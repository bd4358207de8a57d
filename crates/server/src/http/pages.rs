//! The web pages `croupier serve` serves itself (no build step: each page is
//! one HTML file compiled into the binary).

use axum::http::header;
use axum::response::{Html, IntoResponse};

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

/// Shared styles of the pages.
pub async fn common_css() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        include_str!("../../web/common.css"),
    )
}

/// Shared helpers of the pages.
pub async fn common_js() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        include_str!("../../web/common.js"),
    )
}
