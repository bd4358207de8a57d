//! The HTTP edge, with axum: sessions and sign-in ([`auth`]), writes
//! ([`requests`]), reads ([`tables`], [`recall`], [`public`]), the pages,
//! metrics, and the table streams ([`streams`]). A handler extracts,
//! authorises, sends one message to the floor and maps the answer; it
//! holds no rule. Nothing else in the crate imports this module.

pub mod auth;
pub mod cage;
pub mod channels;
pub mod error;
pub mod floor;
pub mod integrity;
pub mod listener;
pub mod metrics;
pub mod openapi;
pub mod pages;
pub mod paused;
pub mod people;
pub mod public;
pub mod recall;
pub mod reports;
pub mod requests;
pub mod sessions;
pub mod standby;
pub mod state;
pub mod streams;
pub mod tables;
pub mod throttle;
pub mod tournaments;

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use axum::http::{header, HeaderValue};
use axum::routing::{get, post};
use axum::Router;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::trace::TraceLayer;

use crate::api::EventView;
use crate::runtime::setup::{self, Opened};
use crate::runtime::Floor;
pub use state::AppState;

/// The largest request body, in bytes.
pub const BODY_MAX_BYTES: usize = 64 * 1024;
/// How long a request's body may take to arrive once its headers have.
pub const BODY_READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/", get(pages::index))
        .route("/board", get(pages::board))
        .route("/terminal", get(pages::terminal))
        .route("/dealer", get(pages::dealer))
        .route("/pit", get(pages::pit))
        .route("/admin", get(pages::admin))
        .route("/favicon.ico", get(pages::favicon))
        .route("/cashier", get(pages::cashier))
        .route("/tournaments", get(pages::tournaments))
        .route("/report", get(pages::report))
        .route("/floor", get(pages::floor))
        .route("/static/common.css", get(pages::common_css))
        .route("/static/common.js", get(pages::common_js))
        .route("/static/i18n.js", get(pages::catalogues))
        .route("/api/public/tables", get(public::public_tables))
        .route("/api/public/profiles", get(public::profiles))
        .route("/api/public/tables/{table}", get(public::public_table))
        .route("/api/public/tables/{table}/layout", get(public::layout))
        .route("/api/tables/{table}/log", get(tables::log))
        .route("/api/tables/{table}/bets", get(tables::bets))
        .route("/api/tables/{table}/report", get(tables::report))
        .route("/api/reports/day", get(reports::day))
        .route("/api/reports/shift", get(reports::shift))
        .route("/api/floor", get(floor::floor))
        .route("/api/slips", get(tables::slips))
        .route("/api/tables/{table}/integrity", get(integrity::integrity))
        .route("/healthz", get(metrics::healthz))
        .route("/metrics", get(metrics::metrics))
        .route("/api/openapi.json", get(openapi::openapi))
        .route("/api/login", post(auth::login))
        .route("/api/logout", post(auth::logout))
        .route("/api/me", get(auth::me))
        .route("/api/users", get(people::users))
        .route("/api/players", get(people::find_players))
        .route("/api/players/{player}/accounts", get(people::player_accounts))
        .route("/api/cage/transactions", get(cage::transactions))
        .route("/api/tournaments", get(tournaments::list))
        .route("/api/tournaments/{tournament}", get(tournaments::one))
        .route("/api/tournaments/{tournament}/forms", get(tournaments::forms))
        .route("/api/public/tournaments/{tournament}/rules", get(tournaments::rules))
        .route(
            "/api/public/tournaments/{tournament}/standings",
            get(tournaments::standings),
        )
        .route("/api/requests", post(requests::requests))
        .route("/api/tables", get(tables::tables))
        .route("/api/tables/{table}/draw", post(requests::draw))
        .route("/api/tables/{table}/rounds", get(recall::table_rounds))
        .route("/api/tables/{table}/stream", get(streams::stream))
        .route("/api/rounds/{table}/{round}", get(recall::round))
        .route("/api/players/{player}/rounds", get(recall::player_rounds))
        .fallback(error::not_found)
        .method_not_allowed_fallback(error::method_not_allowed)
        // While the journal cannot be written, the API says so instead of answering.
        .layer(axum::middleware::from_fn_with_state(state.clone(), paused::guard))
        .layer(axum::extract::DefaultBodyLimit::max(BODY_MAX_BYTES))
        // A body sent slowly holds its connection: it must arrive whole within this.
        .layer(axum::middleware::from_fn(whole_body_in_time))
        // Every answer: never sniffed for another type, never framed, never
        // telling another site where the browser came from.
        .layer(SetResponseHeaderLayer::if_not_present(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::X_FRAME_OPTIONS,
            HeaderValue::from_static("DENY"),
        ))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        ))
        // Each request gets an id, logged with it and sent back in `x-request-id`.
        .layer(PropagateRequestIdLayer::x_request_id())
        // A bug that panics in a handler is answered, not a dropped connection.
        .layer(tower_http::catch_panic::CatchPanicLayer::custom(error::panicked))
        // A failure is logged once, with its sentence, where it is answered (`error.rs`).
        .layer(
            TraceLayer::new_for_http()
                .on_failure(tower_http::trace::DefaultOnFailure::new().level(tracing::Level::DEBUG)),
        )
        .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid))
        .with_state(state)
}

/// Reads a request's body whole within [`BODY_READ_TIMEOUT`] before it is
/// handled. tower-http's body timeout starts again at every frame, so a body
/// sent a byte every few seconds held its connection for as long as its
/// sender liked (an attack review read 57 bytes over 174 s): this is a
/// deadline for the whole body. A body over [`BODY_MAX_BYTES`] is refused
/// as the extractors refuse it.
async fn whole_body_in_time(request: axum::extract::Request, next: axum::middleware::Next) -> axum::response::Response {
    use axum::response::IntoResponse;
    let (parts, body) = request.into_parts();
    match tokio::time::timeout(BODY_READ_TIMEOUT, axum::body::to_bytes(body, BODY_MAX_BYTES)).await {
        Ok(Ok(bytes)) => {
            next.run(axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes)))
                .await
        }
        // http-body-util's LengthLimitError, as axum's error says it.
        Ok(Err(e))
            if std::error::Error::source(&e)
                .map_or(e.to_string(), |s| s.to_string())
                .contains("length limit") =>
        {
            error::Failure(crate::api::ApiError::new(
                crate::api::ErrorCode::TooLarge,
                format!("a body is at most {BODY_MAX_BYTES} bytes"),
            ))
            .into_response()
        }
        Ok(Err(e)) => error::Failure(crate::api::ApiError::new(
            crate::api::ErrorCode::BadRequest,
            format!("the body could not be read whole: {e}"),
        ))
        .into_response(),
        Err(_) => error::Failure(crate::api::ApiError::new(
            crate::api::ErrorCode::BodyTooSlow,
            format!(
                "the body did not arrive whole within {} s: send it at once",
                BODY_READ_TIMEOUT.as_secs()
            ),
        ))
        .into_response(),
    }
}

/// A server ready to take requests: its router, the floor behind it, and
/// what opening its data directory found.
pub struct App {
    pub router: Router,
    pub floor: Floor,
    /// The admin made on a first run, and its one-time password.
    pub admin_password: Option<(String, String)>,
    pub recovered: Vec<EventView>,
    /// The entry the checkpoint the casino opened from follows (`None`: the whole journal was replayed).
    pub from_checkpoint: Option<u64>,
    /// `/metrics` with no session asked, for `--metrics-listen` alone.
    pub metrics_router: Router,
    /// The sessions: at the stop, the rows of sessions ended on a full disk are deleted.
    pub sessions: Arc<sessions::Sessions>,
    /// Keeps the journal's head beside the secret; the last copy when dropped.
    _head: crate::runtime::keys::HeadKeeper,
    /// Writes checkpoints of the casino's state; stops when dropped.
    _checkpoints: crate::runtime::checkpoints::CheckpointWriter,
    /// The data directory's lock, held while the server runs.
    _lock: std::fs::File,
}

/// Opens `data` and builds the server on it, in this process: the tests
/// send it requests through axum without a socket. Needs a multi-thread
/// tokio runtime.
pub fn app(data: &Path) -> Result<App, String> {
    app_within(
        data,
        &crate::runtime::keys::default_dir(data),
        &listener::Limits::default(),
    )
}

/// [`app`], with the secret in `keys`, holding clients to `limits`' sign-ins.
pub fn app_within(data: &Path, keys: &Path, limits: &listener::Limits) -> Result<App, String> {
    let channels = Arc::new(channels::Channels::default());
    let Opened {
        floor,
        admin_password,
        recovered,
        users,
        lock,
        keys,
        head,
        checkpoints,
        from_checkpoint,
    } = setup::open(
        data,
        &croupier_ledger::Database::of(data, limits.database.as_deref())?,
        keys,
        channels.clone(),
        limits.checkpoint_every_entries,
        limits.lease_timeout_ms,
    )?;
    // Sessions from before a restart carry on, unless they are over, their
    // account is gone, locked, or holds another role now.
    let sessions = sessions::Sessions::open(
        data,
        keys.sessions_key(),
        &keys.sessions_epoch_path(),
        limits.sessions,
        floor.clock().now_ms(),
    )?;
    // On a journal that nodes share, another node may have served since this
    // one did (a password changed, a session ended there): every session
    // begins again, as the docs say (everyone signs in again on a takeover).
    let shared = limits.database.is_some();
    sessions
        .retain(|a| {
            !shared
                && users
                    .iter()
                    .any(|u| u.username == a.username && !u.locked && !u.retired && u.role == a.role)
        })
        .map_err(|e| e.to_string())?;
    sessions.require_change(|a| users.iter().any(|u| u.username == a.username && u.must_change_password));
    channels.count_in(floor.metrics().stream_channels.clone());
    let unknown_user_hash = unknown_user_hash()?;
    let sessions = Arc::new(sessions);
    sweep_sessions(sessions.clone(), floor.clone());
    let state = AppState {
        floor: floor.clone(),
        sessions,
        channels,
        integrity: Default::default(),
        throttle: throttle::Throttle::new(limits.sign_ins_per_client_per_minute),
        unknown_user_hash,
    };
    let metrics_router = Router::new()
        .route("/metrics", get(metrics::open_metrics))
        .route("/healthz", get(metrics::healthz_in_full))
        .with_state(state.clone());
    let kept_sessions = state.sessions.clone();
    Ok(App {
        router: router(state),
        sessions: kept_sessions,
        metrics_router,
        floor,
        admin_password,
        recovered,
        from_checkpoint,
        _head: head,
        _checkpoints: checkpoints,
        _lock: lock,
    })
}

/// How often sessions over (idle too long, or too old) are ended, whether
/// or not anyone asks about them: their sockets end with them.
pub const SESSIONS_SWEPT_EVERY_MS: u64 = 15_000;

/// Ends the sessions that are over, every [`SESSIONS_SWEPT_EVERY_MS`].
fn sweep_sessions(sessions: Arc<sessions::Sessions>, floor: crate::runtime::floor::Floor) {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_millis(SESSIONS_SWEPT_EVERY_MS));
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            every.tick().await;
            let sessions = sessions.clone();
            let now = floor.clock().now_ms();
            let swept = tokio::task::spawn_blocking(move || sessions.sweep(now)).await;
            if let Ok(Err(e)) = swept {
                tracing::warn!("sessions over could not be ended: {}", e.message);
            }
        }
    });
}

/// A hash of a password no one has, made once at start: a sign-in with a
/// name no one has is checked against it, so that it takes as long as a
/// wrong password.
fn unknown_user_hash() -> Result<Arc<str>, String> {
    let mut secret = [0u8; 24];
    croupier_rng::CasinoRng::from_os()
        .and_then(|mut r| r.fill(&mut secret))
        .map_err(|e| e.to_string())?;
    crate::runtime::passwords::hash_password(&hex::encode(secret))
        .map(Arc::from)
        .map_err(|e| e.to_string())
}

/// What `serve` reports once it is listening.
pub struct Started {
    pub address: SocketAddr,
    /// The admin made on a first run, and its one-time password.
    pub admin_password: Option<(String, String)>,
    pub recovered: Vec<EventView>,
    /// The entry the checkpoint the casino opened from follows (`None`: the whole journal was replayed).
    pub from_checkpoint: Option<u64>,
}

/// Opens the data directory, recovers, and serves until Ctrl-C or SIGTERM.
pub async fn serve(
    data: &Path,
    keys: &Path,
    listen: SocketAddr,
    metrics_listen: Option<SocketAddr>,
    limits: listener::Limits,
    on_start: impl FnOnce(&Started),
) -> Result<(), String> {
    let limits = limits.within_descriptors();
    // The addresses first: a first run that cannot listen makes no admin
    // whose one-time password it would never print.
    let bound = std::net::TcpListener::bind(listen)
        .and_then(|l| l.set_nonblocking(true).map(|()| l))
        .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    let listener = tokio::net::TcpListener::from_std(
        bound
            .try_clone()
            .map_err(|e| format!("cannot listen on {listen}: {e}"))?,
    )
    .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    let metrics = match metrics_listen {
        Some(at) => Some(
            std::net::TcpListener::bind(at)
                .and_then(|l| l.set_nonblocking(true).map(|()| l))
                .map_err(|e| format!("cannot listen for metrics on {at}: {e}"))?,
        ),
        None => None,
    };
    // A node of several waits for the casino's lease: it says so meanwhile, on both addresses.
    let mut standby = Vec::new();
    if limits.database.is_some() {
        for socket in std::iter::once(&bound).chain(metrics.as_ref()) {
            standby.push(standby::Standby::start(socket, &limits)?);
        }
    }
    drop(bound);
    // Opening blocks: it replays the journal, and a journal on PostgreSQL is
    // reached through a client of its own that must not run on a task's thread.
    let app = tokio::task::block_in_place(|| app_within(data, keys, &limits));
    for answering in standby {
        answering.end().await;
    }
    let app = app?;
    // The metrics for a scraper, on an address of their own (the casino's
    // own network): there no session is asked.
    if let Some(metrics) = metrics {
        let metrics =
            tokio::net::TcpListener::from_std(metrics).map_err(|e| format!("cannot listen for metrics: {e}"))?;
        let router = app.metrics_router.clone();
        tokio::spawn(async move {
            if let Err(e) = axum::serve(metrics, router).await {
                tracing::error!("the metrics listener stopped: {e}");
            }
        });
    }
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    on_start(&Started {
        address,
        admin_password: app.admin_password.clone(),
        recovered: app.recovered.clone(),
        from_checkpoint: app.from_checkpoint,
    });
    let held = app.floor.metrics().connections.clone();
    let app_floor = app.floor.clone();
    let App {
        router,
        sessions,
        _head,
        _checkpoints,
        _lock,
        ..
    } = app;
    // A node that lost the casino's lease (PostgreSQL) stops as if asked to.
    let lease_lost = |health: &crate::runtime::health::Health| {
        let mut losses = health.lease_losses();
        async move {
            let _ = losses.wait_for(Option::is_some).await;
        }
    };
    let serving = listener::serve(listener, router, limits, held, async {
        tokio::select! {
            () = stop_asked() => {}
            () = lease_lost(app_floor.health()) => {}
        }
    });
    // A node that lost the lease waits only so long for the answers under
    // way: one may wait on a database that no longer answers (a network cut
    // that drops packets), and this node's journal is another's now.
    let lost_long_ago = async {
        lease_lost(app_floor.health()).await;
        tokio::time::sleep(std::time::Duration::from_millis(LEASE_LOST_STOP_MS)).await;
    };
    tokio::select! {
        () = serving => {}
        () = lost_long_ago => tracing::warn!(
            "answers still under way were cut off: this node lost the lease {LEASE_LOST_STOP_MS} ms ago"
        ),
    }
    // A session signed out while the disk was full must not live again at the next start.
    sessions.forget_pending();
    let lost = app_floor.health().lease_losses().borrow().clone();
    let ended = move || {
        drop(_checkpoints);
        drop(_head);
        drop(_lock);
    };
    match lost {
        None => ended(),
        // The writers' threads may wait on the database too: they are let go of, not waited for.
        Some(_) => {
            let (done, waited) = std::sync::mpsc::channel();
            let _ = std::thread::Builder::new().name("stopping".into()).spawn(move || {
                ended();
                let _ = done.send(());
            });
            let _ = tokio::task::block_in_place(|| {
                waited.recv_timeout(std::time::Duration::from_millis(LEASE_LOST_STOP_MS))
            });
        }
    }
    match lost {
        Some(why) => Err(format!("{why}. This node stopped, having written nothing since")),
        None => Ok(()),
    }
}

/// How long a node that lost the lease waits for the answers under way, and
/// then for its writers to stop, before it stops without them.
pub const LEASE_LOST_STOP_MS: u64 = 2_000;

/// Ctrl-C or SIGTERM: the server stops taking connections and ends once
/// the requests under way are answered. Nothing is lost either way: an
/// answer is given only once durable, and a round cut off is void at the
/// next start.
async fn stop_asked() {
    let interrupted = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminated = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminated = std::future::pending::<()>();
    tokio::select! {
        _ = interrupted => {}
        _ = terminated => {}
    }
    tracing::info!("stopping: no new connections; answering the requests under way");
}
