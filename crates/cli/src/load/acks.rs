//! How the run counts the answers to its bets: each acknowledgement with
//! when it was due and how long it took, whether the slow ones came with
//! the whole run behind, and the refusals by reason.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::Serialize;

/// One acknowledged bet: when it was due, in seconds from the start of the
/// run, and how long its acknowledgement took from then.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Ack {
    pub(super) at: f64,
    pub(super) ms: f64,
}

impl Ack {
    pub(super) fn of(start: Instant, due: Instant) -> Ack {
        Ack {
            at: due.saturating_duration_since(start).as_secs_f64(),
            ms: due.elapsed().as_secs_f64() * 1000.0,
        }
    }
}

/// Every terminal's acknowledged bets.
pub(super) type Acks = Arc<Mutex<Vec<Ack>>>;

/// The windows the run's acknowledgements are grouped in by when the bets were due.
pub const ACK_WINDOW_SECONDS: f64 = 0.1;

/// Whether slow acknowledgements came one by one or with the whole run
/// behind: the windows of the run (those with a bet acknowledged) in which
/// the median bet waited longer than the target, and the share of the slow
/// bets that fell in them. A p99 made by such windows is the machine falling
/// behind the offered load (a queue that builds and drains), not a few bets
/// held up.
#[derive(Serialize, Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Behind {
    pub(super) windows: u64,
    pub(super) windows_behind: u64,
    /// Of the bets acknowledged after more than the target, the share in those windows.
    pub(super) slow_share_in_behind: f64,
}

impl Behind {
    pub(super) fn of(acks: &[Ack], window_seconds: f64, limit_ms: f64) -> Behind {
        let window = |a: &Ack| (a.at / window_seconds) as u64;
        let mut windows: std::collections::BTreeMap<u64, Vec<f64>> = std::collections::BTreeMap::new();
        for a in acks {
            windows.entry(window(a)).or_default().push(a.ms);
        }
        let mut behind = std::collections::BTreeSet::new();
        for (&w, times) in windows.iter_mut() {
            times.sort_by(f64::total_cmp);
            if percentile(times, 0.5) > limit_ms {
                behind.insert(w);
            }
        }
        let (slow, in_behind) = acks
            .iter()
            .filter(|a| a.ms > limit_ms)
            .fold((0u64, 0u64), |(slow, in_behind), a| {
                (slow + 1, in_behind + u64::from(behind.contains(&window(a))))
            });
        Behind {
            windows: windows.len() as u64,
            windows_behind: behind.len() as u64,
            slow_share_in_behind: if slow == 0 { 0.0 } else { in_behind as f64 / slow as f64 },
        }
    }
}

pub(super) fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// Refused bets by reason.
#[derive(Default)]
pub(super) struct Refused {
    pub(super) betting_closed: AtomicU64,
    pub(super) other: AtomicU64,
}

impl Refused {
    pub(super) fn count(&self, code: Option<&str>) {
        // After no more bets a bet is past posting; between a result and the next
        // round's opening there is no betting to join; a terminal betting as fast
        // as it is answered may place its player's whole share of a long round.
        let counter = match code {
            Some("past_posting" | "betting_not_open" | "too_many_bets") => &self.betting_closed,
            _ => &self.other,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }
}
