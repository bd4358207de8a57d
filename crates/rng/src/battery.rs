//! A battery of statistical tests on a stream of pocket indices.
//!
//! Each test reports its statistic and p-value. A test passes when its
//! p-value lies within [`P_MIN`, `P_MAX`]: too poor a fit means bias, too good
//! a fit means a stream that is not random either.

use statrs::distribution::{ChiSquared, ContinuousCDF, Normal};

pub const P_MIN: f64 = 1e-4;
pub const P_MAX: f64 = 1.0 - 1e-4;

#[derive(Clone, Debug, PartialEq)]
pub struct TestResult {
    pub name: &'static str,
    pub statistic: f64,
    pub degrees_of_freedom: Option<f64>,
    pub p_value: f64,
    pub pass: bool,
}

fn chi_square_p(statistic: f64, df: f64) -> f64 {
    match ChiSquared::new(df) {
        Ok(dist) => dist.sf(statistic),
        Err(_) => f64::NAN,
    }
}

fn two_sided_normal_p(z: f64) -> f64 {
    match Normal::new(0.0, 1.0) {
        Ok(dist) => 2.0 * dist.sf(z.abs()),
        Err(_) => f64::NAN,
    }
}

fn result(name: &'static str, statistic: f64, df: Option<f64>, p_value: f64, two_tailed_fit: bool) -> TestResult {
    let pass = p_value >= P_MIN && (!two_tailed_fit || p_value <= P_MAX);
    TestResult {
        name,
        statistic,
        degrees_of_freedom: df,
        p_value,
        pass,
    }
}

fn chi_square(observed: &[u64], expected_each: f64) -> f64 {
    observed
        .iter()
        .map(|&o| {
            let d = o as f64 - expected_each;
            d * d / expected_each
        })
        .sum()
}

/// Frequencies of single pockets.
pub fn chi_square_pockets(draws: &[u32], k: u32) -> TestResult {
    let mut counts = vec![0u64; k as usize];
    for &d in draws {
        counts[d as usize] += 1;
    }
    let stat = chi_square(&counts, draws.len() as f64 / f64::from(k));
    let df = f64::from(k - 1);
    result("chi-square on pockets", stat, Some(df), chi_square_p(stat, df), true)
}

/// Frequencies of non-overlapping consecutive pairs.
pub fn chi_square_pairs(draws: &[u32], k: u32) -> TestResult {
    let cells = (k * k) as usize;
    let mut counts = vec![0u64; cells];
    let pairs = draws.len() / 2;
    for pair in draws.chunks_exact(2) {
        counts[(pair[0] * k + pair[1]) as usize] += 1;
    }
    let stat = chi_square(&counts, pairs as f64 / cells as f64);
    let df = (cells - 1) as f64;
    result("chi-square on pairs", stat, Some(df), chi_square_p(stat, df), true)
}

/// Wald-Wolfowitz runs of even and odd indices.
pub fn runs(draws: &[u32]) -> TestResult {
    let n = draws.len() as f64;
    let n1 = draws.iter().filter(|&&d| d % 2 == 0).count() as f64;
    let n2 = n - n1;
    let runs = 1 + draws.windows(2).filter(|w| w[0] % 2 != w[1] % 2).count();
    let mean = 2.0 * n1 * n2 / n + 1.0;
    let variance = (mean - 1.0) * (mean - 2.0) / (n - 1.0);
    let z = (runs as f64 - mean) / variance.sqrt();
    result("runs (even/odd)", z, None, two_sided_normal_p(z), false)
}

/// Lag-1 serial correlation of the indices.
pub fn serial_correlation(draws: &[u32]) -> TestResult {
    let n = draws.len() as f64;
    let mean = draws.iter().map(|&d| f64::from(d)).sum::<f64>() / n;
    let mut numerator = 0.0;
    let mut denominator = 0.0;
    for (i, &d) in draws.iter().enumerate() {
        let x = f64::from(d) - mean;
        denominator += x * x;
        if let Some(&next) = draws.get(i + 1) {
            numerator += x * (f64::from(next) - mean);
        }
    }
    let r = numerator / denominator;
    // Under independence r is close to normal with mean -1/n and variance 1/n.
    let z = (r + 1.0 / n) * n.sqrt();
    result("serial correlation (lag 1)", r, None, two_sided_normal_p(z), false)
}

/// Gaps between successive occurrences of pocket index 0, against the
/// geometric distribution with p = 1/k.
pub fn gaps(draws: &[u32], k: u32) -> TestResult {
    let p = 1.0 / f64::from(k);
    let positions: Vec<usize> = draws
        .iter()
        .enumerate()
        .filter(|(_, &d)| d == 0)
        .map(|(i, _)| i)
        .collect();
    let gaps: Vec<usize> = positions.windows(2).map(|w| w[1] - w[0] - 1).collect();
    let total = gaps.len() as f64;
    // Bins 0..bins-1 and a tail bin, each expected to hold at least 5.
    let mut bins = 1usize;
    while total * p * (1.0 - p).powi(bins as i32) * (1.0 - p) >= 5.0 && bins < 500 {
        bins += 1;
    }
    let mut counts = vec![0u64; bins + 1];
    for &g in &gaps {
        counts[g.min(bins)] += 1;
    }
    let mut stat = 0.0;
    for (g, &observed) in counts.iter().enumerate() {
        let probability = if g < bins {
            p * (1.0 - p).powi(g as i32)
        } else {
            (1.0 - p).powi(bins as i32)
        };
        let expected = total * probability;
        let d = observed as f64 - expected;
        stat += d * d / expected;
    }
    let df = bins as f64;
    result(
        "gap test (pocket index 0)",
        stat,
        Some(df),
        chi_square_p(stat, df),
        true,
    )
}

/// The whole battery on `draws`, indices below `k`.
pub fn run(draws: &[u32], k: u32) -> Vec<TestResult> {
    vec![
        chi_square_pockets(draws, k),
        chi_square_pairs(draws, k),
        runs(draws),
        serial_correlation(draws),
        gaps(draws, k),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{draw_index, SeededRng, WordSource};

    fn draws(rng: &mut SeededRng, k: u32, n: usize) -> Vec<u32> {
        (0..n).map(|_| draw_index(rng, k)).collect()
    }

    #[test]
    fn the_production_generator_passes() {
        let mut rng = SeededRng::from_seed_stream([3; 32], 0);
        for k in [37, 38, 39] {
            let d = draws(&mut rng, k, 400_000);
            for r in run(&d, k) {
                assert!(r.pass, "k={k}: {r:?}");
            }
        }
    }

    #[test]
    fn the_battery_catches_modulo_bias_and_correlation() {
        let mut rng = SeededRng::from_seed_stream([4; 32], 0);
        // floor(x * 37) from a byte: some pockets get 7 of 256 values, others 6.
        let biased: Vec<u32> = (0..400_000).map(|_| ((rng.next_word() >> 24) * 37) >> 8).collect();
        assert!(!chi_square_pockets(&biased, 37).pass);
        // A stream that repeats each draw once is correlated and fails pairs and runs.
        let fair = draws(&mut rng, 37, 200_000);
        let doubled: Vec<u32> = fair.iter().flat_map(|&d| [d, d]).collect();
        assert!(!serial_correlation(&doubled).pass);
        assert!(!runs(&doubled).pass);
        // A counter is perfectly even, and too good to be random.
        let counter: Vec<u32> = (0..370_000u32).map(|i| i % 37).collect();
        assert!(!chi_square_pockets(&counter, 37).pass);
        assert!(!gaps(&counter, 37).pass);
    }
}
