//! Tournaments at the cage (Colorado 2213-2214, journal format 7): the
//! pure model of `croupier_core::tournament`, its money in the ledger, its
//! requests journaled. Entry fees go to the tournament's own account, kept
//! apart from all other cash until counted at the conclusion (2213.02);
//! buy-ins to its prize pool, prizes out of it (2213.05); vouchers are held
//! in an account of their own until used, cashed or cancelled.
//!
//! Until tournament play runs at the tables, the points are the chips the
//! director counts at the table: the director enters them at an event's
//! end and attests a player out of chips.

use std::collections::BTreeMap;

use croupier_core::tournament::{Awarded, Event, Paid, Tournament, TournamentConfig, TournamentError};
use croupier_ledger::{Account, TournamentAccount, Transfer};
use time::Date;

use super::actor::Actor;
use super::directory::Directory;
use super::err;
use super::journal::tournament::{TournamentOrder, TournamentRecord};
use super::journal::{JournalEvent, FORMAT_TOURNAMENTS};
use super::table::{account, transfer};
use crate::api::{ApiError, ErrorCode, Role};

/// A tournament the casino holds, with the profile it was created under.
#[derive(Clone, Debug)]
pub struct Held {
    pub profile: String,
    pub tournament: Tournament,
}

/// The most tournaments a casino keeps.
pub const TOURNAMENTS_MAX: usize = 64;
/// The largest tournament file the server reads.
pub const TOURNAMENT_CONFIG_MAX_BYTES: usize = 64 * 1024;
/// The Julian day of 1970-01-01: days are counted from it.
const UNIX_EPOCH_JULIAN_DAY: i64 = 2_440_588;
const DAY_MS: u64 = 86_400_000;

/// The UTC day of a time in milliseconds since 1970.
pub fn day_of(at_ms: u64) -> Date {
    let days = i64::try_from(at_ms / DAY_MS).unwrap_or(i64::MAX);
    i32::try_from(UNIX_EPOCH_JULIAN_DAY.saturating_add(days))
        .ok()
        .and_then(|julian| Date::from_julian_day(julian).ok())
        .unwrap_or(Date::MAX)
}

fn refused(e: TournamentError) -> ApiError {
    match e {
        TournamentError::NotFound(m) => err(ErrorCode::NoTournament, m),
        TournamentError::Refused(m) => err(ErrorCode::TournamentRefused, m),
    }
}

fn format_check(dir: &Directory) -> Result<(), ApiError> {
    if dir.journal_format() < FORMAT_TOURNAMENTS {
        return Err(err(
            ErrorCode::BadRequest,
            format!(
                "tournaments are journaled from format {FORMAT_TOURNAMENTS}; this journal is in {}",
                dir.journal_format()
            ),
        ));
    }
    Ok(())
}

/// A new tournament from its file's text, checked against its profile
/// (only a shipped profile: the server reads no path a client names).
pub(super) fn plan_create(
    tournaments: &BTreeMap<String, Held>,
    currency: Option<&str>,
    dir: &Directory,
    config: &str,
) -> Result<(Vec<JournalEvent>, Held), ApiError> {
    format_check(dir)?;
    if config.len() > TOURNAMENT_CONFIG_MAX_BYTES {
        return Err(err(
            ErrorCode::TooLarge,
            format!("a tournament file is at most {TOURNAMENT_CONFIG_MAX_BYTES} bytes"),
        ));
    }
    let builtin = |name: &str| match croupier_profiles::builtin_text(name) {
        Some(text) => croupier_profiles::parse(text, name),
        None => Err(croupier_profiles::LoadError::Unknown {
            name: name.to_string(),
            known: croupier_profiles::builtin_names().join(", "),
        }),
    };
    let (profile, config) = croupier_profiles::tournament::parse_tournament(config, "the tournament file", builtin)
        .map_err(|e| err(ErrorCode::BadTournament, e.to_string()))?;
    let spec = config.spec();
    if tournaments.contains_key(&spec.id) {
        return Err(err(ErrorCode::Exists, format!("tournament {:?} exists", spec.id)));
    }
    if tournaments.len() >= TOURNAMENTS_MAX {
        return Err(err(
            ErrorCode::Full,
            format!("the casino keeps at most {TOURNAMENTS_MAX} tournaments"),
        ));
    }
    if let Some(currency) = currency.filter(|c| *c != profile.spec().currency) {
        return Err(err(
            ErrorCode::BadTournament,
            format!(
                "{} plays in {}, but the casino's money is {currency}",
                profile.spec().name,
                profile.spec().currency
            ),
        ));
    }
    let events = vec![JournalEvent::TournamentCreated {
        tournament: spec.id.clone(),
        name: spec.name.clone(),
        profile: profile.spec().name.clone(),
    }];
    Ok((
        events,
        Held {
            profile: profile.spec().name.clone(),
            tournament: Tournament::new(config),
        },
    ))
}

fn event_index(config: &TournamentConfig, name: &str) -> Result<usize, String> {
    config
        .spec()
        .events
        .iter()
        .position(|e| e.name == name)
        .ok_or_else(|| format!("{name:?} is not an event of tournament {}", config.spec().id))
}

/// An order's transfers, its journal events, and the core's events to apply once durable.
type Ordered = (Vec<Transfer>, Vec<JournalEvent>, Vec<Event>);

/// What a tournament's order does: its transfers, its journal events, and
/// the core's events to apply once they are durable.
pub(super) fn plan_order(
    tournaments: &BTreeMap<String, Held>,
    dir: &Directory,
    at_ms: u64,
    actor: &Actor,
    id: &str,
    order: &TournamentOrder,
) -> Result<Ordered, ApiError> {
    format_check(dir)?;
    let t = &tournaments
        .get(id)
        .ok_or_else(|| err(ErrorCode::NoTournament, format!("no tournament {id:?}")))?
        .tournament;
    match order {
        // A player agrees for themself alone (2213.07(3)(b), 2213.07(4)).
        TournamentOrder::AgreeSplit { entry } => {
            let e = t.entry(*entry).map_err(refused)?;
            if actor.role != Role::Player || e.player != actor.username {
                return Err(err(
                    ErrorCode::Forbidden,
                    format!("entry {entry} is another player's: each player agrees for themself (2213.07(3)(b))"),
                ));
            }
        }
        TournamentOrder::Register { player, .. } => {
            dir.player(player)?;
        }
        _ => {}
    }
    let command = order
        .command(day_of(at_ms), |name| event_index(t.config(), name))
        .map_err(|m| err(ErrorCode::TournamentRefused, m))?;
    let events = t.decide(command).map_err(refused)?;
    let transfers = money(t, id, &events)?;
    let journal = events
        .iter()
        .map(|e| JournalEvent::Tournament {
            tournament: id.to_string(),
            record: TournamentRecord::of(e),
        })
        .collect();
    Ok((transfers, journal, events))
}

/// The ledger's movements for a tournament's events, each with an id of
/// the tournament, the event's number in its history, and a part.
fn money(t: &Tournament, id: &str, events: &[Event]) -> Result<Vec<Transfer>, ApiError> {
    let own = |kind| account(Account::of_tournament(kind, id));
    let (fees, pool, vouchers) = (
        own(TournamentAccount::Fees)?,
        own(TournamentAccount::Pool)?,
        own(TournamentAccount::Vouchers)?,
    );
    let payer = |paid: &Paid, player: &str| -> Result<Account, ApiError> {
        match paid {
            Paid::Cash => account(Account::wallet(player)),
            // The house takes the item, or gives the entry: it pays the value.
            Paid::NonCash { .. } | Paid::Complimentary => Ok(Account::House),
            Paid::Voucher { .. } => Ok(vouchers.clone()),
        }
    };
    let mut out = Vec::new();
    let mut push = |n: usize, part: &str, from: Account, to: Account, amount: u64, memo: &str| {
        if amount > 0 {
            out.push(transfer(format!("tourney/{id}/{n}/{part}"), from, to, amount, memo));
        }
    };
    for (i, event) in events.iter().enumerate() {
        let n = t.history.len() + i;
        match event {
            Event::Registered { entry, .. } => {
                push(
                    n,
                    "fee",
                    payer(&entry.fee.paid, &entry.player)?,
                    fees.clone(),
                    entry.fee.value,
                    "entry fee",
                );
                push(
                    n,
                    "buyin",
                    payer(&entry.buy_in.paid, &entry.player)?,
                    pool.clone(),
                    entry.buy_in.value,
                    "buy-in",
                );
            }
            Event::Rebought { entry, payment, .. } => {
                let player = t.entry(*entry).map_err(refused)?.player.clone();
                push(
                    n,
                    "rebuy",
                    payer(&payment.paid, &player)?,
                    pool.clone(),
                    payment.value,
                    "re-buy",
                );
            }
            Event::HouseAdded { amount, .. } => push(n, "added", Account::House, pool.clone(), *amount, "house adds"),
            Event::Awarded(a) => {
                let to = match a.prize {
                    Awarded::Cash(_) => account(Account::wallet(&a.player))?,
                    // The house supplies the item and takes its value.
                    Awarded::NonCash { .. } => Account::House,
                    Awarded::Voucher { .. } => vouchers.clone(),
                };
                push(n, "prize", pool.clone(), to, a.prize.value(), "prize");
            }
            Event::VoucherCashed { player, value, .. } => {
                push(
                    n,
                    "cashed",
                    vouchers.clone(),
                    account(Account::wallet(player))?,
                    *value,
                    "voucher cashed",
                );
            }
            Event::VoucherCancelled { value, .. } => {
                push(
                    n,
                    "cancelled",
                    vouchers.clone(),
                    pool.clone(),
                    *value,
                    "voucher cancelled",
                );
            }
            // Counted at the conclusion: the fees become the house's proceeds (2213.01-.02).
            Event::Concluded => {
                let collected: u64 = t.fees_by_month.values().sum();
                push(
                    n,
                    "counted",
                    fees.clone(),
                    Account::House,
                    collected,
                    "entry fees counted",
                );
            }
            _ => {}
        }
    }
    Ok(out)
}

/// A cage request's plan: its transfers, its journal events, what it changes once durable.
type Planned = (Vec<Transfer>, Vec<JournalEvent>, Vec<super::cage::Effect>);

impl<S: croupier_ledger::Storage> super::Cage<S> {
    /// A tournament request's plan; `None` for any other request.
    pub(super) fn plan_tournament(
        &self,
        dir: &Directory,
        at_ms: u64,
        actor: &Actor,
        request: &super::Request,
    ) -> Option<Result<Planned, ApiError>> {
        use super::cage::Effect;
        match request {
            super::Request::CreateTournament { config } => Some(
                plan_create(&self.tournaments, self.currency.as_deref(), dir, config)
                    .map(|(events, held)| (Vec::new(), events, vec![Effect::AddTournament(Box::new(held))])),
            ),
            super::Request::Tournament { tournament, order } => {
                Some(plan_order(&self.tournaments, dir, at_ms, actor, tournament, order).map(
                    |(transfers, journal, events)| {
                        let effect = Effect::Tournament {
                            id: tournament.clone(),
                            events,
                        };
                        (transfers, journal, vec![effect])
                    },
                ))
            }
            _ => None,
        }
    }
}

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
    let currency = croupier_profiles::load(&held.profile).map_or(String::new(), |p| p.spec().currency.clone());
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
        "currency": currency,
        "first_day": spec.first_day.to_string(),
        "last_day": spec.last_day.to_string(),
        "status": status,
        "events": spec.events.iter().zip(&t.events).map(|(e, s)| serde_json::json!({
            "name": e.name,
            "day": e.day.to_string(),
            "entry_fee": e.entry_fee.get(),
            "buy_in": e.buy_in.get(),
            "starting_points": e.starting_points,
            "rebuys_max": e.rebuys.max,
            "status": match s.status() {
                croupier_core::tournament::EventStatus::Open => "open",
                croupier_core::tournament::EventStatus::Running => "running",
                croupier_core::tournament::EventStatus::Ended => "ended",
            },
        })).collect::<Vec<_>>(),
        // 2214(2): the notice of each colour's points.
        "chips": spec.chip_values.iter().map(|(c, p)| serde_json::json!({"colour": c, "points": p})).collect::<Vec<_>>(),
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

impl<S: croupier_ledger::Storage> super::Cage<S> {
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
            TournamentRead::Forms { id } => Ok(TournamentAnswer::Text(croupier_profiles::tournament::forms_csv(
                &find(&id)?.tournament,
            ))),
            TournamentRead::One { id, role, username } => {
                let held = find(&id)?;
                let t = &held.tournament;
                let mut out = brief(held);
                let books = super::policy::allows(role, super::policy::Act::ReadTournament)
                    || super::policy::allows(role, super::policy::Act::DirectTournament);
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

/// A tournament's money reconciled to the cent: the model's figures against
/// the ledger's accounts (`croupier verify`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct TournamentBooks {
    pub tournament: String,
    /// Entry fees collected, at their value (2213.01).
    pub fees: u64,
    /// What the fees account holds: all the fees until the conclusion counts them.
    pub fees_account: i128,
    /// Buy-ins and re-buys at their value, vouchers used as buy-ins included (2213.05).
    pub buy_ins: u64,
    pub house_added: u64,
    /// Prizes paid, non-cash at their value, vouchers that count as payouts.
    pub prizes_paid: u64,
    pub pool: u64,
    pub pool_account: i128,
    pub vouchers_held: u64,
    pub vouchers_account: i128,
    pub concluded: bool,
    /// The first figure that does not agree, if any.
    pub problem: Option<String>,
}

impl<S: croupier_ledger::Storage> super::Cage<S> {
    /// Every tournament's money, reconciled.
    pub fn tournament_books(&self) -> Vec<TournamentBooks> {
        self.tournaments
            .iter()
            .map(|(id, held)| {
                let t = &held.tournament;
                let balance = |kind| Account::of_tournament(kind, id).map_or(0, |a| self.ledger.balance(&a));
                let fees: u64 = t.fees_by_month.values().sum();
                let awarded: u64 = t.events.iter().flat_map(|e| &e.awards).map(|a| a.prize.value()).sum();
                let cancelled: u64 = t.vouchers.iter().filter(|v| v.cancelled).map(|v| v.value).sum();
                let mut books = TournamentBooks {
                    tournament: id.clone(),
                    fees,
                    fees_account: balance(TournamentAccount::Fees),
                    buy_ins: t.buy_ins(),
                    house_added: t.house_added(),
                    prizes_paid: t.prizes_paid,
                    pool: t.pool,
                    pool_account: balance(TournamentAccount::Pool),
                    vouchers_held: t.vouchers_held,
                    vouchers_account: balance(TournamentAccount::Vouchers),
                    concluded: t.concluded,
                    problem: None,
                };
                let fees_held = if t.concluded { 0 } else { i128::from(fees) };
                books.problem = if books.fees_account != fees_held {
                    Some(format!(
                        "the fees account holds {} but {fees_held} is owed to it",
                        books.fees_account
                    ))
                } else if books.pool_account != i128::from(t.pool) {
                    Some(format!(
                        "the prize pool holds {} but the pool is {}",
                        books.pool_account, t.pool
                    ))
                } else if books.vouchers_account != i128::from(t.vouchers_held) {
                    Some(format!(
                        "the vouchers account holds {} but {} in vouchers is held",
                        books.vouchers_account, t.vouchers_held
                    ))
                } else if t.pool + awarded != books.buy_ins + books.house_added + cancelled {
                    Some(format!(
                        "buy-ins {} and the house's {} are not the prizes {awarded} and the pool {} (2213.05)",
                        books.buy_ins, books.house_added, t.pool
                    ))
                } else if t.concluded && (t.pool > 0 || t.vouchers_held > 0) {
                    Some("concluded with money in the pool or in vouchers (2213.05)".to_string())
                } else {
                    None
                };
                books
            })
            .collect()
    }
}
