//! The integrity monitor at a table: read from the archive, in order.

use std::collections::BTreeMap;

use super::*;
use crate::casino::RoundRecord;

fn round(table: &str, n: u64, pocket: Option<&str>) -> Arc<RoundRecord> {
    Arc::new(RoundRecord {
        id: format!("{table}/{n}"),
        table: table.into(),
        round: n,
        opened_at_ms: n * 1_000,
        pocket: pocket.map(str::to_string),
        no_spins: if pocket.is_none() {
            vec!["ball_left_wheel".into()]
        } else {
            Vec::new()
        },
        bets: Vec::new(),
        settled: pocket.is_some(),
        chips_before: BTreeMap::new(),
        chips_after: BTreeMap::new(),
        tournament: None,
        bonus_targets: Vec::new(),
        bonus_lucky: Vec::new(),
    })
}

/// Archives rounds `first..first+n` of `table`, the pocket of each from
/// `pocket` (none: the round had no result).
fn archive_rounds(archive: &Archive, table: &str, first: u64, n: u64, mut pocket: impl FnMut(u64) -> Option<String>) {
    let rounds: Vec<Arc<RoundRecord>> = (first..first + n)
        .map(|r| round(table, r, pocket(r).as_deref()))
        .collect();
    archive.save(&rounds).expect("archived");
}

/// A fair wheel's results, from a xorshift64* generator: what a test needs
/// here is results no test should flag, reproducibly.
fn fair(seed: u64) -> impl FnMut(u64) -> Option<String> {
    let order = monitor::monitored_order(Wheel::SingleZero);
    let mut state = seed.max(1);
    move |_| {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let word = state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32;
        Some(order[((word * 37) >> 32) as usize].label().to_string())
    }
}

#[test]
fn a_table_whose_ball_always_finds_17_alarms_at_the_first_look() {
    let archive = Archive::in_memory().expect("an archive");
    // Round 1 had no result; rounds 2 to 1,001 all ended in 17.
    archive_rounds(&archive, "t1", 1, 1, |_| None);
    archive_rounds(&archive, "t1", 2, 1_100, |_| Some("17".into()));
    let view = Integrity::default()
        .read(&archive, "t1", Wheel::SingleZero)
        .expect("read");
    assert_eq!((view.rounds, view.rounds_without_result, view.spins), (1_101, 1, 1_100));
    assert_eq!(view.last_round, Some(1_101));
    let at17 = view.pockets.iter().position(|p| p == "17").expect("17 on the wheel");
    assert_eq!(view.counts[at17], 1_100);
    assert_eq!(view.distances[0], 1_099);
    let tests: Vec<&str> = view.alarms.iter().map(|a| a.test.as_str()).collect();
    assert_eq!(tests, ["pockets", "pocket", "sectors", "signature"]);
    let pocket = &view.alarms[1];
    // The 1,000th result was round 1,001's.
    assert_eq!((pocket.look, pocket.spins, pocket.round), (0, 1_000, 1_001));
    assert_eq!(
        pocket.arc.as_ref().map(|a| a.pockets.clone()),
        Some(vec!["17".to_string()])
    );
    assert!(
        pocket
            .text
            .starts_with("pocket 17 came up 1000 times in 1000 results, more than the 27.0"),
        "{}",
        pocket.text
    );
    assert_eq!(view.looks.len(), 1);
    assert_eq!(view.looks[0].threshold_fraction, "1/8000");
    assert_eq!(view.next_look, Some(1_500));
}

#[test]
fn reading_late_raises_what_reading_early_would() {
    let archive = Archive::in_memory().expect("an archive");
    // A wheel whose results favour the sector 32, 15, 19, 4 (every fifth result is drawn there).
    let mut draw = fair(11);
    let sector = ["32", "15", "19", "4"];
    let mut pick = move |r: u64| {
        if r.is_multiple_of(5) {
            Some(sector[(r / 5 % 4) as usize].to_string())
        } else {
            draw(r)
        }
    };
    let all: Vec<Option<String>> = (1..=9_000).map(&mut pick).collect();
    let pocket = |r: u64| all[(r - 1) as usize].clone();
    let early = Integrity::default();
    let mut seen = Vec::new();
    for first in (1..=9_000).step_by(700) {
        archive_rounds(&archive, "t2", first, 700.min(9_001 - first), pocket);
        seen.push(early.read(&archive, "t2", Wheel::SingleZero).expect("read"));
    }
    let late = Integrity::default()
        .read(&archive, "t2", Wheel::SingleZero)
        .expect("read");
    let now = seen.last().expect("read");
    assert_eq!(now, &late);
    assert_eq!(late.spins, 9_000);
    assert!(late.alarms.iter().any(|a| a.test == "sectors"), "{:?}", late.alarms);
    // Each alarm is raised at a look, and never moves once raised.
    for v in &seen {
        for a in &v.alarms {
            assert!(late.alarms.contains(a));
        }
    }
}

#[test]
fn a_fair_table_raises_no_alarm_and_its_looks_name_their_rounds() {
    let archive = Archive::in_memory().expect("an archive");
    archive_rounds(&archive, "t3", 1, 6_000, fair(3));
    let view = Integrity::default()
        .read(&archive, "t3", Wheel::SingleZero)
        .expect("read");
    assert!(view.alarms.is_empty(), "{:?}", view.alarms);
    let looks: Vec<(u64, u64)> = view.looks.iter().map(|l| (l.spins, l.round)).collect();
    assert_eq!(
        looks,
        [
            (1_000, 1_000),
            (1_500, 1_500),
            (2_000, 2_000),
            (3_000, 3_000),
            (4_000, 4_000),
            (6_000, 6_000)
        ]
    );
    // The chi-square value each look alarms at, on 36 degrees of freedom, rises as the threshold falls.
    assert!(view
        .looks
        .windows(2)
        .all(|w| w[1].chi_square_critical > w[0].chi_square_critical));
}

#[test]
fn a_double_zero_wheel_used_as_single_zero_counts_37_pockets_and_refuses_00() {
    let archive = Archive::in_memory().expect("an archive");
    archive_rounds(&archive, "t4", 1, 10, |_| Some("1".into()));
    let monitors = Integrity::default();
    let view = monitors
        .read(&archive, "t4", Wheel::DoubleZeroAsSingleZero)
        .expect("read");
    assert_eq!((view.pockets.len(), view.spins), (37, 10));
    archive_rounds(&archive, "t4", 11, 1, |_| Some("00".into()));
    let refused = monitors.read(&archive, "t4", Wheel::DoubleZeroAsSingleZero).err();
    assert_eq!(
        refused.as_deref(),
        Some("round t4/11: \"00\" is not a pocket of its wheel")
    );
}
