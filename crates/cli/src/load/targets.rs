//! The server's targets, and how a run stood against them.

use serde::Serialize;

/// An acknowledgement later than this misses the server's target for its p99.
pub const ACK_TARGET_MS: f64 = 50.0;
/// The durable bets a second the server's target asks for.
pub const RATE_TARGET: f64 = 20_000.0;
/// Every terminal's settlement message within this long of a round's result.
pub const SETTLEMENT_TARGET_MS: f64 = 100.0;
/// The machine and the load the targets are stated for.
pub const TARGET_TERMINALS: usize = 1_000;
pub const TARGET_CORES: usize = 2;

/// One of the server's targets, and how the run stood against it.
#[derive(Serialize, Debug, PartialEq)]
pub(super) struct Target {
    pub(super) target: &'static str,
    pub(super) measured: f64,
    pub(super) met: bool,
}

/// The run against the targets: the durable bets a second, the p99 of the
/// acknowledgements, and the slowest round's settlement (from its result to
/// the last terminal's settlement message).
pub(super) fn targets(bets_per_second: f64, ack_p99_ms: f64, settlement_max_ms: f64) -> [Target; 3] {
    [
        Target {
            target: "at least 20,000 durable bets a second",
            measured: bets_per_second,
            met: bets_per_second >= RATE_TARGET,
        },
        Target {
            target: "acknowledgement p99 under 50 ms",
            measured: ack_p99_ms,
            met: ack_p99_ms < ACK_TARGET_MS,
        },
        Target {
            target: "every round settled at every terminal within 100 ms of its result",
            measured: settlement_max_ms,
            met: settlement_max_ms <= SETTLEMENT_TARGET_MS,
        },
    ]
}
