//! HTTP to a server under test, with ureq.

use std::time::Duration;

use serde_json::Value;

/// How long a request may take before the test gives up on the server.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a pooled connection is reused: well inside the server's 10 s.
const KEPT_ALIVE_MAX: Duration = Duration::from_secs(4);

/// An HTTP client for one server's address. It is cheap to clone, so a
/// thread of a test (a dealer running rounds) can have its own.
#[derive(Clone)]
pub struct Client {
    address: String,
    agent: ureq::Agent,
}

impl Client {
    /// A client for the server at `address` (`host:port`).
    pub fn new(address: &str) -> Client {
        let config = ureq::Agent::config_builder()
            // The tests check refusals: a 4xx or 5xx is an answer to read, not an error.
            .http_status_as_error(false)
            // A proxy named in the environment must not stand between a test and its own server.
            .proxy(None)
            .timeout_global(Some(REQUEST_TIMEOUT))
            // The server drops a kept-alive connection idle for its header read
            // timeout (10 s): a pooled one older than that may be gone just as
            // it is reused ("Peer disconnected" under a loaded CI machine).
            .max_idle_age(KEPT_ALIVE_MAX)
            .build();
        Client {
            address: address.to_string(),
            agent: ureq::Agent::new_with_config(config),
        }
    }

    /// The server's `host:port`.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// One request: its status and its body, as JSON where it is JSON and as a
    /// JSON string otherwise (a page, the metrics). `token` is sent as a bearer token.
    pub fn http(&self, method: &str, path: &str, token: Option<&str>, body: Option<&Value>) -> (u16, Value) {
        self.try_http(method, path, token, body).expect("the server answers")
    }

    /// [`Client::http`], with an error where the server is gone or does not
    /// answer in time, so that a test that kills it can tell.
    pub fn try_http(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> Result<(u16, Value), ureq::Error> {
        self.try_answer(method, path, token, body).map(|a| (a.status, a.body))
    }

    /// [`Client::http`], with the answer's headers.
    pub fn answer(&self, method: &str, path: &str, token: Option<&str>, body: Option<&Value>) -> Answer {
        self.try_answer(method, path, token, body).expect("the server answers")
    }

    /// One request, sent again where it went out on a kept-alive connection
    /// the server had just closed (a broken pipe seen under a loaded CI
    /// machine): the server refuses some requests without
    /// reading their bodies (a POST with no session) and then closes the
    /// connection, which the pool may hand out before it sees the close. The
    /// request never reached the server then, so sending it again is safe.
    fn try_answer(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> Result<Answer, ureq::Error> {
        let mut tries = 0;
        loop {
            match self.send(method, path, token, body) {
                // Writing into a connection the server closed fails as a broken
                // pipe, or a reset; reading its answer, as an early end.
                Err(ureq::Error::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::UnexpectedEof
                            | std::io::ErrorKind::BrokenPipe
                            | std::io::ErrorKind::ConnectionReset
                    ) && tries < 2 =>
                {
                    tries += 1
                }
                answered => return answered,
            }
        }
    }

    fn send(&self, method: &str, path: &str, token: Option<&str>, body: Option<&Value>) -> Result<Answer, ureq::Error> {
        let mut request = ureq::http::Request::builder()
            .method(method)
            .uri(format!("http://{}{path}", self.address));
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        let mut response = match body {
            Some(body) => self.agent.run(
                request
                    .header("content-type", "application/json")
                    .body(body.to_string())?,
            )?,
            None => self.agent.run(request.body(())?)?,
        };
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response.body_mut().read_to_string()?;
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        Ok(Answer { status, headers, body })
    }
}

/// A server's answer, headers and all.
pub struct Answer {
    pub status: u16,
    pub headers: ureq::http::HeaderMap,
    pub body: Value,
}

impl Answer {
    /// A header's value, where it is present and text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}
