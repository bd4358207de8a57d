//! A table: its core round, its players' colours, recall, operations log,
//! and the balances of its own accounts (`chips:T:*`, `layout:T`,
//! `float:T`, `tips:T`...). A table executes its requests itself, one at a
//! time: it checks each against the role policy and the rules, plans the
//! core events and the transfers that move their money, has the cage write
//! the journal entry ([`Commit`]), and then applies it. One file per kind
//! of request: [`money`] (buy-ins, sales, leaving, tips), [`bets`], [`round`]
//! (opening, betting, spins) and [`operations`] (inspections, adjustments,
//! emergencies, annulments, disputes).

mod bets;
pub use bets::bet_id_max_bytes;
mod bonus;
pub mod books;
pub(in crate::casino) use bonus::Flows;
pub use bonus::{Jackpot, JACKPOTS_KEPT};
mod chip_days;
mod coupons;
mod disputes;
mod log;
mod money;
pub(in crate::casino) use log::person;
pub use log::Signed;
pub use money::{DealerDay, SaleClaim, DEALER_SALE_MAX};
mod accounts;
mod operations;
mod past_posting;
mod plan;
mod points;
mod recall;
mod retire;
pub(in crate::casino) use super::plan::{account, transfer};
pub use plan::Executed;
pub(in crate::casino) use plan::{Effect, Plan};
pub use points::PointsPlay;
pub use retire::{HeldAtTable, TABLE_LABEL_MAX};
mod round;
pub mod slips;
pub mod witness;

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use croupier_core::round::{Event, Table};
use croupier_ledger::{Account, Applied, Record, Recorded, StreamEvent, TableAccount, Transfer};

use super::actor::Actor;
use super::directory::{Directory, SharedDirectory};
use super::err;
use super::journal::{self, JournalEvent};
use super::recall::RoundRecord;
use super::request::Request;
use crate::api::{ApiError, ErrorCode, OutcomeSource};
use recall::record_all;

/// How many entries of a table's operations log the server keeps in memory;
/// the journal keeps them all.
pub const TABLE_LOG_MAX: usize = 1_000;

#[derive(serde::Serialize, serde::Deserialize)]
pub struct TableSlot {
    pub id: String,
    pub table: Table,
    pub outcome: OutcomeSource,
    pub profile_name: String,
    /// Each seated player's colour and chip value (european-casino 5.1, Colorado 2203(3)).
    pub colours: BTreeMap<String, (String, u64)>,
    /// Colours may repeat: electronic terminals with no central screen (Colorado 2203(3)).
    pub shared_colours: bool,
    /// Where a wheel table's automated wheel streams its games.
    pub wheel_address: Option<String>,
    /// Shared once final, with the archive: a round's record is never copied.
    pub rounds: VecDeque<Arc<RoundRecord>>,
    /// The table's operations log, newest last: inspections and adjustments
    /// (Colorado 2212(5), Maryland ch.2 E), opening and closing, no spins,
    /// emergencies, annulments and disputes. Rebuilt from the journal on open.
    pub log: VecDeque<(u64, JournalEvent, Option<Signed>)>,
    /// Who the request being applied is from, for the log (`None`: the server).
    #[serde(skip)]
    acting: Option<Signed>,
    /// The round whose late bets were logged, and whose (once a player).
    #[serde(skip)]
    past_posted: past_posting::PastPosted,
    /// The balances of the table's own accounts (see [`TableSlot::balance`]):
    /// the table plans with them; the ledger holds them too, and checks again.
    books: accounts::Balances,
    /// Entries written for this table: they number its fills and dispute corrections.
    pub(super) entries: u64,
    /// What disputes from journal format 5 have corrected.
    corrected: disputes::Corrected,
    /// The issued match play coupons played here (journal format 5).
    coupons_played: coupons::CouponsPlayed,
    /// What dealers sold each player here on their latest UTC day of sales.
    dealer_sales: money::DealerSales,
    /// Rounds whose record is final (the next round has opened), for the
    /// recall archive; `None` while no one takes them.
    #[serde(skip)]
    finished: Option<Vec<Arc<RoundRecord>>>,
    /// The table's layout and float accounts, named once: every bet moves its
    /// stake to the layout.
    pub(super) layout: Account,
    pub(super) float: Account,
    /// The tournament event the table plays in points, if it plays one,
    /// and the last round before it last switched.
    pub points: Option<PointsPlay>,
    pub(super) switched_at_round: u64,
    /// When each seated player's colour chips were bought (european-casino
    /// 5.4; journal formats 10 to 13).
    chip_days: chip_days::ChipDays,
    /// Each seated player's purchases, each dated, and whether they took
    /// their chips away (journal format 14). Left out of a checkpoint while
    /// empty, as a journal of an older format never fills it.
    #[serde(default, skip_serializing_if = "chip_days::ChipsHeld::is_empty")]
    chips_held: chip_days::ChipsHeld,
    /// The felt's spots, worked out once: they follow from the profile and the
    /// wheel, which never change, and a public read asks for them often.
    #[serde(skip)]
    pub(in crate::casino) felt: std::sync::OnceLock<Vec<crate::api::bodies::LayoutSpot>>,
    /// The jackpots the table's progressive meters paid, newest last.
    pub jackpots: bonus::Jackpots,
    /// The disputes decided here under a client's id, each with its
    /// contents' digest (journal format 14): a resend decides nothing twice.
    #[serde(default, skip_serializing_if = "disputes::DisputeIds::is_empty")]
    disputes: disputes::DisputeIds,
    /// Each player's bet ids in the earlier rounds the table keeps, with the
    /// round, worked out from their records the first time a bet of the
    /// round in play asks (journal format 14).
    #[serde(skip)]
    earlier_bets: bets::EarlierBets,
    /// The books of the table's newest gaming days (journal format 14).
    #[serde(default, skip_serializing_if = "books::Books::is_empty")]
    books_by_day: books::Books,
    /// The dealer on duty, and while the table is open its last entry's
    /// time: the books' dealers' shares and open play count from them
    /// (journal format 15). Left out while none, as older journals give.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    on_duty: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    open_since_ms: Option<u64>,
    /// Its fill and credit slips and its float's counts (journal format 15).
    #[serde(default, skip_serializing_if = "slips::Slips::is_empty")]
    pub(super) slips: slips::Slips,
    /// The name the pages show beside its id (journal format 16).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Retired for good (journal format 16): it takes no request again.
    /// Left out while not, as older journals give.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub retired: bool,
    /// Its adjustments that named a security witness (journal format 16).
    #[serde(default, skip_serializing_if = "witness::Witnessing::is_empty")]
    pub(super) witnessing: witness::Witnessing,
}

/// How a table's entry is written: the transfers and the journal's event,
/// and whether the table waits for the ledger's verdict on the transfers or
/// has checked everything itself and goes on.
pub trait Commit {
    /// `claim`: a dealer's sale the cage checks against the player's day
    /// at every table (journal format 14), with a verdict.
    fn commit(
        &mut self,
        at_ms: u64,
        transfers: Vec<Transfer>,
        event: StreamEvent,
        verdict: bool,
        claim: Option<SaleClaim>,
    ) -> Result<Vec<Applied>, ApiError>;
}

/// A table's entry that needs no verdict: its transfers and its journal event.
pub fn checked_entry(transfers: Vec<Transfer>, event: StreamEvent) -> Recorded {
    Recorded::new(Record::Commit {
        transfers,
        events: vec![event],
    })
}

/// What a table's request comes to before its entry is written.
struct Prepared {
    transfers: Vec<Transfer>,
    event: StreamEvent,
    executed: Executed,
    effects: Vec<Effect>,
    needs_verdict: bool,
    claim: Option<SaleClaim>,
}

/// The most a table's request may refer to before the ledger must say
/// whether it can be done: money out of a wallet, or a transfer id the
/// client chose (which the ledger may already hold).
fn needs_verdict(request: &Request) -> bool {
    matches!(
        request,
        Request::BuyIn { .. }
            | Request::SellChips { .. }
            | Request::LeaveTable { .. }
            | Request::Tip { .. }
            | Request::SignSlip { .. }
    )
}

impl TableSlot {
    /// A new table, closed, with nothing on its books.
    pub(super) fn new(
        id: &str,
        table: Table,
        outcome: OutcomeSource,
        profile_name: String,
        shared_colours: bool,
        wheel_address: Option<String>,
    ) -> Result<TableSlot, ApiError> {
        Ok(TableSlot {
            id: id.to_string(),
            table,
            outcome,
            profile_name,
            colours: BTreeMap::new(),
            shared_colours,
            wheel_address,
            rounds: VecDeque::new(),
            log: VecDeque::new(),
            acting: None,
            past_posted: past_posting::PastPosted::default(),
            books: accounts::Balances::default(),
            entries: 0,
            corrected: disputes::Corrected::default(),
            coupons_played: coupons::CouponsPlayed::default(),
            dealer_sales: money::DealerSales::default(),
            finished: None,
            layout: account(Account::of_table(TableAccount::Layout, id))?,
            float: account(Account::of_table(TableAccount::Float, id))?,
            points: None,
            switched_at_round: 0,
            chip_days: chip_days::ChipDays::default(),
            chips_held: chip_days::ChipsHeld::default(),
            felt: std::sync::OnceLock::new(),
            jackpots: bonus::Jackpots::new(),
            disputes: disputes::DisputeIds::default(),
            books_by_day: books::Books::new(),
            on_duty: None,
            open_since_ms: None,
            slips: slips::Slips::default(),
            witnessing: witness::Witnessing::default(),
            earlier_bets: bets::EarlierBets::default(),
            label: None,
            retired: false,
        })
    }

    /// [`TableSlot::execute`] without logging a refused late bet.
    fn execute_request(
        &mut self,
        directory: &SharedDirectory,
        at_ms: u64,
        actor: &Actor,
        request: Request,
        cage: &mut impl Commit,
    ) -> Result<Executed, ApiError> {
        // The directory's version is taken, not locked: the cage may change it meanwhile.
        let dir = directory.read();
        let books = dir.rules().table_books;
        // Open play and the dealer on duty are counted from format 15 only:
        // an older journal's checkpoints hold the same bytes its build wrote.
        let shares = dir.rules().day_report;
        let runs_game = shares && books::runs_game(&request);
        // Each dealer's open play, tips and shift from format 16 only, for the same reason.
        let shifts = dir.rules().dealer_shifts;
        let leave_id = match &request {
            Request::LeaveTable { id, .. } => Some(id.clone()),
            _ => None,
        };
        let Some(Prepared {
            transfers,
            event,
            executed,
            effects,
            needs_verdict,
            claim,
        }) = self.prepare(&dir, at_ms, actor, request)?
        else {
            return Ok(Executed::default());
        };
        if needs_verdict {
            let kept = transfers.clone();
            let applied = cage.commit(at_ms, transfers, event, true, claim)?;
            if journal::resent(dir.journal_format(), &applied) {
                // A resend moved nothing and wrote nothing. A leave's amount
                // is the chips held now, not the request's: its id found used
                // means it cashed in chips before, and the player now seated
                // again keeps their seat and chips.
                return match leave_id {
                    Some(id) => Err(err(
                        ErrorCode::Refused,
                        format!(
                            "leave id {id} was used before, when you left with the chips you held then; \
                             to leave with these, send a new id"
                        ),
                    )),
                    None => Ok(Executed::default()),
                };
            }
            let made: Vec<&Transfer> = kept
                .iter()
                .zip(&applied)
                .filter(|(_, a)| **a == Applied::Created)
                .map(|(t, _)| t)
                .collect();
            let deltas = self.deltas(made.iter().copied());
            if shares {
                self.before_entry(dir.gaming_day(at_ms), at_ms, actor, runs_game, shifts);
            }
            if books {
                let tally = self.tally(made.into_iter());
                self.enter(dir.gaming_day(at_ms), &tally, shares, shifts);
            }
            self.book(deltas);
        } else {
            let deltas = self.deltas(transfers.iter());
            // Entered once the cage has taken them: a refused write enters nothing.
            let tally = books.then(|| self.tally(transfers.iter()));
            cage.commit(at_ms, transfers, event, false, None)?;
            if shares {
                self.before_entry(dir.gaming_day(at_ms), at_ms, actor, runs_game, shifts);
            }
            if let Some(tally) = tally {
                self.enter(dir.gaming_day(at_ms), &tally, shares, shifts);
            }
            self.book(deltas);
        }
        self.entries += 1;
        // The log says who did what (Colorado 2212(5)): the server's own acts are
        // unsigned. A licence never recorded shows as "-", as the events say it.
        self.acting = (log::signs(&effects) && actor.username != Actor::system().username).then(|| Signed {
            by: actor.username.clone(),
            licence: person(actor, "").licence,
        });
        for effect in effects {
            self.apply(&dir, at_ms, effect);
        }
        if shares {
            self.after_entry(at_ms);
        }
        self.acting = None;
        Ok(executed)
    }

    fn prepare(
        &self,
        dir: &Directory,
        at_ms: u64,
        actor: &Actor,
        request: Request,
    ) -> Result<Option<Prepared>, ApiError> {
        let plan = self.plan(dir, at_ms, actor, &request)?;
        if plan.is_empty() {
            return Ok(None);
        }
        // A bet or a correction in points draws on an account the cage also
        // moves: the ledger judges it.
        let needs_verdict = needs_verdict(&request)
            || (self.points.is_some() && matches!(request, Request::PlaceBet { .. } | Request::Dispute { .. }));
        if !needs_verdict {
            self.precheck(&plan.transfers)?;
        }
        let event = journal::write(dir.journal_format(), at_ms, actor, &request, &plan.events)?;
        Ok(Some(Prepared {
            transfers: plan.transfers,
            event,
            executed: Executed::of(&plan.events),
            effects: plan.effects,
            needs_verdict,
            claim: plan.claim,
        }))
    }

    fn plan(&self, dir: &Directory, at_ms: u64, actor: &Actor, request: &Request) -> Result<Plan, ApiError> {
        dir.check_actor(actor)?;
        super::policy::require(actor.role, request.act(actor))?;
        self.refuse_if_retired(request)?;
        let mut plan = Plan::new();
        match request {
            Request::RetireTable { .. } | Request::EditTable { .. } => {
                self.plan_back_office(dir, at_ms, request, &mut plan)?
            }
            Request::BuyIn { .. } | Request::SellChips { .. } | Request::LeaveTable { .. } | Request::Tip { .. } => {
                self.refuse_money_in_points(request)?;
                self.plan_money(dir, at_ms, actor, request, &mut plan)?
            }
            Request::TablePlay { .. } => self.plan_table_play(dir, request, &mut plan)?,
            Request::BonusWager { .. } | Request::DrawBonus { .. } => {
                self.plan_bonus(dir, at_ms, actor, request, &mut plan)?
            }
            Request::ConfirmChips { player, .. } => self.plan_confirm_chips(dir, at_ms, actor, player, &mut plan)?,
            Request::ChipsTakenAway { player, .. } => self.plan_take_away(dir, at_ms, actor, player, &mut plan)?,
            Request::RecordPastPosting { .. } => self.plan_past_posting(dir, at_ms, request, &mut plan)?,
            Request::PlaceBet { .. } | Request::CancelBet { .. } | Request::VerbalBets { .. } => {
                self.plan_bet(dir, at_ms, actor, request, &mut plan)?
            }
            Request::OpenTable { .. }
            | Request::CloseTable { .. }
            | Request::OpenBetting { .. }
            | Request::NoMoreBets { .. }
            | Request::Spin { .. }
            | Request::Draw { .. }
            | Request::WheelGame { .. }
            | Request::VoidRound { .. } => self.plan_round(dir, at_ms, actor, request, &mut plan)?,
            Request::Inspect { .. }
            | Request::Adjust { .. }
            | Request::InspectBall { .. }
            | Request::SetLimits { .. }
            | Request::DeclareEmergency { .. }
            | Request::LiftEmergency { .. }
            | Request::AnnulBets { .. }
            | Request::Dispute { .. } => self.plan_operation(dir, at_ms, actor, request, &mut plan)?,
            Request::RequestSlip { .. }
            | Request::SignSlip { .. }
            | Request::VoidSlip { .. }
            | Request::CountFloat { .. } => self.plan_slip(dir, at_ms, actor, request, &mut plan)?,
            Request::WitnessAdjustment { .. } | Request::WithdrawAdjustment { .. } => {
                self.plan_witness(dir, at_ms, actor, request, &mut plan)?
            }
            Request::CreateUser { .. }
            | Request::SetLicence { .. }
            | Request::NameOperator { .. }
            | Request::SetGamingDay { .. }
            | Request::LockUser { .. }
            | Request::UnlockUser { .. }
            | Request::RetireUser { .. }
            | Request::EditUser { .. }
            | Request::SetPassword { .. }
            | Request::LoginFailed { .. }
            | Request::LoginSucceeded { .. }
            | Request::JournalFormat { .. }
            | Request::Checkpoint { .. }
            | Request::RecoverJournal { .. }
            | Request::CreateTable { .. }
            | Request::CashIn { .. }
            | Request::CashOut { .. }
            | Request::CountDrawer { .. }
            | Request::VoidCageTransaction { .. }
            | Request::IssueCoupon { .. }
            | Request::CreateTournament { .. }
            | Request::Tournament { .. } => return Err(err(ErrorCode::Internal, "the cage's request reached a table")),
        }
        Ok(plan)
    }

    fn apply(&mut self, dir: &Directory, at_ms: u64, effect: Effect) {
        match effect {
            Effect::DealerSold {
                player,
                day,
                amount,
                id,
            } => self.dealer_sales.record(player, day, amount, id),
            Effect::Coupon { coupon, played_on } => self.coupons_played.set(coupon, played_on),
            Effect::Corrected { round, corrections } => {
                let oldest = self.rounds.front().map_or(0, |r| r.round);
                self.corrected.add(round, corrections, oldest);
            }
            Effect::ChipDays(change) => self.change_chip_days(at_ms, change),
            Effect::Log(event) => {
                self.apply_back_office(&event);
                self.log_event(at_ms, event)
            }
            Effect::Slip(change) => self.change_slips(dir.gaming_day(at_ms), change),
            Effect::Witness(change) => self.change_witnessing(at_ms, change),
            Effect::DisputeId { id, digest } => self.disputes.decided(id, digest),
            Effect::Points(play) => {
                // The plan checked that no round is under way.
                let _ = self.table.set_points_play(play.is_some());
                self.points = play;
                self.switched_at_round = self.table.round();
            }
            Effect::Seat { player, colour } => match colour {
                Some(c) => {
                    self.colours.insert(player, c);
                }
                None => {
                    self.colours.remove(&player);
                }
            },
            Effect::Core { events } => {
                // Recall keeps the seated players' chips when betting opens and when the
                // round settles; only those events pay for the snapshot.
                let opens = events.iter().any(|e| matches!(e, Event::BettingOpened { .. }));
                if opens {
                    self.earlier_bets = bets::EarlierBets::default();
                }
                let settles = events.iter().any(|e| matches!(e, Event::RoundSettled { .. }));
                let snapshot = |slot: &TableSlot| -> BTreeMap<String, i128> {
                    slot.colours.keys().map(|p| (p.clone(), slot.chips(p))).collect()
                };
                let before = if opens { snapshot(self) } else { BTreeMap::new() };
                let name_of = |p: u64| dir.name_of(p);
                record_all(self, dir.journal_format(), at_ms, &events, &name_of, &before);
                self.keep_jackpots(at_ms, &events, &name_of);
                self.log_all(at_ms, &events, &name_of);
                self.table.apply_all(&events);
                let played = events
                    .iter()
                    .any(|e| matches!(e, Event::RoundSettled { pocket: Some(_), .. }));
                if played && dir.rules().table_books {
                    let shares = dir.rules().day_report;
                    self.count_round(dir.gaming_day(at_ms), shares);
                }
                if settles {
                    let after = snapshot(self);
                    if let Some(last) = self.rounds.back_mut() {
                        Arc::make_mut(last).chips_after = after;
                    }
                }
            }
        }
    }
}
