//! The pit's report of a table: the books of its gaming day, each figure a
//! sum of the ledger's transfers, its accounts, its seated players' chips,
//! its coupons and the rounds it keeps; and the log's adjustments awaiting
//! their security witness.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A player's chips at a table, for the pit.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct SeatedChips {
    pub player: String,
    pub colour: String,
    pub chip_value: u64,
    pub chips: i64,
    /// Set once the dealer or the pit recorded the player's chips taken
    /// away from the table (european-casino 5.2; from journal format 14)
    /// until they are cashed in: the pages offer the supervisor's
    /// confirmation (5.5) for these chips alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub away: Option<AwayChips>,
}

/// Colour chips recorded taken away: when, and whether the supervisor the
/// profile names has confirmed their face value (european-casino 5.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct AwayChips {
    pub at_ms: u64,
    pub confirmed: bool,
}

/// A settled round's totals.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct RoundTotals {
    pub round: u64,
    pub pocket: Option<String>,
    pub bets: usize,
    pub staked: u64,
    pub returned: u64,
    pub house: i64,
}

/// The totals of the rounds a report lists: those the table keeps (its
/// last 100 settled in money, fewer where they hold over 10,000 bets), not
/// the table's whole life nor its day (`books` is the day's); each round is
/// listed with its number, an In Prison stake in the round that settled it.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ReportTotals {
    pub staked: i64,
    pub house: i64,
}

/// The books of a table's gaming day, each figure a sum of the ledger's
/// transfers that day (from journal format 14), in minor units.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct DayBooksView {
    /// The gaming day, `YYYY-MM-DD`, as the casino's gaming day counts it (`set_gaming_day`).
    pub day: String,
    /// The float before the day's first movement, and after its last.
    pub float_open: i64,
    pub float_close: i64,
    /// What was exchanged for colour chips: `drop_cash` (cash into the drop
    /// box, Colorado 2202) and `drop_wallet` (chips bought from wallets).
    pub drop: u64,
    pub drop_cash: u64,
    pub drop_wallet: u64,
    /// The house's money into the float, and the float's back to the house.
    pub fills: u64,
    pub credits: u64,
    /// What play moved into the float less what it paid out of it:
    /// `float_close - float_open - fills + credits`.
    pub win: i64,
    /// `win` over `drop`, in hundredths of a per cent (rounded toward
    /// zero); none without a drop.
    pub hold_basis_points: Option<i64>,
    /// Stakes put on the layout from chips (an In Prison stake once), and
    /// of them those handed back unplayed (cancelled, annulled, a void round's).
    pub staked: u64,
    pub returned_unplayed: u64,
    /// Of the win, what dispute corrections paid and collected.
    pub disputes_paid: u64,
    pub disputes_collected: u64,
    /// Chips cashed back into wallets, and what the house kept of chips
    /// brought back revalued (european-casino 5.4).
    pub cashed_out: u64,
    pub revalued_kept: u64,
    pub tips: u64,
    /// Into the progressive meters, and out of them as jackpots.
    pub meters_fed: u64,
    pub jackpots: u64,
    /// Rounds played to a result (not a void one).
    pub rounds: u64,
}

/// A table's figures for the pit: its accounts and the recent rounds' totals.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct TableReport {
    pub table: String,
    pub profile: String,
    /// The books of the gaming day asked for (by default today's): every
    /// figure the ledger's transfers that day.
    pub books: DayBooksView,
    /// The gaming days whose books the table keeps (its newest 31), oldest first.
    pub book_days: Vec<String>,
    /// `float`, `drop`, `tips`, `coupons`, `layout` (and at a Bonus Spin
    /// Xtreme table `meter-primary`, `meter-secondary`): each account's balance.
    pub accounts: BTreeMap<String, i64>,
    pub players: Vec<SeatedChips>,
    pub rounds: Vec<RoundTotals>,
    pub totals: ReportTotals,
    /// The table's match play coupons (Colorado 2203(1)). A coupon's
    /// winnings are paid from the table's float, like any other.
    pub coupons: CouponTotals,
    /// The fill and credit slips requested on the gaming day asked for, and
    /// every slip still open whatever its day (from journal format 15).
    #[serde(default)]
    pub slips: Vec<SlipView>,
    /// The float's counts of that day, each beside the ledger's balance then.
    #[serde(default)]
    pub float_counts: Vec<FloatCountView>,
    /// The game integrity monitor's alarms (`/api/tables/{table}/integrity`):
    /// filled in by the server as it answers, from the recall archive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integrity: Option<super::integrity::IntegrityStatus>,
}

/// How many coupons, and their face value in minor units.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CouponCount {
    pub count: u64,
    pub value: u64,
}

/// A table's match play coupons: every one issued is redeemed (played on a
/// bet), expired (past its end unplayed) or outstanding.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CouponTotals {
    pub issued: CouponCount,
    pub redeemed: CouponCount,
    pub expired: CouponCount,
    pub outstanding: CouponCount,
}

/// A fill or credit slip (journal format 15): the pit's request, the first
/// signature, and the cage's, the second, which moves the money; or void.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SlipView {
    pub table: String,
    pub id: String,
    /// `fill` (the cage's chips to the float) or `credit` (the float's back).
    pub kind: String,
    pub amount: u64,
    /// `open` (waiting for the cage's signature), `signed` or `voided`.
    pub state: String,
    pub day: String,
    pub requested_at_ms: u64,
    pub requested_by: String,
    pub requested_licence: String,
    /// Who signed or voided it, when, and (voided) why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_licence: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_at_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The slips waiting for the cage's signature, at every table.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct SlipList {
    pub slips: Vec<SlipView>,
}

/// A count of a table's float: what was counted, the ledger's balance of
/// the float then, and `difference` (counted less ledger), shown whatever it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FloatCountView {
    pub id: String,
    /// `opening` or `closing`.
    pub when: String,
    pub at_ms: u64,
    pub by: String,
    pub licence: String,
    pub counted: u64,
    pub ledger: i64,
    pub difference: i64,
}

/// A slip's step or a float's count, as a table's stream shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum SlipStep {
    Requested {
        id: String,
        kind: String,
        amount: u64,
        by: String,
        licence: String,
    },
    Signed {
        id: String,
        kind: String,
        amount: u64,
        by: String,
        licence: String,
    },
    Voided {
        id: String,
        by: String,
        reason: String,
    },
    Counted {
        id: String,
        when: String,
        counted: u64,
        ledger: i64,
        by: String,
        licence: String,
    },
}

/// An adjustment awaiting the security member it names to confirm it
/// (Colorado 2212(2), Maryland ch.2 B).
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct AwaitingWitness {
    pub table: String,
    /// Its number at the table: `witness_adjustment`'s `adjustment`.
    pub adjustment: u64,
    pub at_ms: u64,
    /// Who made it.
    pub by: String,
    pub description: String,
    /// The security member's username.
    pub witness: String,
}
