//! Time, from one clock the whole server shares. The casino refuses a
//! request whose time is before its table's last: a clock that went back
//! (an NTP step) would refuse every bet, and one behind the journal would
//! stop the server from starting. So the server's clock never goes back and
//! never falls behind the journal's last time.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch, never less than the last time it said.
pub trait Clock: Send + Sync + 'static {
    fn now_ms(&self) -> u64;
}

/// The machine's clock, kept from going back: it follows the wall clock
/// forward, and when the wall clock steps back it goes on from where it was
/// at the pace of the monotonic clock until the wall clock catches up.
pub struct WallClock {
    /// The time given at `started`, and the monotonic instant it was given at.
    start_ms: u64,
    started: Instant,
    last: AtomicU64,
}

fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl WallClock {
    /// A clock that starts no earlier than `floor_ms` (the journal's last time).
    pub fn after(floor_ms: u64) -> WallClock {
        let start_ms = wall_ms().max(floor_ms);
        WallClock {
            start_ms,
            started: Instant::now(),
            last: AtomicU64::new(start_ms),
        }
    }

    fn at(&self, wall: u64) -> u64 {
        let steady = self.start_ms + self.started.elapsed().as_millis() as u64;
        let now = wall.max(steady);
        self.last.fetch_max(now, Ordering::SeqCst).max(now)
    }
}

impl Clock for WallClock {
    fn now_ms(&self) -> u64 {
        self.at(wall_ms())
    }
}

/// A clock that moves only when told, for tests and simulations.
#[derive(Default)]
pub struct SimClock {
    now: AtomicU64,
}

impl SimClock {
    pub fn at(ms: u64) -> SimClock {
        SimClock {
            now: AtomicU64::new(ms),
        }
    }

    pub fn advance(&self, ms: u64) {
        self.now.fetch_add(ms, Ordering::SeqCst);
    }
}

impl Clock for SimClock {
    fn now_ms(&self) -> u64 {
        self.now.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_never_goes_back_nor_starts_behind_the_journal() {
        // The journal's last entry is an hour ahead of the wall clock.
        let hour = 3_600_000;
        let ahead = wall_ms() + hour;
        let clock = WallClock::after(ahead);
        assert!(clock.now_ms() >= ahead);
        // The wall clock steps back a day: the clock goes on from where it was.
        let before = clock.now_ms();
        assert!(clock.at(before - 24 * hour) >= before);
        // And forward: it follows.
        assert_eq!(clock.at(before + 2 * hour), before + 2 * hour);
        assert!(clock.at(before) >= before + 2 * hour, "and never comes back from there");
    }
}
