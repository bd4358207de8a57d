//! The server's counters and the journal's flush times, in the Prometheus
//! (OpenMetrics) text format, through `prometheus-client`.

use std::time::Duration;

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

/// The upper bounds, in seconds, of the buckets the journal's flush times
/// are counted in: fine where a flush holds up acknowledgements (tens to
/// hundreds of milliseconds).
pub const FLUSH_BUCKETS_SECONDS: [f64; 22] = [
    0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.075, 0.1, 0.125, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5,
    0.75, 1.0, 2.0,
];

/// How long each of the committer's writes took, its entries written and
/// flushed to disk: every answer in it waited that long.
#[derive(Clone, Debug)]
pub struct FlushTimes(Histogram);

impl Default for FlushTimes {
    fn default() -> FlushTimes {
        FlushTimes(Histogram::new(FLUSH_BUCKETS_SECONDS))
    }
}

impl FlushTimes {
    pub fn record(&self, took: Duration) {
        self.0.observe(took.as_secs_f64());
    }
}

/// Everything `/metrics` shows.
pub struct Metrics {
    registry: Registry,
    pub requests: Counter,
    pub refused: Counter,
    pub bets_accepted: Counter,
    pub rounds_settled: Counter,
    pub logins_failed: Counter,
    /// Connections held now, table streams included.
    pub connections: Gauge,
    /// The table streams' channels that exist now: one per key a socket listens to.
    pub stream_channels: Gauge,
}

impl Metrics {
    pub fn new(flushes: &FlushTimes) -> Metrics {
        let mut registry = Registry::default();
        let [requests, refused, bets_accepted, rounds_settled, logins_failed] =
            std::array::from_fn(|_| Counter::default());
        for (name, help, counter) in [
            ("croupier_requests", "Requests executed or refused.", &requests),
            ("croupier_requests_refused", "Requests refused.", &refused),
            ("croupier_bets_accepted", "Bets accepted and durable.", &bets_accepted),
            ("croupier_rounds_settled", "Rounds settled.", &rounds_settled),
            (
                "croupier_logins_failed",
                "Logins refused for a wrong password.",
                &logins_failed,
            ),
        ] {
            registry.register(name, help, counter.clone());
        }
        let (connections, stream_channels) = (Gauge::default(), Gauge::default());
        registry.register(
            "croupier_connections",
            "Connections held now, table streams included.",
            connections.clone(),
        );
        registry.register(
            "croupier_stream_channels",
            "Table stream channels that exist now.",
            stream_channels.clone(),
        );
        registry.register(
            "croupier_journal_flush_seconds",
            "Time to write a group of journal entries and flush it to disk; every answer in the group waited for it.",
            flushes.0.clone(),
        );
        Metrics {
            registry,
            requests,
            refused,
            bets_accepted,
            rounds_settled,
            logins_failed,
            connections,
            stream_channels,
        }
    }

    /// Everything, in the OpenMetrics text format.
    pub fn text(&self) -> String {
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = encode(&mut out, &self.registry);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flush_times_count_each_write_in_its_bucket_cumulatively() {
        let times = FlushTimes::default();
        let metrics = Metrics::new(&times);
        times.record(Duration::from_micros(300));
        times.record(Duration::from_millis(50));
        times.record(Duration::from_millis(51));
        times.record(Duration::from_secs(3));
        let text = metrics.text();
        let value = |line: &str| -> f64 {
            text.lines()
                .find_map(|l| l.strip_prefix(line))
                .and_then(|n| n.trim().parse().ok())
                .unwrap_or_else(|| panic!("no {line} in {text}"))
        };
        let bucket = |le: &str| value(&format!("croupier_journal_flush_seconds_bucket{{le=\"{le}\"}} "));
        assert_eq!(bucket("0.0005"), 1.0);
        // A bound is inclusive: 50 ms is in the 0.05 bucket, 51 ms in the next.
        assert_eq!(bucket("0.05"), 2.0);
        assert_eq!(bucket("0.06"), 3.0);
        assert_eq!(bucket("2.0"), 3.0);
        assert_eq!(bucket("+Inf"), 4.0);
        assert_eq!(value("croupier_journal_flush_seconds_count "), 4.0);
        assert!(
            (value("croupier_journal_flush_seconds_sum ") - 3.1013).abs() < 1e-9,
            "{text}"
        );
        assert!(text.contains("# TYPE croupier_journal_flush_seconds histogram\n"));
        metrics.bets_accepted.inc();
        assert!(metrics.text().contains("croupier_bets_accepted_total 1\n"));
    }
}
