//! Game integrity monitoring: running tests of one wheel's results, as a
//! surveillance department keeps them by hand, with a false-alarm rate
//! bounded over the wheel's whole life.
//!
//! # What is tested
//!
//! The monitor counts results by their position in wheel order (clockwise,
//! [`monitored_order`]), and the clockwise distance of each result from the
//! one before, modulo the `k` pockets. On a fair wheel every result is equally
//! likely and independent of the others, so the positions are uniform on
//! `0..k` and so are the distances (the map from `k+1` results to the first
//! and `k` distances is a bijection). Four tests ([`Test`]):
//!
//! - `pockets`: Pearson's chi-square on the `k` pocket counts, `k - 1`
//!   degrees of freedom; its p-value is the chi-square survival function
//!   (statrs), an approximation good while each pocket expects dozens.
//! - `pocket`: the hottest or coldest single pocket: each pocket's count
//!   against Binomial(n, 1/k), exact tails, Bonferroni over `2k` one-sided
//!   tails. A single pocket's bias is what the omnibus chi-square dilutes
//!   over its 36 degrees of freedom.
//! - `sectors`: the same scan over the `k` arcs of `⌊k/4⌋` contiguous pockets
//!   of the wheel (a quarter of it), one starting at each pocket, against
//!   Binomial(n, ⌊k/4⌋/k): a tilted wheel or a worn sector favours an arc
//!   and starves the opposite one.
//! - `signature`: Pearson's chi-square on the `k` counts of the distance from
//!   the previous result, `k - 1` degrees of freedom: a dealer who spins with
//!   a repeatable speed lands the ball at a favoured distance from where it
//!   last fell (the dealer's signature).
//!
//! # When it alarms: looks, and the false-alarm bound
//!
//! The tests are read at fixed looks, by the count of results `n_j` ([`look_spins`]):
//! 1,000, 1,500, 2,000, 3,000, 4,000, 6,000, ... (each doubling the one two
//! before). At look `j` each test alarms if its p-value is at most
//!
//! ```text
//! a_j = (A / 4) / ((j + 1)(j + 2)),        A = FALSE_ALARM = 1/1000
//! ```
//!
//! ([`look_threshold`]). The sum over every look of a test telescopes to
//! `A / 4`, and over the four tests to `A`. By the union bound (Bonferroni,
//! which holds however the looks and the tests depend on one another), a fair
//! wheel raises an alarm, ever, with probability at most `A`: one in a
//! thousand per table over its whole life, however long it plays. Over its
//! first 1,000,000 results (looks 0 to 19) it spends `A (1 - 1/21)`.
//! The bound is exact for the two binomial scans (their tails are summed
//! exactly, to floating point) and holds for the chi-square tests as far as
//! the chi-square law approximates Pearson's statistic: the first look comes
//! at 1,000 results, 27 expected in each of 37 cells.
//!
//! Thresholds that shrink as `1/j^2` while the looks grow geometrically make
//! the bar rise like `2 log log n`, the slowest a test read forever may
//! rise (the law of the iterated logarithm); a bias of a fixed size is found
//! at once its evidence grows past that, and one look later at most: looks are
//! at most 1.5 times apart.
//!
//! Nothing here reads the clock or draws a random number: the monitor is a
//! pure function of the results in order, so however late it is read, it
//! raises the same alarms at the same looks.

use croupier_core::{Pocket, Wheel};
use num_rational::Ratio;
use statrs::distribution::{ChiSquared, ContinuousCDF};
use statrs::function::factorial::ln_binomial;

use crate::Fraction;

/// The probability that a fair wheel ever raises an alarm, all four tests
/// and all looks together: one in a thousand over the wheel's whole life.
pub const FALSE_ALARM: (i128, i128) = (1, 1_000);

/// Results before the first look.
pub const FIRST_LOOK_SPINS: u64 = 1_000;

/// Looks a monitor takes at most: look 79 comes after about 8.2e14 results.
pub const LOOKS_MAX: u32 = 80;

/// Pockets a monitored wheel has at least (the sector scan needs a quarter of
/// the wheel to be two pockets or more), and at most.
pub const POCKETS_MIN: usize = 8;
pub const POCKETS_MAX: usize = 64;

/// The four running tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Test {
    Pockets,
    Pocket,
    Sectors,
    Signature,
}

impl Test {
    pub const ALL: [Test; 4] = [Test::Pockets, Test::Pocket, Test::Sectors, Test::Signature];

    pub fn name(self) -> &'static str {
        match self {
            Test::Pockets => "pockets",
            Test::Pocket => "pocket",
            Test::Sectors => "sectors",
            Test::Signature => "signature",
        }
    }

    /// What the test is, in a sentence, for pages and reports.
    pub fn description(self) -> &'static str {
        match self {
            Test::Pockets => "chi-square on the pocket counts",
            Test::Pocket => "the hottest or coldest pocket (exact binomial tails, Bonferroni over the pockets)",
            Test::Sectors => {
                "the hottest or coldest quarter-wheel arc (exact binomial tails, Bonferroni over the arcs)"
            }
            Test::Signature => "chi-square on the distance from the previous pocket (dealer signature)",
        }
    }
}

/// The pockets a monitor counts, clockwise in wheel order: those a valid
/// spin can end in. On a double-zero wheel used as a single-zero one a ball
/// in 00 voids the spin and no round records it, so 00 is left out and its
/// neighbours count as adjacent: the valid results are still uniform and
/// independent on a fair wheel.
pub fn monitored_order(wheel: Wheel) -> Vec<Pocket> {
    let bettable = wheel.bettable();
    wheel.order().filter(|&p| bettable.contains(p)).collect()
}

/// The count of results at look `j`: 1,000 times 2^(j/2), and half as much
/// again at odd `j` (1,000, 1,500, 2,000, 3,000, 4,000, ...).
pub fn look_spins(j: u32) -> u64 {
    let base = FIRST_LOOK_SPINS << (j / 2);
    if j % 2 == 1 {
        base + base / 2
    } else {
        base
    }
}

/// The level each test is read at, at look `j`: `(A/4) / ((j+1)(j+2))`,
/// exactly.
pub fn look_threshold(j: u32) -> Fraction {
    let (num, den) = FALSE_ALARM;
    let j = i128::from(j);
    Ratio::new(num, den * 4 * (j + 1) * (j + 2))
}

/// Pearson's chi-square statistic of counts against equal probabilities,
/// as the exact fraction `(k * sum(c^2) - n^2) / n` (numerator, `n`); (0, 0)
/// when there are no results.
pub fn chi_square_uniform_exact(counts: &[u64]) -> (u128, u128) {
    let n: u128 = counts.iter().map(|&c| u128::from(c)).sum();
    if n == 0 {
        return (0, 0);
    }
    let sum_squares: u128 = counts.iter().map(|&c| u128::from(c) * u128::from(c)).sum();
    // By Cauchy-Schwarz k * sum(c^2) >= n^2: the numerator is never negative.
    (counts.len() as u128 * sum_squares - n * n, n)
}

/// [`chi_square_uniform_exact`] as a number.
pub fn chi_square_uniform(counts: &[u64]) -> f64 {
    match chi_square_uniform_exact(counts) {
        (_, 0) => 0.0,
        (num, den) => num as f64 / den as f64,
    }
}

/// The chance that a chi-square variable with `df` degrees of freedom is at
/// least `x` (statrs's regularized incomplete gamma function).
pub fn chi_square_sf(x: f64, df: u32) -> f64 {
    match ChiSquared::new(f64::from(df)) {
        Ok(law) => law.sf(x),
        Err(_) => f64::NAN,
    }
}

/// The value a chi-square variable with `df` degrees of freedom exceeds
/// with chance `alpha`: bisection on [`chi_square_sf`], to a relative 1e-12.
pub fn chi_square_critical(alpha: f64, df: u32) -> f64 {
    let mut hi = f64::from(df.max(1));
    while chi_square_sf(hi, df) > alpha && hi < 1e12 {
        hi *= 2.0;
    }
    let mut lo = 0.0;
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        if chi_square_sf(mid, df) > alpha {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-12 * hi {
            break;
        }
    }
    hi
}

/// The tail of Binomial(n, q) on the side of its mean `x` lies: `P(X >= x)`
/// if `x >= n q`, else `P(X <= x)`; `q = num / den`, strictly between 0 and 1.
/// Summed term by term from `x` outward, each term from the one before by
/// the exact ratio of binomial probabilities, until the rest is below a
/// part in 1e17 of the sum.
pub fn binomial_tail(n: u64, x: u64, num: u64, den: u64) -> f64 {
    assert!(
        0 < num && num < den,
        "binomial_tail: q = {num}/{den} is not strictly between 0 and 1"
    );
    assert!(x <= n, "binomial_tail: {x} successes of {n} trials");
    let q = num as f64 / den as f64;
    let upper = u128::from(x) * u128::from(den) >= u128::from(n) * u128::from(num);
    let ln_first = ln_binomial(n, x) + x as f64 * q.ln() + (n - x) as f64 * (-q).ln_1p();
    let mut term = ln_first.exp();
    let mut sum = term;
    let odds = q / (1.0 - q);
    let mut i = x;
    loop {
        if upper {
            if i == n {
                break;
            }
            term *= (n - i) as f64 / (i + 1) as f64 * odds;
            i += 1;
        } else {
            if i == 0 {
                break;
            }
            term *= i as f64 / (n - i + 1) as f64 / odds;
            i -= 1;
        }
        sum += term;
        if term <= sum * 1e-17 {
            break;
        }
    }
    sum.min(1.0)
}

/// The count in each arc of `width` contiguous positions, arc `s` covering
/// positions `s, s+1, ..., s+width-1` modulo `counts.len()`.
pub fn arc_counts(counts: &[u64], width: usize) -> Vec<u64> {
    let k = counts.len();
    let mut arc: u64 = counts.iter().cycle().take(width).sum();
    let mut arcs = Vec::with_capacity(k);
    for s in 0..k {
        arcs.push(arc);
        arc = arc + counts[(s + width) % k] - counts[s];
    }
    arcs
}

/// The most extreme arc of a scan.
#[derive(Clone, Debug, PartialEq)]
pub struct ArcReading {
    /// The arc's first position in wheel order, clockwise, and its width.
    pub start: usize,
    pub width: usize,
    pub count: u64,
    /// `n * width / k`.
    pub expected: f64,
    /// The tail of the arc's count on its side of the mean.
    pub tail: f64,
}

/// The scan of every arc of `width` pockets: the smallest tail, and its
/// p-value `min(1, 2k * tail)` (Bonferroni over `k` arcs and two sides).
pub fn arc_scan(counts: &[u64], width: usize) -> (ArcReading, f64) {
    let k = counts.len();
    let n: u64 = counts.iter().sum();
    let arcs = arc_counts(counts, width);
    let mut best: Option<ArcReading> = None;
    for (start, &count) in arcs.iter().enumerate() {
        let tail = if n == 0 {
            1.0
        } else {
            binomial_tail(n, count, width as u64, k as u64)
        };
        if best.as_ref().is_none_or(|b| tail < b.tail) {
            best = Some(ArcReading {
                start,
                width,
                count,
                expected: (u128::from(n) * width as u128) as f64 / k as f64,
                tail,
            });
        }
    }
    let best = best.unwrap_or(ArcReading {
        start: 0,
        width,
        count: 0,
        expected: 0.0,
        tail: 1.0,
    });
    let p = (2.0 * k as f64 * best.tail).min(1.0);
    (best, p)
}

/// One test read on the counts so far.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    pub test: Test,
    /// Results the test counted: the spins, or for the signature the
    /// distances (one fewer).
    pub counted: u64,
    /// Pearson's chi-square, or the extreme arc's count.
    pub statistic: f64,
    /// The chi-square tests' degrees of freedom, `k - 1`.
    pub degrees_of_freedom: Option<u32>,
    pub p_value: f64,
    /// The scans' most extreme arc.
    pub arc: Option<ArcReading>,
}

/// A look: the four tests read at `spins` results, against `threshold`.
#[derive(Clone, Debug, PartialEq)]
pub struct Look {
    pub index: u32,
    pub spins: u64,
    pub threshold: Fraction,
    pub readings: Vec<Reading>,
}

impl Look {
    /// The tests whose p-value is at or below the look's threshold.
    pub fn alarms(&self) -> impl Iterator<Item = &Reading> {
        let threshold = crate::to_f64(self.threshold);
        self.readings.iter().filter(move |r| r.p_value <= threshold)
    }
}

/// A test's first alarm; it stays raised.
#[derive(Clone, Debug, PartialEq)]
pub struct Alarm {
    pub test: Test,
    pub look: u32,
    pub spins: u64,
    pub reading: Reading,
}

/// A monitor's refusal of what it was given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MonitorError {
    #[error("a monitored wheel has {POCKETS_MIN} to {POCKETS_MAX} pockets, not {0}")]
    Pockets(usize),
    #[error("position {position} is not on a wheel of {pockets} pockets")]
    Position { position: usize, pockets: usize },
}

/// The running tests of one wheel.
#[derive(Clone, Debug)]
pub struct Monitor {
    counts: Vec<u64>,
    distances: Vec<u64>,
    previous: Option<usize>,
    spins: u64,
    looks: Vec<Look>,
    alarms: Vec<Alarm>,
}

impl Monitor {
    /// A monitor of a wheel of `pockets` pockets, positions `0..pockets` in wheel order.
    pub fn new(pockets: usize) -> Result<Monitor, MonitorError> {
        if !(POCKETS_MIN..=POCKETS_MAX).contains(&pockets) {
            return Err(MonitorError::Pockets(pockets));
        }
        Ok(Monitor {
            counts: vec![0; pockets],
            distances: vec![0; pockets],
            previous: None,
            spins: 0,
            looks: Vec::new(),
            alarms: Vec::new(),
        })
    }

    pub fn pockets(&self) -> usize {
        self.counts.len()
    }

    pub fn spins(&self) -> u64 {
        self.spins
    }

    /// Each position's count, in wheel order.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// Each clockwise distance's count, from 0 (the same pocket again).
    pub fn distances(&self) -> &[u64] {
        &self.distances
    }

    /// The looks taken, oldest first.
    pub fn looks(&self) -> &[Look] {
        &self.looks
    }

    /// Each test's first alarm, in the order they were raised.
    pub fn alarms(&self) -> &[Alarm] {
        &self.alarms
    }

    /// The width of the sector scan's arcs: a quarter of the wheel.
    pub fn sector_width(&self) -> usize {
        self.pockets() / 4
    }

    /// The next look, if the monitor takes one more.
    pub fn next_look(&self) -> Option<(u32, u64)> {
        let j = self.looks.len() as u32;
        (j < LOOKS_MAX).then(|| (j, look_spins(j)))
    }

    /// Counts one result, at `position` in wheel order; the look taken if
    /// this result completes one.
    pub fn record(&mut self, position: usize) -> Result<Option<&Look>, MonitorError> {
        let k = self.pockets();
        if position >= k {
            return Err(MonitorError::Position { position, pockets: k });
        }
        self.counts[position] += 1;
        if let Some(previous) = self.previous {
            self.distances[(position + k - previous) % k] += 1;
        }
        self.previous = Some(position);
        self.spins += 1;
        match self.next_look() {
            Some((j, at)) if at == self.spins => {
                let look = Look {
                    index: j,
                    spins: self.spins,
                    threshold: look_threshold(j),
                    readings: self.readings(),
                };
                for r in look.alarms() {
                    if !self.alarms.iter().any(|a| a.test == r.test) {
                        self.alarms.push(Alarm {
                            test: r.test,
                            look: j,
                            spins: self.spins,
                            reading: r.clone(),
                        });
                    }
                }
                self.looks.push(look);
                Ok(self.looks.last())
            }
            _ => Ok(None),
        }
    }

    /// The four tests on the counts so far (between looks: for reading, not alarming).
    pub fn readings(&self) -> Vec<Reading> {
        let df = self.pockets() as u32 - 1;
        let chi = |test, counts: &[u64]| {
            let statistic = chi_square_uniform(counts);
            let counted: u64 = counts.iter().sum();
            Reading {
                test,
                counted,
                statistic,
                degrees_of_freedom: Some(df),
                p_value: if counted == 0 {
                    1.0
                } else {
                    chi_square_sf(statistic, df)
                },
                arc: None,
            }
        };
        let scan = |test, width| {
            let (arc, p_value) = arc_scan(&self.counts, width);
            Reading {
                test,
                counted: self.spins,
                statistic: arc.count as f64,
                degrees_of_freedom: None,
                p_value,
                arc: Some(arc),
            }
        };
        vec![
            chi(Test::Pockets, &self.counts),
            scan(Test::Pocket, 1),
            scan(Test::Sectors, self.sector_width()),
            chi(Test::Signature, &self.distances),
        ]
    }
}

#[cfg(test)]
mod tests;
