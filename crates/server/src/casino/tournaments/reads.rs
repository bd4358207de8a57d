//! What clients read of the tournaments: the list, one tournament as its
//! reader may see it, its written rules, its forms.

use super::Held;
use crate::api::tournament::{
    EventStandings, MonthProceeds, ObjectionView, PayoutLineView, SplitShare, SplitView, Standing, TournamentBooksView,
    TournamentBrief, TournamentEntryLine, TournamentEventBrief, TournamentStandings, TournamentView,
};
use crate::api::{ApiError, ErrorCode, Role};
use crate::casino::err;
use croupier_core::tournament::{EventStatus, Tournament};

/// What a client reads of the tournaments.
#[derive(Debug)]
pub enum TournamentRead {
    /// Every tournament, in brief.
    List,
    /// One tournament as `role` (and, for a player, `username`) may see it.
    One { id: String, role: Role, username: String },
    /// Its written rules, for anyone (2213.06: a copy to every player).
    Rules { id: String },
    /// Its forms as CSV (2213.01-.02, 2213.05), for those who read its books.
    Forms { id: String },
    /// The standings of its events under way at the tables, by entry
    /// number and points, for a display board: no player's name.
    Standings { id: String },
}

/// What a read answers.
#[derive(Debug)]
pub enum TournamentAnswer {
    List(Vec<TournamentBrief>),
    One(Box<TournamentView>),
    Standings(TournamentStandings),
    Text(String),
}

fn brief(held: &Held) -> TournamentBrief {
    let t = &held.tournament;
    let spec = t.config().spec();
    let status = if t.concluded {
        "concluded"
    } else if t.events.iter().any(|e| e.started) {
        "running"
    } else {
        "announced"
    };
    TournamentBrief {
        id: spec.id.clone(),
        name: spec.name.clone(),
        profile: held.profile.clone(),
        currency: held.currency.clone(),
        first_day: spec.first_day.to_string(),
        last_day: spec.last_day.to_string(),
        status: status.into(),
        events: spec
            .events
            .iter()
            .zip(&t.events)
            .enumerate()
            .map(|(i, (e, s))| TournamentEventBrief {
                name: e.name.clone(),
                table: held.tables.by_event.get(&i).cloned(),
                day: e.day.to_string(),
                entry_fee: e.entry_fee.get(),
                buy_in: e.buy_in.get(),
                starting_points: e.starting_points,
                rebuys_max: e.rebuys.max,
                status: match s.status() {
                    // A concluded tournament's event never started was not played (a cancel).
                    EventStatus::Open if t.concluded => "not played",
                    EventStatus::Open => "open",
                    EventStatus::Running => "running",
                    EventStatus::Ended => "ended",
                }
                .into(),
            })
            .collect(),
        // 2214(2): the notice of each colour's points, as posted now.
        chips: held
            .tables
            .chip_values
            .iter()
            .map(|(colour, points)| crate::api::bodies::ChipValue {
                colour: colour.clone(),
                points: *points,
            })
            .collect(),
        split_permitted: spec.split_permitted,
        rules_filed_days_before: t.config().rules().rules_filed_days_before,
        escrow_required: t.config().escrow_required(),
    }
}

fn entry_line(e: &croupier_core::tournament::EntryLine) -> TournamentEntryLine {
    TournamentEntryLine {
        entry: e.entry,
        player: e.player.clone(),
        event: e.event.clone(),
        day: e.day.clone(),
        status: e.status.into(),
        fee_paid: e.fee_paid.into(),
        fee: e.fee_minor,
        buy_in_paid: e.buy_in_paid.into(),
        buy_in: e.buy_in_minor,
        rebuys: e.rebuys,
        rebuys_paid: e.rebuys_minor,
        note: e.note.clone(),
    }
}

fn payout_line(p: &croupier_core::tournament::PayoutLine) -> PayoutLineView {
    PayoutLineView {
        event: p.event.clone(),
        place: p.place,
        entry: p.entry,
        player: p.player.clone(),
        prize: p.prize.clone(),
        value: p.value_minor,
        payout: p.payout,
        by_split: p.by_split,
    }
}

fn split_view(t: &Tournament) -> Option<SplitView> {
    t.split.as_ref().map(|s| SplitView {
        event: t.config().event(s.event).map(|e| e.name.clone()),
        places: s.places.clone(),
        shares: s
            .shares
            .iter()
            .map(|&(entry, amount)| SplitShare { entry, amount })
            .collect(),
        agreed: s.agreed.clone(),
    })
}

impl<S: croupier_ledger::Storage> crate::casino::Cage<S> {
    /// Each event under way at a table, its entries ranked by their points
    /// there now; a player's name only where `named` says the reader may see it.
    fn standings(&self, held: &Held, named: impl Fn(&str) -> bool) -> Vec<EventStandings> {
        let t = &held.tournament;
        let mut out = Vec::new();
        for (&event, table) in &held.tables.by_event {
            if t.events[event].status() != EventStatus::Running {
                continue;
            }
            let mut rows: Vec<(u64, u32, &str)> = t
                .entries
                .iter()
                .filter(|e| e.event == event && e.status == croupier_core::tournament::EntryStatus::Playing)
                .map(|e| {
                    let points = croupier_ledger::Account::points(table, &e.player)
                        .map_or(0, |a| u64::try_from(self.ledger.balance(&a)).unwrap_or(0));
                    (points, e.number, e.player.as_str())
                })
                .collect();
            // Most points first; a tie by entry number, as the written rules say.
            rows.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            out.push(EventStandings {
                event: t.config().spec().events[event].name.clone(),
                table: table.clone(),
                entries: rows
                    .iter()
                    .map(|&(points, entry, player)| Standing {
                        entry,
                        points,
                        player: named(player).then(|| player.to_string()),
                    })
                    .collect(),
            });
        }
        out
    }

    /// The books of a tournament, for those who keep them.
    fn books(&self, id: &str, t: &Tournament) -> TournamentBooksView {
        let escrow_account = croupier_ledger::Account::of_tournament(croupier_ledger::TournamentAccount::Escrow, id)
            .map_or(0, |a| self.ledger.balance(&a));
        TournamentBooksView {
            proceeds: t
                .proceeds_by_month()
                .into_iter()
                .map(|(month, proceeds)| MonthProceeds { month, proceeds })
                .collect(),
            pool: t.pool,
            vouchers_held: t.vouchers_held,
            prizes_paid: t.prizes_paid,
            rules_filed: t.rules_filed.map(|d| d.to_string()),
            objection: t.objection.as_ref().map(|o| ObjectionView {
                day: o.day.to_string(),
                reason: o.reason.clone(),
            }),
            escrow: t.escrow,
            escrow_account: i64::try_from(escrow_account).unwrap_or(i64::MAX),
            escrow_funded: t.escrow_funded,
        }
    }

    /// A tournament, or the list of them, as the reader may see it.
    pub fn read_tournament(&self, read: TournamentRead) -> Result<TournamentAnswer, ApiError> {
        let find = |id: &str| {
            self.tournaments
                .get(id)
                .ok_or_else(|| err(ErrorCode::NoTournament, format!("no tournament {id:?}")))
        };
        match read {
            TournamentRead::List => Ok(TournamentAnswer::List(self.tournaments.values().map(brief).collect())),
            TournamentRead::Rules { id } => {
                let t = find(&id)?;
                let profile =
                    croupier_profiles::load(&t.profile).map_err(|e| err(ErrorCode::Internal, e.to_string()))?;
                Ok(TournamentAnswer::Text(croupier_profiles::tournament::written_rules(
                    t.tournament.config(),
                    &profile,
                )))
            }
            TournamentRead::Standings { id } => {
                let held = find(&id)?;
                Ok(TournamentAnswer::Standings(TournamentStandings {
                    name: held.tournament.config().spec().name.clone(),
                    standings: self.standings(held, |_| false),
                    tournament: id,
                }))
            }
            TournamentRead::Forms { id } => Ok(TournamentAnswer::Text(croupier_profiles::tournament::forms_csv(
                &find(&id)?.tournament,
            ))),
            TournamentRead::One { id, role, username } => {
                let held = find(&id)?;
                let t = &held.tournament;
                let books = crate::casino::policy::allows(role, crate::casino::policy::Act::ReadTournament)
                    || crate::casino::policy::allows(role, crate::casino::policy::Act::DirectTournament);
                // A player sees a proposed split they are part of, to agree to it.
                let in_split = t.split.as_ref().is_some_and(|s| {
                    s.shares
                        .iter()
                        .any(|(e, _)| t.entry(*e).is_ok_and(|e| e.player == username))
                });
                Ok(TournamentAnswer::One(Box::new(TournamentView {
                    brief: brief(held),
                    entries: t
                        .entry_form()
                        .iter()
                        .filter(|e| books || e.player == username)
                        .map(entry_line)
                        .collect(),
                    split: if books || in_split { split_view(t) } else { None },
                    standings: self.standings(held, |player| books || player == username),
                    // A player sees the prizes they won, and no one else's (no
                    // player's name or money reaches another).
                    payouts: t
                        .payout_form()
                        .iter()
                        .filter(|p| books || p.player == username)
                        .map(payout_line)
                        .collect(),
                    books: books.then(|| self.books(&id, t)),
                })))
            }
        }
    }
}
