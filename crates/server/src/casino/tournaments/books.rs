//! Each tournament's money reconciled to the cent against the ledger.

use croupier_ledger::{Account, TournamentAccount};

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
    /// The prizes' value in escrow, not yet paid (2213(1), 2013).
    pub escrow: u64,
    pub escrow_account: i128,
    pub concluded: bool,
    /// The first figure that does not agree, if any.
    pub problem: Option<String>,
}

impl<S: croupier_ledger::Storage> crate::casino::Cage<S> {
    /// Every tournament's money, reconciled.
    pub fn tournament_books(&self) -> Vec<TournamentBooks> {
        self.tournaments
            .iter()
            .map(|(id, held)| {
                let t = &held.tournament;
                let balance = |kind| Account::of_tournament(kind, id).map_or(0, |a| self.ledger.balance(&a));
                let fees: u64 = t.fees_held();
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
                    escrow: t.escrow,
                    escrow_account: balance(TournamentAccount::Escrow),
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
                } else if books.escrow_account != i128::from(t.escrow) {
                    Some(format!(
                        "the escrow account holds {} but {} is in escrow (2213(1))",
                        books.escrow_account, t.escrow
                    ))
                } else if t.concluded && t.escrow > 0 {
                    Some(format!(
                        "concluded with {} still in escrow: the prizes are paid from it and the rest returned (2213(1))",
                        t.escrow
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
