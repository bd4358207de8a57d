//! The bodies the API answers with, one type each, so that the OpenAPI
//! document describes every answer.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{Audience, EventView, OutcomeSource, Role, Viewer};

/// A session begun: the bearer token to send with every request.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct LoginAnswer {
    pub token: String,
    pub username: String,
    pub role: Role,
    /// The password was chosen by someone else (the first admin's, an
    /// admin's reset): the session takes nothing but `change_password` until it is changed.
    pub must_change_password: bool,
}

/// A request done that has nothing more to say.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Done {
    pub ok: bool,
}

/// Who the caller is, and the balances of their own accounts (their
/// wallet, and their chips at each table) in minor units.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Me {
    pub username: String,
    pub role: Role,
    pub accounts: BTreeMap<String, i128>,
    /// This session signed in with a password someone else chose: it takes
    /// nothing but `change_password` until it is changed.
    pub must_change_password: bool,
    /// The casino's gaming day, for staff: its pages date their day by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gaming_day: Option<GamingDayView>,
    /// What your role may do, by the server's policy (`witness_adjustment`,
    /// `inspect`, `adjust`...): the pages read it rather than repeat it.
    #[serde(default)]
    pub may: Vec<String>,
}

/// The casino's gaming day as an admin set it (`set_gaming_day`), and
/// today's by it.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct GamingDayView {
    /// An IANA time zone (`America/Denver`); `UTC` until set.
    pub time_zone: String,
    /// The local time the day starts, `HH:MM`.
    pub starts_at: String,
    /// Today's gaming day, `YYYY-MM-DD`.
    pub today: String,
}

/// A profile shipped inside croupier, for a table to be made from.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ShippedProfile {
    pub name: String,
    pub title: String,
    pub currency: String,
    /// The wheels a table of it may use, the default first.
    pub wheels: Vec<String>,
    /// Whether a table of it may offer In Prison.
    pub in_prison_offered: bool,
    /// The profile file's whole text, as `create_table` takes it.
    pub text: String,
    /// The shipped bonus configurations its document permits, as
    /// `create_table`'s `bonus_text` takes them.
    #[serde(default)]
    pub bonuses: Vec<ShippedBonus>,
}

/// A shipped bonus configuration (Roulette X or Bonus Spin Xtreme).
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ShippedBonus {
    pub name: String,
    /// `roulette-x` or `bonus-spin-xtreme`.
    pub kind: String,
    /// The wheels it may be played on.
    pub wheels: Vec<String>,
    pub text: String,
}

/// The profiles shipped inside croupier.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ShippedProfiles {
    pub profiles: Vec<ShippedProfile>,
    /// The example tournament files, as shipped (`profiles/tournaments/`).
    #[serde(default)]
    pub tournaments: Vec<ShippedTournament>,
}

/// An example tournament file shipped inside croupier.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ShippedTournament {
    pub name: String,
    pub text: String,
}

/// A match play coupon as issued.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct IssuedCoupon {
    pub id: String,
    pub table: String,
    pub value: u64,
    /// Played only before this instant (Unix ms); absent: no end.
    pub expires_at_ms: Option<u64>,
}

/// The cage's record of a gaming day: its cash-ins, cash-outs and coupons
/// issued, newest first, as the cage made them.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct CageTransactions {
    /// The gaming day, `YYYY-MM-DD` (the casino's gaming day).
    pub day: String,
    /// The casino's currency, once it has a table.
    pub currency: Option<String>,
    /// The operator's name, once an admin has named it: a receipt's head.
    pub operator: Option<String>,
    pub transactions: Vec<CageTransaction>,
    /// Older ones of the day were left out (at most 1,000 are listed).
    pub more: bool,
    /// What the reader's own drawer should hold now, in minor units: their
    /// cash-ins less cash-outs of the day (voided ones left out), less what
    /// their earlier counts of the day expected. `None` in an admin's or
    /// auditor's read of everyone's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drawer: Option<i64>,
}

/// What the cage did: `cash_in`, `cash_out`, `coupon` (issued) or
/// `drawer_count` (a cashier's count of their drawer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CageTransactionKind {
    CashIn,
    CashOut,
    Coupon,
    DrawerCount,
}

/// A cash-in or cash-out voided: under which id, when, by whom and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CageVoid {
    pub id: String,
    pub at_ms: u64,
    pub by: String,
    pub reason: String,
}

/// One transaction of the cage, as its record lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CageTransaction {
    /// When it was made (Unix ms, the server's clock).
    pub at_ms: u64,
    pub kind: CageTransactionKind,
    pub player: String,
    /// In minor units: the cash moved, or the coupon's value.
    pub amount: u64,
    /// The id it was made under: the transfer `cashin/{reference}` or
    /// `cashout/{reference}`, or the coupon's number.
    pub reference: String,
    /// Who made it.
    pub by: String,
    /// A coupon's table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    /// A count's: what the drawer should have held (`amount` is the count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<i64>,
    /// A count's: `amount` less `expected`, short below 0, over above.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difference: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voided: Option<CageVoid>,
}

/// A player's accounts and coupons, as the cage looks them up.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct PlayerAccounts {
    pub player: String,
    /// The player's number, as game recall and the journal name them.
    pub player_id: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// Retired for good: their history stays, and no money moves.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub retired: bool,
    /// Their wallet and their chips at each table: account name, balance in minor units.
    pub accounts: BTreeMap<String, i128>,
    pub coupons: Vec<IssuedCoupon>,
    pub locked: bool,
    /// The tables their colour chips were recorded taken away from
    /// (european-casino 5.2), by table id: those chips are cashed in, not
    /// played. Left out where there are none.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub away: BTreeMap<String, AwayChips>,
}

/// A user as the admin's page lists them: never their password's hash.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct UserSummary {
    pub username: String,
    pub role: Role,
    pub locked: bool,
    /// Their password was chosen by someone else and is changed at their next sign-in.
    pub must_change_password: bool,
    /// The licence number on their record (staff).
    pub licence: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// Retired for good: listed only when retired users are asked for.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub retired: bool,
}

/// A page of users in name order; `next` names the last one where more follow.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct UserList {
    pub users: Vec<UserSummary>,
    /// Pass as `after` for the next page; absent on the last page.
    pub next: Option<String>,
}

/// A write's answer: the events it caused that the caller may see and that
/// belong to no player, or to the caller. Each player's own events (a bet
/// placed, settled, returned) go out on that player's stream and the
/// staff's, and are in recall; a round's answer to the dealer carries its
/// result and totals, not a settlement per bet (3,000 bets made a 600 KB
/// answer that no console reads, written while every table's bets waited
/// for the cores).
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Events {
    pub events: Vec<EventView>,
    /// The request wrote nothing: it was done before (a resend under its id,
    /// a confirmation given already). Left out when it wrote something:
    /// staff are answered no player's own events, so an empty `events` alone
    /// does not tell a resend from a sale made now.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub done_before: bool,
}

impl Events {
    /// A write's answer to `viewer`: what they may see of each event (see
    /// [`EventView::seen_by`]), but no player's own events to staff, and the
    /// events at no table (the caller's own doing at the cage) as they are.
    pub fn answering(viewer: Viewer<'_>, events: Vec<EventView>) -> Events {
        // Every request that writes records at least one event.
        let done_before = events.is_empty();
        let events = events
            .into_iter()
            .filter_map(|e| {
                let shown = match (e.audience(), viewer) {
                    (Audience::NoStream, _) => return Some(e),
                    (Audience::Player { .. }, Viewer::Staff) => return None,
                    // `Some(None)`: shown as it is; `Some(Some(part))`: only a part of it.
                    _ => e.seen_by(viewer).map(|seen| match seen {
                        std::borrow::Cow::Borrowed(_) => None,
                        std::borrow::Cow::Owned(part) => Some(part),
                    }),
                };
                shown.map(|part| part.unwrap_or(e))
            })
            .collect();
        Events { events, done_before }
    }
}

/// A seated player's colour chips at a table.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Seat {
    pub player: String,
    pub colour: String,
    pub chip_value: u64,
}

/// A table as the signed-in pages list it.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct TableSummary {
    pub table: String,
    /// The name the pages show beside its id, if an admin gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Retired for good: listed only when retired tables are asked for.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub retired: bool,
    pub betting_window_ms: u64,
    pub profile: String,
    pub wheel: String,
    pub outcome: OutcomeSource,
    /// `closed`, `open`, `betting` or `closed-betting`.
    pub phase: String,
    pub round: u64,
    /// The last pockets, newest first, at most 16.
    pub last_pockets: Vec<String>,
    /// The seated players' colours: every seat for staff, a player's own for a player.
    pub colours: Vec<Seat>,
    /// The tournament event the table plays in points, if it plays one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<PointsNotice>,
    /// The table's bonus configuration, if it has one (`bonus-spin-xtreme`, `roulette-x-a`...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bonus: Option<String>,
}

/// A table playing a tournament's event, as posted at it (Colorado 2214).
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct PointsNotice {
    pub tournament: String,
    pub event: String,
    /// Whether the event is under way.
    pub running: bool,
    /// Each colour of tournament chip and the points it counts now (2214(2)).
    pub chip_values: Vec<ChipValue>,
    /// The notice in words, as the table posts it.
    pub notice: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ChipValue {
    pub colour: String,
    pub points: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct TableList {
    pub tables: Vec<TableSummary>,
}

/// The tables' ids, for a display board.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct TableIds {
    pub tables: Vec<String>,
    /// The casino's operator, once named (Maryland ch.1 G(1)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operator: Option<String>,
}

/// What a display board shows of a table: its state and last numbers, nothing about players.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct PublicTable {
    pub table: String,
    /// Retired for good: no board lists it; its last numbers stay readable.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub retired: bool,
    pub profile: String,
    /// The wheel, in words.
    pub wheel: String,
    /// Its name (`single-zero`, `double-zero`...), for a page to say it in its language.
    pub wheel_name: String,
    pub wheel_pockets: Vec<String>,
    /// Each pocket's colour (`red`, `black`, `green`), so that no page keeps a copy of the wheel.
    pub pocket_colours: BTreeMap<String, String>,
    pub round: u64,
    /// `closed`, `open`, `betting` or `closed-betting`.
    pub phase: String,
    pub deadline_ms: Option<u64>,
    pub phase_text: String,
    pub display_length: u8,
    /// The last pockets, newest first.
    pub last_pockets: Vec<String>,
    /// The round the newest of `last_pockets` came up in, while the table keeps that round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_round: Option<u64>,
    /// The tournament event the table plays in points, if it plays one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<PointsNotice>,
    /// The no spin whose ball is inspected before the next spin (Colorado
    /// 2206(4), Maryland ch.6 B-C), and who inspects it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ball_to_inspect: Option<BallToInspect>,
    /// An external movable part was replaced: the regulator inspects the
    /// wheel before the table reopens (Colorado 2212(4)).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub awaits_regulator: bool,
    /// The casino's operator, shown on the layout (Maryland ch.1 G(1)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operator: Option<String>,
    /// The table's bonus as it stands: the round's numbers, the meters and
    /// the jackpots they paid (Maryland ch.3 F(16)-(18), ch.4 D-F).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bonus: Option<Box<BonusState>>,
}

/// A bonus table's round and meters, as the table shows them to the room.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct BonusState {
    /// `roulette-x` or `bonus-spin-xtreme`.
    pub kind: String,
    pub name: String,
    /// The currency of the meters and jackpots.
    pub currency: String,
    /// The round the numbers are for; none before its first draw.
    pub drawn_round: Option<u64>,
    /// Bonus Spin Xtreme's target numbers for the round.
    pub targets: Vec<String>,
    /// Roulette X's lucky numbers for the round, with the odds each pays.
    pub lucky: Vec<crate::api::LuckyView>,
    /// The progressive meters as they stand, in minor units (Bonus Spin Xtreme).
    pub meters: Option<MetersView>,
    /// Bonus Spin Xtreme wagers placed this round, of `positions`.
    pub wagers: usize,
    pub positions: u8,
    /// The jackpots the meters paid, newest first (no player named).
    pub jackpots: Vec<JackpotView>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct MetersView {
    pub primary: u64,
    pub secondary: u64,
}

pub use super::layout::{Layout, LayoutBonus, LayoutKind, LayoutPart, LayoutSpot};

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct JackpotView {
    pub at_ms: u64,
    pub round: u64,
    /// `primary` or `secondary`.
    pub meter: String,
    pub amount: u64,
}

/// A ball waiting for its inspection after a no spin.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct BallToInspect {
    /// The no spin's reason: `ball_left_wheel`, `too_few_revolutions`.
    pub reason: String,
    /// `pit supervisor` or `dealer`.
    pub inspected_by: String,
}

/// An entry of a table's operations log: the event, with when it happened.
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct LogEntry {
    pub at_ms: u64,
    #[schema(inline)]
    pub event: EventView,
    /// Who did it, where the event does not say (the server's own acts: none).
    pub by: Option<String>,
    /// Their licence number, as they signed in with it.
    pub licence: Option<String>,
}

/// Written as the event's own fields with `at_ms` among them, as the pit's page reads it.
impl Serialize for LogEntry {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut fields = match serde_json::to_value(&self.event).map_err(serde::ser::Error::custom)? {
            serde_json::Value::Object(fields) => fields,
            _ => serde_json::Map::new(),
        };
        fields.entry("at_ms").or_insert(self.at_ms.into());
        for (key, value) in [("by", &self.by), ("licence", &self.licence)] {
            if let Some(value) = value {
                fields.entry(key).or_insert(value.clone().into());
            }
        }
        fields.serialize(serializer)
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct TableLog {
    pub log: Vec<LogEntry>,
    /// The adjustments awaiting their security witness, oldest first
    /// (journal format 16): no inspection is recorded until each is
    /// witnessed or withdrawn.
    #[serde(default)]
    pub awaiting_witness: Vec<AwaitingWitness>,
}

/// A bet of the round under way.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct OpenBet {
    pub bet_id: String,
    pub player: String,
    pub spot: String,
    pub kind: String,
    pub stake: u64,
}

/// An automated wheel as the server last saw it.
#[derive(Clone, Debug, Default, Serialize, Deserialize, ToSchema)]
pub struct WheelStatus {
    pub address: String,
    pub connected: bool,
    pub games: u64,
    pub last_result: Option<String>,
    pub last_error: Option<String>,
    pub at_ms: u64,
}

/// The round under way at a table and its bets.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct TableBets {
    pub table: String,
    pub round: u64,
    pub phase: String,
    pub emergency: bool,
    pub inspected: bool,
    pub outcome: OutcomeSource,
    pub wheel: Option<WheelStatus>,
    pub bets: Vec<OpenBet>,
    /// The caller's match play coupons for this table that a bet may play
    /// now: issued to them, not played on a bet the table holds, not past
    /// their end, at a table playing cash. A player's own; staff see none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub coupons: Vec<IssuedCoupon>,
}

pub use super::report::{
    AwaitingWitness, AwayChips, CouponCount, CouponTotals, DayBooksView, FloatCountView, ReportTotals, RoundTotals,
    SeatedChips, SlipList, SlipStep, SlipView, TableReport,
};

pub use super::day_report::{decimal, hold, pace, DayFigures, DayReport, DealerDay, TableDay, CSV_HEADER};

pub use super::floor::{FloorAlerts, FloorTable, FloorView, PostedLimit};

pub use super::shift_report::{utc_time, ShiftFigures, ShiftReport, ShiftTable, SHIFT_CSV_HEADER};

pub use super::recall::{RecalledBet, RecalledRound, Rounds};
