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
pub mod legacy;
pub mod tournament;

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

/// The first format in which an admin retires and edits users and tables
/// (`casino/user_edits.rs`, `casino/table/retire.rs`): new requests, so no
/// older journal holds one.
pub const FORMAT_BACK_OFFICE: u32 = 16;

/// The first format with tournaments: their requests, events and money.
pub const FORMAT_TOURNAMENTS: u32 = 7;

/// The first format in which a tournament's event plays at a table, its
/// points in the ledger (Colorado 2213.07, 2214).
pub const FORMAT_TOURNAMENT_TABLES: u32 = 8;

/// The first format in which a no spin's ball is inspected before the next
/// spin (Colorado 2206(4), Maryland ch.6 B-C), and a replaced external part
/// waits for the regulator's inspection (Colorado 2212(4)).
pub const FORMAT_BALL_INSPECTION: u32 = 9;

/// The first format in which the croupier enters a player's series of
/// verbal bets, all or none (european-casino 3.5-3.6).
pub const FORMAT_VERBAL_BETS: u32 = 9;

/// The first format in which a table's floats close under an emergency:
/// nothing is bought, sold, cashed, tipped or paid there until it is lifted
/// (european-casino 6.1-6.3).
pub const FORMAT_FLOATS_CLOSE: u32 = 9;

/// The first format in which a new table under a document that keeps the
/// double-zero layout for a double-zero wheel used as single zero (Maryland
/// ch.1 F) is refused on the single-zero felt.
pub const FORMAT_COVERED_FELT: u32 = 10;

/// The first format in which an admin names the casino's operator, and a
/// table under a document that puts it on the layout (Maryland ch.1 G(1))
/// opens only once it is named.
pub const FORMAT_OPERATOR_NAMED: u32 = 10;

/// The first format in which disputes go to the role each document names
/// (european-casino's casino manager, Maryland's floorperson, the low-limit
/// house's floor manager), and the low-limit house's hanging ball is the
/// floor's no spin to call, not the dealer's (Irregularities (5)).
pub const FORMAT_AUTHORITY_TITLES: u32 = 10;

/// The first format in which colour chips kept past the gaming day they
/// were bought on are cashed in at that day's table minimum, or $1 each,
/// unless a supervisor confirms their face value (european-casino 5.4-5.5).
pub const FORMAT_CHIPS_PAST_DAY: u32 = 10;
/// The first format with bonus tables (Maryland ch.3 F(16)-(18), ch.4 D-F):
/// a table made with Roulette X or Bonus Spin Xtreme, the server's draw
/// after no more bets, Bonus Spin Xtreme wagers and their settlement.
pub const FORMAT_BONUS_TABLES: u32 = 11;
/// The first format with checkpoints: the casino's state after an entry,
/// kept beside the journal and bound into it by its hash, so that a start
/// replays only what follows the last one.
pub const FORMAT_CHECKPOINTS: u32 = 12;
/// The first format in which a table keeps its newest rounds for game
/// recall and disputes only while they hold
/// [`crate::casino::recall::RECALL_BETS_KEPT`] bets together (the round in
/// play and the one before it whatever they hold): up to format 12 it kept its 100
/// newest whatever they held, 3.9 million bets at 4 tables of 9,700 bets a
/// round, most of a start's memory. Rounds no longer kept are read from the
/// recall archive.
pub const FORMAT_RECALL_BETS_KEPT: u32 = 13;

/// The first format in which colour chips keep their face value while
/// their player is seated: only chips a player took away from the table
/// (recorded by the staff, european-casino 5.2) and brought back are
/// revalued (5.4; the low-limit house's "Roulette Chips"), each purchase
/// dated on its own, and never above their face value. Up to format 13 a
/// seated player who bought chips of 0.01 and left after midnight was paid
/// each at the table minimum.
pub const FORMAT_CHIPS_TAKEN_AWAY: u32 = 14;

/// The first format in which a dispute carries the client's id (a resend
/// decides nothing twice) and, at a table whose result is an RNG's or an
/// automated wheel's, corrects only within what the recorded pocket and
/// bonus draws return; no dispute pays a progressive meter's jackpot.
pub const FORMAT_DISPUTE_IDS: u32 = 14;

/// The first format in which a bet's id its player used in the table's
/// round before is refused: a terminal resending a bet whose answer was
/// lost, once the next round had opened, placed it again in that round.
pub const FORMAT_BET_IDS_ACROSS_ROUNDS: u32 = 14;

/// The first format in which a tournament's registration and re-buy, which
/// charge a player, carry the client's id: without one, a resend charged
/// the fee and the buy-in twice.
pub const FORMAT_ORDER_IDS_REQUIRED: u32 = 14;

/// The first format in which colour chips are sold for cash only at an
/// open table: a closed table, its wheel covered, once took cash into its
/// drop box.
pub const FORMAT_CHIPS_AT_OPEN_TABLES: u32 = 14;

/// The first format in which an admin sets the casino's gaming day (its
/// time zone and the hour it starts): every daily limit, the books, colour
/// chips' days and the tournaments' dates count it. Before, a UTC day.
pub const FORMAT_GAMING_DAY: u32 = 14;

/// The first format in which match play coupons a cashier issues count
/// against the cashier's day for the player, and dealers' chip sales to a
/// player are capped across every table, not at each.
pub const FORMAT_CAPS_CASINO_WIDE: u32 = 14;

/// The first format in which a table keeps the books of its gaming day
/// (drop, fills, credits, win) from the transfers it makes.
pub const FORMAT_TABLE_BOOKS: u32 = 14;

/// The first format in which the cage keeps its own record of the cash it
/// moved and the coupons it issued (`casino/cage_record.rs`): up to format
/// 13 the cashier's page kept that list in its own memory, lost on a reload.
pub const FORMAT_CAGE_RECORD: u32 = 14;

/// The first format in which a filing of a tournament's written rules that
/// came too late for its scheduled start is refused as it is recorded, and
/// a filing recorded may be corrected before the start (Colorado 2213.06).
pub const FORMAT_FILING_CHECKED: u32 = 14;

/// The first format in which a player's bet under the table minimum is
/// paid or collected once at a table, and each later one of theirs there is
/// returned whatever the result (european-casino 3.13: "only once. After
/// this, they are returned to the player"). Up to format 13 every such bet
/// settled.
pub const FORMAT_UNDER_MINIMUM_ONCE: u32 = 14;

/// The first format in which In Prison acts on 0 alone (Colorado 2204(2):
/// "When the outcome is zero (0)"): on a double-zero wheel an even-money bet
/// loses on 00. Up to format 13 In Prison acted on 00 too.
pub const FORMAT_IN_PRISON_ON_ZERO: u32 = 14;

/// The first format in which a complete wager on a zero is refused
/// (Maryland ch.3 F(19): "any number or numbers within a dozen", and no
/// zero is in a dozen). Up to format 13 it was taken, and those journals'
/// tables replay so.
pub const FORMAT_COMPLETE_IN_A_DOZEN: u32 = 14;

/// The first format in which a table whose layout carries signage of its
/// limits opens only with a limit posted on every kind of bet it takes
/// (Maryland ch.1 G(3): "Signage indicating the minimum and maximum wagers
/// permitted at that table"), and `set_limits` there never leaves a kind off
/// the sign. Up to format 14 it opened without, and those journals' tables
/// replay so.
pub const FORMAT_LIMITS_POSTED: u32 = 15;

/// The first format in which a Bonus Spin Xtreme table's results come only
/// from the RNG: its targets are drawn "prior to each wheel spin" (Maryland
/// ch.3 F(16)), and an automated wheel launches its ball before it tells
/// the table betting is closed, when the targets are drawn. Up to format
/// 14 such a table could follow a wheel, and those journals replay so.
pub const FORMAT_BSX_NOT_AT_WHEEL: u32 = 15;

/// The first format in which only staff with a licence on their record
/// inspect or adjust a table whose log carries licence numbers (Colorado
/// 2212(5): "the name, license number and signature of the person making
/// the adjustment"; Maryland ch.2 E(6)). Up to format 14 a user with none
/// recorded signed the log with the licence typed at sign-in.
pub const FORMAT_LICENCE_ON_RECORD: u32 = 15;

/// The first format in which a player's bet sent after no more bets is
/// logged, with the player, spot, stake and time, as well as refused
/// (low-limit-house Irregularities (4): "This is Past Posting and will be
/// addressed accordingly by casino management"): the server journals
/// `record_past_posting`, its own request, once a player a round.
pub const FORMAT_PAST_POSTING_LOGGED: u32 = 15;

/// The first format in which an event's end and a tournament's conclusion
/// are checked against the four months of Colorado 2213(1) ("A tournament
/// must conclude no later than four months following the first day of
/// tournament play") on the day they are recorded, and a refund of an
/// entry fee carries its day, leaving that month's proceeds (2213.01). Up
/// to format 14 they carried no day: an event could end, and the
/// tournament conclude, at any time, and a refund changed the proceeds of
/// the month its fee was collected in, though that month was reported.
pub const FORMAT_TOURNAMENT_DAYS_CHECKED: u32 = 15;

/// The first format in which a tournament under the 2013 text that runs
/// past 31 days keeps its prizes' value in an escrow account of the ledger,
/// funded before the start, pays its prizes from it and returns what is
/// left at the conclusion (Colorado 2213(1) as amended to 7/1/13). Up to
/// format 14 the escrow was only a figure in its file.
pub const FORMAT_TOURNAMENT_ESCROW: u32 = 15;

/// The first format in which the Division's objection to a tournament's
/// written rules is recorded, and no event starts while it stands (Colorado
/// 2213.06: "the licensee shall not offer a tournament using the rules
/// found unacceptable").
pub const FORMAT_DIVISION_OBJECTION: u32 = 15;

/// The first format in which a table's books of a gaming day keep its open
/// play and each dealer's share (the day report, `GET /api/reports/day`):
/// the dealer on duty and the time since the table's last entry are counted
/// from it. Up to format 14 neither was kept, and those journals' tables
/// replay without, so the state a checkpoint holds is the same bytes until a
/// format-15 entry fills them.
pub const FORMAT_DAY_REPORT: u32 = 15;

/// The first format with fill and credit slips, each signed by the pit
/// that asks and the cage that issues or receives, and the pit's counts of
/// a table's float at opening and closing (`casino/table/slips.rs`; house
/// practice: no rule document croupier follows speaks of them). Up to
/// format 14 only the house's automatic fill moved money into a float.
pub const FORMAT_FLOAT_SLIPS: u32 = 15;

/// The first format in which a cashier counts their drawer at shift end,
/// the count kept beside what the cage's record says the drawer holds, and
/// a second person (the pit or an admin) voids a mistaken cash-in or
/// cash-out by the reverse transfer (`casino/cage_drawer.rs`; house
/// practice: no rule document croupier follows speaks of them).
pub const FORMAT_CAGE_DRAWER: u32 = 15;

/// The first format in which each dealer's share of a table's gaming day
/// also keeps their shift there: the open play and the tips while they were
/// on duty, and the times of the first and last entries written while they
/// were (the shift report, `GET /api/reports/shift`). A format-15 journal's
/// shares replay without, so its checkpoints keep their bytes.
pub const FORMAT_DEALER_SHIFTS: u32 = 16;

/// The first format in which the security department member present at
/// an adjustment (Colorado 2212(2), Maryland ch.2 B: "in the presence of a
/// licensed security department member") is named by username, a user of
/// the security role with a licence on record, and confirms the adjustment
/// from their own account (`witness_adjustment`); the log shows their name
/// and recorded licence from the confirmation, and no inspection is made
/// while an adjustment awaits its witness (2212(3), ch.2 C: "All
/// adjustments shall be completed prior to the required inspections"). Up
/// to format 15 the adjuster typed the witness's name and licence, and
/// those journals replay so.
pub const FORMAT_WITNESS_CONFIRMS: u32 = 16;

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

/// The first format in which an automated wheel's game counts only when its
/// frames show the ball launched after the table started watching
/// ([`croupier_wheel::monitor::launch_witnessed`]): up to format 5 a game
/// first seen in flight, after a reconnection, settled bets placed while
/// the ball may already have been rolling.
pub const FORMAT_WHEEL_LAUNCH_WITNESSED: u32 = 6;

/// The first format in which one player's bets on one spot in a round stay
/// within the table's maximum together, not each bet alone.
pub const FORMAT_SPOT_MAXIMUM: u32 = 6;

/// The first format in which a new table keeps the rules of
/// `casino/new_table.rs`: the casino's one currency, no In Prison on a
/// double-zero wheel used as single zero, a half taken back rounded up.
pub const FORMAT_TABLE_RULES: u32 = 6;

/// The first format whose every actor is the server or a user in their own role.
pub const FORMAT_ACTORS_KNOWN: u32 = 5;

/// The first format in which a request whose transfers were all made
/// before (a resend with the same id) writes no entry.
pub const FORMAT_RESENDS_WRITE_NOTHING: u32 = 5;

/// The first format in which a match play coupon is played only as issued,
/// once (`issue_coupon`, then a bet's `coupon_id`).
pub const FORMAT_COUPONS_ISSUED: u32 = 5;

/// The first format in which a dealer alone sells at most
/// [`crate::casino::table::DEALER_SALE_MAX`] in chips at once.
pub const FORMAT_DEALER_SALES_CAPPED: u32 = 5;

/// The first format in which a cashier moves at most
/// [`crate::casino::cash::CASHIER_DAY_MAX`] of one player's cash in, and as
/// much out, in a UTC day.
pub const FORMAT_CASH_CAPPED: u32 = 5;

/// The first format in which a tip is whole chips of the player's chip value.
pub const FORMAT_TIPS_IN_CHIPS: u32 = 5;

/// The first format in which a damaged end of the journal may be cut off
/// (`croupier recover`), the cut journaled as a `journal_recovered` event.
pub const FORMAT_JOURNAL_RECOVERY: u32 = 5;

/// The first format in which a result comes only from its table's source.
pub const FORMAT_RESULTS_FROM_SOURCE: u32 = 4;

/// The first format whose bodies are [`JournalEvent`]s stored as JSON.
pub const FORMAT_JOURNAL_EVENTS: u32 = 3;

/// The format from which a round settles per player (see [`JOURNAL_FORMAT`]).
pub const FORMAT_SETTLES_PER_PLAYER: u32 = 2;

/// Whether a request whose transfers the ledger judged `applied` was a
/// resend that wrote nothing: in `format` 5 on, one whose every transfer
/// was made before.
pub fn resent(format: u32, applied: &[Applied]) -> bool {
    format >= FORMAT_RESENDS_WRITE_NOTHING
        && !applied.is_empty()
        && applied.iter().all(|a| *a == Applied::AlreadyExisted)
}

/// The first format in which a player places at most
/// [`croupier_core::round::PLAYER_ROUND_BETS_MAX`] bets in a round: up to
/// format 4 one player could fill a round's [`croupier_core::round::ROUND_BETS_MAX`].
pub const FORMAT_PLAYER_BETS_CAPPED: u32 = 5;

/// The first format in which a profile's `dispute_authority` must name a
/// role that decides disputes, only that role decides them, and a
/// correction pays or collects only what the disputed round could have
/// paid its player: up to format 4 a pit supervisor decided any table's
/// disputes, for any player, of any amount.
pub const FORMAT_DISPUTES_BOUND: u32 = 5;

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
