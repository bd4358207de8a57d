//! The cage's side of a tournament: planning its requests (each a
//! [`crate::casino::tournaments`] rule) and applying what they did once
//! durable, to the tournament and to the tables its events play at.

use croupier_core::tournament::Event;
use croupier_ledger::Account;

use croupier_core::tournament::{EventStatus, Tournament};

use super::Effect;
use crate::api::tournament::{
    EventStandings, MonthProceeds, ObjectionView, Standing, TournamentBooksView, TournamentStandings, TournamentView,
};
use crate::api::{ApiError, ErrorCode};
use crate::casino::actor::Actor;
use crate::casino::directory::Directory;
use crate::casino::err;
use crate::casino::journal::tournament::TournamentOrder;
use crate::casino::request::Request;
use crate::casino::tournaments::reads::{brief, entry_line, payout_line, split_view};
use crate::casino::tournaments::{plan_create, plan_order, published as published_tables, Floor, Tables};
use crate::casino::tournaments::{Held, TournamentAnswer, TournamentRead};

/// A cage request's plan.
type Planned = crate::casino::plan::Plan<Effect>;

impl<S: croupier_ledger::Storage> super::Cage<S> {
    /// A tournament's events once durable, and its tables where an order
    /// changed them; each of its tables learns its event's state (2214(2)).
    pub(super) fn apply_tournament(
        &mut self,
        id: &str,
        order: Option<(String, TournamentOrder)>,
        events: &[Event],
        tables: Option<Tables>,
    ) {
        let Some(held) = self.tournaments.get_mut(id) else {
            return;
        };
        if let Some((order_id, order)) = order {
            held.orders.insert(order_id, order);
        }
        for event in events {
            held.tournament.apply(event);
        }
        // Tables taken back from an event: no longer the event's to play.
        let released: Vec<(usize, String)> = tables
            .as_ref()
            .map(|next| {
                held.tables
                    .by_event
                    .iter()
                    .filter(|(event, table)| next.by_event.get(event) != Some(table))
                    .map(|(event, table)| (*event, table.clone()))
                    .collect()
            })
            .unwrap_or_default();
        if let Some(tables) = tables {
            held.tables = tables;
        }
        let published = published_tables(id, held);
        self.directory.change(|dir| {
            for (event, table) in &released {
                if dir
                    .table_event(table)
                    .is_some_and(|now| now.tournament == id && now.event == *event)
                {
                    dir.clear_table_event(table);
                }
            }
            for (table, event) in published {
                // A table is its latest event's: an ended event of this
                // tournament never takes back a table given since to another.
                let ours = dir
                    .table_event(&table)
                    .is_none_or(|now| now.tournament == event.tournament && now.event == event.event);
                if ours || !event.ended {
                    dir.set_table_event(table, event);
                }
            }
        });
    }

    /// A tournament request's plan; `None` for any other request.
    pub(super) fn plan_tournament(
        &self,
        dir: &Directory,
        at_ms: u64,
        actor: &Actor,
        request: &Request,
    ) -> Option<Result<Planned, ApiError>> {
        match request {
            Request::CreateTournament { config } => Some(
                plan_create(&self.tournaments, self.currency.as_deref(), dir, at_ms, config)
                    .map(|(events, held)| Planned::of(Vec::new(), events, vec![Effect::AddTournament(Box::new(held))])),
            ),
            Request::Tournament { tournament, order } => {
                let balance = |a: &Account| self.ledger.balance(a);
                let floor = Floor {
                    tables: &self.tables,
                    balance: &balance,
                };
                Some(
                    plan_order(&self.tournaments, dir, at_ms, actor, tournament, order, &floor).map(
                        |(transfers, journal, events, tables)| {
                            // A resend changes nothing and writes nothing.
                            if journal.is_empty() && transfers.is_empty() {
                                return Planned::of(transfers, journal, Vec::new());
                            }
                            let effect = Effect::Tournament {
                                id: tournament.clone(),
                                order: order.id().map(|i| (i.to_string(), order.clone())),
                                events,
                                tables,
                            };
                            Planned::of(transfers, journal, vec![effect])
                        },
                    ),
                )
            }
            _ => None,
        }
    }
}

impl<S: croupier_ledger::Storage> super::Cage<S> {
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
