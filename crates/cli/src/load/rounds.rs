//! The dealers' rounds: each table's dealer opens betting, closes it and
//! has the RNG draw the result until the run stops, and the run notes when
//! each round's result and the end of its settlement reach the terminals.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::http::Conn;

/// How long each table's first round stays open for bets. Every table opens
/// at the start of the run; unless `aligned`, each first round stays open a
/// share of a window longer than the previous table's, so that the tables'
/// rounds end spread evenly over one window, as independent tables' would,
/// with no table closed for longer than the others.
pub(super) fn first_windows(tables: usize, window_ms: u64, aligned: bool) -> Vec<Duration> {
    (0..tables)
        .map(|i| match aligned {
            true => Duration::from_millis(window_ms),
            false => Duration::from_millis(window_ms + window_ms * i as u64 / tables as u64),
        })
        .collect()
}

/// A round's table, number, and when the dealer asked for its result.
pub(super) type Asked = (String, u64, Instant);

/// When a round's result (true) or its end of settlement (false) reached a terminal.
pub(super) type Settlements = Arc<Mutex<Vec<(String, u64, Instant, bool)>>>;

/// Notes the arrival of a round's result or of its end of settlement.
pub(super) fn note_round(text: &str, table: &str, seen: &Settlements) {
    let result = text.starts_with("{\"type\":\"result\"");
    if !result && !text.contains("\"round_settled\"") {
        return;
    }
    let v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    let round = v["round"].as_u64().unwrap_or(0);
    if let Ok(mut s) = seen.lock() {
        s.push((table.to_string(), round, Instant::now(), result));
    }
}

/// A table's dealer, running its rounds until the run stops.
pub(super) struct Dealer {
    pub(super) conn: Conn,
    pub(super) token: String,
    pub(super) table: String,
    /// How long the first round stays open: see [`first_windows`].
    pub(super) first: Duration,
    pub(super) window_ms: u64,
    pub(super) stop: Arc<AtomicBool>,
    /// Each round the dealer asked the result of.
    pub(super) results: Arc<Mutex<Vec<Asked>>>,
}

impl Dealer {
    pub(super) async fn run(self) {
        let Dealer {
            mut conn,
            token,
            table: t,
            first,
            window_ms: window,
            stop,
            results,
        } = self;
        let mut open_for = first;
        while !stop.load(Ordering::Relaxed) {
            let Ok((200, opened)) = conn
                .call(
                    "POST",
                    "/api/requests",
                    Some(&token),
                    Some(&json!({"op": "open_betting", "table": t})),
                )
                .await
            else {
                break;
            };
            let round = opened["events"][0]["round"].as_u64().unwrap_or(0);
            tokio::time::sleep(open_for).await;
            open_for = Duration::from_millis(window);
            let _ = conn
                .call(
                    "POST",
                    "/api/requests",
                    Some(&token),
                    Some(&json!({"op": "no_more_bets", "table": t})),
                )
                .await;
            let asked = Instant::now();
            if let Ok((200, _)) = conn
                .call("POST", &format!("/api/tables/{t}/draw"), Some(&token), None)
                .await
            {
                if let Ok(mut r) = results.lock() {
                    r.push((t.clone(), round, asked));
                }
            }
        }
    }
}

/// Each round's last settlement message at a terminal, in milliseconds and
/// sorted: timed from the round's result first seen at a terminal (the
/// fan-out), and from the dealer asking for it (the whole).
pub(super) fn settlement_times(results: &[Asked], settled: &[(String, u64, Instant, bool)]) -> (Vec<f64>, Vec<f64>) {
    // The last terminal's settlement of each round, timed from `since`: the first
    // terminal to see the result (the result is out, durable, with its settlement),
    // or the dealer asking for it (queue, draw, settlement, commit and fan-out).
    let last_settlement = |since: &dyn Fn(&Asked) -> Option<Instant>| -> Vec<f64> {
        let mut times: Vec<f64> = results
            .iter()
            .filter_map(|r| {
                let from = since(r)?;
                settled
                    .iter()
                    .filter(|(t, round, _, result)| *t == r.0 && *round == r.1 && !result)
                    .map(|(_, _, when, _)| when.saturating_duration_since(from).as_secs_f64() * 1000.0)
                    .reduce(f64::max)
            })
            .collect();
        times.sort_by(f64::total_cmp);
        times
    };
    let fanout = last_settlement(&|r| {
        settled
            .iter()
            .filter(|(t, round, _, result)| *t == r.0 && *round == r.1 && *result)
            .map(|(_, _, when, _)| *when)
            .min()
    });
    let whole = last_settlement(&|r| Some(r.2));
    (fanout, whole)
}
