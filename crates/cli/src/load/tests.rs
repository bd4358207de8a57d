use std::time::Duration;

use super::acks::{Ack, Behind};
use super::disk::{bare_flushes, disk_verdict, journal_flushes, parse_histogram, JournalFlushes};
use super::machine::{machine_ticks, process_ticks, speed_probe, CpuShares, ServerMemory};
use super::rounds::first_windows;
use super::targets::{targets, Target};
use crate::wire;

#[test]
fn the_servers_memory_is_told_at_the_end_of_each_tenth_of_the_run() {
    // Read each second of a 10 s run; the memory grows for 3 s, then holds.
    let readings: Vec<(f64, u64)> = (1..=10u32).map(|s| (f64::from(s), 100 * u64::from(s.min(3)))).collect();
    let m = ServerMemory::of(&readings, 10.0, 350).expect("readings");
    assert_eq!(m.tenths, [100, 200, 300, 300, 300, 300, 300, 300, 300, 300]);
    assert_eq!(m.peak_bytes, 350);
    // A tenth before any reading tells 0, not a later reading.
    let late = ServerMemory::of(&[(5.0, 7)], 10.0, 7).expect("a reading");
    assert_eq!(late.tenths, [0, 0, 0, 0, 7, 7, 7, 7, 7, 7]);
    assert_eq!(ServerMemory::of(&[], 10.0, 1), None);
}

#[test]
fn the_speed_probe_times_work_that_is_done() {
    // Work that the compiler removed would take no time at all.
    let ms = speed_probe(2_000);
    assert!(ms.is_finite() && ms > 0.0, "{ms}");
}

const BEFORE: &str = "croupier_bets_accepted_total 7
croupier_journal_flush_seconds_bucket{le=\"0.001\"} 10
croupier_journal_flush_seconds_bucket{le=\"0.05\"} 12
croupier_journal_flush_seconds_bucket{le=\"0.1\"} 12
croupier_journal_flush_seconds_bucket{le=\"0.3\"} 13
croupier_journal_flush_seconds_bucket{le=\"+Inf\"} 13
croupier_journal_flush_seconds_sum 0.3
croupier_journal_flush_seconds_count 13
";

#[test]
fn first_rounds_end_spread_over_one_window_unless_aligned() {
    let ms = |v: Vec<Duration>| v.iter().map(Duration::as_millis).collect::<Vec<_>>();
    assert_eq!(ms(first_windows(4, 1_500, false)), [1_500, 1_875, 2_250, 2_625]);
    assert_eq!(ms(first_windows(4, 1_500, true)), [1_500; 4]);
    assert_eq!(ms(first_windows(1, 1_500, false)), [1_500]);
    assert!(first_windows(0, 1_500, false).is_empty());
}

#[test]
fn a_histogram_is_read_from_its_buckets_only() {
    assert_eq!(
        parse_histogram(BEFORE, "croupier_journal_flush_seconds"),
        [(0.001, 10), (0.05, 12), (0.1, 12), (0.3, 13), (f64::INFINITY, 13)]
    );
    assert!(parse_histogram(BEFORE, "croupier_other_seconds").is_empty());
}

#[test]
fn the_runs_writes_are_the_difference_of_two_readings() {
    let before = parse_histogram(BEFORE, "croupier_journal_flush_seconds");
    // During the run: 100 writes up to 1 ms, 2 between 50 and 100 ms, one between 100 and 300 ms.
    let after = [(0.001, 110), (0.05, 112), (0.1, 114), (0.3, 116), (f64::INFINITY, 116)];
    let run = journal_flushes(&before, &after);
    assert_eq!(
        run,
        JournalFlushes {
            flushes: 103,
            p50_ms_at_most: 1.0,
            p99_ms_at_most: 100.0,
            slowest_ms_over: 100.0,
            // Each counted at its bucket's lower bound: 2 x (50 - 50) + 1 x (100 - 50).
            stalled_ms_at_least: 50.0,
        }
    );
    assert_eq!(journal_flushes(&before, &before), JournalFlushes::default());
}

#[test]
fn slow_acknowledgements_are_told_apart_from_a_run_that_fell_behind() {
    let ack = |at: f64, ms: f64| Ack { at, ms };
    // Three windows: quick, behind (median 80 ms), quick with one slow bet.
    let acks = [
        ack(0.01, 5.0),
        ack(0.05, 6.0),
        ack(0.09, 7.0),
        ack(0.11, 70.0),
        ack(0.15, 80.0),
        ack(0.19, 90.0),
        ack(0.21, 5.0),
        ack(0.25, 120.0),
        ack(0.29, 6.0),
    ];
    let behind = Behind::of(&acks, 0.1, 50.0);
    assert_eq!(behind.windows, 3);
    assert_eq!(behind.windows_behind, 1);
    // Four bets waited over 50 ms; three of them in the window that fell behind.
    assert!((behind.slow_share_in_behind - 0.75).abs() < 1e-12, "{behind:?}");
    // A median exactly at the line is not behind; nothing slow, nothing to share.
    let at_line = Behind::of(&[ack(0.0, 50.0), ack(0.01, 50.0)], 0.1, 50.0);
    assert_eq!(
        (at_line.windows, at_line.windows_behind, at_line.slow_share_in_behind),
        (1, 0, 0.0)
    );
    assert_eq!(Behind::of(&[], 0.1, 50.0), Behind::default());
}

#[test]
fn a_target_is_met_only_on_its_own_side_of_the_line() {
    let met = |t: [Target; 3]| t.map(|t| t.met);
    assert_eq!(met(targets(20_000.0, 49.99, 100.0)), [true, true, true]);
    assert_eq!(met(targets(19_999.9, 50.0, 100.01)), [false, false, false]);
    let [rate, ack, settlement] = targets(21_000.0, 12.5, 40.0);
    assert_eq!(
        (rate.measured, ack.measured, settlement.measured),
        (21_000.0, 12.5, 40.0)
    );
}

#[test]
fn the_disk_is_blamed_for_a_slow_p99_only_past_one_percent_of_the_run() {
    assert!(disk_verdict(0.021).contains("the disk alone kept the p99 over 50 ms"));
    assert!(disk_verdict(0.01).contains("the disk alone does not explain it"));
    assert!(disk_verdict(0.0).contains("the disk alone does not explain it"));
}

#[test]
fn the_runs_processor_time_is_split_into_busy_idle_and_stolen() {
    let stat = |user: u64, idle: u64, steal: u64| {
        format!(
            "cpu  {user} 5 20 {idle} 10 0 5 {steal} 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\ncpu1 1 2 3 4 5 6 7 8 0 0\nintr 1 2\n"
        )
    };
    let mut before = machine_ticks(&stat(100, 300, 50)).expect("a cpu line");
    assert_eq!(
        (before.cores, before.busy, before.idle, before.steal),
        (2, 130, 310, 50)
    );
    let mut after = machine_ticks(&stat(250, 320, 80)).expect("a cpu line");
    // 200 ticks on 2 cores: 150 busy, 20 idle, 30 stolen; the server ran 120, the generator 20.
    before.server = 1_000;
    after.server = 1_120;
    before.generator = 40;
    after.generator = 60;
    let shares = before.shares(&after).expect("shares");
    assert_eq!(
        shares,
        CpuShares {
            cores: 2,
            busy: 0.75,
            idle: 0.1,
            steal: 0.15,
            server_cores: 1.2,
            generator_cores: 0.2,
        }
    );
    assert!(after.shares(&before).is_none(), "time does not run backwards");
    assert!(before.shares(&before).is_none(), "no time, no shares");
    assert!(machine_ticks("intr 1 2\n").is_none());
}

#[test]
fn a_process_time_is_read_after_its_name_whatever_the_name_holds() {
    let stat = "4242 (tokio (rt) x) S 1 4242 4242 0 -1 4194560 900 0 0 0 1234 56 0 0 20 0 8 0 100 0 0";
    assert_eq!(process_ticks(stat), Some(1290));
    assert_eq!(process_ticks("4242 (short) S 1"), None);
    let mine = std::fs::read_to_string("/proc/self/stat").ok();
    assert!(
        mine.is_none_or(|t| process_ticks(&t).is_some()),
        "this process's own stat reads"
    );
}

#[test]
fn the_bare_loop_times_its_flushes_and_leaves_nothing_behind() {
    let dir = std::env::temp_dir().join(format!("croupier-bare-flush-{}", wire::unique_suffix()));
    std::fs::create_dir_all(&dir).expect("dir");
    let probe = bare_flushes(&dir, 0.2).expect("probe");
    assert!(probe.seconds >= 0.2 && probe.flushes_per_second > 0.0, "{probe:?}");
    assert!(probe.p99_ms <= probe.max_ms && probe.stalled_ms >= 0.0, "{probe:?}");
    assert_eq!(
        std::fs::read_dir(&dir).expect("dir").count(),
        0,
        "the probe file is gone"
    );
    std::fs::remove_dir(&dir).expect("empty dir");
}
