//! The disk under the run: the server's journal writes during it, from its
//! `/metrics`, and a bare write-and-flush loop on the same disk after it,
//! for the limit to compare with.

use std::net::SocketAddr;
use std::time::Instant;

use serde::Serialize;

use super::acks::percentile;
use super::http::Conn;
use super::io;
use super::targets::ACK_TARGET_MS;
use crate::Failure;

/// The server's journal writes (entries written and flushed) during the run,
/// from the histogram its `/metrics` keeps: each figure is a bucket's bound.
#[derive(Serialize, Default, Debug, PartialEq)]
pub(super) struct JournalFlushes {
    pub(super) flushes: u64,
    pub(super) p50_ms_at_most: f64,
    pub(super) p99_ms_at_most: f64,
    pub(super) slowest_ms_over: f64,
    /// Time that lay `ACK_TARGET_MS` or more before the end of a write: a bet
    /// arriving then waited at least that long for the write after it. A lower
    /// bound, each write counted at its bucket's lower bound.
    pub(super) stalled_ms_at_least: f64,
}

/// A bare loop writing 16 KiB and flushing it, on the data directory's disk.
#[derive(Serialize, Default, Debug, PartialEq)]
pub(super) struct BareFlushes {
    pub(super) seconds: f64,
    pub(super) flushes_per_second: f64,
    pub(super) p99_ms: f64,
    pub(super) max_ms: f64,
    /// As `JournalFlushes::stalled_ms_at_least`, exactly.
    pub(super) stalled_ms: f64,
}

/// What the journal's writes say of a p99 over `ACK_TARGET_MS`, given the
/// share of the run that lay that far before the end of a write.
pub(super) fn disk_verdict(stalled_share: f64) -> String {
    if stalled_share > 0.01 {
        format!(
            "the p99 is over {ACK_TARGET_MS} ms, and more than 1% of the run lay that far before the end of a journal write: unless those moments fell while betting was closed, the disk alone kept the p99 over {ACK_TARGET_MS} ms"
        )
    } else {
        format!(
            "the p99 is over {ACK_TARGET_MS} ms, and at most 1% of the run lay that far before the end of a journal write (as far as the buckets tell): the disk alone does not explain it"
        )
    }
}

/// The server's journal-write histogram: each bucket's upper bound in
/// seconds with its cumulative count, `+Inf` last.
pub(super) async fn journal_histogram(address: SocketAddr, admin_token: &str) -> Result<Vec<(f64, u64)>, Failure> {
    let mut conn = Conn::open(address).await.map_err(io)?;
    let (status, body) = conn
        .fetch("GET", "/metrics", Some(admin_token), None)
        .await
        .map_err(io)?;
    let text = String::from_utf8_lossy(&body);
    let buckets = parse_histogram(&text, "croupier_journal_flush_seconds");
    if status != 200 || buckets.last().is_none_or(|(bound, _)| *bound != f64::INFINITY) {
        return Err(io(format!(
            "the bench server's /metrics ({status}) has no croupier_journal_flush_seconds histogram"
        )));
    }
    Ok(buckets)
}

/// The buckets of histogram `name` in a Prometheus text exposition.
pub(super) fn parse_histogram(text: &str, name: &str) -> Vec<(f64, u64)> {
    let prefix = format!("{name}_bucket{{le=\"");
    text.lines()
        .filter_map(|line| {
            let (bound, count) = line.strip_prefix(prefix.as_str())?.split_once("\"} ")?;
            let bound = if bound == "+Inf" {
                f64::INFINITY
            } else {
                bound.parse().ok()?
            };
            Some((bound, count.trim().parse().ok()?))
        })
        .collect()
}

/// The writes between two readings of the histogram.
pub(super) fn journal_flushes(before: &[(f64, u64)], after: &[(f64, u64)]) -> JournalFlushes {
    // Each bucket's own count during the run, with its bounds in milliseconds.
    let mut buckets = Vec::new();
    let (mut lower, mut below) = (0.0, 0u64);
    for (i, &(bound, after_count)) in after.iter().enumerate() {
        let cumulative = after_count.saturating_sub(before.get(i).map_or(0, |&(_, c)| c));
        buckets.push((lower, bound * 1000.0, cumulative.saturating_sub(below)));
        (lower, below) = (bound * 1000.0, cumulative);
    }
    let flushes: u64 = buckets.iter().map(|&(_, _, n)| n).sum();
    // With no writes no bucket reaches the count wanted, and the answer is 0.
    let at_most = |q: f64| {
        let wanted = (flushes as f64 * q).ceil().max(1.0) as u64;
        let mut seen = 0;
        buckets
            .iter()
            .find(|&&(_, _, n)| {
                seen += n;
                seen >= wanted
            })
            .map_or(0.0, |&(_, upper, _)| upper)
    };
    JournalFlushes {
        flushes,
        p50_ms_at_most: at_most(0.5),
        p99_ms_at_most: at_most(0.99),
        slowest_ms_over: buckets.iter().rev().find(|b| b.2 > 0).map_or(0.0, |b| b.0),
        stalled_ms_at_least: buckets
            .iter()
            .map(|&(lower, _, n)| n as f64 * (lower - ACK_TARGET_MS).max(0.0))
            .sum(),
    }
}

/// Writes 16 KiB blocks in turn over a 4 MiB file in `dir`, flushing each to
/// disk, for `seconds`: what the disk alone gives a journal.
pub(super) fn bare_flushes(dir: &std::path::Path, seconds: f64) -> std::io::Result<BareFlushes> {
    use std::os::unix::fs::FileExt;
    const BLOCK: usize = 16 * 1024;
    const FILE: u64 = 4 * 1024 * 1024;
    let path = dir.join("bare-flush.probe");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .read(true)
        .write(true)
        .open(&path)?;
    file.set_len(FILE)?;
    file.sync_all()?;
    let block = vec![0x5au8; BLOCK];
    let mut took = Vec::new();
    let start = Instant::now();
    let mut offset = 0u64;
    while start.elapsed().as_secs_f64() < seconds {
        file.write_all_at(&block, offset)?;
        offset = (offset + BLOCK as u64) % FILE;
        let began = Instant::now();
        file.sync_data()?;
        took.push(began.elapsed().as_secs_f64() * 1000.0);
    }
    let elapsed = start.elapsed().as_secs_f64();
    drop(file);
    std::fs::remove_file(&path)?;
    let stalled_ms = took.iter().map(|ms| (ms - ACK_TARGET_MS).max(0.0)).sum();
    took.sort_by(f64::total_cmp);
    Ok(BareFlushes {
        seconds: elapsed,
        flushes_per_second: took.len() as f64 / elapsed,
        p99_ms: percentile(&took, 0.99),
        max_ms: took.last().copied().unwrap_or(0.0),
        stalled_ms,
    })
}
