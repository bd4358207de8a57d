//! A table playing a tournament's event (Colorado 2213.07, 2214; journal
//! format 8). Its chips are points with no cash value, in accounts of their
//! own (`points:T:P`, `points-layout:T`, `points-bank:T`) that the ledger
//! never lets move into money. The cage gives the table its event, and
//! issues and sweeps the players' points; the table plays them. A table
//! switches between cash play and points only between rounds, with no cash
//! chips seated: never both at once.

use croupier_core::round::Phase;
use croupier_ledger::{Account, TableAccount};

use super::{account, Effect, Plan, TableSlot};
use crate::api::bodies::{ChipValue, PointsNotice};
use crate::api::{ApiError, ErrorCode};
use crate::casino::directory::{Directory, TableEvent};
use crate::casino::err;
use crate::casino::journal::{require_format, JournalEvent, FORMAT_TOURNAMENT_TABLES};
use crate::casino::request::Request;

/// The tournament event a table plays in points.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PointsPlay {
    pub tournament: String,
    pub event: usize,
}

impl TableSlot {
    /// A switch to the table's tournament event, or back to cash play.
    pub(super) fn plan_table_play(&self, dir: &Directory, request: &Request, plan: &mut Plan) -> Result<(), ApiError> {
        let Request::TablePlay { tournament, .. } = request else {
            return Err(err(ErrorCode::Internal, "not a switch of play"));
        };
        require_format(
            dir.journal_format(),
            FORMAT_TOURNAMENT_TABLES,
            "tournament play at a table is",
        )?;
        if !matches!(self.table.phase(), Phase::Closed | Phase::Open) {
            return Err(err(
                ErrorCode::RoundUnderWay,
                "a table switches between cash play and a tournament only between rounds (2213.07(5))",
            ));
        }
        let given = dir.table_event(&self.id);
        match tournament {
            Some(t) => {
                let Some(event) = given.filter(|e| e.tournament == *t && !e.ended) else {
                    return Err(err(
                        ErrorCode::TournamentRefused,
                        format!(
                            "table {} is not given to an event of tournament {t:?} still to be played; the director gives it one first",
                            self.id
                        ),
                    ));
                };
                if self
                    .points
                    .as_ref()
                    .is_some_and(|p| p.tournament == *t && p.event == event.event)
                {
                    // Sent again: it plays that event already.
                    return Ok(());
                }
                // A bet in prison rides into the next round: cash stays cash.
                if self.own_balance(TableAccount::Layout) != 0 {
                    return Err(err(
                        ErrorCode::TournamentRefused,
                        format!(
                            "cash bets are still on table {}'s layout (in prison): a table plays cash or a \
                             tournament, never both (2214(1)); switch once they are decided",
                            self.id
                        ),
                    ));
                }
                if !self.colours.is_empty() {
                    return Err(err(
                        ErrorCode::TournamentRefused,
                        format!(
                            "{} player(s) hold cash chips at table {}: a table plays cash or a tournament, never both, \
                             and tournament chips never mix with cash chips (2214(1)); they cash in first",
                            self.colours.len(),
                            self.id
                        ),
                    ));
                }
                plan.events.push(JournalEvent::TablePlay {
                    table: self.id.clone(),
                    tournament: Some(t.clone()),
                    event: Some(event.event_name.clone()),
                });
                plan.effects.push(Effect::Points(Some(PointsPlay {
                    tournament: t.clone(),
                    event: event.event,
                })));
            }
            None => {
                let Some(play) = &self.points else {
                    // Sent again: it plays cash already.
                    return Ok(());
                };
                if let Some(e) = given.filter(|e| e.tournament == play.tournament && e.event == play.event && !e.ended)
                {
                    return Err(err(
                        ErrorCode::TournamentRefused,
                        format!(
                            "event {:?} of tournament {} is still played at table {}: the director ends it first",
                            e.event_name, e.tournament, self.id
                        ),
                    ));
                }
                if self.own_balance(TableAccount::PointsLayout) != 0 {
                    return Err(err(
                        ErrorCode::TournamentRefused,
                        format!(
                            "tournament points are still on table {}'s layout (a bet in prison): points never \
                             become cash (2214(1)); switch once they are decided",
                            self.id
                        ),
                    ));
                }
                plan.events.push(JournalEvent::TablePlay {
                    table: self.id.clone(),
                    tournament: None,
                    event: None,
                });
                plan.effects.push(Effect::Points(None));
            }
        }
        Ok(())
    }

    /// A dispute corrects a round only in the kind of chips it was played
    /// in: none played before the table last switched.
    pub(super) fn check_same_play(&self, round: u64) -> Result<(), ApiError> {
        if round <= self.switched_at_round {
            return Err(err(
                ErrorCode::BadCorrection,
                format!(
                    "round {round} at table {} was played before it last switched between cash and tournament \
                     points, at round {}: a correction pays in the chips its round was played in",
                    self.id, self.switched_at_round
                ),
            ));
        }
        Ok(())
    }

    /// What the table posts while it plays a tournament's event: the
    /// event, and each colour's points now (2214(1)-(2)).
    pub fn points_notice(&self, dir: &Directory) -> Option<PointsNotice> {
        let event = self.points_event(dir)?;
        let values: Vec<String> = event.colours.iter().map(|(c, p)| format!("{c} {p}")).collect();
        Some(PointsNotice {
            tournament: event.tournament.clone(),
            event: event.event_name.clone(),
            running: event.running,
            chip_values: event
                .colours
                .iter()
                .map(|(colour, points)| ChipValue {
                    colour: colour.clone(),
                    points: *points,
                })
                .collect(),
            notice: format!(
                "This table plays {} of tournament {}. Tournament chips are points with no cash value: never \
                 redeemed, never bought with or mixed with cash chips, and no wager size limit applies (2214(1)). \
                 Points per chip now: {} (2214(2)).",
                event.event_name,
                event.tournament,
                values.join(", ")
            ),
        })
    }

    /// In points a dispute corrects points only while the event is under
    /// way: once it has ended its standings are the prizes', and the points
    /// went back to the bank.
    pub(super) fn check_points_dispute(&self, dir: &Directory) -> Result<(), ApiError> {
        if self.points.is_some() && !self.points_event(dir).is_some_and(|e| e.running) {
            return Err(err(
                ErrorCode::BadCorrection,
                format!(
                    "table {} plays a tournament's event that is not under way: its points are corrected only \
                     during the event",
                    self.id
                ),
            ));
        }
        Ok(())
    }

    /// The event this table plays, as the cage publishes it, while it plays in points.
    pub(super) fn points_event<'d>(&self, dir: &'d Directory) -> Option<&'d TableEvent> {
        let play = self.points.as_ref()?;
        dir.table_event(&self.id)
            .filter(|e| e.tournament == play.tournament && e.event == play.event)
    }

    /// In points, a bet is its entrant's own, while the event is under way
    /// (2213.07(4)); no match play coupon, which is money, plays (2214(1)).
    pub(super) fn check_entrant(&self, dir: &Directory, player: &str, coupon: bool) -> Result<(), ApiError> {
        let Some(play) = &self.points else {
            return Ok(());
        };
        let Some(event) = self.points_event(dir).filter(|e| e.running) else {
            return Err(err(
                ErrorCode::TournamentRefused,
                format!(
                    "table {} plays tournament {}, whose event here is not under way",
                    self.id, play.tournament
                ),
            ));
        };
        if !event.players.contains_key(player) {
            return Err(err(
                ErrorCode::TournamentRefused,
                format!(
                    "you have no entry playing event {:?} of tournament {}: at this table only its entrants bet, \
                     each with their own chips (2213.07(4))",
                    event.event_name, event.tournament
                ),
            ));
        }
        if coupon {
            return Err(err(
                ErrorCode::CouponNotAccepted,
                "a match play coupon is money: tournament chips are points and never mix with it (2214(1))",
            ));
        }
        Ok(())
    }

    /// The account `player`'s stakes come from and winnings go to: their
    /// colour chips, or their points while the table plays a tournament.
    pub(in crate::casino) fn stakes_of(&self, player: &str) -> Result<Account, ApiError> {
        match self.points {
            Some(_) => account(Account::points(&self.id, player)),
            None => self.chips_of(player),
        }
    }

    /// The layout and the float (the bank of points in a tournament) a round plays on.
    pub(in crate::casino) fn round_accounts(&self) -> Result<(Account, Account), ApiError> {
        match self.points {
            Some(_) => Ok((
                self.own(TableAccount::PointsLayout)?,
                self.own(TableAccount::PointsBank)?,
            )),
            None => Ok((self.layout.clone(), self.float.clone())),
        }
    }

    /// Money in or out at a table playing points is refused: its chips are
    /// points, never bought, redeemed or tipped (2214(1)).
    pub(super) fn refuse_money_in_points(&self, request: &Request) -> Result<(), ApiError> {
        match (&self.points, request) {
            (Some(play), Request::BuyIn { .. } | Request::SellChips { .. } | Request::Tip { .. }) => Err(err(
                ErrorCode::TournamentRefused,
                format!(
                    "table {} plays tournament {}: its chips are points with no cash value, never bought with \
                     cash, redeemed or tipped (2214(1))",
                    self.id, play.tournament
                ),
            )),
            _ => Ok(()),
        }
    }
}
