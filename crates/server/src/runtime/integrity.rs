//! Game integrity monitoring at the tables: each table's running tests
//! (`croupier_math::monitor`) over the pockets of its finished rounds, read
//! in order from the recall archive.
//!
//! Derived, like the archive: nothing here is journaled or kept on disk. A
//! table's monitor is built when the pit first reads the table's report or
//! its integrity after a start, and brought up to date at each read from the
//! rounds archived since. The monitor is a pure function of the results in
//! order and alarms only at fixed counts of results (its looks), so however
//! late it is read it raises the same alarms at the same results; a read
//! only decides when the pit sees them. A new alarm is also written to the
//! server's log (`WARN`).
//!
//! Per table: the server knows a wheel only as its table's, so a wheel moved
//! to another table starts again there, and a table whose wheel is replaced
//! (or whose archive is lost) carries the old wheel's counts until the next
//! start.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use croupier_core::{Pocket, Wheel};
use croupier_math::monitor::{self, ArcReading, Monitor, Reading};

use super::archive::Archive;
use crate::api::integrity::{ArcView, IntegrityAlarm, IntegrityStatus, LookView, TableIntegrity, TestView};

/// Rounds read from the archive in one query.
pub const INTEGRITY_READ_ROUNDS: usize = 10_000;

/// Every table's monitor.
#[derive(Default)]
pub struct Integrity {
    tables: Mutex<HashMap<String, Arc<Mutex<Watch>>>>,
}

/// One table's monitor and how far it has read.
struct Watch {
    wheel: Wheel,
    order: Vec<Pocket>,
    /// Each pocket's position in `order`, by the pocket's index.
    position: HashMap<Pocket, usize>,
    monitor: Monitor,
    rounds: u64,
    last_round: Option<u64>,
    rounds_without_result: u64,
    /// The round of each look's last result, by look.
    look_rounds: Vec<u64>,
}

impl Watch {
    fn new(wheel: Wheel) -> Result<Watch, String> {
        let order = monitor::monitored_order(wheel);
        let monitor = Monitor::new(order.len()).map_err(|e| format!("{}: {e}", wheel.name()))?;
        Ok(Watch {
            wheel,
            position: order.iter().enumerate().map(|(i, &p)| (p, i)).collect(),
            order,
            monitor,
            rounds: 0,
            last_round: None,
            rounds_without_result: 0,
            look_rounds: Vec::new(),
        })
    }

    /// Reads the rounds archived since the last read, in order.
    fn catch_up(&mut self, archive: &Archive, table: &str) -> Result<(), String> {
        loop {
            let rounds = archive.after(table, self.last_round, INTEGRITY_READ_ROUNDS)?;
            let read = rounds.len();
            for r in rounds {
                self.rounds += 1;
                self.last_round = Some(r.round);
                let Some(label) = r.pocket.as_deref() else {
                    self.rounds_without_result += 1;
                    continue;
                };
                let position = Pocket::parse(label)
                    .and_then(|p| self.position.get(&p).copied())
                    .ok_or_else(|| format!("round {table}/{}: {label:?} is not a pocket of its wheel", r.round))?;
                let alarms_before = self.monitor.alarms().len();
                let looked = self.monitor.record(position).map_err(|e| e.to_string())?.is_some();
                if looked {
                    self.look_rounds.push(r.round);
                }
                for alarm in &self.monitor.alarms()[alarms_before..] {
                    tracing::warn!(
                        table,
                        round = r.round,
                        test = alarm.test.name(),
                        spins = alarm.spins,
                        p_value = alarm.reading.p_value,
                        "game integrity alarm: {}",
                        alarm_text(&self.order, alarm.test, &alarm.reading)
                    );
                }
            }
            if read < INTEGRITY_READ_ROUNDS {
                return Ok(());
            }
        }
    }

    fn arc(&self, a: &ArcReading) -> ArcView {
        let k = self.order.len();
        ArcView {
            start: a.start,
            pockets: (0..a.width)
                .map(|i| self.order[(a.start + i) % k].label().to_string())
                .collect(),
            count: a.count,
            expected: a.expected,
        }
    }

    fn test(&self, r: &Reading) -> TestView {
        TestView {
            test: r.test.name().to_string(),
            description: r.test.description().to_string(),
            counted: r.counted,
            statistic: r.statistic,
            degrees_of_freedom: r.degrees_of_freedom,
            p_value: r.p_value,
            arc: r.arc.as_ref().map(|a| self.arc(a)),
        }
    }

    fn alarms(&self) -> Vec<IntegrityAlarm> {
        self.monitor
            .alarms()
            .iter()
            .map(|a| IntegrityAlarm {
                test: a.test.name().to_string(),
                text: alarm_text(&self.order, a.test, &a.reading),
                look: a.look,
                spins: a.spins,
                round: self.look_rounds.get(a.look as usize).copied().unwrap_or(0),
                p_value: a.reading.p_value,
                threshold: croupier_math::to_f64(monitor::look_threshold(a.look)),
                arc: a.reading.arc.as_ref().map(|r| self.arc(r)),
            })
            .collect()
    }

    fn view(&self, table: &str) -> TableIntegrity {
        let m = &self.monitor;
        let (num, den) = monitor::FALSE_ALARM;
        let df = m.pockets() as u32 - 1;
        TableIntegrity {
            table: table.to_string(),
            wheel: self.wheel.name().to_string(),
            pockets: self.order.iter().map(|p| p.label().to_string()).collect(),
            rounds: self.rounds,
            last_round: self.last_round,
            rounds_without_result: self.rounds_without_result,
            spins: m.spins(),
            counts: m.counts().to_vec(),
            distances: m.distances().to_vec(),
            sector_pockets: m.sector_width(),
            false_alarm: format!("{num}/{den}"),
            next_look: m.next_look().map(|(_, at)| at),
            next_threshold: m
                .next_look()
                .map(|(j, _)| croupier_math::to_f64(monitor::look_threshold(j))),
            tests: m.readings().iter().map(|r| self.test(r)).collect(),
            looks: m
                .looks()
                .iter()
                .zip(&self.look_rounds)
                .map(|(l, &round)| {
                    let threshold = croupier_math::to_f64(l.threshold);
                    LookView {
                        index: l.index,
                        spins: l.spins,
                        round,
                        threshold,
                        threshold_fraction: croupier_math::fraction_text(l.threshold),
                        chi_square_critical: monitor::chi_square_critical(threshold, df),
                        p_values: l.readings.iter().map(|r| r.p_value).collect(),
                    }
                })
                .collect(),
            alarms: self.alarms(),
        }
    }
}

/// A p-value as the pit reads it: below what a double holds, said so.
fn p_text(p: f64) -> String {
    if p < 1e-300 {
        "p below 1e-300".to_string()
    } else {
        format!("p = {p:.2e}")
    }
}

/// What an alarm means, for the pit.
fn alarm_text(order: &[Pocket], test: monitor::Test, r: &Reading) -> String {
    let arc = |a: &ArcReading| {
        let k = order.len();
        let pockets: Vec<&str> = (0..a.width).map(|i| order[(a.start + i) % k].label()).collect();
        let side = if a.count as f64 > a.expected { "more" } else { "fewer" };
        (pockets.join(", "), side, a.count, a.expected)
    };
    match (test, &r.arc) {
        (monitor::Test::Pocket, Some(a)) => {
            let (pocket, side, count, expected) = arc(a);
            format!("pocket {pocket} came up {count} times in {} results, {side} than the {expected:.1} a fair wheel gives ({})", r.counted, p_text(r.p_value))
        }
        (monitor::Test::Sectors, Some(a)) => {
            let (pockets, side, count, expected) = arc(a);
            format!("the sector {pockets} came up {count} times in {} results, {side} than the {expected:.1} a fair wheel gives: a tilted wheel or a worn sector ({})", r.counted, p_text(r.p_value))
        }
        (monitor::Test::Signature, _) => format!(
            "the distance from the previous pocket is not uniform: chi-square {:.1} on {} degrees of freedom over {} pairs of successive results, a dealer's signature ({})",
            r.statistic,
            r.degrees_of_freedom.unwrap_or(0),
            r.counted,
            p_text(r.p_value)
        ),
        _ => format!(
            "the pockets are not equally likely: chi-square {:.1} on {} degrees of freedom over {} results ({})",
            r.statistic,
            r.degrees_of_freedom.unwrap_or(0),
            r.counted,
            p_text(r.p_value)
        ),
    }
}

impl Integrity {
    fn watch(&self, table: &str, wheel: Wheel) -> Result<Arc<Mutex<Watch>>, String> {
        let mut tables = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(w) = tables.get(table) {
            let same = w.lock().unwrap_or_else(|e| e.into_inner()).wheel == wheel;
            if same {
                return Ok(w.clone());
            }
        }
        let w = Arc::new(Mutex::new(Watch::new(wheel)?));
        tables.insert(table.to_string(), w.clone());
        Ok(w)
    }

    /// `table`'s monitor, brought up to date from `archive`. Blocks on the
    /// archive: call it off the async workers.
    pub fn read(&self, archive: &Archive, table: &str, wheel: Wheel) -> Result<TableIntegrity, String> {
        let watch = self.watch(table, wheel)?;
        let mut w = watch.lock().unwrap_or_else(|e| e.into_inner());
        w.catch_up(archive, table)?;
        Ok(w.view(table))
    }

    /// What the table's report says: the results counted and the alarms.
    pub fn status(&self, archive: &Archive, table: &str, wheel: Wheel) -> Result<IntegrityStatus, String> {
        let watch = self.watch(table, wheel)?;
        let mut w = watch.lock().unwrap_or_else(|e| e.into_inner());
        w.catch_up(archive, table)?;
        Ok(IntegrityStatus {
            spins: w.monitor.spins(),
            alarms: w.alarms(),
        })
    }
}

#[cfg(test)]
mod tests;
