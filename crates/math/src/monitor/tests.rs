use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;

const K: usize = 37;

/// A wheel whose position `i` (in wheel order) has weight `weights[i]`.
fn weighted(weights: &[u64], rng: &mut ChaCha8Rng) -> usize {
    let total: u64 = weights.iter().sum();
    let mut u = rng.random_range(0..total);
    for (i, &w) in weights.iter().enumerate() {
        if u < w {
            return i;
        }
        u -= w;
    }
    unreachable!("u is below the total weight")
}

/// Feeds `spins` results drawn by `draw` (given the previous position)
/// to a new monitor, stopping at its first alarm.
fn run(spins: u64, mut draw: impl FnMut(Option<usize>) -> usize) -> Monitor {
    let mut monitor = Monitor::new(K).expect("37 pockets");
    let mut previous = None;
    for _ in 0..spins {
        let p = draw(previous);
        previous = Some(p);
        if monitor.record(p).expect("a position on the wheel").is_some() && !monitor.alarms().is_empty() {
            break;
        }
    }
    monitor
}

#[test]
fn looks_come_at_the_published_counts() {
    let first: Vec<u64> = (0..8).map(look_spins).collect();
    assert_eq!(first, [1_000, 1_500, 2_000, 3_000, 4_000, 6_000, 8_000, 12_000]);
    for j in 1..LOOKS_MAX {
        let (before, now) = (look_spins(j - 1), look_spins(j));
        assert!(now > before && now * 2 <= before * 3, "look {j}: {before} then {now}");
    }
    // Looks 0 to 19 come within the first 1,000,000 results, look 20 after them.
    assert_eq!(look_spins(19), 768_000);
    assert_eq!(look_spins(20), 1_024_000);
}

#[test]
fn the_thresholds_spend_the_false_alarm_rate_and_no_more() {
    let (num, den) = FALSE_ALARM;
    let rate = Fraction::new(num, den);
    let mut spent = Fraction::from_integer(0);
    for j in 0..LOOKS_MAX {
        spent += look_threshold(j) * Fraction::from_integer(Test::ALL.len() as i128);
        // Telescoping: after J looks, A (1 - 1/(J+1)) is spent.
        let looks = i128::from(j) + 1;
        assert_eq!(spent, rate * Fraction::new(looks, looks + 1), "after look {j}");
    }
    assert!(spent < rate);
    assert_eq!(look_threshold(0), Fraction::new(1, 8_000));
}

#[test]
fn chi_square_quantiles_match_the_published_tables() {
    // NIST/SEMATECH e-Handbook, table 1.3.6.7.4 (upper critical values).
    for (alpha, df, table) in [
        (0.05, 1, 3.841),
        (0.01, 1, 6.635),
        (0.05, 36, 50.998),
        (0.01, 36, 58.619),
        (0.001, 36, 67.985),
    ] {
        let x = chi_square_critical(alpha, df);
        assert!((x - table).abs() < 1e-3, "alpha {alpha}, {df} df: {x} against {table}");
        assert!((chi_square_sf(x, df) - alpha).abs() < 1e-9 * alpha.max(1e-3));
    }
}

#[test]
fn binomial_tails_match_hand_counts() {
    // Bin(10, 1/2): P(X >= 8) = P(X <= 2) = (45 + 10 + 1) / 1024.
    assert!((binomial_tail(10, 8, 1, 2) - 56.0 / 1024.0).abs() < 1e-15);
    assert!((binomial_tail(10, 2, 1, 2) - 56.0 / 1024.0).abs() < 1e-15);
    // Bin(3, 1/4): P(X >= 3) = 1/64; P(X <= 0) = 27/64.
    assert!((binomial_tail(3, 3, 1, 4) - 1.0 / 64.0).abs() < 1e-15);
    assert!((binomial_tail(3, 0, 1, 4) - 27.0 / 64.0).abs() < 1e-15);
    // At the mean the upper tail is taken, and holds about half.
    let half = binomial_tail(3_700_000, 100_000, 1, 37);
    assert!((0.49..0.51).contains(&half), "{half}");
}

#[test]
fn a_double_zero_wheel_used_as_single_zero_is_monitored_without_00() {
    let single = monitored_order(Wheel::SingleZero);
    assert_eq!(single.len(), 37);
    assert_eq!(
        [single[0].label(), single[1].label(), single[36].label()],
        ["0", "32", "26"]
    );
    assert_eq!(monitored_order(Wheel::DoubleZero).len(), 38);
    let covered = monitored_order(Wheel::DoubleZeroAsSingleZero);
    assert_eq!(covered.len(), 37);
    assert!(!covered.contains(&Pocket::DOUBLE_ZERO));
    // 00's neighbours in the physical order, 1 and 27, are adjacent here.
    let at = |label: &str| covered.iter().position(|p| p.label() == label).expect("on the wheel");
    assert_eq!(at("27"), at("1") + 1);
}

#[test]
fn a_monitor_refuses_a_wheel_or_a_position_it_cannot_count() {
    assert_eq!(Monitor::new(4).err(), Some(MonitorError::Pockets(4)));
    let mut m = Monitor::new(K).expect("37 pockets");
    assert_eq!(
        m.record(37).err(),
        Some(MonitorError::Position {
            position: 37,
            pockets: 37
        })
    );
    assert_eq!(m.spins(), 0);
}

#[test]
fn distances_are_clockwise_from_the_previous_result() {
    let mut m = Monitor::new(K).expect("37 pockets");
    for p in [5, 9, 2, 2] {
        m.record(p).expect("on the wheel");
    }
    // 5 -> 9: 4; 9 -> 2: 30 (clockwise, round past 0); 2 -> 2: 0.
    let mut expected = vec![0; K];
    expected[4] = 1;
    expected[30] = 1;
    expected[0] = 1;
    assert_eq!(m.distances(), expected.as_slice());
    assert_eq!(m.counts().iter().sum::<u64>(), 4);
}

/// 100 fair wheels of 50,000 results each (looks 0 to 11): none alarms, as
/// the bound (one in a thousand each) all but promises, while their
/// p-values are spread as a fair wheel's should be: about a tenth of the
/// readings at the first look are at or below 0.1.
#[test]
fn fair_wheels_raise_no_alarm_and_their_p_values_are_uniform() {
    let mut alarmed = 0;
    let mut low = 0;
    let mut readings = 0;
    for seed in 0..100 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let m = run(50_000, |_| rng.random_range(0..K));
        assert_eq!(m.looks().len(), 12);
        alarmed += usize::from(!m.alarms().is_empty());
        for r in &m.looks()[0].readings {
            readings += 1;
            low += usize::from(r.p_value <= 0.1);
        }
    }
    assert_eq!(alarmed, 0);
    // Binomial(400, 0.1): mean 40, standard deviation 6; the scans'
    // Bonferroni p-values sit above their true level, so fewer is right too.
    assert_eq!(readings, 400);
    assert!((12..=60).contains(&low), "{low} of 400 readings at or below 0.1");
}

#[test]
fn a_hot_pocket_alarms_and_names_its_pocket() {
    // Position 20 at 3/2 the weight of the others.
    let mut weights = vec![2; K];
    weights[20] = 3;
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let m = run(100_000, |_| weighted(&weights, &mut rng));
    let first = m.alarms().first().expect("an alarm within 100,000 results");
    assert!(first.spins <= 24_000, "{first:?}");
    let pocket = m
        .alarms()
        .iter()
        .find(|a| a.test == Test::Pocket)
        .expect("the pocket scan alarms");
    assert_eq!(pocket.reading.arc.as_ref().map(|a| a.start), Some(20));
}

#[test]
fn a_biased_sector_alarms_and_names_an_arc_over_it() {
    // Positions 10 to 18 (a quarter wheel) at 5/4 the weight of the others.
    let mut weights = vec![4; K];
    for w in &mut weights[10..19] {
        *w = 5;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let m = run(200_000, |_| weighted(&weights, &mut rng));
    let sectors = m
        .alarms()
        .iter()
        .find(|a| a.test == Test::Sectors)
        .expect("the sector scan alarms");
    assert!(sectors.spins <= 12_000, "{sectors:?}");
    let arc = sectors.reading.arc.as_ref().expect("an arc");
    assert!(arc.count as f64 > arc.expected);
    assert!((6..=14).contains(&arc.start), "{arc:?}");
}

#[test]
fn a_dealer_signature_alarms() {
    // A quarter of the spins land 10 to 13 pockets clockwise of the last.
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let m = run(100_000, |previous| match previous {
        Some(p) if rng.random_range(0..4) == 0 => (p + 10 + rng.random_range(0..4)) % K,
        _ => rng.random_range(0..K),
    });
    let first = m.alarms().first().expect("an alarm");
    assert_eq!(first.test, Test::Signature);
    assert!(first.spins <= 3_000, "{first:?}");
}

#[test]
fn an_alarm_stays_raised_once() {
    // Every result in one pocket: every test but the signature alarms at the
    // first look, each once, and looks go on.
    let mut m = Monitor::new(K).expect("37 pockets");
    for _ in 0..2_000 {
        m.record(3).expect("on the wheel");
    }
    let tests: Vec<Test> = m.alarms().iter().map(|a| a.test).collect();
    assert_eq!(tests, Test::ALL);
    assert!(m.alarms().iter().all(|a| a.look == 0 && a.spins == 1_000));
    assert_eq!(m.looks().len(), 3);
}

proptest! {
    #[test]
    fn the_exact_chi_square_is_pearsons(counts in prop::collection::vec(0u64..5_000, 8..40)) {
        let n: u64 = counts.iter().sum();
        prop_assume!(n > 0);
        let e = n as f64 / counts.len() as f64;
        let direct: f64 = counts.iter().map(|&c| (c as f64 - e).powi(2) / e).sum();
        let exact = chi_square_uniform(&counts);
        prop_assert!((exact - direct).abs() <= 1e-9 * direct.max(1.0), "{exact} {direct}");
        // Even counts give exactly zero.
        let even = vec![n; counts.len()];
        prop_assert_eq!(chi_square_uniform_exact(&even).0, 0);
    }

    #[test]
    fn each_result_falls_in_width_arcs(counts in prop::collection::vec(0u64..1_000, 8..40), width in 1usize..8) {
        let n: u64 = counts.iter().sum();
        let arcs = arc_counts(&counts, width);
        prop_assert_eq!(arcs.iter().sum::<u64>(), n * width as u64);
        for (s, &a) in arcs.iter().enumerate() {
            let direct: u64 = (0..width).map(|i| counts[(s + i) % counts.len()]).sum();
            prop_assert_eq!(a, direct);
        }
        prop_assert_eq!(arc_counts(&counts, 1), counts);
    }

    #[test]
    fn binomial_tails_are_sums_of_probabilities(n in 1u64..300, x in 0u64..300, num in 1u64..36, den in 37u64..40) {
        let x = x % (n + 1);
        let q = num as f64 / den as f64;
        let pmf = |i: u64| (ln_binomial(n, i) + i as f64 * q.ln() + (n - i) as f64 * (1.0 - q).ln()).exp();
        let upper = x as f64 >= n as f64 * q;
        let direct: f64 = if upper { (x..=n).map(pmf).sum() } else { (0..=x).map(pmf).sum() };
        let tail = binomial_tail(n, x, num, den);
        prop_assert!((tail - direct).abs() <= 1e-10 * direct + 1e-300, "{tail} {direct}");
    }

    #[test]
    fn a_monitor_looks_exactly_at_the_schedule(seed in 0u64..1_000) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut m = Monitor::new(38).expect("38 pockets");
        let mut taken = Vec::new();
        for _ in 0..6_000 {
            if let Some(look) = m.record(rng.random_range(0..38)).expect("on the wheel") {
                taken.push(look.spins);
            }
        }
        prop_assert_eq!(taken, vec![1_000, 1_500, 2_000, 3_000, 4_000, 6_000]);
        prop_assert_eq!(m.counts().iter().sum::<u64>(), 6_000);
        prop_assert_eq!(m.distances().iter().sum::<u64>(), 5_999);
    }
}
