//! Holding back password guesses without locking anyone out. Failed
//! sign-ins are counted per account from each client address, and per
//! address, in memory, and forgotten after a while; past a few, each next
//! try must wait, twice as long after each failure. A stranger's guesses
//! at an account hold back that stranger's address, not the owner signing
//! in from another. A try is reserved before its password is hashed, so
//! guesses sent at once are not all checked, and an account has one try
//! under way at a time from each address: from everywhere at once, a
//! stranger could keep the owner's try from ever starting. No failure
//! ever locks an account or ends a session: only an admin locks.

use std::collections::{HashMap, HashSet};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

/// Failures of an account from one address before its tries from there are spaced.
pub const ACCOUNT_FREE_FAILURES: u32 = 3;
/// Failures from one address before its tries are spaced: many terminals
/// may sign in from behind one address.
pub const CLIENT_FREE_FAILURES: u32 = 20;
/// The first wait once tries are spaced; it doubles with each failure.
pub const BACKOFF_FIRST_MS: u64 = 1_000;
/// The longest wait between two tries.
pub const BACKOFF_MAX_MS: u64 = 15 * 60 * 1_000;
/// Failures are forgotten this long after the last one.
pub const FAILURES_FORGOTTEN_MS: u64 = 30 * 60 * 1_000;
/// Accounts and addresses remembered at most: past it the quiet ones are
/// forgotten, and if none is quiet the one whose last failure is oldest.
/// Refusing instead would let a flood of made-up names lock everyone out.
pub const REMEMBERED_MAX: usize = 100_000;

#[derive(Default)]
struct Tries {
    failures: u32,
    last_failure_ms: u64,
    /// When this address's tries would all have been paid off at its
    /// steady rate, in microseconds (a generic cell rate: a burst of a
    /// minute's tries, then one each 1/rate of a minute).
    paid_until_us: u64,
}

impl Tries {
    /// How long until the next try may start, if it must wait.
    fn wait_ms(&self, now_ms: u64, free: u32) -> Option<u64> {
        if self.failures < free || now_ms >= self.last_failure_ms + FAILURES_FORGOTTEN_MS {
            return None;
        }
        let doublings = (self.failures - free).min(20);
        let wait = BACKOFF_FIRST_MS.saturating_mul(1 << doublings).min(BACKOFF_MAX_MS);
        let until = self.last_failure_ms + wait;
        (now_ms < until).then(|| until - now_ms)
    }

    fn quiet(&self, now_ms: u64) -> bool {
        now_ms >= self.last_failure_ms + FAILURES_FORGOTTEN_MS && self.paid_until_us <= now_ms.saturating_mul(1_000)
    }
}

#[derive(Default)]
struct Remembered {
    /// By account and address (see [`guess_key`]).
    accounts: HashMap<String, Tries>,
    /// The accounts with a try under way, by account and address: one at a time from each.
    under_way: HashSet<String>,
    clients: HashMap<IpAddr, Tries>,
    /// Sign-ins one address may try a minute, failed or not.
    per_client_per_minute: u32,
}

/// Why a try may not start now, and when it may.
#[derive(Debug, PartialEq, Eq)]
pub struct Wait {
    pub seconds: u64,
    /// Why, and for how long: a sentence for the person signing in.
    pub why: String,
}

fn wait(ms: u64, why: &str) -> Wait {
    let seconds = ms.div_ceil(1_000).max(1);
    Wait {
        seconds,
        why: format!("{why}; try again in {seconds} s"),
    }
}

#[derive(Clone)]
pub struct Throttle(Arc<Mutex<Remembered>>);

/// Where guesses at `account` from `client` are counted.
fn guess_key(account: &str, client: Option<IpAddr>) -> String {
    match client {
        Some(ip) => format!("{account} from {ip}"),
        None => account.to_string(),
    }
}

/// A try under way; it ends as a failure, a success, or (dropped) neither.
pub struct Attempt {
    throttle: Throttle,
    key: String,
    client: Option<IpAddr>,
    done: bool,
}

/// Makes room among `map`'s entries for one more: forgets the quiet ones,
/// or if none is quiet, the one not under way whose last failure is oldest.
fn make_room<K: Eq + std::hash::Hash + Clone>(map: &mut HashMap<K, Tries>, now_ms: u64) {
    if map.len() < REMEMBERED_MAX {
        return;
    }
    map.retain(|_, t| !t.quiet(now_ms));
    if map.len() < REMEMBERED_MAX {
        return;
    }
    let oldest = map
        .iter()
        .min_by_key(|(_, t)| t.last_failure_ms)
        .map(|(k, _)| k.clone());
    if let Some(key) = oldest {
        map.remove(&key);
    }
}

impl Throttle {
    /// A throttle letting one address try `per_client_per_minute` sign-ins a minute.
    pub fn new(per_client_per_minute: u32) -> Throttle {
        Throttle(Arc::new(Mutex::new(Remembered {
            per_client_per_minute,
            ..Remembered::default()
        })))
    }

    fn remembered(&self) -> std::sync::MutexGuard<'_, Remembered> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Reserves a try at `account` from `client`, or says how long to wait.
    /// Unknown accounts are throttled alike: the answer tells nothing about who exists.
    pub fn begin(&self, account: &str, client: Option<IpAddr>, now_ms: u64) -> Result<Attempt, Wait> {
        let mut r = self.remembered();
        let now_us = now_ms.saturating_mul(1_000);
        let spacing_us = 60_000_000 / u64::from(r.per_client_per_minute.max(1));
        if let Some(ip) = client {
            if !r.clients.contains_key(&ip) {
                make_room(&mut r.clients, now_ms);
            }
            let tries = r.clients.entry(ip).or_default();
            let owed_us = tries.paid_until_us.max(now_us) + spacing_us - now_us;
            if owed_us > 60_000_000 {
                let wait_us = owed_us - 60_000_000;
                return Err(wait(wait_us.div_ceil(1_000), "too many sign-ins from this address"));
            }
            if let Some(ms) = tries.wait_ms(now_ms, CLIENT_FREE_FAILURES) {
                return Err(wait(ms, "too many failed sign-ins from this address"));
            }
        }
        let key = guess_key(account, client);
        if r.under_way.contains(&key) {
            return Err(wait(1_000, "a sign-in to this account from this address is under way"));
        }
        if !r.accounts.contains_key(&key) {
            make_room(&mut r.accounts, now_ms);
        }
        let tries = r.accounts.entry(key.clone()).or_default();
        if let Some(ms) = tries.wait_ms(now_ms, ACCOUNT_FREE_FAILURES) {
            return Err(wait(ms, "too many failed sign-ins to this account from this address"));
        }
        r.under_way.insert(key.clone());
        if let Some(ip) = client {
            if let Some(t) = r.clients.get_mut(&ip) {
                t.paid_until_us = t.paid_until_us.max(now_us) + spacing_us;
            }
        }
        Ok(Attempt {
            throttle: self.clone(),
            key,
            client,
            done: false,
        })
    }
}

impl Attempt {
    /// The password was wrong (or the account unknown): the next tries wait longer.
    pub fn failed(mut self, now_ms: u64) {
        let count = |tries: &mut Tries| {
            if now_ms >= tries.last_failure_ms + FAILURES_FORGOTTEN_MS {
                tries.failures = 0;
            }
            tries.failures += 1;
            tries.last_failure_ms = now_ms;
        };
        let mut r = self.throttle.remembered();
        if let Some(tries) = r.accounts.get_mut(&self.key) {
            count(tries);
        }
        if let Some(tries) = self.client.and_then(|ip| r.clients.get_mut(&ip)) {
            count(tries);
        }
        drop(r);
        self.done = true;
        self.end();
    }

    /// The password was right: the account's failures are forgotten.
    pub fn succeeded(mut self) {
        if let Some(tries) = self.throttle.remembered().accounts.get_mut(&self.key) {
            tries.failures = 0;
        }
        self.done = true;
        self.end();
    }

    fn end(&mut self) {
        self.throttle.remembered().under_way.remove(&self.key);
    }
}

impl Drop for Attempt {
    fn drop(&mut self) {
        if !self.done {
            self.end();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PER_MINUTE: u32 = 120;

    #[test]
    fn failures_space_the_tries_then_are_forgotten_and_nothing_locks_for_good() {
        let throttle = Throttle::new(PER_MINUTE);
        let ip: IpAddr = "10.0.0.9".parse().expect("ip");
        let mut now = 1_000_000;
        for _ in 0..ACCOUNT_FREE_FAILURES {
            throttle.begin("ann", Some(ip), now).expect("free").failed(now);
        }
        // The next try waits a second, then two after its failure, then four.
        for wait_s in [1, 2, 4] {
            let waited = throttle.begin("ann", Some(ip), now).err().expect("spaced");
            assert_eq!(waited.seconds, wait_s);
            // Coming back later than needed is fine too.
            now += wait_s * 1_000 + 250;
            throttle
                .begin("ann", Some(ip), now)
                .expect("after the wait")
                .failed(now);
        }
        // Another account from the same address is not held back by ann's failures.
        throttle.begin("bob", Some(ip), now).expect("bob").succeeded();
        // Forgotten after a while: the account tries freely again.
        now += FAILURES_FORGOTTEN_MS;
        throttle.begin("ann", Some(ip), now).expect("forgotten").succeeded();
        throttle.begin("ann", Some(ip), now).expect("and free").succeeded();
    }

    #[test]
    fn a_strangers_guesses_hold_back_the_stranger_not_the_owner_elsewhere() {
        let throttle = Throttle::new(PER_MINUTE);
        let (stranger, owner): (IpAddr, IpAddr) = ("203.0.113.9".parse().expect("ip"), "10.0.0.5".parse().expect("ip"));
        let mut now = 1_000;
        let mut failed = 0;
        while failed < 6 {
            match throttle.begin("cage", Some(stranger), now) {
                Ok(attempt) => {
                    attempt.failed(now);
                    failed += 1;
                }
                Err(w) => now += w.seconds * 1_000,
            }
        }
        assert!(
            throttle.begin("cage", Some(stranger), now).is_err(),
            "the stranger waits"
        );
        throttle
            .begin("cage", Some(owner), now)
            .expect("the owner signs in")
            .succeeded();
    }

    #[test]
    fn one_try_at_a_time_per_account_from_each_address() {
        let throttle = Throttle::new(PER_MINUTE);
        let here: IpAddr = "10.1.1.1".parse().expect("ip");
        let first = throttle.begin("ann", Some(here), 0).expect("first");
        let waited = throttle.begin("ann", Some(here), 0).err().expect("a second at once");
        assert!(waited.why.contains("under way"), "{}", waited.why);
        // The owner elsewhere is not kept waiting by a stranger's tries.
        throttle
            .begin("ann", Some("10.2.2.2".parse().expect("ip")), 0)
            .expect("from another address")
            .succeeded();
        drop(first);
        assert!(throttle.begin("ann", Some(here), 0).is_ok(), "once the first ended");
    }

    #[test]
    fn an_address_tries_a_minutes_worth_at_once_then_at_its_rate() {
        let throttle = Throttle::new(PER_MINUTE);
        let ip: IpAddr = "10.0.0.1".parse().expect("ip");
        for i in 0..PER_MINUTE {
            throttle
                .begin(&format!("user{i}"), Some(ip), 5_000)
                .expect("within the burst")
                .succeeded();
        }
        // One more each half second (120 a minute), whatever the clock's minute.
        let waited = throttle.begin("another", Some(ip), 5_000).err().expect("over");
        assert_eq!(waited.seconds, 1);
        assert!(throttle.begin("another", Some(ip), 5_499).is_err());
        throttle
            .begin("another", Some(ip), 5_500)
            .expect("half a second on")
            .succeeded();
        assert!(throttle.begin("more", Some(ip), 5_500).is_err());
        // Another address is not held back.
        throttle
            .begin("more", Some("10.0.0.2".parse().expect("ip")), 5_500)
            .expect("b")
            .succeeded();
        // Quiet for a minute, the burst is back.
        for i in 0..PER_MINUTE {
            throttle
                .begin(&format!("user{i}"), Some(ip), 66_000)
                .expect("a new burst")
                .succeeded();
        }
    }

    #[test]
    fn a_flood_of_made_up_names_does_not_shut_the_door() {
        let throttle = Throttle::new(PER_MINUTE);
        for i in 0..REMEMBERED_MAX as u64 {
            throttle
                .begin(&format!("nobody{i}"), None, i)
                .expect("remembered")
                .failed(i);
        }
        // Every one failed within the half hour; a real user still gets a try.
        let now = REMEMBERED_MAX as u64;
        throttle.begin("ann", None, now).expect("not refused").succeeded();
        assert_eq!(throttle.remembered().accounts.len(), REMEMBERED_MAX);
        assert!(
            !throttle.remembered().accounts.contains_key("nobody0"),
            "the oldest went"
        );
    }
}
