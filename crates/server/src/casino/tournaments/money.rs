//! A tournament's money in the ledger: each event's transfers between its
//! accounts (fees, pool, vouchers, escrow), the house and the players.

use croupier_core::tournament::{Awarded, Event, Paid, Tournament};
use croupier_ledger::{Account, TournamentAccount, Transfer};

use super::refused;
use crate::api::ApiError;
use crate::casino::table::{account, transfer};

/// The ledger's movements for a tournament's events, each with an id of
/// the tournament, the event's number in its history, and a part.
pub(super) fn money(t: &Tournament, id: &str, events: &[Event]) -> Result<Vec<Transfer>, ApiError> {
    let own = |kind| account(Account::of_tournament(kind, id));
    let (fees, pool, vouchers, escrow) = (
        own(TournamentAccount::Fees)?,
        own(TournamentAccount::Pool)?,
        own(TournamentAccount::Vouchers)?,
        own(TournamentAccount::Escrow)?,
    );
    let mut escrow_left = t.escrow;
    let payer = |paid: &Paid| -> Result<Account, ApiError> {
        match paid {
            // Cash handed over at the tournament's desk, as for chips sold at
            // a table: no one but the player spends their wallet.
            Paid::Cash => Ok(Account::Outside),
            // The house takes the item, or gives the entry: it pays the value.
            Paid::NonCash { .. } | Paid::Complimentary => Ok(Account::House),
            Paid::Voucher { .. } => Ok(vouchers.clone()),
        }
    };
    let mut out = Vec::new();
    let mut refunded_fees = 0u64;
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
                    payer(&entry.fee.paid)?,
                    fees.clone(),
                    entry.fee.value,
                    "entry fee",
                );
                push(
                    n,
                    "buyin",
                    payer(&entry.buy_in.paid)?,
                    pool.clone(),
                    entry.buy_in.value,
                    "buy-in",
                );
            }
            // A refund: each payment back to whoever made it.
            Event::Withdrawn { entry, .. } => {
                let e = t.entry(*entry).map_err(refused)?;
                refunded_fees += e.fee.value;
                push(
                    n,
                    "refee",
                    fees.clone(),
                    payer(&e.fee.paid)?,
                    e.fee.value,
                    "entry fee refunded",
                );
                push(
                    n,
                    "rebuyin",
                    pool.clone(),
                    payer(&e.buy_in.paid)?,
                    e.buy_in.value,
                    "buy-in refunded",
                );
            }
            Event::Rebought { payment, .. } => {
                push(n, "rebuy", payer(&payment.paid)?, pool.clone(), payment.value, "re-buy");
            }
            Event::EscrowFunded { amount } => {
                escrow_left += amount;
                push(
                    n,
                    "escrow",
                    Account::House,
                    escrow.clone(),
                    *amount,
                    "prizes into escrow",
                );
            }
            Event::EscrowReturned { amount } => {
                escrow_left -= amount;
                push(
                    n,
                    "unescrow",
                    escrow.clone(),
                    Account::House,
                    *amount,
                    "escrow returned",
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
                // Paid from the escrow while it holds any (2213(1)); the
                // pool's money for it goes to the house, which funded the escrow.
                let value = a.prize.value();
                let escrowed = value.min(escrow_left);
                escrow_left -= escrowed;
                push(n, "escrowed", escrow.clone(), to.clone(), escrowed, "prize from escrow");
                push(
                    n,
                    "reimburse",
                    pool.clone(),
                    Account::House,
                    escrowed,
                    "pool to the house for an escrowed prize",
                );
                push(n, "prize", pool.clone(), to, value - escrowed, "prize");
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
            // Counted at the conclusion: the fees become the house's proceeds
            // (2213.01-.02), less those a cancel refunds in the same order.
            Event::Concluded => {
                push(
                    n,
                    "counted",
                    fees.clone(),
                    Account::House,
                    t.fees_held() - refunded_fees,
                    "entry fees counted",
                );
            }
            _ => {}
        }
    }
    Ok(out)
}
