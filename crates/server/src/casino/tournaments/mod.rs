//! Tournaments at the cage (Colorado 2213-2214, journal format 7): the
//! pure model of `croupier_core::tournament`, its money in the ledger, its
//! requests journaled. Entry fees go to the tournament's own account, kept
//! apart from all other cash until counted at the conclusion (2213.02);
//! buy-ins to its prize pool, prizes out of it (2213.05); vouchers are held
//! in an account of their own until used, cashed or cancelled; under the
//! 2013 text the prizes' value in escrow before the start, the prizes paid
//! from it (2213(1), format 15). The transfers are [`money`]'s.
//!
//! An event given a table plays there in points ([`tables`], format 8),
//! counted by the ledger; one played elsewhere takes the points the
//! director counts.

use std::collections::BTreeMap;

use croupier_core::tournament::{Event, Tournament, TournamentConfig, TournamentError};
use croupier_ledger::Transfer;

use super::actor::Actor;
use super::directory::Directory;
use super::err;
use super::journal::tournament::{TournamentOrder, TournamentRecord, ORDER_ID_MAX_BYTES};
use super::journal::{JournalEvent, FORMAT_TOURNAMENTS};
use crate::api::{ApiError, ErrorCode, Role};

mod books;
mod money;
pub(in crate::casino) mod reads;
mod tables;
pub use books::TournamentBooks;
pub use reads::{TournamentAnswer, TournamentRead};
pub use tables::Tables;

/// A tournament the casino holds, with the profile it was created under.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Held {
    pub profile: String,
    /// The profile's currency, kept for the reads.
    pub currency: String,
    pub tournament: Tournament,
    pub tables: Tables,
    /// Each order sent with an id, by its id: a resend writes nothing.
    #[serde(with = "croupier_core::canonical::map")]
    pub orders: std::collections::HashMap<String, TournamentOrder>,
}

/// The most tournaments a casino keeps.
pub const TOURNAMENTS_MAX: usize = 64;
/// The largest tournament file the server reads.
pub const TOURNAMENT_CONFIG_MAX_BYTES: usize = 64 * 1024;

pub use super::gaming_day::day_of;

fn refused(e: TournamentError) -> ApiError {
    match e {
        TournamentError::NotFound(m) => err(ErrorCode::NoTournament, m),
        TournamentError::Refused(m) => err(ErrorCode::TournamentRefused, m),
    }
}

fn format_check(dir: &Directory) -> Result<(), ApiError> {
    super::journal::require_format(dir.journal_format(), FORMAT_TOURNAMENTS, "tournaments are")
}

/// A new tournament from its file's text, checked against its profile
/// (only a shipped profile: the server reads no path a client names).
pub(super) fn plan_create(
    tournaments: &BTreeMap<String, Held>,
    currency: Option<&str>,
    dir: &Directory,
    at_ms: u64,
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
    let today = dir.gaming_date(at_ms);
    if spec.first_day < today {
        return Err(err(
            ErrorCode::BadTournament,
            format!(
                "first_day: {} has passed (today is {today}): announce the tournament before it is played",
                spec.first_day
            ),
        ));
    }
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
            currency: profile.spec().currency.clone(),
            tables: Tables {
                by_event: BTreeMap::new(),
                chip_values: config.spec().chip_values.clone(),
            },
            tournament: {
                let mut t = Tournament::new(config);
                t.escrow_kept = dir.rules().tournament_escrow;
                t
            },
            orders: std::collections::HashMap::new(),
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

/// An order's transfers, its journal events, the core's events to apply
/// once durable, and the tournament's tables where it changes them.
type Ordered = (Vec<Transfer>, Vec<JournalEvent>, Vec<Event>, Option<Tables>);

/// What the cage knows that an order reads: its tables, each with its
/// profile, and the ledger's balances.
pub(super) struct Floor<'a> {
    pub tables: &'a BTreeMap<String, String>,
    pub balance: tables::Balance<'a>,
}

/// What a tournament's order does: its transfers, its journal events, and
/// the core's events to apply once they are durable.
pub(super) fn plan_order(
    tournaments: &BTreeMap<String, Held>,
    dir: &Directory,
    at_ms: u64,
    actor: &Actor,
    id: &str,
    order: &TournamentOrder,
    floor: &Floor<'_>,
) -> Result<Ordered, ApiError> {
    format_check(dir)?;
    if let TournamentOrder::Table { .. } | TournamentOrder::ReleaseTable { .. } | TournamentOrder::ChipValues { .. } =
        order
    {
        let changed = tables::order(
            tournaments,
            floor.tables,
            dir.journal_format(),
            id,
            order,
            floor.balance,
        )?;
        let Some((record, next)) = changed else {
            return Ok((Vec::new(), Vec::new(), Vec::new(), None));
        };
        let journal = vec![JournalEvent::Tournament {
            tournament: id.to_string(),
            record,
        }];
        return Ok((Vec::new(), journal, Vec::new(), Some(next)));
    }
    let held = tournaments
        .get(id)
        .ok_or_else(|| err(ErrorCode::NoTournament, format!("no tournament {id:?}")))?;
    if let Some(order_id) = order.id() {
        let valid = !order_id.is_empty()
            && order_id.len() <= ORDER_ID_MAX_BYTES
            && order_id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
        if !valid {
            return Err(err(
                ErrorCode::BadRequest,
                format!("an order's id is 1 to {ORDER_ID_MAX_BYTES} of A-Z, a-z, 0-9, '-', '_', '.'"),
            ));
        }
        match held.orders.get(order_id) {
            // Sent again: answered again, nothing charged twice.
            Some(was) if was == order => return Ok((Vec::new(), Vec::new(), Vec::new(), None)),
            Some(_) => {
                return Err(err(
                    ErrorCode::TournamentRefused,
                    format!(
                    "order id {order_id} was used for a different order of tournament {id}; a new order needs a new id"
                ),
                ))
            }
            None => {}
        }
    }
    // A registration or a re-buy charges a player: from format 14 it carries an id.
    let charges = matches!(order, TournamentOrder::Register { .. } | TournamentOrder::Rebuy { .. });
    if charges && order.id().is_none() && dir.rules().order_ids_required {
        return Err(err(
            ErrorCode::BadRequest,
            "a registration and a re-buy carry an id (\"id\"), chosen when the form is filled: sent again under \
             it, nothing is charged twice",
        ));
    }
    let t = &held.tournament;
    if let TournamentOrder::FundEscrow = order {
        super::journal::require_format(
            dir.journal_format(),
            super::journal::FORMAT_TOURNAMENT_ESCROW,
            "a tournament's escrow is",
        )?;
        if actor.role != Role::Admin {
            return Err(err(
                ErrorCode::Forbidden,
                "the escrow is the house's money: an admin places it, not the director alone",
            ));
        }
    }
    if let TournamentOrder::RecordObjection { .. } | TournamentOrder::ResolveObjection { .. } = order {
        super::journal::require_format(
            dir.journal_format(),
            super::journal::FORMAT_DIVISION_OBJECTION,
            "the Division's objection is",
        )?;
    }
    if let TournamentOrder::FileRules { filed_on, corrects } = order {
        filing_checked(t, dir, at_ms, filed_on, corrects.as_deref())?;
    }
    match order {
        // A player agrees for themself alone (2213.07(3)(b), 2213.07(4)); an
        // entry that is not theirs and one that does not exist are refused
        // alike, so that no one counts the entries by asking.
        TournamentOrder::AgreeSplit { entry }
            if actor.role != Role::Player || !t.entry(*entry).is_ok_and(|e| e.player == actor.username) =>
        {
            return Err(err(
                ErrorCode::Forbidden,
                format!("entry {entry} is not yours: each player agrees for their own entry (2213.07(3)(b))"),
            ));
        }
        TournamentOrder::Register {
            player, fee, buy_in, ..
        } => {
            dir.player_in_play(player)?;
            house_pays(actor, &[fee, buy_in])?;
        }
        TournamentOrder::Rebuy { paid, .. } => house_pays(actor, &[paid])?,
        _ => {}
    }
    let command = order
        .command(dir.gaming_date(at_ms), |name| event_index(t.config(), name))
        .map_err(|m| err(ErrorCode::TournamentRefused, m))?;
    let command = if dir.rules().tournament_days_checked {
        command
    } else {
        super::journal::tournament::undated(command)
    };
    let command = tables::counted(held, order, command, floor.balance)?;
    let events = t.decide(command).map_err(refused)?;
    let mut transfers = money::money(t, id, &events)?;
    transfers.extend(tables::points_moves(held, id, &events, floor.balance)?);
    let journal = events
        .iter()
        .map(|e| JournalEvent::Tournament {
            tournament: id.to_string(),
            record: TournamentRecord::of(e),
        })
        .collect();
    Ok((transfers, journal, events, None))
}

/// From journal format 14 a filing is checked as it is recorded (Colorado
/// 2213.06: a copy of the rules "must also be provided to the local office
/// of the Division of Gaming at least five days in advance of the scheduled
/// start of the tournament"): one too late for the scheduled start is
/// refused, so that no tournament is set up to fail at its start, and a
/// day recorded wrong is corrected, with the reason, until the start. Up
/// to format 13 a late filing was taken and refused only at the start, and
/// a mistyped day could not be put right.
fn filing_checked(
    t: &Tournament,
    dir: &Directory,
    at_ms: u64,
    filed_on: &str,
    corrects: Option<&str>,
) -> Result<(), ApiError> {
    let format = dir.journal_format();
    if let Some(why) = corrects {
        super::journal::require_format(
            format,
            super::journal::FORMAT_FILING_CHECKED,
            "a filing's correction is",
        )?;
        if why.trim().is_empty() || why.len() > ITEM_REASON_MAX_BYTES {
            return Err(err(
                ErrorCode::BadRequest,
                format!("corrects: say why the day recorded was wrong, in 1 to {ITEM_REASON_MAX_BYTES} bytes"),
            ));
        }
    }
    if format < super::journal::FORMAT_FILING_CHECKED {
        return Ok(());
    }
    // A day that does not parse, or is after today, is the command's to refuse, naming the field.
    let Ok(day) = croupier_profiles::tournament::parse_day(filed_on) else {
        return Ok(());
    };
    if day > dir.gaming_date(at_ms) {
        return Ok(());
    }
    match t.filing_too_late(day) {
        Some(why) => Err(err(ErrorCode::TournamentRefused, why)),
        None => Ok(()),
    }
}

/// The longest reason a correction of a filing gives, in bytes.
const ITEM_REASON_MAX_BYTES: usize = 200;

/// A complimentary payment or a non-cash item is the house's money: an
/// admin records it, so that no director alone pays a player with it.
fn house_pays(actor: &Actor, payments: &[&crate::api::PaidWith]) -> Result<(), ApiError> {
    use crate::api::PaidWith;
    let houses = payments
        .iter()
        .any(|p| matches!(p, PaidWith::Complimentary | PaidWith::NonCash(_)));
    if houses && actor.role != Role::Admin {
        return Err(err(
            ErrorCode::Forbidden,
            "a complimentary entry or a non-cash item is paid by the house: an admin records it, not the director alone",
        ));
    }
    Ok(())
}

/// What the cage takes of a tournament's order for its own: the tables
/// each event's state goes to.
pub(in crate::casino) use tables::published;
