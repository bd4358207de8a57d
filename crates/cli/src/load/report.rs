//! The run's report: its figures as JSON, or as a person reads them, a
//! line a figure, each beside the limit or the target it is measured against.

use std::io::Write;

use serde::Serialize;

use super::acks::{Behind, ACK_WINDOW_SECONDS};
use super::disk::{disk_verdict, BareFlushes, JournalFlushes};
use super::machine::{CpuShares, ProcessorSpeed, ServerMemory, SPEED_PROBE_BETS};
use super::targets::{Target, ACK_TARGET_MS, TARGET_CORES, TARGET_TERMINALS};
use super::Via;

#[derive(Serialize)]
pub(super) struct Report {
    pub(super) via: Via,
    pub(super) tables: usize,
    pub(super) terminals: usize,
    /// Offered bets per second (open loop), or none (closed loop).
    pub(super) offered_rate: Option<f64>,
    /// Whether every table's rounds ran at the same moments (`--aligned`).
    pub(super) aligned: bool,
    pub(super) seconds: f64,
    pub(super) bets_accepted: u64,
    pub(super) bets_per_second: f64,
    /// Bets refused because betting was closed to the terminal when they
    /// arrived: between rounds, or its player's share of the round placed.
    pub(super) bets_refused_betting_closed: u64,
    /// Bets refused for any other reason (none are expected).
    pub(super) bets_refused_other: u64,
    pub(super) ack_p50_ms: f64,
    pub(super) ack_p99_ms: f64,
    /// How the slow acknowledgements fell over the run.
    pub(super) ack_behind: Behind,
    pub(super) rounds: u64,
    /// From the first terminal seeing a round's result to the last seeing its settlement end.
    pub(super) settlement_fanout_p50_ms: f64,
    pub(super) settlement_fanout_max_ms: f64,
    /// From the dealer asking for the result to the last terminal's settlement message.
    pub(super) settlement_whole_p50_ms: f64,
    pub(super) settlement_whole_max_ms: f64,
    pub(super) echo_messages_per_second: f64,
    pub(super) echo_p99_ms: f64,
    /// The server's journal writes during the run, from its `/metrics`.
    pub(super) journal: JournalFlushes,
    /// A bare write-and-flush loop on the same disk after the run.
    pub(super) bare_flush: BareFlushes,
    /// Where the machine's processor time went during the run (Linux only).
    pub(super) cpu: Option<CpuShares>,
    /// The server's resident memory over the run (Linux only): whether
    /// what it holds grows with the bets it has taken.
    pub(super) server_memory: Option<ServerMemory>,
    /// How fast one core of the machine was, just before and just after the run.
    pub(super) processor: ProcessorSpeed,
    /// The run against the server's targets (stated for `TARGET_TERMINALS`
    /// terminals on `TARGET_CORES` cores, with the load generator beside the server).
    pub(super) targets: [Target; 3],
}

/// The report as a person reads it.
pub(super) fn write_text(out: &mut impl Write, report: &Report) -> std::io::Result<()> {
    write_load(out, report)?;
    write_answers(out, report)?;
    write_disk(out, report)?;
    write_machine(out, report)?;
    write_targets(out, report)
}

/// The load: how many terminals and tables, how they bet, how the rounds ran.
fn write_load(out: &mut impl Write, report: &Report) -> std::io::Result<()> {
    writeln!(
        out,
        "{} terminals at {} tables for {:.1} s, over loopback",
        report.terminals, report.tables, report.seconds
    )?;
    writeln!(
        out,
        "bets sent {}",
        match report.via {
            Via::Websocket => "over each terminal's WebSocket",
            Via::Http => "as HTTP requests",
        }
    )?;
    match report.offered_rate {
        Some(rate) => writeln!(
            out,
            "offered: {rate:.0} bets per second on a fixed schedule (open loop)"
        )?,
        None => writeln!(out, "offered: each terminal bets again on its answer (closed loop)")?,
    }
    writeln!(
        out,
        "{}",
        match report.aligned {
            true => "rounds: every table opens, closes and spins at the same moments (aligned: all settle at once)",
            false => "rounds: each table's rounds end a share of a betting window after the previous table's, as on a casino floor (--aligned: all at once)",
        }
    )?;
    Ok(())
}

/// How the bets were answered and the rounds settled, beside the bare echo's.
fn write_answers(out: &mut impl Write, report: &Report) -> std::io::Result<()> {
    writeln!(
        out,
        "durable bets accepted: {} ({:.0} per second)",
        report.bets_accepted, report.bets_per_second
    )?;
    writeln!(
        out,
        "refused: {} while betting was closed (between rounds, or the player's share of the round placed), {} for other reasons",
        report.bets_refused_betting_closed, report.bets_refused_other
    )?;
    writeln!(
        out,
        "acknowledgement latency: p50 {:.2} ms, p99 {:.2} ms",
        report.ack_p50_ms, report.ack_p99_ms
    )?;
    let behind = report.ack_behind;
    writeln!(
        out,
        "acknowledgements over the run: in {} of {} windows of {:.0} ms the median bet waited over {ACK_TARGET_MS} ms (the run behind the offered load, a queue building and draining); they hold {:.0}% of the bets that waited that long",
        behind.windows_behind,
        behind.windows,
        ACK_WINDOW_SECONDS * 1000.0,
        behind.slow_share_in_behind * 100.0
    )?;
    writeln!(
        out,
        "result to the last terminal's settlement message: p50 {:.2} ms, max {:.2} ms over {} rounds",
        report.settlement_fanout_p50_ms, report.settlement_fanout_max_ms, report.rounds
    )?;
    writeln!(
        out,
        "the dealer asking for the result to the last settlement message: p50 {:.2} ms, max {:.2} ms",
        report.settlement_whole_p50_ms, report.settlement_whole_max_ms
    )?;
    writeln!(
        out,
        "bare WebSocket echo, same machine, {} clients: {:.0} messages per second, p99 {:.2} ms",
        report.terminals, report.echo_messages_per_second, report.echo_p99_ms
    )?;
    Ok(())
}

/// The journal's writes during the run, beside the bare loop's on the same disk.
fn write_disk(out: &mut impl Write, report: &Report) -> std::io::Result<()> {
    let j = &report.journal;
    writeln!(
        out,
        "journal writes, same run: {}, p50 at most {} ms, p99 at most {} ms, slowest over {} ms",
        j.flushes, j.p50_ms_at_most, j.p99_ms_at_most, j.slowest_ms_over
    )?;
    let stalled_share = j.stalled_ms_at_least / (report.seconds * 1000.0);
    writeln!(
        out,
        "at least {:.0} ms of the run ({:.1}%) lay {ACK_TARGET_MS} ms or more before the end of a journal write: a bet arriving then waited at least {ACK_TARGET_MS} ms",
        j.stalled_ms_at_least,
        100.0 * stalled_share
    )?;
    if report.ack_p99_ms > ACK_TARGET_MS {
        writeln!(out, "{}", disk_verdict(stalled_share))?;
    }
    let b = &report.bare_flush;
    writeln!(
        out,
        "bare write-and-flush loop, same disk, after the run: {:.0} flushes per second, p99 {:.2} ms, slowest {:.0} ms, {:.1}% of {:.0} s lay {ACK_TARGET_MS} ms or more before the end of a flush",
        b.flushes_per_second,
        b.p99_ms,
        b.max_ms,
        100.0 * b.stalled_ms / (b.seconds * 1000.0),
        b.seconds
    )?;
    Ok(())
}

/// The machine: where its processor time went, the server's memory, a core's speed.
fn write_machine(out: &mut impl Write, report: &Report) -> std::io::Result<()> {
    match &report.cpu {
        Some(c) => writeln!(
            out,
            "the machine's {} cores during the run: {:.0}% busy (the server {:.2} cores, this load generator {:.2}), {:.0}% idle, {:.0}% taken by the virtual machine's host (steal)",
            c.cores,
            100.0 * c.busy,
            c.server_cores,
            c.generator_cores,
            100.0 * c.idle,
            100.0 * c.steal
        )?,
        None => writeln!(out, "the machine's processor time during the run: not measured (no /proc)")?,
    }
    if let Some(m) = &report.server_memory {
        let tenths: Vec<String> = m
            .tenths
            .iter()
            .map(|b| format!("{:.0}", crate::history::mib(*b)))
            .collect();
        writeln!(
            out,
            "the server's resident memory at each tenth of the run: {} MiB; its peak {:.0} MiB",
            tenths.join(", "),
            crate::history::mib(m.peak_bytes)
        )?;
    }
    writeln!(
        out,
        "the machine's speed: one core wrote and read back {SPEED_PROBE_BETS} bets as JSON in {:.0} ms before the run and {:.0} ms after (the same work: more time, a slower machine)",
        report.processor.before_ms, report.processor.after_ms
    )?;
    Ok(())
}

/// The run against the targets.
fn write_targets(out: &mut impl Write, report: &Report) -> std::io::Result<()> {
    let cores = report.cpu.as_ref().map(|c| c.cores);
    let stated = if report.terminals == TARGET_TERMINALS && cores == Some(TARGET_CORES) {
        String::new()
    } else {
        let cores = cores.map_or("an unknown number of".to_string(), |c| c.to_string());
        format!(
            " (stated for {TARGET_TERMINALS} terminals on {TARGET_CORES} cores; this run: {} terminals on {cores} cores)",
            report.terminals
        )
    };
    writeln!(out, "the targets{stated}:")?;
    let [rate, ack, settlement] = &report.targets;
    let verdict = |t: &Target| if t.met { "met" } else { "not met" };
    writeln!(
        out,
        "  {}: {} ({:.0} a second)",
        rate.target,
        verdict(rate),
        rate.measured
    )?;
    writeln!(
        out,
        "  {}: {} ({:.2} ms; the bare echo's p99 on the same machine {:.2} ms)",
        ack.target,
        verdict(ack),
        ack.measured,
        report.echo_p99_ms
    )?;
    writeln!(
        out,
        "  {}: {} (the slowest of {} rounds {:.2} ms)",
        settlement.target,
        verdict(settlement),
        report.rounds,
        settlement.measured
    )?;
    Ok(())
}
