//! The one error-to-response mapping: every failure, whoever found it (the
//! casino, a session check, a body that does not parse, a route that does
//! not exist), answers with its code's status and an [`ErrorBody`].

use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::FromRequest;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::api::{ApiError, ErrorBody, ErrorCode};

/// A refusal as a response.
#[derive(Debug)]
pub struct Failure(pub ApiError);

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.0.code.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        // A pause is logged once, as it begins, not for every request it refuses.
        if status.is_server_error() && self.0.code != ErrorCode::Paused {
            tracing::warn!(code = %self.0.code, "{}", self.0.message);
        }
        let retry_after = self.0.retry_after_s;
        let mut response = (status, axum::Json(ErrorBody::from(self.0))).into_response();
        if let Some(seconds) = retry_after {
            if let Ok(value) = axum::http::HeaderValue::from_str(&seconds.to_string()) {
                response.headers_mut().insert(axum::http::header::RETRY_AFTER, value);
            }
        }
        response
    }
}

/// The answer to a request whose handler panicked (the panic is logged by the hook).
pub fn panicked(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    Failure(ApiError::internal("the server failed on this request; see its log")).into_response()
}

impl From<ApiError> for Failure {
    fn from(e: ApiError) -> Failure {
        Failure(e)
    }
}

impl From<JsonRejection> for Failure {
    fn from(rejection: JsonRejection) -> Failure {
        let (code, message) = match &rejection {
            JsonRejection::MissingJsonContentType(_) => (
                ErrorCode::UnsupportedMediaType,
                "send the body as JSON, with `content-type: application/json`".to_string(),
            ),
            JsonRejection::BytesRejection(_) if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE => (
                ErrorCode::TooLarge,
                format!("a body is at most {} bytes", super::BODY_MAX_BYTES),
            ),
            // serde's own account of what is wrong, without the extractor's preamble.
            JsonRejection::JsonDataError(e) => (ErrorCode::BadRequest, format!("not a request: {}", source_of(e))),
            JsonRejection::JsonSyntaxError(e) => (ErrorCode::BadRequest, format!("not JSON: {}", source_of(e))),
            _ => (ErrorCode::BadRequest, rejection.body_text()),
        };
        Failure(ApiError::new(code, message))
    }
}

/// The innermost cause of an extractor's error: what serde said.
fn source_of(e: &dyn std::error::Error) -> String {
    let mut cause: &dyn std::error::Error = e;
    while let Some(inner) = cause.source() {
        cause = inner;
    }
    cause.to_string()
}

impl From<WebSocketUpgradeRejection> for Failure {
    fn from(rejection: WebSocketUpgradeRejection) -> Failure {
        Failure(ApiError::new(
            ErrorCode::BadRequest,
            format!("a table stream is a WebSocket: {}", rejection.body_text()),
        ))
    }
}

impl From<QueryRejection> for Failure {
    fn from(rejection: QueryRejection) -> Failure {
        Failure(ApiError::new(ErrorCode::BadRequest, rejection.body_text()))
    }
}

impl From<PathRejection> for Failure {
    fn from(rejection: PathRejection) -> Failure {
        Failure(ApiError::new(ErrorCode::BadRequest, rejection.body_text()))
    }
}

/// A JSON body, refused with the error body every failure has.
#[derive(FromRequest)]
#[from_request(via(axum::Json), rejection(Failure))]
pub struct Json<T>(pub T);

impl<T: serde::Serialize> IntoResponse for Json<T> {
    fn into_response(self) -> Response {
        axum::Json(self.0).into_response()
    }
}

/// Query parameters, refused with the error body every failure has.
#[derive(axum::extract::FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(Failure))]
pub struct Query<T>(pub T);

/// Path parameters, refused with the error body every failure has.
#[derive(axum::extract::FromRequestParts)]
#[from_request(via(axum::extract::Path), rejection(Failure))]
pub struct Path<T>(pub T);

/// A route that does not exist.
pub async fn not_found() -> Failure {
    Failure(ApiError::new(ErrorCode::NotFound, "no such page or API route"))
}

/// A route that exists, asked with a method it does not take.
pub async fn method_not_allowed() -> Failure {
    Failure(ApiError::new(
        ErrorCode::MethodNotAllowed,
        "this route does not take that method",
    ))
}

#[cfg(test)]
mod tests {
    use axum::routing::get;
    use tower::ServiceExt;

    /// A handler that panics is answered with the one error body, and the
    /// server goes on answering.
    #[tokio::test]
    async fn a_panic_in_a_handler_is_answered_with_the_error_body() {
        let router = axum::Router::new()
            .route(
                "/boom",
                get(|| async {
                    panic!("a bug");
                    #[allow(unreachable_code)]
                    "never"
                }),
            )
            .route("/fine", get(|| async { "fine" }))
            .layer(tower_http::catch_panic::CatchPanicLayer::custom(super::panicked));
        let ask = |path: &str| {
            let request = axum::http::Request::get(path)
                .body(axum::body::Body::empty())
                .expect("request");
            router.clone().oneshot(request)
        };
        let boom = ask("/boom").await.expect("an answer");
        assert_eq!(boom.status(), 503);
        let body = axum::body::to_bytes(boom.into_body(), 4096).await.expect("body");
        let body: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
        assert_eq!(body["error"], "internal");
        assert_eq!(ask("/fine").await.expect("an answer").status(), 200);
    }
}
