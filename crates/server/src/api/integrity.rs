//! Game integrity monitoring as the pit reads it: a table's running tests of
//! its results (`croupier_math::monitor`), their looks and their alarms.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// An arc of the wheel: its pockets clockwise, what fell in it and what a
/// fair wheel would have given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ArcView {
    /// Its first pocket's position in wheel order (`pockets` of [`TableIntegrity`]).
    pub start: usize,
    pub pockets: Vec<String>,
    pub count: u64,
    /// `results * pockets / k`.
    pub expected: f64,
}

/// One test read on the results so far.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct TestView {
    /// `pockets`, `pocket`, `sectors` or `signature`.
    pub test: String,
    pub description: String,
    /// Results counted (the signature counts distances: one fewer).
    pub counted: u64,
    /// Pearson's chi-square, or the extreme arc's count.
    pub statistic: f64,
    /// The chi-square tests' degrees of freedom.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub degrees_of_freedom: Option<u32>,
    pub p_value: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arc: Option<ArcView>,
}

/// A look: every test read at `spins` results, each against `threshold`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct LookView {
    pub index: u32,
    pub spins: u64,
    /// The round whose result was the look's last.
    pub round: u64,
    /// The p-value at or below which a test alarms at this look, and its
    /// exact fraction (`1/8000`).
    pub threshold: f64,
    pub threshold_fraction: String,
    /// The chi-square value a chi-square test's statistic alarms at.
    pub chi_square_critical: f64,
    /// Each test's p-value, in the order of `tests` of [`TableIntegrity`].
    pub p_values: Vec<f64>,
}

/// A test's first alarm: it stays raised.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct IntegrityAlarm {
    pub test: String,
    /// What the alarm means, in a sentence, for the pit.
    pub text: String,
    pub look: u32,
    pub spins: u64,
    pub round: u64,
    pub p_value: f64,
    pub threshold: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arc: Option<ArcView>,
}

/// What a table's report says of its monitor.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct IntegrityStatus {
    /// Results the monitor has counted.
    pub spins: u64,
    pub alarms: Vec<IntegrityAlarm>,
}

/// A table's game integrity monitor. Kept per table: the server knows a
/// wheel only as its table's (an automated wheel by its address, which may
/// change), so a wheel moved to another table starts again there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct TableIntegrity {
    pub table: String,
    pub wheel: String,
    /// The pockets counted, clockwise in wheel order (a ball in a pocket that
    /// voids the spin is in no round's record, and is left out).
    pub pockets: Vec<String>,
    /// Rounds read, the newest round read, and of those rounds the ones
    /// without a result (no spin, void).
    pub rounds: u64,
    pub last_round: Option<u64>,
    pub rounds_without_result: u64,
    /// Results counted.
    pub spins: u64,
    /// Each pocket's count, in wheel order.
    pub counts: Vec<u64>,
    /// Each clockwise distance's count, from 0 (the same pocket again).
    pub distances: Vec<u64>,
    /// The sector scan's arc width, in pockets.
    pub sector_pockets: usize,
    /// The chance a fair wheel ever alarms, all tests and looks together (`1/1000`).
    pub false_alarm: String,
    /// The results at which the next look comes, and its threshold.
    pub next_look: Option<u64>,
    pub next_threshold: Option<f64>,
    pub tests: Vec<TestView>,
    pub looks: Vec<LookView>,
    pub alarms: Vec<IntegrityAlarm>,
}
