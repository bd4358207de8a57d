//! Answers that wait for durability. A writer runs a job at once, but its
//! answer goes out only once the group holding the job's journal entry is
//! durable: the writer hands the committer a [`Pending`] saying what the
//! answer is and where it goes, and the committer delivers it, or a
//! failure, when it knows.

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;
use tokio::sync::{mpsc, oneshot};

use super::archive::Archiver;
use crate::api::{ApiError, ErrorCode, EventView};
use crate::casino::reads::TableAnswer;
use crate::casino::{Executed, RoundRecord, User};

/// Where the events of a durable request are shown: the table streams. The
/// runtime publishes through it; the HTTP edge provides it.
pub trait Publish: Send + Sync + 'static {
    /// `texts` holds each event's JSON when the writer wrote it; otherwise
    /// the events are serialised by whoever shows them.
    fn publish(&self, events: &[EventView], texts: &[Bytes]);
}

/// No one shows events: replay, tools and tests of the writers alone.
pub struct Unseen;

impl Publish for Unseen {
    fn publish(&self, _: &[EventView], _: &[Bytes]) {}
}

/// What a job answers.
#[derive(Debug)]
pub enum Answer {
    /// A request executed at a table (or nothing, where there was nothing to do).
    Executed(Result<Executed, ApiError>),
    /// A request of the cage's: its events.
    Events(Result<Vec<EventView>, ApiError>),
    /// A question about a table.
    Table(Box<TableAnswer>),
    /// A user, if there is one by that name.
    User(Option<User>),
    /// A page of users in name order, and whether more follow.
    Users(Vec<User>, bool),
    /// A player's accounts and coupons, if there is such a player.
    PlayerAccounts(Option<crate::api::bodies::PlayerAccounts>),
    /// The cage's record of a gaming day.
    CageRecord(Result<crate::api::bodies::CageTransactions, ApiError>),
    /// A user's own accounts and their balances.
    Balances(BTreeMap<String, i128>),
    /// One account's balance.
    Balance(i128),
    /// A tournament read.
    Tournament(Result<crate::casino::tournaments::TournamentAnswer, ApiError>),
}

fn unexpected(answer: &Answer) -> ApiError {
    ApiError::new(
        ErrorCode::Internal,
        format!("a job answered {answer:?}, not what was asked"),
    )
}

impl Answer {
    pub fn executed(self) -> Result<Executed, ApiError> {
        match self {
            Answer::Executed(result) => result,
            other => Err(unexpected(&other)),
        }
    }

    pub fn events(self) -> Result<Vec<EventView>, ApiError> {
        match self {
            Answer::Events(result) => result,
            other => Err(unexpected(&other)),
        }
    }

    pub fn table(self) -> Result<TableAnswer, ApiError> {
        match self {
            Answer::Table(answer) => Ok(*answer),
            other => Err(unexpected(&other)),
        }
    }

    pub fn user(self) -> Result<Option<User>, ApiError> {
        match self {
            Answer::User(user) => Ok(user),
            other => Err(unexpected(&other)),
        }
    }

    pub fn users(self) -> Result<(Vec<User>, bool), ApiError> {
        match self {
            Answer::Users(users, more) => Ok((users, more)),
            other => Err(unexpected(&other)),
        }
    }

    pub fn player_accounts(self) -> Result<Option<crate::api::bodies::PlayerAccounts>, ApiError> {
        match self {
            Answer::PlayerAccounts(p) => Ok(p),
            other => Err(unexpected(&other)),
        }
    }

    pub fn cage_record(self) -> Result<crate::api::bodies::CageTransactions, ApiError> {
        match self {
            Answer::CageRecord(record) => record,
            other => Err(unexpected(&other)),
        }
    }

    pub fn tournament(self) -> Result<crate::casino::tournaments::TournamentAnswer, ApiError> {
        match self {
            Answer::Tournament(result) => result,
            other => Err(unexpected(&other)),
        }
    }

    pub fn balance(self) -> Result<i128, ApiError> {
        match self {
            Answer::Balance(b) => Ok(b),
            other => Err(unexpected(&other)),
        }
    }

    pub fn balances(self) -> Result<BTreeMap<String, i128>, ApiError> {
        match self {
            Answer::Balances(b) => Ok(b),
            other => Err(unexpected(&other)),
        }
    }
}

/// A bet from a table stream, answered into the socket's own queue under the tag it chose.
pub struct BetAnswer {
    pub tag: u64,
    pub result: Result<Executed, ApiError>,
}

/// Where an answer goes.
pub enum ReplyTo {
    /// A caller waiting on its own channel.
    Caller(oneshot::Sender<Result<Answer, ApiError>>),
    /// A table stream's socket: its bets come back through its queue, with
    /// no task of their own. If the socket has gone, the bet's events are
    /// shown all the same through `shown`.
    Socket {
        to: mpsc::Sender<BetAnswer>,
        tag: u64,
        shown: Arc<dyn Publish>,
    },
}

/// An answer, or work, waiting for its group to be durable.
pub enum Pending {
    Answer {
        answer: Answer,
        to: ReplyTo,
    },
    /// Rounds a job finished: archived once durable, never before.
    Archive {
        rounds: Vec<Arc<RoundRecord>>,
        archiver: Archiver,
    },
    /// Told whether the group was made durable.
    Notify(std::sync::mpsc::Sender<bool>),
    /// A test's own look at the moment of delivery.
    #[cfg(test)]
    Test(Box<dyn FnOnce(bool) + Send>),
}

/// What became of a group's write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Durable,
    /// Certainly not written: refused, or taken back before any commit was sent.
    NotWritten,
    /// A commit was sent and its answer lost: written or not, only the journal can tell.
    Unknown,
}

impl Outcome {
    pub fn is_durable(self) -> bool {
        self == Outcome::Durable
    }

    /// The failure an answer of this outcome carries (none once durable).
    pub fn failure(self) -> Option<ApiError> {
        match self {
            Outcome::Durable => None,
            Outcome::NotWritten => Some(not_durable()),
            Outcome::Unknown => Some(outcome_unknown()),
        }
    }
}

/// Why an answer's group did not become durable.
pub fn not_durable() -> ApiError {
    ApiError::new(
        ErrorCode::Storage,
        "the write could not be made durable; nothing was changed",
    )
}

/// Why an answer's group may or may not be durable: its commit was sent,
/// and the answer lost.
pub fn outcome_unknown() -> ApiError {
    ApiError::new(
        ErrorCode::OutcomeUnknown,
        "the write was sent to the journal and its answer was lost: it may or may not have been made. Send the \
         request again with the same id (to this node once it serves again, or to the node that takes the casino \
         over): it acts at most once, and is answered as done if it was made",
    )
}

impl Pending {
    /// Delivers the answer, or the failure if its group did not become durable.
    pub fn deliver(self, durable: bool) {
        self.deliver_as(if durable { Outcome::Durable } else { Outcome::NotWritten });
    }

    /// Delivers the answer, or the failure `outcome` carries.
    pub fn deliver_as(self, outcome: Outcome) {
        let durable = outcome.is_durable();
        let failed = || outcome.failure().unwrap_or_else(not_durable);
        match self {
            Pending::Answer { answer, to } => match to {
                ReplyTo::Caller(tx) => {
                    let _ = tx.send(if durable { Ok(answer) } else { Err(failed()) });
                }
                ReplyTo::Socket { to, tag, shown } => {
                    let result = if durable { answer.executed() } else { Err(failed()) };
                    // The queue holds as many as the socket has in flight, so only a
                    // socket that has closed refuses: the bet's events go out all the same.
                    if let Err(unsent) = to.try_send(BetAnswer { tag, result }) {
                        if let Ok(executed) = unsent.into_inner().result {
                            shown.publish(&executed.views, &executed.texts);
                        }
                    }
                }
            },
            Pending::Archive { rounds, archiver } => {
                if durable {
                    archiver.send(rounds);
                }
            }
            Pending::Notify(tx) => {
                let _ = tx.send(durable);
            }
            #[cfg(test)]
            Pending::Test(f) => f(durable),
        }
    }
}
