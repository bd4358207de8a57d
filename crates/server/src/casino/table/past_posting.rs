//! Past posting logged (low-limit-house Irregularities (4): "If a player
//! attempts to place a wager after the dealer states 'No More Bets' the
//! late bet will not be honored ... This is Past Posting and will be
//! addressed accordingly by casino management"). From journal format 15 a
//! player's bet refused as past posting is also written to the table's
//! operations log, with the player, spot, stake and time: the server
//! journals its own request, `record_past_posting`, once a player a round
//! (a thousand late bets write one entry), for a spot the table knows.

use croupier_core::spot::Spot;

use super::{Executed, Plan, TableSlot};
use crate::api::{ApiError, ErrorCode, Role};
use crate::casino::actor::Actor;
use crate::casino::directory::{Directory, SharedDirectory};
use crate::casino::journal::{require_format, JournalEvent, FORMAT_PAST_POSTING_LOGGED};
use crate::casino::request::Request;
use crate::casino::Commit;

/// The round whose late bets were logged, and whose: each player's first
/// late bet of a round is logged once. Only this file reads or changes it.
#[derive(Clone, Debug, Default)]
pub(super) struct PastPosted {
    round: u64,
    players: Vec<String>,
}

impl TableSlot {
    /// Executes a request at this table, its single writer: plans it from the
    /// table's own state, has `cage` write its entry, and applies it. A
    /// request the table has checked in full is applied without waiting for
    /// the cage; one whose money the ledger alone can judge waits for its
    /// verdict. The events come with their texts for the streams. A player's
    /// bet refused as past posting is refused still, and logged.
    pub fn execute(
        &mut self,
        directory: &SharedDirectory,
        at_ms: u64,
        actor: &Actor,
        request: Request,
        cage: &mut impl Commit,
    ) -> Result<Executed, ApiError> {
        let late = self.late_bet(directory, actor, &request);
        let refused = match self.execute_request(directory, at_ms, actor, request, cage) {
            Err(e) if e.code == ErrorCode::PastPosting => e,
            done => return done,
        };
        if let Some(record) = late {
            let player = actor.username.clone();
            match self.execute_request(directory, at_ms, &Actor::system(), record, cage) {
                Ok(_) => {
                    let round = self.table.round();
                    if self.past_posted.round != round {
                        self.past_posted = PastPosted {
                            round,
                            players: Vec::new(),
                        };
                    }
                    self.past_posted.players.push(player);
                }
                Err(e) => tracing::warn!(table = %self.id, player, "past posting not logged: {}", e.message),
            }
        }
        Err(refused)
    }

    /// The log's record of `request` should it be refused as past posting:
    /// a player's bet on a spot of this table's wheel, the first of theirs
    /// this round, in a journal that logs them.
    fn late_bet(&self, directory: &SharedDirectory, actor: &Actor, request: &Request) -> Option<Request> {
        let Request::PlaceBet { spot, stake, .. } = request else {
            return None;
        };
        let logged = self.past_posted.round == self.table.round() && self.past_posted.players.contains(&actor.username);
        if actor.role != Role::Player || logged || !directory.read().rules().past_posting_logged {
            return None;
        }
        let spot = Spot::parse(spot, self.table.config().wheel).ok()?;
        Some(Request::RecordPastPosting {
            table: self.id.clone(),
            player: actor.username.clone(),
            spot: spot.notation(),
            stake: *stake,
        })
    }

    /// The server's record of a late bet, for the operations log.
    pub(super) fn plan_past_posting(
        &self,
        dir: &Directory,
        at_ms: u64,
        request: &Request,
        plan: &mut Plan,
    ) -> Result<(), ApiError> {
        require_format(dir.journal_format(), FORMAT_PAST_POSTING_LOGGED, "past posting is")?;
        let Request::RecordPastPosting {
            player, spot, stake, ..
        } = request
        else {
            return Ok(());
        };
        dir.player(player)?;
        let event = JournalEvent::PastPosting {
            table: self.id.clone(),
            player: player.clone(),
            spot: spot.clone(),
            stake: stake.get(),
            at_ms,
        };
        plan.events.push(event.clone());
        plan.effects.push(super::Effect::Log(event));
        Ok(())
    }
}
