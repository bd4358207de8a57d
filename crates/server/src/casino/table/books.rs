//! A table's books: the balances of its own accounts, which it plans with
//! and checks a batch against as the ledger will, and the books of its
//! gaming day, kept from the transfers the table
//! makes as they are made (journal format 14): the pit's report reads them,
//! so every figure it shows is the ledger's movements to the cent. The
//! report once summed the rounds it showed: a dispute's correction, the
//! house's fills of the float and rounds past the hundred shown were left
//! out, and an In Prison stake was counted in the round it was held and
//! again in the round that settled it.
//!
//! Each figure is a sum of transfers, named by the accounts they move
//! between, so an auditor finds it again in the journal alone:
//!
//! - **drop**: cash taken at the table for colour chips (outside → the
//!   drop box, Colorado 2202), and chips bought from a wallet at the cage
//!   (wallet → chips), the electronic marker;
//! - **fills**: the house's money into the float (house → float), when the
//!   float cannot pay a round's winners; **credits**: the float's money back
//!   to the house (float → house);
//! - **win**: what play moved into the float less what it paid out of it
//!   (every other transfer into or out of the float: losing stakes, bonus
//!   wagers, winnings, dispute corrections), which is the float's closing
//!   balance less its opening, less fills, plus credits;
//! - **hold**: win over drop.
//!
//! From journal format 15 (`FORMAT_DAY_REPORT`) each day's books also keep
//! its **open play** and each **dealer's share**. Open play is measured
//! between the table's own journaled entries: each entry written while the
//! table is open adds the time since the table's entry before it (or its
//! opening) to the gaming day the entry is written in, up to the entry that
//! closes it; an idle stretch counts once the next entry comes, and one
//! across the day's start counts to the new day. The journal records no
//! dealer signing on at a table, so the dealer on duty is the staff member
//! who last ran its game: opened the table, opened or closed betting, keyed a
//! spin or asked the RNG's draw. A wheel's closing of betting and its games
//! are the server's, and change no one. Every transfer a day's books count
//! (drop, float in and out) and every round settled go to whoever was on
//! duty when its entry was written (`-` before anyone was), so the dealers'
//! shares sum to the table's figures.
//! From journal format 16 (`FORMAT_DEALER_SHIFTS`) each share also keeps the
//! dealer's shift: the open play and tips while they were on duty (a stretch
//! of open play goes to whoever was on duty until the entry that ends it),
//! and the first and last entries written while they were, which the shift
//! report (`GET /api/reports/shift`) shows; a format-15 day's shares have
//! none, their open play and tips all under `-`.
//! A format-14 journal's entries count neither: its days' figures all go to
//! `-` and their open play is none; on the day a casino upgrades, both count
//! from the table's first entry after the upgrade, the day's earlier figures
//! under `-`. Until a format-15 entry fills them, the books are written as a
//! format-14 build wrote them, so its checkpoints keep their bytes.
//!
//! A gaming day is the casino's (`casino/gaming_day.rs`): its own time zone
//! from its own hour, a UTC day until an admin sets it.

use std::collections::BTreeMap;

use croupier_ledger::{Account, Funds, TableAccount, Transfer};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use croupier_core::round::Phase;

use super::TableSlot;
use crate::api::{ApiError, ErrorCode};
use crate::casino::actor::Actor;
use crate::casino::err;

/// How many of its newest gaming days a table keeps the books of.
pub const BOOK_DAYS_KEPT: usize = 31;

/// Who a day's figures go to while no staff member has run the table's game.
pub const NO_DEALER: &str = "-";

/// A dealer's share of a table's gaming day: what moved and what settled
/// while they were on duty, in minor units.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DealerBooks {
    pub drop_cash: u64,
    pub drop_wallet: u64,
    pub float_in: u64,
    pub float_out: u64,
    pub rounds: u64,
    /// Open play while they were on duty, in milliseconds: the time since the
    /// table's entry before each entry written while it is open goes to
    /// whoever was on duty until that entry (journal format 16).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub open_ms: u64,
    /// Into the dealers' tip box while they were on duty (journal format 16).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub tips: u64,
    /// Their shift at the table: the first and the last entry written while
    /// they were on duty and the table open, or that made them the dealer on
    /// duty (journal format 16).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_ms: Option<u64>,
}

impl DealerBooks {
    /// Their win: what play moved into the float less what it paid out.
    pub fn win(&self) -> i128 {
        i128::from(self.float_in) - i128::from(self.float_out)
    }

    fn add(&mut self, more: &DealerBooks) {
        self.drop_cash += more.drop_cash;
        self.drop_wallet += more.drop_wallet;
        self.float_in += more.float_in;
        self.float_out += more.float_out;
        self.rounds += more.rounds;
        self.open_ms += more.open_ms;
        self.tips += more.tips;
    }
}

/// Whether a request runs the table's game: its maker is the dealer on duty.
pub(super) fn runs_game(request: &crate::casino::request::Request) -> bool {
    use crate::casino::request::Request as R;
    matches!(
        request,
        R::OpenTable { .. } | R::OpenBetting { .. } | R::NoMoreBets { .. } | R::Spin { .. } | R::Draw { .. }
    )
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One gaming day's books at a table, in minor units.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DayBooks {
    /// The float's balance before the day's first movement of it.
    pub float_open: i128,
    /// Cash for colour chips into the drop box (outside → drop).
    pub drop_cash: u64,
    /// Colour chips bought from wallets (wallet → chips).
    pub drop_wallet: u64,
    /// The house's money into the float (house → float).
    pub fills: u64,
    /// The float's money back to the house (float → house).
    pub credits: u64,
    /// Into the float from play: losing stakes, bonus wagers, corrections collected.
    pub float_in: u64,
    /// Out of the float to play: winnings, corrections paid.
    pub float_out: u64,
    /// Of those, what disputes paid and collected (`{table}/dispute/...`).
    pub disputes_paid: u64,
    pub disputes_collected: u64,
    /// Stakes put on the layout from players' chips (an In Prison bet once).
    pub staked: u64,
    /// Of those, handed back unplayed: cancelled, annulled, or their round void.
    #[serde(default)]
    pub returned_unplayed: u64,
    /// Colour chips cashed back into wallets (chips → wallet).
    pub cashed_out: u64,
    /// Chips the house kept of chips brought back revalued (chips → house).
    pub revalued_kept: u64,
    /// Into the dealers' tip box.
    pub tips: u64,
    /// Into the progressive meters, and out of them as jackpots.
    pub meters_fed: u64,
    pub jackpots: u64,
    /// Rounds played to a result (a void round or a no spin that voids is none).
    pub rounds: u64,
    /// Open play, in milliseconds (see the module's doc; journal format 15).
    /// Left out while none, as a format-14 journal's books are written.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub open_ms: u64,
    /// Each dealer's share, by username (`NO_DEALER` before anyone ran the
    /// game; journal format 15). Left out while empty, as `open_ms`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub dealers: BTreeMap<String, DealerBooks>,
}

impl DayBooks {
    /// Adds `more`'s movements (its float's opening aside).
    fn add(&mut self, more: &DayBooks) {
        self.drop_cash += more.drop_cash;
        self.drop_wallet += more.drop_wallet;
        self.fills += more.fills;
        self.credits += more.credits;
        self.float_in += more.float_in;
        self.float_out += more.float_out;
        self.disputes_paid += more.disputes_paid;
        self.disputes_collected += more.disputes_collected;
        self.staked += more.staked;
        self.returned_unplayed += more.returned_unplayed;
        self.cashed_out += more.cashed_out;
        self.revalued_kept += more.revalued_kept;
        self.tips += more.tips;
        self.meters_fed += more.meters_fed;
        self.jackpots += more.jackpots;
        self.rounds += more.rounds;
    }

    /// The table's win: what play moved into the float less what it paid out.
    pub fn win(&self) -> i128 {
        i128::from(self.float_in) - i128::from(self.float_out)
    }

    /// What was exchanged for colour chips: cash and wallets.
    pub fn drop(&self) -> u64 {
        self.drop_cash.saturating_add(self.drop_wallet)
    }

    /// The float's balance after the day's last movement.
    pub fn float_close(&self) -> i128 {
        self.float_open + i128::from(self.fills) - i128::from(self.credits) + self.win()
    }

    /// Each dealer's share, with what no share holds under `NO_DEALER`: the
    /// entries written before journal format 15 (all of a format-14 day's,
    /// an upgrade day's up to the upgrade), so the shares sum to the day's
    /// figures.
    pub fn shares(&self) -> BTreeMap<String, DealerBooks> {
        let mut shares = self.dealers.clone();
        let mut held = DealerBooks::default();
        for share in shares.values() {
            held.add(share);
        }
        let rest = DealerBooks {
            drop_cash: self.drop_cash.saturating_sub(held.drop_cash),
            drop_wallet: self.drop_wallet.saturating_sub(held.drop_wallet),
            float_in: self.float_in.saturating_sub(held.float_in),
            float_out: self.float_out.saturating_sub(held.float_out),
            rounds: self.rounds.saturating_sub(held.rounds),
            open_ms: self.open_ms.saturating_sub(held.open_ms),
            tips: self.tips.saturating_sub(held.tips),
            from_ms: None,
            to_ms: None,
        };
        if rest != DealerBooks::default() {
            shares.entry(NO_DEALER.to_string()).or_default().add(&rest);
        }
        shares
    }
}

/// The books of a table's newest gaming days, by day.
pub type Books = BTreeMap<u64, DayBooks>;

impl TableSlot {
    /// The dealer on duty here: the last to run its game (journal format 15).
    pub(in crate::casino) fn dealer_on_duty(&self) -> Option<&str> {
        self.on_duty.as_deref()
    }

    /// Checks transfers as the ledger will, with the ledger's own check, on
    /// the table's own accounts: a batch checked here the ledger accepts, so
    /// the table need not wait for its verdict.
    pub(super) fn precheck(&self, transfers: &[Transfer]) -> Result<(), ApiError> {
        let mut funds = Funds::new(|a: &Account| self.local(a).then(|| self.balance_of(a)));
        let mut seen = HashSet::new();
        for t in transfers {
            if !seen.insert(t.id.as_str()) {
                let refusal = croupier_ledger::Refusal::DuplicateInBatch(t.id.clone());
                return Err(err(ErrorCode::Refused, refusal.to_string()));
            }
            funds.take(t).map_err(|r| match r {
                croupier_ledger::Refusal::Unjudged(account) => err(
                    ErrorCode::Internal,
                    format!("transfer {} draws on {account}, which only the cage can judge", t.id),
                ),
                other => err(ErrorCode::Refused, format!("transfer {}: {other}", t.id)),
            })?;
        }
        Ok(())
    }

    /// What transfers do to the table's own accounts, summed per account.
    pub(super) fn deltas<'a>(&self, transfers: impl Iterator<Item = &'a Transfer>) -> HashMap<Account, i128> {
        let mut deltas: HashMap<Account, i128> = HashMap::new();
        for t in transfers {
            let amount = i128::from(t.amount.get());
            if self.local(&t.from) {
                *deltas.entry(t.from.clone()).or_default() -= amount;
            }
            if self.local(&t.to) {
                *deltas.entry(t.to.clone()).or_default() += amount;
            }
        }
        deltas
    }

    pub(super) fn book(&mut self, deltas: HashMap<Account, i128>) {
        self.books.add(deltas);
    }

    /// What `transfers` add to a gaming day's books (all but the float's opening).
    pub(super) fn tally<'a>(&self, transfers: impl Iterator<Item = &'a Transfer>) -> DayBooks {
        let mut books = DayBooks::default();
        let is_float = |acc: &Account| *acc == self.float;
        let is_dispute = |id: &str| {
            id.strip_prefix(self.id.as_str())
                .is_some_and(|rest| rest.starts_with("/dispute/"))
        };
        for t in transfers {
            let a = t.amount.get();
            match (&t.from, &t.to) {
                (Account::Outside, Account::Table(TableAccount::Drop, _)) => books.drop_cash += a,
                (Account::Wallet(_), Account::Chips { .. }) => books.drop_wallet += a,
                (Account::Chips { .. }, Account::Wallet(_)) => books.cashed_out += a,
                (Account::Chips { .. }, Account::House) => books.revalued_kept += a,
                (Account::House, to) if is_float(to) => books.fills += a,
                (from, Account::House) if is_float(from) => books.credits += a,
                (from, _) if is_float(from) => {
                    books.float_out += a;
                    if is_dispute(&t.id) {
                        books.disputes_paid += a;
                    }
                }
                (_, to) if is_float(to) => {
                    books.float_in += a;
                    if is_dispute(&t.id) {
                        books.disputes_collected += a;
                    }
                }
                (Account::Chips { .. }, Account::Table(TableAccount::Layout, _)) => books.staked += a,
                (Account::Table(TableAccount::Layout, _), Account::Chips { .. }) if t.id.ends_with("/returned") => {
                    books.returned_unplayed += a
                }
                (_, Account::Table(TableAccount::Tips, _)) => books.tips += a,
                (_, Account::Table(TableAccount::MeterPrimary | TableAccount::MeterSecondary, _)) => {
                    books.meters_fed += a
                }
                (Account::Table(TableAccount::MeterPrimary | TableAccount::MeterSecondary, _), _) => {
                    books.jackpots += a
                }
                _ => {}
            }
        }
        books
    }

    /// Enters `tally`, of transfers made on gaming day `day` and taken by the
    /// cage, in that day's books, before the table's balances move with them;
    /// with `shares` (journal format 15), in the dealer on duty's share too.
    /// With `shifts` (journal format 16), their tips too.
    pub(super) fn enter(&mut self, day: u64, tally: &DayBooks, shares: bool, shifts: bool) {
        // From format 15 an entry that moves nothing opens no day's books: a
        // table posting its limits on its first run, before an admin set the
        // casino's gaming day back to a time zone where it is still
        // yesterday, left a quiet day ahead of the days that followed, and
        // that day's float read 0.00 when it came.
        if shares && *tally == DayBooks::default() {
            return;
        }
        let dealer = self.on_duty.clone().unwrap_or_else(|| NO_DEALER.to_string());
        let books = self.day_books(day);
        books.add(tally);
        if shares && (tally.drop() > 0 || tally.float_in > 0 || tally.float_out > 0) {
            let share = books.dealers.entry(dealer.clone()).or_default();
            share.drop_cash += tally.drop_cash;
            share.drop_wallet += tally.drop_wallet;
            share.float_in += tally.float_in;
            share.float_out += tally.float_out;
        }
        if shifts && tally.tips > 0 {
            books.dealers.entry(dealer).or_default().tips += tally.tips;
        }
        while self.books_by_day.len() > BOOK_DAYS_KEPT {
            self.books_by_day.pop_first();
        }
    }

    /// Gaming day `day`'s books, begun with the float as it stands if the
    /// day has none yet.
    fn day_books(&mut self, day: u64) -> &mut DayBooks {
        let open = self.balance_of(&self.float);
        self.books_by_day.entry(day).or_insert_with(|| DayBooks {
            float_open: open,
            ..DayBooks::default()
        })
    }

    /// Counts a round played to a result on gaming day `day`; with `shares`
    /// (journal format 15), for the dealer on duty too.
    pub(super) fn count_round(&mut self, day: u64, shares: bool) {
        let dealer = self.on_duty.clone().unwrap_or_else(|| NO_DEALER.to_string());
        let books = self.day_books(day);
        books.rounds += 1;
        if shares {
            books.dealers.entry(dealer).or_default().rounds += 1;
        }
    }

    /// Before an entry written at `at_ms` on gaming day `day` is applied
    /// (journal format 15): `actor`, if they ran the table's game with it
    /// (`runs_game`), is the dealer on duty from it on, and an open table's
    /// time since its entry before counts as open play.
    ///
    /// With `shifts` (journal format 16) that open play goes to the share of
    /// whoever was on duty until this entry, and the entry is in the shift of
    /// whoever is on duty with it, if the table is open or it made them so.
    pub(super) fn before_entry(&mut self, day: u64, at_ms: u64, actor: &Actor, runs_game: bool, shifts: bool) {
        let until_now = self.on_duty.clone().unwrap_or_else(|| NO_DEALER.to_string());
        let relieved = runs_game && actor.username != Actor::system().username;
        if relieved {
            self.on_duty = Some(actor.username.clone());
        }
        let open = self.open_since_ms.is_some();
        if let Some(since) = self.open_since_ms {
            let stretch = at_ms.saturating_sub(since);
            let books = self.day_books(day);
            books.open_ms = books.open_ms.saturating_add(stretch);
            if shifts {
                let share = books.dealers.entry(until_now).or_default();
                share.open_ms = share.open_ms.saturating_add(stretch);
            }
        }
        if let (true, Some(dealer), true) = (shifts, self.on_duty.clone(), open || relieved) {
            let share = self.day_books(day).dealers.entry(dealer).or_default();
            share.from_ms.get_or_insert(at_ms);
            share.to_ms = Some(at_ms);
        }
    }

    /// After an entry written at `at_ms` is applied (journal format 15):
    /// open play counts on from it while the table is open.
    pub(super) fn after_entry(&mut self, at_ms: u64) {
        self.open_since_ms = (!matches!(self.table.phase(), Phase::Closed)).then_some(at_ms);
    }

    /// The books of gaming day `day`: nothing moved yet that day, the float as it stands.
    pub fn books_of(&self, day: u64) -> DayBooks {
        self.books_by_day.get(&day).cloned().unwrap_or_else(|| DayBooks {
            float_open: self
                .books_by_day
                .range(..day)
                .next_back()
                .map_or_else(|| self.balance_of(&self.float), |(_, last)| last.float_close()),
            ..DayBooks::default()
        })
    }

    /// The gaming days the table keeps the books of, oldest first.
    pub fn book_days(&self) -> impl Iterator<Item = u64> + '_ {
        self.books_by_day.keys().copied()
    }
}
