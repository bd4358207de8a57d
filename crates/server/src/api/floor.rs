//! The floor overview (`GET /api/floor`): every table at a glance for the
//! pit's supervisors, with what needs them. Its money figures are the
//! table's own books: the float's balance and today's drop and win, each a
//! sum of the ledger's transfers, in minor units.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::request::OutcomeSource;

/// A wager's posted limits at a table, in minor units.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PostedLimit {
    pub kind: String,
    pub inside: bool,
    pub min: Option<u64>,
    pub max: Option<u64>,
}

/// What at a table wants the pit now.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FloorAlerts {
    /// An emergency declared and not lifted: the game stands still.
    pub emergency: bool,
    /// Game integrity alarms the table's monitor has raised (none if it could not be read).
    pub integrity_alarms: u64,
    /// Disputes decided at the table this gaming day.
    pub disputes_today: u64,
    /// Fill and credit slips waiting for the cage's signature.
    pub slips_open: u64,
    /// Why the ball waits for an inspection after a no spin, if it does.
    pub ball_to_inspect: Option<String>,
    /// An external part was replaced and the regulator has not inspected the wheel yet.
    pub awaits_regulator: bool,
    /// The table has not been inspected since it last closed.
    pub not_inspected: bool,
}

/// One table on the floor.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct FloorTable {
    pub table: String,
    pub profile: String,
    /// The jurisdiction whose rules the profile follows, by its document's title.
    pub jurisdiction: String,
    pub wheel: String,
    pub outcome: OutcomeSource,
    pub currency: String,
    /// `closed`, `open`, `betting` or `closed-betting` (no more bets).
    pub phase: String,
    /// When betting closes, while it is open (milliseconds since 1970).
    pub deadline_ms: Option<u64>,
    pub round: u64,
    /// The dealer on duty (the day report's: whoever last opened the table,
    /// opened or closed betting, keyed a spin or asked the RNG's draw).
    pub dealer: Option<String>,
    /// Players seated with colour chips.
    pub players: u64,
    pub limits: Vec<PostedLimit>,
    /// The float's balance now.
    pub float: i64,
    /// Today's drop and win, as the day report gives them.
    pub drop: u64,
    pub win: i64,
    pub rounds_today: u64,
    pub alerts: FloorAlerts,
}

impl FloorTable {
    /// Sets the count of the game integrity monitor's alarms.
    pub fn alarms_counted(&mut self, alarms: usize) {
        self.alerts.integrity_alarms = alarms as u64;
    }
}

/// Every table on the floor, in id order.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct FloorView {
    /// Today's gaming day, `YYYY-MM-DD`.
    pub day: String,
    pub tables: Vec<FloorTable>,
}
