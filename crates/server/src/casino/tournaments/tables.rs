//! A tournament's events at the tables (Colorado 2213.07, 2214; journal
//! format 8). The director gives an event a table before it starts; at the
//! start every entrant gets the event's chips there, the same for all
//! (2213.07(1)), in points from the table's bank of points; a re-buy adds
//! its points between games only (2213.07(5)). The points are counted by
//! the ledger, never typed: an elimination (2213.07(2)), a re-buy's "out of
//! chips", and an event's standings are read from it. At the end the
//! points go back to the bank.

use std::collections::BTreeMap;

use croupier_core::tournament::{check_chip_values, Command, EntryStatus, Event, Tournament};
use croupier_ledger::{Account, TableAccount, Transfer};

use super::{event_index, Held};
use crate::api::{ApiError, ErrorCode};
use crate::casino::directory::TableEvent;
use crate::casino::err;
use crate::casino::journal::tournament::{TournamentOrder, TournamentRecord};
use crate::casino::journal::FORMAT_TOURNAMENT_TABLES;
use crate::casino::table::{account, transfer};

/// Where a tournament's events are played, and what its chips count.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Tables {
    /// Each event's table, by the event's place in the tournament.
    pub by_event: BTreeMap<usize, String>,
    /// Points per colour of tournament chip now (2214(2)).
    pub chip_values: Vec<(String, u64)>,
}

/// An account's balance in the ledger.
pub type Balance<'a> = &'a dyn Fn(&Account) -> i128;

fn refuse<T>(message: impl Into<String>) -> Result<T, ApiError> {
    Err(err(ErrorCode::TournamentRefused, message))
}

fn points_at(table: &str, player: &str, balance: Balance<'_>) -> Result<u64, ApiError> {
    let points = balance(&account(Account::points(table, player))?);
    Ok(u64::try_from(points).unwrap_or(0))
}

/// Whether a game is in play at `table`: points are on its layout.
fn in_play(table: &str, balance: Balance<'_>) -> Result<bool, ApiError> {
    Ok(balance(&account(Account::of_table(TableAccount::PointsLayout, table))?) != 0)
}

fn between_games(table: &str, balance: Balance<'_>, what: &str) -> Result<(), ApiError> {
    if in_play(table, balance)? {
        return refuse(format!(
            "a game is in play at table {table}: {what} between games, once its bets are settled (2213.07(5))"
        ));
    }
    Ok(())
}

/// A server order to a tournament: an event's table, or its chips' values.
/// `Ok(None)`: sent again, nothing to do.
pub(super) fn order(
    all: &BTreeMap<String, Held>,
    tables: &BTreeMap<String, String>,
    format: u32,
    id: &str,
    order: &TournamentOrder,
    balance: Balance<'_>,
) -> Result<Option<(TournamentRecord, Tables)>, ApiError> {
    crate::casino::journal::require_format(format, FORMAT_TOURNAMENT_TABLES, "tournament tables are")?;
    let held = all
        .get(id)
        .ok_or_else(|| err(ErrorCode::NoTournament, format!("no tournament {id:?}")))?;
    let t = &held.tournament;
    if t.concluded {
        return refuse(format!("tournament {id} is concluded"));
    }
    let mut next = held.tables.clone();
    match order {
        TournamentOrder::Table { event, table } => {
            let e = event_index(t.config(), event).map_err(|m| err(ErrorCode::TournamentRefused, m))?;
            let Some(profile) = tables.get(table) else {
                return Err(err(ErrorCode::NoTable, format!("no table {table:?}")));
            };
            match held.tables.by_event.get(&e) {
                Some(at) if at == table => return Ok(None),
                Some(at) => return refuse(format!("event {event:?} plays at table {at}")),
                None => {}
            }
            if t.events[e].started {
                return refuse(format!(
                    "event {event:?} has started: its entrants began with the same chips, where they play (2213.07(1))"
                ));
            }
            // Play follows the profile's standard rules of the game (2213.06).
            if *profile != held.profile {
                return refuse(format!(
                    "table {table} plays {profile}, and tournament {id} the rules of {}: play follows the \
                     tournament's standard rules of the game (2213.06)",
                    held.profile
                ));
            }
            // A concluded tournament (a cancelled one too) holds no table.
            for (other_id, other) in all.iter().filter(|(_, o)| !o.tournament.concluded) {
                for (&other_event, at) in &other.tables.by_event {
                    if at == table && !other.tournament.events[other_event].ended {
                        return refuse(format!(
                            "table {table} is given to event {:?} of tournament {other_id}, still to be played",
                            other.tournament.config().spec().events[other_event].name
                        ));
                    }
                }
            }
            next.by_event.insert(e, table.clone());
            Ok(Some((
                TournamentRecord::TableGiven {
                    event: e,
                    table: table.clone(),
                },
                next,
            )))
        }
        // A table given to an event not yet played is taken back (journal
        // format 14): it once stayed the event's until the event ended,
        // kept from cash play and from every other tournament.
        TournamentOrder::ReleaseTable { event } => {
            crate::casino::journal::require_format(
                format,
                crate::casino::journal::FORMAT_FILING_CHECKED,
                "taking a table back from an event is",
            )?;
            let e = event_index(t.config(), event).map_err(|m| err(ErrorCode::TournamentRefused, m))?;
            let Some(table) = held.tables.by_event.get(&e).cloned() else {
                // Sent again, or never given: nothing to do.
                return Ok(None);
            };
            if t.events[e].started {
                return refuse(format!(
                    "event {event:?} has started at table {table}: it is played there until it ends (2213.07(1))"
                ));
            }
            next.by_event.remove(&e);
            Ok(Some((TournamentRecord::TableReleased { event: e, table }, next)))
        }
        TournamentOrder::ChipValues { values } => {
            check_chip_values(t.config().spec(), values)
                .map_err(|e| err(ErrorCode::BadTournament, format!("{}: {}", e.field, e.message)))?;
            // A colour's value changes between rounds only (2214(2)).
            for (&e, table) in &held.tables.by_event {
                if t.events[e].started && !t.events[e].ended {
                    between_games(table, balance, "the chips' values change")?;
                }
            }
            if next.chip_values == *values {
                return Ok(None);
            }
            next.chip_values = values.clone();
            Ok(Some((TournamentRecord::ChipValues { values: values.clone() }, next)))
        }
        _ => Err(err(ErrorCode::Internal, "not a server order")),
    }
}

fn playing(t: &Tournament, event: usize) -> impl Iterator<Item = &croupier_core::tournament::Entry> {
    t.entries
        .iter()
        .filter(move |e| e.event == event && e.status == EntryStatus::Playing)
}

/// Each entry still playing `event` at `table`, with its points there, in entry order.
fn standings(t: &Tournament, event: usize, table: &str, balance: Balance<'_>) -> Result<Vec<(u32, u64)>, ApiError> {
    playing(t, event)
        .map(|e| Ok((e.number, points_at(table, &e.player, balance)?)))
        .collect()
}

/// The points the order gives must be the table's.
fn same_points(given: &[(u32, u64)], counted: &[(u32, u64)], table: &str) -> Result<(), ApiError> {
    if given.is_empty() {
        return Ok(());
    }
    let mut sorted = given.to_vec();
    sorted.sort_unstable();
    if sorted != counted {
        let listed: Vec<String> = counted.iter().map(|(e, p)| format!("entry {e}: {p}")).collect();
        return refuse(format!(
            "the points are counted at table {table} ({}), and differ from those given: send none to take the table's",
            listed.join(", ")
        ));
    }
    Ok(())
}

/// The points an event ends on: at its table, the table's count between
/// games (any given must match it); elsewhere, those the order gives.
fn ending(
    t: &Tournament,
    table: Option<&String>,
    event: usize,
    given: Vec<(u32, u64)>,
    balance: Balance<'_>,
) -> Result<Vec<(u32, u64)>, ApiError> {
    let Some(table) = table else {
        return Ok(given);
    };
    between_games(table, balance, "an event ends")?;
    let counted = standings(t, event, table, balance)?;
    same_points(&given, &counted, table)?;
    Ok(counted)
}

/// A core command with its points as the tables count them, for an event
/// played at a table; as the order gave them for one played elsewhere.
pub(super) fn counted(
    held: &Held,
    order: &TournamentOrder,
    command: Command,
    balance: Balance<'_>,
) -> Result<Command, ApiError> {
    let t = &held.tournament;
    let table_of = |event: usize| held.tables.by_event.get(&event);
    let entry_table = |entry: u32| -> Result<Option<(String, &String)>, ApiError> {
        let e = t.entry(entry).map_err(super::refused)?;
        Ok(table_of(e.event).map(|table| (e.player.clone(), table)))
    };
    Ok(match command {
        Command::Rebuy { entry, paid, .. } => {
            let given = match order {
                TournamentOrder::Rebuy { points, .. } => *points,
                _ => None,
            };
            match entry_table(entry)? {
                Some((player, table)) => {
                    let points = points_at(table, &player, balance)?;
                    if let Some(g) = given.filter(|g| *g != points) {
                        return refuse(format!(
                            "entry {entry} has {points} points at table {table}, not {g}: the table counts them; \
                             leave points out for an event played at a table"
                        ));
                    }
                    Command::Rebuy {
                        entry,
                        paid,
                        points,
                        between_games: !in_play(table, balance)?,
                    }
                }
                None => {
                    let Some(points) = given else {
                        return refuse(format!(
                            "points: the chips entry {entry} holds, as counted; its event plays at no table here"
                        ));
                    };
                    Command::Rebuy {
                        entry,
                        paid,
                        points,
                        between_games: true,
                    }
                }
            }
        }
        Command::Eliminate { entry, points } => match entry_table(entry)? {
            Some((player, table)) => {
                between_games(table, balance, "a player is eliminated")?;
                Command::Eliminate {
                    entry,
                    points: points_at(table, &player, balance)?,
                }
            }
            None => Command::Eliminate { entry, points },
        },
        Command::End { event, points, day } => Command::End {
            points: ending(t, table_of(event), event, points, balance)?,
            event,
            day,
        },
        Command::ConfirmSplit { points, day } => {
            let event = t.split.as_ref().map(|s| s.event);
            let points = match event {
                Some(event) => ending(t, table_of(event), event, points, balance)?,
                None => points,
            };
            Command::ConfirmSplit { points, day }
        }
        // An entry joining an event under way (a re-entry) starts between games (2213.07(5)).
        Command::Register { event, .. } if t.events.get(event).is_some_and(|s| s.started && !s.ended) => {
            if let Some(table) = table_of(event) {
                between_games(table, balance, "an entry joins the event")?;
            }
            command
        }
        Command::Disqualify { player, reason } => {
            if let Some(table) = t.active_entry(&player).and_then(|e| table_of(e.event)) {
                between_games(table, balance, "a player is disqualified")?;
            }
            Command::Disqualify { player, reason }
        }
        other => other,
    })
}

/// The points the tournament's events move at their tables: issued at the
/// start, to a re-entry into a running event, and with each re-buy; swept
/// back to the bank when the event ends or its player is disqualified. A
/// player's points at a table are one account, however many entries they
/// had there: each is swept once, from what the batch leaves in it.
pub(super) fn points_moves(
    held: &Held,
    id: &str,
    events: &[Event],
    balance: Balance<'_>,
) -> Result<Vec<Transfer>, ApiError> {
    let t = &held.tournament;
    let spec = t.config().spec();
    let mut out = Vec::new();
    // What this order moved so far, per (table, player).
    let mut moved: BTreeMap<(String, String), i128> = BTreeMap::new();
    for (i, event) in events.iter().enumerate() {
        let n = t.history.len() + i;
        // Sweeps what the player's account holds back to the bank (no points
        // carry over), then issues `issue` points, if any.
        let mut mv =
            |table: &str, entry: u32, player: &str, sweep: bool, issue: u64, memo: &str| -> Result<(), ApiError> {
                let own = account(Account::points(table, player))?;
                let bank = account(Account::of_table(TableAccount::PointsBank, table))?;
                let delta = moved.entry((table.to_string(), player.to_string())).or_default();
                let held_now = balance(&own) + *delta;
                if sweep && held_now > 0 {
                    let back = u64::try_from(held_now).unwrap_or(0);
                    let why = if issue > 0 {
                        "points left over, back"
                    } else {
                        "points back"
                    };
                    out.push(transfer(
                        format!("tourney/{id}/{n}/back/{entry}"),
                        own.clone(),
                        bank.clone(),
                        back,
                        why,
                    ));
                    *delta -= held_now;
                }
                if issue > 0 {
                    out.push(transfer(
                        format!("tourney/{id}/{n}/pts/{entry}"),
                        bank,
                        own,
                        issue,
                        memo,
                    ));
                    *delta += i128::from(issue);
                }
                Ok(())
            };
        match event {
            Event::Started { event, entries } => {
                if let Some(table) = held.tables.by_event.get(event) {
                    for &entry in entries {
                        let e = t.entry(entry).map_err(super::refused)?;
                        let points = spec.events[*event].starting_points;
                        mv(table, entry, &e.player, true, points, "tournament chips")?;
                    }
                }
            }
            // A re-entry into an event under way starts with its chips too (2213.07(1)).
            Event::Registered { entry, points } if t.events[entry.event].started => {
                if let Some(table) = held.tables.by_event.get(&entry.event) {
                    mv(table, entry.number, &entry.player, true, *points, "tournament chips")?;
                }
            }
            Event::Rebought { entry, points, .. } => {
                let e = t.entry(*entry).map_err(super::refused)?;
                if let Some(table) = held.tables.by_event.get(&e.event) {
                    mv(table, *entry, &e.player, false, *points, "re-buy chips")?;
                }
            }
            Event::Ended { event, .. } => {
                if let Some(table) = held.tables.by_event.get(event) {
                    for e in t.entries.iter().filter(|e| e.event == *event) {
                        mv(table, e.number, &e.player, true, 0, "")?;
                    }
                }
            }
            // Only an event under way holds the player's points: a table
            // whose event ended may be another tournament's now.
            Event::Disqualified { entries, .. } => {
                for &entry in entries {
                    let e = t.entry(entry).map_err(super::refused)?;
                    let running = t.events[e.event].started && !t.events[e.event].ended;
                    if let Some(table) = held.tables.by_event.get(&e.event).filter(|_| running) {
                        mv(table, entry, &e.player, true, 0, "")?;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// What each of the tournament's tables is told: its event, whether it is
/// under way, who plays it, and the chips' values.
pub(in crate::casino) fn published(id: &str, held: &Held) -> Vec<(String, TableEvent)> {
    let t = &held.tournament;
    held.tables
        .by_event
        .iter()
        .map(|(&event, table)| {
            let state = &t.events[event];
            let players = playing(t, event).map(|e| (e.player.clone(), e.number)).collect();
            (
                table.clone(),
                TableEvent {
                    tournament: id.to_string(),
                    event,
                    event_name: t.config().spec().events[event].name.clone(),
                    running: state.started && !state.ended,
                    ended: state.ended || t.concluded,
                    players,
                    colours: held.tables.chip_values.clone(),
                },
            )
        })
        .collect()
}
