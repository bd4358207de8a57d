//! The journal's body of each entry the casino writes: who asked for what,
//! when, and what happened. A stored format, versioned by the journal's own
//! `journal_format` entries:
//!
//! - formats 1 and 2 ([`legacy`]): the body a JSON string, its events the
//!   API's views of the time, English included (format 2 settles a round
//!   per player where format 1 moved each bet's money on its own);
//! - format 3: the body JSON as it is, its events [`JournalEvent`]s with
//!   reasons as codes;
//! - format 4: as format 3, and a round's result only from its table's
//!   outcome source, with the source's evidence;
//! - format 5: as format 4, every actor the server or a user in their own
//!   role; a request resent with its id that moves no money (a cash-in,
//!   cash-out, buy-in, sale or tip) writes nothing, a leave's used id is
//!   refused, a player places at most
//!   [`croupier_core::round::PLAYER_ROUND_BETS_MAX`] bets in a round, and a
//!   dispute is decided by the roles its profile's authority maps to and
//!   corrects only a settled round's players, within what their bets
//!   there could have returned; a match play coupon is played only as
//!   issued to its player for its table, once; and a dealer alone sells at
//!   most so much in chips at once;
//! - format 6: table rules (an automated wheel's launch, one currency,
//!   per-spot maximums);
//! - format 7: tournaments ([`tournament`]).
//!
//! A journal goes on in the newest format from the entry that says so; the
//! entries before it keep theirs and replay to their own bytes.

mod core_events;
pub mod event;
mod formats;
pub mod legacy;
pub mod tournament;

pub use formats::*;

pub use core_events::from_core;

use serde::{Deserialize, Serialize};

use super::actor::Actor;
use super::request::Request;
use crate::api::ApiError;
use croupier_ledger::{Applied, StreamEvent};
pub use event::JournalEvent;

/// The journal's format that this server writes. Format 1 moved each
/// settled bet's money in transfers of its own: a round of 3,000 bets wrote
/// about 4,000 transfers. Format 2 settles a round in one transfer of all
/// its losing stakes, and for each player paid one of their stakes back and
/// one of their winnings. Format 3 keeps the body as JSON and its events as
/// the journal's own, with codes for reasons. Format 4 takes a result only
/// from the table's own source: a dealer's `spin` at a dealer's table, the
/// RNG's `draw` with its word, a wheel's `wheel_game` with its frames.
/// Format 5 takes a request only from the server or a user in their own
/// role (older journals were written by tools with actors of their own),
/// and writes nothing for a resend that changes nothing: up to format 4 a
/// cash-in sent again with its id moved no money but was journaled a
/// second time with the same event, which anyone summing the journal's
/// cash events counted twice; it holds each player to a share of a
/// round's bets; and it ties a dispute's corrections to the round disputed.
/// Format 6 enforces table rules the core left to the table: an automated
/// wheel's game whose launch the table did not see is a no spin, and a
/// new table keeps the casino's currency and its zero rules. Format 7
/// journals tournaments (Colorado 2213-2214). Format 8 plays a
/// tournament's events at the tables, in points. Format 9 inspects a no
/// spin's ball before the next spin and has the regulator inspect a wheel
/// whose external part was replaced. Format 10 sets a Maryland table that
/// uses a double-zero wheel as single zero on the double-zero felt with 00
/// covered. Format 11 plays bonus tables; format 12 binds checkpoints of
/// the casino's state into the chain. Format 13 bounds the rounds a table
/// keeps for game recall and disputes by their bets too. Format 14 keeps
/// the casino's money at its edges: colour chips are revalued only once
/// taken away from the table, a dispute carries an id and is bounded by an
/// RNG's or a wheel's recorded result, coupons count against the cashier's
/// day, a dealer's sales are capped across every table, and each table
/// keeps the books of its gaming day. Format 15 reads again rules format 14
/// read loosely: a Maryland table opens only with its limits posted, a
/// Bonus Spin Xtreme table's results come from the RNG, not a wheel, only
/// staff with a licence on record inspect or adjust (Colorado, Maryland), a
/// late bet is logged, tournaments keep their dates, refunds and escrow,
/// a table's books keep its open play and each dealer's share, and a
/// table's float moves by fill and credit slips with two signatures.
/// Format 16 gives the back office its last parts: the security member
/// who witnesses an adjustment confirms it from their own account, and
/// tables and users can be edited and retired.
pub const JOURNAL_FORMAT: u32 = 16;

/// Refuses `what`, journaled only from format `need`, in a journal still in `have`.
pub fn require_format(have: u32, need: u32, what: &str) -> Result<(), crate::api::ApiError> {
    if have < need {
        return Err(crate::api::ApiError::new(
            crate::api::ErrorCode::BadRequest,
            format!("{what} journaled from format {need}; this journal is in {have}"),
        ));
    }
    Ok(())
}

/// Whether a request whose transfers the ledger judged `applied` was a
/// resend that wrote nothing: in `format` 5 on, one whose every transfer
/// was made before.
pub fn resent(format: u32, applied: &[Applied]) -> bool {
    format >= FORMAT_RESENDS_WRITE_NOTHING
        && !applied.is_empty()
        && applied.iter().all(|a| *a == Applied::AlreadyExisted)
}

/// The journal stream casino requests are written to.
pub const STREAM: &str = "casino";

/// A body's fields before its events: what replay needs to execute it again.
#[derive(Debug, Deserialize)]
pub struct Head {
    pub at_ms: u64,
    pub actor: Actor,
    pub request: Request,
}

/// A body of format 3, as it is written.
#[derive(Serialize)]
struct Body<'a> {
    at_ms: u64,
    actor: &'a Actor,
    request: &'a Request,
    events: &'a [JournalEvent],
}

/// A body of formats 1 and 2, as they wrote it (inside a JSON string).
#[derive(Serialize)]
struct LegacyBody<'a> {
    at_ms: u64,
    actor: &'a Actor,
    request: &'a Request,
    events: Vec<legacy::LegacyEvent>,
}

/// The journal event of a request, in `format`.
pub fn write(
    format: u32,
    at_ms: u64,
    actor: &Actor,
    request: &Request,
    events: &[JournalEvent],
) -> Result<StreamEvent, ApiError> {
    let body = if format >= FORMAT_JOURNAL_EVENTS {
        serde_json::value::to_raw_value(&Body {
            at_ms,
            actor,
            request,
            events,
        })
    } else {
        let text = serde_json::to_string(&LegacyBody {
            at_ms,
            actor,
            request,
            events: events
                .iter()
                .map(|e| {
                    legacy::render(e, request)
                        .ok_or_else(|| ApiError::internal(format!("{e:?} has no form in journal formats 1 and 2")))
                })
                .collect::<Result<_, _>>()?,
        })
        .map_err(ApiError::internal)?;
        serde_json::value::to_raw_value(&text)
    }
    .map_err(ApiError::internal)?;
    Ok(StreamEvent::new(STREAM, body))
}

/// Reads what a body says was asked, in whichever format it was written.
pub fn read_head(event: &StreamEvent) -> Result<Head, String> {
    let text = event.body_text().map_err(|e| e.to_string())?;
    serde_json::from_str(&text).map_err(|e| e.to_string())
}

/// Reads the events a body of format 3 recorded.
pub fn read_events(event: &StreamEvent) -> Result<Vec<JournalEvent>, String> {
    #[derive(Deserialize)]
    struct Events {
        events: Vec<JournalEvent>,
    }
    let text = event.body_text().map_err(|e| e.to_string())?;
    serde_json::from_str::<Events>(&text)
        .map(|e| e.events)
        .map_err(|e| e.to_string())
}

/// Whether a stored body is of formats 1 and 2 (a JSON string).
pub fn is_legacy(event: &StreamEvent) -> bool {
    event.body_is_text()
}
