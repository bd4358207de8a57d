//! The forms a tournament's money is reported on: the tournament form
//! (2213.01: every entrant and the dollar value of their fee, however
//! paid), the prize payout form (2213.02, 2213.05), adjusted gross proceeds
//! by month (2213.01), and the prize pool's account line by line (2213.05).
//! Data only: the edge prints them as text, JSON or CSV.

use super::play::{Event, Paid, Tournament};
use super::prizes::Awarded;

/// One line of the tournament form: an entry, its fee and its buy-ins.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EntryLine {
    pub entry: u32,
    pub player: String,
    pub event: String,
    pub day: String,
    pub status: &'static str,
    pub fee_paid: &'static str,
    pub fee_minor: u64,
    pub buy_in_paid: &'static str,
    pub buy_in_minor: u64,
    pub rebuys: u32,
    pub rebuys_minor: u64,
    /// What was given in place of cash, if anything, or the voucher used.
    pub note: String,
}

/// One line of the prize payout form.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PayoutLine {
    pub event: String,
    /// 0 for a share agreed in a split (2213.07(3)(c)).
    pub place: u32,
    pub entry: u32,
    pub player: String,
    pub prize: String,
    pub value_minor: u64,
    /// Counted as a prize payout (2213.05: a voucher into an event with
    /// neither fee nor buy-in is a buy-in, not a payout).
    pub payout: bool,
    pub by_split: bool,
}

/// One movement of the prize pool, in order.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PoolLine {
    pub what: String,
    /// Into the pool (positive) or out of it.
    pub amount_minor: i128,
    pub balance_minor: i128,
}

fn note(paid: &Paid) -> String {
    match paid {
        Paid::NonCash { item } => item.clone(),
        Paid::Voucher { number } => format!("voucher {number}"),
        Paid::Cash | Paid::Complimentary => String::new(),
    }
}

impl Tournament {
    /// The tournament form: every entry, in order (2213.01).
    pub fn entry_form(&self) -> Vec<EntryLine> {
        self.entries
            .iter()
            .map(|e| EntryLine {
                entry: e.number,
                player: e.player.clone(),
                event: self.config().event(e.event).map_or(String::new(), |s| s.name.clone()),
                day: e.day.to_string(),
                status: e.status.name(),
                fee_paid: e.fee.paid.name(),
                fee_minor: e.fee.value,
                buy_in_paid: e.buy_in.paid.name(),
                buy_in_minor: e.buy_in.value,
                rebuys: e.rebuys.len() as u32,
                rebuys_minor: e.rebuys.iter().map(|r| r.value).sum(),
                note: [note(&e.fee.paid), note(&e.buy_in.paid)]
                    .into_iter()
                    .filter(|n| !n.is_empty())
                    .collect::<Vec<_>>()
                    .join("; "),
            })
            .collect()
    }

    /// The prize payout form: every prize awarded, in order.
    pub fn payout_form(&self) -> Vec<PayoutLine> {
        let mut out = Vec::new();
        for (i, state) in self.events.iter().enumerate() {
            let event = self.config().event(i).map_or(String::new(), |s| s.name.clone());
            for award in &state.awards {
                let (prize, payout) = match &award.prize {
                    Awarded::Cash(_) => ("cash".to_string(), true),
                    Awarded::NonCash { description, .. } => (description.clone(), true),
                    Awarded::Voucher { number, event, .. } => {
                        let target = self.config().event(*event);
                        (
                            format!("voucher {number} into {}", target.map_or("?", |e| e.name.as_str())),
                            target.is_some_and(|e| e.entry_fee.get() + e.buy_in.get() > 0),
                        )
                    }
                };
                out.push(PayoutLine {
                    event: event.clone(),
                    place: award.place,
                    entry: award.entry,
                    player: award.player.clone(),
                    prize,
                    value_minor: award.prize.value(),
                    payout,
                    by_split: award.by_split,
                });
            }
        }
        for v in self.vouchers.iter().filter(|v| v.cancelled) {
            out.push(PayoutLine {
                event: "disqualification".to_string(),
                place: 0,
                entry: 0,
                player: v.player.clone(),
                prize: format!(
                    "voucher {} cancelled, its value back to the pool (2213(2)(c))",
                    v.number
                ),
                value_minor: v.value,
                payout: false,
                by_split: false,
            });
        }
        for v in self.vouchers.iter().filter(|v| v.cashed) {
            out.push(PayoutLine {
                event: "conclusion".to_string(),
                place: 0,
                entry: 0,
                player: v.player.clone(),
                prize: format!("voucher {} paid in cash", v.number),
                value_minor: v.value,
                payout: !v.payout,
                by_split: false,
            });
        }
        out
    }

    /// Adjusted gross proceeds by month, `YYYY-MM` (2213.01): entry fees at
    /// their value, complimentary ones included, "reported as such on the
    /// gaming tax return in the month in which the entry fee(s) are
    /// collected". A refund is booked in its own month, less that month's
    /// fees, so a month reported is never changed. Never below zero: "The
    /// licensee may not declare a loss against adjusted gross proceeds for
    /// tournaments", so refunds past a month's fees are declared nowhere.
    pub fn proceeds_by_month(&self) -> Vec<(String, u64)> {
        let mut months: Vec<(i32, u8)> = self
            .fees_by_month
            .keys()
            .chain(self.refunds_by_month.keys())
            .copied()
            .collect();
        months.sort_unstable();
        months.dedup();
        months
            .into_iter()
            .map(|(y, m)| {
                let collected = self.fees_by_month.get(&(y, m)).copied().unwrap_or(0);
                let refunded = self.refunds_by_month.get(&(y, m)).copied().unwrap_or(0);
                (format!("{y:04}-{m:02}"), collected.saturating_sub(refunded))
            })
            .collect()
    }

    /// The prize pool's account from the first buy-in to the last prize.
    pub fn pool_account(&self) -> Vec<PoolLine> {
        let mut lines = Vec::new();
        let mut balance: i128 = 0;
        let mut push = |what: String, amount: i128| {
            balance += amount;
            lines.push(PoolLine {
                what,
                amount_minor: amount,
                balance_minor: balance,
            });
        };
        for event in &self.history {
            match event {
                Event::Registered { entry, .. } if entry.buy_in.value > 0 => push(
                    format!(
                        "entry {} buy-in ({}), {}",
                        entry.number,
                        entry.buy_in.paid.name(),
                        entry.player
                    ),
                    i128::from(entry.buy_in.value),
                ),
                Event::Rebought { entry, payment, .. } if payment.value > 0 => push(
                    format!("entry {entry} re-buy ({})", payment.paid.name()),
                    i128::from(payment.value),
                ),
                Event::VoucherCancelled { number, value } => push(
                    format!("voucher {number} cancelled: its holder was disqualified"),
                    i128::from(*value),
                ),
                Event::Withdrawn { entry, .. } => {
                    if let Some(e) = self.entry(*entry).ok().filter(|e| e.buy_in.value > 0) {
                        push(
                            format!("entry {entry} withdrawn: buy-in refunded to {}", e.player),
                            -i128::from(e.buy_in.value),
                        );
                    }
                }
                Event::HouseAdded { amount, .. } => {
                    push("added by the house for fixed prizes".into(), i128::from(*amount))
                }
                Event::Awarded(a) if a.by_split => push(
                    format!("split prize to {} (entry {}), as agreed", a.player, a.entry),
                    -i128::from(a.prize.value()),
                ),
                Event::Awarded(a) => push(
                    format!("prize to {} (entry {}, place {})", a.player, a.entry, a.place),
                    -i128::from(a.prize.value()),
                ),
                _ => {}
            }
        }
        lines
    }
}
