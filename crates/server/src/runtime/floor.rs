//! The floor: the running casino as the edge sees it. One handle, cheap to
//! clone, that sends each request to the writer it belongs to (a table's,
//! or the cage's), waits for its durable answer, shows its events on the
//! table streams, and closes betting when a round's window ends. A wheel
//! table's follower ([`wheel`]) plays the floor as its dealer would: the
//! floor starts one for each wheel table made while it runs.

pub mod wheel;

use std::collections::HashMap;
use std::sync::{mpsc, Arc, Mutex};

use tokio::sync::oneshot;

use super::archive::Archive;
use super::cage_msg::CageMsg;
use super::clock::Clock;
use super::metrics::Metrics;
use super::passwords::password_matches;
use super::passwords::Hashing;
use super::reply::{Answer, BetAnswer, Publish, ReplyTo};
use super::tables::{TableMsg, Tables};
use crate::api::bodies::WheelStatus;
use crate::api::{ApiError, ClientRequest, ErrorCode, EventView, PlaceBet};
use crate::casino::policy::{self, Act};
use crate::casino::reads::{TableAnswer, TableQuery};
use crate::casino::{Actor, Executed, FromClient, Request, User};

/// Each table's newest round that opened betting, and its timer's wake-up
/// while the timer waits (dropped: the timer ends).
pub(super) type Deadlines = Arc<Mutex<HashMap<String, (u64, Option<oneshot::Sender<()>>)>>>;

#[derive(Clone)]
pub struct Floor {
    pub(super) clock: Arc<dyn Clock>,
    pub(super) cage: mpsc::SyncSender<CageMsg>,
    pub(super) tables: Tables,
    pub(super) shown: Arc<dyn Publish>,
    pub(super) metrics: Arc<Metrics>,
    /// What each wheel table's automated wheel last did, for the dealer console.
    pub(super) wheels: Arc<Mutex<HashMap<String, WheelStatus>>>,
    /// Each table's betting deadline: its round, and what wakes its timer
    /// early (dropped) once betting closes by another hand.
    pub(super) deadlines: Deadlines,
    pub(super) hashing: Hashing,
    pub(super) archive: Arc<Archive>,
    pub(super) runtime: tokio::runtime::Handle,
    /// The operator's name as the cage publishes it, in its own order.
    pub(super) operator: Arc<arc_swap::ArcSwapOption<String>>,
    /// The casino's gaming day as the cage publishes it, in its own order.
    pub(super) gaming_day: Arc<arc_swap::ArcSwap<crate::casino::gaming_day::GamingDay>>,
    pub(super) health: super::health::Health,
}

fn no_table(table: &str) -> ApiError {
    ApiError::new(ErrorCode::NoTable, format!("no table {table:?}"))
}

async fn answered(rx: oneshot::Receiver<Result<Answer, ApiError>>) -> Result<Answer, ApiError> {
    rx.await.map_err(|_| ApiError::stopped())?
}

impl Floor {
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }

    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// Whether the journal takes writes and the archive keeps up.
    pub fn health(&self) -> &super::health::Health {
        &self.health
    }

    pub fn hashing(&self) -> &Hashing {
        &self.hashing
    }

    /// The tables' ids.
    pub fn table_ids(&self) -> Vec<String> {
        self.tables.ids()
    }

    /// Whether there is a table of that id.
    pub fn has_table(&self, table: &str) -> bool {
        self.tables.jobs(table).is_some()
    }

    /// Sends a message to a table's writer and waits for its durable answer.
    async fn at_table(&self, table: &str, message: impl FnOnce(ReplyTo) -> TableMsg) -> Result<Answer, ApiError> {
        let jobs = self.tables.jobs(table).ok_or_else(|| no_table(table))?;
        let (tx, rx) = oneshot::channel();
        jobs.send(message(ReplyTo::Caller(tx)))
            .await
            .map_err(|_| ApiError::stopped())?;
        answered(rx).await
    }

    /// Sends a message to the cage and waits for its durable answer.
    async fn at_cage(&self, message: impl FnOnce(ReplyTo) -> CageMsg) -> Result<Answer, ApiError> {
        let (tx, rx) = oneshot::channel();
        self.cage
            .send(message(ReplyTo::Caller(tx)))
            .map_err(|_| ApiError::stopped())?;
        answered(rx).await
    }

    /// A client's request: a new user's password is hashed here (the journal
    /// keeps only the hash), and a new wheel table starts following its wheel.
    pub async fn submit(&self, actor: Actor, request: ClientRequest) -> Result<Vec<EventView>, ApiError> {
        let request = match Request::from_client(request) {
            FromClient::Ready(request) => request,
            // A hash costs tens of milliseconds: no one may spend them who may not set
            // the password it is for.
            FromClient::NewUser {
                username,
                role,
                password,
                must_change_password,
                licence,
            } => {
                policy::require(actor.role, Act::CreateUser)?;
                // Checked before the hash is spent; recorded in the user's own entry.
                if let Some(licence) = &licence {
                    crate::casino::users::check_licence(role, licence)?;
                }
                let password_hash = self.hashing.hash(password).await?;
                if must_change_password {
                    // Made, then marked as chosen by someone else: its holder
                    // changes it at the first sign-in, as after a reset.
                    let mut events = self
                        .execute(
                            actor.clone(),
                            Request::CreateUser {
                                username: username.clone(),
                                role,
                                password_hash: password_hash.clone(),
                                licence,
                            },
                        )
                        .await?;
                    let marked = Request::SetPassword {
                        username,
                        password_hash,
                        must_change: true,
                    };
                    events.extend(self.execute(actor, marked).await?);
                    return Ok(events);
                }
                Request::CreateUser {
                    username,
                    role,
                    password_hash,
                    licence,
                }
            }
            FromClient::ResetPassword { username, password } => {
                policy::require(actor.role, Act::ManageUsers)?;
                // The admin knows it: its holder changes it at their next sign-in.
                Request::SetPassword {
                    username,
                    password_hash: self.hashing.hash(password).await?,
                    must_change: true,
                }
            }
            FromClient::ChangePassword { password, new_password } => {
                let user = self
                    .user(&actor.username)
                    .await?
                    .ok_or_else(|| ApiError::new(ErrorCode::NoUser, "no such user"))?;
                // A password someone else chose is replaced, not given again.
                if new_password == password {
                    return Err(ApiError::new(
                        ErrorCode::BadRequest,
                        "the new password is the one you have: choose another",
                    ));
                }
                let hash = user.password_hash;
                let matches = self.hashing.run(move || password_matches(&password, &hash)).await?;
                if !matches {
                    return Err(ApiError::new(
                        ErrorCode::WrongPassword,
                        "the current password given is wrong",
                    ));
                }
                Request::SetPassword {
                    username: actor.username.clone(),
                    password_hash: self.hashing.hash(new_password).await?,
                    must_change: false,
                }
            }
        };
        // A player retired or made staff holds nothing at any table: what
        // only the tables know (stakes on a layout, coupons not played) is
        // asked of each first; the cage checks their accounts itself.
        let asked = match &request {
            Request::RetireUser { username } => Some(username.clone()),
            Request::EditUser {
                username,
                role: Some(role),
                ..
            } if *role != crate::api::Role::Player => Some(username.clone()),
            _ => None,
        };
        if let Some(player) = asked {
            policy::require(actor.role, request.act(&actor))?;
            let at_ms = self.clock.now_ms();
            let held: Vec<_> = self
                .every_table(TableQuery::Held {
                    player: player.clone(),
                    at_ms,
                })
                .await
                .into_iter()
                .filter_map(|a| match a {
                    TableAnswer::Held(held) => Some(held),
                    _ => None,
                })
                .collect();
            crate::casino::cage::user_edits::refuse_held(&player, &held)?;
        }
        let wheel = match &request {
            Request::CreateTable {
                table,
                wheel_address: Some(address),
                ..
            } => Some((table.clone(), address.clone())),
            _ => None,
        };
        let events = self.execute(actor, request).await?;
        if let Some((table, address)) = wheel {
            wheel::follow(self.clone(), table, address);
        }
        Ok(events)
    }

    /// Executes a request for an actor and shows its events.
    pub async fn execute(&self, actor: Actor, request: Request) -> Result<Vec<EventView>, ApiError> {
        self.metrics.requests.inc();
        match request.table().map(str::to_string) {
            Some(table) => {
                let answer = self
                    .at_table(&table, |reply| TableMsg::Execute { actor, request, reply })
                    .await
                    .and_then(Answer::executed);
                self.shown(answer)
            }
            None => {
                let answer = self
                    .at_cage(|reply| CageMsg::Execute {
                        actor,
                        request: Box::new(request),
                        reply,
                    })
                    .await
                    .and_then(Answer::events);
                // The cage writes no texts: each event is serialised to show it.
                self.shown(answer.map(|views| Executed {
                    views,
                    texts: Vec::new(),
                }))
            }
        }
    }

    /// The RNG draws `table`'s outcome and the table settles on it.
    pub async fn draw(&self, actor: Actor, table: &str) -> Result<Vec<EventView>, ApiError> {
        self.metrics.requests.inc();
        let answer = self
            .at_table(table, |reply| TableMsg::Draw { actor, reply })
            .await
            .and_then(Answer::executed);
        self.shown(answer)
    }

    /// A question about one table.
    pub async fn read_table(&self, table: &str, query: TableQuery) -> Result<TableAnswer, ApiError> {
        self.at_table(table, |reply| TableMsg::Read { query, reply })
            .await?
            .table()
    }

    /// The same question about every table, asked of all at once; a table
    /// created meanwhile and lost to a failed write is left out.
    pub async fn every_table(&self, query: TableQuery) -> Vec<TableAnswer> {
        let asked = self.tables.ids().into_iter().map(|id| {
            let query = query.clone();
            async move { self.read_table(&id, query).await }
        });
        futures_util::future::join_all(asked)
            .await
            .into_iter()
            .filter_map(Result::ok)
            .collect()
    }

    pub async fn user(&self, username: &str) -> Result<Option<User>, ApiError> {
        let username = username.to_string();
        self.at_cage(|reply| CageMsg::User { username, reply }).await?.user()
    }

    /// Up to `n` users whose names come after `after`, in name order, and
    /// whether more follow: the retired ones, or the others.
    pub async fn users(&self, after: &str, n: usize, retired: bool) -> Result<(Vec<User>, bool), ApiError> {
        let after = after.to_string();
        self.at_cage(|reply| CageMsg::Users {
            after,
            n,
            retired,
            reply,
        })
        .await?
        .users()
    }

    /// Up to `n` players a search finds, and whether more follow.
    pub async fn find_players(
        &self,
        query: crate::api::player_search::PlayerQuery,
        n: usize,
    ) -> Result<(Vec<User>, bool), ApiError> {
        self.at_cage(|reply| CageMsg::FindPlayers { query, n, reply })
            .await?
            .users()
    }

    /// The casino's operator, once an admin has named it (Maryland ch.1 G(1)).
    /// Kept here so that an anonymous read never queues at the cage.
    pub fn operator(&self) -> Option<String> {
        self.operator.load_full().map(|name| name.to_string())
    }

    /// The casino's gaming day as an admin set it, and today's by it.
    pub fn gaming_day(&self) -> crate::api::bodies::GamingDayView {
        let rule = self.gaming_day.load_full();
        crate::api::bodies::GamingDayView {
            time_zone: rule.zone().to_string(),
            starts_at: rule.starts_at(),
            today: crate::casino::reads::day_text(rule.day(self.clock.now_ms())),
        }
    }

    /// A player's accounts and the coupons issued to them, if there is such a player.
    pub async fn player_accounts(&self, player: &str) -> Result<Option<crate::api::bodies::PlayerAccounts>, ApiError> {
        let player = player.to_string();
        self.at_cage(|reply| CageMsg::PlayerAccounts { player, reply })
            .await?
            .player_accounts()
    }

    /// The cage's record of gaming day `day`: `by`'s only, where it is given.
    pub async fn cage_record(
        &self,
        day: Option<u64>,
        by: Option<String>,
    ) -> Result<crate::api::bodies::CageTransactions, ApiError> {
        self.at_cage(|reply| CageMsg::CageRecord { day, by, reply })
            .await?
            .cage_record()
    }

    /// A tournament, its rules or forms, or the list of them.
    pub async fn tournament(
        &self,
        read: crate::casino::tournaments::TournamentRead,
    ) -> Result<crate::casino::tournaments::TournamentAnswer, ApiError> {
        self.at_cage(|reply| CageMsg::Tournament { read, reply })
            .await?
            .tournament()
    }

    /// A user's own accounts (their wallet, their chips at each table) and their balances.
    pub async fn balances(&self, username: &str) -> Result<std::collections::BTreeMap<String, i128>, ApiError> {
        let username = username.to_string();
        self.at_cage(|reply| CageMsg::Balances { username, reply })
            .await?
            .balances()
    }

    /// The ledger's balance of one account.
    pub async fn ledger_balance(&self, account: &croupier_ledger::Account) -> Result<i128, ApiError> {
        let account = account.clone();
        self.at_cage(|reply| CageMsg::Balance { account, reply })
            .await?
            .balance()
    }

    /// Hands a bet from a table stream straight to its table's writer: the
    /// answer, once durable, comes back into `to` under `tag`, with no task
    /// of its own (a task per bet, spawned, woken by the answer, then waking
    /// the socket, cost more than the bet's own checks). `Err` if it cannot
    /// be handed over at all.
    pub fn bet_from_socket(
        &self,
        actor: Actor,
        bet: PlaceBet,
        to: tokio::sync::mpsc::Sender<BetAnswer>,
        tag: u64,
    ) -> Result<(), ApiError> {
        let jobs = self.tables.jobs(&bet.table).ok_or_else(|| no_table(&bet.table))?;
        self.metrics.requests.inc();
        let message = TableMsg::Execute {
            actor,
            request: Request::from(bet),
            reply: ReplyTo::Socket {
                to: to.clone(),
                tag,
                shown: self.shown.clone(),
            },
        };
        match jobs.try_send(message) {
            Ok(()) => Ok(()),
            // The table's queue is full: the bet waits its turn, off the socket's loop.
            Err(tokio::sync::mpsc::error::TrySendError::Full(message)) => {
                self.runtime.spawn(async move {
                    if jobs.send(message).await.is_err() {
                        let _ = to
                            .send(BetAnswer {
                                tag,
                                result: Err(ApiError::stopped()),
                            })
                            .await;
                    }
                });
                Ok(())
            }
            Err(tokio::sync::mpsc::error::TrySendError::Closed(_)) => Err(ApiError::stopped()),
        }
    }

    /// Shows a durable request's events on the streams, counts them, and
    /// closes betting at each new deadline; gives back the events.
    pub fn shown(&self, result: Result<Executed, ApiError>) -> Result<Vec<EventView>, ApiError> {
        match result {
            Ok(Executed { views, texts }) => {
                self.shown.publish(&views, &texts);
                for e in &views {
                    match e {
                        EventView::BetAccepted { .. } => {
                            self.metrics.bets_accepted.inc();
                        }
                        EventView::RoundSettled { .. } => {
                            self.metrics.rounds_settled.inc();
                        }
                        EventView::BettingOpened {
                            table,
                            round,
                            deadline_ms,
                        } => self.close_at_deadline(table.clone(), *round, *deadline_ms),
                        EventView::NoMoreBets { table, round } => self.forget_deadline(table, *round),
                        _ => {}
                    }
                }
                Ok(views)
            }
            Err(e) => {
                self.metrics.refused.inc();
                Err(e)
            }
        }
    }

    /// Calls no more bets when the betting window ends, unless someone
    /// already has: the check and the call are one job of the table's writer.
    /// The timer is the table's newest round's: it ends early once that
    /// round's betting closes by another hand or a later round opens, so
    /// timers never outnumber the tables, however short the rounds against
    /// the window. Answers to requests sent together may show their events
    /// in any order, so each is judged by its round: an older round's
    /// opening shown after a newer one's starts no timer, and a no more bets
    /// ends its own round's alone. (A table closed during betting leaves its
    /// round's timer to call nothing at the deadline, or to end at the next
    /// opening.)
    fn close_at_deadline(&self, table: String, round: u64, deadline_ms: u64) {
        let (early, woken) = oneshot::channel();
        {
            let Ok(mut deadlines) = self.deadlines.lock() else {
                return;
            };
            if deadlines.get(&table).is_some_and(|(newest, _)| *newest >= round) {
                return;
            }
            // Replacing a table's timer drops what held its predecessor asleep.
            deadlines.insert(table.clone(), (round, Some(early)));
        }
        let floor = self.clone();
        self.runtime.spawn(async move {
            let wait = deadline_ms.saturating_sub(floor.clock.now_ms());
            tokio::select! {
                _ = tokio::time::sleep(std::time::Duration::from_millis(wait)) => {}
                // Betting closed or a later round opened: nothing to call.
                _ = woken => return,
            }
            floor.forget_deadline(&table, round);
            let closed = floor
                .at_table(&table, |reply| TableMsg::CloseBetting { round, reply })
                .await
                .and_then(Answer::executed);
            if let Ok(Executed { views, texts }) = closed {
                floor.shown.publish(&views, &texts);
            }
        });
    }

    /// Ends the timer of `table`'s `round`, if it is the one waited for. A
    /// round newer than the one noted (its no more bets shown before its
    /// opening) is noted as the newest, waited for by no timer, so that its
    /// opening, shown late, starts none.
    fn forget_deadline(&self, table: &str, round: u64) {
        if let Ok(mut deadlines) = self.deadlines.lock() {
            match deadlines.get_mut(table) {
                Some((waited, early)) if *waited == round => *early = None,
                Some((waited, _)) if *waited > round => {}
                _ => {
                    deadlines.insert(table.to_string(), (round, None));
                }
            }
        }
    }

    /// How many tables have a betting deadline waited for.
    pub fn deadlines_waited(&self) -> usize {
        self.deadlines
            .lock()
            .map_or(0, |d| d.values().filter(|(_, early)| early.is_some()).count())
    }

    /// What a wheel table's automated wheel last did.
    pub fn wheel_status(&self, table: &str) -> Option<WheelStatus> {
        self.wheels.lock().ok().and_then(|w| w.get(table).cloned())
    }

    pub(super) fn update_wheel(&self, table: &str, update: impl FnOnce(&mut WheelStatus)) {
        if let Ok(mut map) = self.wheels.lock() {
            let status = map.entry(table.to_string()).or_default();
            update(status);
            status.at_ms = self.clock.now_ms();
        }
    }

    /// Reads the recall archive off the async workers.
    pub async fn archived<T: Send + 'static>(
        &self,
        read: impl FnOnce(&Archive) -> Result<T, String> + Send + 'static,
    ) -> Result<T, ApiError> {
        let archive = self.archive.clone();
        tokio::task::spawn_blocking(move || read(&archive))
            .await
            .map_err(|_| ApiError::stopped())?
            .map_err(|e| ApiError::new(ErrorCode::Storage, e))
    }
}
