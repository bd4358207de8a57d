//! Monte Carlo simulation of bets and betting strategies.
//!
//! What a bet returns on each pocket comes from the core's own settlement
//! ([`Payoff`]), computed once; the simulation then only draws pockets with
//! the production generator and its unbiased mapping, and adds. Work is cut
//! into chunks, each with its own ChaCha20 stream of the seed, so a run is the
//! same for a seed whatever the number of cores.

pub mod plot;

use croupier_core::{BetError, BetRequest, Pocket, TableRules};
use croupier_rng::{draw_index, wheel_pockets, SeededRng};
use rayon::prelude::*;

/// Spins per chunk of flat-bet work.
pub const CHUNK_SPINS: u64 = 1 << 20;
/// The most spins one run may ask for.
pub const SPINS_MAX: u64 = 1 << 40;
/// The most sessions one run may ask for.
pub const SESSIONS_MAX: u64 = 10_000_000;
/// Points kept of each recorded bankroll path.
pub const PATH_POINTS_MAX: usize = 500;

/// What one spin does to a bet, by physical pocket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    /// Decided: everything handed back.
    Returned(u64),
    /// Sent to prison: the next valid spin decides it.
    Prison,
    /// Not a valid spin (00 on a covered double-zero wheel): spin again.
    Void,
}

/// A bet's returns for every pocket, from the core's settlement.
#[derive(Clone, Debug)]
pub struct Payoff {
    pub stake: u64,
    pub pockets: Vec<Pocket>,
    first: Vec<Cell>,
    /// After prison, by the next pocket.
    second: Vec<Cell>,
}

impl Payoff {
    pub fn new(rules: &TableRules<'_>, spot: &str, stake: u64) -> Result<Payoff, BetError> {
        let bet = rules.place(&BetRequest {
            spot,
            stake_minor: i128::from(stake),
            zero_choice: None,
            coupon_minor: None,
        })?;
        let pockets = wheel_pockets(rules.wheel());
        let cell = |spins: &[Pocket]| {
            let s = rules.settle(&bet, spins);
            match s.outcome {
                croupier_core::Outcome::Void => Cell::Void,
                croupier_core::Outcome::Prison => Cell::Prison,
                _ => Cell::Returned(s.returned.get()),
            }
        };
        let first: Vec<Cell> = pockets.iter().map(|&p| cell(&[p])).collect();
        let prison_zero = pockets
            .iter()
            .zip(&first)
            .find(|(_, c)| **c == Cell::Prison)
            .map(|(&p, _)| p);
        let second = match prison_zero {
            Some(zero) => pockets.iter().map(|&p| cell(&[zero, p])).collect(),
            None => Vec::new(),
        };
        Ok(Payoff {
            stake,
            pockets,
            first,
            second,
        })
    }

    /// The cell for a pocket drawn as an index into `pockets`.
    pub fn first(&self, index: usize) -> Cell {
        self.first[index]
    }

    /// Draws until a valid spin and returns its pocket index.
    #[inline]
    fn valid_draw(&self, rng: &mut SeededRng) -> usize {
        let n = self.pockets.len() as u32;
        loop {
            let i = draw_index(rng, n) as usize;
            if self.first[i] != Cell::Void {
                return i;
            }
        }
    }

    /// The returns of a bet decided over one or two valid spins.
    #[inline]
    fn resolve(&self, rng: &mut SeededRng) -> u64 {
        match self.first[self.valid_draw(rng)] {
            Cell::Returned(r) => r,
            Cell::Prison => match self.second[self.valid_draw(rng)] {
                Cell::Returned(r) => r,
                // A second zero or void after prison: valid_draw skipped voids.
                _ => 0,
            },
            Cell::Void => 0,
        }
    }
}

/// Totals of a flat-bet run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlatTotals {
    pub bets: u64,
    pub staked: u128,
    pub returned: u128,
    /// Sum of each bet's net and of its square, in units of the stake.
    pub net_sum: f64,
    pub net_sq_sum: f64,
}

impl FlatTotals {
    fn merge(self, o: FlatTotals) -> FlatTotals {
        FlatTotals {
            bets: self.bets + o.bets,
            staked: self.staked + o.staked,
            returned: self.returned + o.returned,
            net_sum: self.net_sum + o.net_sum,
            net_sq_sum: self.net_sq_sum + o.net_sq_sum,
        }
    }

    pub fn rtp(&self) -> f64 {
        self.returned as f64 / self.staked as f64
    }

    /// The 95% confidence interval of the RTP, from the sample variance.
    pub fn rtp_ci95(&self) -> (f64, f64) {
        let n = self.bets as f64;
        let mean = self.net_sum / n;
        let variance = (self.net_sq_sum / n - mean * mean) * n / (n - 1.0);
        let half = 1.96 * (variance / n).sqrt();
        (1.0 + mean - half, 1.0 + mean + half)
    }
}

/// One flat bet per spin for `spins` spins.
pub fn flat(payoff: &Payoff, spins: u64, seed: [u8; 32], progress: &(dyn Fn(u64) + Sync)) -> FlatTotals {
    let chunks = spins.div_ceil(CHUNK_SPINS);
    (0..chunks)
        .into_par_iter()
        .map(|chunk| {
            let n = CHUNK_SPINS.min(spins - chunk * CHUNK_SPINS);
            let totals = flat_chunk(payoff, n, SeededRng::from_seed_stream(seed, chunk));
            progress(n);
            totals
        })
        .reduce(FlatTotals::default, FlatTotals::merge)
}

fn flat_chunk(payoff: &Payoff, n: u64, mut rng: SeededRng) -> FlatTotals {
    // A flat bet's result depends only on the pockets, so the loop just
    // counts them; every total is computed exactly from the counts after.
    let k = payoff.pockets.len();
    let mut void_mask = 0u64;
    let mut prison_mask = 0u64;
    for (i, cell) in payoff.first.iter().enumerate() {
        match cell {
            Cell::Void => void_mask |= 1 << i,
            Cell::Prison => prison_mask |= 1 << i,
            Cell::Returned(_) => {}
        }
    }
    let mut first = [0u64; croupier_core::POCKET_COUNT_MAX];
    let mut second = [0u64; croupier_core::POCKET_COUNT_MAX];
    let mut done = 0u64;
    while done < n {
        let i = draw_index(&mut rng, k as u32) as usize;
        if void_mask >> i & 1 == 1 {
            continue;
        }
        first[i] += 1;
        done += 1;
        if prison_mask >> i & 1 == 1 {
            second[payoff.valid_draw(&mut rng)] += 1;
        }
    }
    let stake = payoff.stake as f64;
    let mut totals = FlatTotals {
        bets: n,
        staked: u128::from(payoff.stake) * u128::from(n),
        ..FlatTotals::default()
    };
    let mut add = |count: u64, r: u64| {
        totals.returned += u128::from(count) * u128::from(r);
        let net = (r as f64 - stake) / stake;
        totals.net_sum += count as f64 * net;
        totals.net_sq_sum += count as f64 * net * net;
    };
    for (i, &count) in first.iter().enumerate().take(k) {
        if let Cell::Returned(r) = payoff.first[i] {
            add(count, r);
        }
    }
    for (j, &count) in second.iter().enumerate().take(k) {
        if let Some(Cell::Returned(r)) = payoff.second.get(j) {
            add(count, *r);
        }
    }
    totals
}

/// The same pockets from the same generator and mapping, with no bet: the
/// bound the simulation's speed is measured against.
pub fn bare_draws(pockets: usize, spins: u64, seed: [u8; 32]) -> u64 {
    let mut rng = SeededRng::from_seed_stream(seed, 0);
    let mut sink = 0u64;
    for _ in 0..spins {
        sink = sink.wrapping_add(u64::from(draw_index(&mut rng, pockets as u32)));
    }
    sink
}

/// One thread's flat-bet loop, for the benchmark against [`bare_draws`].
pub fn flat_single_thread(payoff: &Payoff, spins: u64, seed: [u8; 32]) -> FlatTotals {
    flat_chunk(payoff, spins, SeededRng::from_seed_stream(seed, 0))
}

/// Betting systems: how many base stakes to bet next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    Flat,
    /// Double after a loss; back to one after a win.
    Martingale,
    /// One more after a loss, one fewer after a win.
    Dalembert,
    /// Next Fibonacci number after a loss; two back after a win.
    Fibonacci,
    /// Double after a win, up to three in a row; back to one after a loss.
    Paroli,
    /// Cancellation: bet first + last of 1-2-3-4; cross both off on a win, add the bet on a loss.
    Labouchere,
}

pub const STRATEGIES: [(&str, Strategy); 6] = [
    ("flat", Strategy::Flat),
    ("martingale", Strategy::Martingale),
    ("dalembert", Strategy::Dalembert),
    ("fibonacci", Strategy::Fibonacci),
    ("paroli", Strategy::Paroli),
    ("labouchere", Strategy::Labouchere),
];

/// The longest Labouchère line kept before the session restarts it.
const LABOUCHERE_LINE_MAX: usize = 64;

struct Progression {
    strategy: Strategy,
    units: u64,
    step: usize,
    wins_in_row: u32,
    line: Vec<u64>,
}

fn fibonacci(step: usize) -> u64 {
    let (mut a, mut b) = (1u64, 1u64);
    for _ in 0..step {
        (a, b) = (b, a.saturating_add(b));
    }
    a
}

impl Progression {
    fn new(strategy: Strategy) -> Progression {
        let mut p = Progression {
            strategy,
            units: 1,
            step: 0,
            wins_in_row: 0,
            line: Vec::new(),
        };
        p.restart_line();
        p
    }

    fn restart_line(&mut self) {
        self.line = vec![1, 2, 3, 4];
    }

    fn next_units(&self) -> u64 {
        match self.strategy {
            Strategy::Labouchere => match self.line.as_slice() {
                [] => 1,
                [only] => *only,
                [first, .., last] => first + last,
            },
            _ => self.units,
        }
    }

    fn record(&mut self, won: Option<bool>) {
        let Some(won) = won else { return };
        match self.strategy {
            Strategy::Flat => {}
            Strategy::Martingale => self.units = if won { 1 } else { self.units.saturating_mul(2) },
            Strategy::Dalembert => {
                self.units = if won {
                    self.units.saturating_sub(1).max(1)
                } else {
                    self.units + 1
                }
            }
            Strategy::Fibonacci => {
                self.step = if won {
                    self.step.saturating_sub(2)
                } else {
                    self.step + 1
                };
                self.units = fibonacci(self.step);
            }
            Strategy::Paroli => {
                if won && self.wins_in_row < 2 {
                    self.wins_in_row += 1;
                    self.units *= 2;
                } else {
                    self.wins_in_row = 0;
                    self.units = 1;
                }
            }
            Strategy::Labouchere => {
                let bet = self.next_units();
                if won {
                    self.line.pop();
                    if !self.line.is_empty() {
                        self.line.remove(0);
                    }
                } else {
                    self.line.push(bet);
                }
                if self.line.is_empty() || self.line.len() > LABOUCHERE_LINE_MAX {
                    self.restart_line();
                }
            }
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct SessionSpec {
    pub strategy: Strategy,
    pub spins: u64,
    pub bankroll: u64,
    pub table_min: u64,
    pub table_max: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SessionResult {
    pub final_bankroll: u64,
    pub spins_played: u64,
    pub staked: u128,
    pub returned: u128,
    /// The bankroll could no longer cover the table minimum.
    pub ruined: bool,
    /// The bankroll at evenly spaced spins (recorded sessions only).
    pub path: Vec<u64>,
}

/// Plays `sessions` sessions in parallel; the first `record` keep their paths.
pub fn sessions(
    payoff: &Payoff,
    spec: SessionSpec,
    sessions: u64,
    record: u64,
    seed: [u8; 32],
    progress: &(dyn Fn(u64) + Sync),
) -> Vec<SessionResult> {
    (0..sessions)
        .into_par_iter()
        .map(|s| {
            let result = session(payoff, spec, s < record, SeededRng::from_seed_stream(seed, s));
            progress(1);
            result
        })
        .collect()
}

fn session(payoff: &Payoff, spec: SessionSpec, record: bool, mut rng: SeededRng) -> SessionResult {
    let base = payoff.stake;
    let mut bankroll = spec.bankroll;
    let mut progression = Progression::new(spec.strategy);
    let mut staked = 0u128;
    let mut returned = 0u128;
    let mut path = Vec::new();
    let every = (spec.spins / PATH_POINTS_MAX as u64).max(1);
    let mut played = 0u64;
    let mut ruined = false;
    if record {
        path.push(bankroll);
    }
    while played < spec.spins {
        // The table maximum and the bankroll cap the bet, in whole base stakes.
        let cap = spec.table_max.min(bankroll) / base;
        let units = progression.next_units().min(cap);
        let stake = units * base;
        if units == 0 || stake < spec.table_min {
            ruined = true;
            break;
        }
        let back = units * payoff.resolve(&mut rng);
        bankroll = bankroll - stake + back;
        staked += u128::from(stake);
        returned += u128::from(back);
        progression.record((back != stake).then_some(back > stake));
        played += 1;
        if record && played.is_multiple_of(every) {
            path.push(bankroll);
        }
    }
    SessionResult {
        final_bankroll: bankroll,
        spins_played: played,
        staked,
        returned,
        ruined,
        path,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progressions() {
        let mut m = Progression::new(Strategy::Martingale);
        m.record(Some(false));
        m.record(Some(false));
        assert_eq!(m.next_units(), 4);
        m.record(Some(true));
        assert_eq!(m.next_units(), 1);
        let mut f = Progression::new(Strategy::Fibonacci);
        for _ in 0..5 {
            f.record(Some(false));
        }
        assert_eq!(f.next_units(), 8);
        f.record(Some(true));
        assert_eq!(f.next_units(), 3);
        let mut l = Progression::new(Strategy::Labouchere);
        assert_eq!(l.next_units(), 5);
        l.record(Some(true));
        assert_eq!(l.next_units(), 5);
        l.record(Some(false));
        assert_eq!(l.next_units(), 7);
        let mut p = Progression::new(Strategy::Paroli);
        p.record(Some(true));
        p.record(Some(true));
        assert_eq!(p.next_units(), 4);
        p.record(Some(true));
        assert_eq!(p.next_units(), 1);
        let mut d = Progression::new(Strategy::Dalembert);
        d.record(Some(false));
        d.record(Some(false));
        d.record(Some(true));
        assert_eq!(d.next_units(), 2);
    }
}
