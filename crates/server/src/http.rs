//! The HTTP edge: `croupier serve`.
//!
//! Each table has a writer task of its own (an actor), and the cage (users,
//! cash, the ledger) a thread ([`crate::writers`]): every request,
//! read or write, is a job sent to the writer it belongs to, so no table ever
//! sees two writers. Handlers authenticate the caller, send the job, and map
//! its result to a response with a stable error code (the one
//! error-to-response mapping).

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use bytes::Bytes;
use croupier_ledger::SqliteStorage;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::{broadcast, oneshot};

use crate::api::{Actor, ApiError, EventView, OutcomeSource, Request, SpinView};
use crate::archive::{Archive, Archiver};
use crate::casino::{Cage, Casino, Executed, TableSlot};
use crate::committer::{Committer, FlushTimes, Pipeline, Reply};
use crate::sessions::{SessionKey, Sessions};
use crate::users::{hash_password, password_matches, Role};
use crate::writers::{TableWriter, Tables, ToCage};

mod pages;

/// Events buffered per subscriber before a slow one starts missing them.
pub const STREAM_BUFFER_EVENTS: usize = 4096;
/// The largest request body, in bytes.
pub const BODY_MAX_BYTES: usize = 64 * 1024;
/// Rounds returned by recall at most: a table's recall comes whole from the rounds it keeps.
pub const RECALL_MAX: usize = crate::casino::RECALL_ROUNDS_MAX;

/// How often the WAL is copied into the database, beside the writer. Each
/// checkpoint ends with a flush of the database file, and the writer's next
/// flush of the WAL waits until the disk has taken everything the checkpoint
/// wrote: the wait grows with the copy. At 20,000 bets a second the log grows
/// by about 20 MB a second; copied every 2 s, each copy held the journal's
/// writes up to 60-150 ms, so copies are small and often instead.
pub const CHECKPOINT_EVERY_MS: u64 = 200;

pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

#[derive(Default)]
struct Metrics {
    requests: AtomicU64,
    refused: AtomicU64,
    bets_accepted: AtomicU64,
    rounds_settled: AtomicU64,
    logins_failed: AtomicU64,
}

/// Where events go, so that each one wakes only the sockets that show it:
/// `public:T` (round state, results), `all:T` (staff: everything at T),
/// `player:T:P` (player P's own bets and chips at T).
#[derive(Default)]
pub struct Channels {
    senders: Mutex<foldhash::HashMap<String, broadcast::Sender<Utf8Bytes>>>,
}

impl Channels {
    fn subscribe(&self, key: String) -> broadcast::Receiver<Utf8Bytes> {
        let mut senders = self.senders.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        senders
            .entry(key)
            .or_insert_with(|| broadcast::channel(STREAM_BUFFER_EVENTS).0)
            .subscribe()
    }

    /// Sends each event to the channels that show it: its text from `texts`
    /// when the table wrote them (see [`Executed`]), else serialised here.
    fn publish(&self, metrics: &Metrics, events: &[EventView], texts: &[Bytes]) {
        // Reused for every event: a round's settlement publishes thousands.
        let mut keys = [String::new(), String::new()];
        let rendered = texts.len() == events.len();
        for (i, e) in events.iter().enumerate() {
            match e {
                EventView::BetAccepted { .. } => {
                    metrics.bets_accepted.fetch_add(1, Ordering::Relaxed);
                }
                EventView::RoundSettled { .. } => {
                    metrics.rounds_settled.fetch_add(1, Ordering::Relaxed);
                }
                _ => {}
            }
            let Some((table, player)) = e.audience() else {
                continue;
            };
            let text = if rendered {
                Utf8Bytes::try_from(texts[i].clone()).ok()
            } else {
                serde_json::to_string(e).ok().map(Utf8Bytes::from)
            };
            let Some(text) = text else {
                continue;
            };
            publish_keys(table, player, &mut keys);
            for key in &keys {
                self.send(key, &text);
            }
        }
    }

    fn send(&self, key: &str, text: &Utf8Bytes) {
        let senders = self.senders.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(sender) = senders.get(key) {
            // No one listening is fine: the journal has everything.
            let _ = sender.send(text.clone());
        }
    }
}

#[derive(Clone)]
pub struct AppState {
    runtime: tokio::runtime::Handle,
    cage: std::sync::mpsc::SyncSender<ToCage>,
    tables: Tables,
    sessions: Arc<Sessions>,
    events: Arc<Channels>,
    metrics: Arc<Metrics>,
    /// How long the journal's writes take, for `/metrics`.
    flushes: Arc<FlushTimes>,
    /// What each wheel table's automated wheel last did, for the dealer console.
    wheels: Arc<Mutex<HashMap<String, WheelStatus>>>,
    /// Password hashes computed at once: each argon2 hash takes about 19 MiB, so a
    /// storm of logins queues here instead of exhausting memory.
    hashing: Arc<tokio::sync::Semaphore>,
    /// Every finished round, for recall past the rounds the tables keep.
    archive: Arc<Archive>,
}

impl AppState {
    /// Runs an argon2 computation off the async workers, a few at a time.
    async fn hash_job<T: Send + 'static>(&self, job: impl FnOnce() -> T + Send + 'static) -> Result<T, ApiError> {
        let _permit = self
            .hashing
            .acquire()
            .await
            .map_err(|_| ApiError::new("unavailable", "the server is stopping"))?;
        tokio::task::spawn_blocking(job)
            .await
            .map_err(|e| ApiError::new("internal", e.to_string()))
    }
}

/// An automated wheel as the server last saw it.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct WheelStatus {
    pub address: String,
    pub connected: bool,
    pub games: u64,
    pub last_result: Option<String>,
    pub last_error: Option<String>,
    pub at_ms: u64,
}

impl AppState {
    /// Reads the recall archive off the async workers.
    async fn archived<T: Send + 'static>(
        &self,
        read: impl FnOnce(&Archive) -> Result<T, String> + Send + 'static,
    ) -> Result<T, ApiError> {
        let archive = self.archive.clone();
        tokio::task::spawn_blocking(move || read(&archive))
            .await
            .map_err(|_| ApiError::new("unavailable", "the casino has stopped"))?
            .map_err(|e| ApiError::new("storage", e))
    }

    fn wheel_status(&self, table: &str, update: impl FnOnce(&mut WheelStatus)) {
        if let Ok(mut map) = self.wheels.lock() {
            let status = map.entry(table.to_string()).or_default();
            update(status);
            status.at_ms = now_ms();
        }
    }
}

/// A job for a writer of `W`, and where its answer arrives once durable.
type Answering<W, T> = (
    Box<dyn FnOnce(&mut W) -> Reply + Send>,
    oneshot::Receiver<Result<T, ApiError>>,
);

fn answering<W, T: Send + 'static>(f: impl FnOnce(&mut W) -> T + Send + 'static) -> Answering<W, T> {
    let (tx, rx) = oneshot::channel();
    let job = delivering(f, move |answer| {
        let _ = tx.send(answer);
    });
    (job, rx)
}

/// A job for a writer of `W` that hands its answer to `deliver` once durable
/// (or the failure, if it could not be made durable).
fn delivering<W, T: Send + 'static>(
    f: impl FnOnce(&mut W) -> T + Send + 'static,
    deliver: impl FnOnce(Result<T, ApiError>) + Send + 'static,
) -> Box<dyn FnOnce(&mut W) -> Reply + Send> {
    Box::new(move |writer: &mut W| -> Reply {
        let answer = f(writer);
        Box::new(move |durable: bool| {
            deliver(if durable {
                Ok(answer)
            } else {
                Err(ApiError::new(
                    "storage",
                    "the write could not be made durable; nothing was changed",
                ))
            });
        })
    })
}

async fn answer<T>(rx: oneshot::Receiver<Result<T, ApiError>>) -> Result<T, ApiError> {
    rx.await
        .map_err(|_| ApiError::new("unavailable", "the casino has stopped"))?
}

impl AppState {
    /// Runs `f` on the cage's thread and waits for its answer.
    async fn call<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Cage<Pipeline>) -> T + Send + 'static,
    ) -> Result<T, ApiError> {
        let (job, rx) = answering(f);
        self.cage
            .send(ToCage::Job(job))
            .map_err(|_| ApiError::new("unavailable", "the casino has stopped"))?;
        answer(rx).await
    }

    /// Runs `f` at a table (by its writer's task) and waits for its answer.
    async fn at_table<T: Send + 'static>(
        &self,
        table: &str,
        f: impl FnOnce(&mut TableWriter) -> T + Send + 'static,
    ) -> Result<T, ApiError> {
        let jobs = self
            .tables
            .jobs(table)
            .ok_or_else(|| ApiError::new("no_table", format!("no table {table:?}")))?;
        let (job, rx) = answering(f);
        jobs.send(job)
            .await
            .map_err(|_| ApiError::new("unavailable", "the casino has stopped"))?;
        answer(rx).await
    }

    /// Runs `f` at every table at once and gathers the answers; a
    /// table created meanwhile and lost to a failed write is left out.
    async fn every_table<T: Send + 'static>(
        &self,
        f: impl Fn(&mut TableWriter) -> T + Clone + Send + 'static,
    ) -> Vec<T> {
        let asked = self.tables.ids().into_iter().map(|id| {
            let f = f.clone();
            async move { self.at_table(&id, f).await }
        });
        futures_util::future::join_all(asked)
            .await
            .into_iter()
            .filter_map(Result::ok)
            .collect()
    }

    /// Executes a request for an actor and streams its events to the tables' subscribers.
    async fn execute(&self, actor: Actor, request: Request) -> Result<Vec<EventView>, ApiError> {
        match request.table().map(str::to_string) {
            Some(table) => self.execute_built(actor, table, move |_| Ok(request)).await,
            None => {
                self.metrics.requests.fetch_add(1, Ordering::Relaxed);
                let result = self.call(move |c| c.execute(now_ms(), &actor, request)).await?;
                // The cage writes no texts: each event is serialised to publish it.
                self.executed(result.map(|views| Executed {
                    views,
                    texts: Vec::new(),
                }))
            }
        }
    }

    /// Executes at a table a request built from the table's state in the same
    /// job (an RNG spin is drawn and settled without other requests between).
    async fn execute_built(
        &self,
        actor: Actor,
        table: String,
        build: impl FnOnce(&TableSlot) -> Result<Request, ApiError> + Send + 'static,
    ) -> Result<Vec<EventView>, ApiError> {
        self.metrics.requests.fetch_add(1, Ordering::Relaxed);
        let result = self
            .at_table(&table, move |w| {
                let request = build(w.slot())?;
                w.execute_rendered(now_ms(), &actor, request)
            })
            .await?;
        self.executed(result)
    }

    /// Streams an executed request's events, closes betting at each new
    /// deadline, and gives back the events. Their texts are sent as the table
    /// wrote them (see [`Executed`]); an event without one is serialised here.
    fn executed(&self, result: Result<Executed, ApiError>) -> Result<Vec<EventView>, ApiError> {
        match result {
            Ok(Executed { views, texts }) => {
                self.publish(&views, &texts);
                for e in &views {
                    if let EventView::BettingOpened {
                        table,
                        round,
                        deadline_ms,
                    } = e
                    {
                        self.close_at_deadline(table.clone(), *round, *deadline_ms);
                    }
                }
                Ok(views)
            }
            Err(e) => {
                self.metrics.refused.fetch_add(1, Ordering::Relaxed);
                Err(e)
            }
        }
    }

    /// Calls no more bets when the betting window ends, unless someone
    /// already has: the check and the call are one job of the table's writer.
    fn close_at_deadline(&self, table: String, round: u64, deadline_ms: u64) {
        let state = self.clone();
        self.runtime.spawn(async move {
            let wait = deadline_ms.saturating_sub(now_ms());
            tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
            let at = table.clone();
            let closed = state
                .at_table(&at, move |w| {
                    let s = w.slot();
                    let betting = s.table.round() == round
                        && matches!(s.table.phase(), croupier_core::round::Phase::BettingOpen { .. });
                    betting.then(|| w.execute_rendered(now_ms(), &Actor::system(), Request::NoMoreBets { table }))
                })
                .await;
            if let Ok(Some(Ok(Executed { views, texts }))) = closed {
                state.publish(&views, &texts);
            }
        });
    }

    fn publish(&self, events: &[EventView], texts: &[Bytes]) {
        self.events.publish(&self.metrics, events, texts);
    }
}

/// Errors as responses: a stable code and a sentence, never internals.
struct Failure(StatusCode, ApiError);

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        let body = ErrorBody {
            error: self.1.code.to_string(),
            message: self.1.message,
        };
        (self.0, Json(body)).into_response()
    }
}

impl From<ApiError> for Failure {
    fn from(e: ApiError) -> Failure {
        let status = match e.code {
            "forbidden" => StatusCode::FORBIDDEN,
            "unauthenticated" | "locked" => StatusCode::UNAUTHORIZED,
            "no_table" | "no_player" | "no_user" | "no_round" => StatusCode::NOT_FOUND,
            "storage" | "internal" | "unavailable" => StatusCode::SERVICE_UNAVAILABLE,
            _ => StatusCode::UNPROCESSABLE_ENTITY,
        };
        Failure(status, e)
    }
}

fn authenticated(state: &AppState, headers: &HeaderMap) -> Result<Actor, Failure> {
    let token = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .ok_or_else(|| Failure::from(ApiError::new("unauthenticated", "log in first")))?;
    state
        .sessions
        .get(token)
        .ok_or_else(|| ApiError::new("unauthenticated", "the session is unknown or over; log in again").into())
}

#[derive(Deserialize, utoipa::ToSchema)]
pub struct LoginBody {
    username: String,
    password: String,
    /// A licence number, written into the logs that require one (Colorado 2212(5)).
    #[serde(default)]
    licence: String,
}

/// Every refusal: a stable code for programs and a sentence for people.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    error: String,
    message: String,
}

#[derive(utoipa::OpenApi)]
#[openapi(
    info(
        title = "croupier table server",
        description = "Every change is a Request posted to /api/requests with `Authorization: Bearer TOKEN` from /api/login; the casino checks the caller's role and the rules, makes the request durable with its transfers, then answers with the events it caused."
    ),
    paths(
        healthz,
        metrics,
        login,
        logout,
        me,
        requests,
        draw,
        tables,
        table_rounds,
        player_rounds,
        round,
        stream,
        public_tables,
        public_table,
        pages::layout,
        pages::log,
        pages::bets,
        pages::report
    ),
    components(schemas(
        Request,
        EventView,
        Events,
        SpinView,
        crate::api::Correction,
        OutcomeSource,
        Role,
        LoginBody,
        ErrorBody
    ))
)]
pub struct ApiDoc;

async fn openapi() -> Json<utoipa::openapi::OpenApi> {
    Json(<ApiDoc as utoipa::OpenApi>::openapi())
}

#[utoipa::path(post, path = "/api/login", request_body = LoginBody, responses((status = 200, description = "A bearer token for the session"), (status = 401, description = "Wrong username or password, or the account is locked", body = ErrorBody)))]
async fn login(State(state): State<AppState>, Json(body): Json<LoginBody>) -> Result<Json<Value>, Failure> {
    let username = body.username.clone();
    let user = state.call(move |c| c.user(&username)).await?;
    let Some(user) = user else {
        return Err(ApiError::new("unauthenticated", "wrong username or password").into());
    };
    if user.locked {
        return Err(ApiError::new(
            "locked",
            "this account is locked after three failed logins; ask an admin",
        )
        .into());
    }
    let password = body.password.clone();
    let hash = user.password_hash.clone();
    let good = state
        .hash_job(move || password_matches(&password, &hash))
        .await
        .unwrap_or(false);
    let record = if good {
        Request::LoginSucceeded {
            username: user.username.clone(),
        }
    } else {
        state.metrics.logins_failed.fetch_add(1, Ordering::Relaxed);
        Request::LoginFailed {
            username: user.username.clone(),
        }
    };
    // Only a change of the failure count is journaled.
    if !good || user.failures > 0 {
        state.execute(Actor::system(), record).await?;
    }
    if !good {
        // A locked account's sessions end with it.
        let name = user.username.clone();
        if state.call(move |c| c.user(&name).is_some_and(|u| u.locked)).await? {
            state.sessions.retain(|a| a.username != user.username)?;
        }
        return Err(ApiError::new("unauthenticated", "wrong username or password").into());
    }
    let mut token = [0u8; 32];
    croupier_rng::CasinoRng::from_os()
        .and_then(|mut r| r.fill(&mut token))
        .map_err(|e| ApiError::new("internal", e.to_string()))?;
    let token = hex::encode(token);
    let actor = Actor {
        username: user.username.clone(),
        role: user.role,
        licence: body.licence,
    };
    state.sessions.start(&token, actor, now_ms())?;
    Ok(Json(
        json!({"token": token, "username": user.username, "role": user.role}),
    ))
}

#[utoipa::path(post, path = "/api/logout", responses((status = 200, description = "The session is over"), (status = 401, body = ErrorBody)))]
async fn logout(State(state): State<AppState>, headers: HeaderMap) -> Result<Json<Value>, Failure> {
    authenticated(&state, &headers)?;
    if let Some(token) = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
    {
        state.sessions.end(token)?;
    }
    Ok(Json(json!({"ok": true})))
}

#[utoipa::path(get, path = "/api/me", responses((status = 200, description = "Who you are and your accounts' balances"), (status = 401, body = ErrorBody)))]
async fn me(State(state): State<AppState>, headers: HeaderMap) -> Result<Json<Value>, Failure> {
    let actor = authenticated(&state, &headers)?;
    let name = actor.username.clone();
    let balances = state
        .call(move |c| {
            c.ledger()
                .balances()
                .iter()
                .filter(|(a, _)| a.name() == format!("wallet:{name}") || a.name().ends_with(&format!(":{name}")))
                .map(|(a, b)| (a.name().to_string(), *b))
                .collect::<std::collections::BTreeMap<_, _>>()
        })
        .await?;
    Ok(Json(
        json!({"username": actor.username, "role": actor.role, "accounts": balances}),
    ))
}

/// Every write: the body is a request; the casino checks the caller's role.
#[utoipa::path(post, path = "/api/requests", request_body = Request, responses((status = 200, description = "Done and durable: the events it caused that belong to no player, or to you; each player's bets and settlements are on their stream, the staff stream and in recall", body = Events), (status = 401, body = ErrorBody), (status = 403, description = "Your role may not do this", body = ErrorBody), (status = 422, description = "Refused by the rules (past posting, over the limit, unknown spot...)", body = ErrorBody), (status = 503, description = "Could not be made durable; nothing changed", body = ErrorBody)))]
async fn requests(
    State(state): State<AppState>,
    headers: HeaderMap,
    Json(request): Json<Request>,
) -> Result<Json<Events>, Failure> {
    let actor = authenticated(&state, &headers)?;
    let username = actor.username.clone();
    let events = submit(&state, actor, request).await?;
    Ok(Json(Events::answering(&username, events)))
}

/// A write's answer: the events it caused that belong to no player, or to
/// the caller. Each player's own events (a bet placed, settled, returned)
/// go out on that player's stream and the staff's, and are in recall; a
/// round's answer to the dealer carries its result and totals, not a
/// settlement per bet (3,000 bets made a 600 KB answer that no console
/// reads, written while every table's bets waited for the cores).
#[derive(serde::Serialize, utoipa::ToSchema)]
struct Events {
    events: Vec<EventView>,
}

impl Events {
    fn answering(username: &str, mut events: Vec<EventView>) -> Events {
        events.retain(|e| answer_shows(e, username));
        Events { events }
    }
}

/// Whether a write's answer to `username` shows `event` (see [`Events`]).
fn answer_shows(event: &EventView, username: &str) -> bool {
    match event.audience() {
        Some((_, Some(player))) => player == username,
        _ => true,
    }
}

/// Every write, whichever socket it came by: a password is hashed here (the
/// journal keeps only the hash), requests only the server itself makes are
/// refused, and a new wheel table starts following its wheel.
async fn submit(state: &AppState, actor: Actor, request: Request) -> Result<Vec<EventView>, ApiError> {
    // A password arrives as such and is hashed here; the journal keeps only the hash.
    let request = match request {
        Request::CreateUser {
            username,
            role,
            password_hash,
        } => {
            let hash = state
                .hash_job(move || hash_password(&password_hash))
                .await?
                .map_err(|e| ApiError::new("bad_password", e.to_string()))?;
            Request::CreateUser {
                username,
                role,
                password_hash: hash,
            }
        }
        Request::LoginFailed { .. }
        | Request::LoginSucceeded { .. }
        | Request::JournalFormat { .. }
        | Request::VoidRound { .. } => return Err(ApiError::forbidden("send this request", actor.role)),
        other => other,
    };
    let wheel = match &request {
        Request::CreateTable {
            table,
            wheel_address: Some(address),
            ..
        } => Some((table.clone(), address.clone())),
        _ => None,
    };
    let events = state.execute(actor, request).await?;
    if let Some((table, address)) = wheel {
        follow_wheel(state.clone(), table, address);
    }
    Ok(events)
}

/// Seconds between attempts to reach an automated wheel.
pub const WHEEL_RETRY_SECONDS: u64 = 2;

/// A wheel table follows its automated wheel: every finished game closes
/// betting, settles the round on the wheel's result (or its no spin), and
/// opens betting for the next game. Runs on a thread of its own and keeps
/// reconnecting; the first game after the table opens only opens betting.
fn follow_wheel(state: AppState, table: String, address: String) {
    let name = table.clone();
    let spawned = std::thread::Builder::new()
        .name(format!("wheel-{name}"))
        .spawn(move || loop {
            state.wheel_status(&table, |w| address.clone_into(&mut w.address));
            match std::net::TcpStream::connect(&address) {
                Ok(stream) => {
                    state.wheel_status(&table, |w| {
                        w.connected = true;
                        w.last_error = None;
                    });
                    let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(30)));
                    let reader = std::io::BufReader::new(stream);
                    let ended = croupier_wheel::monitor::follow(reader, None, |game| {
                        let st = state.clone();
                        let t = table.clone();
                        st.runtime.clone().block_on(async move {
                            let min_revolutions = st
                                .at_table(&t, |w| w.slot().table.profile().spec().min_ball_revolutions)
                                .await
                                .unwrap_or(0);
                            let report = croupier_wheel::monitor::spin_report(game, min_revolutions);
                            st.wheel_status(&t, |w| {
                                w.games += 1;
                                w.last_result = Some(match &report {
                                    croupier_core::round::SpinReport::Ball { pocket, .. } => pocket.label().to_string(),
                                    croupier_core::round::SpinReport::NoSpin(reason) => {
                                        format!("no spin: {}", reason.name())
                                    }
                                });
                            });
                            let system = Actor::system();
                            // Each step may not apply (no round yet, table closed): that is fine.
                            let _ = st
                                .execute(system.clone(), Request::NoMoreBets { table: t.clone() })
                                .await;
                            let spun = st
                                .execute(
                                    system.clone(),
                                    Request::Spin {
                                        table: t.clone(),
                                        spin: SpinView::from_report(report),
                                    },
                                )
                                .await;
                            let settled = match &spun {
                                Ok(events) => events.iter().any(|e| matches!(e, EventView::RoundSettled { .. })),
                                Err(_) => true,
                            };
                            if settled {
                                let _ = st.execute(system, Request::OpenBetting { table: t }).await;
                            }
                        });
                        Ok(())
                    });
                    state.wheel_status(&table, |w| {
                        w.connected = false;
                        w.last_error = Some(match ended {
                            Ok(_) => "the wheel closed the connection".to_string(),
                            Err(e) => e.to_string(),
                        });
                    });
                }
                Err(e) => {
                    eprintln!("croupier: wheel for {table} at {address}: {e}; retrying");
                    state.wheel_status(&table, |w| {
                        w.connected = false;
                        w.last_error = Some(e.to_string());
                    });
                }
            }
            std::thread::sleep(std::time::Duration::from_secs(WHEEL_RETRY_SECONDS));
        });
    if let Err(e) = spawned {
        eprintln!("croupier: cannot follow the wheel for {name}: {e}");
    }
}

/// The RNG's outcome for a table, drawn only after no more bets.
#[utoipa::path(post, path = "/api/tables/{table}/draw", params(("table" = String, Path, description = "Table id")), responses((status = 200, description = "The RNG outcome and the round's totals; each bet's settlement is on its player's stream, the staff stream and in recall", body = Events), (status = 422, description = "Not after no more bets, or not an RNG table", body = ErrorBody)))]
async fn draw(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(table): Path<String>,
) -> Result<Json<Events>, Failure> {
    let actor = authenticated(&state, &headers)?;
    if !matches!(actor.role, Role::Dealer | Role::PitSupervisor | Role::Admin) {
        return Err(ApiError::forbidden("spin", actor.role).into());
    }
    let username = actor.username.clone();
    // The draw and its settlement are one job: nothing runs between them.
    let events = state
        .execute_built(actor, table.clone(), move |slot| {
            if slot.outcome != OutcomeSource::Rng {
                return Err(ApiError::new(
                    "not_rng",
                    "this table's outcomes do not come from the RNG",
                ));
            }
            let mut rng = croupier_rng::CasinoRng::from_os().map_err(|e| ApiError::new("internal", e.to_string()))?;
            let spin = croupier_rng::rng_spin(&mut rng, &slot.table)
                .map(SpinView::from_report)
                .map_err(|e| ApiError::new("not_now", e.to_string()))?;
            Ok(Request::Spin { table, spin })
        })
        .await?;
    Ok(Json(Events::answering(&username, events)))
}

#[utoipa::path(get, path = "/api/tables", responses((status = 200, description = "Every table: profile, wheel, phase, last numbers, colours")))]
async fn tables(State(state): State<AppState>, headers: HeaderMap) -> Result<Json<Value>, Failure> {
    authenticated(&state, &headers)?;
    let list = state
        .every_table(|w| {
            let s = w.slot();
                json!({
                        "table": s.id,
                        "profile": s.profile_name,
                        "wheel": s.table.config().wheel.name(),
                        "outcome": s.outcome,
                        "phase": format!("{:?}", s.table.phase()),
                        "round": s.table.round(),
                        "last_pockets": s.table.last_pockets().iter().rev().take(16).map(|p| p.label()).collect::<Vec<_>>(),
                        "colours": s.colours.iter().map(|(p, (c, v))| json!({"player": p, "colour": c, "chip_value": v})).collect::<Vec<_>>(),
            })
        })
        .await;
    Ok(Json(json!({ "tables": list })))
}

#[derive(Deserialize)]
struct Last {
    last: Option<usize>,
}

#[utoipa::path(get, path = "/api/tables/{table}/rounds", params(("table" = String, Path, description = "Table id"), ("last" = Option<usize>, Query, description = "How many rounds, newest first (10; at most 100)")), responses((status = 200, description = "Game recall for the table")))]
async fn table_rounds(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(table): Path<String>,
    Query(q): Query<Last>,
) -> Result<Json<Value>, Failure> {
    let actor = authenticated(&state, &headers)?;
    let n = q.last.unwrap_or(10).min(RECALL_MAX);
    let rounds = state
        .at_table(&table.clone(), move |w| {
            w.slot()
                .recall(n)
                .into_iter()
                .map(|r| {
                    let mut v = serde_json::to_value(r).unwrap_or(Value::Null);
                    // A player sees only their own bets and balances.
                    if actor.role == Role::Player {
                        redact(&mut v, &actor.username);
                    }
                    v
                })
                .collect::<Vec<_>>()
        })
        .await?;
    Ok(Json(json!({ "rounds": rounds })))
}

fn redact(round: &mut Value, player: &str) {
    if let Some(bets) = round.get_mut("bets").and_then(Value::as_array_mut) {
        bets.retain(|b| b.get("player").and_then(Value::as_str) == Some(player));
    }
    for key in ["chips_before", "chips_after"] {
        if let Some(map) = round.get_mut(key).and_then(Value::as_object_mut) {
            map.retain(|k, _| k == player);
        }
    }
}

#[utoipa::path(get, path = "/api/players/{player}/rounds", params(("player" = String, Path, description = "Player username"), ("last" = Option<usize>, Query, description = "How many rounds")), responses((status = 200, description = "Game recall for the player"), (status = 403, body = ErrorBody)))]
async fn player_rounds(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(player): Path<String>,
    Query(q): Query<Last>,
) -> Result<Json<Value>, Failure> {
    let actor = authenticated(&state, &headers)?;
    if actor.role == Role::Player && actor.username != player {
        return Err(ApiError::forbidden("see another player's rounds", actor.role).into());
    }
    let n = q.last.unwrap_or(10).min(RECALL_MAX);
    // Each table gives its newest `n` of the player's rounds, and the archive its
    // newest `n` over all tables (played long ago, or kept in memory too); the
    // newest `n` of those are shown.
    let asked = player.clone();
    let archived = state.archived(move |a| a.player(&asked, n)).await?;
    let shown = player.clone();
    let mut rounds: Vec<(u64, String, Value)> = state
        .every_table(move |w| {
            w.slot()
                .recall_player(&shown, n)
                .into_iter()
                .map(|r| {
                    (
                        r.opened_at_ms,
                        r.id.clone(),
                        serde_json::to_value(r).unwrap_or(Value::Null),
                    )
                })
                .collect::<Vec<_>>()
        })
        .await
        .into_iter()
        .flatten()
        .collect();
    let kept: HashSet<String> = rounds.iter().map(|(_, id, _)| id.clone()).collect();
    rounds.extend(archived.into_iter().filter(|r| !kept.contains(&r.id)).map(|r| {
        (
            r.opened_at_ms,
            r.id.clone(),
            serde_json::to_value(&r).unwrap_or(Value::Null),
        )
    }));
    rounds.sort_by_key(|(at, _, _)| std::cmp::Reverse(*at));
    rounds.truncate(n);
    let rounds: Vec<Value> = rounds
        .into_iter()
        .map(|(_, _, mut v)| {
            redact(&mut v, &player);
            v
        })
        .collect();
    Ok(Json(json!({ "rounds": rounds })))
}

#[utoipa::path(get, path = "/api/rounds/{table}/{round}", params(("table" = String, Path, description = "Table id"), ("round" = u64, Path, description = "Round number")), responses((status = 200, description = "One round: bets, outcome, settlements, balances before and after"), (status = 404, body = ErrorBody)))]
async fn round(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path((table, round)): Path<(String, u64)>,
) -> Result<Json<Value>, Failure> {
    let actor = authenticated(&state, &headers)?;
    let id = format!("{table}/{round}");
    let found = match state
        .at_table(&table.clone(), move |w| {
            w.slot()
                .round(&id)
                .map(|r| serde_json::to_value(r).unwrap_or(Value::Null))
        })
        .await
    {
        Err(e) if e.code == "no_table" => None,
        other => other?,
    };
    // Older than the rounds the table keeps: from the archive.
    let found = match found {
        Some(v) => Some(v),
        None => state
            .archived(move |a| a.round(&table, round))
            .await?
            .map(|r| serde_json::to_value(&r).unwrap_or(Value::Null)),
    };
    let mut v = found.ok_or_else(|| Failure::from(ApiError::new("no_round", "no such round")))?;
    if actor.role == Role::Player {
        redact(&mut v, &actor.username);
    }
    Ok(Json(v))
}

#[derive(Deserialize)]
struct StreamQuery {
    token: Option<String>,
}

/// A table's events as they happen. A player's socket (`?token=`) gets the
/// table's public events and that player's own bets; staff get everything;
/// a socket without a token (a number display board) gets the public events.
#[utoipa::path(get, path = "/api/tables/{table}/stream", params(("table" = String, Path, description = "Table id"), ("token" = Option<String>, Query, description = "A session token: a player's socket carries that player's own bets")), responses((status = 101, description = "A WebSocket of the table's events as JSON", body = EventView)))]
async fn stream(
    State(state): State<AppState>,
    Path(table): Path<String>,
    Query(q): Query<StreamQuery>,
    ws: WebSocketUpgrade,
) -> Result<Response, Failure> {
    // The session's key is worked out once for the socket: each request over it looks it up again.
    let session = q.token.as_deref().map(Sessions::key);
    let viewer = match &session {
        None => None,
        Some(key) => Some(
            state
                .sessions
                .get_by_key(key)
                .ok_or_else(|| Failure::from(ApiError::new("unauthenticated", "the session is unknown or over")))?,
        ),
    };
    let mut keys = subscribe_keys(&table, viewer.as_ref()).into_iter();
    let first = state.events.subscribe(keys.next().unwrap_or_default());
    let second = keys.next().map(|key| state.events.subscribe(key));
    Ok(ws
        .max_message_size(BODY_MAX_BYTES)
        // Each read zeroes this much of the buffer first: terminals send small frames.
        .read_buffer_size(SOCKET_READ_BUFFER_BYTES)
        .on_upgrade(move |socket| forward(state, session, socket, first, second)))
}

/// A table stream's read buffer. tungstenite's default (128 KiB) is zeroed on
/// every read, which cost a fifth of the server's time under load.
pub const SOCKET_READ_BUFFER_BYTES: usize = 4 * 1024;

/// Requests a socket may have in flight before it is told to wait.
pub const SOCKET_REQUESTS_IN_FLIGHT_MAX: usize = 256;

/// A request sent over a table stream: `ref` is the client's, echoed in the reply.
#[derive(Deserialize)]
struct SocketRequest {
    #[serde(rename = "ref")]
    reference: String,
    request: Request,
}

/// A bet sent over a table stream, read without the general request's
/// buffering; it takes exactly what [`SocketRequest`] takes for a bet.
#[derive(Deserialize)]
struct SocketBet {
    #[serde(rename = "ref")]
    reference: String,
    request: BetBody,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BetBody {
    op: BetOp,
    table: String,
    bet_id: String,
    spot: String,
    stake: u64,
    #[serde(default)]
    zero_choice: Option<String>,
    #[serde(default)]
    coupon: Option<u64>,
}

/// The only `op` a [`BetBody`] takes.
#[derive(Deserialize)]
enum BetOp {
    #[serde(rename = "place_bet")]
    PlaceBet,
}

impl From<SocketBet> for SocketRequest {
    fn from(bet: SocketBet) -> SocketRequest {
        let BetBody {
            op: BetOp::PlaceBet,
            table,
            bet_id,
            spot,
            stake,
            zero_choice,
            coupon,
        } = bet.request;
        SocketRequest {
            reference: bet.reference,
            request: Request::PlaceBet {
                table,
                bet_id,
                spot,
                stake,
                zero_choice,
                coupon,
            },
        }
    }
}

/// The answer to a socket request, once durable (or refused): `ok`, or the
/// refusal's code and sentence. The events it caused go out on the streams,
/// this socket's included, as every other request's do.
fn socket_reply(reference: &str, result: Result<Vec<EventView>, ApiError>) -> String {
    /// `type` comes first, so a client can tell a reply from an event by its first bytes.
    #[derive(serde::Serialize)]
    struct Reply<'a> {
        #[serde(rename = "type")]
        kind: &'static str,
        #[serde(rename = "ref")]
        reference: &'a str,
        ok: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<&'static str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    }
    let reply = match result {
        Ok(_) => Reply {
            kind: "reply",
            reference,
            ok: true,
            error: None,
            message: None,
        },
        Err(e) => Reply {
            kind: "reply",
            reference,
            ok: false,
            error: Some(e.code),
            message: Some(e.message),
        },
    };
    serde_json::to_string(&reply).unwrap_or_default()
}

/// The channels an event about `player` (None: a public event) at `table` goes to,
/// written over `keys`, so that publishing allocates no key.
fn publish_keys(table: &str, player: Option<&str>, keys: &mut [String; 2]) {
    let [all, own] = keys;
    all.clear();
    all.push_str("all:");
    all.push_str(table);
    own.clear();
    match player {
        Some(p) => {
            own.push_str("player:");
            own.push_str(table);
            own.push(':');
            own.push_str(p);
        }
        None => {
            own.push_str("public:");
            own.push_str(table);
        }
    }
}

/// The channels a viewer's socket listens to: staff everything, a player the
/// public events and their own, a display board (no viewer) the public ones.
fn subscribe_keys(table: &str, viewer: Option<&Actor>) -> Vec<String> {
    match viewer {
        Some(a) if a.role != Role::Player => vec![format!("all:{table}")],
        Some(a) => vec![format!("public:{table}"), format!("player:{table}:{}", a.username)],
        None => vec![format!("public:{table}")],
    }
}

/// Messages written to a socket with one flush: whatever else is already
/// waiting (a reply and its event, a round's settlements) goes out together.
pub const SOCKET_BATCH_MAX: usize = 64;

/// What a socket that fell behind its table's stream is told instead of the events it lost.
fn missed_notice(missed: u64) -> Utf8Bytes {
    Utf8Bytes::from(json!({"type": "missed", "events": missed}).to_string())
}

/// A table channel's next message, waited for by one future that keeps its
/// place in the channel's list of waiters from one pass of a socket's loop to
/// the next: a `recv` made afresh on every pass (every bet and every reply)
/// joined that list and left it again each time, under the channel's lock.
/// It hands the receiver back with the message, for the wait after it.
type NextEvent = std::pin::Pin<
    Box<
        dyn std::future::Future<
                Output = (
                    Result<Utf8Bytes, broadcast::error::RecvError>,
                    broadcast::Receiver<Utf8Bytes>,
                ),
            > + Send,
    >,
>;

fn next_event(mut rx: broadcast::Receiver<Utf8Bytes>) -> NextEvent {
    Box::pin(async move {
        let received = rx.recv().await;
        (received, rx)
    })
}

/// Set by the channel when it wakes a socket's wait, before it wakes the socket's task.
struct Woken {
    flag: AtomicBool,
    task: std::task::Waker,
}

impl std::task::Wake for Woken {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.flag.store(true, Ordering::SeqCst);
        self.task.wake_by_ref();
    }
}

/// A socket's place in one of its table's channels. Each pass of the
/// socket's loop polls only the channels that may have a message: a poll
/// that finds none takes the channel's lock, and `public:T` is shared by
/// every socket at the table, so polling both channels on every pass (every
/// bet and every reply) cost more than their messages did. A channel that
/// answered "nothing yet" is polled again once it has woken the socket.
struct Following {
    wait: NextEvent,
    /// The waker the wait is registered with: the task's, behind a flag.
    woken: Option<(Arc<Woken>, std::task::Waker)>,
    /// The last poll found nothing, and the channel has not woken the wait since.
    quiet: bool,
}

impl Following {
    fn new(rx: broadcast::Receiver<Utf8Bytes>) -> Following {
        Following {
            wait: next_event(rx),
            woken: None,
            quiet: false,
        }
    }

    /// The channel's next message for the socket (a lag becomes a `missed`
    /// notice), or `Ready(None)` once the channel has closed, which it says
    /// again when next asked. A channel that had nothing last time and has
    /// not woken the task since is not polled: `Pending` at once, and the
    /// channel's wake, registered by that last poll, wakes the task. (It
    /// cannot be a `select!` precondition, which is read once per `select!`:
    /// a quiet channel's branch would stay off when the channel woke it.)
    fn poll_event(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<Option<Utf8Bytes>> {
        use std::task::Poll;
        let (woken, waker) = match &mut self.woken {
            Some((w, waker)) if w.task.will_wake(cx.waker()) => {
                if self.quiet && !w.flag.load(Ordering::SeqCst) {
                    return Poll::Pending;
                }
                (&*w, &*waker)
            }
            slot => {
                let w = Arc::new(Woken {
                    flag: AtomicBool::new(false),
                    task: cx.waker().clone(),
                });
                let waker = std::task::Waker::from(w.clone());
                let (w, waker) = slot.insert((w, waker));
                (&*w, &*waker)
            }
        };
        // Cleared before the poll: a message sent after it either is seen
        // by the poll or wakes the wait it registers.
        woken.flag.store(false, Ordering::SeqCst);
        let polled = self.wait.as_mut().poll(&mut std::task::Context::from_waker(waker));
        let Poll::Ready((received, rx)) = polled else {
            self.quiet = true;
            return Poll::Pending;
        };
        self.quiet = false;
        self.wait = next_event(rx);
        Poll::Ready(match received {
            Ok(text) => Some(text),
            Err(broadcast::error::RecvError::Lagged(missed)) => Some(missed_notice(missed)),
            Err(broadcast::error::RecvError::Closed) => None,
        })
    }
}

/// A channel's message that is already waiting, if any, without waiting.
async fn waiting(following: &mut Following) -> Option<Utf8Bytes> {
    std::future::poll_fn(|cx| match following.poll_event(cx) {
        std::task::Poll::Ready(text) => std::task::Poll::Ready(text),
        std::task::Poll::Pending => std::task::Poll::Ready(None),
    })
    .await
}

async fn forward(
    state: AppState,
    session: Option<SessionKey>,
    mut socket: WebSocket,
    first: broadcast::Receiver<Utf8Bytes>,
    second: Option<broadcast::Receiver<Utf8Bytes>>,
) {
    use futures_util::SinkExt;
    // A terminal may also send requests on its socket: a bet goes to its
    // table's writer, any other request runs as its own task, and the outcome
    // comes back through this queue, between the table's events.
    let (replies, mut replied) = tokio::sync::mpsc::channel::<Back>(SOCKET_REQUESTS_IN_FLIGHT_MAX);
    let in_flight = Arc::new(tokio::sync::Semaphore::new(SOCKET_REQUESTS_IN_FLIGHT_MAX));
    let mut first = Following::new(first);
    let mut second = second.map(Following::new);
    loop {
        // An event's text is shared by every socket that sends it, not copied.
        let outgoing: Utf8Bytes = tokio::select! {
            text = std::future::poll_fn(|cx| first.poll_event(cx)) => match text {
                Some(text) => text,
                None => break,
            },
            text = std::future::poll_fn(|cx| match second.as_mut() {
                Some(own) => own.poll_event(cx),
                None => std::task::Poll::Pending,
            }) => match text {
                Some(text) => text,
                None => break,
            },
            Some(back) = replied.recv() => state.answered(back),
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Text(text))) => {
                    let Some(reply) = take_request(&state, session.as_ref(), &text, &replies, &in_flight) else {
                        continue;
                    };
                    Utf8Bytes::from(reply)
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                Some(Ok(_)) => continue,
            },
        };
        if socket.feed(Message::Text(outgoing)).await.is_err() {
            break;
        }
        // Each channel stays in order; a write per message would cost a system call each.
        let mut batched = 1;
        while batched < SOCKET_BATCH_MAX {
            let mut next = waiting(&mut first).await;
            if next.is_none() {
                if let Some(own) = second.as_mut() {
                    next = waiting(own).await;
                }
            }
            let next = next.or_else(|| replied.try_recv().ok().map(|back| state.answered(back)));
            let Some(text) = next else { break };
            if socket.feed(Message::Text(text)).await.is_err() {
                return;
            }
            batched += 1;
        }
        if socket.flush().await.is_err() {
            break;
        }
    }
}

/// Starts a request that came over a socket; returns a reply to send at once
/// when it cannot start (not signed in, not a request, too many in flight).
fn take_request(
    state: &AppState,
    session: Option<&SessionKey>,
    text: &str,
    replies: &tokio::sync::mpsc::Sender<Back>,
    in_flight: &Arc<tokio::sync::Semaphore>,
) -> Option<String> {
    // Most of what a terminal sends is a bet: read as one directly, a bet
    // skips the buffering a request tagged by its `op` costs; anything else
    // (or a bet that does not parse) takes the general way, with its errors.
    let parsed: Result<SocketRequest, _> = match serde_json::from_str::<SocketBet>(text) {
        Ok(bet) => Ok(bet.into()),
        Err(_) => serde_json::from_str(text),
    };
    // Only a request that does not parse needs a second look for its ref.
    let reference = match &parsed {
        Ok(r) => r.reference.clone(),
        Err(_) => serde_json::from_str::<Value>(text)
            .ok()
            .and_then(|v| v.get("ref").and_then(Value::as_str).map(str::to_string))
            .unwrap_or_default(),
    };
    // The session is looked up for every request: signing out stops the socket's requests too.
    let actor = session.and_then(|key| state.sessions.get_by_key(key));
    let Some(actor) = actor else {
        let e = ApiError::new(
            "unauthenticated",
            "open the stream with ?token= of a current session to send requests",
        );
        return Some(socket_reply(&reference, Err(e)));
    };
    let request = match parsed {
        Ok(r) => r,
        Err(e) => {
            let e = ApiError::new(
                "bad_request",
                format!("expected {{\"ref\": ..., \"request\": {{\"op\": ...}}}}: {e}"),
            );
            return Some(socket_reply(&reference, Err(e)));
        }
    };
    let Ok(permit) = in_flight.clone().try_acquire_owned() else {
        let e = ApiError::new(
            "busy",
            format!("at most {SOCKET_REQUESTS_IN_FLIGHT_MAX} requests in flight per socket; wait for replies"),
        );
        return Some(socket_reply(&request.reference, Err(e)));
    };
    let request = match request.request {
        Request::PlaceBet { .. } => return bet_at_table(state, actor, request, replies, permit),
        _ => request,
    };
    let (state, replies) = (state.clone(), replies.clone());
    tokio::spawn(async move {
        let result = submit(&state, actor, request.request).await;
        let _ = replies
            .send(Back::Reply(socket_reply(&request.reference, result)))
            .await;
        drop(permit);
    });
    None
}

/// What comes back to a socket for one of its requests.
enum Back {
    /// The reply, ready to send.
    Reply(String),
    /// A bet that its table has executed, once durable (or lost): its events
    /// go out on the streams, then its reply. The permit keeps its place
    /// among the socket's requests in flight until then.
    Bet {
        reference: String,
        result: Result<Executed, ApiError>,
        permit: tokio::sync::OwnedSemaphorePermit,
    },
}

impl AppState {
    /// The text a socket sends for what came back to it.
    fn answered(&self, back: Back) -> Utf8Bytes {
        match back {
            Back::Reply(text) => Utf8Bytes::from(text),
            Back::Bet {
                reference,
                result,
                permit,
            } => {
                let result = self.executed(result);
                drop(permit);
                Utf8Bytes::from(socket_reply(&reference, result))
            }
        }
    }
}

/// Hands a bet from a socket straight to its table's writer: the writer's
/// answer, once durable, comes back through the socket's queue. Most of what
/// terminals send is bets, and a task of its own for each (spawned, woken by
/// the answer, then waking the socket) cost more than the bet's own checks.
/// A bet waits here only when the table's queue is full.
fn bet_at_table(
    state: &AppState,
    actor: Actor,
    request: SocketRequest,
    replies: &tokio::sync::mpsc::Sender<Back>,
    permit: tokio::sync::OwnedSemaphorePermit,
) -> Option<String> {
    let SocketRequest { reference, request } = request;
    let Some(jobs) = request.table().and_then(|table| state.tables.jobs(table)) else {
        let e = ApiError::new(
            "no_table",
            format!("no table {:?}", request.table().unwrap_or_default()),
        );
        return Some(socket_reply(&reference, Err(e)));
    };
    state.metrics.requests.fetch_add(1, Ordering::Relaxed);
    let shown = reference.clone();
    let back = replies.clone();
    let (channels, metrics) = (state.events.clone(), state.metrics.clone());
    let job = delivering(
        move |w: &mut TableWriter| w.execute_rendered(now_ms(), &actor, request),
        move |answer: Result<Result<Executed, ApiError>, ApiError>| {
            let bet = Back::Bet {
                reference,
                result: answer.and_then(|result| result),
                permit,
            };
            // The queue holds as many as the permits in flight, so only a
            // socket that has closed refuses: the bet's events go out all the same.
            if let Err(unsent) = back.try_send(bet) {
                match unsent.into_inner() {
                    Back::Bet { result: Ok(e), .. } => channels.publish(&metrics, &e.views, &e.texts),
                    _ => {
                        metrics.refused.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        },
    );
    let stopped = || ApiError::new("unavailable", "the casino has stopped");
    match jobs.try_send(job) {
        Ok(()) => None,
        Err(tokio::sync::mpsc::error::TrySendError::Full(job)) => {
            let replies = replies.clone();
            tokio::spawn(async move {
                if jobs.send(job).await.is_err() {
                    let _ = replies.send(Back::Reply(socket_reply(&shown, Err(stopped())))).await;
                }
            });
            None
        }
        Err(tokio::sync::mpsc::error::TrySendError::Closed(_)) => Some(socket_reply(&shown, Err(stopped()))),
    }
}

/// The tables' ids, for a display board (no sign-in: nothing private).
#[utoipa::path(get, path = "/api/public/tables", responses((status = 200, description = "The tables' ids")))]
async fn public_tables(State(state): State<AppState>) -> Result<Json<Value>, Failure> {
    let ids = state.tables.ids();
    Ok(Json(json!({ "tables": ids })))
}

/// What a display board shows of a table: its state and last numbers, nothing about players.
#[utoipa::path(get, path = "/api/public/tables/{table}", params(("table" = String, Path, description = "Table id")), responses((status = 200, description = "Phase, round, last numbers, display length"), (status = 404, body = ErrorBody)))]
async fn public_table(State(state): State<AppState>, Path(table): Path<String>) -> Result<Json<Value>, Failure> {
    let view = state
        .at_table(&table, |w| {
            let s = w.slot();
            {
                let phase = s.table.phase();
                let code = phase_code(phase);
                let text = match phase {
                    croupier_core::round::Phase::Closed => "Table closed",
                    croupier_core::round::Phase::Open => "Waiting for the next round",
                    croupier_core::round::Phase::BettingOpen { .. } => "Place your bets",
                    croupier_core::round::Phase::NoMoreBets => "No more bets",
                };
                let wheel = s.table.config().wheel;
                json!({
                    "table": s.id,
                    "profile": s.profile_name,
                    "wheel": wheel.description(),
                    "wheel_pockets": wheel.bettable().iter().map(|p| p.label()).collect::<Vec<_>>(),
                    "round": s.table.round(),
                    "phase": code,
                    "deadline_ms": match phase {
                        croupier_core::round::Phase::BettingOpen { deadline_ms } => Some(deadline_ms),
                        _ => None,
                    },
                    "phase_text": text,
                    "display_length": s.table.profile().spec().number_display_length.unwrap_or(16),
                    "last_pockets": s.table.last_pockets().iter().rev().map(|p| p.label()).collect::<Vec<_>>(),
                })
            }
        })
        .await?;
    Ok(Json(view))
}

/// A table's phase as the pages and the display board name it.
fn phase_code(phase: croupier_core::round::Phase) -> &'static str {
    match phase {
        croupier_core::round::Phase::Closed => "closed",
        croupier_core::round::Phase::Open => "open",
        croupier_core::round::Phase::BettingOpen { .. } => "betting",
        croupier_core::round::Phase::NoMoreBets => "closed-betting",
    }
}

#[utoipa::path(get, path = "/healthz", responses((status = 200, description = "The server is up", body = String)))]
async fn healthz() -> &'static str {
    "ok"
}

#[utoipa::path(get, path = "/metrics", responses((status = 200, description = "Counters and the journal's flush times in the Prometheus text format", body = String)))]
async fn metrics(State(state): State<AppState>) -> String {
    let m = &state.metrics;
    let counters = format!(
        "# TYPE croupier_requests_total counter\ncroupier_requests_total {}\n# TYPE croupier_requests_refused_total counter\ncroupier_requests_refused_total {}\n# TYPE croupier_bets_accepted_total counter\ncroupier_bets_accepted_total {}\n# TYPE croupier_rounds_settled_total counter\ncroupier_rounds_settled_total {}\n# TYPE croupier_logins_failed_total counter\ncroupier_logins_failed_total {}\n",
        m.requests.load(Ordering::Relaxed),
        m.refused.load(Ordering::Relaxed),
        m.bets_accepted.load(Ordering::Relaxed),
        m.rounds_settled.load(Ordering::Relaxed),
        m.logins_failed.load(Ordering::Relaxed),
    );
    counters + &state.flushes.prometheus()
}

pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/", get(pages::index))
        .route("/board", get(pages::board))
        .route("/terminal", get(pages::terminal))
        .route("/dealer", get(pages::dealer))
        .route("/pit", get(pages::pit))
        .route("/static/common.css", get(pages::common_css))
        .route("/static/common.js", get(pages::common_js))
        .route("/api/public/tables", get(public_tables))
        .route("/api/public/tables/{table}", get(public_table))
        .route("/api/public/tables/{table}/layout", get(pages::layout))
        .route("/api/tables/{table}/log", get(pages::log))
        .route("/api/tables/{table}/bets", get(pages::bets))
        .route("/api/tables/{table}/report", get(pages::report))
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .route("/api/openapi.json", get(openapi))
        .route("/api/login", post(login))
        .route("/api/logout", post(logout))
        .route("/api/me", get(me))
        .route("/api/requests", post(requests))
        .route("/api/tables", get(tables))
        .route("/api/tables/{table}/draw", post(draw))
        .route("/api/tables/{table}/rounds", get(table_rounds))
        .route("/api/tables/{table}/stream", get(stream))
        .route("/api/rounds/{table}/{round}", get(round))
        .route("/api/players/{player}/rounds", get(player_rounds))
        .layer(axum::extract::DefaultBodyLimit::max(BODY_MAX_BYTES))
        .with_state(state)
}

/// What `serve` reports once it is listening.
pub struct Started {
    pub address: SocketAddr,
    /// The admin made on a first run, and its one-time password.
    pub admin_password: Option<(String, String)>,
    pub recovered: Vec<EventView>,
}

/// Takes the data directory for this process alone: one writer per journal.
/// The lock lasts as long as the returned file is open.
pub fn lock_data(data: &std::path::Path) -> Result<std::fs::File, String> {
    std::fs::create_dir_all(data).map_err(|e| format!("cannot create {}: {e}", data.display()))?;
    let path = data.join("croupier.lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    file.try_lock().map_err(|_| {
        format!(
            "{} is in use by another croupier process (a running server?)",
            data.display()
        )
    })?;
    Ok(file)
}

/// Opens the data directory, recovers, and serves until the process ends.
pub async fn serve(data: PathBuf, listen: SocketAddr, on_start: impl FnOnce(&Started)) -> Result<(), String> {
    let _lock = lock_data(&data)?;
    let mut storage = SqliteStorage::open(&data).map_err(|e| format!("cannot open {}: {e}", data.display()))?;
    // The writer commits; copying the log into the database happens beside it,
    // at low priority: it is no answer's work.
    storage
        .checkpoint_in_background(
            &data,
            std::time::Duration::from_millis(CHECKPOINT_EVERY_MS),
            crate::writers::lower_this_threads_priority,
        )
        .map_err(|e| format!("cannot open {}: {e}", data.display()))?;
    let (pipeline, committer) = Committer::start_spaced(
        storage,
        std::time::Duration::from_micros(crate::committer::COMMIT_SPACING_US),
    )
    .map_err(|e| format!("cannot open {}: {e}", data.display()))?;
    let archive = Arc::new(Archive::open(&data)?);
    let archiver = Archiver::start(archive.clone())?;
    // Finished rounds the archive lacks (a power cut, a failed write) are archived again.
    let (mut casino, recovered) =
        Casino::open_archiving(pipeline, now_ms(), &mut |r| archiver.offer(r)).map_err(|e| e.to_string())?;
    let admin_password = first_run(&mut casino)?;
    // Sessions from before a restart carry on, unless their account is gone,
    // locked, or holds another role now.
    let sessions = Sessions::open(&data)?;
    sessions
        .retain(|a| casino.user(&a.username).is_some_and(|u| !u.locked && u.role == a.role))
        .map_err(|e| e.to_string())?;
    // Wheel tables follow their wheels from the start.
    let wheels: Vec<(String, String)> = casino
        .tables()
        .filter_map(|s| s.wheel_address.clone().map(|a| (s.id.clone(), a)))
        .collect();
    let flushes = committer.flush_times();
    let (cage, tables) = crate::writers::start(casino, committer, tokio::runtime::Handle::current(), archiver)?;
    let events = Arc::new(Channels::default());
    let state = AppState {
        runtime: tokio::runtime::Handle::current(),
        cage,
        tables,
        sessions: Arc::new(sessions),
        events,
        metrics: Arc::new(Metrics::default()),
        flushes,
        wheels: Arc::new(Mutex::new(HashMap::new())),
        hashing: Arc::new(tokio::sync::Semaphore::new(
            std::thread::available_parallelism().map_or(2, |n| n.get()),
        )),
        archive,
    };
    for (table, address) in wheels {
        follow_wheel(state.clone(), table, address);
    }
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    on_start(&Started {
        address,
        admin_password,
        recovered,
    });
    // Small messages (a bet, its reply, a settlement) go out at once, not after
    // Nagle's algorithm waits on the peer's delayed acknowledgement (about 40 ms).
    use axum::serve::ListenerExt;
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            eprintln!("croupier: cannot set TCP_NODELAY: {e}");
        }
    });
    axum::serve(listener, router(state)).await.map_err(|e| e.to_string())
}

/// With no admin yet: an admin with a one-time password; with no tables yet:
/// two tables to play on.
fn first_run(casino: &mut Casino<Pipeline>) -> Result<Option<(String, String)>, String> {
    let system = Actor::system();
    let at = now_ms();
    let run = |casino: &mut Casino<Pipeline>, r: Request| {
        casino.execute(at, &system, r).map(|_| ()).map_err(|e| e.to_string())
    };
    let mut admin_password = None;
    if !casino.users().iter().any(|u| u.role == Role::Admin) {
        let mut secret = [0u8; 12];
        croupier_rng::CasinoRng::from_os()
            .and_then(|mut r| r.fill(&mut secret))
            .map_err(|e| e.to_string())?;
        let password = hex::encode(secret);
        let hash = hash_password(&password).map_err(|e| e.to_string())?;
        let username = if casino.user("admin").is_some() {
            "admin2"
        } else {
            "admin"
        };
        run(
            casino,
            Request::CreateUser {
                username: username.into(),
                role: Role::Admin,
                password_hash: hash,
            },
        )?;
        admin_password = Some((username.to_string(), password));
    }
    if casino.tables().next().is_none() {
        for (table, profile, wheel, outcome) in [
            ("t1", "maryland", "double-zero", OutcomeSource::Rng),
            ("t2", "european-casino", "single-zero", OutcomeSource::Dealer),
        ] {
            let profile_text = croupier_profiles::builtin_text(profile)
                .ok_or("shipped profile missing")?
                .to_string();
            run(
                casino,
                Request::CreateTable {
                    table: table.into(),
                    profile_text,
                    wheel: wheel.into(),
                    in_prison: false,
                    betting_window_ms: 30_000,
                    outcome,
                    shared_colours: false,
                    wheel_address: None,
                },
            )?;
        }
    }
    Ok(admin_password)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn who(name: &str, role: Role) -> Actor {
        Actor::named(name, role)
    }

    /// A socket's loop polls a channel only once the channel has woken it
    /// (`Following`), and still takes every message once and in order. First
    /// one task publishes while another wakes the loop all the time, as
    /// replies do, and the loop drains the channel between wakes as a socket
    /// does; then the other task stops and the channel alone wakes the loop,
    /// as at a display board or a terminal that is not betting. A wake-up
    /// missed stalls the loop, which the time limit turns into a failure.
    #[test]
    fn a_socket_following_its_channel_takes_every_message_once_in_order() {
        const BUSY: u64 = 20_000;
        const IDLE: u64 = 50;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async {
            let (tx, rx) = broadcast::channel::<Utf8Bytes>((BUSY + IDLE) as usize);
            let (ping_tx, mut pings) = tokio::sync::mpsc::channel::<()>(64);
            let (busy_done, pings_stop) = tokio::sync::oneshot::channel::<()>();
            let (pings_stopped, idle_start) = tokio::sync::oneshot::channel::<()>();
            let publisher = tokio::spawn(async move {
                for i in 0..BUSY {
                    let _ = tx.send(Utf8Bytes::from(i.to_string()));
                    if i % 7 == 0 {
                        tokio::task::yield_now().await;
                    }
                }
                let _ = busy_done.send(());
                let _ = idle_start.await;
                for i in BUSY..BUSY + IDLE {
                    tokio::time::sleep(std::time::Duration::from_millis(2)).await;
                    let _ = tx.send(Utf8Bytes::from(i.to_string()));
                }
                // Dropping the sender closes the channel: the loop's end.
            });
            let pinger = tokio::spawn(async move {
                let mut stop = pings_stop;
                loop {
                    tokio::select! {
                        _ = &mut stop => break,
                        sent = ping_tx.send(()) => if sent.is_err() { break },
                    }
                    tokio::task::yield_now().await;
                }
                drop(ping_tx);
                let _ = pings_stopped.send(());
            });
            let mut following = Following::new(rx);
            let taken = tokio::time::timeout(std::time::Duration::from_secs(60), async {
                let mut taken = 0u64;
                let mut take = |text: Utf8Bytes| {
                    assert_eq!(text.as_str(), taken.to_string(), "a message out of order or twice");
                    taken += 1;
                };
                // As a socket's loop: wait for the channel or a wake from
                // elsewhere, then send what is already waiting with it.
                loop {
                    let text = tokio::select! {
                        text = std::future::poll_fn(|cx| following.poll_event(cx)) => text,
                        Some(()) = pings.recv() => continue,
                    };
                    let Some(text) = text else { break };
                    take(text);
                    while let Some(text) = waiting(&mut following).await {
                        take(text);
                    }
                }
                taken
            })
            .await
            .expect("the loop stalled: a wake-up from the channel was missed");
            pinger.await.expect("pinger");
            publisher.await.expect("publisher");
            assert_eq!(taken, BUSY + IDLE);
        });
    }

    #[test]
    fn the_openapi_document_describes_every_route() {
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
            "/api/public/tables/{table}",
            "/api/public/tables/{table}/layout",
            "/api/tables/{table}/log",
            "/api/tables/{table}/bets",
            "/api/tables/{table}/report",
            "/api/me",
            "/api/logout",
            "/healthz",
            "/metrics",
        ] {
            assert!(doc["paths"].get(path).is_some(), "{path}");
        }
        let schemas = &doc["components"]["schemas"];
        assert!(schemas.get("Request").is_some() && schemas.get("EventView").is_some());
        assert!(doc["components"]["schemas"]["Request"]
            .to_string()
            .contains("place_bet"));
    }

    /// Whether the routing delivers an event about `player` to `viewer`.
    fn visible(player: Option<&str>, viewer: Option<&Actor>) -> bool {
        let mut published = [String::from("left over"), String::new()];
        publish_keys("t", player, &mut published);
        subscribe_keys("t", viewer).iter().any(|k| published.contains(k))
    }

    #[test]
    fn players_see_only_their_own_bets_on_the_stream() {
        let p1 = who("p1", Role::Player);
        let pit = who("pit", Role::PitSupervisor);
        // Public events (results, round state) reach everyone, a display board included.
        assert!(visible(None, None));
        assert!(visible(None, Some(&p1)));
        // A bet's settlement goes to its player and to staff, never to other players or the board.
        assert!(visible(Some("p1"), Some(&p1)));
        assert!(!visible(Some("p2"), Some(&p1)));
        assert!(!visible(Some("p1"), None));
        assert!(visible(Some("p2"), Some(&pit)));
    }

    #[test]
    fn a_writes_answer_shows_the_tables_events_and_the_callers_own() {
        let bet = |player: &str| EventView::BetSettled {
            table: "t".into(),
            round: 1,
            bet_id: format!("{player}-1"),
            player: player.into(),
            result: "win".into(),
            staked: 100,
            returned: 3_600,
            net: 3_500,
        };
        let events = vec![
            EventView::Result {
                table: "t".into(),
                round: 1,
                pocket: "17".into(),
                colour: "black".into(),
            },
            bet("p1"),
            bet("p2"),
            EventView::RoundSettled {
                table: "t".into(),
                round: 1,
                pocket: Some("17".into()),
                staked: 200,
                returned: 7_200,
            },
            EventView::CashedIn {
                player: "p1".into(),
                amount: 1,
            },
        ];
        let types = |username: &str| -> Vec<String> {
            Events::answering(username, events.clone())
                .events
                .iter()
                .map(|e| {
                    serde_json::to_value(e).expect("json")["type"]
                        .as_str()
                        .unwrap_or("")
                        .to_string()
                })
                .collect()
        };
        // The dealer: the result and the totals; the cash-in is about no table's player stream.
        assert_eq!(types("dealer"), ["result", "round_settled", "cashed_in"]);
        // A player: their own settlement besides, never another player's.
        assert_eq!(types("p1"), ["result", "bet_settled", "round_settled", "cashed_in"]);
        let own = Events::answering("p2", events.clone());
        assert!(own
            .events
            .iter()
            .all(|e| !matches!(e, EventView::BetSettled { player, .. } if player != "p2")));
    }

    #[test]
    fn a_bet_read_directly_is_the_bet_the_general_way_reads() {
        let texts = [
            r#"{"ref":"1","request":{"op":"place_bet","table":"t1","bet_id":"a","spot":"red","stake":100}}"#,
            r#"{"request":{"stake":100,"spot":"17","bet_id":"b","table":"t1","op":"place_bet"},"ref":"2"}"#,
            r#"{"ref":"3","request":{"op":"place_bet","table":"t1","bet_id":"c","spot":"red","stake":100,"zero_choice":"prison","coupon":500}}"#,
            r#"{"ref":"4","request":{"op":"place_bet","table":"t1","bet_id":"d","spot":"red","stake":100,"zero_choice":null,"coupon":null}}"#,
            r#"{"ref":"5","extra":1,"request":{"op":"place_bet","table":"t1","bet_id":"e","spot":"red","stake":100}}"#,
            r#"{"ref":"6","request":{"op":"place_bet","table":"t1","bet_id":"f","spot":"red","stake":100,"colour":"red"}}"#,
            r#"{"ref":"7","request":{"op":"place_bet","table":"t1","bet_id":"g","spot":"red","stake":-1}}"#,
            r#"{"ref":"8","request":{"op":"place_bet","table":"t1","bet_id":"h","spot":"red"}}"#,
            r#"{"ref":"9","request":{"op":"cancel_bet","table":"t1","bet_id":"a"}}"#,
            r#"{"ref":"10","request":{"op":"place_bet","table":"t1","bet_id":"i","spot":"red","stake":100,"stake":200}}"#,
            r#"{"ref":"11","request":{"table":"t1","bet_id":"j","spot":"red","stake":100}}"#,
        ];
        let mut direct = 0;
        for text in texts {
            let general = serde_json::from_str::<SocketRequest>(text);
            match serde_json::from_str::<SocketBet>(text) {
                Ok(bet) => {
                    direct += 1;
                    let bet = SocketRequest::from(bet);
                    let general = general.unwrap_or_else(|e| panic!("{text}: read directly, refused generally: {e}"));
                    assert_eq!(
                        (bet.reference, bet.request),
                        (general.reference, general.request),
                        "{text}"
                    );
                }
                // Whatever the direct way refuses goes the general way, which decides.
                Err(_) => assert!(
                    general.is_err() || !matches!(general.as_ref().map(|r| &r.request), Ok(Request::PlaceBet { .. })),
                    "{text}: a bet the direct way refused"
                ),
            }
        }
        assert_eq!(direct, 5, "the five well-formed bets are read directly");
    }
}
