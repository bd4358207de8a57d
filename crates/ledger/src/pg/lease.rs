//! The casino's lease beyond the advisory lock: the row its holder renews
//! every [`LEASE_RENEW_MS`] with the database server's `now()`, what the
//! holder knows of it ([`LeaseWatch`]), and a standby's look at a holder
//! whose row is past its timeout (`pg`'s own documentation says why).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use postgres::Client;

use super::{column, connect_client, said, Backend, PgStorage, LEASE_KEY};
use crate::storage::StorageError;

/// How often the holder renews the lease's row.
pub const LEASE_RENEW_MS: u64 = 1_000;
/// How old the lease's row may grow, by the database server's clock, before
/// a standby ends the holder's connection and takes the casino over
/// (`serve --lease-timeout-ms`). The holder stops writing at half of it.
pub const LEASE_TIMEOUT_MS: u64 = 6_000;
/// The shortest lease timeout a node may be given: a few renewals must fit in its half.
pub const LEASE_TIMEOUT_MS_MIN: u64 = 3_000;
/// The longest lease timeout a node may be given.
pub const LEASE_TIMEOUT_MS_MAX: u64 = 120_000;

/// The longest the lease's renewal runs before it fails and is tried again.
pub const RENEWAL_TIMEOUT_MS: u64 = 2_000;

/// What a holder knows of its lease: when the database last confirmed it,
/// or why it is lost. Shared by the lease's keeper, the writing connection
/// (which commits nothing while in doubt) and the server's health.
pub struct LeaseWatch {
    began: Instant,
    /// When the newest renewal the database confirmed was sent, in ns after `began`.
    confirmed_ns: AtomicU64,
    timeout_ms: u64,
    lost: Mutex<Option<String>>,
}

impl LeaseWatch {
    fn new(timeout_ms: u64, confirmed: Instant) -> LeaseWatch {
        let watch = LeaseWatch {
            began: confirmed,
            confirmed_ns: AtomicU64::new(0),
            timeout_ms,
            lost: Mutex::new(None),
        };
        watch.confirm(confirmed);
        watch
    }

    /// The database confirmed the renewal sent at `sent`. Its time is when
    /// it was sent, not when the answer came: the row's `now()` is later still.
    fn confirm(&self, sent: Instant) {
        let ns = sent.saturating_duration_since(self.began).as_nanos();
        self.confirmed_ns
            .fetch_max(u64::try_from(ns).unwrap_or(u64::MAX), Ordering::SeqCst);
    }

    fn lose(&self, why: String) {
        let mut lost = self.lost.lock().unwrap_or_else(|p| p.into_inner());
        if lost.is_none() {
            *lost = Some(why);
        }
    }

    /// The lease's timeout: a standby may take the casino over once the row is this old.
    pub fn timeout_ms(&self) -> u64 {
        self.timeout_ms
    }

    /// How long the holder goes on without a confirmation: half the timeout,
    /// so that it has stopped writing, and says so, before a standby may act.
    pub fn fence_ms(&self) -> u64 {
        self.timeout_ms / 2
    }

    /// How long ago the newest confirmed renewal was sent.
    pub fn unconfirmed_ms(&self) -> u64 {
        let since = Duration::from_nanos(self.confirmed_ns.load(Ordering::SeqCst));
        let age = self.began.elapsed().saturating_sub(since).as_millis();
        u64::try_from(age).unwrap_or(u64::MAX)
    }

    /// Why this node may no longer write under the lease, if it may not:
    /// the lease is lost, or the database has not confirmed it for longer
    /// than [`LeaseWatch::fence_ms`]. Read from the monotonic clock each
    /// time it is asked, so a process that wakes from a freeze knows at once.
    pub fn doubt(&self) -> Option<String> {
        if let Some(why) = self.lost.lock().unwrap_or_else(|p| p.into_inner()).clone() {
            return Some(why);
        }
        let (age, fence) = (self.unconfirmed_ms(), self.fence_ms());
        (age > fence).then(|| {
            format!(
                "the database has not confirmed this node's lease for {age} ms (a node gives up after {fence} ms, \
                 half the lease's timeout of {} ms): the database is out of reach, or this node was held up; \
                 a standby takes the casino over once the lease is {} ms old",
                self.timeout_ms, self.timeout_ms
            )
        })
    }
}

/// The thread that renews the lease's row, stopped when dropped (it is not
/// waited for: a renewal stuck on a cut network must not hold anything up).
pub(super) struct LeaseKeeper {
    stop: Arc<AtomicBool>,
    pub(super) watch: Arc<LeaseWatch>,
}

impl Drop for LeaseKeeper {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// The renewal: the row is moved on only while it names the writing
/// connection (its process, and when it began) and that connection holds the lock.
const RENEW: &str = "UPDATE lease SET renewed_at = now()
  WHERE id = 1 AND pid = $1
    AND started = (SELECT backend_start FROM pg_stat_activity WHERE pid = $1)
    AND EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = $1
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND ((classid::bigint << 32) | objid::bigint) = $2)";

fn keep_lease(url: &str, shown: &str, writer: i32, watch: &LeaseWatch, stop: &AtomicBool) {
    let mut conn: Option<Client> = None;
    let mut failing = false;
    let mut next = Instant::now();
    loop {
        next += Duration::from_millis(LEASE_RENEW_MS);
        let now = Instant::now();
        match next.checked_duration_since(now) {
            Some(left) => std::thread::sleep(left),
            None => next = now,
        }
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let sent = Instant::now();
        if conn.is_none() {
            conn = connect_client(url, shown, "croupier lease", RENEWAL_TIMEOUT_MS).ok();
        }
        let renewed = conn
            .as_mut()
            .map(|c| c.execute(RENEW, &[&writer, &LEASE_KEY]).map_err(|e| said(&e)));
        match renewed {
            Some(Ok(1)) => {
                watch.confirm(sent);
                failing = false;
            }
            Some(Ok(_)) => {
                watch.lose(format!(
                    "this node lost the casino's lease in {shown}: its writing connection no longer holds it \
                     (ended by the database or by a standby that found the lease past its timeout)"
                ));
                return;
            }
            Some(Err(e)) => {
                if !failing {
                    tracing::warn!("cannot renew the casino's lease in {shown}: {e}; trying again");
                }
                failing = true;
                conn = None;
            }
            None => {
                if !failing {
                    tracing::warn!("cannot reach {shown} to renew the casino's lease; trying again");
                }
                failing = true;
            }
        }
    }
}

impl PgStorage {
    /// Names this connection, which has just taken the lock, in the lease's
    /// row, and starts its renewal. `taken`: when the lock was asked for.
    pub(super) fn hold_lease(&mut self, url: &str, lease_timeout_ms: u64, taken: Instant) -> Result<(), StorageError> {
        // The lease's row names this connection from now on; its keeper renews it.
        self.client.execute(
            "INSERT INTO lease (id, pid, started, renewed_at, timeout_ms)
             SELECT 1, pid, backend_start, now(), $1 FROM pg_stat_activity WHERE pid = pg_backend_pid()
             ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, started = excluded.started,
               renewed_at = excluded.renewed_at, timeout_ms = excluded.timeout_ms",
            &[&(lease_timeout_ms as i64)],
        )?;
        let writer: i32 = self.client.query_one("SELECT pg_backend_pid()", &[])?.get(0);
        let watch = Arc::new(LeaseWatch::new(lease_timeout_ms, taken));
        let stop = Arc::new(AtomicBool::new(false));
        {
            let (url, shown, watch, stop) = (url.to_string(), self.shown.clone(), watch.clone(), stop.clone());
            std::thread::Builder::new()
                .name("lease".into())
                .spawn(move || keep_lease(&url, &shown, writer, &watch, &stop))
                .map_err(|e| StorageError::NotTakenOver(format!("cannot start the lease's renewal: {e}")))?;
        }
        self.keeper = Some(LeaseKeeper { stop, watch });
        Ok(())
    }

    /// What this node knows of the lease it holds (`None` unless it is the writer).
    pub fn lease_watch(&self) -> Option<Arc<LeaseWatch>> {
        self.keeper.as_ref().map(|k| k.watch.clone())
    }

    /// Why this writer may not commit now, if it may not.
    pub(super) fn lease_doubt(&self) -> Option<StorageError> {
        let why = self.keeper.as_ref()?.watch.doubt()?;
        Some(StorageError::NotWritten(format!(
            "this node writes nothing more: {why}"
        )))
    }

    /// A waiting node's look at the holder: if the holder's lease row is past
    /// its timeout by the database server's clock (or the holder has written
    /// none for `timeout_ms` as this node saw it: a build before the row, or a
    /// holder stopped between taking the lock and writing it), its
    /// connection is ended on the server, which lets go of the lock. Whether
    /// one was ended. Only a holder whose row is stale is ended: the row's
    /// age is read and acted on in one statement.
    pub(super) fn end_stale_holder(&mut self, timeout_ms: u64, unrenewed: &mut Option<(Backend, Instant)>) -> bool {
        let ended = self.try_end_stale_holder(timeout_ms, unrenewed);
        match ended {
            Ok(Some(why)) => {
                tracing::warn!("{why}; this node takes the casino over");
                true
            }
            Ok(None) => false,
            Err(e) => {
                tracing::warn!(
                    "cannot end the connection of the casino's holder in {}: {e} (nodes must connect as one \
                     role, or as members of pg_signal_backend)",
                    self.shown
                );
                false
            }
        }
    }

    fn try_end_stale_holder(
        &mut self,
        timeout_ms: u64,
        unrenewed: &mut Option<(Backend, Instant)>,
    ) -> Result<Option<String>, StorageError> {
        let Some(holder) = self.lease_holder()? else {
            return Ok(None);
        };
        let has_row: bool = self
            .client
            .query_one("SELECT to_regclass('lease') IS NOT NULL", &[])?
            .get(0);
        if has_row {
            // The row names the holder: ended only if it is stale, in the same statement.
            let row = self.client.query_opt(
                "SELECT (EXTRACT(EPOCH FROM (now() - l.renewed_at)) * 1000)::bigint, l.timeout_ms,
                        CASE WHEN now() - l.renewed_at > l.timeout_ms * interval '1 millisecond'
                             THEN pg_terminate_backend(l.pid) ELSE false END
                   FROM lease l JOIN pg_stat_activity a ON a.pid = l.pid AND a.backend_start = l.started
                  WHERE l.id = 1 AND l.pid = $1 AND a.backend_start::text = $2",
                &[&holder.0, &holder.1],
            )?;
            if let Some(row) = row {
                *unrenewed = None;
                let (age, timeout, ended): (i64, i64, bool) =
                    (column(&row, 0, 0)?, column(&row, 1, 0)?, column(&row, 2, 0)?);
                return Ok(ended.then(|| {
                    format!(
                        "the casino's lease in {} was last renewed {age} ms ago, past its holder's timeout of {timeout} ms: \
                         its holder's connection (process {} on the database server) was ended",
                        self.shown, holder.0
                    )
                }));
            }
        }
        // No row names the holder: timed on this node's own clock from when it first saw it so.
        let since = match unrenewed.as_ref() {
            Some((seen, since)) if *seen == holder => *since,
            _ => {
                *unrenewed = Some((holder, Instant::now()));
                return Ok(None);
            }
        };
        if since.elapsed() <= Duration::from_millis(timeout_ms) {
            return Ok(None);
        }
        let ended: bool = self
            .client
            .query_opt(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = $1 AND backend_start::text = $2",
                &[&holder.0, &holder.1],
            )?
            .map(|r| column(&r, 0, 0))
            .transpose()?
            .unwrap_or(false);
        *unrenewed = None;
        Ok(ended.then(|| {
            format!(
                "the casino's lease in {} is held by a connection (process {} on the database server) that renewed \
                 no lease row for {} ms: it was ended",
                self.shown, holder.0, timeout_ms
            )
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_is_in_doubt_past_half_its_timeout_and_lost_for_good() {
        let now = Instant::now();
        let watch = LeaseWatch::new(6_000, now);
        assert_eq!(watch.fence_ms(), 3_000);
        assert_eq!(watch.doubt(), None, "confirmed just now");
        // Confirmed 3.5 s ago: past the fence, though a standby may not act for 2.5 s more.
        let Some(earlier) = now.checked_sub(Duration::from_millis(3_500)) else {
            return;
        };
        let old = LeaseWatch::new(6_000, earlier);
        let doubt = old.doubt().expect("in doubt");
        assert!(doubt.contains("3000 ms") && doubt.contains("6000 ms"), "{doubt}");
        // A renewal confirmed since ends the doubt; a lease lost stays lost.
        old.confirm(Instant::now());
        assert_eq!(old.doubt(), None);
        old.lose("a standby ended the writing connection".into());
        old.confirm(Instant::now());
        assert_eq!(old.doubt().as_deref(), Some("a standby ended the writing connection"));
    }
}
