//! What clients read of the tournaments: the list, one tournament as its
//! reader may see it, its written rules, its forms.

use super::Held;
use crate::api::{ApiError, ErrorCode, Role};
use crate::casino::err;
use croupier_core::tournament::Tournament;

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

/// What a read answers: JSON, or text.
#[derive(Debug)]
pub enum TournamentAnswer {
    Json(serde_json::Value),
    Text(String),
}

fn brief(held: &Held) -> serde_json::Value {
    let t = &held.tournament;
    let spec = t.config().spec();
    let status = if t.concluded {
        "concluded"
    } else if t.events.iter().any(|e| e.started) {
        "running"
    } else {
        "announced"
    };
    serde_json::json!({
        "id": spec.id,
        "name": spec.name,
        "profile": held.profile,
        "currency": held.currency,
        "first_day": spec.first_day.to_string(),
        "last_day": spec.last_day.to_string(),
        "status": status,
        "events": spec.events.iter().zip(&t.events).enumerate().map(|(i, (e, s))| serde_json::json!({
            "name": e.name,
            "table": held.tables.by_event.get(&i),
            "day": e.day.to_string(),
            "entry_fee": e.entry_fee.get(),
            "buy_in": e.buy_in.get(),
            "starting_points": e.starting_points,
            "rebuys_max": e.rebuys.max,
            "status": match s.status() {
                // A concluded tournament's event never started was not played (a cancel).
                croupier_core::tournament::EventStatus::Open if t.concluded => "not played",
                croupier_core::tournament::EventStatus::Open => "open",
                croupier_core::tournament::EventStatus::Running => "running",
                croupier_core::tournament::EventStatus::Ended => "ended",
            },
        })).collect::<Vec<_>>(),
        // 2214(2): the notice of each colour's points, as posted now.
        "chips": held.tables.chip_values.iter().map(|(c, p)| serde_json::json!({"colour": c, "points": p})).collect::<Vec<_>>(),
        "split_permitted": spec.split_permitted,
    })
}

fn entry_json(e: &croupier_core::tournament::EntryLine) -> serde_json::Value {
    serde_json::json!({
        "entry": e.entry, "player": e.player, "event": e.event, "day": e.day, "status": e.status,
        "fee_paid": e.fee_paid, "fee": e.fee_minor, "buy_in_paid": e.buy_in_paid, "buy_in": e.buy_in_minor,
        "rebuys": e.rebuys, "rebuys_paid": e.rebuys_minor, "note": e.note,
    })
}

fn payout_json(p: &croupier_core::tournament::PayoutLine) -> serde_json::Value {
    serde_json::json!({
        "event": p.event, "place": p.place, "entry": p.entry, "player": p.player, "prize": p.prize,
        "value": p.value_minor, "payout": p.payout, "by_split": p.by_split,
    })
}

fn split_json(t: &Tournament) -> serde_json::Value {
    t.split.as_ref().map_or(serde_json::Value::Null, |s| {
        serde_json::json!({
            "event": t.config().event(s.event).map(|e| e.name.clone()),
            "places": s.places,
            "shares": s.shares.iter().map(|(e, v)| serde_json::json!({"entry": e, "amount": v})).collect::<Vec<_>>(),
            "agreed": s.agreed,
        })
    })
}

impl<S: croupier_ledger::Storage> crate::casino::Cage<S> {
    /// Each event under way at a table, its entries ranked by their points
    /// there now; a player's name only where `named` says the reader may see it.
    fn standings(&self, held: &Held, named: impl Fn(&str) -> bool) -> serde_json::Value {
        let t = &held.tournament;
        let mut out = Vec::new();
        for (&event, table) in &held.tables.by_event {
            if t.events[event].status() != croupier_core::tournament::EventStatus::Running {
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
            out.push(serde_json::json!({
                "event": t.config().spec().events[event].name,
                "table": table,
                "entries": rows.iter().map(|(points, entry, player)| serde_json::json!({
                    "entry": entry,
                    "points": points,
                    "player": named(player).then_some(*player),
                })).collect::<Vec<_>>(),
            }));
        }
        out.into()
    }

    /// A tournament, or the list of them, as the reader may see it.
    pub fn read_tournament(&self, read: TournamentRead) -> Result<TournamentAnswer, ApiError> {
        let find = |id: &str| {
            self.tournaments
                .get(id)
                .ok_or_else(|| err(ErrorCode::NoTournament, format!("no tournament {id:?}")))
        };
        match read {
            TournamentRead::List => Ok(TournamentAnswer::Json(serde_json::Value::Array(
                self.tournaments.values().map(brief).collect(),
            ))),
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
                Ok(TournamentAnswer::Json(serde_json::json!({
                    "tournament": id,
                    "name": held.tournament.config().spec().name,
                    "standings": self.standings(held, |_| false),
                })))
            }
            TournamentRead::Forms { id } => Ok(TournamentAnswer::Text(croupier_profiles::tournament::forms_csv(
                &find(&id)?.tournament,
            ))),
            TournamentRead::One { id, role, username } => {
                let held = find(&id)?;
                let t = &held.tournament;
                let mut out = brief(held);
                let books = crate::casino::policy::allows(role, crate::casino::policy::Act::ReadTournament)
                    || crate::casino::policy::allows(role, crate::casino::policy::Act::DirectTournament);
                let entries: Vec<serde_json::Value> = t
                    .entry_form()
                    .iter()
                    .filter(|e| books || e.player == username)
                    .map(entry_json)
                    .collect();
                out["entries"] = entries.into();
                // A player sees a proposed split they are part of, to agree to it.
                let in_split = t.split.as_ref().is_some_and(|s| {
                    s.shares
                        .iter()
                        .any(|(e, _)| t.entry(*e).is_ok_and(|e| e.player == username))
                });
                if books || in_split {
                    out["split"] = split_json(t);
                }
                out["standings"] = self.standings(held, |player| books || player == username);
                if books {
                    out["payouts"] = t.payout_form().iter().map(payout_json).collect::<Vec<_>>().into();
                    out["proceeds"] = t
                        .proceeds_by_month()
                        .iter()
                        .map(|(m, v)| serde_json::json!({"month": m, "proceeds": v}))
                        .collect::<Vec<_>>()
                        .into();
                    out["pool"] = t.pool.into();
                    out["vouchers_held"] = t.vouchers_held.into();
                    out["prizes_paid"] = t.prizes_paid.into();
                    out["rules_filed"] = t.rules_filed.map(|d| d.to_string()).into();
                    out["objection"] = t
                        .objection
                        .as_ref()
                        .map(|o| serde_json::json!({"day": o.day.to_string(), "reason": o.reason}))
                        .into();
                } else {
                    // A player sees the prizes they won, and no one else's (no player's name or money reaches another).
                    out["payouts"] = t
                        .payout_form()
                        .iter()
                        .filter(|p| p.player == username)
                        .map(payout_json)
                        .collect::<Vec<_>>()
                        .into();
                }
                Ok(TournamentAnswer::Json(out))
            }
        }
    }
}
